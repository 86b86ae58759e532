#!/usr/bin/env bash
# cuzk gen-vanilla porep and cuzk c1 check, end to end: a 2KiB sector sealed with random
# miner / sector / seed, its files (sector.json, data.bin, replica.bin, c1.json,
# c1-curio.json, request.json), the same seed giving byte-identical files, both C1 forms
# passing the check with the right ids and failing with a wrong miner or sector, a
# truncated C1 refused with a message, a 4KiB test-only size sealed without a C1, bad
# options refused.   Usage: gen_porep.test.sh BUILD_DIR   (replay: CUZK_SEED=<seed>)
set -uo pipefail
build=$(cd "${1:?usage: gen_porep.test.sh BUILD_DIR}" && pwd)
cuzk="$build/cuzk"
name=gen_porep
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
[ -x "$cuzk" ] || fail "$cuzk not built"

seed=${CUZK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')}
echo "$name: seed: $seed (replay with CUZK_SEED=$seed)"
RANDOM=$((seed % 32768))
miner=$((RANDOM * 7 + 1))
sector=$((RANDOM + 2))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cuzk" gen-vanilla porep --sector-size 2KiB --seed "$seed" --miner-id "$miner" --sector-id "$sector" \
    --out "$tmp/a" >/dev/null || fail "gen-vanilla porep"
for f in sector.json data.bin replica.bin c1.json c1-curio.json request.json; do
    [ -s "$tmp/a/$f" ] || fail "$f missing"
done
[ "$(stat -c %s "$tmp/a/data.bin")" = 2048 ] && [ "$(stat -c %s "$tmp/a/replica.bin")" = 2048 ] || fail "sizes"
grep -q "\"sector_id\": $sector," "$tmp/a/sector.json" || fail "sector.json sector_id"
grep -q '"vanilla_proof": "c1.json"' "$tmp/a/request.json" || fail "request.json"
"$cuzk" gen-vanilla porep --sector-size 2KiB --seed "$seed" --miner-id "$miner" --sector-id "$sector" \
    --out "$tmp/b" >/dev/null || fail "second run"
for f in sector.json data.bin replica.bin c1.json c1-curio.json; do
    cmp -s "$tmp/a/$f" "$tmp/b/$f" || fail "$f differs for the same seed"
done
for f in c1.json c1-curio.json; do
    "$cuzk" c1 check "$tmp/a/$f" --miner-id "$miner" --sector-id "$sector" >/dev/null || fail "check $f"
    "$cuzk" c1 check "$tmp/a/$f" --miner-id $((miner + 1)) --sector-id "$sector" >/dev/null 2>"$tmp/err" &&
        fail "$f passed with a wrong miner"
    grep -q replica_id "$tmp/err" || fail "wrong miner: no reason given"
    "$cuzk" c1 check "$tmp/a/$f" --miner-id "$miner" --sector-id $((sector + 1)) >/dev/null 2>&1 &&
        fail "$f passed with a wrong sector"
done
head -c 5000 "$tmp/a/c1.json" >"$tmp/short.json"
"$cuzk" c1 check "$tmp/short.json" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "malformed JSON" "$tmp/err" || fail "truncated C1"
"$cuzk" gen-vanilla porep --sector-size 4KiB --seed "$seed" --out "$tmp/c" >/dev/null || fail "4KiB"
[ -s "$tmp/c/replica.bin" ] && [ ! -e "$tmp/c/c1.json" ] || fail "4KiB files"
"$cuzk" gen-vanilla porep --sector-size 3KiB --out "$tmp/d" >/dev/null 2>&1 && fail "3KiB accepted"
"$cuzk" gen-vanilla porep --sector-size 2KiB --registered-proof 3 --out "$tmp/d" >/dev/null 2>&1 &&
    fail "a 32GiB proof for a 2KiB sector accepted"
"$cuzk" gen-vanilla porep --sector-size 2KiB >/dev/null 2>&1 && fail "no --out accepted"
echo "$name: ok"
