#!/usr/bin/env bash
# `cuzk verify --kind porep|window-post|winning-post|snap` on 2KiB proofs the daemon made
# (fil_verify_test.py): VALID from the verifier's values in hex, CID, base64 and JSON forms;
# INVALID with a proof byte flipped, a public value changed or another setup's key; bad input
# (exit 2) for another kind's key and proof lists of the wrong length; the derived public inputs
# checked by @noble/curves and recomputed with Python's hashlib. Parameters come from the
# fil_params_2k fixture (BUILD_DIR/fil-params-2k). Skips (77) without the daemon, the Python
# packages or node.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
params=${CUZK_FIL_PARAMS:-$build/fil-params-2k}
[ -d "$params" ] || { echo "fil_verify: no parameters in $params (run scripts/fil_params_2k.sh)" >&2; exit 1; }
for k in porep window-post winning-post snap; do
    [ -s "$params/.done-$k-2KiB" ] || { echo "SKIP: no $k parameters in $params (FIL_KINDS)"; exit 77; }
done
command -v node >/dev/null || { echo "fil_verify: node not found (scripts/deps.sh test)" >&2; exit 1; }
[ -f "$here/oracle/node_modules/@noble/curves/package.json" ] ||
    { echo "fil_verify: tests/oracle/node_modules missing (cd tests/oracle && npm ci)" >&2; exit 1; }
exec $py "$here/fil_verify_test.py" "$build/cuzk" "$here/../proto" "$params" "$here/oracle"
