/*
 * The daemon's cluster binding (dispatch_cluster.h). RPC handlers run on
 * many threads and a database connection serves one at a time, so they
 * take connections from a pool: at most [cluster] pool_size open at once,
 * in calls and idle together (a call that finds them all busy waits for
 * one), each opened on demand and closed by the pool's thread once unused
 * for pool_idle. The most recently used is taken first, so after a burst
 * the others age out. Pooled connections only check the schema's version:
 * the daemon's start migrated it (the node's connection). The node has its
 * own connection. AwaitProof polls the job's row with back-off (20 ms
 * doubling to 250 ms): any daemon answers for any job.
 */
#define _GNU_SOURCE
#include "server/dispatch_cluster.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/util/clock.h"
#include "cuzk/cluster/cluster.h"
#include "cuzk/util/error.h"
#include "server/grpc_adapter.h"

/* An idle connection and when it came back. */
typedef struct pooled {
    cuzk_cluster_db *db;
    double since;
} pooled;

struct srv_cluster {
    cuzk_cluster_opts opts;
    char host[CUZK_CLUSTER_NAME_MAX + 1];
    cuzk_cluster_node *node;
    pthread_mutex_t mu;   /* guards the pool */
    pthread_cond_t freed; /* a connection came back, or room to open one */
    pthread_cond_t aged;  /* for the pool's thread: the oldest idle one changed, or closing */
    pooled *idle;         /* idle connections, the most recently used last */
    size_t n_idle, n_open, pool_max; /* n_open: idle and in calls */
    double idle_s, wait_s; /* pool_idle; a call without a deadline waits this long for a connection */
    bool closing;
    pthread_t ager;
    const cuzk_config *cfg;
};


/* The daemon's logger for the node's lines: one dispatch per process, and a
 * function pointer does not travel through the node's void * context. */
static void (*node_logger)(int level, const char *msg);
static void node_log(void *ctx, int level, const char *msg)
{
    (void)ctx;
    /* node: 0 error, 1 warning, 2 info, 3 debug; as the engine's */
    int l = level <= 0 ? CFG_LOG_ERROR : level == 1 ? CFG_LOG_WARN : level == 2 ? CFG_LOG_INFO : CFG_LOG_DEBUG;
    if (node_logger) node_logger(l, msg);
    else fprintf(stderr, "cuzk cluster: %s\n", msg);
}

/* The connection options of c (host: this daemon's name). */
static cuzk_cluster_opts opts_of(const cuzk_config *c, const char *host)
{
    return (cuzk_cluster_opts){
        .conninfo = c->cluster_conninfo,
        .password = c->cluster_password[0] ? c->cluster_password : NULL,
        .host = host,
        .lease_ms = (uint32_t)c->cluster_lease_ms,
        .max_attempts = c->cluster_max_attempts,
        .payload_dir = c->cluster_payload_dir[0] ? c->cluster_payload_dir : NULL,
        .payload_threshold = (size_t)c->cluster_payload_threshold,
        .statement_timeout_ms = (uint32_t)c->cluster_statement_timeout_ms,
        .retention_ms = c->cluster_retention_ms,
    };
}

int srv_cluster_test_seed(const cuzk_config *c, uint64_t *seed, char *err, size_t errlen)
{
    cuzk_cluster_opts o = opts_of(c, "cuzk-test-kinds");
    cuzk_cluster_db *db = NULL;
    char why[512];
    int rc = cuzk_cluster_db_open(&o, &db, why, sizeof why);
    if (rc == CUZK_OK) rc = cuzk_cluster_shared_seed(db, "test-kinds", seed, why, sizeof why);
    cuzk_cluster_db_close(db);
    return rc == CUZK_OK ? 0 : cuzk_errf(err, errlen, -1, "cluster: the test kinds' seed: %s", why);
}

/* A condition variable timed on cuzk_now()'s clock. */
static void cond_init_mono(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

/* Waits on cv until signalled or cuzk_now() reaches until. */
static void cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double until)
{
    struct timespec ts = {(time_t)until, (long)((until - (double)(time_t)until) * 1e9)};
    pthread_cond_timedwait(cv, mu, &ts);
}

/* The pool's thread: closes each idle connection pool_idle after it came
 * back. The oldest is at the bottom of the stack, so it is the next due. */
static void *pool_ager(void *arg)
{
    srv_cluster *cl = arg;
    pthread_mutex_lock(&cl->mu);
    while (!cl->closing) {
        if (!cl->n_idle) {
            pthread_cond_wait(&cl->aged, &cl->mu);
            continue;
        }
        double due = cl->idle[0].since + cl->idle_s;
        if (cuzk_now() < due) {
            cond_wait_until(&cl->aged, &cl->mu, due);
            continue;
        }
        cuzk_cluster_db *db = cl->idle[0].db;
        memmove(cl->idle, cl->idle + 1, --cl->n_idle * sizeof *cl->idle);
        cl->n_open--;
        pthread_cond_signal(&cl->freed); /* room to open one */
        pthread_mutex_unlock(&cl->mu);
        cuzk_cluster_db_close(db);
        pthread_mutex_lock(&cl->mu);
    }
    pthread_mutex_unlock(&cl->mu);
    return NULL;
}

static void cluster_free(srv_cluster *cl)
{
    pthread_mutex_destroy(&cl->mu);
    pthread_cond_destroy(&cl->freed);
    pthread_cond_destroy(&cl->aged);
    free(cl->idle);
    free(cl);
}

srv_cluster *srv_cluster_open(const cuzk_config *c, cuzk_engine *e, const char *kinds, unsigned prover_workers,
                              void (*log)(int level, const char *msg), char *err, size_t errlen)
{
    /* every host writes and reads payload files there: a directory missing
     * on this host (the share not mounted) is found now, not per job */
    if (c->cluster_payload_dir[0] && access(c->cluster_payload_dir, W_OK | X_OK) != 0)
        return cuzk_errf(err, errlen, 0, "cluster.payload_dir %s: %s (it must be a writable directory on storage "
                                          "every host mounts)", c->cluster_payload_dir, strerror(errno)),
               NULL;
    srv_cluster *cl = calloc(1, sizeof *cl);
    size_t pool_max = c->cluster_pool_size ? c->cluster_pool_size : 1;
    if (!cl || !(cl->idle = calloc(pool_max, sizeof *cl->idle))) {
        free(cl);
        return cuzk_errf(err, errlen, 0, "out of memory"), NULL;
    }
    cl->pool_max = pool_max;
    pthread_mutex_init(&cl->mu, NULL);
    cond_init_mono(&cl->freed);
    cond_init_mono(&cl->aged);
    cl->idle_s = (double)c->cluster_pool_idle_ms / 1000.0;
    cl->wait_s = (double)c->cluster_statement_timeout_ms / 1000.0;
    cl->cfg = c;
    if (c->cluster_host[0]) snprintf(cl->host, sizeof cl->host, "%.63s", c->cluster_host); /* checked by cfg_finish */
    else if (gethostname(cl->host, sizeof cl->host) != 0 || !cl->host[0]) snprintf(cl->host, sizeof cl->host, "cuzk");
    cl->host[sizeof cl->host - 1] = '\0';
    cl->opts = opts_of(c, cl->host);
    node_logger = log;
    /* the node's connection migrates the schema; the pool's only check it */
    cuzk_cluster_node_opts no = {
        .db = cl->opts,
        .engine = e,
        .slots = c->cluster_slots ? c->cluster_slots : 2 * (prover_workers ? prover_workers : 1),
        .kinds = kinds,
        .log = node_log,
    };
    cl->opts.schema_check_only = true;
    char why[512];
    if (cuzk_cluster_node_start(&no, &cl->node, why, sizeof why) != CUZK_OK) {
        cuzk_errf(err, errlen, 0, "cluster: %s", why);
        cluster_free(cl);
        return NULL;
    }
    if (pthread_create(&cl->ager, NULL, pool_ager, cl) != 0) {
        cuzk_cluster_node_stop(cl->node);
        cluster_free(cl);
        return cuzk_errf(err, errlen, 0, "cluster: cannot start the connection pool's thread"), NULL;
    }
    return cl;
}

void srv_cluster_close(srv_cluster *cl)
{
    if (!cl) return;
    cuzk_cluster_node_stop(cl->node);
    pthread_mutex_lock(&cl->mu);
    cl->closing = true;
    pthread_cond_broadcast(&cl->aged);
    pthread_mutex_unlock(&cl->mu);
    pthread_join(cl->ager, NULL);
    for (size_t i = 0; i < cl->n_idle; i++) cuzk_cluster_db_close(cl->idle[i].db);
    cluster_free(cl);
}

/* A pooled connection: the most recently used idle one, or a new one when
 * fewer than pool_size are open, else the first to come back. within_ms
 * bounds the wait and the opening (0: the wait by statement_timeout, the
 * opening by connect_timeout): a call with a deadline is not held past it
 * by a busy pool or by a database that accepts and never answers. */
static cuzk_cluster_db *db_get(srv_cluster *cl, uint32_t within_ms, char *err, size_t errlen)
{
    double t0 = cuzk_now(), until = t0 + (within_ms ? within_ms / 1000.0 : cl->wait_s);
    pthread_mutex_lock(&cl->mu);
    while (!cl->n_idle && cl->n_open >= cl->pool_max) {
        if (cuzk_now() >= until) {
            pthread_mutex_unlock(&cl->mu);
            return cuzk_errf(err, errlen, 0, "all %zu database connections of this daemon's pool were in use for "
                             "%.1f s (cluster.pool_size)", cl->pool_max, cuzk_now() - t0), NULL;
        }
        cond_wait_until(&cl->freed, &cl->mu, until);
    }
    if (cl->n_idle) {
        cuzk_cluster_db *db = cl->idle[--cl->n_idle].db;
        pthread_mutex_unlock(&cl->mu);
        return db;
    }
    cl->n_open++;
    pthread_mutex_unlock(&cl->mu);
    char why[512];
    cuzk_cluster_opts o = cl->opts;
    double left_ms = within_ms ? within_ms - (cuzk_now() - t0) * 1000.0 : 0;
    o.open_within_ms = within_ms ? (left_ms < 1 ? 1 : (uint32_t)left_ms) : 0;
    cuzk_cluster_db *db = NULL;
    if (cuzk_cluster_db_open(&o, &db, why, sizeof why) != CUZK_OK) {
        pthread_mutex_lock(&cl->mu);
        cl->n_open--;
        pthread_cond_signal(&cl->freed);
        pthread_mutex_unlock(&cl->mu);
        cuzk_errf(err, errlen, 0, "%s", why);
        return NULL;
    }
    return db;
}

/* A connection back to the pool, on top: the next call takes it. */
static void db_put(srv_cluster *cl, cuzk_cluster_db *db)
{
    pthread_mutex_lock(&cl->mu);
    if (!cl->n_idle) pthread_cond_signal(&cl->aged); /* the oldest idle one is now this */
    cl->idle[cl->n_idle++] = (pooled){db, cuzk_now()};
    pthread_cond_signal(&cl->freed);
    pthread_mutex_unlock(&cl->mu);
}

/* The cluster layer's error as an RPC status: unknown ids and refused
 * inputs are the caller's; the database unreachable is UNAVAILABLE (retry). */
static int rpc_code(int rc)
{
    switch (rc) {
    case CUZK_OK: return RPC_OK;
    case CUZK_ERR_INVALID_ARG: return RPC_INVALID_ARGUMENT;
    case CUZK_ERR_NO_MEMORY: return RPC_RESOURCE_EXHAUSTED;
    case CUZK_ERR_IO: return RPC_UNAVAILABLE;
    default: return RPC_INTERNAL;
    }
}

int srv_cluster_submit(srv_cluster *cl, const srv_submit_req *r, uint32_t num_partitions, int priority,
                       uint32_t *queue_position, bool *duplicate, char *err, size_t errlen)
{
    cuzk_cluster_db *db = db_get(cl, 0, err, errlen);
    if (!db) return RPC_UNAVAILABLE;
    cuzk_cluster_job j = {.id = r->request_id, .kind = r->kind, .priority = priority,
                          .num_partitions = num_partitions, .payload = r->inputs, .payload_len = r->inputs_len,
                          .timeout_ms = r->timeout_ms};
    char why[512];
    int rc = cuzk_cluster_submit(db, &j, duplicate, queue_position, why, sizeof why);
    db_put(cl, db);
    if (rc != CUZK_OK)
        return cuzk_errf(err, errlen, rpc_code(rc), "%s%s", rc == CUZK_ERR_INVALID_ARG ? "" : "cluster: ", why);
    return RPC_OK;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int64_t mono_ms(void) { return (int64_t)(cuzk_now() * 1000.0); }

/* One look at a job through a pooled connection, held only for the query:
 * a thousand waiting calls must not hold a thousand connections. The look
 * ends by the caller's deadline (left_ms; < 0: none) whatever the database
 * does. */
static int job_get(srv_cluster *cl, const char *job_id, int64_t left_ms, cuzk_cluster_job_info *in, char *why,
                   size_t whylen)
{
    memset(in, 0, sizeof *in);
    uint32_t ms = left_ms < 0 ? 0 : left_ms < 1 ? 1 : left_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)left_ms;
    cuzk_cluster_db *db = db_get(cl, ms, why, whylen);
    if (!db) return CUZK_ERR_IO;
    cuzk_cluster_db_deadline(db, ms);
    int rc = cuzk_cluster_job_get(db, job_id, in, why, whylen);
    cuzk_cluster_db_deadline(db, 0);
    db_put(cl, db);
    return rc;
}

/* The least a look at a job is given: the last look of a wait that runs
 * out is not cut short by it (a healthy database answers in milliseconds,
 * and the answer says whether the job finished), so a wait ends by its
 * limit plus this at most. */
#define LOOK_MIN_MS 500

/* One look at the job within what is left of the wait (at least
 * LOOK_MIN_MS). The database not answering while the wait lasts counts as
 * the job still running (*down set; the connection is reset at the next
 * look): a restarting database does not end the wait. On an error *in is
 * freed. */
static int await_look(srv_cluster *cl, const char *job_id, int64_t timeout_ms, int64_t t0, cuzk_cluster_job_info *in,
                      bool *down, char *why, size_t whylen)
{
    int64_t look_ms = timeout_ms < 0 ? -1 : timeout_ms - (mono_ms() - t0);
    if (look_ms >= 0 && look_ms < LOOK_MIN_MS) look_ms = LOOK_MIN_MS;
    int rc = job_get(cl, job_id, look_ms, in, why, whylen);
    *down = rc == CUZK_ERR_IO && (timeout_ms < 0 || mono_ms() - t0 < timeout_ms);
    if (*down) {
        cuzk_cluster_job_info_free(in);
        memset(in, 0, sizeof *in);
        in->state = CUZK_JOB_RUNNING;
        return CUZK_OK;
    }
    if (rc != CUZK_OK) cuzk_cluster_job_info_free(in);
    return rc;
}

/* A failed look as the call's status. */
static int await_look_failed(int rc, const char *job_id, const char *why, char *err, size_t errlen)
{
    if (rc == CUZK_ERR_IO)
        return cuzk_errf(err, errlen, RPC_UNAVAILABLE, "cluster: job %s: its state is unknown: %s", job_id, why);
    if (rc == CUZK_ERR_INVALID_ARG)
        return cuzk_errf(err, errlen, RPC_NOT_FOUND, "no job %s (never submitted to the cluster, or replaced)",
                         job_id);
    return cuzk_errf(err, errlen, rpc_code(rc), "cluster: %s", why);
}

/* The pause between looks, in slices of at most 50 ms so that a call that
 * ended is noticed promptly, and never past the wait's end. True when the
 * call ended (stop). */
static bool await_pause(int64_t pause, int64_t timeout_ms, int64_t t0, bool (*stop)(void *), void *stop_ud)
{
    for (int64_t left = pause; left > 0;) {
        if (stop && stop(stop_ud)) return true;
        int64_t s = left < 50 ? left : 50;
        if (timeout_ms >= 0 && timeout_ms - (mono_ms() - t0) < s) s = timeout_ms - (mono_ms() - t0);
        if (s <= 0) break;
        sleep_ms(s);
        left -= s;
    }
    return false;
}

/* The job's last look as the call's result; frees *in (a finished job's
 * proof moves to out). */
static void await_outcome(srv_result *out, cuzk_cluster_job_info *in, int64_t timeout_ms)
{
    out->total_ms = in->total_s > 0 ? (uint64_t)(in->total_s * 1000 + 0.5) : 0;
    switch (in->state) {
    case CUZK_JOB_DONE:
        out->outcome = SRV_COMPLETED;
        out->proof = in->proof, out->proof_len = in->proof_len;
        in->proof = NULL;
        break;
    case CUZK_JOB_CANCELLED: out->outcome = SRV_CANCELLED; break;
    case CUZK_JOB_TIMED_OUT: out->outcome = SRV_TIMEOUT; break;
    case CUZK_JOB_FAILED: out->outcome = SRV_FAILED; break;
    default:
        out->outcome = SRV_TIMEOUT;
        out->still_running = true;
        if (asprintf(&out->message, "not finished after %lld ms (%u of %u partitions done, %u being proved in the "
                                    "cluster); the job goes on",
                     (long long)timeout_ms, in->partitions_done, in->num_partitions, in->partitions_claimed) < 0)
            out->message = NULL;
    }
    if (in->state >= CUZK_JOB_FAILED) out->message = strdup(in->message[0] ? in->message : "failed");
    cuzk_cluster_job_info_free(in);
}

int srv_cluster_await(srv_cluster *cl, const char *job_id, int64_t timeout_ms, bool (*stop)(void *), void *stop_ud,
                      srv_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int64_t t0 = mono_ms(), pause = 20;
    cuzk_cluster_job_info in;
    char why[512];
    for (;;) {
        bool down;
        int rc = await_look(cl, job_id, timeout_ms, t0, &in, &down, why, sizeof why);
        if (rc != CUZK_OK) return await_look_failed(rc, job_id, why, err, errlen);
        if (in.state >= CUZK_JOB_DONE) break;
        int64_t used = mono_ms() - t0;
        /* the wait ran out while the database was not answering: the job's
         * state is unknown, which is not "still running" */
        if (timeout_ms >= 0 && used >= timeout_ms && down)
            return cuzk_errf(err, errlen, RPC_UNAVAILABLE, "cluster: job %s: its state is unknown: %s", job_id, why);
        if (timeout_ms >= 0 && used >= timeout_ms) break;
        cuzk_cluster_job_info_free(&in);
        if (await_pause(pause, timeout_ms, t0, stop, stop_ud))
            return cuzk_errf(err, errlen, RPC_CANCELLED, "call cancelled");
        pause = pause * 2 > 250 ? 250 : pause * 2;
    }
    await_outcome(out, &in, timeout_ms);
    return RPC_OK;
}

int srv_cluster_cancel(srv_cluster *cl, const char *job_id, bool *was_running, char *err, size_t errlen)
{
    cuzk_cluster_db *db = db_get(cl, 0, err, errlen);
    if (!db) return RPC_UNAVAILABLE;
    char why[512];
    int rc = cuzk_cluster_cancel(db, job_id, was_running, why, sizeof why);
    db_put(cl, db);
    if (rc == CUZK_ERR_INVALID_ARG)
        return cuzk_errf(err, errlen, strstr(why, "no job") ? RPC_NOT_FOUND : RPC_FAILED_PRECONDITION, "%s", why);
    if (rc != CUZK_OK) return cuzk_errf(err, errlen, rpc_code(rc), "cluster: %s", why);
    return RPC_OK;
}

void srv_cluster_drain(srv_cluster *cl) { cuzk_cluster_node_drain(cl->node); }

void srv_cluster_get_stats(srv_cluster *cl, srv_cluster_stats *out)
{
    cuzk_cluster_host_stats st;
    cuzk_cluster_node_stats(cl->node, &st);
    *out = (srv_cluster_stats){st.slots, st.busy, st.claims, st.completed, st.discarded, st.expired};
}

/* A status call's database work: a status that cannot be had sooner is
 * reported unknown rather than waited for. */
#define VIEW_DEADLINE_MS 3000

int srv_cluster_view(srv_cluster *cl, cuzk_cluster_view *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    cuzk_cluster_db *db = db_get(cl, VIEW_DEADLINE_MS, err, errlen);
    if (!db) return -1;
    cuzk_cluster_db_deadline(db, VIEW_DEADLINE_MS);
    int rc = cuzk_cluster_view_get(db, v, err, errlen);
    cuzk_cluster_db_deadline(db, 0);
    db_put(cl, db);
    return rc == CUZK_OK ? 0 : -1;
}

char *srv_cluster_status_json(srv_cluster *cl)
{
    char err[512], *js = NULL;
    cuzk_cluster_db *db = db_get(cl, VIEW_DEADLINE_MS, err, sizeof err);
    if (!db) return NULL;
    cuzk_cluster_db_deadline(db, VIEW_DEADLINE_MS);
    if (cuzk_cluster_status_json(db, &js, err, sizeof err) != CUZK_OK) js = NULL;
    cuzk_cluster_db_deadline(db, 0);
    db_put(cl, db);
    return js;
}
