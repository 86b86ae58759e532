#!/usr/bin/env bash
# make demo: the daemon end to end on this machine. Starts `cuzk daemon` on a
# unix socket with the built-in test kinds (test parameters are generated at
# start into a scratch param cache), proves through the gRPC API with
# `cuzk bench single` and `batch`, shows timings, verification counters and
# status, and stops the daemon with SIGTERM (drain, exit 0).
set -euo pipefail
build=${1:-build}
cuzk="$build/cuzk"
if ! "$cuzk" --help 2>/dev/null | grep -q '^  daemon'; then
    echo "demo: $cuzk was built without the daemon (install the packages scripts/deps.sh build lists)" >&2
    exit 1
fi
constraints=${DEMO_CONSTRAINTS:-4096} # per partition of test-porep
work=$(mktemp -d /tmp/cuzk-demo.XXXXXX)
sock="$work/cuzk.sock"
cat > "$work/cuzk.toml" <<TOML
[daemon]
listen = "unix://$sock"
[srs]
param_cache = "$work/params"
preload = ["test-porep"]
TOML
echo "== cuzk demo: daemon on unix://$sock, test-porep = 10 partitions x $constraints constraints"
"$cuzk" daemon --config "$work/cuzk.toml" --test-kinds --test-constraints "$constraints" 2> "$work/daemon.log" &
pid=$!
stop() { kill -TERM "$pid" 2>/dev/null || true; }
trap stop EXIT
for _ in $(seq 1 600); do
    grep -q "serving on" "$work/daemon.log" && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/daemon.log"; exit 1; }
    sleep 0.1
done
grep -E "test kinds registered|preload|serving on" "$work/daemon.log" | sed 's/^/   daemon: /'
ls -l "$work/params" | sed 's/^/   /'
addr="unix://$sock"

echo; echo "== cuzk bench single --type test-porep"
"$cuzk" bench single --addr "$addr" --type test-porep
echo; echo "== cuzk bench batch --type test-porep --count 4 --concurrency 2"
"$cuzk" bench batch --addr "$addr" --type test-porep --count 4 --concurrency 2
echo; echo "== cuzk bench status"
"$cuzk" bench status --addr "$addr"
echo; echo "== verification (GetMetrics)"
"$cuzk" bench metrics --addr "$addr" | grep -E '^cuzk_(jobs_completed|jobs_failed|partitions_(proved|verified|invalid))' | sed 's/^/   /'

echo; echo "== SIGTERM: drain and stop"
trap - EXIT
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
tail -n 2 "$work/daemon.log" | sed 's/^/   daemon: /'
echo "daemon exit status $rc"
rm -rf "$work"
exit $rc
