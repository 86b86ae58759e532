#!/usr/bin/env bash
# Functions fit a screen: no function of src/engine, src/gpu or src/server is
# over 80 lines (its definition's first line to its closing brace) unless the
# comment block right above it says why after `long:` ("long: one lock held
# over ..."). tests/function_length.py says how it finds definitions (extern
# "C" and namespace blocks, templates, multi-line heads; not initialisers,
# structs or macros); it first proves to itself that it reports a 90-line
# function of each form and excuses one with a reason, then prints the five
# longest functions of the tree and fails with `file:line name N lines` for
# each over the limit.
# Usage: function_length.test.sh BUILD_DIR (unused: the check reads the source tree)
exec /usr/bin/python3 "$(dirname "$0")/function_length.py" "$(dirname "$0")/.."
