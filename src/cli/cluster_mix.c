/*
 * The cluster's whole statement mix (cluster_mix.h). Each simulated daemon
 * is one thread with two connections, as a daemon has its node's and (at
 * least) one pooled for its RPCs, and does on them what src/cluster/node.c
 * and src/server/dispatch_cluster.c do, at their pace, through the same
 * cluster calls:
 *   node: claims for free slots (50 ms after work, doubling to 1 s while
 *     the queue is empty), the payload at its first claim of a job, the
 *     completion when the simulated GPU is done with a partition (one at a
 *     time, prove_ms each; no proving), payload files removed after a job
 *     it completed, heartbeats every third of a lease, the housekeeping
 *     pass (expiry, payload files, retention) every half lease;
 *   RPCs: its share of the cluster's submissions (load × its proving
 *     rate), an AwaitProof per job polling the job's row (at once, then
 *     after 20 ms doubling to 250 ms) until it is done, GetStatus
 *     (status_per_s: the view's two statements).
 * Every call's latency and statements are counted by kind over the
 * measured run.
 */
#define _GNU_SOURCE
#include "cli/cluster_mix.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"

enum { OP_CLAIM, OP_PAYLOAD, OP_COMPLETE, OP_HEARTBEAT, OP_HOUSEKEEP, OP_GC, OP_SUBMIT, OP_POLL, OP_STATUS, OP_N };
static const char *const op_names[OP_N] = {"claim",     "payload", "complete", "heartbeat", "housekeeping",
                                           "files gc",  "submit",  "await poll", "getstatus"};

/* One kind of call: how often, its statements, its latencies (ms). */
typedef struct op_stat {
    uint64_t calls, statements, errors;
    double *ms;
    size_t n, cap;
} op_stat;

typedef struct held_part {
    cuzk_cluster_lease l;
    double done_at; /* the simulated GPU finishes it */
} held_part;

typedef struct await_call {
    char id[64];
    double next, pause, since;
} await_call;

typedef struct sim_host {
    const cluster_mix_cfg *c;
    cuzk_cluster_opts o;
    char name[40];
    unsigned index;
    cuzk_cluster_db *node, *rpc;
    held_part *held;
    size_t n_held;
    int64_t cache_seq;
    double gpu_free, idle, next_claim, next_hb, next_hk, next_submit, next_status;
    await_call *waits;
    size_t n_waits, cap_waits;
    unsigned submitted;
    double t_measure, t_end;
    op_stat op[OP_N];
    uint64_t completed, jobs_done;
    double *job_s;
    size_t n_job, cap_job;
} sim_host;

static atomic_bool mix_go;
static atomic_uint mix_ready; /* hosts connected and joined, or given up */
/* Daemons start at different times: one connects at a time, not hundreds
 * at once (a small server's postmaster forks backends one after another,
 * and hundreds waiting ran past connect_timeout). */
static pthread_mutex_t mix_open_mu = PTHREAD_MUTEX_INITIALIZER;

static void push_ms(double **a, size_t *n, size_t *cap, double v)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 256;
        double *q = realloc(*a, nc * sizeof *q);
        if (!q) return;
        *a = q, *cap = nc;
    }
    (*a)[(*n)++] = v;
}

/* Counts one call of kind k on db that started at t0 with s0 statements. */
static void count_op(sim_host *h, int k, cuzk_cluster_db *db, double t0, uint64_t s0, int rc)
{
    double t = cuzk_now();
    if (t0 < h->t_measure) return;
    op_stat *s = &h->op[k];
    s->calls++;
    s->statements += cuzk_cluster_db_statements(db) - s0;
    s->errors += rc != CUZK_OK;
    push_ms(&s->ms, &s->n, &s->cap, (t - t0) * 1e3);
}

#define TIMED(h, k, db, call)                                                                            \
    do {                                                                                               \
        double t0_ = cuzk_now();                                                                       \
        uint64_t s0_ = cuzk_cluster_db_statements(db);                                                 \
        int rc_ = (call);                                                                              \
        count_op(h, k, db, t0_, s0_, rc_);                                                             \
    } while (0)

static void node_reap(sim_host *h, double now)
{
    static const uint8_t proof[CUZK_CLUSTER_PROOF_BYTES] = {0x5a};
    char err[512];
    size_t w = 0;
    for (size_t i = 0; i < h->n_held; i++) {
        held_part *p = &h->held[i];
        if (p->done_at > now) {
            h->held[w++] = *p;
            continue;
        }
        bool acc = false, done = false;
        TIMED(h, OP_COMPLETE, h->node,
              cuzk_cluster_complete(h->node, &p->l, proof, h->c->prove_ms, &acc, &done, err, sizeof err));
        if (now >= h->t_measure) h->completed += acc;
        unsigned removed;
        if (done) TIMED(h, OP_GC, h->node, cuzk_cluster_payload_gc(h->node, &removed, err, sizeof err));
    }
    h->n_held = w;
}

static void node_claim(sim_host *h, double now)
{
    if (now < h->next_claim || h->n_held >= h->c->slots) return;
    cuzk_cluster_lease ls[16];
    size_t want = h->c->slots - h->n_held, got = 0;
    char err[512];
    if (want > 16) want = 16;
    TIMED(h, OP_CLAIM, h->node, cuzk_cluster_claim(h->node, "cuzk-mix", want, ls, &got, err, sizeof err));
    for (size_t i = 0; i < got; i++) {
        if (ls[i].job_seq != h->cache_seq) {
            uint8_t *pl = NULL;
            size_t len = 0;
            TIMED(h, OP_PAYLOAD, h->node, cuzk_cluster_payload(h->node, ls[i].job_seq, &pl, &len, err, sizeof err));
            free(pl);
            h->cache_seq = ls[i].job_seq;
        }
        h->gpu_free = (h->gpu_free > now ? h->gpu_free : now) + h->c->prove_ms / 1000.0;
        h->held[h->n_held++] = (held_part){ls[i], h->gpu_free};
    }
    h->idle = got ? 0.05 : h->idle * 2 > 1.0 ? 1.0 : h->idle * 2;
    h->next_claim = now + (got ? 0 : h->idle);
}

static void node_turn(sim_host *h, double now)
{
    char err[512];
    size_t n0 = h->n_held;
    node_reap(h, now);
    if (h->n_held < n0) h->next_claim = now; /* at once after work, as the node */
    if (now >= h->next_hb) {
        cuzk_cluster_lease ls[16];
        bool lost[16];
        for (size_t i = 0; i < h->n_held; i++) ls[i] = h->held[i].l;
        cuzk_cluster_host_stats st = {.slots = h->c->slots, .busy = (unsigned)h->n_held};
        TIMED(h, OP_HEARTBEAT, h->node, cuzk_cluster_heartbeat(h->node, &st, ls, h->n_held, lost, err, sizeof err));
        h->next_hb = now + h->o.lease_ms / 3000.0;
    }
    if (now >= h->next_hk) {
        unsigned a, b;
        TIMED(h, OP_HOUSEKEEP, h->node, cuzk_cluster_expire(h->node, &a, &b, err, sizeof err));
        TIMED(h, OP_GC, h->node, cuzk_cluster_payload_gc(h->node, &a, err, sizeof err));
        TIMED(h, OP_HOUSEKEEP, h->node, cuzk_cluster_prune(h->node, &a, err, sizeof err));
        h->next_hk = now + h->o.lease_ms / 2000.0;
    }
    node_claim(h, now);
}

static void rpc_submit(sim_host *h, double now)
{
    if (h->n_waits == h->cap_waits) {
        size_t nc = h->cap_waits ? 2 * h->cap_waits : 16;
        await_call *q = realloc(h->waits, nc * sizeof *q);
        if (!q) return;
        h->waits = q, h->cap_waits = nc;
    }
    char id[64];
    snprintf(id, sizeof id, "mix-%s-%u", h->name, h->submitted++);
    uint8_t payload[256];
    memset(payload, 0x33, sizeof payload);
    memcpy(payload, id, strlen(id)); /* each job its own digest */
    cuzk_cluster_job j = {.id = id, .kind = "cuzk-mix", .priority = CUZK_PRIORITY_NORMAL,
                          .num_partitions = h->c->partitions, .payload = payload, .payload_len = sizeof payload};
    bool dup;
    uint32_t pos;
    char err[512];
    TIMED(h, OP_SUBMIT, h->rpc, cuzk_cluster_submit(h->rpc, &j, &dup, &pos, err, sizeof err));
    await_call *w = &h->waits[h->n_waits++];
    *w = (await_call){.next = now, .pause = 0.02, .since = now};
    snprintf(w->id, sizeof w->id, "%s", id);
}

static void rpc_polls(sim_host *h, double now)
{
    char err[512];
    size_t w = 0;
    for (size_t i = 0; i < h->n_waits; i++) {
        await_call *a = &h->waits[i];
        bool done = false;
        if (a->next <= now) {
            cuzk_cluster_job_info in;
            TIMED(h, OP_POLL, h->rpc, cuzk_cluster_job_get(h->rpc, a->id, &in, err, sizeof err));
            done = in.state >= CUZK_JOB_DONE;
            cuzk_cluster_job_info_free(&in);
            a->next = cuzk_now() + a->pause;
            a->pause = a->pause * 2 > 0.25 ? 0.25 : a->pause * 2;
        }
        if (!done) {
            h->waits[w++] = *a;
        } else if (a->since >= h->t_measure) {
            h->jobs_done++;
            push_ms(&h->job_s, &h->n_job, &h->cap_job, cuzk_now() - a->since);
        }
    }
    h->n_waits = w;
}

static void rpc_turn(sim_host *h, double now)
{
    double every = h->c->partitions * (h->c->prove_ms / 1000.0) / h->c->load;
    if (now >= h->next_submit) {
        rpc_submit(h, now);
        h->next_submit += every;
    }
    rpc_polls(h, now);
    if (h->c->status_per_s > 0 && now >= h->next_status) {
        cuzk_cluster_view v;
        char err[512];
        TIMED(h, OP_STATUS, h->rpc, cuzk_cluster_view_get(h->rpc, &v, err, sizeof err));
        cuzk_cluster_view_free(&v);
        h->next_status = now + 1.0 / h->c->status_per_s;
    }
}

/* The earliest thing due, at most 50 ms away (the node's turn). */
static double next_due(const sim_host *h, double now)
{
    double t = now + 0.05;
    double cand[4] = {h->next_submit, h->n_held < h->c->slots ? h->next_claim : t, h->next_hb, h->next_hk};
    for (int i = 0; i < 4; i++)
        if (cand[i] < t) t = cand[i];
    for (size_t i = 0; i < h->n_held; i++)
        if (h->held[i].done_at < t) t = h->held[i].done_at;
    for (size_t i = 0; i < h->n_waits; i++)
        if (h->waits[i].next < t) t = h->waits[i].next;
    return t;
}

static void sleep_until(double t)
{
    double d = t - cuzk_now();
    if (d <= 0) return;
    struct timespec ts = {(time_t)d, (long)((d - (time_t)d) * 1e9)};
    nanosleep(&ts, NULL);
}

static bool host_open(sim_host *h)
{
    char err[512];
    h->o.host = h->name;
    /* as a daemon: its start migrates, its RPC connections only check */
    cuzk_cluster_opts rpc = h->o;
    rpc.schema_check_only = true;
    if (cuzk_cluster_db_open(&h->o, &h->node, err, sizeof err) ||
        cuzk_cluster_host_join(h->node, h->c->slots, "cuzk-mix", err, sizeof err) ||
        cuzk_cluster_db_open(&rpc, &h->rpc, err, sizeof err)) {
        cli_errorf("%s: %s", h->name, err);
        return false;
    }
    return true;
}

static void *host_main(void *arg)
{
    sim_host *h = arg;
    h->held = calloc(h->c->slots, sizeof *h->held);
    pthread_mutex_lock(&mix_open_mu);
    bool ok = h->held && host_open(h);
    pthread_mutex_unlock(&mix_open_mu);
    atomic_fetch_add(&mix_ready, 1);
    while (!atomic_load(&mix_go)) usleep(1000);
    double now = cuzk_now(), every = h->c->partitions * (h->c->prove_ms / 1000.0) / h->c->load;
    /* daemons started at different times: their timers are spread */
    double u = (h->index + 0.5) / h->c->hosts;
    h->idle = 0.05, h->next_claim = now;
    h->next_hb = now + u * h->o.lease_ms / 3000.0, h->next_hk = now + u * h->o.lease_ms / 2000.0;
    h->next_submit = now + u * every, h->next_status = now + u / (h->c->status_per_s > 0 ? h->c->status_per_s : 1);
    while (ok && (now = cuzk_now()) < h->t_end) {
        node_turn(h, now);
        rpc_turn(h, cuzk_now());
        sleep_until(next_due(h, cuzk_now()));
    }
    char err[512];
    bool was;
    /* the next run starts from an empty queue: jobs still awaited go */
    for (size_t i = 0; h->rpc && i < h->n_waits; i++) cuzk_cluster_cancel(h->rpc, h->waits[i].id, &was, err, sizeof err);
    if (h->node) cuzk_cluster_host_leave(h->node, err, sizeof err);
    cuzk_cluster_db_close(h->node);
    cuzk_cluster_db_close(h->rpc);
    if (!ok) h->op[OP_CLAIM].errors++;
    return NULL;
}

static int cmp_ms(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Host hs[i]'s op k merged into all. */
static void merge_op(op_stat *all, const op_stat *s)
{
    all->calls += s->calls, all->statements += s->statements, all->errors += s->errors;
    for (size_t i = 0; i < s->n; i++) push_ms(&all->ms, &all->n, &all->cap, s->ms[i]);
}

static double pct(const double *v, size_t n, double p) { return n ? v[(size_t)(p * (double)(n - 1))] : 0; }

static uint64_t report(sim_host *hs, const cluster_mix_cfg *c)
{
    op_stat all[OP_N] = {0};
    uint64_t errors = 0, stmts = 0, completed = 0, jobs = 0;
    double *job_s = NULL;
    size_t nj = 0, cj = 0;
    for (unsigned i = 0; i < c->hosts; i++) {
        for (int k = 0; k < OP_N; k++) merge_op(&all[k], &hs[i].op[k]);
        completed += hs[i].completed, jobs += hs[i].jobs_done;
        for (size_t j = 0; j < hs[i].n_job; j++) push_ms(&job_s, &nj, &cj, hs[i].job_s[j]);
    }
    double per = (double)c->hosts * c->seconds;
    printf("  %-13s %12s %12s %9s %9s %9s %9s\n", "call", "calls/s/host", "stmts/s/host", "p50 ms", "p99 ms",
           "max ms", "errors");
    for (int k = 0; k < OP_N; k++) {
        op_stat *s = &all[k];
        qsort(s->ms, s->n, sizeof *s->ms, cmp_ms);
        printf("  %-13s %12.3f %12.3f %9.2f %9.2f %9.2f %9llu\n", op_names[k], s->calls / per,
               s->statements / per, pct(s->ms, s->n, 0.5), pct(s->ms, s->n, 0.99), s->n ? s->ms[s->n - 1] : 0,
               (unsigned long long)s->errors);
        errors += s->errors, stmts += s->statements;
        free(s->ms);
    }
    qsort(job_s, nj, sizeof *job_s, cmp_ms);
    printf("  statements: %.0f/s in all, %.2f/s per host\n", stmts / (double)c->seconds, stmts / per);
    printf("  partitions completed: %.1f/s (%.3f/s per host); jobs awaited to the end: %llu, "
           "submit to done p50 %.1f s, p99 %.1f s\n",
           completed / (double)c->seconds, completed / per, (unsigned long long)jobs, pct(job_s, nj, 0.5),
           pct(job_s, nj, 0.99));
    free(job_s);
    return errors;
}

int cluster_mix_run(const cuzk_cluster_opts *o, const cluster_mix_cfg *c)
{
    sim_host *hs = calloc(c->hosts, sizeof *hs);
    pthread_t *th = calloc(c->hosts, sizeof *th);
    if (!hs || !th) return cli_errorf("out of memory"), 1;
    /* a lease (10 s at most) of warm-up: every timer has fired once */
    double warm = o->lease_ms && o->lease_ms < 10000 ? o->lease_ms / 1000.0 : 10.0;
    for (unsigned i = 0; i < c->hosts; i++) {
        hs[i] = (sim_host){.c = c, .o = *o, .index = i};
        snprintf(hs[i].name, sizeof hs[i].name, "mix-%u-%u", (unsigned)getpid(), i);
        pthread_create(&th[i], NULL, host_main, &hs[i]);
    }
    while (atomic_load(&mix_ready) < c->hosts) usleep(10000);
    double t0 = cuzk_now();
    for (unsigned i = 0; i < c->hosts; i++) hs[i].t_measure = t0 + warm, hs[i].t_end = t0 + warm + c->seconds;
    atomic_store(&mix_go, true);
    for (unsigned i = 0; i < c->hosts; i++) pthread_join(th[i], NULL);
    printf("load --mix: %u hosts (2 connections each), %u s measured after %.0f s, jobs of %u partitions, "
           "%u slots, %u ms a partition, load %.2f, GetStatus %.2f/s a host\n",
           c->hosts, c->seconds, warm, c->partitions, c->slots, c->prove_ms, c->load, c->status_per_s);
    uint64_t errors = report(hs, c);
    for (unsigned i = 0; i < c->hosts; i++) {
        for (int k = 0; k < OP_N; k++) free(hs[i].op[k].ms);
        free(hs[i].job_s), free(hs[i].waits), free(hs[i].held);
    }
    free(hs);
    free(th);
    return errors ? 1 : 0;
}
