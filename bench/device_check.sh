#!/bin/bash
# The device machine's check of the GPU code, in one call of under ten
# minutes (run from the repository root there; logs, gzipped, in $OUT):
#   tests     the GPU tests (kernels bit-identical to the CPU, the pipeline,
#             PCE on the device, circom, setup, the engine on the GPU);
#   sanitize  compute-sanitizer memcheck and racecheck on one-round cases
#             (CUZK_GPU_ROUNDS=1);
#   bench     bench_gpu_ff (field multiplications), bench_gpu.
# The three together may pass ten minutes: split them over calls, e.g.
# STEPS="tests sanitize", then STEPS=bench.
# STEPS picks (default "tests sanitize bench"); TESTS narrows the tests step to some of its
# tests, SANITIZERS the sanitize step to memcheck or racecheck, SANITIZE_TESTS its tests
# (SANITIZE_MINB=0 leaves out the narrow-window, unbounded-NTT case); T bounds each test (s). Under the sanitizers test_gpu_prove runs in shards of
# its cases (SHARDS, space-separated comma lists of CUZK_GPU_PROVE_CASES; "all" for one run),
# each with its own log and verdict, so that a shard that runs out of time leaves the others'.
# Binaries: $1 (default /tmp/devbin), unpacked from devgpu/devbin.tar.xz
# (bench/device_pack.sh) when missing.
set -u
B=${1:-/tmp/devbin}
OUT=${OUT:-/tmp/out}
STEPS=${STEPS:-tests sanitize bench}
T=${T:-240}
mkdir -p "$OUT"
if [ ! -x "$B/cuzk" ]; then
    tar -C "$(dirname "$B")" -xJf devgpu/devbin.tar.xz || { echo "no $B and no devgpu/devbin.tar.xz" >&2; exit 2; }
fi
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=$OUT/summary.txt
{ echo "binaries of $(cat "$B/COMMIT" 2>/dev/null)"; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; } | tee -a "$S"
run() { # name, log, command...
    local name=$1 log=$2; shift 2
    local t0=$(date +%s)
    timeout "$T" "$@" > "$OUT/$log" 2>&1
    local rc=$?
    printf '%-40s rc=%-3s %4d s  %s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" \
        "$(grep -Ea 'passed|failed|ERROR SUMMARY|SKIP' "$OUT/$log" | tail -1)" | tee -a "$S"
}
for step in $STEPS; do
    case $step in
    tests)
        for t in ${TESTS:-test_gpu_ff test_gpu_kernels test_gpu_prove test_gpu_pce test_gpu_circom test_gpu_setup test_gpu_pairing test_engine_gpu}; do
            run "$t" "$t.log" "$B/$t"
        done
        # the lone MSMs' and NTTs' inputs through staging slots of 1 KiB (a slot turn per KiB)
        case " ${TESTS:-test_gpu_kernels} " in *" test_gpu_kernels "*)
            CUZK_GPU_STAGE_KIB=1 run "test_gpu_kernels (staging 1 KiB)" test_gpu_kernels_stage.log \
                "$B/test_gpu_kernels" ;;
        esac
        # the PCE's witness uploads through pinned staging slots of 1 KiB (many
        # slot turns per witness; the default's 32 MiB leave a test's witness direct)
        case " ${TESTS:-test_gpu_pce} " in *" test_gpu_pce "*)
            CUZK_GPU_STAGE_KIB=1 run "test_gpu_pce (staging 1 KiB)" test_gpu_pce_stage.log "$B/test_gpu_pce"
            # every set's B points streamed from the host in chunks (a card too small for the set)
            CUZK_GPU_STREAM=b_g1,b_g2 CUZK_GPU_STREAM_CHUNK=1000 run "test_gpu_pce (B streamed)" \
                test_gpu_pce_stream.log "$B/test_gpu_pce" ;;
        esac ;;
    sanitize)
        for tool in ${SANITIZERS:-memcheck racecheck}; do
            # racecheck crawls through shared memory: test_gpu_prove's circuit a third the
            # size under it (its 3,504 constraints ran past 150 s once the streaming came)
            if [ "$tool" = racecheck ]; then export CUZK_GPU_PROVE_MUL=${RACE_MUL:-1000}; else unset CUZK_GPU_PROVE_MUL; fi
            for t in ${SANITIZE_TESTS:-test_gpu_prove test_gpu_pce}; do
                if [ "$t" != test_gpu_prove ]; then
                    CUZK_GPU_ROUNDS=1 run "$tool $t" "$tool-$t.log" compute-sanitizer --tool "$tool" --error-exitcode 9 "$B/$t"
                    continue
                fi
                # a concurrency round of 6 partitions (2 workers): the kernels are the same as at 20
                for sh in ${SHARDS:-packed,released,tampered,layout staged,streamed index,oom,concurrency}; do
                    [ "$sh" = all ] && c="" || c=$sh
                    CUZK_GPU_PROVE_CASES=$c CUZK_GPU_PROVE_PARTS=6 CUZK_GPU_ROUNDS=1 run "$tool $t [$sh]" \
                        "$tool-$t-${sh//,/-}.log" compute-sanitizer --tool "$tool" --error-exitcode 9 "$B/$t"
                done
            done
            # the switched-off kernels too: narrow windows (long bucket runs), the NTT passes
            # without their 3-blocks-an-SM bound (SANITIZE_MINB=0: not)
            [ "${SANITIZE_MINB:-1}" = 0 ] || CUZK_GPU_ROUNDS=1 CUZK_GPU_MSM_C=4 CUZK_GPU_NTT_MINB=1 \
                run "$tool test_gpu_prove (c 4, minb 1)" "$tool-test_gpu_prove_minb.log" \
                compute-sanitizer --tool "$tool" --error-exitcode 9 "$B/test_gpu_prove"
        done
        unset CUZK_GPU_PROVE_MUL ;;
    bench)
        run "bench_gpu_ff" bench_gpu_ff.log "$B/bench_gpu_ff"
        run "bench_gpu" bench_gpu.log "$B/bench_gpu" ;;
    *) echo "unknown step $step" | tee -a "$S" ;;
    esac
done
gzip -f "$OUT"/*.log 2>/dev/null
exit 0
