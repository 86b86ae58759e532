/*
 * The daemon's pool of database connections for RPC handlers
 * (src/server/backend_cluster.c) against a real PostgreSQL (tests/pg.sh),
 * its connections counted in pg_stat_activity:
 * - concurrent calls never hold more than [cluster] pool_size connections
 *   (many cancels of one job blocked on its row lock, held here: pool_size
 *   of them in the database, the rest waiting in the pool), and a call with
 *   a deadline gives up at it when every connection stays busy;
 * - idle connections are closed pool_idle after their last use, with no
 *   call to prompt it;
 * - a pooled connection runs no DDL and takes no lock on the schema's
 *   version row (an event trigger refuses the daemons' DDL once the start
 *   has migrated; the version row is held locked while one opens), and
 *   one finding a newer schema refuses it without DDL.
 * Seeds are fresh per run (printed).
 */
#define _GNU_SOURCE
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/cluster/cluster.h"
#include "cuzk/engine/engine.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/kinds.h"
#include "pg_test.h"
#include "server/dispatch_cluster.h"
#include "server/config.h"
#include "server/grpc_adapter.h"
#include "testutil.h"

static const char *conninfo;
static cuzk_rng rng;
static PGconn *sql, *locker; /* the test's statements; its row locks (pg_stat_activity is
                              * read once per transaction: never inside one) */

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void sql_ok(const char *q) { pg_test_ok(sql, q); }

static long sql_long(const char *q) { return pg_test_long(sql, q); }

/* The daemons' connections to this test's database (application_name
 * cuzk; the test's own has none); waiting: those waiting for a lock. */
static long daemon_conns(bool waiting)
{
    return sql_long(waiting ? "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                              " AND application_name = 'cuzk' AND wait_event_type = 'Lock'"
                            : "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                              " AND application_name = 'cuzk'");
}

/* Polls until daemon_conns(waiting) is want; false past the bound (a
 * bound for a hung run, not a timing assertion). */
static bool conns_reach(bool waiting, long want)
{
    long n = -1;
    for (int i = 0; i < 600 && (n = daemon_conns(waiting)) != want; i++) sleep_ms(50);
    if (n != want)
        fprintf(stderr, "daemon connections%s: %ld, want %ld\n", waiting ? " waiting for a lock" : "", n, want);
    return n == want;
}

static void daemon_log(int level, const char *msg) { fprintf(stderr, "daemon [%d]: %s\n", level, msg); }

typedef struct canceller {
    srv_cluster *cl;
    const char *id;
    int rc;
    char err[512];
} canceller;

static void *cancel_main(void *arg)
{
    canceller *c = arg;
    bool was;
    c->rc = srv_cluster_cancel(c->cl, c->id, &was, c->err, sizeof c->err);
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argc;
    conninfo = pg_test_conninfo(argv);
    tu_init(&rng, "test_cluster_pool");
    sql = pg_test_sql(conninfo);
    locker = pg_test_sql(conninfo);
    unsigned pool = 2 + (unsigned)(cuzk_rng_u64(&rng) % 3), calls = pool + 2 + (unsigned)(cuzk_rng_u64(&rng) % 6);
    cuzk_config c;
    cfg_defaults(&c);
    char doc[1024], err[512];
    /* statement_timeout: the cancels blocked below wait on the row lock, and
     * those waiting in the pool up to it, far longer than the test holds it */
    snprintf(doc, sizeof doc, "[cluster]\nconninfo = \"%s\"\nhost = \"pool-d\"\npool_size = %u\npool_idle = \"1s\"\n"
             "statement_timeout = \"60s\"\n", conninfo, pool);
    CHECK_MSG(cfg_apply_toml(&c, doc, strlen(doc), err, sizeof err) == 0 && cfg_finish(&c, NULL, err, sizeof err) == 0,
              "config: %s", err);
    fprintf(stderr, "pool_size %u, %u concurrent calls\n", pool, calls);
    cuzk_engine_config ec = {.synthesis_workers = 1, .workers_per_device = 1};
    cuzk_engine *e = NULL;
    CHECK(cuzk_engine_create(&e, &ec) == CUZK_OK);
    /* the daemon's start: the node's connection creates the schema */
    srv_cluster *cl = srv_cluster_open(&c, e, "", 1, daemon_log, err, sizeof err);
    CHECK_MSG(cl, "srv_cluster_open: %s", err);
    if (!cl) return tu_finish("test_cluster_pool");
    CHECK_MSG(conns_reach(false, 1), "the node's one connection");
    /* from now on a daemon's DDL fails: pooled connections must not migrate */
    sql_ok("CREATE FUNCTION cuzk_test_no_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $f$ BEGIN "
           " IF current_setting('application_name') = 'cuzk' THEN "
           "  RAISE EXCEPTION 'DDL (%) on a daemon connection after its start', tg_tag; END IF; END $f$");
    sql_ok("CREATE EVENT TRIGGER cuzk_test_no_ddl ON ddl_command_start EXECUTE FUNCTION cuzk_test_no_ddl()");

    /* a job, stored on a connection of its own (closed: not counted) */
    char id[64];
    snprintf(id, sizeof id, "pool-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = "pool-submitter", .schema_check_only = true};
    cuzk_cluster_db *db = NULL;
    uint8_t payload[8];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)cuzk_rng_u64(&rng);
    cuzk_cluster_job job = {.id = id, .kind = "kp", .priority = CUZK_PRIORITY_NORMAL, .num_partitions = 2,
                            .payload = payload, .payload_len = sizeof payload};
    bool dup;
    CHECK_MSG(cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_OK &&
                  cuzk_cluster_submit(db, &job, &dup, NULL, err, sizeof err) == CUZK_OK,
              "submit: %s", err);
    cuzk_cluster_db_close(db);
    CHECK(conns_reach(false, 1));

    /* the job's row locked here: every cancel holds its connection, blocked */
    pg_test_ok(locker, "BEGIN");
    char q[200];
    snprintf(q, sizeof q, "SELECT 1 FROM cuzk_jobs WHERE id = '%s' FOR UPDATE", id);
    pg_test_ok(locker, q);
    canceller *cs = calloc(calls, sizeof *cs);
    pthread_t *th = calloc(calls, sizeof *th);
    for (unsigned i = 0; i < calls; i++) {
        cs[i] = (canceller){.cl = cl, .id = id};
        pthread_create(&th[i], NULL, cancel_main, &cs[i]);
    }
    CHECK_MSG(conns_reach(true, pool), "pool_size (%u) cancels blocked on the row lock", pool);
    sleep_ms(300); /* room for any call past the cap to have connected */
    long held = daemon_conns(false), blocked = daemon_conns(true);
    fprintf(stderr, "%u concurrent calls: %ld daemon connections (the node's and %ld blocked calls')\n", calls, held,
            blocked);
    CHECK_MSG(held == 1 + (long)pool && blocked == (long)pool, "%u calls held %ld connections besides the node's, "
              "pool_size %u", calls, held - 1, pool);
    /* a call with a deadline (GetStatus's 3 s) finds every connection busy: it gives up */
    cuzk_cluster_view v;
    char why[512] = "";
    CHECK(srv_cluster_view(cl, &v, why, sizeof why) != 0);
    fprintf(stderr, "GetStatus with the pool busy: %s\n", why);
    CHECK_MSG(strstr(why, "cluster.pool_size"), "%s", why);
    pg_test_ok(locker, "ROLLBACK");
    int ok = 0, finished = 0;
    for (unsigned i = 0; i < calls; i++) {
        pthread_join(th[i], NULL);
        ok += cs[i].rc == RPC_OK;
        finished += cs[i].rc == RPC_FAILED_PRECONDITION && strstr(cs[i].err, "already finished");
        if (cs[i].rc != RPC_OK && cs[i].rc != RPC_FAILED_PRECONDITION)
            fprintf(stderr, "cancel %u: %d %s\n", i, cs[i].rc, cs[i].err);
    }
    CHECK_MSG(ok == 1 && finished == (int)calls - 1, "one cancel took effect (%d), the others found it done (%d of %u)",
              ok, finished, calls - 1);
    free(cs);
    free(th);

    /* idle: closed pool_idle (1 s) after their last use, with no call */
    CHECK_MSG(daemon_conns(false) == 1 + (long)pool, "the pool's connections idle after the burst");
    CHECK_MSG(conns_reach(false, 1), "the idle pooled connections were closed");

    /* a newer schema: a pooled connection refuses it, running no DDL */
    sql_ok("UPDATE cuzk_meta SET v = v + 1 WHERE k = 'schema'");
    CHECK(srv_cluster_view(cl, &v, why, sizeof why) != 0);
    fprintf(stderr, "a pooled connection on a newer schema: %s\n", why);
    CHECK_MSG(strstr(why, "upgrade cuzk") && !strstr(why, "DDL"), "%s", why);
    sql_ok("UPDATE cuzk_meta SET v = v - 1 WHERE k = 'schema'");
    /* the version row locked (a migration in progress elsewhere): a pooled
     * connection opens and answers all the same */
    pg_test_ok(locker, "BEGIN");
    pg_test_ok(locker, "SELECT v FROM cuzk_meta WHERE k = 'schema' FOR UPDATE");
    why[0] = '\0';
    CHECK_MSG(srv_cluster_view(cl, &v, why, sizeof why) == 0, "a pooled connection opened beside a locked schema "
              "row: %s", why);
    cuzk_cluster_view_free(&v);
    pg_test_ok(locker, "COMMIT");

    srv_cluster_close(cl);
    CHECK_MSG(conns_reach(false, 0), "every connection closed with the daemon's cluster");
    sql_ok("DROP EVENT TRIGGER cuzk_test_no_ddl");
    cuzk_engine_destroy(e);
    PQfinish(locker);
    PQfinish(sql);
    return tu_finish("test_cluster_pool");
}
