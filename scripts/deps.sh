#!/usr/bin/env bash
# Checks the dependencies of a make target and installs what is missing
# when run as root on Debian; otherwise says exactly what to install.
#   scripts/deps.sh build|test|fuzz
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-build}
# The daemon: gRPC C core, protobuf-c (+ protoc-c), toml++ (the one C++17
# dependency), libsystemd (sd_notify), libpq (the cluster's PostgreSQL queue).
pkgs_build=(build-essential cmake pkg-config libssl-dev libjansson-dev libgrpc-dev protobuf-compiler
            protobuf-c-compiler libprotobuf-c-dev libtomlplusplus-dev libsystemd-dev libpq-dev)
# python3-grpcio/grpc-tools/protobuf: a gRPC client that is not ours, for the daemon tests
# (python3-protobuf: descriptors for the reflection test);
# iproute2 + util-linux (ip, unshare, nsenter): daemon_curio's remote client in a
# network namespace; systemd (systemd-analyze): unit_file verifies deploy/cuzk.service;
# openssl: daemon_ops makes a CA and certificates for its TLS checks;
# postgresql: the server the cluster tests start (tests/pg.sh; initdb, pg_ctl)
pkgs_test=(libgmp-dev nodejs npm python3 python3-grpcio python3-grpc-tools python3-protobuf iproute2 util-linux systemd openssl postgresql)
pkgs_fuzz=(clang libclang-rt-dev)

need=()
case "$what" in
build) want=("${pkgs_build[@]}") ;;
test) want=("${pkgs_build[@]}" "${pkgs_test[@]}") ;;
fuzz) want=("${pkgs_build[@]}" "${pkgs_fuzz[@]}") ;;
*) echo "usage: $0 build|test|fuzz" >&2; exit 2 ;;
esac

for p in "${want[@]}"; do
    # npm and nodejs may come from elsewhere (nodesource, nvm): accept the commands.
    case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
    esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done

if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "deps: installing ${need[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${need[@]}"
    else
        echo "deps: missing Debian packages: ${need[*]}" >&2
        echo "deps: install them with: sudo apt-get install ${need[*]}" >&2
        exit 1
    fi
fi

# @noble/curves 2.x declares node >= 20.19 (Debian 12's own nodejs is 18).
if [ "$what" = test ] && ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=19)?0:1)'; then
    echo "deps: warning: node $(node --version) is older than the 20.19 the test oracles declare;" >&2
    echo "deps: if the noble oracle tests fail, install node 20 (e.g. from NodeSource)" >&2
fi

# Test oracles (noble-curves, snarkjs, circom2) live in tests/oracle/node_modules.
# The marker holds the hash of the package-lock.json installed, so a changed
# lock file reinstalls.
if [ "$what" = test ]; then
    lock_hash=$(sha256sum tests/oracle/package-lock.json | cut -d' ' -f1)
    if [ "$(cat tests/oracle/node_modules/.cuzk-ok 2>/dev/null)" != "$lock_hash" ]; then
        echo "deps: installing test oracles (npm ci in tests/oracle)"
        (cd tests/oracle && npm ci --no-audit --no-fund --loglevel=error &&
            echo "$lock_hash" >node_modules/.cuzk-ok)
    fi
fi
