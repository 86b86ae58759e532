#!/bin/bash
# Packs what the device machine runs into one archive for `carry` (the
# machine has no gRPC, protobuf-c, jansson, libpq, ...): the stripped GPU
# tests, bench_gpu and cuzk of a CUDA build, the shared libraries they load
# that are not glibc's, and the device scripts. Stripped binaries and their
# libraries are ≈ 66 MB, over the 64 MiB a carry allows; xz makes it ≈ 13 MB.
# Usage (here): bash bench/device_pack.sh [BUILD_DIR=build] [OUT_DIR=devgpu]
# There: bench/device_check.sh and bench/fil_e2e_device.sh unpack it into
# /tmp/devbin (BIN_DIR) when it is not there yet.
set -eu
BUILD=${1:-build}
DEST=${2:-devgpu}
BINS="cuzk bench_gpu bench_gpu_ff test_gpu_ff test_gpu_kernels test_gpu_prove test_gpu_pce test_gpu_circom test_gpu_setup test_gpu_pairing test_gpu_snarkpack bench_snarkpack test_engine_gpu tool_gpu_hold"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/devbin/lib" "$DEST"
for b in $BINS; do
    [ -x "$BUILD/$b" ] || { echo "device_pack: $BUILD/$b missing (a CUDA build: cmake --build $BUILD)" >&2; exit 1; }
    cp "$BUILD/$b" "$STAGE/devbin/" && strip "$STAGE/devbin/$b"
done
# every library a binary loads, except the C library's own (the machine has
# its glibc and GCC runtime; a copied glibc would not match its loader) and
# the CUDA driver
for b in $BINS; do ldd "$BUILD/$b"; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*|libcuda|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$STAGE/devbin/lib/"; done
# cuzk and sppark side by side (bench/sppark_side.sh builds it beside the
# project, against a sppark fetched outside it), when it was built
# (rebuilt first when SPPARK and BLST name the checkouts; an older binary than libcuzk.a is left out)
if [ -n "${SPPARK:-}" ] && [ -n "${BLST:-}" ]; then bash bench/sppark_side.sh "$BUILD"; fi
if [ -x "$BUILD/sppark_side" ] && [ "$BUILD/sppark_side" -nt "$BUILD/libcuzk.a" ]; then
    cp "$BUILD/sppark_side" "$STAGE/devbin/" && strip "$STAGE/devbin/sppark_side"
elif [ -e "$BUILD/sppark_side" ]; then
    echo "device_pack: $BUILD/sppark_side is older than libcuzk.a: left out (SPPARK=... BLST=... rebuild it)" >&2
fi
# bench_gpu and test_gpu_kernels from builds with other compile-time choices (VARIANT_BUILD, a
# space-separated list of build folders, e.g. "build-low01 build-dp": one configured with
# -DCMAKE_CUDA_FLAGS=-DCUZK_GPU_FR_LOW01=1, one of 7e9df6a with -DCUZK_GPU_FP_DP=1), each in
# variant-NAME (NAME: the folder's name less "build-"), for device_session.sh's probe and dp
# steps to run beside the default ones
for v in ${VARIANT_BUILD:-}; do
    d="$STAGE/devbin/variant-$(basename "${v#build-}")"
    mkdir -p "$d"
    for b in bench_gpu test_gpu_kernels; do
        cp "$v/$b" "$d/" && strip "$d/$b"
    done
    grep -o 'CMAKE_CUDA_FLAGS:STRING=.*' "$v/CMakeCache.txt" > "$d/FLAGS" || true
done
cp bench/fil_e2e_device.sh bench/device_check.sh bench/device_session.sh "$STAGE/devbin/"
[ -f ../shared/device/drive-32g.sh ] && cp ../shared/device/drive-32g.sh "$STAGE/devbin/"
git rev-parse --short HEAD > "$STAGE/devbin/COMMIT" 2>/dev/null || true
tar -C "$STAGE" -cJf "$DEST/devbin.tar.xz" devbin
du -sh "$STAGE/devbin" "$DEST/devbin.tar.xz"
