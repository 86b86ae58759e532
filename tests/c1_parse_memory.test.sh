#!/usr/bin/env bash
# The memory a C1 parse takes, bounded whatever the document: `cuzk c1 check`
# (the daemon's parse) on a real-sized 32 GiB C1 (gen-vanilla --synthetic) and
# on documents that are not C1 outputs - an array of zeros or of empty objects,
# a C1 whose proof holds zeros, a C1 cut short, an object with a member of empty
# objects - each of a random size of 16-32 MiB; its peak RSS (wait4) must stay
# under 6 bytes per byte of input + 64 MiB (jansson's whole-document tree took
# 25-75 bytes per byte), and each is refused with a message naming where.
# Prints the table.   Usage: c1_parse_memory.test.sh BUILD_DIR   (replay: CUZK_SEED=<seed>)
set -euo pipefail
build=$(cd "${1:?usage: c1_parse_memory.test.sh BUILD_DIR}" && pwd)
exec python3 "$(dirname "$0")/c1_parse_memory_test.py" "$build/cuzk"
