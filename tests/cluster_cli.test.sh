#!/usr/bin/env bash
# `cuzk cluster` against a real PostgreSQL (tests/pg.sh): status and job on a
# database no daemon has used refuse and make nothing; the load generator's
# simulated hosts complete every partition exactly once (it exits 1
# otherwise), with --payload as its help writes it (9K); status and job show
# what the database holds, bad input is refused clearly; the whole mix
# again under snapshot isolation with injected serialization failures.
# Skips (77) without the daemon's build or the PostgreSQL server binaries.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
"$build/cuzk" cluster --help >/dev/null 2>&1 || { echo "SKIP: cuzk built without the daemon (libpq, gRPC)"; exit 77; }
if [ -z "${CUZK_PG:-}" ]; then exec bash "$here/pg.sh" run bash "$0" "$@"; fi
fail=0
check() { if eval "$2"; then echo "ok  : $1"; else echo "FAIL: $1"; fail=1; fi; }
# status and job only read: on a database no daemon has used they say so
# and leave it as it was (no schema made)
err=$("$build/cuzk" cluster status --conninfo "$CUZK_PG" 2>&1) && rc=0 || rc=$?
check "status on an empty database: refused, nothing made" \
    "[ $rc = 1 ] && grep -q 'no schema' <<<\"\$err\" && [ \"\$(\"$CUZK_PG_BIN/psql\" -X -At -d \"$CUZK_PG\" -c \"SELECT count(*) FROM pg_tables WHERE tablename LIKE 'cuzk%'\")\" = 0 ]"
err=$("$build/cuzk" cluster job x --conninfo "$CUZK_PG" 2>&1) && rc=0 || rc=$?
check "job on an empty database: refused, nothing made" \
    "[ $rc = 1 ] && [ \"\$(\"$CUZK_PG_BIN/psql\" -X -At -d \"$CUZK_PG\" -c \"SELECT count(*) FROM pg_tables WHERE tablename LIKE 'cuzk%'\")\" = 0 ]"
hosts=$((2 + RANDOM % 5)) jobs=$((10 + RANDOM % 30)) parts=$((1 + RANDOM % 10)) batch=$((1 + RANDOM % 3))
echo "cluster_cli: $hosts hosts, $jobs jobs x $parts partitions, claims of $batch"
out=$("$build/cuzk" cluster load --conninfo "$CUZK_PG" --hosts $hosts --jobs $jobs --partitions $parts --batch $batch) &&
    rc=0 || rc=$?
echo "$out"
check "load: every job complete" "[ $rc = 0 ] && grep -q 'jobs complete: $jobs of $jobs' <<<\"\$out\""
check "load: $((jobs * parts)) completions" "grep -q '$((jobs * parts)) completions' <<<\"\$out\""
st=$("$build/cuzk" cluster status --conninfo "$CUZK_PG")
check "status: the simulated hosts, stopped" "[ \$(grep -o '\"stopped\" : true' <<<\"\$st\" | wc -l) = $hosts ]"
check "status: $jobs jobs done in the last hour, nothing waiting" \
    "grep -q '\"done\" : $jobs' <<<\"\$st\" && grep -q '\"pending\" : 0, \"claimed\" : 0' <<<\"\$st\""
id=$("$CUZK_PG_BIN/psql" -X -At -d "$CUZK_PG" -c "SELECT id FROM cuzk_jobs ORDER BY random() LIMIT 1")
tab=$("$build/cuzk" cluster job "$id" --conninfo "$CUZK_PG")
head -n 4 <<<"$tab" # no pipe: under pipefail, echo could die of SIGPIPE once head has its lines
check "job: $parts partitions done and verified" "[ \$(grep -cE '^[0-9]+ +done +1 +0 .* yes$' <<<\"\$tab\") = $parts ]"
check "job: an unknown id is an error" "! \"$build/cuzk\" cluster job no-such-job --conninfo \"$CUZK_PG\" 2>/dev/null"
err=$("$build/cuzk" cluster status --conninfo "$CUZK_PG password=s3cret-$RANDOM" 2>&1) && rc=0 || rc=$?
check "a password in the conninfo is refused without echoing it" "[ $rc != 0 ] && grep -q password_file <<<\"\$err\" && ! grep -q s3cret <<<\"\$err\""
err=$("$build/cuzk" cluster load --conninfo "$CUZK_PG" --hosts 0 2>&1) && rc=0 || rc=$?
check "--hosts 0 is refused" "[ $rc = 2 ] && grep -q -- '--hosts' <<<\"\$err\""
# --payload as --help and docs/scale.md write it: K, M, G alone are decimal
kb=$((1 + RANDOM % 9))
out=$("$build/cuzk" cluster load --conninfo "$CUZK_PG" --hosts 2 --jobs 3 --partitions 2 --payload ${kb}K 2>&1) &&
    rc=0 || rc=$?
check "load --payload ${kb}K: jobs of $((kb * 1000)) bytes, fetched" \
    "[ $rc = 0 ] && grep -q 'jobs of $((kb * 1000)) bytes' <<<\"\$out\" && grep -q 'payloads fetched' <<<\"\$out\""
err=$("$build/cuzk" cluster load --conninfo "$CUZK_PG" --payload 5X 2>&1) && rc=0 || rc=$?
check "--payload 5X is refused" "[ $rc = 2 ] && grep -q -- '--payload' <<<\"\$err\""
# the whole statement mix: short lease so every timer fires in a few seconds;
# every call kind issued statements, none failed (it exits 1 otherwise)
pd=$(mktemp -d)
printf '[cluster]\nconninfo = "%s"\nlease = "2s"\n' "$CUZK_PG" >"$pd/cuzk.toml"
mhosts=$((2 + RANDOM % 3))
out=$("$build/cuzk" cluster load --mix --config "$pd/cuzk.toml" --hosts $mhosts --seconds 4 --partitions 3 \
    --prove-ms 100 --status-per-s 2 --payload-dir "$pd" 2>&1) && rc=0 || rc=$?
echo "$out"
check "load --mix ($mhosts hosts): no call failed" "[ $rc = 0 ]"
for call in claim payload complete heartbeat housekeeping 'files gc' submit 'await poll' getstatus; do
    check "load --mix: $call issued statements" \
        "awk -v c='$call' 'substr(\$0, 3, 13) == sprintf(\"%-13s\", c) { split(substr(\$0, 16), f, \" +\"); \
             if (f[3] + 0 > 0) ok = 1 } END { exit !ok }' <<<\"\$out\""
done
check "load --mix: partitions completed" "grep -qE 'partitions completed: [0-9.]*[1-9]' <<<\"\$out\""
# the same mix under snapshot isolation (REPEATABLE READ: YugabyteDB's
# default, where a statement meeting a concurrent change fails with 40001)
# and with 5% of the daemons' writes failing with an injected 40001
# (statement triggers, counted in a sequence a rollback does not undo):
# every call retries its way through, none fails
"$CUZK_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$CUZK_PG" >/dev/null <<'SQL'
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L', current_database(),
                           'repeatable read'); END $$;
CREATE SEQUENCE cuzk_test_chaos_n;
CREATE FUNCTION cuzk_test_chaos() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN
  IF current_setting('application_name') = 'cuzk' AND random() < 0.05 THEN
    PERFORM nextval('cuzk_test_chaos_n');
    RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = '40001';
  END IF; RETURN NULL; END $f$;
DO $$ DECLARE t text; BEGIN
  FOREACH t IN ARRAY ARRAY['cuzk_jobs', 'cuzk_partitions', 'cuzk_hosts', 'cuzk_payloads'] LOOP
    EXECUTE format('CREATE TRIGGER cuzk_test_chaos BEFORE INSERT OR UPDATE OR DELETE ON %I '
                   || 'FOR EACH STATEMENT EXECUTE FUNCTION cuzk_test_chaos()', t);
  END LOOP; END $$;
SQL
out=$("$build/cuzk" cluster load --mix --config "$pd/cuzk.toml" --hosts $mhosts --seconds 4 --partitions 3 \
    --prove-ms 100 --status-per-s 2 --payload-dir "$pd" 2>&1) && rc=0 || rc=$?
injected=$("$CUZK_PG_BIN/psql" -X -At -d "$CUZK_PG" \
    -c "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM cuzk_test_chaos_n")
echo "$out" | tail -n 3
check "load --mix at REPEATABLE READ with $injected injected serialization failures: no call failed" \
    "[ $rc = 0 ] && [ \"$injected\" -gt 0 ]"
check "load --mix at REPEATABLE READ: partitions completed" "grep -qE 'partitions completed: [0-9.]*[1-9]' <<<\"\$out\""
err=$("$build/cuzk" cluster load --mix --conninfo "$CUZK_PG" --load 0 2>&1) && rc=0 || rc=$?
check "--load 0 is refused" "[ $rc = 2 ] && grep -q -- '--load' <<<\"\$err\""
rm -rf "$pd"
exit $fail
