#!/usr/bin/env bash
# `cuzk pce inspect`: the counts it prints equal the RecordingCS's (printed by
# tool_pce_write), a corrupt or truncated file fails with the reason, bad
# usage exits 2. Usage: pce_cli.test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: pce_cli.test.sh BUILD_DIR}
fail() { echo "pce_cli: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seed=${CUZK_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}
echo "pce_cli: seed: $seed (replay with CUZK_SEED=$seed)"

for mode in narrow wide; do
    f="$tmp/c-$mode.pce"
    want=$(CUZK_SEED=$seed "$build/tool_pce_write" "$f" 500 "$mode" 2>/dev/null) || fail "tool_pce_write"
    out=$("$build/cuzk" pce inspect --threads 2 "$f") || fail "inspect $mode exited $?"
    line=$(head -1 <<<"$out")
    # inputs, aux, constraints, and nnz of A, B, C as the RecordingCS counted them
    for field in "$(cut -d, -f1-3 <<<"$want")" "$(grep -o 'A: {nnz: [0-9]*' <<<"$want")" \
                 "$(grep -o 'B: {nnz: [0-9]*' <<<"$want")" "$(grep -o 'C: {nnz: [0-9]*' <<<"$want")"; do
        grep -qF "$field" <<<"$line" || fail "inspect line lacks '$field': $line"
    done
    grep -q "mem: " <<<"$line" || fail "no mem in: $line"
    grep -q "circuit:      cli-test" <<<"$out" || fail "circuit id"
    want_rp=u32; [ $mode = wide ] && want_rp=u64
    grep -q "row pointers: $want_rp" <<<"$out" || fail "row pointer width"
done

f="$tmp/c-narrow.pce"
size=$(stat -c %s "$f")
# a flipped byte in the middle of the sections
cp "$f" "$tmp/flip.pce"
printf '\x5a' | dd of="$tmp/flip.pce" bs=1 seek=$((size / 2)) conv=notrunc status=none
if err=$("$build/cuzk" pce inspect "$tmp/flip.pce" 2>&1 >/dev/null); then fail "flipped byte accepted"; fi
grep -qE "checksum|structure" <<<"$err" || fail "flip: reason missing: $err" # a checksum, or the structure when the byte lands in padding
# --no-verify still loads a structurally fine file, or names the structural problem
"$build/cuzk" pce inspect --no-verify "$f" >/dev/null || fail "--no-verify on a good file"
# truncated
head -c $((size - 1)) "$f" > "$tmp/trunc.pce"
if err=$("$build/cuzk" pce inspect "$tmp/trunc.pce" 2>&1 >/dev/null); then fail "truncated file accepted"; fi
grep -q "truncated" <<<"$err" || fail "truncation: reason missing: $err"
# not a PCE file
echo "hello" > "$tmp/junk.pce"
if "$build/cuzk" pce inspect "$tmp/junk.pce" 2>/dev/null; then fail "junk accepted"; fi
# pce extract: a Filecoin circuit as the daemon's cache keeps it; a second run
# loads it; a damaged file is set aside and re-extracted
d="$tmp/cache"; mkdir -p "$d"
circ=wpost-2k; [ $((seed & 1)) = 0 ] && circ=winning-2k
out=$("$build/cuzk" pce extract --circuit $circ --dir "$d" --threads 2) || fail "pce extract $circ"
grep -q "$circ: extracted and saved" <<<"$out" || fail "extract: $out"
grep -q "circuit:      $circ" <<<"$out" || fail "extract: no inspection: $out"
out=$("$build/cuzk" pce extract --circuit $circ --dir "$d") || fail "pce extract again"
grep -q "a valid cached file loaded" <<<"$out" || fail "second extract did not load the file: $out"
size=$(stat -c %s "$d/$circ.pce")
printf '\x5a' | dd of="$d/$circ.pce" bs=1 seek=$((size - 100)) conv=notrunc status=none
out=$("$build/cuzk" pce extract --circuit $circ --dir "$d" 2>&1) || fail "extract over a damaged file"
grep -q "extracted and saved" <<<"$out" || fail "damaged file not re-extracted: $out"
[ -f "$d/$circ.pce.rejected" ] || fail "damaged file not set aside"
# a request's partition through the PCE: witness, a/b/c, a*b = c, public inputs
(cd "$tmp" && "$build/cuzk" gen-vanilla porep --sector-size 2KiB --out S --seed "$((seed & 0xffff))" >/dev/null 2>&1 &&
    "$build/cuzk" gen-vanilla window-post --sector S --seed 3 --out W >/dev/null 2>&1) || fail "gen-vanilla"
out=$("$build/cuzk" pce extract --circuit wpost-2k --dir "$d" --request "$tmp/W/request.json") || fail "extract --request"
grep -q "constraints satisfied, public inputs as rebuilt" <<<"$out" || fail "extract --request: $out"
set +e
"$build/cuzk" pce extract --circuit winning-2k --dir "$d" --request "$tmp/W/request.json" >/dev/null 2>&1
[ $? -eq 1 ] || fail "a WindowPoSt request through the WinningPoSt PCE should exit 1"
"$build/cuzk" pce extract --circuit porep-3k --dir "$d" >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown circuit id should exit 2"
"$build/cuzk" pce extract --dir "$d" >/dev/null 2>&1; [ $? -eq 2 ] || fail "extract without --circuit should exit 2"
set -e

# usage
set +e
"$build/cuzk" pce >/dev/null 2>&1; [ $? -eq 2 ] || fail "no subcommand should exit 2"
"$build/cuzk" pce inspect >/dev/null 2>&1; [ $? -eq 2 ] || fail "no file should exit 2"
"$build/cuzk" pce frobnicate x >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown subcommand should exit 2"
"$build/cuzk" pce inspect "$tmp/missing.pce" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing file should exit 1"
echo "pce_cli: OK"
