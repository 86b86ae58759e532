#!/usr/bin/env bash
# curio's cuzk-bench command forms through `cuzk bench`, against a daemon with
# the 2KiB Filecoin kinds on loopback TCP, addressed as curio's tool does
# (-a http://127.0.0.1:PORT): `single -t porep --c1 FILE --sector-num N
# --miner-id N`, PoSt and SnapDeals with --vanilla as a JSON array of base64
# proofs and the request's fields as options (--randomness, --partition,
# --comm-*), curio's type names, `batch -c N -j J`. Inputs are sealed and
# proved natively by `cuzk gen-vanilla` from a fresh seed (printed; CUZK_SEED
# replays it); each proof must come back COMPLETED (the daemon verifies every
# partition before it answers), and the same requests with a field changed
# must not. Bad files and values are refused with exit 1 or 2.
# Parameters: the fil_params_2k fixture (BUILD_DIR/fil-params-2k).
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
cuzk="$build/cuzk"
"$cuzk" daemon --help >/dev/null 2>&1 || { echo "SKIP: no daemon in this build"; exit 77; }
params=${CUZK_FIL_PARAMS:-$build/fil-params-2k}
[ -d "$params" ] || { echo "bench_curio: no parameters in $params (run scripts/fil_params_2k.sh)" >&2; exit 1; }
seed=${CUZK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' \n')}
echo "bench_curio: seed: $seed (replay with CUZK_SEED=$seed)"
RANDOM=$((seed % 32768))
work=$(mktemp -d /tmp/cuzk-bench-curio.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
. "$(dirname "$0")/expect.sh"
have() { [ -s "$params/.done-$1-2KiB" ]; }

# ---- inputs: a sealed 2KiB sector, its PoSt and SnapDeals vanilla proofs ----
cd "$work"
miner=$((1000 + seed % 100000))
sector=$((1 + seed % 1000000))
"$cuzk" gen-vanilla porep --sector-size 2KiB --out S --seed "$seed" --miner-id "$miner" --sector-id "$sector" \
    --threads 1 >/dev/null 2>&1
"$cuzk" gen-vanilla window-post --sector S --seed $((seed + 1)) --out W >/dev/null 2>&1
"$cuzk" gen-vanilla winning-post --sector S --seed $((seed + 2)) --out WIN >/dev/null 2>&1
"$cuzk" gen-vanilla snap --sector S --seed $((seed + 3)) --out U >/dev/null 2>&1

# curio's files and options from gen-vanilla's request.json: vanilla.json is
# a JSON array of base64 proofs (Go's json.Marshal of [][]byte), args the
# request's fields as cuzk-bench options, one a line
for d in S W WIN U; do
    python3 - "$d" <<'PY'
import base64, json, os, sys
d = sys.argv[1]
q = json.load(open(os.path.join(d, "request.json")))
files = q.get("vanilla_proofs", [])
if files:
    json.dump([base64.b64encode(open(os.path.join(d, f), "rb").read()).decode() for f in files],
              open(os.path.join(d, "vanilla.json"), "w"))
args = ["--registered-proof", q["registered_proof"], "--sector-num", q["sector_number"], "--miner-id", q["miner_id"]]
if "partition_index" in q:
    args += ["--partition", q["partition_index"]]
for f in ("randomness", "comm_r_old", "comm_r_new", "comm_d_new"):
    if f in q:
        args += ["--" + f.replace("_", "-"), q[f]]
open(os.path.join(d, "args"), "w").write("\n".join(map(str, args)) + "\n")
PY
done
mapfile -t S_ARGS < S/args
mapfile -t W_ARGS < W/args
mapfile -t WIN_ARGS < WIN/args
mapfile -t U_ARGS < U/args
# the same with one value changed: 32 random bytes, or a number plus one
other() { # other <args-array-name> <option>
    local -n a=$1
    local out=() i
    for ((i = 0; i < ${#a[@]}; i++)); do
        out+=("${a[i]}")
        [ "${a[i]}" = "$2" ] || continue
        i=$((i + 1))
        if [ ${#a[i]} = 64 ]; then out+=("$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"); else out+=($((a[i] + 1))); fi
    done
    printf '%s\n' "${out[@]}"
}

# ---- the daemon on loopback TCP (protected mode: no token needed here) ------
mkdir params
for f in "$params"/v28-*; do ln -s "$f" params/; done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > cuzk.toml <<TOML
[daemon]
listen = "127.0.0.1:$port"
max_message_size = "64MiB"
[srs]
param_cache = "$work/params"
[synthesis]
partition_workers = 1
TOML
"$cuzk" --config cuzk.toml 2> daemon.log &
pid=$!
for _ in $(seq 1 600); do grep -q "serving on" daemon.log && break; sleep 0.1; done
grep -q "serving on" daemon.log || { cat daemon.log; exit 1; }
A=(-a "http://127.0.0.1:$port" --log-level info)

if have porep; then
    # a sector number or miner that is not the C1's is refused before any work
    mapfile -t bad < <(other S_ARGS --sector-num)
    expect "--sector-num other than the C1's is refused" 1 "INVALID_ARGUMENT: SectorNum: $sector differs" -- \
        "$cuzk" bench "${A[@]}" single -t porep-c2 --c1 S/c1-curio.json "${bad[@]}"
    mapfile -t bad < <(other S_ARGS --miner-id)
    expect "--miner-id other than the C1's is refused" 1 "INVALID_ARGUMENT: replica_id: differs" -- \
        "$cuzk" bench "${A[@]}" single -t seal-commit --c1 S/c1.json "${bad[@]}"
    expect "single -t porep --c1 (curio's C1 wrapper) --sector-num --miner-id" 0 "porep: COMPLETED, 192-byte proof" -- \
        "$cuzk" bench "${A[@]}" single -t porep --c1 S/c1-curio.json "${S_ARGS[@]}"
fi
if have window-post; then
    expect "single -t wpost --vanilla JSON array --randomness --partition" 0 "wpost: COMPLETED, 192-byte proof" -- \
        "$cuzk" bench "${A[@]}" single -t wpost --vanilla W/vanilla.json "${W_ARGS[@]}"
    mapfile -t bad < <(other W_ARGS --randomness)
    expect "the same with other randomness is not proved" 1 "wpost: FAILED|INVALID_ARGUMENT" -- \
        "$cuzk" bench "${A[@]}" single -t wpost --vanilla W/vanilla.json "${bad[@]}"
    expect "batch -t window-post -c 2 -j 2 (curio's type name)" 0 "wpost: 2 proofs, 2 ok, 0 failed" -- \
        "$cuzk" bench "${A[@]}" batch -t window-post --vanilla W/vanilla.json "${W_ARGS[@]}" -c 2 -j 2
fi
if have winning-post; then
    expect "single -t WinningPoSt --vanilla JSON array" 0 "winning: COMPLETED, 192-byte proof" -- \
        "$cuzk" bench "${A[@]}" single -t WinningPost --vanilla WIN/vanilla.json "${WIN_ARGS[@]}"
fi
if have snap; then
    expect "single -t snap-deals --vanilla JSON array --comm-r-old --comm-r-new --comm-d-new" 0 \
        "snap: COMPLETED, 192-byte proof" -- \
        "$cuzk" bench "${A[@]}" single -t snap-deals --vanilla U/vanilla.json "${U_ARGS[@]}"
    mapfile -t bad < <(other U_ARGS --comm-r-new)
    expect "the same with another comm_r_new is not proved" 1 "snap: FAILED|INVALID_ARGUMENT" -- \
        "$cuzk" bench "${A[@]}" single -t snap-deals --vanilla U/vanilla.json "${bad[@]}"
fi

# ---- refusals ----------------------------------------------------------------
printf '["%s", "not base64!"]' "$(head -c 48 /dev/urandom | base64 -w0)" > bad.json
expect "a JSON array with an entry that is not base64" 1 "bad.json: entry 1 of the JSON array is not a base64 string" -- \
    "$cuzk" bench "${A[@]}" single -t wpost --vanilla bad.json "${W_ARGS[@]}"
echo '[]' > empty.json
expect "an empty JSON array" 1 "empty.json: an empty JSON array" -- \
    "$cuzk" bench "${A[@]}" single -t wpost --vanilla empty.json "${W_ARGS[@]}"
expect "--randomness that is not 64 hex digits" 2 "randomness: want 32 bytes as 64 hex digits" -- \
    "$cuzk" bench "${A[@]}" single -t wpost --vanilla W/vanilla.json --randomness "0x$(od -An -N31 -tx1 /dev/urandom | tr -d ' \n')"
expect "an unknown type" 2 "unknown --type 'porep-c3'" -- "$cuzk" bench "${A[@]}" single -t porep-c3 --c1 S/c1.json
expect "--c1 with --vanilla" 2 "one of them" -- \
    "$cuzk" bench "${A[@]}" single -t porep --c1 S/c1.json --vanilla W/vanilla.json

kill -TERM "$pid"
wait "$pid" || { echo "FAIL: daemon exit status $?"; fail=1; }
pid=
exit $fail
