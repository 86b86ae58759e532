#!/usr/bin/env bash
# G1/G2 cross-check against @noble/curves 2.0.1: cuzk writes random cases
# (scalar mults, additions, valid and invalid encodings) that noble checks,
# noble writes its own that cuzk checks. Usage: ec_noble.test.sh BUILD_DIR
# Replay a run with CUZK_SEED=<printed seed>.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: ec_noble.test.sh BUILD_DIR}
tool="$build/tool_ec_oracle"

fail() { echo "ec_noble: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found (install nodejs, or run 'make test' / scripts/deps.sh test)"
[ -f "$here/oracle/node_modules/@noble/curves/package.json" ] ||
    fail "tests/oracle/node_modules missing (run 'cd tests/oracle && npm ci' or scripts/deps.sh test)"
[ -x "$tool" ] || fail "$tool not built"

seed=${CUZK_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}
echo "ec_noble: seed: $seed (replay with CUZK_SEED=$seed)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CUZK_SEED=$seed "$tool" gen "$tmp/cuzk.txt" || fail "tool_ec_oracle gen"
node "$here/oracle/ec_oracle.mjs" "$seed" "$tmp/cuzk.txt" "$tmp/noble.txt" || fail "noble rejected cuzk's results"
"$tool" check "$tmp/noble.txt" || fail "cuzk disagreed with noble's cases"
echo "ec_noble: OK"
