#!/usr/bin/env bash
# `cuzk bench` (our gRPC C-core client) against `cuzk daemon`: every verb over
# a unix socket, and TCP on 127.0.0.1 with and without the bearer token.
set -euo pipefail
build=${1:?build dir}
cuzk="$build/cuzk"
"$cuzk" daemon --help >/dev/null 2>&1 || { echo "SKIP: no daemon in this build"; exit 77; }
work=$(mktemp -d /tmp/cuzk-bench-test.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
. "$(dirname "$0")/expect.sh"
start() { # start <name> <listen> [extra toml]
    cat > "$work/$1.toml" <<TOML
[daemon]
listen = "$2"
${3:-}
[srs]
param_cache = "$work/params"
preload = ["test-porep", "test-winning"]
TOML
    "$cuzk" daemon --config "$work/$1.toml" --test-kinds --test-constraints 256 --test-post-constraints 128 2> "$work/$1.log" &
    pids+=($!)
    for _ in $(seq 1 300); do grep -q "serving on" "$work/$1.log" && return 0; sleep 0.1; done
    cat "$work/$1.log"; exit 1
}
A="unix://$work/cuzk.sock"
start unix "$A"
expect "single" 0 "COMPLETED, 1920-byte proof" -- "$cuzk" bench single --addr "$A" --type test-porep
expect "batch table" 0 "test-winning: 4 proofs, 4 ok, 0 failed" -- "$cuzk" bench batch --addr "$A" --type test-winning --count 4 --concurrency 2
# the daemon's per-partition phases over the run, mean per prove call (the CPU prover times NTT and MSMs)
expect "single phases" 0 "mean of 10 prove calls, s: upload 0.000 eval 0.000 ntt [0-9.]* msm [0-9.]*" -- "$cuzk" bench single --addr "$A" --type test-porep
expect "batch phases" 0 "mean of 4 prove calls, s: upload" -- "$cuzk" bench batch --addr "$A" --type test-winning --count 4 --concurrency 2
expect "stress" 0 "test-window: [0-9]+ proofs, [0-9]+ ok, 0 failed" -- "$cuzk" bench stress --addr "$A" --mix test-winning:4,test-window:2 --duration 2
expect "status" 0 "test-porep +0 +0" -- "$cuzk" bench status --addr "$A"
expect "metrics" 0 'cuzk_rpc_requests_total\{method="Prove",code="OK"\}' -- "$cuzk" bench metrics --addr "$A"
expect "evict" 0 "test-porep: evicted" -- "$cuzk" bench evict --addr "$A" --circuit-id test-porep
expect "preload" 0 "test-porep: loaded" -- "$cuzk" bench preload --addr "$A" --circuit-id test-porep
expect "preload unknown" 1 "NOT_FOUND" -- "$cuzk" bench preload --addr "$A" --circuit-id porep-32g
expect "cancel unknown" 1 "NOT_FOUND" -- "$cuzk" bench cancel --addr "$A" --job-id no-such-job
expect "filecoin kind" 1 "UNIMPLEMENTED" -- "$cuzk" bench single --addr "$A" --type porep --vanilla "$work/unix.toml"
expect "bad usage" 2 "type KIND is required" -- "$cuzk" bench single --addr "$A"
port=$(python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])" 2>/dev/null || echo $(( 20000 + RANDOM % 20000 )))
token="t$RANDOM$RANDOM"
start tcp "127.0.0.1:$port" "auth_token = \"$token\""
expect "tcp with token" 0 "COMPLETED" -- "$cuzk" bench single --addr "127.0.0.1:$port" --token "$token" --type test-winning
expect "tcp without token" 1 "UNAUTHENTICATED" -- "$cuzk" bench status --addr "127.0.0.1:$port"
expect "tcp wrong token" 1 "UNAUTHENTICATED" -- env CUZK_TOKEN=x "$cuzk" bench status --addr "http://127.0.0.1:$port"
for p in "${pids[@]}"; do kill -TERM "$p"; wait "$p" || { echo "FAIL: daemon exit status $?"; fail=1; }; done
pids=()
exit $fail
