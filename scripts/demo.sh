#!/usr/bin/env bash
# make demo: until the engine exists this runs the math benchmark end to end.
set -euo pipefail
build=${1:-build}
echo "cuzk demo: BLS12-381 math core benchmark"
if [ -x "$build/bench_math" ]; then
    "$build/bench_math"
else
    echo "bench_math not built yet" >&2
    exit 1
fi
