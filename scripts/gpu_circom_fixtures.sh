#!/usr/bin/env bash
# snarkjs-made keys and witnesses for the GPU circom tests, made on a machine
# with node (the GPU machine may have none): tests/circom's circuits plus
# bench/circom/bench.circom with 2^K - 4 constraints (default K = 10), one
# ptau of the smallest power that fits them all (random contribution), one
# zkey contribution each. OUTDIR gets NAME.zkey, NAME.wtns, NAME.vk.json and
# snarkjs's NAME.snarkjs.proof.json / .public.json; test_gpu_circom reads it
# as $CUZK_CIRCOM_FIXTURES.
#   scripts/gpu_circom_fixtures.sh OUTDIR [K]     (scripts/deps.sh test first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:?usage: gpu_circom_fixtures.sh OUTDIR [K]}" && cd "$1" && pwd)
k=${2:-10}
circom2="$root/tests/oracle/node_modules/.bin/circom2"
oracle="node $root/tests/oracle/circom_oracle.mjs"
[ -x "$circom2" ] || { echo "gpu_circom_fixtures: run scripts/deps.sh test first" >&2; exit 1; }
seed=${CUZK_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}
echo "gpu_circom_fixtures: seed $seed"
names=(products pubio bits)
for n in "${names[@]}"; do
    "$circom2" "$root/tests/circom/$n.circom" --r1cs --wasm -p bls12381 -o "$out" >/dev/null
done
printf 'pragma circom 2.0.0;\ninclude "bench.circom";\ncomponent main {public [a]} = Bench(%d);\n' \
    $((2 ** k - 4)) >"$out/bench$k.circom"
# circom2 (WASI) only finds include paths below its working directory
(cd "$root/bench/circom" && "$circom2" "$out/bench$k.circom" -l . --r1cs --wasm -p bls12381 -o "$out" >/dev/null)
$oracle setup "$seed" auto "$out" "${names[@]}" "bench$k"
$oracle inputs "$seed" "$out"
echo '{"a": "3", "b": "12345678901234567890"}' >"$out/bench$k.in.json"
$oracle prove "$out" "${names[@]}" "bench$k"
rm -rf "$out"/*_js "$out"/pot*.ptau "$out"/*.0.zkey
ls -la "$out"
