#!/bin/bash
# Runs on a GPU machine (the device tool): uses the binaries in bin/ (built
# elsewhere with the same nvcc) or builds them if they cannot load, then runs
# the stages named as arguments:
#   tests     GPU tests (CUZK_GPU_ROUNDS rounds of the concurrency case)
#   sanitize  compute-sanitizer memcheck and racecheck on small sizes
#   bench     bench_gpu (CUZK_BENCH_* limit the sizes)
# Logs go to $OUT (or /tmp/out).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/smi.log"
B=bin
if [ ! -x "$B/test_gpu_kernels" ] || ! ldd "$B/test_gpu_kernels" >/dev/null 2>&1 || ldd "$B/test_gpu_kernels" | grep -q "not found"; then
    echo "building on the device" | tee -a "$OUT/build.log"
    B=build
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUZK_LTO=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >>"$OUT/build.log" 2>&1
    make -C build -j16 test_gpu_kernels test_gpu_prove bench_gpu >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
echo "binaries: $B"
rc=0
for stage in "$@"; do
    case $stage in
    tests)
        "$B/test_gpu_kernels" 2>&1 | tee "$OUT/test_gpu_kernels.log" | tail -15; rc=$((rc | PIPESTATUS[0]))
        "$B/test_gpu_prove" 2>&1 | tee "$OUT/test_gpu_prove.log" | tail -15; rc=$((rc | PIPESTATUS[0]))
        ;;
    sanitize)
        for tool in memcheck racecheck; do
            CUZK_GPU_ROUNDS=1 CUZK_GPU_PROVE_MUL=200 compute-sanitizer --tool $tool --error-exitcode 9 \
                "$B/test_gpu_prove" >"$OUT/san_$tool.log" 2>&1; r=$?
            echo "sanitizer $tool: exit $r"; tail -4 "$OUT/san_$tool.log"; rc=$((rc | r))
        done
        ;;
    bench)
        "$B/bench_gpu" 2>&1 | tee "$OUT/bench_gpu.log"; rc=$((rc | PIPESTATUS[0]))
        ;;
    esac
done
exit $rc
