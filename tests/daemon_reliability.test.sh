#!/usr/bin/env bash
# Reliability of the daemon in production, through a gRPC client that is not
# ours (Debian's python3-grpcio): whole error messages, a strict
# max_concurrent_calls, shutdown at the grace deadline, failed preloads.
# Skips (77) when the daemon or the Python packages are not there.
set -euo pipefail
build=${1:?build dir}
here=$(cd "$(dirname "$0")" && pwd)
if ! "$build/cuzk" daemon --help >/dev/null 2>&1; then
    echo "SKIP: cuzk built without the daemon (gRPC/protobuf-c/toml++ missing)"; exit 77
fi
py=/usr/bin/python3
if ! $py -c 'import grpc, grpc_tools' 2>/dev/null; then
    echo "SKIP: $py lacks grpc/grpc_tools (apt-get install python3-grpcio python3-grpc-tools)"; exit 77
fi
exec $py "$here/daemon_reliability_test.py" "$build/cuzk" "$here/../proto"
