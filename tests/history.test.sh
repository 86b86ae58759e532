#!/usr/bin/env bash
# The code and docs say what is (no rounds of work, tracker numbers or dates
# in src/, include/, docs/ but docs/perf-log.md; no pointer to perf-log from
# src/ or include/), and docs/perf.md holds one row per figure. tests/history.py
# says what it checks; it first proves to itself that it reports each kind.
# Usage: history.test.sh BUILD_DIR (unused: the check reads the source tree)
exec /usr/bin/python3 "$(dirname "$0")/history.py" "$(dirname "$0")/.."
