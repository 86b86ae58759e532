#!/bin/bash
# Builds bench/sppark_side.cu (cuzk and sppark side by side in one process)
# against a sppark and a blst fetched and built outside the repository, never
# committed (sppark's checkout named in SPPARK, blst's, with libblst.a made by
# its build.sh, in BLST), and the libcuzk.a of build dir $1 (default build).
# Writes $2 (default $1/sppark_side); bench/device_pack.sh packs it when it
# exists. Run it on the device machine like bench_gpu (CUZK_BENCH_* sizes).
set -eu
BUILD=${1:-build}
OUTBIN=${2:-$BUILD/sppark_side}
SPPARK=${SPPARK:?SPPARK=path to a sppark checkout}
BLST=${BLST:?BLST=path to a blst checkout with libblst.a built}
[ -f "$BLST/libblst.a" ] || (cd "$BLST" && ./build.sh)
NVCC=${NVCC:-nvcc}
# sppark's headers take blst's host types; its util/all_gpus.cpp holds the
# device list (select_gpu)
libs=$(sed -e 's/^ *libcuzk.a//' "$BUILD/CMakeFiles/bench_gpu.dir/linkLibs.rsp" | tr -d '"')
$NVCC -std=c++17 -O3 -arch=sm_90 -DFEATURE_BLS12_381 -D__ADX__ -DTAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE \
    -I"$SPPARK" -I"$BLST/src" -Iinclude -Xcompiler -Wno-subobject-linkage \
    bench/sppark_side.cu "$SPPARK/util/all_gpus.cpp" "$BUILD/libcuzk.a" "$BLST/libblst.a" \
    -o "$OUTBIN" $(echo "$libs" | sed -e 's|/usr/local/cuda/lib/libcudart_static.a||' -e 's/-lcudart_static//')
echo "built $OUTBIN (sppark $(git -C "$SPPARK" rev-parse --short HEAD 2>/dev/null), blst $(git -C "$BLST" rev-parse --short HEAD 2>/dev/null))"
