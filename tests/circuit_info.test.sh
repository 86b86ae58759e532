#!/usr/bin/env bash
# cuzk circuit info: PoRep and PoSt sizes by counting synthesis. Always: the 2KiB
# partition has 40 inputs (ONE, replica_id, comm_d, comm_r, 18 per challenge x 2),
# one input constraint each; 2KiB WindowPoSt 23 inputs (ONE, 2 x (comm_r + 10
# challenges)), WinningPoSt 133 (ONE, 66 x 2) and 32 GiB WinningPoSt 370,590
# constraints; bad arguments are rejected. With CUZK_LONG=1 also the 32 GiB
# PoRep partition (about a minute): 328 inputs and 130,278,541 constraints
# before the input constraints, as rust-fil-proofs' circuitinfo prints, and the
# WindowPoSt partitions of filecoin-proofs' constants.rs: 32 GiB 125,279,217
# constraints, 25,840 inputs; 64 GiB 129,887,900 constraints, 25,301 inputs;
# the 32 GiB SnapDeals partition (storage-proofs-update tests/circuit.rs):
# 81,049,499 constraints, its Poseidon variant (circuit_poseidon.rs) 22,305,906. Always: 1KiB SnapDeals 1,248,389 constraints, 5 inputs.
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
"$bin" circuit info --kind snap --sector-size 2KiB >/dev/null 2>&1
check "unimplemented kind reported" "$?" 1

out=$("$bin" circuit info --kind window-post --sector-size 2KiB) || { echo "FAIL: window 2KiB exited $?"; exit 1; }
check "2KiB WindowPoSt inputs" "$(echo "$out" | field inputs)" 23
out=$("$bin" circuit info --kind winning-post --sector-size 2KiB) || { echo "FAIL: winning 2KiB exited $?"; exit 1; }
check "2KiB WinningPoSt inputs" "$(echo "$out" | field inputs)" 133
out=$("$bin" circuit info --kind winning-post --sector-size 32GiB) || { echo "FAIL: winning 32GiB exited $?"; exit 1; }
check "32GiB WinningPoSt inputs" "$(echo "$out" | field inputs)" 133
check "32GiB WinningPoSt constraints" "$(echo "$out" | field constraints)" 370590
out=$("$bin" circuit info --kind update --sector-size 1KiB) || { echo "FAIL: update 1KiB exited $?"; exit 1; }
check "1KiB update constraints" "$(echo "$out" | field constraints)" 1248389
check "1KiB update inputs" "$(echo "$out" | field inputs)" 5
out=$("$bin" circuit info --kind update-poseidon --sector-size 8KiB) || { echo "FAIL: update-poseidon 8KiB exited $?"; exit 1; }
check "8KiB update-poseidon constraints" "$(echo "$out" | field constraints)" 47974
"$bin" circuit info --kind update --sector-size 1GiB >/dev/null 2>&1
check "update 1GiB rejected" "$?" 2
"$bin" circuit info --kind window-post --sector-size 2KiB --threads x >/dev/null 2>&1
check "bad thread count rejected" "$?" 2
"$bin" circuit info --bogus >/dev/null 2>&1
check "unknown option rejected" "$?" 2

if [ "${CUZK_LONG:-0}" = 1 ]; then
  out=$("$bin" circuit info --kind porep --sector-size 32GiB) || { echo "FAIL: 32GiB exited $?"; exit 1; }
  check "32GiB inputs" "$(echo "$out" | field inputs)" 328
  check "32GiB constraints" "$(echo "$out" | field constraints)" 130278541
  out=$("$bin" circuit info --kind update --sector-size 32GiB) || { echo "FAIL: update 32GiB exited $?"; exit 1; }
  check "32GiB update constraints" "$(echo "$out" | field constraints)" 81049499
  check "32GiB update partitions" "$(echo "$out" | field partitions)" 16
  out=$("$bin" circuit info --kind update-poseidon --sector-size 32GiB) || { echo "FAIL: update-poseidon 32GiB exited $?"; exit 1; }
  check "32GiB update-poseidon constraints" "$(echo "$out" | field constraints)" 22305906
  out=$("$bin" circuit info --kind window-post --sector-size 32GiB) || { echo "FAIL: window 32GiB exited $?"; exit 1; }
  check "32GiB WindowPoSt inputs" "$(echo "$out" | field inputs)" 25840
  check "32GiB WindowPoSt constraints" "$(echo "$out" | field constraints)" 125279217
  out=$("$bin" circuit info --kind window-post --sector-size 64GiB) || { echo "FAIL: window 64GiB exited $?"; exit 1; }
  check "64GiB WindowPoSt inputs" "$(echo "$out" | field inputs)" 25301
  check "64GiB WindowPoSt constraints" "$(echo "$out" | field constraints)" 129887900
else
  echo "skip: 32GiB PoRep, 32/64GiB WindowPoSt (set CUZK_LONG=1)"
fi
exit $fail
