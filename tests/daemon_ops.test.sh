#!/usr/bin/env bash
# What an operator of the daemon reads and sets up, through a gRPC client that
# is not ours (Debian's python3-grpcio): log lines (finished jobs, rejected
# calls, causal order; text and JSON), bearer auth, TLS and mutual TLS against
# a CA made by openssl. Skips (77) without the daemon, the Python packages or
# the openssl command.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
if ! command -v openssl >/dev/null; then
    echo "SKIP: no openssl command to make the test CA (apt-get install openssl)"; exit 77
fi
exec $py "$here/daemon_ops_test.py" "$build/cuzk" "$here/../proto"
