#!/bin/bash
# Daemon sweep on the device machine (run from the repository root; binaries
# carried in $1, default devbin, libraries in $1/lib): 2KiB PoRep C2 through
# the daemon with gpu_workers_per_device 1 and 2 x synthesis workers 2, 6, 10,
# a batch of N (default 20) proofs at concurrency 4 each, PCE pre-extracted;
# prints proofs/min and the daemon's verification counters (every partition
# must be valid). 32 GiB needs 32 GiB parameters (docs/perf.md).
set -u
B=$(cd "${1:-devbin}" && pwd)
N=${N:-20}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cuzk=$B/cuzk
bash scripts/fil_params_2k.sh "$B" "$B/fil-params-2k" > "$OUT/sweep_params.log" 2>&1 || { cat "$OUT/sweep_params.log"; exit 1; }
w=$(mktemp -d /tmp/cuzk-sweep.XXXXXX)
(cd "$w" && "$cuzk" gen-vanilla porep --sector-size 2KiB --out S --seed 7 > /dev/null 2>&1) || exit 1
mkdir "$w/params" && ln -s "$B"/fil-params-2k/v28-* "$w/params/"
"$cuzk" pce extract --circuit porep-2k --dir "$w/params" > /dev/null || exit 1
rc=0
printf "%-12s %-10s %8s %10s %8s %8s %8s\n" gpu_workers synth proofs proofs/min proved verified invalid
for gw in 1 2; do
    for sw in 2 6 10; do
        sock="$w/s.sock"
        cat > "$w/c.toml" <<TOML
[daemon]
listen = "unix://$sock"
[gpus]
gpu_workers_per_device = $gw
[synthesis]
partition_workers = $sw
[srs]
param_cache = "$w/params"
preload = ["porep-2k"]
TOML
        "$cuzk" daemon --config "$w/c.toml" 2> "$OUT/sweep-d-$gw-$sw.log" &
        pid=$!
        for _ in $(seq 1 300); do grep -q "serving on" "$OUT/sweep-d-$gw-$sw.log" && break; sleep 0.1; done
        "$cuzk" bench batch --addr "unix://$sock" --request "$w/S/request.json" --count "$N" --concurrency 4 \
            > "$OUT/sweep-b-$gw-$sw.log" 2>&1 || rc=1
        m=$("$cuzk" bench metrics --addr "unix://$sock")
        kill -TERM $pid; wait $pid
        ppm=$(grep -oE "[0-9.]+ proofs/min" "$OUT/sweep-b-$gw-$sw.log" | cut -d' ' -f1)
        get() { awk -v k="$1" '$1 == k {print $2}' <<<"$m"; }
        inv=$(get cuzk_partitions_invalid_total)
        [ "${inv:-1}" = 0 ] || rc=1
        printf "%-12s %-10s %8s %10s %8s %8s %8s\n" "$gw" "$sw" "$N" "${ppm:-?}" "$(get cuzk_partitions_proved_total)" \
            "$(get cuzk_partitions_verified_total)" "${inv:-?}"
    done
done
rm -rf "$w"
exit $rc
