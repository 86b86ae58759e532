#!/usr/bin/env bash
# The daemon through a gRPC client that is not ours (Debian's python3-grpcio):
# every RPC, unix socket and TCP with/without the token, malformed requests,
# cancellation, deadlines, SIGTERM drain, restart. Skips (77) when the daemon
# or the Python packages are not there.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_grpc_test.py" "$build/cuzk" "$here/../proto"
