# Sourced by shell tests of a command's output: expect runs a command and
# checks its exit status and a pattern in what it printed; failures set fail=1.
#   expect <what> <want-rc> <grep -E pattern> -- cmd...
fail=0
expect() {
    local what=$1 want=$2 pat=$3; shift 4
    local out rc=0
    out=$("$@" 2>&1) || rc=$?
    if [ "$rc" != "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
        echo "FAIL: $what (rc $rc, want $want; pattern '$pat')"; echo "$out" | tail -5; fail=1
    else
        echo "ok: $what"
    fi
}
