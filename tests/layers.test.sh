#!/usr/bin/env bash
# The layer rule (src/layers): every #include in src/ and include/ goes to the
# including file's layer or one below it, no *_internal.h header is included
# from another layer, README's and docs/architecture.md's layer lists follow
# the table, no getenv in src/ outside src/util and the command line's
# documented variables (the daemon's and the library's code read none). tests/layers.py says what it checks; it first proves to itself
# that it reports an upward include, an internal header across layers and an
# engine-core include when one is added.
# Usage: layers.test.sh BUILD_DIR (unused: the check reads the source tree)
exec /usr/bin/python3 "$(dirname "$0")/layers.py" "$(dirname "$0")/.."
