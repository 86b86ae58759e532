#!/bin/bash
# One device session's runs, in calls of under ten minutes that follow each other within the
# machine's 30 s of warmth (the 32 GiB parameters live on its disk only while it is held):
#   STEP=check  the 32 GiB PoRep TEST setup started detached (drive-32g.sh STAGE=1), the GPU
#               tests and compute-sanitizer beside it (device_check.sh; CHECK_STEPS and TESTS
#               narrow them when an earlier run passed them), then waits for the setup
#   STEP=bench  the kernel benchmarks, the GPU to themselves (after check's setup is done):
#               bench_gpu_ff, bench_gpu (the G1 rows plain and with the
#               bases resident), sppark_side (cuzk and sppark in one process, when packed), and
#               CUZK_GPU_TRACE runs that split the 2^27 MSM and NTT and the 2^24 G1/G2 MSMs by kernel
#   STEP=probe  what bounds the kernels: the SASS of bench_gpu_ff and of the MSM's accumulation
#               (cuobjdump), ncu's sections for the G1 MSM's level 0 (2^24), the NTT's passes at
#               2^27 and bench_gpu_ff's mixed addition; with variant builds packed
#               (device_pack.sh's VARIANT_BUILD) each one's kernel test, and the NTT 2^27 and
#               G1 2^24 / 2^26 rows of the default build and the variant interleaved twice; then G1 2^26 and G2 2^24 with the window width forced
#               around the cost model's pick (CUZK_GPU_MSM_C)
#   STEP=porep  the 32 GiB PoRep end to end (drive-32g.sh STAGE=2: PCE, preload, first proof,
#               batch of PROOFS at concurrency 2, for each gpu:synthesis pair of CONFIGS); then
#               the PoRep files go and the WindowPoSt setup starts detached
#   STEP=post   the 32 GiB WindowPoSt (its 61 GB of parameters leave no room on the 64 GB disk
#               for its PCE: PCE_DIR=/dev/shm/pce), one proof and a batch; then WinningPoSt
#   STEP=snap   the 32 GiB SnapDeals (16 partitions), setup included, for each pair of CONFIGS
#               (default 2:0; porep's NEXT=snap keeps the WindowPoSt setup off the disk)
# Run from the repository root there with devgpu/devbin.tar.xz (bench/device_pack.sh, which
# also packs ../shared/device/drive-32g.sh) carried; each step leaves $OUT/STEP.tgz and prints
# the figures. Disk: one kind's parameters at a time.
set -u
STEP=${STEP:?STEP=check, bench, probe, porep, post or snap}
T0=$(date +%s)
left() { echo $(( ${LIMIT:-570} - ($(date +%s) - T0) )); }
B=/tmp/devbin
[ -x $B/cuzk ] || tar -C /tmp -xJf devgpu/devbin.tar.xz || exit 2
export LD_LIBRARY_PATH=$B/lib
OUT=${OUT:-/tmp/out}
O=/tmp/session/$STEP
mkdir -p "$O" "$OUT"
finish() {
    tar czf "$OUT/$STEP.tgz" -C /tmp/session "$STEP"
    echo "$STEP wall $(( $(date +%s) - T0 )) s"
}
# the CUDA tools (cuobjdump, ncu) on PATH, when the machine has them
cuda_tools() {
    local ncu
    ncu=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
    [ -n "$ncu" ] && export PATH=$PATH:$(dirname "$ncu")
}
# bench_gpu with only some rows: env "${ONLY[@]}" CUZK_BENCH_G1=.. CUZK_BENCH_NTT=.. CUZK_BENCH_MIN=.. BIN
ONLY=(CUZK_BENCH_G1=0 CUZK_BENCH_G2=0 CUZK_BENCH_NTT=0 CUZK_BENCH_PROVE=0 CUZK_BENCH_CIRCOM=0 CUZK_BENCH_FB=0 CUZK_BENCH_PAIR=0)
# variant_rows V T: the variant build in V (device_pack's VARIANT_BUILD) beside the default one:
# its kernel test, then the NTT 2^27 and G1 2^24 / 2^26 rows of both interleaved twice, each run
# bounded by T s and none started with T s or less left
variant_rows() {
    local V=$1 T=$2 v=${1##*/} r bin
    echo "$v: $(cat $V/FLAGS 2>/dev/null)"
    timeout 100 $V/test_gpu_kernels > $O/${v}_kernels.log 2>&1
    echo "$v test_gpu_kernels rc $? $(tail -1 $O/${v}_kernels.log)"
    for r in 1 2; do
        for bin in $B/bench_gpu $V/bench_gpu; do
            [ "$(left)" -gt $T ] || return 0
            timeout $T env "${ONLY[@]}" CUZK_BENCH_NTT=27 CUZK_BENCH_G1=26 CUZK_BENCH_MIN=24 $bin > $O/${v}_rows_$r.log 2>&1
            echo "$bin: $(grep -E 'NTT \((nat|bitrev)|G1 MSM random +\|' $O/${v}_rows_$r.log | grep -v minb |
                awk -F'|' '{printf "%s %s %s;", $2, $3, $4}' | tr -s ' ')"
        done
    done
}
# ncu_pipes E T: ncu's pipe counters (% of peak, those >= 1 printed) of bench_gpu_ff's Fp product
# loop mul_loop<fp, E> (0: f_mul_cios, 1: f_mul_eo), bounded by T s
ncu_pipes() {
    timeout $2 ncu --kernel-name-base mangled -k "regex:mul_loopIN8cuzk_gpu9fp_paramsELi$1E" --launch-count 1 \
        --metrics "regex:^sm__(pipe_.*_cycles_active|inst_executed_pipe_[a-z0-9_]+)\.avg\.pct_of_peak_sustained_active$" \
        $B/bench_gpu_ff > $O/ncu_pipes$1.txt 2>&1
    echo "mul_loop<fp, $1> pipes (% of peak, >= 1):"
    grep -E "sm__" $O/ncu_pipes$1.txt | awk '$NF + 0 >= 1'
}
# The 32 GiB kinds need the H200's memory: the PoRep's device peak is ~115 GB with 2 GPU workers
# (~90 with 1), WindowPoSt's parameters alone are 61 GB. On a smaller card (an 80 GB H100) the
# 32 GiB steps stop at once, and so does check's PoRep setup, whose files would be lost with the
# machine anyway: ask for the H200 (needs_h200) for those calls. Since the device-memory diet
# (perf-log, 4th session of 5 Dec) one PoRep worker is counted at ~82 GB: FORCE_SMALL_CARD=1
# CONFIGS=1:0 tries it on an 80 GB card (check then runs the setup too).
MIB=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -dc 0-9)
echo "device: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
big_card() { [ "${MIB:-0}" -ge 120000 ] || [ -n "${FORCE_SMALL_CARD:-}" ]; }
need_big() {
    big_card && return 0
    echo "$STEP: skipped, the card has ${MIB:-no} MiB; the 32 GiB kinds need >= 120000 (an H200: needs_h200)"
    echo "skipped: card ${MIB:-none} MiB" > $O/skipped.txt
    finish
    exit 3
}
case $STEP in
check)
    big_card && W=/var/tmp/scale OUT=$O STAGE=1 LIMIT=12 bash $B/drive-32g.sh $B
    STEPS="${CHECK_STEPS-tests sanitize}" T=150 OUT=$O/chk timeout 450 bash bench/device_check.sh $B
    big_card && W=/var/tmp/scale OUT=$O STAGE=1 LIMIT=$(( $(left) - 10 )) bash $B/drive-32g.sh $B
    # what the machine offers: a profiler; the daemon's budget under a real memory cgroup (v2
    # where the machine has the controller: issue 24)
    { echo "profilers: $(ls /usr/local/cuda*/bin /opt/nvidia/*/bin 2>/dev/null | grep -xE 'ncu|nsys' | sort -u | tr '\n' ' ')"
      echo "cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null || echo none at /sys/fs/cgroup)"
      timeout 60 bash bench/cgroup_check.sh $B/cuzk
    } >> $O/chk/summary.txt 2>&1
    cp $O/chk/summary.txt "$OUT/" 2>/dev/null
    finish ;;
bench)
    timeout 60 $B/bench_gpu_ff > $O/bench_gpu_ff.log 2>&1
    CUZK_BENCH_G2=19 CUZK_BENCH_PROVE=22 CUZK_BENCH_CIRCOM=9 CUZK_BENCH_FB=19 timeout 260 $B/bench_gpu > $O/bench_gpu.log 2>&1
    sp=$(( $(left) - 150 )); [ $sp -gt 150 ] && sp=150 # leaves the traces their time
    [ -x $B/sppark_side ] && [ $sp -gt 30 ] && timeout $sp $B/sppark_side > $O/sppark_side.log 2>&1
    # the kernel regions split by kernel (CUZK_GPU_TRACE): the H MSM's size (2^27, c = 22), the NTT
    # at 2^27; then G1 and G2 at 2^24
    for sz in 27 24; do
        tt=$(( $(left) > 130 ? 120 : $(left) - 10 ))
        [ $tt -gt 20 ] || break
        CUZK_GPU_TRACE=1 CUZK_BENCH_REPS=1 CUZK_BENCH_MIN=$sz CUZK_BENCH_G1=$sz CUZK_BENCH_G2=$(( sz == 24 ? 24 : 0 )) \
            CUZK_BENCH_NTT=$(( sz == 27 ? 27 : 0 )) CUZK_BENCH_PROVE=0 CUZK_BENCH_CIRCOM=0 CUZK_BENCH_FB=0 \
            timeout $tt $B/bench_gpu > $O/bench_trace$sz.log 2>&1
    done
    finish
    cat $O/bench_gpu_ff.log; grep -E "MSM|NTT|prove|differs" $O/bench_gpu.log
    cat $O/sppark_side.log 2>/dev/null; grep -A12 "gpu trace" $O/bench_trace27.log | head -80 ;;
probe)
    cuda_tools
    for V in $B/variant-*; do
        [ -x $V/bench_gpu ] && variant_rows $V 60
    done
    if command -v cuobjdump > /dev/null; then
        cuobjdump -sass $B/bench_gpu_ff | gzip > $O/bench_gpu_ff.sass.gz
        cuobjdump -sass $B/bench_gpu | awk '/Function : /{p = /msm_accumulate|ntt_pass/} p' | gzip > $O/kernels.sass.gz
    fi
    if command -v ncu > /dev/null; then
        S=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy
           --section WarpStateStats --section InstructionStats --section LaunchStats --print-details all)
        timeout 100 env "${ONLY[@]}" CUZK_BENCH_G1=24 CUZK_BENCH_MIN=24 CUZK_BENCH_REPS=1 ncu --kernel-name-base function \
            --kernel-id ::regex:msm_accumulate:1 "${S[@]}" $B/bench_gpu > $O/ncu_msm.txt 2>&1
        timeout 100 env "${ONLY[@]}" CUZK_BENCH_NTT=27 CUZK_BENCH_MIN=27 CUZK_BENCH_REPS=1 ncu -k regex:ntt_pass \
            --launch-count 3 "${S[@]}" $B/bench_gpu > $O/ncu_ntt.txt 2>&1
        timeout 60 ncu -k regex:add_loop --launch-count 1 "${S[@]}" $B/bench_gpu_ff > $O/ncu_add.txt 2>&1
        # the sections of Fp's product loops: the even/odd product (1), the single accumulator (0)
        for e in 1 0; do
            [ "$(left)" -gt 90 ] || break
            timeout 40 ncu --kernel-name-base mangled -k "regex:mul_loopIN8cuzk_gpu9fp_paramsELi${e}E" --launch-count 1 \
                "${S[@]}" $B/bench_gpu_ff > $O/ncu_mul$e.txt 2>&1
        done
        grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|L2 Hit|L1/TEX Hit|Issue Slots Busy|Executed Ipc A|Registers Per|Achieved Occupancy|SM Busy" \
            $O/ncu_*.txt | cut -c1-170
        for e in 1 0; do
            [ "$(left)" -gt 90 ] || break
            ncu_pipes $e 40
        done
    fi
    # the window width forced around the cost model's pick: G1 at 2^26, G2 at 2^24
    for gc in 1:21 1:22 1:23 2:17 2:18 2:19 2:20 2:21; do
        [ "$(left)" -gt 60 ] || break
        g=${gc%%:*} cw=${gc##*:}
        if [ $g = 1 ]; then sz=(CUZK_BENCH_G1=26 CUZK_BENCH_MIN=26); else sz=(CUZK_BENCH_G2=24 CUZK_BENCH_MIN=24); fi
        timeout 40 env "${ONLY[@]}" "${sz[@]}" CUZK_GPU_MSM_C=$cw $B/bench_gpu > $O/g${g}_c$cw.log 2>&1
        echo "G$g c=$cw: $(grep -E "G$g MSM random +\|" $O/g${g}_c$cw.log | head -1)"
    done
    finish ;;
porep)
    need_big
    # a proof path that failed its GPU tests would only fail its partitions here: say so and stop
    S=/tmp/session/check/chk/summary.txt
    if [ -f $S ] && [ -z "${FORCE:-}" ] && grep -E "^test_gpu_(prove|pce) " $S | grep -vq "rc=0 "; then
        grep -E "^test_gpu_(prove|pce) " $S
        echo "porep: skipped, the GPU proof tests failed in check (FORCE=1 runs it anyway)" | tee $O/skipped.txt
        finish
        exit 4
    fi
    export LOG_ALLOC=1 # the device-memory ledger into the daemon's log ([gpus] log_allocations; perf-log's table)
    W=/var/tmp/scale OUT=$O STAGE=2 LIMIT=$(( $(left) - 40 )) CONFIGS="${CONFIGS:-2:0}" PROOFS=${PROOFS:-5} \
        bash $B/drive-32g.sh $B > $O/drive.log 2>&1
    rm -rf /var/tmp/scale
    # the next call's setup, started detached (NEXT=snap leaves the disk to the snap step's own)
    [ "${NEXT:-post}" = post ] &&
        W=/var/tmp/wp KIND=window-post OUT=/tmp/session/post STAGE=1 LIMIT=8 bash $B/drive-32g.sh $B > /dev/null 2>&1
    cp $O/e2e.log "$OUT/" 2>/dev/null
    finish
    tail -45 $O/e2e.log ;;
post)
    need_big
    W=/var/tmp/wp KIND=window-post OUT=$O STAGE=1 LIMIT=${SETUP_WAIT:-300} bash $B/drive-32g.sh $B > $O/setup_wait.log 2>&1
    [ "$(cat /var/tmp/wp/setup.rc 2>/dev/null)" = 0 ] && touch /var/tmp/wp/params/.setup-window-post-32GiB
    SCALE_DIR=/var/tmp/wp OUT=$O SIZE=32GiB DEVICE=gpu KIND=window-post PROOFS=${PROOFS:-2} CONFIGS=2:0 \
        PCE_DIR=/dev/shm/pce timeout $(( $(left) - 20 )) bash bench/fil_e2e_device.sh $B > $O/e2e_wpost.log 2>&1
    echo "window-post rc $? after $(( $(date +%s) - T0 )) s"
    rm -rf /var/tmp/wp /dev/shm/pce
    if [ "$(left)" -gt 150 ]; then
        SCALE_DIR=/var/tmp/win OUT=$O/win SIZE=32GiB DEVICE=gpu KIND=winning-post PROOFS=3 CONFIGS=2:0 \
            SETUP_TIMEOUT=$(( $(left) - 90 )) timeout $(( $(left) - 15 )) bash bench/fil_e2e_device.sh $B > $O/e2e_winning.log 2>&1
        echo "winning-post rc $? after $(( $(date +%s) - T0 )) s"
    fi
    cp $O/e2e_wpost.log "$OUT/" 2>/dev/null
    finish
    tail -40 $O/e2e_wpost.log; tail -25 $O/e2e_winning.log 2>/dev/null ;;
snap)
    need_big
    export LOG_ALLOC=1 # the device-memory ledger (each MSM's batch width) into the daemon's log
    SCALE_DIR=/var/tmp/snap OUT=$O SIZE=32GiB DEVICE=gpu KIND=snap PROOFS=${PROOFS:-2} CONFIGS=${CONFIGS:-2:0} \
        SETUP_TIMEOUT=300 timeout $(( $(left) - 15 )) bash bench/fil_e2e_device.sh $B > $O/e2e_snap.log 2>&1
    echo "snap rc $? after $(( $(date +%s) - T0 )) s"
    cp $O/e2e_snap.log "$OUT/" 2>/dev/null
    finish
    tail -40 $O/e2e_snap.log ;;
*) echo "STEP: check, bench, probe, porep, post or snap" >&2; exit 2 ;;
esac
