#!/usr/bin/env bash
# curio's daemon replaced by this one, as an operator would: curio's example
# configuration (deploy/curio-example.toml) and invocation (`cuzk --config
# FILE`), protected mode (loopback clients served without a token, a remote
# client from a network namespace refused), with Debian's python3-grpcio as
# the client. The namespace part skips with a message where user and network
# namespaces are not allowed. Skips (77) without the daemon or the Python
# packages.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_curio_test.py" "$build/cuzk" "$here/../proto" "$here/.."
