#!/usr/bin/env bash
# circom / snarkjs interop, both ways, on circuits compiled here with circom2
# (-p bls12381) and keys made here by snarkjs (a ptau of the smallest power
# that fits, one random contribution to it and to each zkey), with fresh
# random inputs from the printed seed:
#   - cuzk circom check accepts each witness, rejects a corrupted one;
#   - cuzk's exported verification key equals snarkjs's;
#   - snarkjs's proofs verify with cuzk, cuzk's proofs verify with snarkjs,
#     cuzk's public signals equal snarkjs's;
#   - a tampered proof or public input is rejected by both;
#   - every reader rejects malformed versions of these files
#     (tool_circom_mutate: truncation, duplicate sections, wrong curve,
#     out-of-range numbers, points off the curve or outside the subgroup).
#   circom.test.sh BUILD_DIR      (replay: CUZK_SEED=<printed seed>)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: circom.test.sh BUILD_DIR}
oracle="node $here/oracle/circom_oracle.mjs"
cuzk="$build/cuzk"
circom2="$here/oracle/node_modules/.bin/circom2"

fail() { echo "circom: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found (scripts/deps.sh test)"
[ -x "$circom2" ] && [ -f "$here/oracle/node_modules/snarkjs/package.json" ] ||
    fail "snarkjs/circom2 missing in tests/oracle/node_modules (scripts/deps.sh test)"
[ -x "$cuzk" ] && [ -x "$build/tool_circom_mutate" ] || fail "cuzk or tool_circom_mutate not built in $build"

seed=${CUZK_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}
echo "circom: seed: $seed (replay with CUZK_SEED=$seed)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names=(products pubio bits)

for n in "${names[@]}"; do
    "$circom2" "$here/circom/$n.circom" --r1cs --wasm -p bls12381 -o "$tmp" >"$tmp/$n.circom.log" 2>&1 ||
        { cat "$tmp/$n.circom.log"; fail "circom2 could not compile $n.circom"; }
done
$oracle setup "$seed" auto "$tmp" "${names[@]}" || fail "snarkjs setup"
$oracle inputs "$seed" "$tmp"
$oracle prove "$tmp" "${names[@]}" || fail "snarkjs witness or prove"

export CUZK_THREADS=2
verify_triples=()
for n in "${names[@]}"; do
    t="$tmp/$n"
    echo "== $n"
    "$cuzk" circom check --r1cs "$t.r1cs" --wtns "$t.wtns" || fail "$n: cuzk check rejected snarkjs's witness"
    "$cuzk" circom export-vk --zkey "$t.zkey" --out "$t.cuzk.vk.json" || fail "$n: export-vk"
    $oracle vkeq "$t.vk.json" "$t.cuzk.vk.json" || fail "$n: cuzk's verification key differs from snarkjs's"
    "$cuzk" circom verify --vk "$t.vk.json" --public "$t.snarkjs.public.json" --proof "$t.snarkjs.proof.json" ||
        fail "$n: cuzk rejected snarkjs's proof"
    "$cuzk" circom prove --zkey "$t.zkey" --wtns "$t.wtns" --proof "$t.cuzk.proof.json" \
        --public "$t.cuzk.public.json" || fail "$n: cuzk prove"
    $oracle vkeq "$t.snarkjs.public.json" "$t.cuzk.public.json" || fail "$n: public signals differ"
    "$cuzk" circom verify --vk "$t.cuzk.vk.json" --public "$t.cuzk.public.json" --proof "$t.cuzk.proof.json" ||
        fail "$n: cuzk rejected its own proof"
    for who in cuzk snarkjs; do
        $oracle tamper "$t.$who.proof.json" "$t.$who.public.json" "$t.$who"
        if "$cuzk" circom verify --vk "$t.vk.json" --public "$t.$who.public.json" --proof "$t.$who.badproof.json"; then
            fail "$n: cuzk accepted a tampered $who proof"
        fi
        if "$cuzk" circom verify --vk "$t.vk.json" --public "$t.$who.badpublic.json" --proof "$t.$who.proof.json"; then
            fail "$n: cuzk accepted $who's proof with a tampered public input"
        fi
        verify_triples+=("$t.vk.json" "$t.$who.public.json" "$t.$who.badproof.json" bad
                         "$t.vk.json" "$t.$who.badpublic.json" "$t.$who.proof.json" bad)
    done
    verify_triples+=("$t.vk.json" "$t.cuzk.public.json" "$t.cuzk.proof.json" ok)
    # a proof checked against another circuit's key
    other=$([ "$n" = products ] && echo bits || echo products)
    if "$cuzk" circom verify --vk "$tmp/$other.vk.json" --public "$t.cuzk.public.json" --proof "$t.cuzk.proof.json" 2>/dev/null; then
        fail "$n: cuzk accepted a proof under $other's key"
    fi
done
$oracle verify "${verify_triples[@]}" || fail "snarkjs did not verify as expected"

echo "== unsatisfied witness"
# The last witness value of products, changed: check must name a constraint.
node -e 'const fs = require("fs"), b = fs.readFileSync(process.argv[1]); b[b.length - 32] ^= 1;
         fs.writeFileSync(process.argv[2], b)' "$tmp/products.wtns" "$tmp/bad.wtns"
if out=$("$cuzk" circom check --r1cs "$tmp/products.r1cs" --wtns "$tmp/bad.wtns" 2>&1); then
    fail "cuzk check accepted a corrupted witness"
fi
echo "$out"
grep -q "constraint [0-9]* is not satisfied" <<<"$out" || fail "check did not name the failing constraint"
echo "== device gpu"
# With a GPU the proof must verify (cuzk and snarkjs); without one the CLI must
# say so (CI has no GPU: tests/test_gpu_circom.c covers the device itself).
if out=$("$cuzk" circom prove --zkey "$tmp/bits.zkey" --wtns "$tmp/bits.wtns" --proof "$tmp/g.json" \
    --public "$tmp/gp.json" --device gpu 2>&1); then
    echo "$out"
    "$cuzk" circom verify --vk "$tmp/bits.vk.json" --public "$tmp/gp.json" --proof "$tmp/g.json" ||
        fail "cuzk rejected the GPU proof"
    $oracle verify "$tmp/bits.vk.json" "$tmp/gp.json" "$tmp/g.json" ok || fail "snarkjs rejected the GPU proof"
else
    echo "$out"
    grep -Eq "no CUDA device|no GPU build" <<<"$out" || fail "--device gpu failed without saying there is no GPU"
    echo "circom: GPU prover skipped: no GPU here"
fi

echo "== malformed inputs"
m="$build/tool_circom_mutate"
CUZK_SEED=$seed "$m" zkey "$tmp/bits.zkey" >/dev/null || fail "zkey reader (CUZK_SEED=$seed $m zkey ...)"
CUZK_SEED=$seed "$m" r1cs "$tmp/products.r1cs" >/dev/null || fail "r1cs reader"
CUZK_SEED=$seed "$m" wtns "$tmp/pubio.wtns" >/dev/null || fail "wtns reader"
CUZK_SEED=$seed "$m" proof "$tmp/bits.snarkjs.proof.json" >/dev/null || fail "proof json reader"
CUZK_SEED=$seed "$m" vk "$tmp/pubio.vk.json" >/dev/null || fail "vk json reader"
CUZK_SEED=$seed "$m" public "$tmp/pubio.snarkjs.public.json" >/dev/null || fail "public json reader"
echo "circom: OK"
