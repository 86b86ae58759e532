#!/usr/bin/env bash
# SnarkPack aggregates that cuzk makes (cuzk setup --aggregation, cuzk aggregate), recomputed by
# an independent prover in @noble/curves (tests/oracle/snarkpack_oracle.mjs: its own transcript,
# GT compression, commitments, GIPA rounds and KZG openings) byte for byte, and the TIPP, MIPP,
# KZG and aggregated Groth16 relations checked there; cuzk verify --kind aggregate says VALID.
# 2 proofs (v1), 3 padded to 4 (v2), 5 padded to 8 (v1), fresh circuits and transcript bytes.
# A flipped byte, other transcript bytes or the other version: cuzk says INVALID and the oracle
# finds the aggregate differs. Usage: snarkpack_noble.test.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: snarkpack_noble.test.sh BUILD_DIR}" && pwd)
cuzk="$build/cuzk"
oracle="$here/oracle/snarkpack_oracle.mjs"
name=snarkpack_noble
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found (install nodejs, or run 'make test' / scripts/deps.sh test)"
[ -f "$here/oracle/node_modules/@noble/curves/package.json" ] ||
    fail "tests/oracle/node_modules missing (run 'cd tests/oracle && npm ci' or scripts/deps.sh test)"
[ -x "$cuzk" ] || fail "$cuzk not built"

seed=${CUZK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')}
echo "$name: seed: $seed (replay with CUZK_SEED=$seed)"
RANDOM=$((seed % 32768))
rnd() { echo $(( (RANDOM << 15 | RANDOM) % $1 )); }
hex() { local s=""; for _ in $(seq "$1"); do s+=$(printf %02x "$(rnd 256)"); done; echo "$s"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
"$cuzk" setup --aggregation --out srs --max 8 --threads 2 >/dev/null || fail "cuzk setup --aggregation"
srs=srs/v28-fil-inner-product-v1.srs

# pad.py ROWS_IN N_INPUTS COUNT OUT: the rows padded by the last to COUNT
pad() { python3 -c "import sys
b=open(sys.argv[1],'rb').read(); w=32*int(sys.argv[2]); n=int(sys.argv[3])
open(sys.argv[4],'wb').write(b+b[-w:]*(n-len(b)//w))" "$@"; }

run() { # proofs padded-count version
    local k=$1 n=$2 v=$3 ni=$(( 1 + $(rnd 4) )) nc=$(( 100 + $(rnd 300) )) inc
    inc=$(hex 32)
    local C=(--constraints "$nc" --inputs "$ni" --threads 2)
    "$cuzk" setup "${C[@]}" --params p.params --vk p.vk >/dev/null 2>&1 || fail "cuzk setup"
    "$cuzk" prove "${C[@]}" --params p.params --seed "$(rnd 100000)" --count "$k" --proof p.proof --public p.public \
        >/dev/null || fail "cuzk prove"
    pad p.public "$ni" "$n" pn.public
    "$cuzk" aggregate --srs "$srs" --proof p.proof --out a.agg --aggregate-version "$v" --include "$inc" >/dev/null ||
        fail "cuzk aggregate ($k proofs, v$v)"
    local V=(--kind aggregate --srs "$srs" --vk p.vk --public pn.public)
    "$cuzk" verify "${V[@]}" --aggregate-version "$v" --proof a.agg --include "$inc" | grep -qx VALID || fail "cuzk verify: $k proofs v$v"
    node "$oracle" "$srs" p.vk p.proof pn.public "$inc" "$v" a.agg || fail "noble: $k proofs padded to $n, v$v"
    cp a.agg b.agg
    local off=$(rnd "$(stat -c %s a.agg)") b
    b=$(od -An -tu1 -j "$off" -N1 b.agg | tr -d ' ')
    printf "$(printf '\\%03o' $(( b ^ (1 + $(rnd 255)) )))" | dd of=b.agg bs=1 seek="$off" conv=notrunc status=none
    "$cuzk" verify "${V[@]}" --aggregate-version "$v" --proof b.agg --include "$inc" >out.txt; [ $? = 1 ] || fail "byte $off flipped: not INVALID"
    echo "$name: byte $off flipped: $(grep INVALID out.txt)"
    "$cuzk" verify "${V[@]}" --aggregate-version "$v" --proof a.agg --include "$(hex 32)" >/dev/null
    [ $? = 1 ] || fail "other transcript bytes: not INVALID"
    "$cuzk" verify "${V[@]}" --aggregate-version $((3 - v)) --proof a.agg --include "$inc" >/dev/null
    [ $? = 1 ] || fail "the other version: not INVALID"
    if [ "$n" -le 4 ]; then # the oracle's own refusals (each a whole recomputation: seconds at 8)
        node "$oracle" "$srs" p.vk p.proof pn.public "$inc" "$v" b.agg >/dev/null 2>&1 && fail "noble: byte $off flipped matched"
        node "$oracle" "$srs" p.vk p.proof pn.public "$(hex 32)" "$v" a.agg >/dev/null 2>&1 && fail "noble: other transcript"
        node "$oracle" "$srs" p.vk p.proof pn.public "$inc" $((3 - v)) a.agg >/dev/null 2>&1 && fail "noble: other version"
    fi
    echo "$name: $k proofs padded to $n, v$v, $nc constraints, $ni inputs: OK"
}
run 2 2 1
run 3 4 2
run 5 8 1
echo "$name: OK"
