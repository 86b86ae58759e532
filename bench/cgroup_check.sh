#!/bin/bash
# Where the daemon's memory budget comes from under a real memory cgroup, on a
# machine without Python's grpcio (the device machine; tests/daemon_cgroup_test.py
# is the full test where grpcio exists). Makes a group with a limit of CGROUP_LIMIT
# (default 6G) in the first hierarchy with the memory controller (cgroup v2's
# memory.max first, else v1's memory.limit_in_bytes), starts `cuzk daemon
# --test-kinds` in it, reads its "memory budget" line, stops it, removes the
# group. Prints PASS when the budget came from the group's limit, SKIP (exit 77)
# when no memory group can be made here, FAIL otherwise.
# Usage: bash bench/cgroup_check.sh [CUZK_BINARY=build/cuzk]
set -u
CUZK=${1:-build/cuzk}
CGROUP_LIMIT=${CGROUP_LIMIT:-6G}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
skip() { echo "cgroup_check: SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root"
G= KIND= FILE=
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    # v2: a child of the root group, the memory controller enabled for the root's children
    KIND=v2 G=/sys/fs/cgroup/cuzk-check-$$ FILE=memory.max
    echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
    mkdir "$G" 2>/dev/null || skip "cannot make $G"
elif [ -d /sys/fs/cgroup/memory ]; then
    KIND=v1 G=/sys/fs/cgroup/memory/cuzk-check-$$ FILE=memory.limit_in_bytes
    mkdir "$G" 2>/dev/null || skip "cannot make $G"
else
    skip "no memory cgroup hierarchy (cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null))"
fi
cleanup_group() { rmdir "$G" 2>/dev/null; }
if ! echo "$CGROUP_LIMIT" > "$G/$FILE" 2>/dev/null; then
    cleanup_group
    skip "cannot set $G/$FILE"
fi
printf '[srs]\nparam_cache = "%s"\n' "$T/params" > "$T/c.toml"
# the daemon joins the group before it starts (exec keeps the pid)
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" daemon --config "$3" --listen "unix://$4" --test-kinds' \
    sh "$G" "$CUZK" "$T/c.toml" "$T/d.sock" > "$T/log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "memory budget" "$T/log" 2>/dev/null && break; sleep 0.1; done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
sleep 0.2
cleanup_group
line=$(grep -m1 "memory budget" "$T/log")
echo "cgroup $KIND, $FILE = $CGROUP_LIMIT: ${line:-no memory budget line}"
case "$line" in
*"cgroup "*"/cuzk-check-$$"*) echo "cgroup_check: PASS"; exit 0 ;;
*) echo "cgroup_check: FAIL"; sed -n 1,20p "$T/log"; exit 1 ;;
esac
