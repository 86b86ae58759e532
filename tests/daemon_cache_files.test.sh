#!/usr/bin/env bash
# A running daemon whose cache files are changed on disk under it: the PCE
# it loaded cut, rewritten in place, overwritten as cp does or replaced while
# jobs use it; a .params cut or rewritten while it is loaded; stale PCE
# temporaries at start. The daemon must live on, finish or clearly fail the
# jobs, and load the files again once they are put back (daemon_cache_files_test.py).
# Skips (77) without the daemon or the Python packages.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_cache_files_test.py" "$build/cuzk" "$here/../proto" "$build/fil-params-2k"
