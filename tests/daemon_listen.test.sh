#!/usr/bin/env bash
# One daemon per address, through a gRPC client that is not ours (Debian's
# python3-grpcio): a second daemon on the same unix socket, TCP port or
# status port stops at once naming the holder, and the first keeps serving.
# Skips (77) when the daemon or the Python packages are not there.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_listen_test.py" "$build/cuzk" "$here/../proto"
