#!/usr/bin/env bash
# make demo: cuzk doing its job end to end on this machine.
#  1. TEST parameters for the 2KiB PoRep, WindowPoSt, WinningPoSt and
#     SnapDeals circuits (made once into BUILD/fil-params-2k: a few minutes
#     on 2 cores; never a substitute for the ceremony's).
#  2. Two 2KiB sectors sealed natively, their C1 outputs, PoSt vanilla
#     proofs and a SnapDeals update (`cuzk gen-vanilla`).
#  3. The daemon on a unix socket (GPU when there is one, else the CPU),
#     `cuzk bench single --request` for each kind and a batch of PoRep; the
#     daemon verifies every partition before it answers.
#  4. Status, verification counters, SIGTERM (drain, exit 0).
set -euo pipefail
build=${1:-build}
build=$(cd "$build" && pwd)
cuzk="$build/cuzk"
if ! "$cuzk" daemon --help >/dev/null 2>&1; then
    echo "demo: $cuzk was built without the daemon (install the packages scripts/deps.sh build lists)" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
params=$(cd "$build" && pwd)/fil-params-2k
work=$(mktemp -d /tmp/cuzk-demo.XXXXXX)
sock="$work/cuzk.sock"
addr="unix://$sock"
seed=${DEMO_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')}

echo "== 1. TEST parameters for the 2KiB Filecoin circuits ($params)"
"$here/fil_params_2k.sh" "$build" "$params" | sed 's/^/   /'

echo; echo "== 2. sealed sectors and vanilla proofs (seed $seed)"
cd "$work"
"$cuzk" gen-vanilla porep --sector-size 2KiB --out S1 --seed "$seed" --sector-id 1 2>&1 | sed 's/^/   /'
"$cuzk" gen-vanilla porep --sector-size 2KiB --out S2 --seed "$((seed + 1))" --sector-id 2 2>&1 | sed 's/^/   /'
"$cuzk" gen-vanilla window-post --sector S1 --sector S2 --seed "$seed" --out WPOST 2>&1 | sed 's/^/   /'
"$cuzk" gen-vanilla winning-post --sector S1 --sector S2 --seed "$seed" --out WINNING 2>&1 | sed 's/^/   /'
"$cuzk" gen-vanilla snap --sector S2 --seed "$seed" --out SNAP 2>&1 | sed 's/^/   /'
cd - > /dev/null

mkdir "$work/params"
ln -s "$params"/v28-* "$work/params/"
cat > "$work/cuzk.toml" <<TOML
[daemon]
listen = "$addr"
[srs]
param_cache = "$work/params"
pce = true
TOML
echo; echo "== 3. cuzk daemon on $addr"
"$cuzk" daemon --config "$work/cuzk.toml" 2> "$work/daemon.log" &
pid=$!
stop() { kill -TERM "$pid" 2>/dev/null || true; }
trap stop EXIT
for _ in $(seq 1 600); do
    grep -q "serving on" "$work/daemon.log" && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/daemon.log"; exit 1; }
    sleep 0.1
done
grep -E "device|CPU|kinds registered|serving on" "$work/daemon.log" | sed 's/^/   daemon: /'

for k in WINNING WPOST SNAP S1; do
    echo; echo "== cuzk bench single --request $k/request.json"
    "$cuzk" bench single --addr "$addr" --request "$work/$k/request.json" --timeout 1800
done
echo; echo "== cuzk bench batch --request S2/request.json --count 3 --concurrency 3 (PoRep C2)"
"$cuzk" bench batch --addr "$addr" --request "$work/S2/request.json" --count 3 --concurrency 3 --timeout 1800
echo; echo "== cuzk bench status"
"$cuzk" bench status --addr "$addr"
echo; echo "== verification and PCE (GetMetrics)"
"$cuzk" bench metrics --addr "$addr" |
    grep -E '^cuzk_(jobs_completed|jobs_failed|partitions_(proved|verified|invalid)|pce_(fast_path|extractions))' |
    sed 's/^/   /'
grep -E "PCE of .* extracted" "$work/daemon.log" | sed 's/^/   daemon: /'

echo; echo "== 4. SIGTERM: drain and stop"
trap - EXIT
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
tail -n 2 "$work/daemon.log" | sed 's/^/   daemon: /'
echo "daemon exit status $rc"
[ "$rc" = 0 ] && rm -rf "$work"
exit $rc
