#!/usr/bin/env bash
# src/ff/mont_adx.h is generated: running src/ff/mont_gen_adx.py again must
# give the same bytes, so the header in the tree is the generator's output and
# an edit by hand (or a generator change not re-run) fails here.
# Usage: mont_adx_generated.test.sh BUILD_DIR (unused: reads the source tree)
set -u
src="$(cd "$(dirname "$0")/.." && pwd)/src/ff"
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
/usr/bin/python3 "$src/mont_gen_adx.py" >"$out" || { echo "FAIL: mont_gen_adx.py exited $?"; exit 1; }
if cmp -s "$out" "$src/mont_adx.h"; then
    echo "ok: mont_gen_adx.py regenerates src/ff/mont_adx.h byte for byte ($(wc -c <"$out") bytes)"
else
    echo "FAIL: src/ff/mont_adx.h differs from what src/ff/mont_gen_adx.py prints:"
    diff "$src/mont_adx.h" "$out" | head -20
    exit 1
fi
