#!/bin/bash
# Runs on a GPU machine (the device tool) with binaries built elsewhere and
# carried in $1 (default devbin; their shared libraries in $1/lib): the 2KiB
# TEST parameters, then `make demo`'s flow (scripts/demo.sh: every Filecoin
# kind and a PoRep batch through the daemon, on the GPU), then the daemon
# Filecoin test when Python's grpcio is there. Logs to $OUT.
set -u
B=$(cd "${1:-devbin}" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; free -g | head -2; } > "$OUT/smi.log" 2>&1
cat "$OUT/smi.log"
rc=0
echo "== parameters"
/usr/bin/time -v bash scripts/fil_params_2k.sh "$B" "$B/fil-params-2k" > "$OUT/params.log" 2>&1 || rc=1
grep -E "fil_params_2k|Elapsed|Maximum resident" "$OUT/params.log"
echo "== demo"
timeout 400 bash scripts/demo.sh "$B" > "$OUT/demo.log" 2>&1 || rc=$((rc | 2))
grep -vE "^\[batch\]" "$OUT/demo.log" | tail -45
if /usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null; then
    echo "== daemon_filecoin"
    timeout 300 bash tests/daemon_filecoin.test.sh "$B" > "$OUT/daemon_filecoin.log" 2>&1 || rc=$((rc | 4))
    tail -25 "$OUT/daemon_filecoin.log"
else
    echo "== daemon_filecoin: skipped (no python3 grpcio here)"
fi
exit $rc
