#!/usr/bin/env bash
# Seeds a cluster database (docs/cluster.md) with the history months of
# running leave: N finished jobs (default 500000) of P partitions each
# (default 10, a 32 GiB PoRep), every partition with its 192-byte result,
# finished over the past H hours (default 12; 24 for [cluster] retention's
# default horizon: the oldest then age out while a load runs, as a day of
# production keeps them going), 1 in 100 failed, the rest done; then
# ANALYZE. docs/scale.md measures the queue against such a database:
#   scripts/cluster_history.sh CONNINFO [N] [P] [H]
#   cuzk cluster load --mix --conninfo CONNINFO --hosts 150
# The schema must exist (any daemon, or `cuzk cluster load`, makes it).
# $PSQL: the psql to use (default: psql on PATH).
set -euo pipefail
ci=${1:?usage: $0 CONNINFO [JOBS] [PARTITIONS] [HOURS]}
n=${2:-500000}
p=${3:-10}
h=${4:-12}
[[ $n =~ ^[0-9]+$ && $p =~ ^[0-9]+$ && $h =~ ^[0-9]+$ && $n -ge 1 && $p -ge 1 && $p -le 1000 && $h -ge 1 ]] ||
    { echo "$0: JOBS, PARTITIONS and HOURS are positive integers (PARTITIONS at most 1000)" >&2; exit 2; }
tag=$(date +%s%N)
"${PSQL:-psql}" -X -q -v ON_ERROR_STOP=1 -d "$ci" <<SQL
INSERT INTO cuzk_jobs (id, kind, priority, num_partitions, digest, payload, state, error, parts_done,
                       submitted_by, submitted_at, finished_at)
SELECT 'history-$tag-' || g, 'porep-32g', 2, $p, sha256(('history-$tag-' || g)::bytea), ''::bytea,
       CASE WHEN g % 100 = 0 THEN 'failed' ELSE 'done' END,
       CASE WHEN g % 100 = 0 THEN 'partition 0: synthesis failed' ELSE '' END,
       CASE WHEN g % 100 = 0 THEN 0 ELSE $p END,
       'history', now() - interval '$h hours' * (g::float / $n) - interval '5 minutes',
       now() - interval '$h hours' * (g::float / $n)
FROM generate_series(1, $n) g;
INSERT INTO cuzk_partitions (job_seq, part, job_id, kind, priority, state, claimed_by, attempt, result,
                             verified, proved_by, prove_ms, finished_at)
SELECT j.seq, k, j.id, j.kind, j.priority, CASE WHEN j.state = 'done' THEN 'done' ELSE 'cancelled' END,
       'history-host', 1, CASE WHEN j.state = 'done' THEN decode(repeat('5a', 192), 'hex') END,
       j.state = 'done', CASE WHEN j.state = 'done' THEN 'history-host' END, 1500, j.finished_at
FROM cuzk_jobs j CROSS JOIN generate_series(0, $p - 1) k WHERE j.id LIKE 'history-$tag-%';
ANALYZE;
SQL
echo "seeded $n finished jobs of $p partitions"
