#!/usr/bin/env bash
# make demo: until the engine exists this runs the math benchmark, then a
# Groth16 round trip through the command line (setup, prove, verify).
set -euo pipefail
build=${1:-build}
echo "cuzk demo: BLS12-381 math core benchmark"
if [ -x "$build/bench_math" ]; then
    "$build/bench_math"
else
    echo "bench_math not built yet" >&2
    exit 1
fi

echo
echo "cuzk demo: Groth16 on the CPU, synthetic circuit of 2^16 constraints (test parameters)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=(--constraints 65531 --inputs 4)
"$build/cuzk" setup "${opts[@]}" --params "$tmp/demo.params" --vk "$tmp/demo.vk"
"$build/cuzk" prove "${opts[@]}" --params "$tmp/demo.params" --seed 1 --count 2 --proof "$tmp/demo.proof" --public "$tmp/demo.public"
"$build/cuzk" verify "${opts[@]}" --vk "$tmp/demo.vk" --seed 1 --proof "$tmp/demo.proof"
