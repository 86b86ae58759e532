#!/usr/bin/env bash
# gRPC server reflection (what grpcurl uses) with Debian's python3-grpcio and
# python3-protobuf as the client: no reflection package, no copy of our
# reflection.proto. Skips (77) without the daemon or the Python packages.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_reflection_test.py" "$build/cuzk" "$here/../proto"
