#!/usr/bin/env bash
# SnarkPack aggregates of real 2KiB PoRep proofs (fil_aggregate_test.py): two sectors sealed
# natively, proved by the daemon with the fil_params_2k TEST parameters, aggregated by
# `cuzk aggregate` from their values (both, v1 and v2; one alone, padded to 2; with --device gpu
# the same bytes, or "no CUDA device") and verified by `cuzk verify --kind aggregate`; the
# @noble/curves prover recomputes the aggregate byte for byte
# from the proofs, the rows `cuzk verify --kind porep --public-out` derives and the transcript
# hash Python's hashlib computes. Refused: sectors reordered, a seed changed, a sector left
# out, a flipped byte, the other version. The daemon then aggregates them itself (AGGREGATE_SEAL,
# fil_aggregate_daemon.py): the same bytes, VALID; tampered requests refused or failed naming the
# field or sector, never COMPLETED; a queued aggregation cancelled; the metrics count them.
# Skips (77) without the daemon, the Python packages or node.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
params=${CUZK_FIL_PARAMS:-$build/fil-params-2k}
[ -d "$params" ] || { echo "fil_aggregate: no parameters in $params (run scripts/fil_params_2k.sh)" >&2; exit 1; }
[ -s "$params/.done-porep-2KiB" ] || { echo "SKIP: no porep parameters in $params (FIL_KINDS)"; exit 77; }
command -v node >/dev/null || { echo "fil_aggregate: node not found (scripts/deps.sh test)" >&2; exit 1; }
[ -f "$here/oracle/node_modules/@noble/curves/package.json" ] ||
    { echo "fil_aggregate: tests/oracle/node_modules missing (cd tests/oracle && npm ci)" >&2; exit 1; }
exec $py "$here/fil_aggregate_test.py" "$build/cuzk" "$here/../proto" "$params" "$here/oracle"
