#!/usr/bin/env bash
# The HTTP status listener under slow and many clients (raw sockets from
# Python): scrapes are answered within 2 s beside clients trickling a byte
# every 1.5 s and beside a hundred idle connections, which the daemon closes
# at their deadline; SIGTERM stops it with slow clients connected. Skips (77)
# when the daemon or the Python packages are not there.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_http_test.py" "$build/cuzk" "$here/../proto"
