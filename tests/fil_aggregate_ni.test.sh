#!/usr/bin/env bash
# Aggregates of several NI-PoRep sectors and an aggregation cancelled while it runs, through the
# daemon (fil_aggregate_ni_test.py). The sectors are stand-ins (tool_fil_agg_standin: fresh
# values, each sector's 13 partition proofs of a stand-in circuit whose public inputs are the
# NI-PoRep rows, its key under the 2KiB PoRep .vk's name): no sealing and no PoRep parameters.
# Skips (77) without the daemon or the Python packages.
set -euo pipefail
. "$(dirname "$0")/daemon_py.sh" "$@"
exec $py "$here/fil_aggregate_ni_test.py" "$build/cuzk" "$here/../proto" "$build/tool_fil_agg_standin"
