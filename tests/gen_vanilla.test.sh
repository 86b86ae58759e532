#!/usr/bin/env bash
# `cuzk gen-vanilla window-post | winning-post | snap` on 2KiB stand-in sealed sectors (written
# by tool_fil_vanilla): the request files and vanilla proofs they write prepare and satisfy
# the circuit (tool_fil_vanilla check); the same --seed gives the same bytes; snap's output
# directory is a sector WindowPoSt then runs on; the --synthetic forms (no sector) at 2KiB and
# 8MiB likewise, in the real commands' file layout; bad options exit 2, bad randomness and a
# broken sector directory are refused. Usage: gen_vanilla.test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: gen_vanilla.test.sh BUILD_DIR}
fail() { echo "gen_vanilla: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${CUZK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')}
echo "gen_vanilla: seed: $seed (replay with CUZK_SEED=$seed)"
cuzk="$build/cuzk"
tool="$build/tool_fil_vanilla"

for i in 0 1 2; do
    "$tool" sector "$tmp/s$i" 5 $((seed % 1000 * 3 + i + 1)) 1234 $((seed + i)) || fail "tool sector $i"
done

"$cuzk" gen-vanilla window-post --sector "$tmp/s0" --sector "$tmp/s1" --seed "$seed" --out "$tmp/w" 2>/dev/null \
    || fail "window-post exited $?"
out=$("$tool" check "$tmp/w/request.json") || fail "window-post request refused"
grep -q "^ok wpost 2 " <<<"$out" || fail "window-post: $out"
grep -q '"registered_proof": 10' "$tmp/w/request.json" || fail "default proof is not StackedDrgWindow2KiBV1_2"
"$cuzk" gen-vanilla window-post --sector "$tmp/s0" --sector "$tmp/s1" --seed "$seed" --out "$tmp/w2" 2>/dev/null
cmp -s "$tmp/w/vanilla-0.bin" "$tmp/w2/vanilla-0.bin" && cmp -s "$tmp/w/vanilla-1.bin" "$tmp/w2/vanilla-1.bin" \
    || fail "same --seed, different bytes"
"$cuzk" gen-vanilla window-post --sector "$tmp/s0" --sector "$tmp/s1" --seed $((seed + 1)) --out "$tmp/w3" 2>/dev/null
cmp -s "$tmp/w/vanilla-0.bin" "$tmp/w3/vanilla-0.bin" && fail "another --seed, same bytes"

# API 1.0 WindowPoSt, partition 1: the sector index enters the challenges
"$cuzk" gen-vanilla window-post --sector "$tmp/s2" --proof 5 --partition 1 --seed "$seed" --out "$tmp/w5" 2>/dev/null \
    || fail "window-post --proof 5"
"$tool" check "$tmp/w5/request.json" >/dev/null || fail "window-post --proof 5 --partition 1 refused"

rnd=$(printf '%064x' 0 | sed 's/^00/7a/')
"$cuzk" gen-vanilla winning-post --sector "$tmp/s0" --sector "$tmp/s1" --sector "$tmp/s2" --randomness "$rnd" \
    --out "$tmp/win" 2>"$tmp/win.log" || fail "winning-post exited $?"
grep -q "selected" "$tmp/win.log" || fail "winning-post names no selected sector"
out=$("$tool" check "$tmp/win/request.json") || fail "winning-post request refused"
grep -q "^ok winning 1 " <<<"$out" || fail "winning-post: $out"

"$cuzk" gen-vanilla snap --sector "$tmp/s0" --seed "$seed" --out "$tmp/snap" 2>"$tmp/snap.log" || fail "snap exited $?"
grep -q "partition 1/1" "$tmp/snap.log" || fail "snap reports no progress"
out=$("$tool" check "$tmp/snap/request.json") || fail "snap request refused"
grep -q "^ok snap 1 1705039$" <<<"$out" || fail "snap: $out"
"$cuzk" gen-vanilla window-post --sector "$tmp/snap" --seed "$seed" --out "$tmp/ws" 2>/dev/null \
    || fail "window-post on the updated sector"
"$tool" check "$tmp/ws/request.json" >/dev/null || fail "window-post on the updated sector refused"

# --synthetic: stand-in sectors without sealing (the 32 GiB runs use it); at 2KiB they prepare
# and satisfy the circuit through the same path as sealed sectors' proofs, deterministically
"$cuzk" gen-vanilla window-post --synthetic --sector-size 2KiB --sectors 2 --sector-id $((seed % 1000 + 7)) \
    --seed "$seed" --out "$tmp/sw" 2>/dev/null || fail "synthetic window-post exited $?"
out=$("$tool" check "$tmp/sw/request.json") || fail "synthetic window-post refused"
grep -q "^ok wpost 2 " <<<"$out" || fail "synthetic window-post: $out"
grep -q '"synthetic": true' "$tmp/sw/sectors.json" || fail "synthetic sectors.json"
"$cuzk" gen-vanilla window-post --synthetic --sector-size 2KiB --sectors 2 --sector-id $((seed % 1000 + 7)) \
    --seed "$seed" --out "$tmp/sw2" 2>/dev/null
cmp -s "$tmp/sw/vanilla-1.bin" "$tmp/sw2/vanilla-1.bin" || fail "synthetic: same --seed, different bytes"
"$cuzk" gen-vanilla window-post --synthetic --sector-size 2KiB --proof 5 --partition 1 --seed $((seed + 1)) \
    --out "$tmp/sw5" 2>/dev/null || fail "synthetic window-post --proof 5"
"$tool" check "$tmp/sw5/request.json" >/dev/null || fail "synthetic window-post --proof 5 --partition 1 refused"
cmp -s "$tmp/sw/vanilla-0.bin" "$tmp/sw5/vanilla-0.bin" && fail "synthetic: another --seed, same bytes"
"$cuzk" gen-vanilla winning-post --synthetic --sector-size 2KiB --randomness "$rnd" --out "$tmp/swin" 2>/dev/null \
    || fail "synthetic winning-post exited $?"
out=$("$tool" check "$tmp/swin/request.json") || fail "synthetic winning-post refused"
grep -q "^ok winning 1 " <<<"$out" || fail "synthetic winning-post: $out"
# one flipped byte in an opening (a sibling's low byte, past the header) is caught
len=$(stat -c %s "$tmp/sw/vanilla-0.bin")
off=$(( 200 + seed % (len - 400) ))
cp -r "$tmp/sw" "$tmp/swbad"
printf "$(printf '\\x%02x' $(( ($(od -An -tu1 -j $off -N1 "$tmp/sw/vanilla-0.bin") + 1) % 256 )))" |
    dd of="$tmp/swbad/vanilla-0.bin" bs=1 seek=$off conv=notrunc 2>/dev/null
"$tool" check "$tmp/swbad/request.json" >/dev/null 2>&1 && fail "synthetic: a flipped byte at $off accepted"

# snap --synthetic: a stand-in update without a sector, the real command's files (request.json and
# vanilla-p<k>.bin, no sector), accepted and satisfying the circuit, deterministic in its seed
sid=$((seed % 100000 + 3))
"$cuzk" gen-vanilla snap --synthetic --sector-size 2KiB --seed "$seed" --sector-id $sid --miner 4321 \
    --out "$tmp/ssnap" 2>"$tmp/ssnap.log" || fail "synthetic snap exited $?"
out=$("$tool" check "$tmp/ssnap/request.json") || fail "synthetic snap refused"
grep -q "^ok snap 1 1705039$" <<<"$out" || fail "synthetic snap: $out"
[ "$(cd "$tmp/ssnap" && ls | tr '\n' ' ')" = "request.json vanilla-p0.bin " ] || fail "synthetic snap files: $(ls "$tmp/ssnap")"
[ "$(cd "$tmp/snap" && ls vanilla-p*.bin)" = "vanilla-p0.bin" ] || fail "real snap's vanilla file names differ"
cmp -s <(stat -c %s "$tmp/snap/vanilla-p0.bin") <(stat -c %s "$tmp/ssnap/vanilla-p0.bin") \
    || fail "synthetic and real 2KiB vanilla proofs differ in size"
for k in proof_kind registered_proof sector_size comm_r_old comm_r_new comm_d_new vanilla_proofs; do
    grep -q "\"$k\"" "$tmp/ssnap/request.json" || fail "synthetic snap request.json lacks $k"
done
grep -q "\"sector_number\": $sid," "$tmp/ssnap/request.json" && grep -q '"miner_id": 4321' "$tmp/ssnap/request.json" \
    || fail "synthetic snap: --sector-id / --miner not in request.json"
"$cuzk" gen-vanilla snap --synthetic --sector-size 2KiB --seed "$seed" --sector-id $sid --miner 4321 \
    --out "$tmp/ssnap2" 2>/dev/null
cmp -s "$tmp/ssnap/vanilla-p0.bin" "$tmp/ssnap2/vanilla-p0.bin" && cmp -s "$tmp/ssnap/request.json" "$tmp/ssnap2/request.json" \
    || fail "synthetic snap: same --seed, different bytes"
"$cuzk" gen-vanilla snap --synthetic --sector-size 2KiB --seed $((seed + 1)) --out "$tmp/ssnap3" 2>/dev/null
cmp -s "$tmp/ssnap/vanilla-p0.bin" "$tmp/ssnap3/vanilla-p0.bin" && fail "synthetic snap: another --seed, same bytes"
# 8MiB: 4 partitions, every one prepares and satisfies the circuit
"$cuzk" gen-vanilla snap --synthetic --sector-size 8MiB --seed "$seed" --out "$tmp/ssnap8" 2>/dev/null \
    || fail "synthetic 8MiB snap exited $?"
out=$("$tool" check "$tmp/ssnap8/request.json") || fail "synthetic 8MiB snap refused"
grep -q "^ok snap 4 " <<<"$out" || fail "synthetic 8MiB snap: $out"
cp -r "$tmp/ssnap" "$tmp/ssnapbad"
len=$(stat -c %s "$tmp/ssnap/vanilla-p0.bin")
off=$(( 400 + seed % (len - 800) ))
printf "$(printf '\\x%02x' $(( ($(od -An -tu1 -j $off -N1 "$tmp/ssnap/vanilla-p0.bin") + 1) % 256 )))" |
    dd of="$tmp/ssnapbad/vanilla-p0.bin" bs=1 seek=$off conv=notrunc 2>/dev/null
"$tool" check "$tmp/ssnapbad/request.json" >/dev/null 2>&1 && fail "synthetic snap: a flipped byte at $off accepted"

set +e
"$cuzk" gen-vanilla window-post --synthetic --sector "$tmp/s0" --sector-size 2KiB --seed 1 --out "$tmp/x" 2>/dev/null
[ $? = 2 ] || fail "--synthetic with --sector: want 2"
"$cuzk" gen-vanilla window-post --synthetic --sector-size 2KiB --sectors 3 --seed 1 --out "$tmp/x" 2>"$tmp/err"
[ $? = 2 ] && grep -q "at most 2" "$tmp/err" || fail "--sectors over a partition: want 2 with a message"
"$cuzk" gen-vanilla window-post --synthetic --sector-size 3KiB --seed 1 --out "$tmp/x" 2>/dev/null
[ $? = 2 ] || fail "--synthetic at an unregistered size: want 2"
"$cuzk" gen-vanilla window-post --sector "$tmp/s0" --out "$tmp/x" 2>/dev/null; [ $? = 2 ] || fail "no seed: want 2"
"$cuzk" gen-vanilla snap --sector "$tmp/s0" --seed 1 --bogus 2>/dev/null; [ $? = 2 ] || fail "bad option: want 2"
"$cuzk" gen-vanilla snap --synthetic --sector "$tmp/s0" --sector-size 2KiB --seed 1 --out "$tmp/x" 2>/dev/null
[ $? = 2 ] || fail "snap --synthetic with --sector: want 2"
"$cuzk" gen-vanilla snap --sector "$tmp/s0" --sector-id 3 --seed 1 --out "$tmp/x" 2>/dev/null
[ $? = 2 ] || fail "snap --sector-id without --synthetic: want 2"
"$cuzk" gen-vanilla snap --synthetic --sector-size 16MiB --seed 1 --out "$tmp/x" 2>"$tmp/err"
[ $? = 2 ] && grep -q "no SnapDeals proof" "$tmp/err" || fail "snap --synthetic at an unregistered size: want 2"
"$cuzk" gen-vanilla snap --synthetic --sector-size 2KiB --out "$tmp/x" 2>/dev/null; [ $? = 2 ] || fail "snap no seed: want 2"
"$cuzk" gen-vanilla window-post --sector "$tmp/s0" --randomness "$(printf 'f%.0s' $(seq 64))" --out "$tmp/x" \
    2>"$tmp/err"; [ $? = 2 ] && grep -q randomness "$tmp/err" || fail "non-canonical randomness accepted"
head -c 100 "$tmp/s1/replica.bin" >"$tmp/s1/replica.short" && mv "$tmp/s1/replica.short" "$tmp/s1/replica.bin"
"$cuzk" gen-vanilla window-post --sector "$tmp/s1" --seed 1 --out "$tmp/x" 2>"$tmp/err"
[ $? = 1 ] && grep -q "replica.bin" "$tmp/err" || fail "short replica.bin accepted"
set -e
echo "gen_vanilla: ok"
