#!/usr/bin/env bash
# Three daemons on one PostgreSQL (a private server from tests/pg.sh) with
# Debian's python3-grpcio as the client: partitions spread over the hosts,
# cancel across them, kill -9 of a host holding claims, its restart, the
# database restarted under load, the 2KiB Filecoin kinds whose parameters the
# fil_params_2k fixture made. Skips (77) without the daemon, the Python
# packages or PostgreSQL.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
params=${CUZK_FIL_PARAMS:-$build/fil-params-2k}
[ -d "$params" ] || { echo "daemon_cluster: no parameters in $params (run scripts/fil_params_2k.sh)" >&2; exit 1; }
# a private server: the test restarts it, which a shared one must not see
unset CUZK_PG_HOST
exec bash "$here/pg.sh" run $py "$here/daemon_cluster_test.py" "$build/cuzk" "$here/../proto" "$params"
