#!/usr/bin/env bash
# G1/G2 against @noble/curves: scalar mults, additions, valid and invalid
# encodings, in both directions. Usage: ec_noble.test.sh BUILD_DIR
exec bash "$(dirname "$0")/oracle/run_oracle.sh" ec_noble "${1:?usage: ec_noble.test.sh BUILD_DIR}" tool_ec_oracle ec_oracle.mjs
