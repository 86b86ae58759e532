#!/usr/bin/env bash
# Pairing against @noble/curves: e(a·g1, b·g2) byte for byte, a multi-pairing
# and a tampered case, in both directions. Usage: pairing_noble.test.sh BUILD_DIR
exec bash "$(dirname "$0")/oracle/run_oracle.sh" pairing_noble "${1:?usage: pairing_noble.test.sh BUILD_DIR}" tool_pairing_oracle pairing_oracle.mjs
