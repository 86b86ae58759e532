/*
 * The cluster's status JSON (cuzk_cluster_status_json, `cuzk cluster
 * status`, the daemon's /status) against a real PostgreSQL (tests/pg.sh)
 * holding a seeded history: thousands of finished jobs of every end state,
 * spread over a day, under a live queue of submitted, claimed, expired and
 * cancelled work. Every field is checked against what the test made
 * (counted here in C, not by the database's view of itself), every
 * documented key is there and no other, and the statement reads the live
 * rows only: the rows it read from the job and partition tables
 * (pg_stat_user_tables, pg_stat_user_indexes) stay far below the history.
 * So do the rows each of the calls a daemon makes over and over reads: a
 * submit (its queue position), a claim, an expiry and retention pass,
 * GetStatus's view.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/cluster/cluster.h"
#include "cuzk/util/error.h"
#include "pg_test.h"
#include "testutil.h"

static const char *conninfo;
static cuzk_rng rng;
static PGconn *sql;

static const char *const end_states[4] = {"done", "failed", "cancelled", "timed_out"};

/* What the test made, counted as it made it. */
typedef struct expect {
    long recent[4];        /* finished within the last hour, by end_states */
    long history_parts;    /* partition rows of finished jobs */
    long active, pending, claimed, expirations;
    long pending_kind[2];  /* "ka", "kb" */
    long held[2];          /* hosts "st-a", "st-b" */
    long files, bytes, unneeded;
} expect;

static void sql_ok(const char *q) { pg_test_ok(sql, q); }

static long sql_long(const char *q) { return pg_test_long(sql, q); }

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* n finished jobs of p partitions: job g ended in end_states[(g*a + b) % 4]
 * (a odd: every state),
 * the first `recent` of them within the last 50 minutes, the others 70
 * minutes to a day ago (no job near the hour's edge). */
static void seed_history(expect *x, long n, long p, long recent)
{
    unsigned a = 1 + 2 * (unsigned)(cuzk_rng_u64(&rng) % 48), b = (unsigned)(cuzk_rng_u64(&rng) % 4);
    char q[2048];
    snprintf(q, sizeof q,
             "INSERT INTO cuzk_jobs (id, kind, priority, num_partitions, digest, payload, state, parts_done, "
             " submitted_by, submitted_at, finished_at) "
             "SELECT 'hist-' || g, 'ka', 2, %ld, sha256(('hist-' || g)::bytea), ''::bytea, "
             " (ARRAY['done','failed','cancelled','timed_out'])[1 + (g * %u + %u) %% 4], 0, 'history', "
             " now() - interval '1 day', now() - CASE WHEN g < %ld THEN interval '1 second' * (60 + g * 2880 / %ld) "
             "  ELSE interval '70 minutes' + interval '1 second' * ((g - %ld) * 80000 / %ld) END "
             "FROM generate_series(0, %ld) g",
             p, a, b, recent, recent, recent, n - recent + 1, n - 1);
    sql_ok(q);
    snprintf(q, sizeof q,
             "INSERT INTO cuzk_partitions (job_seq, part, job_id, kind, priority, state, result, finished_at) "
             "SELECT j.seq, k, j.id, j.kind, j.priority, CASE WHEN j.state = 'done' THEN 'done' ELSE 'cancelled' END, "
             " CASE WHEN j.state = 'done' THEN decode(repeat('5a', 192), 'hex') END, j.finished_at "
             "FROM cuzk_jobs j CROSS JOIN generate_series(0, %ld) k WHERE j.id LIKE 'hist-%%'",
             p - 1);
    sql_ok(q);
    for (long g = 0; g < recent; g++) x->recent[(g * a + b) % 4]++;
    x->history_parts = n * p;
    fprintf(stderr, "history: %ld finished jobs of %ld partitions, %ld in the last hour\n", n, p, recent);
}

/* Payload file records: refs random in 0..2, sizes random. */
static void seed_payloads(expect *x)
{
    long n = 1 + (long)(cuzk_rng_u64(&rng) % 20);
    for (long i = 0; i < n; i++) {
        long refs = (long)(cuzk_rng_u64(&rng) % 3), bytes = 1 + (long)(cuzk_rng_u64(&rng) % 100000000);
        char q[256];
        snprintf(q, sizeof q, "INSERT INTO cuzk_payloads (name, refs, bytes) VALUES ('f%ld', %ld, %ld)", i, refs,
                 bytes);
        sql_ok(q);
        x->files++, x->bytes += bytes, x->unneeded += refs == 0;
    }
}

static cuzk_cluster_db *open_db(const char *host, uint32_t lease_ms)
{
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = host, .lease_ms = lease_ms};
    cuzk_cluster_db *db = NULL;
    char err[512];
    CHECK_MSG(cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_OK, "open %s: %s", host, err);
    return db;
}

/* Claims up to want partitions as db's host; counts them by kind. */
static long claim_some(cuzk_cluster_db *db, long want, long by_kind[2])
{
    cuzk_cluster_lease ls[64];
    size_t n = 0;
    char err[512];
    CHECK_MSG(cuzk_cluster_claim(db, "ka,kb", (size_t)want, ls, &n, err, sizeof err) == CUZK_OK, "%s", err);
    for (size_t i = 0; i < n; i++) by_kind[strcmp(ls[i].kind, "ka") != 0]++;
    return (long)n;
}

/* Jobs submitted, some partitions claimed by two hosts, a short-leased
 * host's claims run out (expirations), one job cancelled. */
static void live_queue(expect *x, cuzk_cluster_db *a, cuzk_cluster_db *b, cuzk_cluster_db *dead)
{
    char err[512], id[64];
    long jobs = 3 + (long)(cuzk_rng_u64(&rng) % 6), per_kind[2] = {0, 0}, taken[2] = {0, 0};
    for (long j = 0; j <= jobs; j++) {
        uint32_t parts = 1 + (uint32_t)(cuzk_rng_u64(&rng) % 6);
        int k = (int)(cuzk_rng_u64(&rng) % 2);
        uint8_t pl[8] = {(uint8_t)j};
        snprintf(id, sizeof id, "live-%ld", j);
        cuzk_cluster_job job = {.id = id, .kind = k ? "kb" : "ka", .priority = CUZK_PRIORITY_NORMAL,
                                .num_partitions = parts, .payload = pl, .payload_len = sizeof pl};
        bool dup;
        CHECK_MSG(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK, "%s", err);
        if (j < jobs) per_kind[k] += parts, x->active++; /* the last is cancelled below */
        if (j == jobs) x->recent[2]++;
    }
    bool was;
    CHECK(cuzk_cluster_cancel(a, id, &was, err, sizeof err) == CUZK_OK);
    long total = per_kind[0] + per_kind[1];
    /* the dead host's claims run out and go back to the queue */
    long lost[2] = {0, 0};
    x->expirations = claim_some(dead, 1 + (long)(cuzk_rng_u64(&rng) % (unsigned long)total), lost);
    sleep_ms(300);
    unsigned expired = 0;
    CHECK(cuzk_cluster_expire(a, &expired, NULL, err, sizeof err) == CUZK_OK && expired == (unsigned)x->expirations);
    x->held[0] = claim_some(a, (long)(cuzk_rng_u64(&rng) % (unsigned long)(total / 2 + 1)), taken);
    x->held[1] = claim_some(b, (long)(cuzk_rng_u64(&rng) % (unsigned long)(total / 2 + 1)), taken);
    x->claimed = x->held[0] + x->held[1];
    x->pending = total - x->claimed;
    for (int k = 0; k < 2; k++) x->pending_kind[k] = per_kind[k] - taken[k];
    fprintf(stderr, "live: %ld jobs, %ld partitions (%ld claimed, %ld lease expirations)\n", x->active, total,
            x->claimed, x->expirations);
}

/* obj's keys are exactly those named (a stable, complete document). */
static bool keys_are(json_t *obj, const char *const *names, size_t n)
{
    if (!json_is_object(obj) || json_object_size(obj) != n) return false;
    for (size_t i = 0; i < n; i++)
        if (!json_object_get(obj, names[i])) return false;
    return true;
}

static long num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

#define CHECK_NUM(obj, key, want)                                                                        \
    CHECK_MSG(num(obj, key) == (want), "%s: %ld, want %ld", key, num(obj, key), (long)(want))

static void check_hosts(json_t *hosts, const expect *x)
{
    static const char *const hkeys[] = {"name", "slots", "busy", "kinds", "held", "claims", "completed",
                                        "discarded", "expired", "stopped", "heartbeat_age_s"};
    static const char *const names[] = {"st-a", "st-b", "st-dead"};
    CHECK_MSG(json_is_array(hosts) && json_array_size(hosts) == 3, "hosts: %zu", json_array_size(hosts));
    for (size_t i = 0; i < json_array_size(hosts) && i < 3; i++) {
        json_t *h = json_array_get(hosts, i);
        CHECK_MSG(keys_are(h, hkeys, 11), "host %zu's keys", i);
        CHECK_MSG(json_is_string(json_object_get(h, "name")) &&
                      !strcmp(json_string_value(json_object_get(h, "name")), names[i]),
                  "host %zu is not %s (by name)", i, names[i]);
        CHECK_NUM(h, "held", i < 2 ? x->held[i] : 0);
    }
}

static void check_status(const char *js, const expect *x)
{
    json_error_t je;
    json_t *root = json_loads(js, 0, &je);
    CHECK_MSG(root, "status JSON: %s: %s", je.text, js);
    if (!root) return;
    static const char *const top[] = {"schema", "hosts", "partitions", "jobs", "payload_files", "queue"};
    static const char *const pkeys[] = {"pending", "claimed", "expirations"};
    static const char *const jkeys[] = {"active", "finished_last_hour"};
    static const char *const fkeys[] = {"files", "bytes", "unneeded"};
    json_t *parts = json_object_get(root, "partitions"), *jobs = json_object_get(root, "jobs");
    json_t *fin = json_object_get(jobs, "finished_last_hour"), *files = json_object_get(root, "payload_files");
    json_t *queue = json_object_get(root, "queue");
    CHECK_MSG(keys_are(root, top, 6) && keys_are(parts, pkeys, 3) && keys_are(jobs, jkeys, 2) &&
                  keys_are(fin, end_states, 4) && keys_are(files, fkeys, 3),
              "the documented keys, and no others: %s", js);
    CHECK_NUM(root, "schema", CUZK_CLUSTER_SCHEMA);
    CHECK_NUM(parts, "pending", x->pending);
    CHECK_NUM(parts, "claimed", x->claimed);
    CHECK_NUM(parts, "expirations", x->expirations);
    CHECK_NUM(jobs, "active", x->active);
    for (int s = 0; s < 4; s++) CHECK_NUM(fin, end_states[s], x->recent[s]);
    CHECK_NUM(files, "files", x->files);
    CHECK_NUM(files, "bytes", x->bytes);
    CHECK_NUM(files, "unneeded", x->unneeded);
    for (int k = 0; k < 2; k++)
        if (x->pending_kind[k]) CHECK_NUM(queue, k ? "kb" : "ka", x->pending_kind[k]);
    CHECK_MSG(json_is_object(queue) && json_object_size(queue) == (size_t)(!!x->pending_kind[0] + !!x->pending_kind[1]),
              "queue: only kinds with pending partitions");
    check_hosts(json_object_get(root, "hosts"), x);
    json_decref(root);
}

/* Rows read from the job and partition tables so far: sequential scans'
 * rows, and index entries read. */
static long rows_read(void)
{
    sql_ok("SELECT pg_stat_clear_snapshot()");
    return sql_long("SELECT (SELECT coalesce(sum(seq_tup_read), 0) FROM pg_stat_user_tables "
                    "  WHERE relname IN ('cuzk_jobs', 'cuzk_partitions')) + "
                    " (SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes "
                    "  WHERE relname IN ('cuzk_jobs', 'cuzk_partitions'))");
}

/* One of a daemon's calls, on a connection of its own. */
typedef int (*db_call)(cuzk_cluster_db *db, char *err, size_t errlen);

/* The rows call read from the job and partition tables: on a connection
 * of its own, whose statistics reach the server's counters when it ends,
 * from before to after. */
static long rows_of(const char *what, db_call call)
{
    long before = rows_read();
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = "st-call", .retention_ms = 48 * 3600000ull,
                           .schema_check_only = true};
    cuzk_cluster_db *db = NULL;
    char err[512];
    CHECK_MSG(cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_OK, "%s", err);
    CHECK_MSG(db && call(db, err, sizeof err) == CUZK_OK, "%s: %s", what, err);
    cuzk_cluster_db_close(db);
    long after = before;
    for (int i = 0; i < 200 && after == before; i++) { /* the ended backend's counters arrive */
        sleep_ms(50);
        after = rows_read();
    }
    return after - before;
}

static char *status_js;
static int call_status(cuzk_cluster_db *db, char *err, size_t errlen)
{
    return cuzk_cluster_status_json(db, &status_js, err, errlen);
}

static char *status_counted(long *read)
{
    status_js = NULL;
    *read = rows_of("the status", call_status);
    return status_js;
}

/* The calls a daemon makes over and over (docs/scale.md's mix). */
static int call_submit(cuzk_cluster_db *db, char *err, size_t errlen)
{
    char id[64];
    snprintf(id, sizeof id, "call-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    uint8_t pl[8] = {1, 2, 3};
    cuzk_cluster_job job = {.id = id, .kind = "ka", .priority = CUZK_PRIORITY_NORMAL, .num_partitions = 2,
                            .payload = pl, .payload_len = sizeof pl};
    bool dup;
    uint32_t pos = 0;
    return cuzk_cluster_submit(db, &job, &dup, &pos, err, errlen); /* the queue position counted */
}

static int call_claim(cuzk_cluster_db *db, char *err, size_t errlen)
{
    cuzk_cluster_lease l[2];
    size_t n = 0;
    int rc = cuzk_cluster_host_join(db, 2, "ka,kb", err, errlen);
    if (rc == CUZK_OK) rc = cuzk_cluster_claim(db, "ka,kb", 2, l, &n, err, errlen);
    if (rc == CUZK_OK) rc = cuzk_cluster_host_leave(db, err, errlen); /* the claims back */
    return rc;
}

static int call_housekeeping(cuzk_cluster_db *db, char *err, size_t errlen)
{
    int rc = cuzk_cluster_expire(db, NULL, NULL, err, errlen);
    return rc == CUZK_OK ? cuzk_cluster_prune(db, NULL, err, errlen) : rc; /* 48 h: nothing past it */
}

static int call_view(cuzk_cluster_db *db, char *err, size_t errlen)
{
    cuzk_cluster_view v;
    int rc = cuzk_cluster_view_get(db, &v, err, errlen);
    if (rc == CUZK_OK) cuzk_cluster_view_free(&v);
    return rc;
}

/* Each of them reads the live rows (a few index scans of them), never the
 * history: a submit's queue position, a claim (its join and leave too),
 * an expiry and retention pass, GetStatus's view. */
static void calls_read_live_rows(const expect *x)
{
    static const struct {
        const char *what;
        db_call call;
    } calls[] = {{"a submit", call_submit}, {"a claim", call_claim}, {"housekeeping", call_housekeeping},
                 {"GetStatus's view", call_view}};
    long live = x->pending + x->claimed + x->active;
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        long read = rows_of(calls[i].what, calls[i].call), bound = 10 * (live + 8) + 100;
        fprintf(stderr, "%s: %ld rows read (%ld live rows; a %ld-partition history)\n", calls[i].what, read, live,
                x->history_parts);
        CHECK_MSG(read < bound, "%s read %ld rows (%ld live rows; a %ld-partition history)", calls[i].what, read,
                  live, x->history_parts);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    conninfo = pg_test_conninfo(argv);
    tu_init(&rng, "test_cluster_status");
    sql = pg_test_sql(conninfo);
    expect x = {0};
    cuzk_cluster_db *a = open_db("st-a", 0), *b = open_db("st-b", 0), *dead = open_db("st-dead", 100);
    char err[512];
    CHECK(a && b && dead);
    if (!a || !b || !dead) return tu_finish("test_cluster_status");
    CHECK(cuzk_cluster_host_join(a, 4, "ka,kb", err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_host_join(b, 4, "ka,kb", err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_host_join(dead, 4, "ka,kb", err, sizeof err) == CUZK_OK);
    long n = 3000 + (long)(cuzk_rng_u64(&rng) % 3000), p = 4 + (long)(cuzk_rng_u64(&rng) % 7);
    seed_history(&x, n, p, n / 4 + (long)(cuzk_rng_u64(&rng) % (unsigned long)(n / 4)));
    sql_ok("ANALYZE");
    long read = 0;
    char *js = status_counted(&read); /* nothing live yet: every key there, at zero */
    check_status(js ? js : "", &x);
    free(js);
    seed_payloads(&x);
    live_queue(&x, a, b, dead);
    sql_ok("ANALYZE");
    /* no other backend's statistics arrive while the status is counted:
     * the hosts' connections end (their claims stay), this one's go now */
    cuzk_cluster_db_close(a);
    cuzk_cluster_db_close(b);
    cuzk_cluster_db_close(dead);
    sql_ok("SELECT pg_stat_force_next_flush()");
    sql_ok("SELECT 1");
    sleep_ms(500);
    js = status_counted(&read);
    fprintf(stderr, "status: %ld rows read for a history of %ld partitions\n%s\n", read, x.history_parts,
            js ? js : "(none)");
    check_status(js ? js : "", &x);
    free(js);
    /* the last hour's jobs and the live rows (a few index scans of them),
     * never the history */
    long recent = x.recent[0] + x.recent[1] + x.recent[2] + x.recent[3];
    long bound = recent + 10 * (x.pending + x.claimed + x.active) + 100;
    CHECK_MSG(read > 0 && read < bound, "the status read %ld rows (%ld jobs of the last hour, %ld live rows; a "
              "%ld-partition history)", read, recent, x.pending + x.claimed + x.active, x.history_parts);
    calls_read_live_rows(&x);
    PQfinish(sql);
    return tu_finish("test_cluster_status");
}
