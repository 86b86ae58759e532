#!/bin/bash
# The device-memory plan on the device machine, in calls of under ten minutes that follow each
# other within the machine's 30 s of warmth (run from the repository root there, with
# devgpu/devbin.tar.xz of bench/device_pack.sh carried):
#   STEP=check  the 32 GiB PoRep TEST setup started detached (drive-32g.sh STAGE=1); the MSMs in
#               chunks against the CPU (unless CHUNKED=0); test_gpu_pce's budgets (every plan of a small circuit, then, unless BIG=0, of a 2^20 one,
#               byte for byte against the whole card), stopping here when they fail; then,
#               with the time left, the 32 GiB PoRep through the daemon at CONFIGS
#               (fil_e2e_device.sh: "1:0pm24" is one packed GPU worker on a card held to 24 GiB)
#   STEP=porep  the 32 GiB PoRep through the daemon at CONFIGS
#   STEP=verify  the budgets of a small and a 2^20 circuit, a memcheck of everything streamed, the
#               whole-card GPU tests (when no 32 GiB run fits the device time left)
#   STEP=agg    SnarkPack on the device: test_gpu_pairing, test_gpu_snarkpack (the CPU's bytes), then
#               bench_snarkpack's CPU and GPU rows side by side, AGG_MIN .. AGG_MAX proofs (512 .. 8192)
#   STEP=sanitize  compute-sanitizer memcheck of test_gpu_pce's budgets (a small circuit)
#               and the GPU tests of the whole-card path
# Each step leaves $OUT/STEP.tgz (the logs) and prints the figures.
set -u
STEP=${STEP:?STEP=check, verify, porep, agg or sanitize}
T0=$(date +%s)
LIMIT=${LIMIT:-580}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
B=/tmp/devbin
[ -x $B/cuzk ] || tar -C /tmp -xJf devgpu/devbin.tar.xz || exit 2
export LD_LIBRARY_PATH=$B/lib
OUT=${OUT:-/tmp/out}
O=/tmp/plan/$STEP
mkdir -p "$O" "$OUT"
finish() {
    tar czf "$OUT/$STEP.tgz" -C /tmp/plan "$STEP"
    echo "$STEP wall $(( $(date +%s) - T0 )) s"
}
nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader
# budgets ROWS: test_gpu_pce's budgets alone (no variant rounds) at ROWS rows
budgets() {
    local t=$(date +%s)
    CUZK_GPU_PLAN_ROWS=$1 CUZK_GPU_PCE_VARIANTS=0 timeout "$2" $B/test_gpu_pce > "$O/budgets_$1.log" 2>&1
    local rc=$?
    echo "test_gpu_pce budgets, $1 rows: rc $rc, $(( $(date +%s) - t )) s"
    grep -E "plan budgets|bytes|streamed|CHECK|passed" "$O/budgets_$1.log" | head -40
    return $rc
}
# the MSM taken in chunks into shared buckets (the hooks' msm_chunk) on every lone MSM of
# test_gpu_kernels against the CPU: chunks of 777 points, then of 3,000 with 5-bit windows and
# batches of 4,000 entries (many windows a chunk, several batches), and test_gpu_prove's proofs
chunked() {
    local t=$(date +%s) a
    for a in "777 0 0" "3000 5 4000"; do
        set -- $a
        CUZK_GPU_MSM_CHUNK=$1 CUZK_GPU_MSM_C=$2 CUZK_GPU_MSM_BATCH=$3 timeout 120 $B/test_gpu_kernels \
            > "$O/kernels_chunk_$1.log" 2>&1
        echo "test_gpu_kernels, MSMs in chunks of $1 (c $2, batch $3): rc $?; $(tail -1 "$O/kernels_chunk_$1.log")"
    done
    CUZK_GPU_MSM_CHUNK=5000 timeout 120 $B/test_gpu_prove > "$O/prove_chunk.log" 2>&1
    echo "test_gpu_prove, MSMs in chunks of 5000: rc $?, $(( $(date +%s) - t )) s; $(tail -1 "$O/prove_chunk.log")"
}
porep() {
    STAGE=2 CONFIGS="$CONFIGS" PROOFS=${PROOFS:-3} LIMIT=$(left) OUT=$O bash $B/drive-32g.sh $B 2>&1 |
        grep -vE "^\[batch\]|^ *[0-9]+ +[0-9]" | tail -${TAIL:-70}
}
case $STEP in
check)
    STAGE=1 LIMIT=3 OUT=$O bash $B/drive-32g.sh $B > /dev/null 2>&1
    [ "${CHUNKED:-1}" = 1 ] && chunked
    budgets 2000 150 || { finish; exit 1; }
    [ "${BIG:-1}" = 1 ] && budgets 1000000 200
    [ -n "${CONFIGS:-}" ] && [ "$(left)" -gt "${PMIN:-300}" ] && porep
    ;;
verify)
    # the new paths' correctness when no 32 GiB run fits the device time left: the budgets of a
    # small circuit and of a 2^20 one, a memcheck of every array and the PCE's matrices streamed,
    # then the whole-card GPU tests
    cap() { local l=$(( $(left) - 10 )); echo $(( l < $1 ? l : $1 )); }
    chunked
    budgets 2000 "$(cap 100)" || { finish; exit 1; }
    t=$(date +%s)
    CUZK_GPU_STREAM=h,l,a,b_g1,b_g2,pce CUZK_GPU_STREAM_CHUNK=200 CUZK_GPU_PLAN_ROWS=600 CUZK_GPU_PCE_VARIANTS=1 \
        timeout "$(cap 100)" compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu_pce > "$O/memcheck_pce_stream.log" 2>&1
    echo "memcheck test_gpu_pce (streamed): rc $?, $(( $(date +%s) - t )) s; $(grep -E 'ERROR SUMMARY|passed' "$O/memcheck_pce_stream.log" | tail -2 | tr '\n' ' ')"
    [ "$(left)" -gt 60 ] && budgets 1000000 "$(cap 120)"
    for x in test_gpu_prove test_engine_gpu test_gpu_pce; do
        [ "$(left)" -gt 40 ] || break
        t=$(date +%s)
        timeout $(( $(left) - 20 )) $B/$x > "$O/$x.log" 2>&1
        echo "$x: rc $?, $(( $(date +%s) - t )) s; $(tail -1 "$O/$x.log")"
    done
    ;;
porep) porep ;;
agg)
    for x in test_gpu_pairing test_gpu_snarkpack; do
        t=$(date +%s)
        timeout 120 $B/$x > "$O/$x.log" 2>&1
        echo "$x: rc $?, $(( $(date +%s) - t )) s; $(grep -E '^  |passed' "$O/$x.log" | tail -8)"
    done
    timeout $(( $(left) - 10 )) $B/bench_snarkpack --device both --min "${AGG_MIN:-512}" --max "${AGG_MAX:-8192}" \
        2>&1 | tee "$O/bench_snarkpack.log" | tail -16
    ;;
sanitize)
    # a small circuit's budgets (its smallest plan: H over two vectors, compact twiddles, the PCE's
    # matrices streamed), then one variant with every array and the PCE's matrices streamed in
    # chunks of 200 points (the chunk schedule, the row blocks, the copy stream, two workers)
    t=$(date +%s)
    CUZK_GPU_PLAN_ROWS=600 CUZK_GPU_PCE_VARIANTS=0 timeout $(( $(left) / 2 )) compute-sanitizer --tool memcheck \
        --error-exitcode 9 $B/test_gpu_pce > "$O/memcheck_pce.log" 2>&1
    echo "memcheck test_gpu_pce (budgets): rc $?, $(( $(date +%s) - t )) s; $(grep -E 'ERROR SUMMARY|passed' "$O/memcheck_pce.log" | tail -2 | tr '\n' ' ')"
    t=$(date +%s)
    CUZK_GPU_STREAM=h,l,a,b_g1,b_g2,pce CUZK_GPU_STREAM_CHUNK=200 CUZK_GPU_PLAN_ROWS=600 CUZK_GPU_PCE_VARIANTS=1 \
        timeout $(( $(left) - 10 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_gpu_pce \
        > "$O/memcheck_pce_stream.log" 2>&1
    echo "memcheck test_gpu_pce (streamed): rc $?, $(( $(date +%s) - t )) s; $(grep -E 'ERROR SUMMARY|passed' "$O/memcheck_pce_stream.log" | tail -2 | tr '\n' ' ')"
    for x in test_gpu_prove test_engine_gpu; do
        [ "$(left)" -gt 120 ] || break
        t=$(date +%s)
        timeout $(( $(left) - 20 )) $B/$x > "$O/$x.log" 2>&1
        echo "$x: rc $?, $(( $(date +%s) - t )) s; $(tail -1 "$O/$x.log")"
    done
    ;;
esac
finish
