#!/usr/bin/env bash
# Filecoin proofs (2KiB PoRep, SnapDeals, WindowPoSt, WinningPoSt) through
# the daemon with Debian's python3-grpcio as the client. Parameters come from
# the fil_params_2k fixture (BUILD_DIR/fil-params-2k). Skips (77) without the
# daemon or the Python packages.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
params=${CUZK_FIL_PARAMS:-$build/fil-params-2k}
[ -d "$params" ] || { echo "daemon_filecoin: no parameters in $params (run scripts/fil_params_2k.sh)" >&2; exit 1; }
exec $py "$here/daemon_filecoin_test.py" "$build/cuzk" "$here/../proto" "$params"
