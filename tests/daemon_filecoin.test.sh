#!/usr/bin/env bash
# Filecoin proofs (2KiB PoRep, SnapDeals, WindowPoSt, WinningPoSt) through
# the daemon with Debian's python3-grpcio as the client. Parameters come from
# the fil_params_2k fixture (BUILD_DIR/fil-params-2k). Skips (77) without the
# daemon or the Python packages.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if ! "$build/cuzk" daemon --help >/dev/null 2>&1; then
    echo "SKIP: cuzk built without the daemon (gRPC/protobuf-c/toml++ missing)"; exit 77
fi
py=/usr/bin/python3
if ! $py -c 'import grpc, grpc_tools' 2>/dev/null; then
    echo "SKIP: $py lacks grpc/grpc_tools (apt-get install python3-grpcio python3-grpc-tools)"; exit 77
fi
params=${CUZK_FIL_PARAMS:-$build/fil-params-2k}
[ -d "$params" ] || { echo "daemon_filecoin: no parameters in $params (run scripts/fil_params_2k.sh)" >&2; exit 1; }
exec $py "$here/daemon_filecoin_test.py" "$build/cuzk" "$here/../proto" "$params"
