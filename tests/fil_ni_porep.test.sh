#!/usr/bin/env bash
# NI-PoRep C2 through the daemon (fil_ni_porep_test.py): a natively sealed 2KiB NI-PoRep sector's
# C1 served with the fil_params_2k TEST PoRep parameters and a TEST aggregation SRS; requests
# routed, refused (bad registered proof, SRS missing, foreign, damaged, TEST refused by config)
# and cancelled; with CUZK_NI_PROVE=1 the 13 partitions proved, their aggregate verified by
# `cuzk verify --kind ni-porep` and tampered values rejected. Skips (77) without the daemon or
# the Python packages.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
params=${CUZK_FIL_PARAMS:-$build/fil-params-2k}
[ -d "$params" ] || { echo "fil_ni_porep: no parameters in $params (run scripts/fil_params_2k.sh)" >&2; exit 1; }
[ -s "$params/.done-porep-2KiB" ] || { echo "SKIP: no porep parameters in $params (FIL_KINDS)"; exit 77; }
exec $py "$here/fil_ni_porep_test.py" "$build/cuzk" "$here/../proto" "$params"
