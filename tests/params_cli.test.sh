#!/usr/bin/env bash
# `cuzk setup --kind` writes TEST parameters under the Filecoin names (the
# names `cuzk circuit`'s registry gives, checked against the embedded
# parameters.json by `cuzk params list`), .meta as rust-fil-proofs writes it;
# `cuzk params check` passes on files whose digests a manifest lists (digests
# from python3's hashlib, an independent Blake2b), fails naming the file on
# a flipped byte and on ceremony digests; bad usage exits 2. The parameter
# cache's default is $FIL_PROOFS_PARAMETER_CACHE for the commands and the
# daemon's config, the flag or the file's key over it.
# Usage: params_cli.test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: params_cli.test.sh BUILD_DIR}
fail() { echo "params_cli: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cuzk="$build/cuzk"
seed=${CUZK_SEED:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}
echo "params_cli: seed: $seed (replay with CUZK_SEED=$seed)"

# window-post 2 KiB: the smallest Filecoin circuit (a few seconds)
out=$("$cuzk" setup --kind window-post --sector-size 2KiB --out "$tmp/pc" --threads 2 2>"$tmp/err") ||
    fail "setup exited $?: $(cat "$tmp/err")"
grep -q "TEST PARAMETERS" "$tmp/err" || fail "no test-parameter warning"
grep -q "TEST parameters" <<<"$out" || fail "no TEST note: $out"
stem=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0
for ext in params vk meta; do [ -s "$tmp/pc/$stem.$ext" ] || fail "missing $stem.$ext"; done
[ "$(cat "$tmp/pc/$stem.meta")" = '{"sector_size":2048}' ] || fail "meta: $(cat "$tmp/pc/$stem.meta")"
# the same name by registered proof id (Window PoSt V1 2 KiB = 5), and list sees it
"$cuzk" setup --kind window-post --registered-proof 5 --out "$tmp/pc2" --threads 2 >/dev/null 2>&1 || fail "setup by id"
[ -s "$tmp/pc2/$stem.params" ] || fail "setup by id: other name"
list=$("$cuzk" params list --param-cache "$tmp/pc") || fail "list exited $?"
grep -q "window-post   2KiB    params   present   $stem.params$" <<<"$list" ||
    fail "list does not show the file present and known"
grep -q "porep .*missing" <<<"$list" || fail "list: porep not missing"

# The parameter cache from the environment, read by the command line alone:
# --param-cache's default is $FIL_PROOFS_PARAMETER_CACHE (set and not
# empty), else /var/tmp/filecoin-proof-parameters, and the flag wins; the
# daemon's srs.param_cache (--check-config says it) is the file's, else the
# variable, else the same default, and a relative variable is refused.
mkdir "$tmp/empty"
unset FIL_PROOFS_PARAMETER_CACHE
[ "$(FIL_PROOFS_PARAMETER_CACHE="$tmp/pc" "$cuzk" params list)" = "$list" ] ||
    fail "params list with \$FIL_PROOFS_PARAMETER_CACHE differs from --param-cache"
last=$(FIL_PROOFS_PARAMETER_CACHE="$tmp/empty" "$cuzk" params list --param-cache "$tmp/pc" | tail -1)
[ "${last%%: *}" = "$tmp/pc" ] || fail "--param-cache does not win over the variable: $last"
for env in "env -u FIL_PROOFS_PARAMETER_CACHE" "env FIL_PROOFS_PARAMETER_CACHE="; do
    last=$($env "$cuzk" params list | tail -1)
    [ "${last%%: *}" = /var/tmp/filecoin-proof-parameters ] || fail "$env: not the default: $last"
done
if "$cuzk" daemon --help >/dev/null 2>&1; then
    daemon_cache() { # FILE_KEYS ENV...: the param_cache --check-config reports
        printf '[daemon]\nlisten = "unix://%s/d.sock"\n%s' "$tmp" "$1" >"$tmp/d.toml"
        shift
        env "$@" "$cuzk" daemon --config "$tmp/d.toml" --check-config 2>&1 | sed -n 's/.*param_cache \([^,]*\),.*/\1/p'
    }
    [ "$(daemon_cache "" -u FIL_PROOFS_PARAMETER_CACHE)" = /var/tmp/filecoin-proof-parameters ] ||
        fail "daemon: no variable, no key: $(daemon_cache "" -u FIL_PROOFS_PARAMETER_CACHE)"
    [ "$(daemon_cache "" FIL_PROOFS_PARAMETER_CACHE="$tmp/pc")" = "$tmp/pc" ] || fail "daemon: the variable not taken"
    [ "$(daemon_cache "[srs]"$'\n'"param_cache = \"$tmp/pc2\""$'\n' FIL_PROOFS_PARAMETER_CACHE="$tmp/pc")" = "$tmp/pc2" ] ||
        fail "daemon: the file's param_cache does not win over the variable"
    daemon_cache "" >/dev/null # the file with no [srs]
    set +e
    out=$(env FIL_PROOFS_PARAMETER_CACHE=params "$cuzk" daemon --config "$tmp/d.toml" --check-config 2>&1); rc=$?
    set -e
    [ $rc = 2 ] && grep -q 'FIL_PROOFS_PARAMETER_CACHE = "params" is not an absolute path' <<<"$out" ||
        fail "daemon: a relative variable: rc $rc: $out"
fi

# test parameters do not carry the ceremony's digests
if "$cuzk" params check --param-cache "$tmp/pc" >"$tmp/out" 2>&1; then fail "ceremony digests matched test parameters"; fi
grep -q "BAD  $stem.params: digest" "$tmp/out" || fail "check did not name the file: $(cat "$tmp/out")"

# a manifest with their true digests (python's hashlib): the check passes
if python3 -c 'import hashlib' 2>/dev/null; then
    python3 - "$tmp/pc" "$tmp/p.json" <<'PY'
import hashlib, json, os, sys
d, out = sys.argv[1], sys.argv[2]
m = {}
for f in sorted(os.listdir(d)):
    if f.endswith((".params", ".vk")):
        h = hashlib.blake2b(open(os.path.join(d, f), "rb").read()).hexdigest()[:32]
        m[f] = {"cid": "QmTest", "digest": h, "sector_size": 2048}
json.dump(m, open(out, "w"))
PY
    "$cuzk" params check --param-cache "$tmp/pc" --parameters-json "$tmp/p.json" >"$tmp/out" 2>&1 ||
        fail "check of good files failed: $(cat "$tmp/out")"
    grep -q "2 files checked" "$tmp/out" || fail "not 2 files checked: $(cat "$tmp/out")"
    # one flipped byte at a random offset: named, exit 1
    size=$(stat -c %s "$tmp/pc/$stem.params")
    off=$(( (seed & 0x7fffffffffff) % size ))
    python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); b=f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0]^0x10]))" \
        "$tmp/pc/$stem.params" "$off"
    set +e
    "$cuzk" params check --param-cache "$tmp/pc" --parameters-json "$tmp/p.json" >"$tmp/out" 2>&1
    rc=$?
    set -e
    [ $rc = 1 ] || fail "flipped byte at $off: exit $rc"
    grep -q "BAD  $stem.params: digest" "$tmp/out" || fail "flipped byte not named: $(cat "$tmp/out")"
    grep -q "ok   $stem.vk" "$tmp/out" || fail "the vk should still pass"
    # --name: only that file; a name that is missing fails
    "$cuzk" params check --param-cache "$tmp/pc" --parameters-json "$tmp/p.json" --name "$stem.vk" >/dev/null 2>&1 ||
        fail "--name of a good file failed"
    if "$cuzk" params check --param-cache "$tmp/pc2" --parameters-json "$tmp/p.json" --name nothere.vk >/dev/null 2>&1; then
        fail "--name of a file not in the manifest passed"
    fi
else
    echo "params_cli: python3 missing: manifest round trip skipped"
fi

# malformed manifests name the field; usage errors exit 2
echo '{"x.params": {"cid": "Q", "digest": "00", "sector_size": 1}}' >"$tmp/bad.json"
set +e
"$cuzk" params check --param-cache "$tmp/pc" --parameters-json "$tmp/bad.json" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ $rc = 1 ] && grep -q "x.params: digest" "$tmp/err" || fail "bad manifest: rc $rc: $(cat "$tmp/err")"
for args in "params" "params frob" "params check --bogus" "setup --kind porep" "setup --kind nope --sector-size 2KiB" \
            "setup --kind porep --sector-size 4KiB" "setup --kind window-post --registered-proof 0" \
            "setup --sector-size 2KiB" "setup --kind snap --sector-size 2KiB --circuit sha256"; do
    set +e
    $cuzk $args >/dev/null 2>&1; rc=$?
    set -e
    [ $rc = 2 ] || fail "'cuzk $args' exited $rc, wanted 2"
done
echo "params_cli: ok"
