#!/bin/bash
# PoRep C2 (or, with KIND=window-post | winning-post, a PoSt, with KIND=snap
# a SnapDeals update) end to end at one sector size through the daemon, on
# the device machine (run from the repository root; binaries in $1, default
# /tmp/devbin, unpacked from devgpu/devbin.tar.xz of bench/device_pack.sh,
# their libraries in $1/lib). SIZE=32GiB by default;
# SIZE=2KiB DEVICE=cpu checks the script on any machine. PoSt and SnapDeals
# inputs are synthetic vanilla proofs (`cuzk gen-vanilla KIND --synthetic`:
# a full WindowPoSt partition of stand-in sectors; every partition of a
# stand-in update, 16 at 32GiB; no sealing, no encoding).
#  1. TEST parameters with `cuzk setup --device $DEVICE`, unless $W/params
#     has them (32GiB: ≈ 47 GB, so the disk needs the room);
#  2. a synthetic C1 (`cuzk gen-vanilla porep --synthetic`: one sector's
#     vanilla proofs, no sealing), or the kind's synthetic vanilla proofs;
#  3. the PCE extracted into $W/params, `cuzk pce inspect`;
#  4. for each gpu_workers:partition_workers pair of CONFIGS (default "2:0",
#     0 = from cores and memory; a trailing p, "1:0p", packs the witnesses:
#     [gpus] pack_witness = true, else false; a trailing nN, "1:0pn15", sets
#     [synthesis] nice = N, else 5; a trailing mG, "1:0pm24", holds the card to
#     G GiB as a G GiB card would be: tool_gpu_hold keeps the rest of its
#     memory from another process and [gpus] memory_limit = "G GiB"; with
#     LOG_ALLOC=1, [gpus] log_allocations = true), the daemon on a unix socket: one proof
#     alone (the first one uploads the parameters to the GPU), then PROOFS
#     proofs at concurrency 2 (steady state); every partition is verified
#     by the daemon before it answers and the counters must show 0 invalid.
# Logs go to $OUT; each prove line of the daemon's debug log is one
# partition's GPU time; host and device memory peaks are sampled.
set -u
B=${1:-/tmp/devbin}
if [ ! -x "$B/cuzk" ] && [ -f devgpu/devbin.tar.xz ]; then # bench/device_pack.sh's archive
    tar -C "$(dirname "$B")" -xJf devgpu/devbin.tar.xz
fi
B=$(cd "$B" && pwd)
OUT=${OUT:-/tmp/out}
SIZE=${SIZE:-32GiB}
DEVICE=${DEVICE:-gpu}
PROOFS=${PROOFS:-2}
CONFIGS=${CONFIGS:-2:0}
W=${SCALE_DIR:-/tmp/scale}
KIND=${KIND:-porep}
# the PCE files' directory ([srs] pce_dir): beside the parameters by default; elsewhere when
# the disk has no room for both (the device machine's 64 GB and WindowPoSt's 61 GB of 32 GiB
# TEST parameters: PCE_DIR=/dev/shm/pce)
PCE_DIR=${PCE_DIR:-$W/params}
mkdir -p "$OUT" "$W/params"
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cuzk=$B/cuzk
case $SIZE in
2KiB) sz=2k ;; 8MiB) sz=8m ;; 512MiB) sz=512m ;; 32GiB) sz=32g ;; 64GiB) sz=64g ;;
*) echo "SIZE: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB" >&2; exit 2 ;;
esac
case $KIND in
porep) id=porep-$sz; pfx=v28-stacked-proof-of-replication ;;
window-post) id=wpost-$sz; pfx=v28-proof-of-spacetime-fallback ;;
winning-post) id=winning-$sz; pfx=v28-proof-of-spacetime-fallback ;;
snap) id=snap-$sz; pfx=v28-empty-sector-update ;;
*) echo "KIND: porep, window-post, winning-post or snap" >&2; exit 2 ;;
esac
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
{ nproc; free -g | head -2; df -h "$W" | tail -1; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null; } |
    tee "$OUT/e2e_machine.log"
rc=0

# Peak device memory in use, sampled every half second while $1 runs.
gpu_mem_watch() {
    command -v nvidia-smi > /dev/null || return 0
    while kill -0 "$1" 2> /dev/null; do
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2> /dev/null | head -1
        sleep 0.5
    done | sort -n | tail -1 > "$2"
}

# Peak RssAnon (anonymous resident memory, kB) of the process $1, sampled every half second while it runs.
rss_anon_watch() {
    while [ -r "/proc/$1/status" ]; do
        awk '$1 == "RssAnon:" { print $2 }' "/proc/$1/status" 2> /dev/null
        sleep 0.5
    done | sort -n | tail -1 > "$2"
}

# GPU utilization samples (percent of the last sample period with a kernel running), every 200 ms
# into $1 until killed.
gpu_util_watch() {
    command -v nvidia-smi > /dev/null || return 0
    exec nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 200 > "$1" 2> /dev/null
}

# SM clock (MHz), power (W) and temperature (C) every 500 ms into $1 until killed: a slower kernel
# region under a busier card may be the clock, not the code.
gpu_clock_watch() {
    command -v nvidia-smi > /dev/null || return 0
    exec nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits -lms 500 \
        > "$1" 2> /dev/null
}

# Waits (1200 polls, $4 s apart) until the log $2 has the line $1 or the daemon $3 is gone.
daemon_log_wait() {
    for _ in $(seq 1 1200); do
        grep -q "$1" "$2" && return
        kill -0 "$3" 2> /dev/null || return
        sleep "$4"
    done
}

# a kind's parameters are there: this script made them (the marker), or the PoRep or SnapDeals
# file exists (drive-32g.sh's setup; WindowPoSt and WinningPoSt files share their name's prefix)
have_params() {
    [ -f "$W/params/.setup-$KIND-$SIZE" ] && return 0
    case $KIND in porep | snap) ls "$W"/params/$pfx-*.params > /dev/null 2>&1 ;; *) return 1 ;; esac
}
if ! have_params; then
    echo "== cuzk setup --kind $KIND --sector-size $SIZE --device $DEVICE"
    t=$(now)
    timeout "${SETUP_TIMEOUT:-480}" /usr/bin/time -v "$cuzk" setup --kind "$KIND" --sector-size "$SIZE" \
        --device "$DEVICE" --out "$W/params" > "$OUT/e2e_setup.log" 2>&1 || rc=1
    grep -E "^setup: (recorded|parameters|wrote|total)|Elapsed|Maximum resident|cuzk:" "$OUT/e2e_setup.log"
    echo "setup wall $(since "$t") s"
    ls -la "$W/params"
    [ $rc = 0 ] || exit $rc
    touch "$W/params/.setup-$KIND-$SIZE"
fi

echo "== synthetic inputs: $KIND, $SIZE"
rm -rf "$W/S"
t=$(now)
if [ "$KIND" = porep ]; then
    "$cuzk" gen-vanilla porep --synthetic --sector-size "$SIZE" --out "$W/S" > "$OUT/e2e_c1.log" 2>&1
else
    "$cuzk" gen-vanilla "$KIND" --synthetic --sector-size "$SIZE" --seed 7 --out "$W/S" > "$OUT/e2e_c1.log" 2>&1
fi || { cat "$OUT/e2e_c1.log"; exit 1; }
echo "inputs wall $(since "$t") s"
ls -la "$W/S" | head -24

echo "== cuzk pce extract --circuit $id"
t=$(now)
/usr/bin/time -v "$cuzk" pce extract --circuit "$id" --dir "$PCE_DIR" > "$OUT/e2e_pce.log" 2>&1 || rc=1
grep -vE "^\s+(Average|Exit|Swaps|File|Socket|Signals|Page size|Minor|Major|Voluntary|Involuntary|Percent|System|User)" \
    "$OUT/e2e_pce.log" | head -40
echo "pce wall $(since "$t") s"

sock="$W/d.sock"
for cfg in $CONFIGS; do
    gw=${cfg%%:*} sw=${cfg##*:} pack=0 nice=5 mem=
    case $sw in *n*) nice=${sw##*n} sw=${sw%n*} ;; esac # "1:0pn15": the synthesis workers at nice 15
    case $sw in *m*) mem=${sw##*m} sw=${sw%m*} ;; esac # "1:0pm24": a 24 GiB card
    case $sw in *p) sw=${sw%p} pack=1 ;; esac # "1:0p": the witnesses packed ([gpus] pack_witness)
    tag="gw$gw-sw$sw"; [ $pack = 1 ] && tag="$tag-packed"; [ "$nice" != 5 ] && tag="$tag-nice$nice"
    [ -n "$mem" ] && tag="$tag-${mem}g"
    hold=
    if [ -n "$mem" ]; then # the rest of the card held by another process before the daemon opens it
        "$B/tool_gpu_hold" 0 "$mem" > "$OUT/e2e_hold_$tag.txt" 2>&1 &
        hold=$!
        for _ in $(seq 1 100); do [ -s "$OUT/e2e_hold_$tag.txt" ] && break; sleep 0.2; done
        echo "card held to $mem GiB: $(cat "$OUT/e2e_hold_$tag.txt")"
    fi
    echo "== daemon: gpu_workers_per_device $gw, partition_workers $sw ($tag)"
    cat > "$W/c.toml" << TOML
[daemon]
listen = "unix://$sock"
max_message_size = "256MiB" # a 32 GiB WindowPoSt partition: 2,349 vanilla proofs of 25 KB; SnapDeals 16 x 550 KB
[gpus]
gpu_workers_per_device = $gw
pack_witness = $([ $pack = 1 ] && echo true || echo false)
memory_limit = "$([ -n "$mem" ] && echo "${mem}GiB" || echo auto)"
log_allocations = $([ "${LOG_ALLOC:-0}" = 1 ] && echo true || echo false)
[synthesis]
partition_workers = $sw
nice = $nice
[srs]
param_cache = "$W/params"
pce_dir = "$PCE_DIR"
preload = ["$id"]
[logging]
level = "debug"
TOML
    rm -f "$sock"
    t=$(now)
    /usr/bin/time -v "$cuzk" daemon --config "$W/c.toml" \
        2> "$OUT/e2e_daemon_$tag.log" &
    pid=$!
    gpu_mem_watch $pid "$OUT/e2e_gpumem_$tag.txt" &
    watch=$!
    sleep 0.2
    dpid=$(pgrep -P $pid | head -1) # the daemon itself, under time(1)
    rss_anon_watch "${dpid:-$pid}" "$OUT/e2e_rssanon_$tag.txt" &
    rwatch=$!
    daemon_log_wait "serving on" "$OUT/e2e_daemon_$tag.log" $pid 0.1
    echo "serving after $(since "$t") s"
    # the preload runs in the background: wait until the parameters are resident
    daemon_log_wait "loaded parameters of $id" "$OUT/e2e_daemon_$tag.log" $pid 0.25
    echo "parameters resident after $(since "$t") s"
    t=$(now)
    timeout "${PROOF_TIMEOUT:-300}" "$cuzk" bench single --addr "unix://$sock" --request "$W/S/request.json" \
        --timeout 1800 > "$OUT/e2e_single_$tag.log" 2>&1 || rc=1
    cat "$OUT/e2e_single_$tag.log"
    echo "first proof wall $(since "$t") s"
    if [ "$PROOFS" -gt 0 ]; then
        t=$(now)
        gpu_util_watch "$W/gpu_util_$tag.txt" &
        uwatch=$!
        gpu_clock_watch "$OUT/e2e_clock_$tag.txt" &
        cwatch=$!
        # GetStatus mid-batch: the GPUs' memory and current jobs as a client sees them
        (sleep "${STATUS_AFTER:-10}"; "$cuzk" bench status --addr "unix://$sock" > "$OUT/e2e_status_$tag.txt" 2>&1) &
        timeout "${BATCH_TIMEOUT:-400}" "$cuzk" bench batch --addr "unix://$sock" --request "$W/S/request.json" \
            --count "$PROOFS" --concurrency 2 --timeout 1800 > "$OUT/e2e_batch_$tag.log" 2>&1 || rc=1
        grep -vE "^\[batch\] " "$OUT/e2e_batch_$tag.log" | tail -12
        echo "batch wall $(since "$t") s"
        kill $uwatch $cwatch 2> /dev/null
        wait $uwatch $cwatch 2> /dev/null
        [ -s "$OUT/e2e_clock_$tag.txt" ] && awk -F', *' '$1 ~ /^[0-9]+$/ { n++; s += $1; if (!lo || $1 < lo) lo = $1
                if ($2 > pw) pw = $2; if ($3 > tc) tc = $3 }
             END { if (n) printf "SM clock during the batch: mean %.0f MHz, min %d; power max %.0f W; temperature max %d C\n", s / n, lo, pw, tc }' \
            "$OUT/e2e_clock_$tag.txt"
        [ -s "$W/gpu_util_$tag.txt" ] && awk '$1 ~ /^[0-9]+$/ { s += $1; n++; if ($1 >= 50) b++ }
             END { if (n) printf "GPU utilization during the batch: mean %.1f %%, samples >= 50 %%: %.1f %% (%d samples, 200 ms)\n", s / n, 100 * b / n, n }' \
            "$W/gpu_util_$tag.txt"
    fi
    m=$("$cuzk" bench metrics --addr "unix://$sock")
    echo "$m" > "$OUT/e2e_metrics_$tag.txt"
    pkill -TERM -P $pid # the daemon under time(1), which reports its peak on the daemon's exit
    wait $pid
    [ -n "$hold" ] && kill $hold && wait $hold 2> /dev/null
    wait $watch
    wait $rwatch
    get() { awk -v k="$1" '$1 == k {print $2}' <<< "$m"; }
    inv=$(get cuzk_partitions_invalid_total)
    [ "${inv:-1}" = 0 ] || rc=1
    echo "partitions proved $(get cuzk_partitions_proved_total) verified $(get cuzk_partitions_verified_total)" \
        "invalid ${inv:-?} reproved $(get cuzk_partitions_reproved_total)"
    echo "busy: prove $(get cuzk_prove_busy_seconds_total) s, synthesis $(get cuzk_synthesis_busy_seconds_total) s," \
        "verify $(get cuzk_verify_busy_seconds_total) s"
    grep -oE "proved on device [0-9]+ worker [0-9]+ in [0-9.]+ s" "$OUT/e2e_daemon_$tag.log" |
        awk '{ t = $(NF - 1); s += t; n++; if (min == "" || t < min) min = t; if (t > max) max = t }
             END { if (n) printf "per-partition prove: n %d, mean %.3f s, min %.3f, max %.3f\n", n, s / n, min, max }'
    # mean of each phase named in the prove lines: "(upload 0.43, eval 0.02, ntt 0.33, msm 1.01: h 0.84 l ..., host 0.00)"
    grep -oE "proved on device .*\(upload.*\)" "$OUT/e2e_daemon_$tag.log" | sed -E 's/.*\((.*)\)/\1/; s/msm ([0-9.]+):/msm \1/; s/,//g' |
        awk '{ for (i = 1; i < NF; i += 2) { s[$i] += $(i + 1); if (!(($i) in o)) o[$i] = ++k; name[o[$i]] = $i } n++ }
             END { if (n) { printf "per-partition phases (mean of %d, s):", n; for (j = 1; j <= k; j++) printf " %s %.3f", name[j], s[name[j]] / n; print "" } }'
    # the slowest MSM of each partition against its median, and (LOG_ALLOC=1) the MSM
    # scratch's allocations after the first two partitions: a steady state allocates nothing
    grep -oE "msm [0-9.]+: h [0-9.]+ l [0-9.]+ a [0-9.]+ b_g1 [0-9.]+ b_g2 [0-9.]+" "$OUT/e2e_daemon_$tag.log" |
        awk '{ for (k = 0; k < 5; k++) v[k, NR] = $(4 + 2 * k); n = NR }
             END { if (!n) exit; split("h l a b_g1 b_g2", nm, " "); out = ""
                   for (k = 0; k < 5; k++) {
                       for (i = 1; i <= n; i++) { x = v[k, i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                       med = a[int((n + 1) / 2)]; slow = 0; for (i = 1; i <= n; i++) if (v[k, i] > med + 0.05) slow++
                       out = out sprintf(" %s median %.3f max %.3f (%d > median + 0.05 s);", nm[k + 1], med, a[n], slow) }
                   print "per-partition MSMs:" out }'
    awk '/proved on device/ { p++ } p >= 2 && /gpu alloc.*: msm / { a++ } END { printf "MSM allocations after the second partition: %d\n", a }' \
        "$OUT/e2e_daemon_$tag.log"
    grep -E "synthesis workers|loaded parameters|device|plan:|WARN|ERROR" "$OUT/e2e_daemon_$tag.log" | grep -v "proved on device" | head -12
    grep -E "Maximum resident" "$OUT/e2e_daemon_$tag.log" | sed 's/^\s*/daemon peak host: /'
    [ -s "$OUT/e2e_gpumem_$tag.txt" ] && echo "daemon peak device memory: $(cat "$OUT/e2e_gpumem_$tag.txt") MiB"
    [ -s "$OUT/e2e_rssanon_$tag.txt" ] &&
        awk '{ printf "daemon peak RssAnon: %.1f GiB\n", $1 / 1048576 }' "$OUT/e2e_rssanon_$tag.txt"
done
exit $rc
