#!/usr/bin/env bash
# Proofs made by cuzk, verified by @noble/curves from the bellperson-format
# files (.vk, proofs, public inputs): valid proofs pass there, tampered
# variants (moved points, changed inputs, mismatched rows, flipped bytes, a
# swapped vk) fail there. Usage: groth16_noble.test.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: groth16_noble.test.sh BUILD_DIR}" && pwd)
cuzk="$build/cuzk"
oracle="$here/oracle/groth16_oracle.mjs"
name=groth16_noble
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found (install nodejs, or run 'make test' / scripts/deps.sh test)"
[ -f "$here/oracle/node_modules/@noble/curves/package.json" ] ||
    fail "tests/oracle/node_modules missing (run 'cd tests/oracle && npm ci' or scripts/deps.sh test)"
[ -x "$cuzk" ] || fail "$cuzk not built"

seed=${CUZK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')}
echo "$name: seed: $seed (replay with CUZK_SEED=$seed)"
RANDOM=$((seed % 32768))
rnd() { echo $(( (RANDOM << 15 | RANDOM) % $1 )); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

nc=$(( 200 + $(rnd 1500) ))
ni=$(( 1 + $(rnd 5) ))
s=$(rnd 1000000)
C=(--constraints "$nc" --inputs "$ni" --threads 2)
echo "$name: synthetic circuit: $nc constraints, $ni inputs, seed $s"
"$cuzk" setup "${C[@]}" --params p.params --vk p.vk >/dev/null 2>&1 || fail "cuzk setup"
"$cuzk" prove "${C[@]}" --params p.params --seed "$s" --count 2 --proof p.proof --public p.public >/dev/null ||
    fail "cuzk prove"
"$cuzk" verify "${C[@]}" --vk p.vk --seed "$s" --proof p.proof >/dev/null || fail "cuzk verify of its own proofs"

node "$oracle" tamper p.vk p.proof p.public || fail "noble: valid proofs rejected or a tampered variant accepted"

# Byte-level tampering and a vk from another setup: noble must reject too.
cp p.proof bad.proof
off=$(rnd 384)
b=$(od -An -tu1 -j "$off" -N1 bad.proof | tr -d ' ')
printf "$(printf '\\%03o' $(( b ^ (1 + $(rnd 255)) )))" | dd of=bad.proof bs=1 seek="$off" conv=notrunc status=none
node "$oracle" check p.vk bad.proof p.public >/dev/null && fail "noble accepted a proof with byte $off flipped"
"$cuzk" setup "${C[@]}" --params q.params --vk q.vk >/dev/null 2>&1 || fail "second cuzk setup"
node "$oracle" check q.vk p.proof p.public >/dev/null && fail "noble accepted proofs against another setup's vk"

# The SHA-256 chain (public inputs are multipacked hashes).
L=(--circuit sha256 --length 1 --threads 2)
"$cuzk" setup "${L[@]}" --params h.params --vk h.vk >/dev/null 2>&1 || fail "cuzk setup sha256"
"$cuzk" prove "${L[@]}" --params h.params --seed "$s" --proof h.proof --public h.public >/dev/null || fail "cuzk prove sha256"
node "$oracle" check h.vk h.proof h.public || fail "noble rejected a sha256-chain proof"
"$cuzk" prove "${L[@]}" --params h.params --seed "$((s + 1))" --proof h2.proof --public h2.public >/dev/null || fail "cuzk prove sha256 (2)"
node "$oracle" check h.vk h.proof h2.public >/dev/null && fail "noble accepted a sha256 proof with another witness's inputs"
echo "$name: OK"
