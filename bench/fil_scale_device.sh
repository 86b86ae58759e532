#!/bin/bash
# The 32 GiB PoRep shape on the device machine (run from the repository root) (binaries carried in $1,
# default devbin, their libraries in $1/lib): a synthetic 32 GiB C1 (one
# full-size partition's worth of vanilla proofs, no sealing), then the PCE of
# porep-32g extracted with all cores and inspected, with time and peak host
# memory. What the 32 GiB proofs would run on. SETUP=1 first makes TEST
# parameters for porep-32g with the GPU setup (`cuzk setup --device gpu`,
# ≈ 47 GB into $SCALE_DIR/params: the disk needs the room) for the daemon's
# proofs (bench/fil_sweep_device.sh with that param_cache).
set -u
B=$(cd "${1:-devbin}" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
W=${SCALE_DIR:-/tmp/scale}
mkdir -p "$W"
{ nproc; free -g | head -2; df -h "$W" | tail -1; } | tee "$OUT/scale_machine.log"
rc=0
if [ "${SETUP:-0}" = 1 ]; then
    echo "== GPU test setup of porep-32g"
    /usr/bin/time -v "$B/cuzk" setup --kind porep --sector-size 32GiB --device gpu --threads "$(nproc)" \
        --out "$W/params" > "$OUT/setup_32g.log" 2>&1 || rc=1
    grep -E "^setup: (recorded|parameters|wrote|total)|Elapsed|Maximum resident|cuzk:" "$OUT/setup_32g.log"
fi
echo "== synthetic 32 GiB C1"
/usr/bin/time -v "$B/cuzk" gen-vanilla porep --synthetic --sector-size 32GiB --out "$W/S32" > "$OUT/c1_32g.log" 2>&1
grep -E "StackedDrg|Elapsed|Maximum resident" "$OUT/c1_32g.log"; ls -la "$W/S32" | head
echo "== PCE of porep-32g"
/usr/bin/time -v "$B/cuzk" pce extract --circuit porep-32g --dir "$W" --threads "$(nproc)" > "$OUT/pce_32g.log" 2>&1
[ $? = 0 ] || rc=1
grep -vE "^\s+(Average|Exit|Swaps|File|Socket|Signals|Page size|Minor|Major|Voluntary|Involuntary|Percent|System|User)" "$OUT/pce_32g.log" | head -30
echo "== partitions of the synthetic C1 through the PCE (witness, a/b/c, a*b = c on every row)"
for k in ${PARTS:-0 9}; do
    /usr/bin/time -v "$B/cuzk" pce extract --circuit porep-32g --dir "$W" --threads "$(nproc)" \
        --request "$W/S32/request.json" --partition "$k" > "$OUT/pce_32g_p$k.log" 2>&1 || rc=1
    grep -E "request:|timings:|Elapsed|Maximum resident|error|cuzk:" "$OUT/pce_32g_p$k.log"
done
rm -f "$W"/*.pce
exit $rc
