#!/usr/bin/env bash
# curio's daemon replaced by this one, as an operator would: curio's example
# configuration (deploy/curio-example.toml) and invocation (`cuzk --config
# FILE`), protected mode (loopback clients served without a token, a remote
# client from a network namespace refused), with Debian's python3-grpcio as
# the client. The namespace part skips with a message where user and network
# namespaces are not allowed. Skips (77) without the daemon or the Python
# packages.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if ! "$build/cuzk" daemon --help >/dev/null 2>&1; then
    echo "SKIP: cuzk built without the daemon (gRPC/protobuf-c/toml++ missing)"; exit 77
fi
py=/usr/bin/python3
if ! $py -c 'import grpc, grpc_tools' 2>/dev/null; then
    echo "SKIP: $py lacks grpc/grpc_tools (apt-get install python3-grpcio python3-grpc-tools)"; exit 77
fi
exec $py "$here/daemon_curio_test.py" "$build/cuzk" "$here/../proto" "$here/.."
