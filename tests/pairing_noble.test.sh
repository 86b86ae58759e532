#!/usr/bin/env bash
# Pairing cross-check against @noble/curves 2.0.1: cuzk writes random
# e(a·g1, b·g2) values (plus a multi-pairing and a tampered case) that noble
# recomputes byte for byte, noble writes its own that cuzk checks.
# Usage: pairing_noble.test.sh BUILD_DIR. Replay with CUZK_SEED=<printed seed>.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: pairing_noble.test.sh BUILD_DIR}
tool="$build/tool_pairing_oracle"

fail() { echo "pairing_noble: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node not found (install nodejs, or run 'make test' / scripts/deps.sh test)"
[ -f "$here/oracle/node_modules/@noble/curves/package.json" ] ||
    fail "tests/oracle/node_modules missing (run 'cd tests/oracle && npm ci' or scripts/deps.sh test)"
[ -x "$tool" ] || fail "$tool not built"

seed=${CUZK_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}
echo "pairing_noble: seed: $seed (replay with CUZK_SEED=$seed)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CUZK_SEED=$seed "$tool" gen "$tmp/cuzk.txt" || fail "tool_pairing_oracle gen"
node "$here/oracle/pairing_oracle.mjs" "$seed" "$tmp/cuzk.txt" "$tmp/noble.txt" || fail "noble disagreed with cuzk's pairings"
"$tool" check "$tmp/noble.txt" || fail "cuzk disagreed with noble's pairings"
echo "pairing_noble: OK"
