#!/usr/bin/env bash
# cuzk circuit info: PoRep sizes by counting synthesis. Always: the 2KiB
# partition has 40 inputs (ONE, replica_id, comm_d, comm_r, 18 per challenge x 2),
# one input constraint each; bad arguments are rejected. With CUZK_LONG=1 also the 32 GiB partition
# (about a minute): 328 inputs and 130,278,541 constraints before the input
# constraints, as rust-fil-proofs' circuitinfo prints.
# Usage: circuit_info.test.sh BUILD_DIR
set -u
bin="${1:?usage: circuit_info.test.sh BUILD_DIR}/cuzk"
fail=0
check() { if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: got '$2', want '$3'"; fail=1; fi; }
field() { awk -v k="$1" '$1 == k { print $2 }'; }

out=$("$bin" circuit info --kind porep --sector-size 2KiB) || { echo "FAIL: 2KiB exited $?"; exit 1; }
check "2KiB inputs" "$(echo "$out" | field inputs)" 40
check "2KiB partitions" "$(echo "$out" | field partitions)" 1
check "2KiB input constraints" "$(echo "$out" | awk '$1 == "constraints" { print $3 }')" "(+40"

"$bin" circuit info --kind porep --sector-size 3KiB >/dev/null 2>&1
check "unregistered size rejected" "$?" 2
"$bin" circuit info --kind porep --sector-size 2Kx >/dev/null 2>&1
check "bad size rejected" "$?" 2
"$bin" circuit info --kind porep >/dev/null 2>&1
check "missing size rejected" "$?" 2
"$bin" circuit info --kind winning-post --sector-size 2KiB >/dev/null 2>&1
check "unimplemented kind reported" "$?" 1
"$bin" circuit info --bogus >/dev/null 2>&1
check "unknown option rejected" "$?" 2

if [ "${CUZK_LONG:-0}" = 1 ]; then
  out=$("$bin" circuit info --kind porep --sector-size 32GiB) || { echo "FAIL: 32GiB exited $?"; exit 1; }
  check "32GiB inputs" "$(echo "$out" | field inputs)" 328
  check "32GiB constraints" "$(echo "$out" | field constraints)" 130278541
else
  echo "skip: 32GiB (set CUZK_LONG=1)"
fi
exit $fail
