#!/usr/bin/env bash
# deploy/cuzk.service: `systemd-analyze verify` accepts it without a word
# (unknown keys and bad values are warnings there, so any output fails),
# and its sandbox reaches the Filecoin stack's parameter cache
# (/var/tmp/filecoin-proof-parameters is hidden by PrivateTmp= unless bound
# in). Also checks that the binary it starts takes the unit's command line.
# Skips (77) without systemd-analyze.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
unit=$here/../deploy/cuzk.service
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze (apt-get install systemd)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# the unit as installed, with the binary at the build's path
sed "s|/usr/local/bin/cuzk|$build/cuzk|g" "$unit" > "$tmp/cuzk.service"
out=$(cd "$tmp" && systemd-analyze verify "$tmp/cuzk.service" 2>&1) || { echo "FAIL: systemd-analyze verify: $out"; fail=1; }
[ -z "$out" ] || { echo "FAIL: systemd-analyze verify is not silent: $out"; fail=1; }
# and a unit with an unknown key is noticed by the same check (the check can fail)
sed 's|^PrivateTmp=yes|PrivateTmp=yes\nBindPathz=/x|' "$tmp/cuzk.service" > "$tmp/bad.service"
bad=$(cd "$tmp" && systemd-analyze verify "$tmp/bad.service" 2>&1 || true)
[ -n "$bad" ] || { echo "FAIL: a misspelt key went unnoticed"; fail=1; }
# the standard parameter cache: bound into the private /var/tmp
if grep -q '^PrivateTmp=yes' "$unit"; then
    grep -Eq '^Bind(ReadOnly)?Paths=.*-?/var/tmp/filecoin-proof-parameters' "$unit" ||
        { echo "FAIL: PrivateTmp=yes hides /var/tmp/filecoin-proof-parameters and no BindPaths= brings it in"; fail=1; }
fi
# paths the sandbox names must not be required to exist ("-" prefix), or a
# host using only the standard cache cannot start the unit
for key in ReadOnlyPaths ReadWritePaths BindPaths BindReadOnlyPaths; do
    for p in $(sed -n "s/^$key=//p" "$unit"); do
        case $p in -*) ;; *) echo "FAIL: $key=$p without '-' (the unit fails where it is absent)"; fail=1;; esac
    done
done
# the command line the unit runs is one the binary takes
exec_line=$(sed -n 's/^ExecStart=//p' "$tmp/cuzk.service")
cfg=$(echo "$exec_line" | sed -n 's/.*--config \([^ ]*\).*/\1/p')
[ -n "$cfg" ] || { echo "FAIL: ExecStart names no --config: $exec_line"; fail=1; }
printf '[daemon]\nlisten = "unix://%s/s.sock"\n' "$tmp" > "$tmp/cuzk.toml"
# shellcheck disable=SC2086
check_out=$(${exec_line/$cfg/$tmp/cuzk.toml} --check-config 2>&1) || { echo "FAIL: $exec_line --check-config: $check_out"; fail=1; }
echo "$check_out"
[ $fail = 0 ] && echo "unit_file: ok"
exit $fail
