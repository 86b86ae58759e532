#!/usr/bin/env bash
# Two-way cross-check against an independent implementation in node:
# cuzk's tool writes random cases that the node oracle recomputes, the
# oracle writes its own cases that cuzk's tool checks. Fails loudly when
# node or the oracle's node_modules are missing.
#   run_oracle.sh NAME BUILD_DIR TOOL ORACLE.mjs     (replay: CUZK_SEED=<printed seed>)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: run_oracle.sh NAME BUILD_DIR TOOL ORACLE.mjs}
build=${2:?build dir}
tool="$build/${3:?tool}"
oracle="$here/${4:?oracle script}"

fail() { echo "$name: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found (install nodejs, or run 'make test' / scripts/deps.sh test)"
[ -f "$here/node_modules/@noble/curves/package.json" ] ||
    fail "tests/oracle/node_modules missing (run 'cd tests/oracle && npm ci' or scripts/deps.sh test)"
[ -x "$tool" ] || fail "$tool not built"

seed=${CUZK_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}
echo "$name: seed: $seed (replay with CUZK_SEED=$seed)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CUZK_SEED=$seed "$tool" gen "$tmp/cuzk.txt" || fail "$3 gen"
node "$oracle" "$seed" "$tmp/cuzk.txt" "$tmp/oracle.txt" || fail "the oracle disagreed with cuzk's results"
"$tool" check "$tmp/oracle.txt" || fail "cuzk disagreed with the oracle's cases"
echo "$name: OK"
