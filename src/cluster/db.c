/*
 * The cluster's queue in PostgreSQL (cuzk/cluster/cluster.h): the schema and its
 * migrations, and every statement the daemons run. Times are the database's
 * (now()), never a host's clock. Statements that must hold together run in
 * one transaction, retried from the start when the database reports a
 * serialization failure, a deadlock or (for concurrent first inserts) a
 * unique violation: YugabyteDB raises the first freely.
 */
#define _GNU_SOURCE
#include "cuzk/cluster/cluster.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libpq-fe.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/cluster_internal.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/util/sha256.h"

struct cuzk_cluster_db {
    pq_conn *conn;
    char host[CUZK_CLUSTER_NAME_MAX + 1];
    int64_t incarnation;
    char inc[24];                /* incarnation as a text parameter */
    uint32_t lease_ms, max_attempts;
    char lease[24], max_att[12]; /* as text parameters */
    uint32_t statement_ms;       /* the server's statement_timeout */
    char retention[24];          /* ms; "0": finished jobs are kept */
    double deadline;             /* cuzk_now() past which statements give up; 0: none but statement_ms */
    char where[256];
    char *payload_dir;           /* NULL: payloads in the job rows only */
    size_t payload_threshold;
    uint64_t statements;         /* round trips made */
    bool in_tx;                  /* between BEGIN and COMMIT or ROLLBACK */
};

/* How long past statement_timeout a statement is waited for: the server
 * ends a slow one itself at statement_timeout and says so; one that has
 * not answered by then is stopped or cut off. */
#define STATEMENT_GRACE_S 2.0

/* The deadline of a statement starting now. */
static double statement_deadline(const cuzk_cluster_db *db)
{
    double own = cuzk_now() + db->statement_ms / 1000.0 + STATEMENT_GRACE_S;
    return db->deadline > 0 && db->deadline < own ? db->deadline : own;
}


/* ---- statements ---------------------------------------------------------- */

/* A statement's outcome: ok, or why not; retry: worth running the
 * transaction again (serialization failure, deadlock, unique violation). */
typedef struct qres {
    PGresult *r;
    bool ok, retry;
} qres;

/* One statement with text parameters (NULL: SQL NULL) except those whose
 * lens[i] > 0, which are binary (bytea). binary_out: results in binary
 * (bytea columns read raw). A broken connection is made again first; the
 * statement gives up at statement_deadline. */
static qres run_once(cuzk_cluster_db *db, const char *sql, int n, const char *const *vals, const int *lens,
                bool binary_out, char *err, size_t errlen)
{
    qres q = {0};
    int fmts[16] = {0};
    for (int i = 0; i < n && i < 16; i++) fmts[i] = lens && lens[i] > 0;
    db->statements++;
    char why[400];
    pq_params pp = {.n = n, .vals = vals, .lens = lens, .fmts = fmts, .binary_out = binary_out ? 1 : 0};
    q.r = pq_exec(db->conn, sql, &pp, statement_deadline(db), why, sizeof why);
    if (!q.r) {
        cuzk_errf(err, errlen, 0, "database %s: %s", db->where, why);
        return q;
    }
    ExecStatusType st = PQresultStatus(q.r);
    q.ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!q.ok) {
        const char *code = PQresultErrorField(q.r, PG_DIAG_SQLSTATE);
        q.retry = code && (!strcmp(code, "40001") || !strcmp(code, "40P01") || !strcmp(code, "23505"));
        const char *msg = PQresultErrorMessage(q.r);
        if (!msg || !*msg) msg = "error without a message";
        cuzk_errf(err, errlen, 0, "database %s: %.*s", db->where, (int)strcspn(msg, "\n"), msg);
        PQclear(q.r);
        q.r = NULL;
    }
    return q;
}

/* A pause before a transaction is tried again: 10-40 ms, longer each time. */
static void backoff(int attempt)
{
    struct timespec ts = {0, (long)(10 + (rand() % 10) * (attempt + 1)) * 1000000L};
    nanosleep(&ts, NULL);
}

#define TX_TRIES 8

/* run_once, and a statement outside a transaction (its own transaction)
 * run again on a serialization failure or deadlock, as a transaction is:
 * under snapshot isolation (YugabyteDB, or PostgreSQL at REPEATABLE READ)
 * a claim, a heartbeat or an expiry meeting a concurrent change fails
 * with 40001 instead of waiting. Inside a transaction the caller retries
 * the whole transaction. */
static qres run(cuzk_cluster_db *db, const char *sql, int n, const char *const *vals, const int *lens,
                bool binary_out, char *err, size_t errlen)
{
    qres q = run_once(db, sql, n, vals, lens, binary_out, err, errlen);
    for (int t = 0; !q.ok && q.retry && !db->in_tx && t + 1 < TX_TRIES; t++) {
        backoff(t);
        q = run_once(db, sql, n, vals, lens, binary_out, err, errlen);
    }
    return q;
}

/* A statement whose rows do not matter. */
static bool exec0(cuzk_cluster_db *db, const char *sql, int n, const char *const *vals, bool *retry, char *err,
                  size_t errlen)
{
    qres q = run(db, sql, n, vals, NULL, false, err, errlen);
    if (retry) *retry = q.retry;
    PQclear(q.r);
    return q.ok;
}

static void rollback(cuzk_cluster_db *db)
{
    db->in_tx = false;
    /* a connection dropped or broken has no transaction left to end */
    if (!pq_usable(db->conn)) return;
    db->statements++;
    char why[400];
    PQclear(pq_exec(db->conn, "ROLLBACK", NULL, statement_deadline(db), why, sizeof why));
}

static bool begin(cuzk_cluster_db *db, char *err, size_t errlen)
{
    db->in_tx = exec0(db, "BEGIN", 0, NULL, NULL, err, errlen);
    return db->in_tx;
}

/* A COMMIT that fails ends its transaction: never run again alone. */
static bool commit(cuzk_cluster_db *db, bool *retry, char *err, size_t errlen)
{
    bool ok = exec0(db, "COMMIT", 0, NULL, retry, err, errlen);
    db->in_tx = false;
    return ok;
}
/* seconds a connection may take to be made (the conninfo may say otherwise) */
#define CLUSTER_CONNECT_TIMEOUT_S "10"

static int64_t i64(PGresult *r, int row, int col) { return strtoll(PQgetvalue(r, row, col), NULL, 10); }

/* ---- the schema ---------------------------------------------------------- */

/* Migration i brings the schema from version i to i + 1. Never change what
 * a released one makes: add the next. Each statement may run again (IF
 * [NOT] EXISTS): on PostgreSQL a migration is one transaction, but where
 * DDL commits by itself (YugabyteDB) one cut short leaves part of it done,
 * and the next daemon takes it up. */
static const char *const migration_1[] = {
    "CREATE SEQUENCE IF NOT EXISTS cuzk_job_seq",
    "CREATE TABLE IF NOT EXISTS cuzk_jobs ("
    " id text PRIMARY KEY,"
    " seq bigint NOT NULL UNIQUE DEFAULT nextval('cuzk_job_seq'),"
    " kind text NOT NULL,"
    " priority smallint NOT NULL,"
    " num_partitions integer NOT NULL,"
    " digest bytea NOT NULL," /* SHA-256 of kind and payload: idempotency */
    " payload bytea NOT NULL,"
    " state text NOT NULL DEFAULT 'active'," /* active, done, failed, cancelled, timed_out */
    " error text NOT NULL DEFAULT '',"
    " parts_done integer NOT NULL DEFAULT 0,"
    " submitted_by text NOT NULL,"
    " submitted_at timestamptz NOT NULL DEFAULT now(),"
    " deadline timestamptz,"
    " finished_at timestamptz)",
    "CREATE TABLE IF NOT EXISTS cuzk_partitions ("
    " job_seq bigint NOT NULL,"
    " part integer NOT NULL,"
    " job_id text NOT NULL,"
    " kind text NOT NULL,"
    " priority smallint NOT NULL,"
    " state text NOT NULL DEFAULT 'pending'," /* pending, claimed, done, failed, cancelled */
    " claimed_by text,"
    " lease_until timestamptz,"
    " attempt integer NOT NULL DEFAULT 0,"
    " expirations integer NOT NULL DEFAULT 0,"
    " result bytea,"
    " verified boolean NOT NULL DEFAULT false,"
    " proved_by text,"
    " prove_ms bigint,"
    " finished_at timestamptz,"
    " PRIMARY KEY (job_seq, part))",
    "CREATE INDEX IF NOT EXISTS cuzk_partitions_queue ON cuzk_partitions (state, priority DESC, job_seq, part)",
    "CREATE INDEX IF NOT EXISTS cuzk_partitions_holder ON cuzk_partitions (claimed_by)",
    "CREATE TABLE IF NOT EXISTS cuzk_hosts ("
    " name text PRIMARY KEY,"
    " incarnation bigint NOT NULL,"
    " slots integer NOT NULL DEFAULT 0,"
    " busy integer NOT NULL DEFAULT 0,"
    " kinds text NOT NULL DEFAULT '',"
    " claims bigint NOT NULL DEFAULT 0,"
    " completed bigint NOT NULL DEFAULT 0,"
    " discarded bigint NOT NULL DEFAULT 0,"
    " expired bigint NOT NULL DEFAULT 0,"
    " started_at timestamptz NOT NULL DEFAULT now(),"
    " heartbeat_at timestamptz NOT NULL DEFAULT now(),"
    " stopped_at timestamptz)",
    NULL,
};
/* 2: payloads on shared storage (cuzk_cluster_opts.payload_dir): the job
 * names its file and digest instead of holding the bytes; cuzk_payloads
 * counts the active jobs that need each file, so the last one to finish
 * lets it be removed (a file is shared by jobs with the same payload). */
static const char *const migration_2[] = {
    "ALTER TABLE cuzk_jobs ADD COLUMN IF NOT EXISTS payload_file text",   /* NULL: the payload is in the row */
    "ALTER TABLE cuzk_jobs ADD COLUMN IF NOT EXISTS payload_sha256 bytea", /* of the payload alone */
    "ALTER TABLE cuzk_jobs ADD COLUMN IF NOT EXISTS payload_len bigint",
    "CREATE TABLE IF NOT EXISTS cuzk_payloads ("
    " name text PRIMARY KEY,"
    " refs integer NOT NULL," /* active jobs naming it; 0: to be removed */
    " bytes bigint NOT NULL,"
    " created_at timestamptz NOT NULL DEFAULT now())",
    NULL,
};
/* 3: queries that touch only live rows, whatever the history: partial
 * indexes of the active jobs (a submit's queue position by kind and
 * priority, deadlines, the status) and of the pending and claimed
 * partitions (claims, expiry, heartbeats, hosts' holdings) replace the
 * partition indexes over every row; finished jobs by age for retention;
 * claims carry the incarnation of the host that made them. Each statement
 * may run again (IF [NOT] EXISTS): a migration cut short is taken up. */
static const char *const migration_3[] = {
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_live ON cuzk_jobs (kind, priority DESC, seq) WHERE state = 'active'",
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_deadline ON cuzk_jobs (deadline) "
    " WHERE state = 'active' AND deadline IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_finished ON cuzk_jobs (finished_at) WHERE state <> 'active'",
    "DROP INDEX IF EXISTS cuzk_partitions_queue",
    "CREATE INDEX IF NOT EXISTS cuzk_partitions_live ON cuzk_partitions (state, priority DESC, job_seq, part) "
    " WHERE state IN ('pending', 'claimed')",
    "DROP INDEX IF EXISTS cuzk_partitions_holder",
    "CREATE INDEX IF NOT EXISTS cuzk_partitions_held ON cuzk_partitions (claimed_by) WHERE state = 'claimed'",
    "ALTER TABLE cuzk_partitions ADD COLUMN IF NOT EXISTS claimed_inc bigint",
    NULL,
};
/* 4: the claim's order by submission time: partitions carry their job's
 * (queued_at; the live ones get it from their job), and the live indexes
 * of jobs and partitions order by it before seq, which is not submission
 * order across connections where sequences are cached (YugabyteDB). */
static const char *const migration_4[] = {
    "ALTER TABLE cuzk_partitions ADD COLUMN IF NOT EXISTS queued_at timestamptz NOT NULL DEFAULT now()",
    "UPDATE cuzk_partitions p SET queued_at = j.submitted_at FROM cuzk_jobs j "
    " WHERE j.seq = p.job_seq AND p.state IN ('pending', 'claimed')",
    "DROP INDEX IF EXISTS cuzk_partitions_live",
    "CREATE INDEX IF NOT EXISTS cuzk_partitions_waiting ON cuzk_partitions "
    " (state, priority DESC, queued_at, job_seq, part) WHERE state IN ('pending', 'claimed')",
    "DROP INDEX IF EXISTS cuzk_jobs_live",
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_waiting ON cuzk_jobs (kind, priority DESC, submitted_at, seq) "
    " WHERE state = 'active'",
    NULL,
};
/* 5: every index that serves an order or a range names its first
 * column's order: YugabyteDB shards an index by the hash of its first
 * column unless the column says ASC or DESC, and a hash-sharded index
 * serves neither the claim's and the queue position's ORDER BY ... LIMIT
 * nor the deadline and retention ranges. PostgreSQL's B-trees read the
 * same either way. New names: IF NOT EXISTS would keep the old ones. */
static const char *const migration_5[] = {
    "CREATE INDEX IF NOT EXISTS cuzk_partitions_by_queue ON cuzk_partitions "
    " (state ASC, priority DESC, queued_at ASC, job_seq ASC, part ASC) WHERE state IN ('pending', 'claimed')",
    "DROP INDEX IF EXISTS cuzk_partitions_waiting",
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_by_queue ON cuzk_jobs (kind ASC, priority DESC, submitted_at ASC, seq ASC) "
    " WHERE state = 'active'",
    "DROP INDEX IF EXISTS cuzk_jobs_waiting",
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_by_deadline ON cuzk_jobs (deadline ASC) "
    " WHERE state = 'active' AND deadline IS NOT NULL",
    "DROP INDEX IF EXISTS cuzk_jobs_deadline",
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_by_end ON cuzk_jobs (finished_at ASC) WHERE state <> 'active'",
    "DROP INDEX IF EXISTS cuzk_jobs_finished",
    NULL,
};
static const char *const *const migrations[CUZK_CLUSTER_SCHEMA] = {migration_1, migration_2, migration_3,
                                                                  migration_4, migration_5};

/* One attempt at bringing the schema up to date; *retry when another
 * daemon raced us to it. */
static int migrate_once(cuzk_cluster_db *db, bool *retry, char *err, size_t errlen)
{
    /* two daemons creating it at once: one of them gets "already exists"
     * (its type or its index) and tries again, finding it there */
    *retry = true;
    if (!exec0(db, "CREATE TABLE IF NOT EXISTS cuzk_meta (k text PRIMARY KEY, v bigint NOT NULL)", 0, NULL, NULL,
               err, errlen))
        return CUZK_ERR_IO;
    *retry = false;
    if (!begin(db, err, errlen)) return CUZK_ERR_IO;
    int rc = CUZK_ERR_IO;
    if (!exec0(db, "INSERT INTO cuzk_meta VALUES ('schema', 0) ON CONFLICT (k) DO NOTHING", 0, NULL, retry, err,
               errlen))
        goto out;
    /* the version row's lock serializes daemons migrating at once */
    qres q = run(db, "SELECT v FROM cuzk_meta WHERE k = 'schema' FOR UPDATE", 0, NULL, NULL, false, err, errlen);
    if (!q.ok) {
        *retry = q.retry;
        goto out;
    }
    int64_t v = i64(q.r, 0, 0);
    PQclear(q.r);
    if (v > CUZK_CLUSTER_SCHEMA) {
        rc = cuzk_errf(err, errlen, CUZK_ERR_UNSUPPORTED,
                  "database %s: schema version %lld is newer than this daemon's (%d): upgrade the daemon", db->where,
                  (long long)v, CUZK_CLUSTER_SCHEMA);
        goto out;
    }
    for (int64_t m = v; m < CUZK_CLUSTER_SCHEMA; m++) {
        for (const char *const *s = migrations[m]; *s; s++)
            if (!exec0(db, *s, 0, NULL, retry, err, errlen)) goto out;
        char ver[24];
        snprintf(ver, sizeof ver, "%lld", (long long)(m + 1));
        const char *p[1] = {ver};
        if (!exec0(db, "UPDATE cuzk_meta SET v = $1 WHERE k = 'schema'", 1, p, retry, err, errlen)) goto out;
    }
    if (!commit(db, retry, err, errlen)) return CUZK_ERR_IO;
    return CUZK_OK;
out:
    rollback(db);
    return rc;
}

/* The schema brought up to date, retried while other daemons race us. */
static int migrate(cuzk_cluster_db *db, char *err, size_t errlen)
{
    int rc = CUZK_ERR_IO;
    for (int t = 0; t < TX_TRIES; t++) {
        bool retry = false;
        rc = migrate_once(db, &retry, err, errlen);
        if (rc == CUZK_OK || !retry) break;
        backoff(t);
    }
    return rc;
}

/* A connection that does not migrate (cuzk_cluster_opts.schema_check_only)
 * changes nothing: one statement checks that the schema is the one this
 * build reads. */
static int schema_check(cuzk_cluster_db *db, char *err, size_t errlen)
{
    qres q = run(db, "SELECT v FROM cuzk_meta WHERE k = 'schema'", 0, NULL, NULL, false, err, errlen);
    if (!q.ok) {
        if (strstr(err, "does not exist"))
            return cuzk_errf(err, errlen, CUZK_ERR_UNSUPPORTED, "database %s holds no cuzk cluster (no schema): "
                             "the first daemon to connect creates it", db->where);
        return CUZK_ERR_IO;
    }
    int64_t v = PQntuples(q.r) == 1 ? i64(q.r, 0, 0) : 0;
    PQclear(q.r);
    if (v == CUZK_CLUSTER_SCHEMA) return CUZK_OK;
    return cuzk_errf(err, errlen, CUZK_ERR_UNSUPPORTED,
                     "database %s: schema version %lld, this build reads %d: %s", db->where, (long long)v,
                     CUZK_CLUSTER_SCHEMA, v > CUZK_CLUSTER_SCHEMA ? "upgrade cuzk"
                                                                 : "a daemon of this build migrates it when it starts");
}

/* ---- connection ---------------------------------------------------------- */

/* The conninfo's connect_timeout in seconds (CLUSTER_CONNECT_TIMEOUT_S
 * unless it says otherwise); CUZK_ERR_INVALID_ARG for a conninfo libpq
 * cannot parse or one that carries a password. */
static int conninfo_check(const char *conninfo, double *connect_s, char *err, size_t errlen)
{
    char *perr = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo, &perr);
    if (!opts) {
        /* libpq's message quotes no value it parsed */
        int rc = cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "cluster.conninfo: %s",
                      perr ? perr : "out of memory");
        PQfreemem(perr);
        return rc;
    }
    bool has_password = false;
    *connect_s = atof(CLUSTER_CONNECT_TIMEOUT_S);
    for (PQconninfoOption *p = opts; p->keyword; p++) {
        if (!strcmp(p->keyword, "password") && p->val && p->val[0]) has_password = true;
        /* libpq's rule: below 2 s counts as 2 s; 0 waits for ever (bounded here by the statement bound) */
        if (!strcmp(p->keyword, "connect_timeout") && p->val && p->val[0])
            *connect_s = atoi(p->val) <= 0 ? 3600 : atoi(p->val) < 2 ? 2 : atoi(p->val);
    }
    PQconninfoFree(opts);
    if (has_password)
        return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG,
                    "cluster.conninfo carries a password: put it in cluster.password_file or $PGPASSWORD "
                    "(the configuration is shown in logs and checks)");
    return CUZK_OK;
}

int cuzk_cluster_conninfo_check(const char *conninfo, char *err, size_t errlen)
{
    double connect_s;
    return conninfo_check(conninfo ? conninfo : "", &connect_s, err, errlen);
}

/* The handle's settings from o (before connecting). */
static cuzk_cluster_db *db_new(const cuzk_cluster_opts *o)
{
    cuzk_cluster_db *db = calloc(1, sizeof *db);
    if (!db) return NULL;
    snprintf(db->host, sizeof db->host, "%s", o->host);
    db->lease_ms = o->lease_ms ? o->lease_ms : 30000;
    db->max_attempts = o->max_attempts ? o->max_attempts : 5;
    db->statement_ms = o->statement_timeout_ms ? o->statement_timeout_ms : 10000;
    snprintf(db->lease, sizeof db->lease, "%u", db->lease_ms);
    snprintf(db->max_att, sizeof db->max_att, "%u", db->max_attempts);
    snprintf(db->retention, sizeof db->retention, "%llu", (unsigned long long)o->retention_ms);
    db->payload_threshold = o->payload_threshold;
    if (o->payload_dir && o->payload_dir[0] && !(db->payload_dir = strdup(o->payload_dir))) {
        free(db);
        return NULL;
    }
    return db;
}

/* Connects db with bounds on a database that stops answering, before
 * dbname so that the conninfo's own values win (libpq keeps the last of a
 * repeated key): on TCP, keepalives find a peer that vanished from an idle
 * connection and tcp_user_timeout one that stops acknowledging what was
 * sent; connecting (the connection's SET statements included) gives up after
 * connect_s (or at db->deadline, the caller's, if sooner) and every statement at statement_timeout on the server (pq.c
 * bounds the waits for one that is stopped). Notices ("relation already exists, skipping") are quieted. */
static int db_connect(cuzk_cluster_db *db, const cuzk_cluster_opts *o, double connect_s, char *err, size_t errlen)
{
    const char *keys[] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                          "keepalives_count", "tcp_user_timeout", "dbname", "application_name", "password", NULL};
    const char *vals[] = {CLUSTER_CONNECT_TIMEOUT_S, "1", "30", "10", "3", "30000", o->conninfo, "cuzk",
                          o->password, NULL};
    if (!o->password) keys[8] = NULL;
    char setup[160], why[400];
    snprintf(setup, sizeof setup, "SET client_min_messages = warning; SET statement_timeout = %u", db->statement_ms);
    if (pq_connect(keys, vals, setup, connect_s, db->deadline, &db->conn, why, sizeof why) != CUZK_OK)
        return cuzk_errf(err, errlen, CUZK_ERR_IO, "cluster: cannot connect to the database: %s", why);
    PGconn *c = pq_raw(db->conn);
    const char *h = PQhost(c), *port = PQport(c);
    snprintf(db->where, sizeof db->where, "%s%s%s/%s", h ? h : "?", port && port[0] ? ":" : "", port ? port : "",
             PQdb(c));
    return CUZK_OK;
}

int cuzk_cluster_db_open(const cuzk_cluster_opts *o, cuzk_cluster_db **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!o || !o->conninfo || !o->host || !o->host[0] || strlen(o->host) > CUZK_CLUSTER_NAME_MAX)
        return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "cluster: a conninfo and a host name (1-%d bytes) are needed",
                    CUZK_CLUSTER_NAME_MAX);
    double connect_s = 0;
    int rc = conninfo_check(o->conninfo, &connect_s, err, errlen);
    if (rc != CUZK_OK) return rc;
    cuzk_cluster_db *db = db_new(o);
    if (!db) return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    /* the caller's bound covers the schema's statements as well */
    cuzk_cluster_db_deadline(db, o->open_within_ms);
    rc = db_connect(db, o, connect_s, err, errlen);
    if (rc == CUZK_OK) rc = o->schema_check_only ? schema_check(db, err, errlen) : migrate(db, err, errlen);
    cuzk_cluster_db_deadline(db, 0);
    if (rc != CUZK_OK) {
        cuzk_cluster_db_close(db);
        return rc;
    }
    *out = db;
    return CUZK_OK;
}

void cuzk_cluster_db_close(cuzk_cluster_db *db)
{
    if (!db) return;
    pq_close(db->conn);
    free(db->payload_dir);
    free(db);
}

const char *cuzk_cluster_db_where(cuzk_cluster_db *db) { return db->where; }
uint64_t cuzk_cluster_db_statements(const cuzk_cluster_db *db) { return db->statements; }

void cuzk_cluster_db_deadline(cuzk_cluster_db *db, uint32_t ms) { db->deadline = ms ? cuzk_now() + ms / 1000.0 : 0; }

/* ---- hosts ---------------------------------------------------------------- */

/* Claims under this host's name go back to the queue: those of previous
 * incarnations (ours: false, at a join) or this incarnation's own (at a
 * clean stop). A daemon that lost its name to another keeps neither the
 * other's claims nor its own: each names the incarnation that made it. */
static bool release_claims(cuzk_cluster_db *db, bool ours, char *err, size_t errlen)
{
    const char *p[3] = {db->host, db->inc, ours ? "t" : "f"};
    return exec0(db,
                 "UPDATE cuzk_partitions SET state = 'pending', claimed_by = NULL, claimed_inc = NULL, "
                 " lease_until = NULL "
                 "WHERE claimed_by = $1 AND state = 'claimed' "
                 " AND (claimed_inc IS NOT DISTINCT FROM $2::bigint) = $3::boolean",
                 3, p, NULL, err, errlen);
}

/* A random positive bigint from the OS. */
static int random_i64(int64_t *out, char *err, size_t errlen)
{
    uint8_t rnd[8];
    FILE *f = fopen("/dev/urandom", "rb");
    bool got = f && fread(rnd, 1, 8, f) == 8;
    if (f) fclose(f);
    if (!got) return cuzk_errf(err, errlen, CUZK_ERR_IO, "cluster: /dev/urandom: %s", strerror(errno));
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = u << 8 | rnd[i];
    *out = (int64_t)(u >> 1);
    return CUZK_OK;
}

int cuzk_cluster_host_join(cuzk_cluster_db *db, unsigned slots, const char *kinds, char *err, size_t errlen)
{
    int64_t inc;
    if (random_i64(&inc, err, errlen) != CUZK_OK) return CUZK_ERR_IO;
    char incs[24], sl[16];
    snprintf(incs, sizeof incs, "%lld", (long long)inc);
    snprintf(sl, sizeof sl, "%u", slots);
    const char *p[5] = {db->host, incs, sl, kinds ? kinds : "", db->lease};
    /* the name is free when nobody holds it, its holder stopped, or its
     * holder's heartbeat is older than a lease */
    qres q = run(db,
                 "INSERT INTO cuzk_hosts (name, incarnation, slots, kinds) VALUES ($1, $2, $3, $4) "
                 "ON CONFLICT (name) DO UPDATE SET incarnation = EXCLUDED.incarnation, slots = EXCLUDED.slots, "
                 " kinds = EXCLUDED.kinds, busy = 0, claims = 0, completed = 0, discarded = 0, expired = 0, "
                 " started_at = now(), heartbeat_at = now(), stopped_at = NULL "
                 "WHERE cuzk_hosts.stopped_at IS NOT NULL "
                 " OR cuzk_hosts.heartbeat_at < now() - $5::bigint * interval '1 millisecond' "
                 "RETURNING 1",
                 5, p, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    bool joined = PQntuples(q.r) == 1;
    PQclear(q.r);
    if (!joined) {
        q = run(db, "SELECT extract(epoch FROM now() - heartbeat_at) FROM cuzk_hosts WHERE name = $1", 1, p, NULL,
                false, err, errlen);
        double ago = q.ok && PQntuples(q.r) ? strtod(PQgetvalue(q.r, 0, 0), NULL) : 0;
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG,
                    "cluster: host name %s is in use by a running daemon (heartbeat %.1f s ago); give this one "
                    "another cluster.host, or wait one lease after the other stops",
                    db->host, ago);
    }
    db->incarnation = inc;
    snprintf(db->inc, sizeof db->inc, "%lld", (long long)inc);
    return release_claims(db, false, err, errlen) ? CUZK_OK : CUZK_ERR_IO;
}

int cuzk_cluster_heartbeat(cuzk_cluster_db *db, const cuzk_cluster_host_stats *st, const cuzk_cluster_lease *held,
                           size_t n, bool *lost, char *err, size_t errlen)
{
    char incs[24], v[6][24];
    snprintf(incs, sizeof incs, "%lld", (long long)db->incarnation);
    uint64_t vals[6] = {st->slots, st->busy, st->claims, st->completed, st->discarded, st->expired};
    for (int i = 0; i < 6; i++) snprintf(v[i], sizeof v[i], "%llu", (unsigned long long)vals[i]);
    const char *p[8] = {db->host, incs, v[0], v[1], v[2], v[3], v[4], v[5]};
    qres q = run(db,
                 "UPDATE cuzk_hosts SET heartbeat_at = now(), slots = $3, busy = $4, claims = $5, completed = $6, "
                 " discarded = $7, expired = $8 WHERE name = $1 AND incarnation = $2 AND stopped_at IS NULL "
                 "RETURNING 1",
                 8, p, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    bool mine = PQntuples(q.r) == 1;
    PQclear(q.r);
    if (!mine)
        return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "cluster: host name %s was taken by another daemon", db->host);
    /* only the claims listed (a claim the host gave up must run out), and a
     * lease that ran out is not revived: the partition may be another's now */
    size_t cap = 3 + 24 * (n + 1);
    char *arr[3] = {malloc(cap), malloc(cap), malloc(cap)};
    if (!arr[0] || !arr[1] || !arr[2]) {
        free(arr[0]), free(arr[1]), free(arr[2]);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    size_t len[3] = {1, 1, 1};
    for (int k = 0; k < 3; k++) arr[k][0] = '{';
    for (size_t i = 0; i < n; i++) {
        len[0] += (size_t)snprintf(arr[0] + len[0], cap - len[0], "%s%lld", i ? "," : "", (long long)held[i].job_seq);
        len[1] += (size_t)snprintf(arr[1] + len[1], cap - len[1], "%s%u", i ? "," : "", held[i].partition);
        len[2] += (size_t)snprintf(arr[2] + len[2], cap - len[2], "%s%u", i ? "," : "", held[i].attempt);
    }
    for (int k = 0; k < 3; k++) snprintf(arr[k] + len[k], cap - len[k], "}");
    const char *p2[6] = {db->host, db->lease, arr[0], arr[1], arr[2], db->inc};
    q = run(db,
            "UPDATE cuzk_partitions SET lease_until = now() + $2::bigint * interval '1 millisecond' "
            "WHERE claimed_by = $1 AND claimed_inc = $6 AND state = 'claimed' AND lease_until >= now() "
            " AND (job_seq, part, attempt) IN (SELECT * FROM unnest($3::bigint[], $4::integer[], $5::integer[])) "
            "RETURNING job_seq, part, attempt",
            6, p2, NULL, false, err, errlen);
    free(arr[0]), free(arr[1]), free(arr[2]);
    if (!q.ok) return CUZK_ERR_IO;
    for (size_t i = 0; i < n; i++) {
        lost[i] = true;
        for (int r = 0; r < PQntuples(q.r); r++)
            if (i64(q.r, r, 0) == held[i].job_seq && (uint32_t)i64(q.r, r, 1) == held[i].partition &&
                (uint32_t)i64(q.r, r, 2) == held[i].attempt)
                lost[i] = false;
    }
    PQclear(q.r);
    return CUZK_OK;
}

int cuzk_cluster_host_leave(cuzk_cluster_db *db, char *err, size_t errlen)
{
    if (!release_claims(db, true, err, errlen)) return CUZK_ERR_IO;
    const char *p[2] = {db->host, db->inc};
    return exec0(db, "UPDATE cuzk_hosts SET stopped_at = now(), busy = 0 WHERE name = $1 AND incarnation = $2", 2, p,
                 NULL, err, errlen)
               ? CUZK_OK
               : CUZK_ERR_IO;
}

/* ---- the queue ------------------------------------------------------------ */

static bool digest_of(uint8_t out[32], const char *kind, const uint8_t *payload, size_t len)
{
    static const uint8_t none[1];
    /* the NUL separates kind from payload */
    const void *part[2] = {kind, payload ? payload : none};
    const size_t lens[2] = {strlen(kind) + 1, len};
    return cuzk_sha256_hash_parts(out, part, lens, 2) == CUZK_OK;
}

/* Ends an active job (failed, cancelled, timed_out) with a message; its
 * unfinished partitions are dropped. Inside the caller's transaction. */
static bool job_end(cuzk_cluster_db *db, const char *seq, const char *state, const char *message, bool *ended,
                    bool *retry, char *err, size_t errlen)
{
    const char *p[3] = {seq, state, message};
    /* a job that ends no longer needs its payload, in the row or in a file */
    qres q = run(db,
                 "WITH j AS (UPDATE cuzk_jobs SET state = $2, error = $3, finished_at = now(), payload = '' "
                 " WHERE seq = $1 AND state = 'active' RETURNING payload_file), "
                 "f AS (UPDATE cuzk_payloads SET refs = refs - 1 WHERE name IN (SELECT payload_file FROM j)) "
                 "SELECT count(*) FROM j",
                 3, p, NULL, false, err, errlen);
    if (!q.ok) {
        *retry = q.retry;
        return false;
    }
    *ended = i64(q.r, 0, 0) == 1;
    PQclear(q.r);
    return !*ended || exec0(db,
                            "UPDATE cuzk_partitions SET state = 'cancelled', lease_until = NULL "
                            "WHERE job_seq = $1 AND state IN ('pending', 'claimed')",
                            1, p, retry, err, errlen);
}

/* A payload that goes to payload_dir: its name there and its digest. */
typedef struct payload_ref {
    char name[PAYLOAD_NAME_LEN + 1];
    uint8_t sha[32];
} payload_ref;

/* One attempt at a submit (see cuzk_cluster_submit); f: the payload goes
 * to a file. */
static int submit_once(cuzk_cluster_db *db, const cuzk_cluster_job *j, const uint8_t dg[32], const payload_ref *f,
                       bool *duplicate, uint32_t *pos, bool *retry, char *err, size_t errlen)
{
    *retry = false;
    if (!begin(db, err, errlen)) return CUZK_ERR_IO;
    int rc = CUZK_ERR_IO;
    const char *p1[1] = {j->id};
    qres q = run(db, "SELECT seq, kind, digest, state FROM cuzk_jobs WHERE id = $1 FOR UPDATE", 1, p1, NULL, true,
                 err, errlen);
    if (!q.ok) {
        *retry = q.retry;
        goto out;
    }
    if (PQntuples(q.r) == 1) {
        char seq[24];
        uint64_t be;
        memcpy(&be, PQgetvalue(q.r, 0, 0), 8);
        snprintf(seq, sizeof seq, "%lld", (long long)be64toh(be));
        bool same = !strcmp(PQgetvalue(q.r, 0, 1), j->kind) && PQgetlength(q.r, 0, 2) == 32 &&
                    !memcmp(PQgetvalue(q.r, 0, 2), dg, 32);
        char state[16];
        snprintf(state, sizeof state, "%s", PQgetvalue(q.r, 0, 3));
        PQclear(q.r);
        if (!strcmp(state, "active") || !strcmp(state, "done")) {
            if (!same) {
                rc = cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG,
                          "request_id %s already names a job with another kind or other inputs", j->id);
                goto out;
            }
            *duplicate = true;
            if (!commit(db, retry, err, errlen)) return CUZK_ERR_IO;
            if (pos) *pos = 0;
            return CUZK_OK;
        }
        /* a retry of a job that failed, was cancelled or timed out */
        const char *p2[1] = {seq};
        if (!exec0(db, "DELETE FROM cuzk_partitions WHERE job_seq = $1", 1, p2, retry, err, errlen) ||
            !exec0(db, "DELETE FROM cuzk_jobs WHERE seq = $1", 1, p2, retry, err, errlen))
            goto out;
    } else {
        PQclear(q.r);
    }
    char prio[8], np[16], to[16], plen[24];
    snprintf(prio, sizeof prio, "%d", j->priority);
    snprintf(np, sizeof np, "%u", j->num_partitions);
    snprintf(to, sizeof to, "%u", j->timeout_ms);
    snprintf(plen, sizeof plen, "%zu", j->payload_len);
    if (f) {
        /* the file's record, row-locked until we commit: a host removing
         * the file (no active job left naming it) either did so before we
         * count ourselves in, and we write it anew, or waits for us and
         * then sees this job need it */
        const char *pf[2] = {f->name, plen};
        if (!exec0(db,
                   "INSERT INTO cuzk_payloads (name, refs, bytes) VALUES ($1, 1, $2) "
                   "ON CONFLICT (name) DO UPDATE SET refs = cuzk_payloads.refs + 1",
                   2, pf, retry, err, errlen))
            goto out;
        int wrc = payload_write(db->payload_dir, f->name, j->payload, j->payload_len, f->sha, err, errlen);
        if (wrc != CUZK_OK) {
            rc = wrc;
            goto out;
        }
    }
    const char *p3[11] = {j->id, j->kind, prio, np, (const char *)dg, f ? "" : (const char *)j->payload, db->host,
                          to, f ? f->name : NULL, f ? (const char *)f->sha : NULL, f ? plen : NULL};
    int lens[11] = {0, 0, 0, 0, 32, f ? 0 : (int)j->payload_len, 0, 0, 0, 32, 0};
    /* a zero-length payload is still binary: lens 0 would send it as text "" (the same bytes) */
    q = run(db,
            "INSERT INTO cuzk_jobs (id, kind, priority, num_partitions, digest, payload, submitted_by, deadline, "
            " payload_file, payload_sha256, payload_len) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, "
            " CASE WHEN $8::bigint > 0 THEN now() + $8::bigint * interval '1 millisecond' END, $9, $10, $11) "
            "RETURNING seq",
            11, p3, lens, false, err, errlen);
    if (!q.ok) {
        *retry = q.retry;
        goto out;
    }
    char seq[24];
    snprintf(seq, sizeof seq, "%s", PQgetvalue(q.r, 0, 0));
    PQclear(q.r);
    const char *p4[5] = {seq, j->id, j->kind, prio, np};
    if (!exec0(db,
               "INSERT INTO cuzk_partitions (job_seq, part, job_id, kind, priority) "
               "SELECT $1, g, $2, $3, $4 FROM generate_series(0, $5::integer - 1) g",
               5, p4, retry, err, errlen))
        goto out;
    /* the active jobs of its kind that hosts take first: higher priority, or
     * the same and submitted earlier (the claim's order) */
    q = run(db,
            "SELECT count(*) FROM cuzk_jobs j, (SELECT submitted_at FROM cuzk_jobs WHERE seq = $1) me "
            "WHERE j.state = 'active' AND j.kind = $2 AND (j.priority > $3::smallint "
            " OR (j.priority = $3::smallint AND (j.submitted_at, j.seq) < (me.submitted_at, $1::bigint)))",
            3, (const char *[3]){seq, j->kind, prio}, NULL, false, err, errlen);
    if (!q.ok) goto out;
    if (pos) *pos = (uint32_t)i64(q.r, 0, 0);
    PQclear(q.r);
    *duplicate = false;
    if (!commit(db, retry, err, errlen)) return CUZK_ERR_IO;
    return CUZK_OK;
out:
    rollback(db);
    return rc;
}

int cuzk_cluster_submit(cuzk_cluster_db *db, const cuzk_cluster_job *j, bool *duplicate, uint32_t *queue_position,
                        char *err, size_t errlen)
{
    bool dup = false;
    if (!j->id || !j->id[0] || strlen(j->id) > CUZK_CLUSTER_ID_MAX || !j->kind || !j->kind[0] ||
        strlen(j->kind) > CUZK_CLUSTER_NAME_MAX || !j->num_partitions || j->payload_len > INT32_MAX / 2)
        return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "cluster: bad job (id, kind, partitions or payload size)");
    uint8_t dg[32];
    static const uint8_t none[1];
    if (!digest_of(dg, j->kind, j->payload ? j->payload : none, j->payload_len))
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "cluster: out of memory hashing the payload");
    cuzk_cluster_job jj = *j;
    if (!jj.payload) jj.payload = none;
    payload_ref f, *fp = NULL;
    if (db->payload_dir && jj.payload_len > db->payload_threshold) {
        if (cuzk_sha256_hash(f.sha, jj.payload, jj.payload_len) != CUZK_OK)
            return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "cluster: out of memory hashing the payload");
        payload_name(f.sha, f.name);
        fp = &f;
    }
    int rc = CUZK_ERR_IO;
    for (int t = 0; t < TX_TRIES; t++) {
        bool retry = false;
        rc = submit_once(db, &jj, dg, fp, &dup, queue_position, &retry, err, errlen);
        if (rc == CUZK_OK || !retry) break;
        backoff(t);
    }
    if (duplicate) *duplicate = dup;
    return rc;
}

int cuzk_cluster_claim(cuzk_cluster_db *db, const char *kinds, size_t max, cuzk_cluster_lease *out, size_t *n,
                       char *err, size_t errlen)
{
    *n = 0;
    if (!max) return CUZK_OK;
    /* kinds as an array literal: names are [a-z0-9-] (the engine's) */
    size_t kl = strlen(kinds ? kinds : "");
    char *arr = malloc(kl + 3);
    if (!arr) return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    snprintf(arr, kl + 3, "{%s}", kinds ? kinds : "");
    for (const char *c = kinds; c && *c; c++)
        if (!(*c == ',' || *c == '-' || *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) {
            free(arr);
            return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "cluster: bad kind list %s", kinds);
        }
    char lim[24];
    snprintf(lim, sizeof lim, "%zu", max);
    const char *p[5] = {db->host, arr, lim, db->lease, db->inc};
    /* Only while the host's row is still this incarnation's: a daemon that
     * lost its name (stalled past its lease while another took it) claims
     * nothing. The row is share-locked, so a join taking the name waits
     * for this claim and then releases what it took. RETURNING gives the
     * updated rows in no set order (the CTE's ORDER BY only picks them):
     * the outer SELECT hands them over in claim order, the most urgent
     * first. */
    qres q = run(db,
                 "WITH h AS (SELECT 1 FROM cuzk_hosts WHERE name = $1 AND incarnation = $5 AND stopped_at IS NULL "
                 " FOR SHARE), "
                 "c AS (SELECT job_seq, part FROM cuzk_partitions "
                 " WHERE state = 'pending' AND kind = ANY($2::text[]) AND EXISTS (SELECT 1 FROM h) "
                 " ORDER BY priority DESC, queued_at, job_seq, part LIMIT $3 FOR UPDATE SKIP LOCKED), "
                 "u AS (UPDATE cuzk_partitions p SET state = 'claimed', claimed_by = $1, claimed_inc = $5, "
                 " attempt = p.attempt + 1, lease_until = now() + $4::bigint * interval '1 millisecond' "
                 "FROM c WHERE p.job_seq = c.job_seq AND p.part = c.part "
                 "RETURNING p.job_id, p.kind, p.job_seq, p.part, p.attempt, p.priority, p.queued_at) "
                 "SELECT job_id, kind, job_seq, part, attempt, priority FROM u "
                 "ORDER BY priority DESC, queued_at, job_seq, part",
                 5, p, NULL, false, err, errlen);
    free(arr);
    if (!q.ok) return CUZK_ERR_IO;
    int rows = PQntuples(q.r);
    for (int r = 0; r < rows && (size_t)r < max; r++) {
        cuzk_cluster_lease *c = &out[r];
        memset(c, 0, sizeof *c);
        snprintf(c->job_id, sizeof c->job_id, "%s", PQgetvalue(q.r, r, 0));
        snprintf(c->kind, sizeof c->kind, "%s", PQgetvalue(q.r, r, 1));
        c->job_seq = i64(q.r, r, 2);
        c->partition = (uint32_t)i64(q.r, r, 3);
        c->attempt = (uint32_t)i64(q.r, r, 4);
        c->priority = (int)i64(q.r, r, 5);
    }
    /* the statement runs alone, so the claims are committed: the caller
     * must hold every one it was given */
    *n = (size_t)rows;
    PQclear(q.r);
    return CUZK_OK;
}

int cuzk_cluster_payload(cuzk_cluster_db *db, int64_t job_seq, uint8_t **payload, size_t *len, char *err,
                         size_t errlen)
{
    *payload = NULL;
    *len = 0;
    char seq[24];
    snprintf(seq, sizeof seq, "%lld", (long long)job_seq);
    const char *p[1] = {seq};
    /* a job that ended dropped its payload: nothing of it is to be proved */
    qres q = run(db,
                 "SELECT payload, payload_file, payload_sha256, payload_len FROM cuzk_jobs "
                 "WHERE seq = $1 AND state = 'active'",
                 1, p, NULL, true, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    if (PQntuples(q.r) != 1) {
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "cluster: job %s ended or is gone", seq);
    }
    if (!PQgetisnull(q.r, 0, 1)) {
        /* in payload_dir: read there and checked against the row's digest */
        char name[PAYLOAD_NAME_LEN + 1];
        uint8_t sha[32];
        uint64_t be = 0;
        bool whole = PQgetlength(q.r, 0, 1) == PAYLOAD_NAME_LEN && PQgetlength(q.r, 0, 2) == 32 &&
                     PQgetlength(q.r, 0, 3) == 8;
        if (whole) {
            memcpy(name, PQgetvalue(q.r, 0, 1), PAYLOAD_NAME_LEN);
            name[PAYLOAD_NAME_LEN] = '\0';
            memcpy(sha, PQgetvalue(q.r, 0, 2), 32);
            memcpy(&be, PQgetvalue(q.r, 0, 3), 8);
        }
        PQclear(q.r);
        if (!whole) return cuzk_errf(err, errlen, CUZK_ERR_INTERNAL, "cluster: job %s: bad payload file record", seq);
        if (!db->payload_dir)
            return cuzk_errf(err, errlen, CUZK_ERR_IO,
                             "job %s's payload is file %s in the cluster's payload_dir, and this host has no "
                             "cluster.payload_dir", seq, name);
        int rc = payload_read(db->payload_dir, name, sha, (size_t)be64toh(be), payload, err, errlen);
        if (rc == CUZK_OK) *len = (size_t)be64toh(be);
        return rc;
    }
    size_t n = (size_t)PQgetlength(q.r, 0, 0);
    *payload = malloc(n ? n : 1);
    if (!*payload) {
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory for a %zu-byte payload", n);
    }
    memcpy(*payload, PQgetvalue(q.r, 0, 0), n);
    *len = n;
    PQclear(q.r);
    return CUZK_OK;
}

/* The claim as text parameters: job_seq, part, attempt, host. */
typedef struct claim_params {
    char seq[24], part[12], att[12];
} claim_params;

static void claim_text(claim_params *cp, const cuzk_cluster_lease *c)
{
    snprintf(cp->seq, sizeof cp->seq, "%lld", (long long)c->job_seq);
    snprintf(cp->part, sizeof cp->part, "%u", c->partition);
    snprintf(cp->att, sizeof cp->att, "%u", c->attempt);
}

/* The claim as this host holds it: the WHERE clause shared by complete and
 * fail ($7: the incarnation that claimed it). */
#define HELD "job_seq = $1 AND part = $2 AND attempt = $3 AND claimed_by = $4 AND claimed_inc = $7 " \
             "AND state = 'claimed' AND lease_until >= now()"

/* One statement, so one round trip: the partition's result is taken only
 * while the claim is still this host's (HELD: same attempt, lease not run
 * out; otherwise a late result, discarded), and only then is the job row
 * counted, under its row lock: concurrent completions of one job queue on
 * it and each counts on the row the previous one left, so exactly one
 * brings parts_done to num_partitions. A job that is done drops its
 * payload: the bytes in its row, or its file's reference. */
static int complete_once(cuzk_cluster_db *db, const cuzk_cluster_lease *c, const uint8_t proof[192],
                         uint64_t prove_ms, bool *accepted, bool *job_done, bool *retry, char *err, size_t errlen)
{
    *retry = false;
    *accepted = *job_done = false;
    claim_params cp;
    claim_text(&cp, c);
    char ms[24];
    snprintf(ms, sizeof ms, "%llu", (unsigned long long)prove_ms);
    const char *p[7] = {cp.seq, cp.part, cp.att, db->host, (const char *)proof, ms, db->inc};
    int lens[7] = {0, 0, 0, 0, CUZK_CLUSTER_PROOF_BYTES, 0, 0};
    qres q = run(db,
                 "WITH p AS (UPDATE cuzk_partitions SET state = 'done', result = $5, verified = true, "
                 "  proved_by = $4, prove_ms = $6, finished_at = now(), lease_until = NULL "
                 "  WHERE " HELD " RETURNING job_seq), "
                 "j AS (UPDATE cuzk_jobs SET parts_done = parts_done + 1, "
                 "  state = CASE WHEN parts_done + 1 >= num_partitions THEN 'done' ELSE state END, "
                 "  finished_at = CASE WHEN parts_done + 1 >= num_partitions THEN now() END, "
                 "  payload = CASE WHEN parts_done + 1 >= num_partitions THEN ''::bytea ELSE payload END "
                 "  WHERE seq IN (SELECT job_seq FROM p) AND state = 'active' RETURNING state, payload_file), "
                 "f AS (UPDATE cuzk_payloads SET refs = refs - 1 "
                 "  WHERE name IN (SELECT payload_file FROM j WHERE state = 'done')) "
                 "SELECT (SELECT count(*) FROM p), coalesce((SELECT state FROM j), '')",
                 7, p, lens, false, err, errlen);
    if (!q.ok) {
        *retry = q.retry;
        return CUZK_ERR_IO;
    }
    *accepted = i64(q.r, 0, 0) == 1;
    *job_done = *accepted && !strcmp(PQgetvalue(q.r, 0, 1), "done");
    PQclear(q.r);
    return CUZK_OK;
}

int cuzk_cluster_complete(cuzk_cluster_db *db, const cuzk_cluster_lease *c, const uint8_t proof[192],
                          uint64_t prove_ms, bool *accepted, bool *job_done, char *err, size_t errlen)
{
    bool retry = false; /* the one statement is retried by run() */
    return complete_once(db, c, proof, prove_ms, accepted, job_done, &retry, err, errlen);
}

static int fail_once(cuzk_cluster_db *db, const cuzk_cluster_lease *c, bool requeue, const char *message,
                     bool *retry, char *err, size_t errlen)
{
    *retry = false;
    claim_params cp;
    claim_text(&cp, c);
    if (!begin(db, err, errlen)) return CUZK_ERR_IO;
    const char *p[7] = {cp.seq, cp.part, cp.att, db->host, db->max_att, requeue ? "true" : "false", db->inc};
    /* back to the queue while attempts are left; otherwise 'failed' */
    qres q = run(db,
                 "UPDATE cuzk_partitions SET claimed_by = NULL, lease_until = NULL, "
                 " state = CASE WHEN $6::boolean AND attempt < $5::integer THEN 'pending' ELSE 'failed' END "
                 "WHERE " HELD " RETURNING state",
                 7, p, NULL, false, err, errlen);
    if (!q.ok) {
        *retry = q.retry;
        rollback(db);
        return CUZK_ERR_IO;
    }
    bool failed = PQntuples(q.r) == 1 && !strcmp(PQgetvalue(q.r, 0, 0), "failed");
    PQclear(q.r);
    if (failed) {
        char *msg = NULL;
        if (asprintf(&msg, "partition %u%s: %s", c->partition, requeue ? " (its last attempt)" : "",
                     message ? message : "failed") < 0)
            msg = NULL;
        bool ended = false;
        bool ok = job_end(db, cp.seq, "failed", msg ? msg : "failed", &ended, retry, err, errlen);
        free(msg);
        if (!ok) {
            rollback(db);
            return CUZK_ERR_IO;
        }
    }
    return commit(db, retry, err, errlen) ? CUZK_OK : CUZK_ERR_IO;
}

int cuzk_cluster_fail(cuzk_cluster_db *db, const cuzk_cluster_lease *c, bool retry, const char *message, char *err,
                      size_t errlen)
{
    int rc = CUZK_ERR_IO;
    for (int t = 0; t < TX_TRIES; t++) {
        bool again = false;
        rc = fail_once(db, c, retry, message, &again, err, errlen);
        if (rc == CUZK_OK || !again) break;
        backoff(t);
    }
    return rc;
}

/* An active job ended (failed, timed out) in a transaction of its own,
 * retried as a transaction is. */
static int end_job(cuzk_cluster_db *db, const char *seq, const char *state, const char *message, bool *ended,
                   char *err, size_t errlen)
{
    for (int t = 0; t < TX_TRIES; t++) {
        bool retry = false;
        if (begin(db, err, errlen) && job_end(db, seq, state, message, ended, &retry, err, errlen) &&
            commit(db, &retry, err, errlen))
            return CUZK_OK;
        rollback(db);
        if (!retry) break;
        backoff(t);
    }
    return CUZK_ERR_IO;
}

int cuzk_cluster_expire(cuzk_cluster_db *db, unsigned *leases_expired, unsigned *jobs_timed_out, char *err,
                        size_t errlen)
{
    if (leases_expired) *leases_expired = 0;
    if (jobs_timed_out) *jobs_timed_out = 0;
    /* leases that ran out: back to the queue, or 'failed' after max_attempts */
    const char *p[1] = {db->max_att};
    qres q = run(db,
                 "WITH x AS (SELECT job_seq, part FROM cuzk_partitions "
                 " WHERE state = 'claimed' AND lease_until < now() FOR UPDATE SKIP LOCKED) "
                 "UPDATE cuzk_partitions p SET claimed_by = NULL, lease_until = NULL, "
                 " expirations = p.expirations + 1, "
                 " state = CASE WHEN p.attempt < $1::integer THEN 'pending' ELSE 'failed' END "
                 "FROM x WHERE p.job_seq = x.job_seq AND p.part = x.part "
                 "RETURNING p.job_seq, p.part, p.state, p.attempt",
                 1, p, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    int rows = PQntuples(q.r);
    if (leases_expired) *leases_expired = (unsigned)rows;
    int rc = CUZK_OK;
    for (int r = 0; r < rows && rc == CUZK_OK; r++) {
        if (strcmp(PQgetvalue(q.r, r, 2), "failed")) continue;
        char *msg = NULL;
        if (asprintf(&msg, "partition %s: claimed %s times and never finished (the hosts holding it died or "
                           "stalled past their lease)", PQgetvalue(q.r, r, 1), PQgetvalue(q.r, r, 3)) < 0)
            msg = NULL;
        bool ended = false;
        rc = end_job(db, PQgetvalue(q.r, r, 0), "failed", msg ? msg : "lost", &ended, err, errlen);
        free(msg);
    }
    PQclear(q.r);
    if (rc != CUZK_OK) return rc;
    /* jobs past their deadline */
    q = run(db, "SELECT seq FROM cuzk_jobs WHERE state = 'active' AND deadline < now()", 0, NULL, NULL, false, err,
            errlen);
    if (!q.ok) return CUZK_ERR_IO;
    for (int r = 0; r < PQntuples(q.r) && rc == CUZK_OK; r++) {
        bool ended = false;
        rc = end_job(db, PQgetvalue(q.r, r, 0), "timed_out", "deadline passed", &ended, err, errlen);
        if (ended && jobs_timed_out) ++*jobs_timed_out;
    }
    PQclear(q.r);
    return rc;
}

/* Jobs deleted per statement of a retention pass: each statement is short
 * (its locks and its WAL; about 0.5 s for 2000 jobs of 10 partitions on a
 * small server), and a pass makes a few, for about a second at most: the
 * node's thread heart-beats between passes, and a backlog (a long history
 * met by a first horizon) goes over several. */
#define PRUNE_BATCH "2000"
#define PRUNE_STATEMENTS 8
#define PRUNE_PASS_S 1.0

int cuzk_cluster_prune(cuzk_cluster_db *db, unsigned *jobs_deleted, char *err, size_t errlen)
{
    if (jobs_deleted) *jobs_deleted = 0;
    if (!strcmp(db->retention, "0")) return CUZK_OK;
    /* the oldest finished jobs first, their partitions with them; rows
     * another host is deleting are skipped, not waited for */
    const char *p[2] = {db->retention, PRUNE_BATCH};
    double t0 = cuzk_now();
    for (int s = 0; s < PRUNE_STATEMENTS && cuzk_now() - t0 < PRUNE_PASS_S; s++) {
        qres q = run(db,
                     "WITH d AS (DELETE FROM cuzk_jobs WHERE seq IN (SELECT seq FROM cuzk_jobs "
                     "  WHERE state <> 'active' AND finished_at < now() - $1::bigint * interval '1 millisecond' "
                     "  ORDER BY finished_at LIMIT $2::integer FOR UPDATE SKIP LOCKED) RETURNING seq), "
                     "p AS (DELETE FROM cuzk_partitions WHERE job_seq IN (SELECT seq FROM d)) "
                     "SELECT count(*) FROM d",
                     2, p, NULL, false, err, errlen);
        if (!q.ok) return CUZK_ERR_IO;
        unsigned n = (unsigned)i64(q.r, 0, 0);
        PQclear(q.r);
        if (jobs_deleted) *jobs_deleted += n;
        if (n < (unsigned)atoi(PRUNE_BATCH)) break;
    }
    /* hosts not heard of within the horizon (stopped, or dead long ago) */
    return exec0(db, "DELETE FROM cuzk_hosts WHERE heartbeat_at < now() - $1::bigint * interval '1 millisecond'", 1,
                 p, NULL, err, errlen)
               ? CUZK_OK
               : CUZK_ERR_IO;
}

/* One pass over payload files no active job needs (see
 * cuzk_cluster_payload_gc). The records are row-locked while their files go:
 * a submit of the same payload waits, then writes the file anew. */
static int gc_once(cuzk_cluster_db *db, unsigned *removed, bool *retry, char *err, size_t errlen)
{
    *retry = false;
    if (!begin(db, err, errlen)) return CUZK_ERR_IO;
    qres q = run(db, "SELECT name FROM cuzk_payloads WHERE refs <= 0 LIMIT 64 FOR UPDATE SKIP LOCKED", 0, NULL,
                 NULL, false, err, errlen);
    if (!q.ok) {
        *retry = q.retry;
        rollback(db);
        return CUZK_ERR_IO;
    }
    int rows = PQntuples(q.r), rc = CUZK_OK;
    /* names are SHA-256 hex (the submit made them): an array literal as is */
    char *arr = malloc((size_t)rows * (PAYLOAD_NAME_LEN + 1) + 3), why[512] = "";
    if (!arr) {
        PQclear(q.r);
        rollback(db);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    size_t len = 0;
    unsigned gone = 0;
    arr[len++] = '{';
    for (int r = 0; r < rows; r++) {
        const char *name = PQgetvalue(q.r, r, 0);
        if (strlen(name) != PAYLOAD_NAME_LEN || strspn(name, "0123456789abcdef") != PAYLOAD_NAME_LEN) continue;
        if (payload_remove(db->payload_dir, name, why, sizeof why) != CUZK_OK) {
            rc = CUZK_ERR_IO; /* its record stays: tried again next time */
            continue;
        }
        len += (size_t)sprintf(arr + len, "%s%s", gone ? "," : "", name);
        gone++;
    }
    arr[len++] = '}', arr[len] = '\0';
    PQclear(q.r);
    const char *p[1] = {arr};
    bool ok = exec0(db, "DELETE FROM cuzk_payloads WHERE name = ANY($1::text[]) AND refs <= 0", 1, p, retry, err,
                    errlen) &&
              commit(db, retry, err, errlen);
    free(arr);
    if (!ok) {
        rollback(db);
        return CUZK_ERR_IO;
    }
    if (removed) *removed += gone;
    return rc == CUZK_OK ? CUZK_OK : cuzk_errf(err, errlen, rc, "%s", why);
}

int cuzk_cluster_payload_gc(cuzk_cluster_db *db, unsigned *removed, char *err, size_t errlen)
{
    if (removed) *removed = 0;
    if (!db->payload_dir) return CUZK_OK;
    int rc = CUZK_ERR_IO;
    for (int t = 0; t < TX_TRIES; t++) {
        bool retry = false;
        rc = gc_once(db, removed, &retry, err, errlen);
        if (rc == CUZK_OK || !retry) break;
        backoff(t);
    }
    return rc;
}

int cuzk_cluster_shared_seed(cuzk_cluster_db *db, const char *name, uint64_t *seed, char *err, size_t errlen)
{
    int64_t mine;
    if (random_i64(&mine, err, errlen) != CUZK_OK) return CUZK_ERR_IO;
    char key[96], v[24];
    snprintf(key, sizeof key, "seed %s", name);
    snprintf(v, sizeof v, "%lld", (long long)mine);
    const char *p[2] = {key, v};
    /* the first host's value stays; the read is a statement of its own, so
     * it sees a value another host committed meanwhile */
    if (!exec0(db, "INSERT INTO cuzk_meta (k, v) VALUES ($1, $2) ON CONFLICT (k) DO NOTHING", 2, p, NULL, err,
               errlen))
        return CUZK_ERR_IO;
    qres q = run(db, "SELECT v FROM cuzk_meta WHERE k = $1", 1, p, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    bool got = PQntuples(q.r) == 1;
    if (got) *seed = (uint64_t)i64(q.r, 0, 0);
    PQclear(q.r);
    return got ? CUZK_OK : cuzk_errf(err, errlen, CUZK_ERR_IO, "cluster: seed %s vanished", name);
}

/* ---- jobs ------------------------------------------------------------------ */

static cuzk_job_state state_of(const char *s, bool started)
{
    if (!strcmp(s, "done")) return CUZK_JOB_DONE;
    if (!strcmp(s, "failed")) return CUZK_JOB_FAILED;
    if (!strcmp(s, "cancelled")) return CUZK_JOB_CANCELLED;
    if (!strcmp(s, "timed_out")) return CUZK_JOB_TIMED_OUT;
    return started ? CUZK_JOB_RUNNING : CUZK_JOB_QUEUED;
}

int cuzk_cluster_job_get(cuzk_cluster_db *db, const char *id, cuzk_cluster_job_info *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    const char *p[1] = {id};
    qres q = run(db,
                 "SELECT j.seq, j.kind, j.priority, j.num_partitions, j.state, j.error, j.parts_done, "
                 " extract(epoch FROM coalesce(j.finished_at, now()) - j.submitted_at), "
                 " (SELECT count(*) FROM cuzk_partitions p WHERE p.job_seq = j.seq AND p.state = 'claimed') "
                 "FROM cuzk_jobs j WHERE j.id = $1",
                 1, p, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    if (PQntuples(q.r) != 1) {
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "no job %s in the cluster", id);
    }
    char seq[24];
    snprintf(seq, sizeof seq, "%s", PQgetvalue(q.r, 0, 0));
    snprintf(o->kind, sizeof o->kind, "%s", PQgetvalue(q.r, 0, 1));
    o->priority = (int)i64(q.r, 0, 2);
    o->num_partitions = (uint32_t)i64(q.r, 0, 3);
    o->partitions_done = (uint32_t)i64(q.r, 0, 6);
    o->total_s = strtod(PQgetvalue(q.r, 0, 7), NULL);
    o->partitions_claimed = (uint32_t)i64(q.r, 0, 8);
    o->state = state_of(PQgetvalue(q.r, 0, 4), o->partitions_done + o->partitions_claimed > 0);
    o->error = o->state == CUZK_JOB_CANCELLED   ? CUZK_ERR_CANCELLED
               : o->state == CUZK_JOB_TIMED_OUT ? CUZK_ERR_TIMEOUT
               : o->state == CUZK_JOB_FAILED    ? CUZK_ERR_INTERNAL
                                                : CUZK_OK;
    o->message = strdup(PQgetvalue(q.r, 0, 5));
    PQclear(q.r);
    if (!o->message) return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    if (o->state != CUZK_JOB_DONE) return CUZK_OK;
    /* the proof: every partition's verified result, in order */
    const char *p2[1] = {seq};
    q = run(db, "SELECT result, verified FROM cuzk_partitions WHERE job_seq = $1 AND state = 'done' ORDER BY part",
            1, p2, NULL, true, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    int rows = PQntuples(q.r);
    bool whole = (uint32_t)rows == o->num_partitions;
    for (int r = 0; r < rows && whole; r++)
        whole = PQgetlength(q.r, r, 0) == CUZK_CLUSTER_PROOF_BYTES && PQgetvalue(q.r, r, 1)[0] == 1;
    if (!whole) {
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_INTERNAL,
                    "cluster: job %s is done but %d of its %u partition results are verified 192-byte proofs", id,
                    rows, o->num_partitions);
    }
    o->proof_len = (size_t)rows * CUZK_CLUSTER_PROOF_BYTES;
    o->proof = malloc(o->proof_len);
    if (!o->proof) {
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    for (int r = 0; r < rows; r++)
        memcpy(o->proof + (size_t)r * CUZK_CLUSTER_PROOF_BYTES, PQgetvalue(q.r, r, 0), CUZK_CLUSTER_PROOF_BYTES);
    PQclear(q.r);
    return CUZK_OK;
}

void cuzk_cluster_job_info_free(cuzk_cluster_job_info *info)
{
    if (!info) return;
    free(info->message);
    free(info->proof);
    info->message = NULL;
    info->proof = NULL;
}

static int cancel_once(cuzk_cluster_db *db, const char *id, bool *was_running, bool *retry, char *err,
                       size_t errlen)
{
    *retry = false;
    if (!begin(db, err, errlen)) return CUZK_ERR_IO;
    const char *p[1] = {id};
    qres q = run(db,
                 "SELECT j.seq, j.state, EXISTS (SELECT 1 FROM cuzk_partitions p WHERE p.job_seq = j.seq "
                 " AND p.state IN ('claimed', 'done')) FROM cuzk_jobs j WHERE j.id = $1 FOR UPDATE",
                 1, p, NULL, false, err, errlen);
    int rc = CUZK_ERR_IO;
    if (!q.ok) {
        *retry = q.retry;
        goto out;
    }
    if (PQntuples(q.r) != 1) {
        PQclear(q.r);
        rc = cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "no job %s in the cluster", id);
        goto out;
    }
    char seq[24], state[16];
    snprintf(seq, sizeof seq, "%s", PQgetvalue(q.r, 0, 0));
    snprintf(state, sizeof state, "%s", PQgetvalue(q.r, 0, 1));
    *was_running = PQgetvalue(q.r, 0, 2)[0] == 't';
    PQclear(q.r);
    if (strcmp(state, "active")) {
        rc = cuzk_errf(err, errlen, CUZK_ERR_INVALID_ARG, "job %s already finished (%s)", id, state);
        goto out;
    }
    bool ended = false;
    if (!job_end(db, seq, "cancelled", "cancelled", &ended, retry, err, errlen)) goto out;
    return commit(db, retry, err, errlen) ? CUZK_OK : CUZK_ERR_IO;
out:
    rollback(db);
    return rc;
}

int cuzk_cluster_cancel(cuzk_cluster_db *db, const char *id, bool *was_running, char *err, size_t errlen)
{
    int rc = CUZK_ERR_IO;
    for (int t = 0; t < TX_TRIES; t++) {
        bool retry = false;
        rc = cancel_once(db, id, was_running, &retry, err, errlen);
        if (rc == CUZK_OK || !retry) break;
        backoff(t);
    }
    return rc;
}

int cuzk_cluster_job_parts(cuzk_cluster_db *db, const char *id, cuzk_cluster_part_info **out, size_t *n, char *err,
                           size_t errlen)
{
    *out = NULL;
    *n = 0;
    const char *p[1] = {id};
    qres q = run(db,
                 "SELECT p.part, p.attempt, p.expirations, p.state, coalesce(p.claimed_by, ''), "
                 " coalesce(p.proved_by, ''), p.verified FROM cuzk_partitions p JOIN cuzk_jobs j ON j.seq = p.job_seq "
                 "WHERE j.id = $1 ORDER BY p.part",
                 1, p, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    int rows = PQntuples(q.r);
    cuzk_cluster_part_info *a = calloc(rows ? (size_t)rows : 1, sizeof *a);
    if (!a) {
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    for (int r = 0; r < rows; r++) {
        a[r].partition = (uint32_t)i64(q.r, r, 0);
        a[r].attempt = (uint32_t)i64(q.r, r, 1);
        a[r].expirations = (uint32_t)i64(q.r, r, 2);
        snprintf(a[r].state, sizeof a[r].state, "%s", PQgetvalue(q.r, r, 3));
        snprintf(a[r].claimed_by, sizeof a[r].claimed_by, "%s", PQgetvalue(q.r, r, 4));
        snprintf(a[r].proved_by, sizeof a[r].proved_by, "%s", PQgetvalue(q.r, r, 5));
        a[r].verified = PQgetvalue(q.r, r, 6)[0] == 't';
    }
    PQclear(q.r);
    *out = a;
    *n = (size_t)rows;
    return CUZK_OK;
}

int cuzk_cluster_view_get(cuzk_cluster_db *db, cuzk_cluster_view *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    /* active jobs per kind and priority; a job is running once any of its
     * partitions is claimed or done */
    qres q = run(db,
                 "SELECT j.kind, j.priority, "
                 " count(*) FILTER (WHERE coalesce(c.claimed, 0) + j.parts_done = 0), "
                 " count(*) FILTER (WHERE coalesce(c.claimed, 0) + j.parts_done > 0), "
                 " coalesce(sum(c.pending), 0), coalesce(sum(c.claimed), 0) "
                 "FROM cuzk_jobs j LEFT JOIN (SELECT job_seq, count(*) FILTER (WHERE state = 'pending') AS pending, "
                 "  count(*) FILTER (WHERE state = 'claimed') AS claimed FROM cuzk_partitions "
                 "  WHERE state IN ('pending', 'claimed') GROUP BY job_seq) c ON c.job_seq = j.seq "
                 "WHERE j.state = 'active' GROUP BY j.kind, j.priority ORDER BY j.kind, j.priority DESC",
                 0, NULL, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    int rows = PQntuples(q.r);
    v->queues = calloc(rows ? (size_t)rows : 1, sizeof *v->queues);
    if (!v->queues) {
        PQclear(q.r);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    for (int r = 0; r < rows; r++) {
        cuzk_cluster_queue *c = &v->queues[r];
        snprintf(c->kind, sizeof c->kind, "%s", PQgetvalue(q.r, r, 0));
        c->priority = (int)i64(q.r, r, 1);
        c->jobs_pending = (uint32_t)i64(q.r, r, 2);
        c->jobs_running = (uint32_t)i64(q.r, r, 3);
        c->parts_pending = (uint32_t)i64(q.r, r, 4);
        c->parts_claimed = (uint32_t)i64(q.r, r, 5);
    }
    v->n_queues = (size_t)rows;
    PQclear(q.r);
    const char *p[1] = {db->lease};
    q = run(db,
            "SELECT h.name, h.slots, h.busy, (SELECT count(*) FROM cuzk_partitions p WHERE p.claimed_by = h.name "
            "  AND p.state = 'claimed'), "
            " h.stopped_at IS NULL AND h.heartbeat_at >= now() - $1::bigint * interval '1 millisecond', "
            " greatest(0, (extract(epoch FROM now() - h.heartbeat_at) * 1000)::bigint), h.completed "
            "FROM cuzk_hosts h ORDER BY h.name",
            1, p, NULL, false, err, errlen);
    if (!q.ok) {
        cuzk_cluster_view_free(v);
        return CUZK_ERR_IO;
    }
    rows = PQntuples(q.r);
    v->hosts = calloc(rows ? (size_t)rows : 1, sizeof *v->hosts);
    if (!v->hosts) {
        PQclear(q.r);
        cuzk_cluster_view_free(v);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    for (int r = 0; r < rows; r++) {
        cuzk_cluster_host *h = &v->hosts[r];
        snprintf(h->name, sizeof h->name, "%s", PQgetvalue(q.r, r, 0));
        h->slots = (uint32_t)i64(q.r, r, 1);
        h->busy = (uint32_t)i64(q.r, r, 2);
        h->held = (uint32_t)i64(q.r, r, 3);
        h->alive = PQgetvalue(q.r, r, 4)[0] == 't';
        h->heartbeat_age_ms = (uint64_t)i64(q.r, r, 5);
        h->completed = (uint64_t)i64(q.r, r, 6);
    }
    v->n_hosts = (size_t)rows;
    PQclear(q.r);
    return CUZK_OK;
}

void cuzk_cluster_view_free(cuzk_cluster_view *v)
{
    if (!v) return;
    free(v->queues);
    free(v->hosts);
    memset(v, 0, sizeof *v);
}

/* The status's statement: every count reads live rows through the partial
 * indexes (the waiting partitions, the claimed ones by holder, the active
 * jobs) or the last hour of finished jobs (cuzk_jobs_by_end),
 * never the whole history, which retention lets grow to a day of the
 * cluster's work. Every key is always there (zero, not missing), so a
 * reader's field does not come and go with the queue. */
static const char status_sql[] =
    "SELECT json_build_object("
    " 'schema', (SELECT v FROM cuzk_meta WHERE k = 'schema'),"
    " 'hosts', coalesce((SELECT json_agg(json_build_object("
    "   'name', h.name, 'slots', h.slots, 'busy', h.busy, 'kinds', h.kinds,"
    "   'held', (SELECT count(*) FROM cuzk_partitions p WHERE p.claimed_by = h.name AND p.state = 'claimed'),"
    "   'claims', h.claims, 'completed', h.completed, 'discarded', h.discarded,"
    "   'expired', h.expired, 'stopped', h.stopped_at IS NOT NULL,"
    "   'heartbeat_age_s', round(extract(epoch FROM now() - h.heartbeat_at)::numeric, 3))"
    "   ORDER BY h.name) FROM cuzk_hosts h), '[]'::json),"
    " 'partitions', (SELECT json_build_object('pending', count(*) FILTER (WHERE state = 'pending'),"
    "   'claimed', count(*) FILTER (WHERE state = 'claimed'), 'expirations', coalesce(sum(expirations), 0))"
    "   FROM cuzk_partitions WHERE state IN ('pending', 'claimed')),"
    " 'jobs', json_build_object('active', (SELECT count(*) FROM cuzk_jobs WHERE state = 'active'),"
    "   'finished_last_hour', (SELECT json_build_object('done', count(*) FILTER (WHERE state = 'done'),"
    "     'failed', count(*) FILTER (WHERE state = 'failed'),"
    "     'cancelled', count(*) FILTER (WHERE state = 'cancelled'),"
    "     'timed_out', count(*) FILTER (WHERE state = 'timed_out'))"
    "     FROM cuzk_jobs WHERE state <> 'active' AND finished_at >= now() - interval '1 hour')),"
    " 'payload_files', (SELECT json_build_object('files', count(*), 'bytes', coalesce(sum(bytes), 0),"
    "   'unneeded', count(*) FILTER (WHERE refs <= 0)) FROM cuzk_payloads),"
    " 'queue', coalesce((SELECT json_object_agg(kind, n ORDER BY kind) FROM"
    "   (SELECT kind, count(*) AS n FROM cuzk_partitions WHERE state = 'pending' GROUP BY kind) s),"
    "   '{}'::json))";

int cuzk_cluster_status_json(cuzk_cluster_db *db, char **json, char *err, size_t errlen)
{
    *json = NULL;
    /* built by the database: json_build_object and json_agg are in both */
    qres q = run(db, status_sql, 0, NULL, NULL, false, err, errlen);
    if (!q.ok) return CUZK_ERR_IO;
    *json = strdup(PQgetvalue(q.r, 0, 0));
    PQclear(q.r);
    return *json ? CUZK_OK : cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
}
