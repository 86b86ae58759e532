#!/usr/bin/env bash
# The daemon's metrics against their reference (docs/operations.md, "Metrics:
# every series") and against GetStatus, through Debian's python3-grpcio and
# HTTP: every documented family present with its type and labels, nothing
# undocumented, HELP and TYPE once each before the samples. Skips (77) when
# the daemon or the Python packages are not there.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/daemon_metrics_test.py" "$build/cuzk" "$here/../proto" "$here/../docs/operations.md"
