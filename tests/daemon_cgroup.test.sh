#!/usr/bin/env bash
# The daemon under a real cgroup memory limit (a group made for the test,
# cgroup v2 or v1), through a gRPC client that is not ours (Debian's
# python3-grpcio): its budget from the limit, work queued rather than past
# it, no OOM kill. Skips (77) without the daemon, the Python packages, or a
# memory cgroup this user can make (not root, a read-only or absent hierarchy),
# and in a sanitizer build.
set -euo pipefail
if [ -n "${CUZK_SANITIZED:-}" ]; then
    echo "SKIP: a sanitizer build (its shadow memory and quarantine are not the daemon's budget)"; exit 77
fi
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_cgroup_test.py" "$build/cuzk" "$here/../proto"
