/*
 * A host's share of the cluster's work (cuzk/cluster/cluster.h): one thread that,
 * in a loop,
 *   - collects the engine jobs it started (one partition each) and writes
 *     their verified results back, or the reason they failed;
 *   - heart-beats every third of a lease, renewing its claims' leases and
 *     cancelling the engine jobs of claims it lost;
 *   - expires dead hosts' leases every half lease (any host may);
 *   - claims partitions for its free slots, of the kinds whose parameters
 *     fit its engine's memory budget, polling with back-off (50 ms after
 *     work, doubling to 1 s while the queue is empty: no LISTEN/NOTIFY);
 *   - removes payload files no active job needs (after completing a job,
 *     and with the housekeeping), and finished jobs past the retention;
 *   - stops claiming for good once another daemon holds its name (it was
 *     stalled past its lease and the other took the name over).
 * The database being unreachable only delays: every call is retried on the
 * next turn, with the connection reset.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/util/clock.h"
#include "cuzk/cluster/cluster.h"
#include "cuzk/util/error.h"

typedef struct held {
    cuzk_cluster_lease l;
    cuzk_job *job;
    bool lost; /* the claim is no longer ours: the engine job was cancelled, its end is not reported */
    bool unwritten; /* its end could not be written (database unreachable): said once */
    double retry_at; /* then, when to try again */
} held;

struct cuzk_cluster_node {
    cuzk_cluster_db *db;
    cuzk_engine *e;
    unsigned slots;
    char *kinds;       /* what this host registered */
    char *claimable;   /* those of them whose parameters fit its memory budget now */
    uint32_t lease_ms;
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
    pthread_t thread;
    pthread_mutex_t mu; /* guards stop, draining, st */
    pthread_cond_t cv;
    bool stop, draining;
    bool name_lost; /* the thread's own: another daemon took the host name */
    cuzk_cluster_host_stats st;
    held *held; /* the thread's own */
    size_t n_held;
    /* the payload of the last job claimed from: partitions of one job come together */
    int64_t cache_seq;
    uint8_t *cache;
    size_t cache_len;
};

static void nlog(cuzk_cluster_node *n, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void nlog(cuzk_cluster_node *n, int level, const char *fmt, ...)
{
    char *m = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&m, fmt, ap) < 0) m = NULL;
    va_end(ap);
    if (n->log) n->log(n->log_ctx, level, m ? m : fmt);
    else if (level <= 1) fprintf(stderr, "cuzk cluster: %s\n", m ? m : fmt);
    free(m);
}

/* Errors of this host rather than of the request: another host may succeed. */
static bool host_error(int err)
{
    return err == CUZK_ERR_NO_DEVICE || err == CUZK_ERR_DEVICE || err == CUZK_ERR_NO_MEMORY ||
           err == CUZK_ERR_IO || err == CUZK_ERR_CANCELLED || err == CUZK_ERR_INTERNAL;
}

/* Payload files of finished jobs go (cuzk_cluster_payload_gc). */
static void payload_gc(cuzk_cluster_node *n)
{
    char err[512];
    unsigned removed = 0;
    if (cuzk_cluster_payload_gc(n->db, &removed, err, sizeof err) != CUZK_OK)
        nlog(n, 1, "removing payload files of finished jobs: %s", err);
    if (removed) nlog(n, 3, "%u payload file(s) of finished jobs removed", removed);
}

/* An engine job of ours finished: its result (or why not) goes back. false:
 * the database did not take it (unreachable): tried again next turn, while
 * the claim is still ours. */
static bool report(cuzk_cluster_node *n, held *h, int rc)
{
    char err[512];
    cuzk_job_info info;
    cuzk_job_get_info(h->job, &info);
    if (h->lost) return true;
    if (rc == CUZK_OK) {
        const uint8_t *proof;
        size_t len;
        bool acc = false, done = false;
        if (cuzk_job_proof(h->job, &proof, &len) != CUZK_OK || len != CUZK_CLUSTER_PROOF_BYTES) {
            rc = CUZK_ERR_INTERNAL;
        } else if (cuzk_cluster_complete(n->db, &h->l, proof, (uint64_t)(info.prove_s * 1000), &acc, &done, err,
                                         sizeof err) != CUZK_OK) {
            if (!h->unwritten)
                nlog(n, 1, "job %s partition %u: result not written yet (trying every second while the lease "
                     "lasts): %s", h->l.job_id, h->l.partition, err);
            h->unwritten = true;
            return false;
        } else {
            pthread_mutex_lock(&n->mu);
            if (acc) n->st.completed++;
            else n->st.discarded++;
            pthread_mutex_unlock(&n->mu);
            nlog(n, acc ? 2 : 1, "job %s partition %u (attempt %u): %s%s", h->l.job_id, h->l.partition,
                 h->l.attempt, acc ? "proved and verified here, written back" : "result discarded: the lease was lost",
                 done ? "; the job is complete" : "");
            if (done) payload_gc(n); /* its payload file, unless another active job shares it */
            return true;
        }
    }
    bool retry = host_error(rc);
    const char *why = info.message && info.message[0] ? info.message : cuzk_strerror(rc);
    if (!h->unwritten)
        nlog(n, 1, "job %s partition %u: %s (%s)", h->l.job_id, h->l.partition, why,
             retry ? "back to the queue" : "the job fails");
    if (cuzk_cluster_fail(n->db, &h->l, retry, why, err, sizeof err) != CUZK_OK) {
        if (!h->unwritten) nlog(n, 1, "job %s partition %u: failure not written yet: %s", h->l.job_id, h->l.partition, err);
        h->unwritten = true;
        return false;
    }
    return true;
}

static void reap(cuzk_cluster_node *n, bool *progressed)
{
    size_t w = 0;
    for (size_t i = 0; i < n->n_held; i++) {
        held *h = &n->held[i];
        int rc = h->retry_at > cuzk_now() ? CUZK_ERR_NOT_READY : cuzk_job_await(h->job, 0);
        if (rc == CUZK_ERR_NOT_READY) {
            n->held[w++] = *h;
            continue;
        }
        if (!report(n, h, rc)) {
            h->retry_at = cuzk_now() + 1.0;
            n->held[w++] = *h;
            continue;
        }
        cuzk_job_release(h->job);
        *progressed = true;
    }
    n->n_held = w;
    pthread_mutex_lock(&n->mu);
    n->st.busy = (unsigned)w;
    pthread_mutex_unlock(&n->mu);
}

/* Another daemon runs under this host's name (this one stalled past its
 * lease): its claims were released when the other joined, so the engine
 * jobs in hand are stopped, and nothing more is claimed under a name that
 * is not this daemon's. */
static void name_lost(cuzk_cluster_node *n, const char *why)
{
    n->name_lost = true;
    for (size_t i = 0; i < n->n_held; i++)
        if (!n->held[i].lost) {
            n->held[i].lost = true;
            cuzk_job_cancel(n->held[i].job);
        }
    nlog(n, 0, "%s: this daemon stops claiming and drops the %zu partitions in hand; give one of the two "
               "daemons another cluster.host and restart it", why, n->n_held);
}

static void heartbeat(cuzk_cluster_node *n)
{
    char err[512];
    cuzk_cluster_lease *ls = calloc(n->n_held + 1, sizeof *ls);
    bool *lost = calloc(n->n_held + 1, sizeof *lost);
    if (!ls || !lost) {
        free(ls);
        free(lost);
        return;
    }
    for (size_t i = 0; i < n->n_held; i++) ls[i] = n->held[i].l;
    pthread_mutex_lock(&n->mu);
    cuzk_cluster_host_stats st = n->st;
    pthread_mutex_unlock(&n->mu);
    int rc = cuzk_cluster_heartbeat(n->db, &st, ls, n->n_held, lost, err, sizeof err);
    if (rc == CUZK_ERR_INVALID_ARG) {
        name_lost(n, err);
    } else if (rc != CUZK_OK) {
        nlog(n, 1, "heartbeat: %s", err);
    } else {
        for (size_t i = 0; i < n->n_held; i++)
            if (lost[i] && !n->held[i].lost) {
                n->held[i].lost = true;
                cuzk_job_cancel(n->held[i].job);
                nlog(n, 1, "job %s partition %u: claim lost (lease ran out, or the job was cancelled or failed); "
                     "stopped here", n->held[i].l.job_id, n->held[i].l.partition);
            }
    }
    free(ls);
    free(lost);
}

static void expire(cuzk_cluster_node *n)
{
    char err[512];
    unsigned leases = 0, timed_out = 0;
    if (cuzk_cluster_expire(n->db, &leases, &timed_out, err, sizeof err) != CUZK_OK) {
        nlog(n, 1, "expiring leases: %s", err);
        return;
    }
    if (leases) nlog(n, 1, "%u partition lease(s) ran out (their hosts stopped heart-beating): back in the queue", leases);
    if (timed_out) nlog(n, 1, "%u job(s) past their deadline timed out", timed_out);
    payload_gc(n); /* failed, cancelled, timed out: nobody completes those */
    unsigned pruned = 0;
    if (cuzk_cluster_prune(n->db, &pruned, err, sizeof err) != CUZK_OK)
        nlog(n, 1, "deleting finished jobs past the retention: %s", err);
    else if (pruned)
        nlog(n, 3, "%u finished job(s) past the retention deleted", pruned);
    pthread_mutex_lock(&n->mu);
    n->st.expired += leases;
    pthread_mutex_unlock(&n->mu);
}

/* Starts the engine job of one claim; false when it could not (reported). */
static bool start_claim(cuzk_cluster_node *n, const cuzk_cluster_lease *l)
{
    char err[512];
    if (n->cache_seq != l->job_seq || !n->cache) {
        free(n->cache);
        n->cache = NULL;
        n->cache_seq = 0;
        if (cuzk_cluster_payload(n->db, l->job_seq, &n->cache, &n->cache_len, err, sizeof err) != CUZK_OK) {
            char err2[512];
            nlog(n, 1, "job %s: payload: %s", l->job_id, err);
            /* not written: the lease runs out instead */
            cuzk_cluster_fail(n->db, l, true, err, err2, sizeof err2);
            return false;
        }
        n->cache_seq = l->job_seq;
    }
    /* unique per claim: the engine keeps finished jobs' ids for duplicates */
    char *id = NULL;
    if (asprintf(&id, "cluster/%s/%lld/%u/%u", l->job_id, (long long)l->job_seq, l->partition, l->attempt) < 0)
        return false;
    char why[512] = "";
    cuzk_job_request rq = {.request_id = id, .kind = l->kind, .inputs = n->cache, .inputs_len = n->cache_len,
                           .priority = (cuzk_priority)l->priority, .one_partition = true,
                           .partition = l->partition, .error = why, .error_len = sizeof why};
    cuzk_job *job = NULL;
    int rc = cuzk_engine_submit(n->e, &rq, &job, NULL);
    free(id);
    if (rc != CUZK_OK) {
        bool retry = host_error(rc);
        const char *msg = why[0] ? why : cuzk_strerror(rc);
        nlog(n, 1, "job %s partition %u: %s (%s)", l->job_id, l->partition, msg,
             retry ? "back to the queue" : "the job fails");
        if (cuzk_cluster_fail(n->db, l, retry, msg, err, sizeof err) != CUZK_OK)
            nlog(n, 1, "job %s partition %u: failure not written: %s", l->job_id, l->partition, err);
        return false;
    }
    n->held[n->n_held++] = (held){.l = *l, .job = job};
    nlog(n, 3, "job %s partition %u (attempt %u): claimed", l->job_id, l->partition, l->attempt);
    return true;
}

/* n->claimable: the kinds whose parameters and one partition fit in the
 * engine's memory budget. Another kind would be claimed only to fail with
 * CUZK_ERR_NO_MEMORY and go back to the queue, using up its attempts; the
 * hosts that can hold it prove it. A change is logged. */
static void claimable_kinds(cuzk_cluster_node *n)
{
    size_t len = strlen(n->kinds);
    char *fit = malloc(len + 1), *skip = malloc(len + 1), *list = strdup(n->kinds);
    if (!fit || !skip || !list) goto out;
    fit[0] = skip[0] = '\0';
    char *save = NULL;
    for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        bool fits = true; /* a kind the engine does not know is the claim's business */
        cuzk_engine_kind_fits(n->e, k, &fits);
        char *to = fits ? fit : skip;
        if (to[0]) strcat(to, ",");
        strcat(to, k);
    }
    if (!n->claimable || strcmp(n->claimable, fit)) {
        if (skip[0])
            nlog(n, 1, "not claiming %s: their parameters and one partition exceed this host's memory budget "
                       "(other hosts prove them)", skip);
        else if (n->claimable)
            nlog(n, 2, "claiming every kind again: %s", fit);
        free(n->claimable);
        n->claimable = fit;
        fit = NULL;
    }
out:
    free(fit);
    free(skip);
    free(list);
}

static size_t claim(cuzk_cluster_node *n)
{
    size_t free_slots = n->slots > n->n_held ? n->slots - n->n_held : 0;
    if (!free_slots) return 0;
    claimable_kinds(n);
    if (!n->claimable || !n->claimable[0]) return 0;
    cuzk_cluster_lease *ls = calloc(free_slots, sizeof *ls);
    if (!ls) return 0;
    char err[512];
    size_t got = 0;
    if (cuzk_cluster_claim(n->db, n->claimable, free_slots, ls, &got, err, sizeof err) != CUZK_OK) {
        nlog(n, 1, "claiming: %s", err);
        got = 0;
    }
    pthread_mutex_lock(&n->mu);
    n->st.claims += got;
    pthread_mutex_unlock(&n->mu);
    for (size_t i = 0; i < got; i++) start_claim(n, &ls[i]);
    free(ls);
    return got;
}

static void *node_main(void *arg)
{
    cuzk_cluster_node *n = arg;
    double next_hb = 0, next_exp = 0, next_claim = 0, idle = 0.05;
    for (;;) {
        pthread_mutex_lock(&n->mu);
        bool stop = n->stop, draining = n->draining;
        pthread_mutex_unlock(&n->mu);
        if (stop) break;
        bool progressed = false;
        reap(n, &progressed);
        double t = cuzk_now();
        if (t >= next_hb && !n->name_lost) {
            heartbeat(n);
            next_hb = t + n->lease_ms / 3000.0;
        }
        if (t >= next_exp) {
            expire(n);
            next_exp = t + n->lease_ms / 2000.0;
        }
        if (!draining && !n->name_lost && t >= next_claim && n->n_held < n->slots) {
            size_t got = claim(n);
            /* back-off while the queue is empty; at once after work */
            idle = got ? 0.05 : (progressed ? 0.05 : idle * 2 > 1.0 ? 1.0 : idle * 2);
            next_claim = cuzk_now() + (got ? 0 : idle);
        } else if (progressed) {
            next_claim = 0;
        }
        /* 50 ms turns: finished engine jobs are written back promptly */
        pthread_mutex_lock(&n->mu);
        if (!n->stop) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
            pthread_cond_timedwait(&n->cv, &n->mu, &ts);
        }
        pthread_mutex_unlock(&n->mu);
    }
    return NULL;
}

/* Joins under the host name. A previous daemon of this name (killed) is
 * seen dead one lease after its last heartbeat: the name is asked for
 * again until then, and refused only past it. */
static int join_name(cuzk_cluster_node *n, char *err, size_t errlen)
{
    double until = cuzk_now() + n->lease_ms / 1000.0 + 1.0;
    for (bool waited = false;; waited = true) {
        int rc = cuzk_cluster_host_join(n->db, n->slots, n->kinds, err, errlen);
        if (rc != CUZK_ERR_INVALID_ARG || cuzk_now() >= until) return rc;
        if (!waited) nlog(n, 1, "%s; waiting up to one lease for it to be seen dead", err);
        struct timespec ts = {0, 250 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int cuzk_cluster_node_start(const cuzk_cluster_node_opts *o, cuzk_cluster_node **out, char *err, size_t errlen)
{
    *out = NULL;
    cuzk_cluster_node *n = calloc(1, sizeof *n);
    if (!n) return snprintf(err, errlen, "out of memory"), CUZK_ERR_NO_MEMORY;
    n->e = o->engine;
    n->slots = o->slots ? o->slots : 2;
    n->kinds = strdup(o->kinds ? o->kinds : "");
    n->lease_ms = o->db.lease_ms ? o->db.lease_ms : 30000;
    n->log = o->log, n->log_ctx = o->log_ctx;
    n->held = calloc(n->slots, sizeof *n->held);
    pthread_mutex_init(&n->mu, NULL);
    pthread_cond_init(&n->cv, NULL);
    n->st.slots = n->slots;
    int rc = n->kinds && n->held ? cuzk_cluster_db_open(&o->db, &n->db, err, errlen) : CUZK_ERR_NO_MEMORY;
    if (rc == CUZK_OK) rc = join_name(n, err, errlen);
    if (rc == CUZK_OK && pthread_create(&n->thread, NULL, node_main, n) != 0) {
        snprintf(err, errlen, "cluster: cannot start the node's thread");
        rc = CUZK_ERR_NO_MEMORY;
    }
    if (rc != CUZK_OK) {
        cuzk_cluster_db_close(n->db);
        pthread_mutex_destroy(&n->mu);
        pthread_cond_destroy(&n->cv);
        free(n->held);
        free(n->kinds);
        free(n);
        return rc;
    }
    nlog(n, 2, "cluster: host %s joined %s (%u slots, lease %.1f s, kinds %s)", o->db.host,
         cuzk_cluster_db_where(n->db), n->slots, n->lease_ms / 1000.0, n->kinds);
    *out = n;
    return CUZK_OK;
}

void cuzk_cluster_node_drain(cuzk_cluster_node *n)
{
    if (!n) return;
    pthread_mutex_lock(&n->mu);
    if (!n->draining) nlog(n, 2, "cluster: draining: no new claims; the partitions in hand finish");
    n->draining = true;
    pthread_mutex_unlock(&n->mu);
}

void cuzk_cluster_node_stop(cuzk_cluster_node *n)
{
    if (!n) return;
    pthread_mutex_lock(&n->mu);
    n->stop = true;
    pthread_cond_broadcast(&n->cv);
    pthread_mutex_unlock(&n->mu);
    pthread_join(n->thread, NULL);
    /* results finished since the last turn (a drain) are written; what is
     * still in hand goes back to the queue for the others */
    bool progressed = false;
    reap(n, &progressed);
    for (size_t i = 0; i < n->n_held; i++) {
        cuzk_job_cancel(n->held[i].job);
        cuzk_job_release(n->held[i].job);
    }
    char err[512];
    if (cuzk_cluster_host_leave(n->db, err, sizeof err) != CUZK_OK) nlog(n, 1, "leaving: %s", err);
    else nlog(n, 2, "cluster: left (%zu partitions in hand given back)", n->n_held);
    cuzk_cluster_db_close(n->db);
    pthread_mutex_destroy(&n->mu);
    pthread_cond_destroy(&n->cv);
    free(n->held);
    free(n->kinds);
    free(n->claimable);
    free(n->cache);
    free(n);
}

void cuzk_cluster_node_stats(cuzk_cluster_node *n, cuzk_cluster_host_stats *out)
{
    pthread_mutex_lock(&n->mu);
    *out = n->st;
    pthread_mutex_unlock(&n->mu);
}
