#!/usr/bin/env bash
# Reliability of the daemon in production, through a gRPC client that is not
# ours (Debian's python3-grpcio): whole error messages, a strict
# max_concurrent_calls, shutdown at the grace deadline, failed preloads.
# Skips (77) when the daemon or the Python packages are not there.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_reliability_test.py" "$build/cuzk" "$here/../proto"
