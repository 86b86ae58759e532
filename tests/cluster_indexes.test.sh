#!/usr/bin/env bash
# The cluster's indexes after every migration name their first column's order
# where they serve an order or a range (tests/cluster_indexes.py says why).
# Usage: cluster_indexes.test.sh BUILD_DIR (unused: the check reads the source tree)
exec /usr/bin/python3 "$(dirname "$0")/cluster_indexes.py" "$(dirname "$0")/.."
