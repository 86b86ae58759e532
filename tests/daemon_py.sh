# Sourced by the daemon_*.test.sh wrappers (tests through a gRPC client that is
# not ours, Debian's python3-grpcio): sets build (absolute), here and py, or
# skips (77) without the daemon or the Python packages. Usage: . daemon_py.sh BUILD_DIR
build=$(cd "${1:?build dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if ! "$build/cuzk" daemon --help >/dev/null 2>&1; then
    echo "SKIP: cuzk built without the daemon (gRPC/protobuf-c/toml++ missing)"; exit 77
fi
py=/usr/bin/python3
if ! $py -c 'import grpc, grpc_tools' 2>/dev/null; then
    echo "SKIP: $py lacks grpc/grpc_tools (apt-get install python3-grpcio python3-grpc-tools)"; exit 77
fi
