#!/bin/bash
# Runs on a GPU machine (the device tool) with binaries built elsewhere and
# carried in the folder given as $1 (default bin): test_engine_gpu (50 jobs
# x 10 partitions, on GPU 0 and on two contexts of GPU 0), test_gpu_prove,
# and bench_engine --gpu on one and on two device contexts (and on one with
# pageable parameters, for the upload comparison). Logs to $OUT.
set -u
B=${1:-bin}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/smi.log" 2>&1
nproc >> "$OUT/smi.log"
rc=0
step() { # name timeout_s command...
    local name=$1 t=$2; shift 2
    echo "== $name"
    timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local r=$?
    tail -6 "$OUT/$name.log"; echo "== $name: exit $r"; rc=$((rc | r))
}
step test_engine_gpu 180 env CUZK_ENGINE_GPU_JOBS=${JOBS:-50} "$B/test_engine_gpu"
step test_gpu_prove 60 "$B/test_gpu_prove"
step bench_engine_gpu1 80 "$B/bench_engine" --gpu ${NC:-262144} 8 14 1 2
step bench_engine_gpu2 80 "$B/bench_engine" --gpu ${NC:-262144} 8 14 2 2
# the same with pageable parameters: compare the "first job" line (upload)
step bench_engine_gpu1_nopin 80 env CUZK_BENCH_PIN=off "$B/bench_engine" --gpu ${NC:-262144} 8 14 1 2
exit $rc
