#!/usr/bin/env bash
# A real PostgreSQL for the cluster tests, from Debian's package: a server
# initialized into a scratch directory, listening on a unix socket only,
# stopped and removed at the end. As root the server runs as `nobody`
# (postgres refuses root).
#   tests/pg.sh start DIR   start a server in DIR (prints CUZK_PG_HOST=DIR)
#   tests/pg.sh stop DIR    stop it and remove DIR
#   tests/pg.sh restart DIR stop it (fast: connections are cut) and start it again
#   tests/pg.sh run CMD...  CMD with CUZK_PG set to the conninfo of a fresh
#                           database: on the server at $CUZK_PG_HOST when set
#                           (.ci/run starts one), else on a private server;
#                           the database (or server) is dropped afterwards
# Exit 77 (skip) only when the PostgreSQL server binaries are not installed.
set -euo pipefail

bindir() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
    done
    command -v initdb >/dev/null && command -v pg_ctl >/dev/null && { dirname "$(command -v initdb)"; return 0; }
    return 1
}

as_db_user() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
    else
        "$@"
    fi
}

start() {
    local dir=$1 bin
    bin=$(bindir) || { echo "SKIP: PostgreSQL server binaries not found (apt-get install postgresql)"; exit 77; }
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown nobody:nogroup "$dir"
    as_db_user "$bin/initdb" -D "$dir/data" -U cuzk --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    as_db_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off -c synchronous_commit=off -c max_connections=300" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "CUZK_PG_HOST=$dir"
}

stop() {
    local dir=$1 bin
    bin=$(bindir) || return 0
    [ -d "$dir/data" ] && as_db_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}

restart() {
    local dir=$1 bin
    bin=$(bindir) || exit 77
    as_db_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null ||
        { cat "$dir/server.log" >&2; exit 1; }
}

run() {
    local own="" db rc=0 bin
    bin=$(bindir) || { echo "SKIP: PostgreSQL server binaries not found (apt-get install postgresql)"; exit 77; }
    if [ -z "${CUZK_PG_HOST:-}" ]; then
        own=$(mktemp -d /tmp/cuzk-pg.XXXXXX)
        start "$own" >/dev/null
        export CUZK_PG_HOST=$own
    fi
    db="cuzk_test_$$_$RANDOM$RANDOM"
    "$bin/createdb" -h "$CUZK_PG_HOST" -U cuzk "$db"
    export CUZK_PG="host=$CUZK_PG_HOST user=cuzk dbname=$db"
    export CUZK_PG_BIN=$bin
    "$@" || rc=$?
    "$bin/dropdb" -h "$CUZK_PG_HOST" -U cuzk --if-exists "$db" 2>/dev/null || true
    [ -n "$own" ] && stop "$own"
    return $rc
}

case "${1:-}" in
start) start "${2:?directory}" ;;
stop) stop "${2:?directory}" ;;
restart) restart "${2:?directory}" ;;
run) shift; run "$@" ;;
*) echo "usage: $0 start DIR | stop DIR | restart DIR | run CMD..." >&2; exit 2 ;;
esac
