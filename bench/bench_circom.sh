#!/usr/bin/env bash
# cuzk (CPU) against snarkjs proving the same circom circuits on the same
# machine: bench/circom/bench.circom with N = 2^k - 4 constraints (domain
# 2^k) for k = KMIN..KMAX, keys from one ptau (power >= KMAX), the same
# witness for both. Prints a table; takes the minimum of REPS runs.
#   bench/bench_circom.sh BUILD_DIR PTAU [KMIN] [KMAX] [REPS]
# "prove" columns: snarkjs's groth16.prove called in a warm node process (zkey
# read included), cuzk's prove phase (zkey already read); "CLI" columns: the
# wall time of `snarkjs groth16 prove` and `cuzk circom prove` (node start and
# wasm curve build; zkey read with subgroup checks, or --trusted without).
# BASE_BUILD=DIR adds a "base prove s" column: the prove phase of DIR/cuzk
# (e.g. a build of an earlier commit) on the same keys and witness.
# THREADS (default 2) sets cuzk's threads; snarkjs uses one worker per CPU,
# so run both on a machine (or cpuset) of THREADS cores for a fair figure.
# A ptau: snarkjs powersoftau new bls12381 P, contribute, prepare phase2
# (power 15 takes about 30 minutes on 2 cores, most of it in prepare phase2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: bench_circom.sh BUILD_DIR PTAU [KMIN] [KMAX] [REPS]}" && pwd)
ptau=$(realpath "${2:?ptau file}")
kmin=${3:-10}
kmax=${4:-15}
reps=${5:-3}
threads=${THREADS:-2}
oracle="node $here/../tests/oracle/circom_oracle.mjs"
circom2="$here/../tests/oracle/node_modules/.bin/circom2"
snarkjs="$here/../tests/oracle/node_modules/.bin/snarkjs"
cuzk="$build/cuzk"
[ -x "$circom2" ] || { echo "bench_circom: run scripts/deps.sh test first (snarkjs, circom2)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

min() { sort -g | head -1; }
calc() { awk "BEGIN { print $1 }"; }
since() { calc "$(date +%s.%N) - $1"; }
rows=()
for k in $(seq "$kmin" "$kmax"); do
    n=$((2 ** k - 4))
    d="$tmp/k$k"
    mkdir -p "$d"
    printf 'pragma circom 2.0.0;\ninclude "bench.circom";\ncomponent main {public [a]} = Bench(%d);\n' "$n" >"$d/b.circom"
    # circom2 (WASI) only finds include paths below its working directory
    (cd "$here/circom" && "$circom2" "$d/b.circom" -l . --r1cs --wasm -p bls12381 -o "$d" >/dev/null)
    t0=$(date +%s.%N)
    (cd "$here/../tests/oracle" && node --input-type=module -e "
        import * as s from 'snarkjs';
        await s.zKey.newZKey('$d/b.r1cs', '$ptau', '$d/b0.zkey');
        await s.zKey.contribute('$d/b0.zkey', '$d/b.zkey', 'bench', String(Math.random()));
        const b = BigInt('0x' + (await import('node:crypto')).randomBytes(8).toString('hex'));
        await s.wtns.calculate({a: '3', b: b.toString()}, '$d/b_js/b.wasm', '$d/b.wtns');
        process.exit(0);" 2>/dev/null) || { echo "bench_circom: setup failed for 2^$k (ptau too small?)" >&2; exit 1; }
    setup_s=$(since "$t0")
    # snarkjs CLI wall time
    t0=$(date +%s.%N)
    "$snarkjs" groth16 prove "$d/b.zkey" "$d/b.wtns" "$d/sj.proof.json" "$d/sj.public.json" >/dev/null
    sj_cli=$(since "$t0")
    # cuzk: prove time as reported (zkey read and validated before), and the
    # CLI's wall time. Rounds interleave snarkjs (in-process prove time, the better of two
    # calls so the wasm curve is already built), cuzk and the base build, so
    # that load changes on a shared machine hit all of them alike.
    cz=() cz_cli=() sjs=() bz=()
    for r in $(seq "$reps"); do
        sjs+=("$($oracle time "$d/b.zkey" "$d/b.wtns" 2)")
        if [ -n "${BASE_BUILD:-}" ]; then
            "$BASE_BUILD/cuzk" circom prove --zkey "$d/b.zkey" --wtns "$d/b.wtns" --proof "$d/bz.proof.json" \
                --public "$d/bz.public.json" --threads "$threads" 2>"$d/bz.log"
            bz+=("$(sed -n 's/.*; prove \([0-9.]*\) s.*/\1/p' "$d/bz.log")")
        fi
        t0=$(date +%s.%N)
        "$cuzk" circom prove --zkey "$d/b.zkey" --wtns "$d/b.wtns" --proof "$d/cz.proof.json" \
            --public "$d/cz.public.json" --threads "$threads" 2>"$d/cz.log"
        cz_cli+=("$(since "$t0")")
        cz+=("$(sed -n 's/.*; prove \([0-9.]*\) s.*/\1/p' "$d/cz.log")")
    done
    tr=()
    for r in $(seq "$reps"); do
        t0=$(date +%s.%N)
        "$cuzk" circom prove --zkey "$d/b.zkey" --wtns "$d/b.wtns" --proof "$d/cz.proof.json" \
            --public "$d/cz.public.json" --threads "$threads" --trusted 2>/dev/null
        tr+=("$(since "$t0")")
    done
    sj=$(printf '%s\n' "${sjs[@]}" | min)
    base=""
    [ -n "${BASE_BUILD:-}" ] && base=" $(printf '%s\n' "${bz[@]}" | min) |"
    czt=$(printf '%s\n' "${tr[@]}" | min)
    czp=$(printf '%s\n' "${cz[@]}" | min)
    czc=$(printf '%s\n' "${cz_cli[@]}" | min)
    "$cuzk" circom export-vk --zkey "$d/b.zkey" --out "$d/vk.json"
    ok=$($oracle verify "$d/vk.json" "$d/cz.public.json" "$d/cz.proof.json" ok >/dev/null 2>&1 && echo yes || echo NO)
    row=$(printf '| 2^%-2d | %6d | %8.3f | %8.3f | %7.1fx | %8.3f | %8.3f | %8.3f | %6.1fx | %s |%s' "$k" "$n" "$sj" \
        "$czp" "$(calc "$sj / $czp")" "$sj_cli" "$czc" "$czt" "$(calc "$sj_cli / $czc")" "$ok" "$base")
    rows+=("$row")
    echo "$row   (setup ${setup_s%.*} s; cuzk phases: $(tail -1 "$d/cz.log" | sed 's/^ *//'))" >&2
done
echo
echo "circom prove, cuzk CPU ($threads threads) vs snarkjs $(node -p "require('$here/../tests/oracle/node_modules/snarkjs/package.json').version") on $(nproc) CPUs, min of $reps"
hdr="| domain | constraints | snarkjs prove s | cuzk prove s | speedup | snarkjs CLI s | cuzk CLI s | cuzk CLI --trusted s | CLI speedup | snarkjs verifies cuzk |"
sep="|---|---|---|---|---|---|---|---|---|---|"
[ -n "${BASE_BUILD:-}" ] && hdr="$hdr base prove s |" && sep="$sep---|"
echo "$hdr"
echo "$sep"
printf '%s\n' "${rows[@]}"
