#!/usr/bin/env bash
# What the daemon takes in, through a gRPC client that is not ours (Debian's
# python3-grpcio): the queue bounded by daemon.max_queued_jobs (RESOURCE_EXHAUSTED
# naming it), request ids holding a NUL refused, commitment CIDs of the wrong kind
# refused, messages over max_message_size logged and counted, and --check-config
# refusing a [cluster] conninfo with a password as the daemon's start does.
# Skips (77) when the daemon or the Python packages are not there.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_intake_test.py" "$build/cuzk" "$here/../proto"
