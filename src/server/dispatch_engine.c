/*
 * The binding of the daemon's dispatch interface (dispatch.h) to the proving
 * engine (cuzk/engine/engine.h). Nothing else in src/server includes engine.h but
 * dispatch_cluster.c, the binding of the cluster layer: with [cluster]
 * configured, jobs are stored in the cluster's queue (after the engine's
 * checks, so bad input gets the same errors) and awaited there, and this
 * engine proves the partitions its node claims.
 *
 * Job ids are the engine's request ids. The binding keeps a reference to
 * every unfinished job it submitted, to report queues per kind and to cancel
 * everything on shutdown; finished jobs stay findable in the engine's
 * retention window for AwaitProof.
 */
#define _GNU_SOURCE
#include "server/dispatch.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/util/clock.h"
#include "cuzk/engine/engine.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_kinds.h"
#include "cuzk/util/parallel.h"
#include "server/dispatch_cluster.h"
#include "server/grpc_adapter.h"
#include "server/journal.h"

#define MAX_KINDS 32
/* cuzk_proof_duration_seconds buckets (curio's dashboards read this name) */
static const double dur_le[] = {1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
#define NBUCKETS (sizeof dur_le / sizeof dur_le[0])

typedef struct kind_stats {
    uint64_t completed, failed, buckets[NBUCKETS];
    double dur_sum; /* seconds, completed jobs */
} kind_stats;

typedef struct live_job {
    cuzk_job *job;
    int kind; /* index into kinds */
} live_job;

struct srv_dispatch {
    cuzk_engine *e;
    pthread_mutex_t mu; /* guards live */
    live_job *live;
    size_t n_live, cap_live;
    char kinds[MAX_KINDS][64], circuits[MAX_KINDS][64];
    size_t n_kinds;
    kind_stats stats[MAX_KINDS]; /* guarded by mu: jobs this binding submitted, counted when pruned */
    unsigned workers_per_device;
    void (*log)(int level, const char *msg);
    void (*log_fields)(int level, const char *msg, const log_field *f, size_t n);
    cuzk_engine_prover gpu; /* valid when on_gpu */
    bool on_gpu;
    cuzk_engine_pce pce; /* valid when has_pce */
    bool has_pce;
    unsigned ordinals[CFG_MAX_DEVICES]; /* engine device -> GPU ordinal */
    srv_journal *journal; /* accepted and finished job ids; NULL: none */
    srv_cluster *cl; /* [cluster] configured: jobs live in the cluster's queue */
    /* [daemon] max_queued_jobs: live jobs and submits admitted but not yet
     * in live count against it (guarded by mu) */
    uint32_t max_queued;
    unsigned admitting;
    uint64_t queue_full; /* submits refused on it */
    /* [daemon] max_concurrent_parses: a request's parse at submit holds its
     * C1 (~50 MB at 32 GiB) and what is built from it; the slots bound how
     * many of those exist at once, whatever max_concurrent_calls admits */
    uint32_t parse_slots;
    unsigned parsing;
    uint64_t parse_waits; /* requests that waited for a slot */
    pthread_cond_t parse_cv;
};


/*
 * The engine's job lines as typed fields, for the JSON log. The engine
 * announces a job (job_event) on the thread, and under the lock, where it
 * then logs that job's submitted or end line. Knowing the id, where it ends
 * in the line is known whatever a client put in it (ids hold spaces and
 * colons), and the rest has the engine's fixed grammar:
 *   job ID: KIND submitted[ by PEER] (N partition[s], priority P)
 *   job ID OUTCOME: key=value ...[: reason]
 * Values in the fields point into line (cut with NULs); 0: not such a line.
 */
static _Thread_local char announced[1024]; /* the id of the job whose line comes next on this thread */

static bool all_digits(const char *s) { return *s && strspn(s, "0123456789") == strlen(s); }

static size_t job_line_fields(char *line, log_field *f, size_t cap)
{
    size_t il = strlen(announced), n = 0;
    if (!il || strncmp(line, "job ", 4) || strncmp(line + 4, announced, il)) return 0;
    char *p = line + 4 + il;
    if (!strncmp(p, ": ", 2)) {
        char *sub = strstr(p + 2, " submitted"), *tail = strrchr(p, '(');
        unsigned parts;
        if (!sub || !tail || tail < sub || sscanf(tail, "(%u partition", &parts) != 1) return 0;
        char *prio = strstr(tail, ", priority "), *close = prio ? strchr(prio, ')') : NULL;
        if (!close) return 0;
        *sub = 0, *close = 0;
        f[n++] = LOG_STR("event", "job_submitted");
        f[n++] = LOG_STR("job", announced);
        f[n++] = LOG_STR("kind", p + 2);
        if (!strncmp(sub + 10, " by ", 4) && tail > sub + 15) {
            tail[-1] = 0; /* the space before "(" */
            f[n++] = LOG_STR("peer", sub + 14);
        }
        f[n++] = LOG_NUM("partitions", parts);
        f[n++] = LOG_STR("priority", prio + 11);
        return n;
    }
    char *colon = *p == ' ' ? strstr(p + 1, ": ") : NULL;
    if (!colon) return 0;
    *colon = 0;
    f[n++] = LOG_STR("event", "job_end");
    f[n++] = LOG_STR("job", announced);
    f[n++] = LOG_STR("outcome", p + 1);
    for (char *t = colon + 2; *t && n + 1 < cap;) { /* key=value ..., then ": reason" */
        char *eq = strchr(t, '='), *end = eq ? eq + strcspn(eq, " :") : NULL;
        if (!eq || eq == t || memchr(t, ' ', (size_t)(eq - t))) return 0;
        char stop = *end;
        *eq = 0, *end = 0;
        f[n] = all_digits(eq + 1) ? LOG_NUM(t, strtoll(eq + 1, NULL, 10)) : LOG_STR(t, eq + 1);
        n++;
        if (stop == ':' && end[1] == ' ') {
            f[n++] = LOG_STR("reason", end + 2);
            break;
        }
        t = stop ? end + 1 : end;
    }
    return n;
}

static void engine_log(void *ctx, int level, const char *msg)
{
    srv_dispatch *b = ctx;
    /* engine: 0 error, 1 warning, 2 info, 3 debug */
    int l = level <= 0 ? CFG_LOG_ERROR : level == 1 ? CFG_LOG_WARN : level == 2 ? CFG_LOG_INFO : CFG_LOG_DEBUG;
    if (!b->log) {
        fprintf(stderr, "cuzk engine: %s\n", msg);
        return;
    }
    log_field f[24];
    char *line = b->log_fields && announced[0] ? strdup(msg) : NULL;
    size_t n = line ? job_line_fields(line, f, sizeof f / sizeof f[0]) : 0;
    if (n) b->log_fields(l, msg, f, n);
    else b->log(l, msg);
    announced[0] = 0; /* the announcement is for the line right after it only */
    free(line);
}

/* "auto": what the machine and the daemon's cgroup allow, less headroom
 * (safety_margin, at least 3/10); the log says where the limit came from. */
static uint64_t memory_budget(const cuzk_config *c, srv_dispatch *b)
{
    if (c->total_budget) return c->total_budget;
    char from[4200];
    uint64_t limit = cuzk_engine_memory_limit(NULL, from, sizeof from);
    if (!limit) return 1ull << 30;
    uint64_t budget = cuzk_engine_memory_budget_default(limit, c->safety_margin);
    char msg[4400];
    snprintf(msg, sizeof msg, "memory budget %.1f GiB: %s %.1f GiB less headroom", budget / 1073741824.0, from,
             limit / 1073741824.0);
    const log_field f[] = {LOG_STR("event", "memory_budget"), LOG_NUM("budget", budget), LOG_NUM("limit", limit),
                           LOG_STR("limit_source", from)};
    if (b->log_fields) b->log_fields(CFG_LOG_INFO, msg, f, 4);
    else engine_log(b, 2, msg);
    return budget;
}

/* A directory to write in (the param cache: test parameters, the journal; pce_dir): created if missing. */
static bool dir_writable(const char *path)
{
    bool dir = mkdir(path, 0750) == 0 || errno == EEXIST;
    return dir && access(path, W_OK) == 0;
}
static bool param_cache_writable(const cuzk_config *c) { return dir_writable(c->param_cache); }

/* The engine's job events into the journal (under the engine's lock: one
 * write each; srv_submit fsyncs before the caller hears "accepted"). */
static void job_event(void *ctx, const char *request_id, cuzk_job_state state)
{
    srv_dispatch *b = ctx;
    if (strlen(request_id) < sizeof announced) snprintf(announced, sizeof announced, "%s", request_id);
    if (state == CUZK_JOB_QUEUED) journal_accepted(b->journal, request_id);
    else journal_finished(b->journal, request_id);
}

/* The journal in [daemon] state_dir (the file's, else systemd's
 * StateDirectory= that cfg_finish put there), else the param cache. Without
 * one the daemon still proves; only its answer after a crash is poorer. */
static void journal_start(srv_dispatch *b, const cuzk_config *c)
{
    char dir[CFG_STR_MAX];
    if (c->state_dir[0]) snprintf(dir, sizeof dir, "%s", c->state_dir);
    else if (param_cache_writable(c)) snprintf(dir, sizeof dir, "%s", c->param_cache);
    else dir[0] = '\0';
    char err[CFG_STR_MAX + 128] = "no writable state_dir or param_cache";
    if (c->state_dir[0]) mkdir(dir, 0750); /* a directory the operator named: made if missing */
    if (dir[0]) b->journal = journal_open(dir, b->log, err, sizeof err);
    char m[sizeof err + 160];
    if (b->journal)
        snprintf(m, sizeof m, "job journal %s (%zu jobs lost in an earlier run remembered)", journal_path(b->journal),
                 journal_lost_count(b->journal));
    else
        snprintf(m, sizeof m, "no job journal (%s): after a crash, jobs accepted before it are unknown, not "
                 "reported lost", err);
    engine_log(b, b->journal ? 2 : 1, m);
}

static void add_kind(srv_dispatch *b, const char *name, const char *circuit)
{
    if (b->n_kinds >= MAX_KINDS) return;
    snprintf(b->kinds[b->n_kinds], sizeof b->kinds[0], "%s", name);
    snprintf(b->circuits[b->n_kinds], sizeof b->circuits[0], "%s", circuit);
    b->n_kinds++;
}

static void on_filecoin_kind(void *ud, const char *name, const char *circuit) { add_kind(ud, name, circuit); }

/* Every Filecoin kind whose parameters are in the param cache. */
static int register_filecoin_kinds(srv_dispatch *b, const cuzk_config *c, char *err, size_t errlen)
{
    cuzk_engine_filecoin_opts fo = {
        .param_cache = c->param_cache,
        .read_mode = CUZK_GROTH16_TRUSTED,
        .synth_threads = 0, /* the engine's share per partition ([synthesis] threads) */
        .refuse_test_srs = !c->test_srs,
    };
    char why[512] = "";
    unsigned n = 0;
    int rc = cuzk_engine_register_filecoin(b->e, &fo, on_filecoin_kind, b, &n, why, sizeof why);
    if (rc) return cuzk_errf(err, errlen, -1, "Filecoin kinds: %s", why[0] ? why : cuzk_strerror(rc));
    char m[CFG_STR_MAX + 96];
    if (n) snprintf(m, sizeof m, "%u Filecoin kinds registered from %s", n, c->param_cache);
    else snprintf(m, sizeof m, "no Filecoin parameters in %s: only test kinds can be proved", c->param_cache);
    engine_log(b, 2, m);
    return 0;
}

static int register_test_kinds(srv_dispatch *b, const srv_options *o, char *err, size_t errlen)
{
    const cuzk_config *c = o->cfg;
    /* Parameters go to the param cache when it is usable, so the kinds are
     * loaded from disk like real ones (cold -> hot, preload, evict). */
    bool disk = param_cache_writable(c);
    /* in a cluster every host makes the same parameters (one seed from the
     * database): a request's partitions proved on several hosts must verify
     * against one set; alone, toxic waste from the OS */
    uint64_t seed = 0;
    if (c->cluster_conninfo[0] && srv_cluster_test_seed(c, &seed, err, errlen)) return -1;
    const struct {
        const char *name, *circuit;
        uint32_t parts;
        cuzk_priority prio;
        uint64_t constraints;
    } kinds[3] = {
        {"test-porep", "test-porep", 10, CUZK_PRIORITY_NORMAL, o->test_porep_constraints},
        {"test-window", "test-window", 1, CUZK_PRIORITY_HIGH, o->test_post_constraints},
        {"test-winning", "test-winning", 1, CUZK_PRIORITY_CRITICAL, o->test_post_constraints},
    };
    for (int i = 0; i < 3; i++) {
        char path[CFG_STR_MAX + 96];
        snprintf(path, sizeof path, "%s/cuzk-%s-%llu.params", c->param_cache, kinds[i].circuit,
                 (unsigned long long)kinds[i].constraints);
        cuzk_engine_synthetic_kind k = {
            .name = kinds[i].name,
            .circuit_id = kinds[i].circuit,
            .num_partitions = kinds[i].parts,
            .priority = kinds[i].prio,
            .num_constraints = kinds[i].constraints,
            .num_inputs = 4,
            .params_path = disk ? path : NULL,
            .setup_seed = seed ? (seed + (uint64_t)i) | 1 : 0,
        };
        int rc = cuzk_engine_register_synthetic(b->e, &k, c->threads ? c->threads : 0);
        if (rc != CUZK_OK)
            return cuzk_errf(err, errlen, -1, "test kind %s (%llu constraints): %s", kinds[i].name,
                        (unsigned long long)kinds[i].constraints, cuzk_strerror(rc));
        add_kind(b, kinds[i].name, kinds[i].circuit);
    }
    return 0;
}

/* The binding's own state, before the engine: limits and log sinks. */
static srv_dispatch *dispatch_new(const srv_options *o)
{
    const cuzk_config *c = o->cfg;
    srv_dispatch *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->parse_cv, NULL);
    b->max_queued = c->max_queued_jobs;
    b->parse_slots = c->max_concurrent_parses ? c->max_concurrent_parses : 1;
    b->log = o->log;
    b->log_fields = o->log_fields;
    b->workers_per_device = c->gpu_workers_per_device;
    return b;
}

/* The engine's settings from the daemon's (the memory budget is logged
 * here); the prover and the PCE hooks are chosen after. */
static cuzk_engine_config engine_config_of(const cuzk_config *c, srv_dispatch *b)
{
    return (cuzk_engine_config){
        .synthesis_workers = c->partition_workers,
        .synthesis_threads = c->threads,
        .synthesis_nice = c->synthesis_nice,
        .num_devices = (unsigned)c->n_devices,
        .workers_per_device = c->gpu_workers_per_device,
        .prover_threads = c->gpu_threads,
        .queue_depth = c->max_gpu_queue_depth,
        .max_batch_size = c->max_batch_size,
        .max_batch_wait_ms = (unsigned)c->max_batch_wait_ms,
        .memory_budget = memory_budget(c, b),
        .log = engine_log,
        .log_ctx = b,
        .device_max_errors = c->max_device_errors,
        .cpu_fallback = c->cpu_fallback, /* used with the GPU prover only */
        .keep_host_params = c->keep_host_params,
        .pinned_limit = c->pinned_limit,
        .job_event = job_event,
        .job_event_ctx = b,
    };
}

/* [srs] pce: pre-compiled circuits cached in pce_dir, by default beside the
 * parameters, into ec. Without a usable directory the daemon still proves,
 * through full synthesis. */
static void pce_cache_open(srv_dispatch *b, const cuzk_config *c, cuzk_engine_config *ec)
{
    if (!c->pce) return;
    unsigned pt = c->threads ? c->threads : cuzk_parallel_cpus();
    const char *pdir = c->pce_dir[0] ? c->pce_dir : c->param_cache;
    if (dir_writable(pdir) && cuzk_engine_pce_cache(&b->pce, pdir, pt) == CUZK_OK) {
        b->has_pce = true;
        if (c->pce_verify_background) cuzk_engine_pce_cache_verify_background(&b->pce, true);
        /* the cached files found at start: checked without delaying readiness */
        cuzk_engine_pce_cache_verify_at_start(&b->pce, true);
        ec->pce = &b->pce;
        return;
    }
    char m[CFG_STR_MAX + 96];
    snprintf(m, sizeof m, "%s is not a writable directory: no pre-compiled circuits (full synthesis)%s", pdir,
             c->pce_dir[0] ? "" : "; [srs] pce_dir can name another");
    engine_log(b, 1, m);
}

/* [gpus] devices: the engine on the GPU prover on those ordinals (empty: all
 * GPUs); no GPU (or a build without CUDA): on the CPU prover, as before. */
static int engine_start(srv_dispatch *b, const cuzk_config *c, cuzk_engine_config *ec)
{
    int rc = CUZK_ERR_NO_DEVICE;
    if (cuzk_engine_gpu_prover(&b->gpu, c->devices, (unsigned)c->n_devices) == CUZK_OK) {
        b->on_gpu = true;
        b->gpu.pack_witness = c->pack_witness;
        cuzk_engine_gpu_prover_memory_limit(&b->gpu, c->gpu_memory_limit);
        cuzk_engine_gpu_prover_log_allocations(&b->gpu, c->gpu_log_allocations);
        ec->prover = &b->gpu;
        ec->num_devices = 0; /* one per ordinal */
        rc = cuzk_engine_create(&b->e, ec);
        if (rc == CUZK_ERR_NO_DEVICE) {
            engine_log(b, 1, "GPU devices could not be opened; proving on the CPU");
            cuzk_engine_gpu_prover_free(&b->gpu);
            b->on_gpu = false;
        }
    } else {
        engine_log(b, 2, "no usable CUDA device; proving on the CPU");
    }
    if (!b->on_gpu) {
        ec->prover = NULL;
        ec->num_devices = (unsigned)c->n_devices;
        rc = cuzk_engine_create(&b->e, ec);
    }
    return rc;
}

/* What was made before an engine that did not start. */
static void dispatch_free_unstarted(srv_dispatch *b)
{
    if (b->on_gpu) cuzk_engine_gpu_prover_free(&b->gpu);
    if (b->has_pce) cuzk_engine_pce_cache_free(&b->pce);
    journal_close(b->journal);
    free(b);
}

/* On the GPU prover: each engine device's GPU ordinal, and its name logged. */
static void gpu_devices_note(srv_dispatch *b, const cuzk_config *c)
{
    if (!b->on_gpu) return;
    for (unsigned d = 0; d < cuzk_engine_num_devices(b->e) && d < CFG_MAX_DEVICES; d++)
        b->ordinals[d] = c->n_devices ? c->devices[d] : d;
    for (unsigned d = 0; d < cuzk_engine_num_devices(b->e); d++) {
        char m[320];
        snprintf(m, sizeof m, "prover device %u: %s", d, cuzk_engine_device_name(b->e, d));
        engine_log(b, 2, m);
    }
}

/* [cluster]: this engine joins the cluster's queue with its kinds and as many
 * slots as it has prover workers. */
static int cluster_join(srv_dispatch *b, const cuzk_config *c, char *err, size_t errlen)
{
    char kinds[MAX_KINDS * 65] = "";
    for (size_t i = 0; i < b->n_kinds; i++)
        snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", i ? "," : "", b->kinds[i]);
    unsigned workers = cuzk_engine_num_devices(b->e) * (c->gpu_workers_per_device ? c->gpu_workers_per_device : 2);
    b->cl = srv_cluster_open(c, b->e, kinds, workers, b->log, err, errlen);
    return b->cl ? 0 : -1;
}

srv_dispatch *srv_dispatch_open(const srv_options *o, char *err, size_t errlen)
{
    const cuzk_config *c = o->cfg;
    srv_dispatch *b = dispatch_new(o);
    if (!b) return cuzk_errf(err, errlen, 0, "out of memory"), NULL;
    cuzk_engine_config ec = engine_config_of(c, b);
    journal_start(b, c);
    pce_cache_open(b, c, &ec);
    int rc = engine_start(b, c, &ec);
    if (rc != CUZK_OK) {
        cuzk_errf(err, errlen, 0, "cannot start the engine: %s", cuzk_strerror(rc));
        dispatch_free_unstarted(b);
        return NULL;
    }
    gpu_devices_note(b, c);
    if ((o->test_kinds && register_test_kinds(b, o, err, errlen)) || register_filecoin_kinds(b, c, err, errlen) ||
        (c->cluster_conninfo[0] && cluster_join(b, c, err, errlen))) {
        srv_dispatch_close(b);
        return NULL;
    }
    return b;
}

void srv_dispatch_close(srv_dispatch *b)
{
    if (!b) return;
    srv_cluster_close(b->cl); /* the partitions in hand go back to the cluster */
    srv_cancel_all(b);
    pthread_mutex_lock(&b->mu);
    for (size_t i = 0; i < b->n_live; i++) cuzk_job_release(b->live[i].job);
    b->n_live = 0;
    pthread_mutex_unlock(&b->mu);
    cuzk_engine_destroy(b->e);
    if (b->on_gpu) cuzk_engine_gpu_prover_free(&b->gpu);
    if (b->has_pce) cuzk_engine_pce_cache_free(&b->pce);
    journal_close(b->journal); /* after the engine: its last events are in */
    free(b->live);
    pthread_cond_destroy(&b->parse_cv);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

static int kind_index(const srv_dispatch *b, const char *kind)
{
    for (size_t i = 0; i < b->n_kinds; i++)
        if (!strcmp(b->kinds[i], kind)) return (int)i;
    return -1;
}

static int circuit_index(const srv_dispatch *b, const char *id)
{
    for (size_t i = 0; i < b->n_kinds; i++)
        if (!strcmp(b->circuits[i], id)) return (int)i;
    return -1;
}

bool srv_has_kind(srv_dispatch *b, const char *kind) { return kind_index(b, kind) >= 0; }

/* Drops finished jobs from the live list. Caller holds mu. */
static void prune(srv_dispatch *b)
{
    size_t w = 0;
    for (size_t i = 0; i < b->n_live; i++) {
        cuzk_job_info info;
        cuzk_job_get_info(b->live[i].job, &info);
        if (info.state == CUZK_JOB_QUEUED || info.state == CUZK_JOB_RUNNING) {
            b->live[w++] = b->live[i];
            continue;
        }
        kind_stats *ks = &b->stats[b->live[i].kind];
        if (info.state == CUZK_JOB_DONE) {
            ks->completed++;
            ks->dur_sum += info.total_s;
            for (size_t k = 0; k < NBUCKETS; k++) ks->buckets[k] += info.total_s <= dur_le[k];
        } else if (info.state == CUZK_JOB_FAILED) {
            ks->failed++;
        }
        cuzk_job_release(b->live[i].job);
    }
    b->n_live = w;
}

/* Spelled out so that neither side's numbering can drift silently. */
static cuzk_priority engine_priority(int p)
{
    switch (p) {
    case 1: return CUZK_PRIORITY_LOW;
    case 2: return CUZK_PRIORITY_NORMAL;
    case 3: return CUZK_PRIORITY_HIGH;
    case 4: return CUZK_PRIORITY_CRITICAL;
    default: return CUZK_PRIORITY_DEFAULT;
    }
}

/* Whether request id names a job that is queued or running (a submit of it
 * is then a duplicate, answered whatever the queue holds). */
static bool job_unfinished(srv_dispatch *b, const char *id)
{
    cuzk_job *j = cuzk_engine_find(b->e, id);
    if (!j) return false;
    cuzk_job_info info;
    cuzk_job_get_info(j, &info);
    cuzk_job_release(j);
    return info.state == CUZK_JOB_QUEUED || info.state == CUZK_JOB_RUNNING;
}

/* One more job under max_queued_jobs (a slot in b->admitting until
 * queue_done), or RESOURCE_EXHAUSTED naming the limit. Checked before the
 * request is parsed: a full daemon spends nothing on it. */
static int queue_admit(srv_dispatch *b, const char *id, char *err, size_t errlen)
{
    const bool dup = job_unfinished(b, id);
    pthread_mutex_lock(&b->mu);
    prune(b);
    const size_t held = b->n_live + b->admitting;
    const bool full = !dup && held >= b->max_queued;
    if (full) b->queue_full++;
    else b->admitting++;
    pthread_mutex_unlock(&b->mu);
    if (full)
        return cuzk_errf(err, errlen, RPC_RESOURCE_EXHAUSTED,
                         "queue full: %zu jobs queued or running (daemon.max_queued_jobs = %u); retry when some "
                         "have finished", held, b->max_queued);
    return RPC_OK;
}

static void queue_done(srv_dispatch *b)
{
    pthread_mutex_lock(&b->mu);
    b->admitting--;
    pthread_mutex_unlock(&b->mu);
}

/* A slot of max_concurrent_parses, waited for in 50 ms steps; false when
 * the caller left first (gone). */
static bool parse_enter(srv_dispatch *b, const srv_submit_req *r)
{
    bool waited = false, ok = true;
    pthread_mutex_lock(&b->mu);
    while (b->parsing >= b->parse_slots && ok) {
        waited = true;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000;
        if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&b->parse_cv, &b->mu, &ts);
        ok = !(r->gone && r->gone(r->gone_ud));
    }
    if (ok) b->parsing++;
    b->parse_waits += waited;
    pthread_mutex_unlock(&b->mu);
    return ok;
}

static void parse_leave(srv_dispatch *b)
{
    pthread_mutex_lock(&b->mu);
    b->parsing--;
    pthread_cond_signal(&b->parse_cv);
    pthread_mutex_unlock(&b->mu);
}

static int submit_admitted(srv_dispatch *b, const srv_submit_req *r, int k, uint32_t *queue_position,
                           bool *duplicate, char *err, size_t errlen);

int srv_submit(srv_dispatch *b, const srv_submit_req *r, uint32_t *queue_position, bool *duplicate,
               char *err, size_t errlen)
{
    int k = kind_index(b, r->kind);
    if (k < 0) return cuzk_errf(err, errlen, RPC_UNIMPLEMENTED, "proof kind %s is not registered", r->kind);
    /* a cluster's hosts each prove single partitions: an aggregate (of an NI-PoRep's partitions, or
     * aggregate-seal's of whole proofs, which has no partitions) is made by one daemon's engine */
    if (b->cl && (!strncmp(r->kind, "ni-porep-", 9) || !strcmp(r->kind, CUZK_FIL_AGG_KIND)))
        return cuzk_errf(err, errlen, RPC_UNIMPLEMENTED, "proof kind %s is not served by a cluster ([cluster]): "
                         "its aggregate is made by one daemon's engine (a daemon without [cluster])", r->kind);
    /* the cluster's queue is its database's: bounded there by the hosts' claims */
    int rc = b->cl ? RPC_OK : queue_admit(b, r->request_id, err, errlen);
    if (rc != RPC_OK) return rc;
    if (!parse_enter(b, r)) rc = cuzk_errf(err, errlen, RPC_CANCELLED, "the caller left while its request waited "
                                           "for a parse slot (daemon.max_concurrent_parses = %u)", b->parse_slots);
    else rc = submit_admitted(b, r, k, queue_position, duplicate, err, errlen);
    if (!b->cl) queue_done(b);
    return rc;
}

/* The request parsed (its parse slot held) and queued: the engine's submit,
 * or with [cluster] the engine's checks and the cluster's queue. */
static int submit_admitted(srv_dispatch *b, const srv_submit_req *r, int k, uint32_t *queue_position,
                           bool *duplicate, char *err, size_t errlen)
{
    cuzk_job_request req = {
        .request_id = r->request_id,
        .kind = r->kind,
        .inputs = r->inputs,
        .inputs_len = r->inputs_len,
        .priority = engine_priority(r->priority),
        .timeout_ms = r->timeout_ms,
        .origin = r->origin,
    };
    char why[512] = "";
    req.error = why;
    req.error_len = sizeof why;
    cuzk_job *job = NULL;
    bool dup = false;
    /* the cluster stores the request for any host: here only its checks */
    int rc = b->cl ? cuzk_engine_check_request(b->e, &req) : cuzk_engine_submit(b->e, &req, &job, &dup);
    parse_leave(b);
    if (rc != CUZK_OK && rc != CUZK_ERR_NO_MEMORY && why[0])
        return cuzk_errf(err, errlen, RPC_INVALID_ARGUMENT, "%s", why);
    if (rc == CUZK_ERR_INVALID_ARG)
        return cuzk_errf(err, errlen, RPC_INVALID_ARGUMENT,
                    "%s rejected the request: request_id %s already names a job with other inputs, or the inputs are malformed",
                    r->kind, r->request_id);
    if (rc == CUZK_ERR_NO_MEMORY)
        return cuzk_errf(err, errlen, RPC_RESOURCE_EXHAUSTED, "no memory to queue the job");
    if (rc != CUZK_OK) return cuzk_errf(err, errlen, RPC_INTERNAL, "submit failed: %s", cuzk_strerror(rc));
    journal_sync(b->journal); /* the id is on disk before the caller hears it was accepted */
    if (b->cl) {
        uint32_t parts = 0;
        cuzk_priority prio = CUZK_PRIORITY_DEFAULT;
        cuzk_engine_kind_info(b->e, r->kind, &parts, &prio);
        if (req.priority != CUZK_PRIORITY_DEFAULT) prio = req.priority;
        return srv_cluster_submit(b->cl, r, parts, (int)prio, queue_position, duplicate, err, errlen);
    }
    *duplicate = dup;
    pthread_mutex_lock(&b->mu);
    prune(b);
    uint32_t ahead = 0;
    for (size_t i = 0; i < b->n_live; i++) {
        cuzk_job_info info;
        cuzk_job_get_info(b->live[i].job, &info);
        ahead += info.state == CUZK_JOB_QUEUED;
    }
    *queue_position = ahead;
    bool keep = !dup;
    if (keep && b->n_live == b->cap_live) {
        size_t cap = b->cap_live ? b->cap_live * 2 : 64;
        live_job *q = realloc(b->live, cap * sizeof *q);
        if (q) b->live = q, b->cap_live = cap;
        else keep = false; /* only the per-kind queue counts lose this job */
    }
    if (keep) b->live[b->n_live++] = (live_job){job, k};
    pthread_mutex_unlock(&b->mu);
    if (!keep) cuzk_job_release(job);
    return RPC_OK;
}

static uint64_t ms(double s) { return s > 0 ? (uint64_t)(s * 1000.0 + 0.5) : 0; }

int srv_await(srv_dispatch *b, const char *job_id, int64_t timeout_ms, bool (*stop)(void *),
              void *stop_ud, srv_result *out, char *err, size_t errlen)
{
    if (b->cl) return srv_cluster_await(b->cl, job_id, timeout_ms, stop, stop_ud, out, err, errlen);
    memset(out, 0, sizeof *out);
    cuzk_job *job = cuzk_engine_find(b->e, job_id);
    if (!job && (out->message = journal_lost(b->journal, job_id))) {
        out->outcome = SRV_FAILED; /* a failed proof: clients submit it again */
        return RPC_OK;
    }
    if (!job)
        return cuzk_errf(err, errlen, RPC_NOT_FOUND, "no job %s (never submitted, or finished long ago)", job_id);
    const double t0 = cuzk_now();
    int rc;
    for (;;) {
        int64_t slice = 50;
        if (timeout_ms >= 0) {
            int64_t used = (int64_t)((cuzk_now() - t0) * 1000.0);
            if (timeout_ms - used < slice) slice = timeout_ms - used > 0 ? timeout_ms - used : 0;
        }
        rc = cuzk_job_await(job, slice);
        if (rc != CUZK_ERR_NOT_READY) break;
        if (stop && stop(stop_ud)) {
            cuzk_job_release(job);
            return cuzk_errf(err, errlen, RPC_CANCELLED, "call cancelled");
        }
        if (slice < 50 && timeout_ms >= 0) break; /* the wait ran out */
    }
    cuzk_job_info info;
    cuzk_job_get_info(job, &info);
    out->queue_ms = ms(info.queue_wait_s);
    out->srs_ms = ms(info.srs_load_s);
    out->synthesis_ms = ms(info.synthesis_s);
    out->prove_ms = ms(info.prove_s);
    out->verify_ms = ms(info.verify_s);
    out->total_ms = ms(info.total_s);
    if (rc == CUZK_ERR_NOT_READY) {
        out->outcome = SRV_TIMEOUT;
        out->still_running = true;
        if (asprintf(&out->message, "not finished after %lld ms (%u of %u partitions done); the job goes on",
                     (long long)timeout_ms, info.partitions_done, info.num_partitions) < 0)
            out->message = NULL;
    } else if (rc == CUZK_OK) {
        const uint8_t *p;
        size_t n;
        if (cuzk_job_proof(job, &p, &n) == CUZK_OK && (out->proof = malloc(n ? n : 1))) {
            memcpy(out->proof, p, n);
            out->proof_len = n;
            out->outcome = SRV_COMPLETED;
        } else {
            cuzk_job_release(job);
            return cuzk_errf(err, errlen, RPC_RESOURCE_EXHAUSTED, "no memory for the proof");
        }
    } else {
        out->outcome = rc == CUZK_ERR_CANCELLED ? SRV_CANCELLED : rc == CUZK_ERR_TIMEOUT ? SRV_TIMEOUT : SRV_FAILED;
        out->message = strdup(info.message[0] ? info.message : cuzk_strerror(rc)); /* whole: not cut */
    }
    cuzk_job_release(job);
    return RPC_OK;
}

int srv_cancel(srv_dispatch *b, const char *job_id, const char *why, bool *was_running, char *err, size_t errlen)
{
    if (b->cl) return srv_cluster_cancel(b->cl, job_id, was_running, err, errlen);
    cuzk_job *job = cuzk_engine_find(b->e, job_id);
    char *lost = job ? NULL : journal_lost(b->journal, job_id);
    if (lost) {
        free(lost);
        return cuzk_errf(err, errlen, RPC_FAILED_PRECONDITION, "job %s was lost in a restart: nothing to cancel", job_id);
    }
    if (!job) return cuzk_errf(err, errlen, RPC_NOT_FOUND, "no job %s", job_id);
    cuzk_job_info info;
    cuzk_job_get_info(job, &info);
    *was_running = info.state == CUZK_JOB_RUNNING;
    int rc = cuzk_job_cancel_why(job, why);
    if (rc != CUZK_OK) {
        cuzk_job_get_info(job, &info);
        cuzk_job_release(job);
        return cuzk_errf(err, errlen, RPC_FAILED_PRECONDITION, "job %s already finished (%s)", job_id,
                    cuzk_job_state_name(info.state));
    }
    cuzk_job_release(job);
    return RPC_OK;
}

static int tier_of(cuzk_srs_state s)
{
    return s == CUZK_SRS_HOT ? 0 : s == CUZK_SRS_COLD ? 2 : 1;
}

/* The proto's SRSStatus.Keys of the engine's keys. */
static int keys_of(cuzk_engine_keys k)
{
    switch (k) {
    case CUZK_KEYS_CEREMONY: return 1;
    case CUZK_KEYS_NOT_CEREMONY: return 2;
    case CUZK_KEYS_NO_VK: return 3;
    case CUZK_KEYS_VK: return 4;
    case CUZK_KEYS_UNCHECKED: break;
    }
    return 0;
}

/* "failed to load at <UTC>: <reason>" (malloc'd) when circuit's parameters
 * failed to load, else NULL. */
static char *srs_failure(srv_dispatch *b, const char *circuit)
{
    char *why = NULL, *out = NULL, when[32];
    int64_t t = 0;
    if (cuzk_engine_srs_failure(b->e, circuit, &why, &t) != CUZK_OK || !why) return NULL;
    time_t tt = (time_t)t;
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&tt, &tm));
    if (asprintf(&out, "failed to load at %s: %s", when, why) < 0) out = NULL;
    free(why);
    return out;
}

/* A queue per kind, counting the jobs this binding submitted and holds. */
static void status_local_queues(srv_dispatch *b, srv_status *out)
{
    for (size_t i = 0; i < b->n_kinds && i < 32; i++)
        snprintf(out->queues[i].kind, sizeof out->queues[i].kind, "%s", b->kinds[i]);
    out->n_queues = b->n_kinds < 32 ? b->n_kinds : 32;
    pthread_mutex_lock(&b->mu);
    prune(b);
    for (size_t i = 0; i < b->n_live; i++) {
        cuzk_job_info info;
        cuzk_job_get_info(b->live[i].job, &info);
        if ((size_t)b->live[i].kind >= out->n_queues) continue;
        if (info.state == CUZK_JOB_QUEUED) out->queues[b->live[i].kind].pending++;
        else if (info.state == CUZK_JOB_RUNNING) out->queues[b->live[i].kind].in_progress++;
    }
    pthread_mutex_unlock(&b->mu);
}

/* In a cluster the jobs are the cluster's: a client's back-pressure must see
 * every host's queue, not this engine's partitions. Its queues are added to
 * the kinds' (a kind only the cluster knows gets a queue of its own). */
static void status_cluster_queues(srv_dispatch *b, srv_status *out)
{
    if (srv_cluster_view(b->cl, &out->cluster, out->cluster_error, sizeof out->cluster_error) != 0) {
        /* not the cluster's queue, and not empty either: unknown, said so */
        if (!out->cluster_error[0]) snprintf(out->cluster_error, sizeof out->cluster_error, "database unreachable");
        return;
    }
    out->cluster_error[0] = '\0';
    out->in_cluster = true;
    for (size_t i = 0; i < out->cluster.n_queues; i++) {
        const cuzk_cluster_queue *q = &out->cluster.queues[i];
        size_t k = 0;
        while (k < out->n_queues && strcmp(out->queues[k].kind, q->kind)) k++;
        if (k == out->n_queues) {
            if (k == 32) continue;
            snprintf(out->queues[k].kind, sizeof out->queues[k].kind, "%s", q->kind);
            out->n_queues++;
        }
        out->queues[k].pending += q->jobs_pending;
        out->queues[k].in_progress += q->jobs_running;
    }
}

/* Each circuit's parameters once: tier (failed with the reason), keys. */
static void status_srs(srv_dispatch *b, srv_status *out)
{
    for (size_t i = 0; i < b->n_kinds && out->n_srs < 32; i++) {
        if (circuit_index(b, b->circuits[i]) != (int)i) continue; /* listed once */
        cuzk_srs_state st;
        if (cuzk_engine_srs_state(b->e, b->circuits[i], &st) != CUZK_OK) continue;
        srv_srs *s = &out->srs[out->n_srs++];
        snprintf(s->circuit_id, sizeof s->circuit_id, "%s", b->circuits[i]);
        s->tier = tier_of(st);
        if (st != CUZK_SRS_HOT && st != CUZK_SRS_LOADING && (s->error = srs_failure(b, b->circuits[i])))
            s->tier = 3;
        cuzk_engine_keys keys = CUZK_KEYS_UNCHECKED;
        cuzk_engine_srs_keys(b->e, b->circuits[i], &keys, &s->keys_note);
        s->keys = keys_of(keys);
    }
}

static void status_counters(srv_dispatch *b, srv_status *out)
{
    cuzk_engine_counters c;
    cuzk_engine_get_counters(b->e, &c);
    out->proofs_completed = c.jobs_done;
    out->proofs_failed = c.jobs_failed;
    out->memory_reserved = c.memory_reserved;
    out->memory_budget = c.memory_budget;
    out->memory_pinned = c.memory_pinned;
    out->memory_pinned_limit = c.memory_pinned_limit;
}

/* A prover worker on device d as curio lists it: the device's ordinal, name
 * (GPUStatus has no state field: a failed device says so in its name) and
 * memory, and the job it proves. */
static void status_gpu(srv_dispatch *b, unsigned d, const cuzk_engine_prover_worker *pw, srv_gpu *g)
{
    g->ordinal = b->on_gpu && d < CFG_MAX_DEVICES ? b->ordinals[d] : 0;
    char why[224];
    if (cuzk_engine_device_failed(b->e, d, why, sizeof why))
        snprintf(g->name, sizeof g->name, "%.56s [failed: %.56s]", cuzk_engine_device_name(b->e, d), why);
    else
        snprintf(g->name, sizeof g->name, "%s", b->on_gpu ? cuzk_engine_device_name(b->e, d) : "CPU prover (no GPU)");
    cuzk_engine_device_mem mem; /* zeros when none */
    cuzk_engine_device_memory(b->e, d, &mem);
    g->vram_total = mem.total, g->vram_free = mem.free_bytes;
    g->vram_budget = mem.budget, g->vram_held = mem.held;
    memcpy(g->plan, mem.plan, sizeof g->plan);
    memcpy(g->job_id, pw->job_id, sizeof g->job_id);
    memcpy(g->kind, pw->kind, sizeof g->kind);
}

static void status_gpus(srv_dispatch *b, srv_status *out)
{
    cuzk_engine_prover_worker pw[64];
    size_t npw = cuzk_engine_prover_workers(b->e, pw, 64);
    const unsigned ndev = cuzk_engine_num_devices(b->e);
    for (size_t i = 0; i < npw && out->n_gpus < 64; i++) {
        if (pw[i].device >= ndev) continue; /* the CPU fallback behind failed GPUs */
        status_gpu(b, pw[i].device, &pw[i], &out->gpus[out->n_gpus++]);
    }
}

int srv_get_status(srv_dispatch *b, srv_status *out)
{
    memset(out, 0, sizeof *out);
    status_local_queues(b, out);
    if (b->cl) status_cluster_queues(b, out);
    status_srs(b, out);
    status_counters(b, out);
    status_gpus(b, out);
    return RPC_OK;
}

void srv_status_free(srv_status *st)
{
    for (size_t i = 0; i < st->n_srs; i++) {
        free(st->srs[i].error);
        free(st->srs[i].keys_note);
        st->srs[i].error = st->srs[i].keys_note = NULL;
    }
    cuzk_cluster_view_free(&st->cluster);
}

/* The metrics text, grown as it is written; out of memory frees it and
 * sets p to NULL (every later append is then a no-op). */
typedef struct mtext {
    char *p;
    size_t len, cap;
} mtext;

static void __attribute__((format(printf, 2, 3))) mt_printf(mtext *t, const char *fmt, ...)
{
    if (!t->p) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = 2 * t->cap + (size_t)n + 1;
        char *q = realloc(t->p, cap);
        if (!q) {
            free(t->p);
            t->p = NULL;
            return;
        }
        t->p = q, t->cap = cap;
    }
}

/* Per-partition prove phases (the engine's counters): one histogram with a
 * phase label, cumulative buckets as Prometheus wants them. */
/* One series per kind whose parameters loaded: 1 when its proofs carry the
 * ceremony's verifying key, 0 when they do not or nothing says (keys tells
 * which: not-ceremony, no-vk, vk). Absent before the first load. */
static void kind_keys_metrics(srv_dispatch *b, mtext *t)
{
    mt_printf(t, "# HELP cuzk_kind_ceremony_keys Proof kind whose parameters carry the ceremony's verifying key "
                 "(1); 0: not the ceremony's (proofs the chain rejects) or unknown, keys says which.\n"
                 "# TYPE cuzk_kind_ceremony_keys gauge\n");
    for (size_t k = 0; k < b->n_kinds; k++) {
        cuzk_engine_keys keys = CUZK_KEYS_UNCHECKED;
        if (cuzk_engine_srs_keys(b->e, b->circuits[k], &keys, NULL) != CUZK_OK || keys == CUZK_KEYS_UNCHECKED)
            continue;
        mt_printf(t, "cuzk_kind_ceremony_keys{proof_kind=\"%s\",circuit=\"%s\",keys=\"%s\"} %d\n", b->kinds[k],
                  b->circuits[k], cuzk_engine_keys_name(keys), keys == CUZK_KEYS_CEREMONY);
    }
}

static void phase_metrics(const cuzk_engine_counters *c, mtext *t)
{
    mt_printf(t, "# HELP cuzk_prove_phase_seconds Per-partition prove phases: witness upload, PCE evaluation, NTTs, "
                 "MSMs (together and each), waiting for the device, host.\n# TYPE cuzk_prove_phase_seconds histogram\n");
    for (unsigned ph = 0; ph < CUZK_PHASES; ph++) {
        const char *name = cuzk_engine_phase_name(ph);
        unsigned long long cum = 0;
        for (unsigned k = 0; k + 1 < CUZK_PHASE_BUCKETS; k++) {
            cum += c->phase_hist[ph][k];
            mt_printf(t, "cuzk_prove_phase_seconds_bucket{phase=\"%s\",le=\"%g\"} %llu\n", name,
                      cuzk_engine_phase_le[k], cum);
        }
        cum += c->phase_hist[ph][CUZK_PHASE_BUCKETS - 1];
        mt_printf(t, "cuzk_prove_phase_seconds_bucket{phase=\"%s\",le=\"+Inf\"} %llu\n", name, cum);
        mt_printf(t, "cuzk_prove_phase_seconds_sum{phase=\"%s\"} %.6f\n", name, c->phase_sum_s[ph]);
        mt_printf(t, "cuzk_prove_phase_seconds_count{phase=\"%s\"} %llu\n", name, (unsigned long long)c->phase_count);
    }
}

/* curio's daemon's metric names and shapes, beside ours: dashboards built on
 * it read these. */
static void curio_metrics(srv_dispatch *b, const cuzk_engine_counters *c, mtext *t)
{
    pthread_mutex_lock(&b->mu);
    prune(b);
    uint32_t queued = 0, running = 0;
    for (size_t i = 0; i < b->n_live; i++) {
        cuzk_job_info info;
        cuzk_job_get_info(b->live[i].job, &info);
        queued += info.state == CUZK_JOB_QUEUED;
        running += info.state == CUZK_JOB_RUNNING;
    }
    kind_stats st[MAX_KINDS];
    memcpy(st, b->stats, sizeof st);
    pthread_mutex_unlock(&b->mu);
    mt_printf(t, "# HELP cuzk_proofs_completed_total Proofs completed (curio's name; = cuzk_jobs_completed_total).\n"
        "# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total %llu\n",
        (unsigned long long)c->jobs_done);
    mt_printf(t, "# HELP cuzk_proofs_failed_total Proofs failed (curio's name; = cuzk_jobs_failed_total).\n"
        "# TYPE cuzk_proofs_failed_total counter\ncuzk_proofs_failed_total %llu\n", (unsigned long long)c->jobs_failed);
    mt_printf(t, "# HELP cuzk_queue_depth Jobs waiting to start (curio's name).\n# TYPE cuzk_queue_depth gauge\n"
        "cuzk_queue_depth %u\n", queued);
    mt_printf(t, "# HELP cuzk_running_jobs Jobs being proved (curio's name).\n# TYPE cuzk_running_jobs gauge\n"
        "cuzk_running_jobs %u\n", running);
    mt_printf(t, "# HELP cuzk_gpu_workers Prover workers (curio's name).\n# TYPE cuzk_gpu_workers gauge\ncuzk_gpu_workers %u\n",
        cuzk_engine_num_devices(b->e) * b->workers_per_device);
    mt_printf(t, "# HELP cuzk_proofs_completed Completions per proof kind (curio's name).\n"
        "# TYPE cuzk_proofs_completed counter\n");
    for (size_t k = 0; k < b->n_kinds; k++)
        mt_printf(t, "cuzk_proofs_completed{proof_kind=\"%s\"} %llu\n", b->kinds[k], (unsigned long long)st[k].completed);
    mt_printf(t, "# HELP cuzk_proofs_failed Failures per proof kind (curio's name).\n# TYPE cuzk_proofs_failed counter\n");
    for (size_t k = 0; k < b->n_kinds; k++)
        mt_printf(t, "cuzk_proofs_failed{proof_kind=\"%s\"} %llu\n", b->kinds[k], (unsigned long long)st[k].failed);
    mt_printf(t, "# HELP cuzk_proof_duration_seconds Wall time of completed proofs, submit to proof, per kind.\n"
        "# TYPE cuzk_proof_duration_seconds histogram\n");
    for (size_t k = 0; k < b->n_kinds; k++) {
        for (size_t i = 0; i < NBUCKETS; i++)
            mt_printf(t, "cuzk_proof_duration_seconds_bucket{proof_kind=\"%s\",le=\"%g\"} %llu\n", b->kinds[k], dur_le[i],
                (unsigned long long)st[k].buckets[i]);
        mt_printf(t, "cuzk_proof_duration_seconds_bucket{proof_kind=\"%s\",le=\"+Inf\"} %llu\n", b->kinds[k],
            (unsigned long long)st[k].completed);
        mt_printf(t, "cuzk_proof_duration_seconds_sum{proof_kind=\"%s\"} %.3f\n", b->kinds[k], st[k].dur_sum);
        mt_printf(t, "cuzk_proof_duration_seconds_count{proof_kind=\"%s\"} %llu\n", b->kinds[k],
            (unsigned long long)st[k].completed);
    }
}

/* Each device's memory: the card's, the daemon's budget on it, what the
 * daemon holds (a streamed set's budget shows how close the plan runs). */
static void device_memory_metrics(srv_dispatch *b, mtext *t)
{
    static const char *const name[4] = {"cuzk_gpu_memory_total_bytes", "cuzk_gpu_memory_free_bytes",
                                        "cuzk_gpu_memory_budget_bytes", "cuzk_gpu_memory_held_bytes"};
    static const char *const help[4] = {"The card's memory.", "The card's free memory now (every process).",
                                        "The daemon's device-memory budget on the card ([gpus] memory_limit).",
                                        "Device memory the daemon holds."};
    const unsigned ndev = cuzk_engine_num_devices(b->e);
    for (int k = 0; k < 4; k++) {
        mt_printf(t, "# HELP %s %s\n# TYPE %s gauge\n", name[k], help[k], name[k]);
        for (unsigned d = 0; d < ndev; d++) {
            cuzk_engine_device_mem m;
            if (cuzk_engine_device_memory(b->e, d, &m) != CUZK_OK) continue;
            const uint64_t v[4] = {m.total, m.free_bytes, m.budget, m.held};
            mt_printf(t, "%s{device=\"%u\"} %llu\n", name[k], d, (unsigned long long)v[k]);
        }
    }
}

typedef struct metric {
    const char *name, *type, *help;
    double v;
} metric;

static void metric_rows(mtext *t, const metric *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mt_printf(t, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", m[i].name, m[i].help, m[i].name, m[i].type, m[i].name,
                  m[i].v);
}

/* This daemon's part in the cluster. */
static void cluster_metrics(srv_dispatch *b, mtext *t)
{
    srv_cluster_stats st;
    srv_cluster_get_stats(b->cl, &st);
    const metric m[] = {
        {"cuzk_cluster_slots", "gauge", "Partitions this daemon holds at once in the cluster.", (double)st.slots},
        {"cuzk_cluster_busy", "gauge", "Partitions this daemon holds now.", (double)st.busy},
        {"cuzk_cluster_claims_total", "counter", "Partitions this daemon claimed.", (double)st.claims},
        {"cuzk_cluster_completed_total", "counter", "Partition results this daemon wrote back.", (double)st.completed},
        {"cuzk_cluster_discarded_total", "counter", "Results discarded: the lease had been lost.", (double)st.discarded},
        {"cuzk_cluster_leases_expired_total", "counter", "Other hosts' leases this daemon expired.", (double)st.expired},
    };
    metric_rows(t, m, sizeof m / sizeof m[0]);
}

/* The bounds on what submits hold: the queue and the parses at once. */
static void intake_metrics(srv_dispatch *b, mtext *t)
{
    pthread_mutex_lock(&b->mu);
    const metric m[] = {
        {"cuzk_max_queued_jobs", "gauge", "daemon.max_queued_jobs.", (double)b->max_queued},
        {"cuzk_jobs_queue_full_total", "counter", "Submits refused with RESOURCE_EXHAUSTED at daemon.max_queued_jobs.",
         (double)b->queue_full},
        {"cuzk_parses_in_progress", "gauge", "Requests being parsed at submit.", (double)b->parsing},
        {"cuzk_max_concurrent_parses", "gauge", "daemon.max_concurrent_parses.", (double)b->parse_slots},
        {"cuzk_parse_waits_total", "counter", "Submits that waited for a parse slot (daemon.max_concurrent_parses).",
         (double)b->parse_waits},
    };
    pthread_mutex_unlock(&b->mu);
    metric_rows(t, m, sizeof m / sizeof m[0]);
}

/* The engine's counters and gauges, one series each. */
static void engine_metrics(const cuzk_engine_counters *c, mtext *t)
{
    const metric m[] = {
        {"cuzk_jobs_submitted_total", "counter", "Jobs submitted (duplicates excluded).", (double)c->jobs_submitted},
        {"cuzk_jobs_duplicate_total", "counter", "Submits that named a known request id.", (double)c->jobs_duplicate},
        {"cuzk_jobs_completed_total", "counter", "Jobs that returned a verified proof.", (double)c->jobs_done},
        {"cuzk_jobs_failed_total", "counter", "Jobs that failed.", (double)c->jobs_failed},
        {"cuzk_jobs_cancelled_total", "counter", "Jobs cancelled.", (double)c->jobs_cancelled},
        {"cuzk_jobs_timed_out_total", "counter", "Jobs past their deadline.", (double)c->jobs_timed_out},
        {"cuzk_jobs_active", "gauge", "Jobs submitted and not finished.", (double)c->jobs_active},
        {"cuzk_partitions_synthesized_total", "counter", "Partitions synthesized.", (double)c->partitions_synthesized},
        {"cuzk_partitions_proved_total", "counter", "Partition proofs made.", (double)c->partitions_proved},
        {"cuzk_partitions_verified_total", "counter", "Partition proofs verified.", (double)c->partitions_verified},
        {"cuzk_partitions_invalid_total", "counter", "Partition proofs that failed verification.",
         (double)c->partitions_invalid},
        {"cuzk_partitions_reproved_total", "counter", "Partitions proved again after an invalid proof.",
         (double)c->partitions_reproved},
        {"cuzk_synthesis_errors_total", "counter", "Synthesis errors.", (double)c->synthesis_errors},
        {"cuzk_prover_errors_total", "counter", "Prover errors.", (double)c->prover_errors},
        {"cuzk_prover_out_of_memory_total", "counter", "Prover calls that ran out of device memory.",
         (double)c->prover_out_of_memory},
        {"cuzk_pce_fast_path_total", "counter", "Partitions synthesized through a PCE.", (double)c->pce_fast_path},
        {"cuzk_srs_loads_total", "counter", "Parameter loads.", (double)c->srs_loads},
        {"cuzk_srs_evictions_total", "counter", "Parameter evictions.", (double)c->srs_evictions},
        {"cuzk_srs_host_released_total", "counter",
         "Parameter sets whose host copy was freed once every GPU held them.", (double)c->srs_host_released},
        {"cuzk_queued_partitions", "gauge", "Partitions waiting for synthesis.", (double)c->queued_synthesis},
        {"cuzk_queued_prove_partitions", "gauge", "Synthesized partitions waiting for a prover.",
         (double)c->queued_prove},
        {"cuzk_synthesis_busy_seconds_total", "counter", "Worker time spent in synthesis.", c->synthesis_busy_s},
        {"cuzk_prove_busy_seconds_total", "counter", "Worker time spent proving.", c->prove_busy_s},
        {"cuzk_verify_busy_seconds_total", "counter", "Worker time spent verifying.", c->verify_busy_s},
        {"cuzk_memory_budget_bytes", "gauge", "Memory budget.", (double)c->memory_budget},
        {"cuzk_memory_reserved_bytes", "gauge", "Memory reserved now.", (double)c->memory_reserved},
        {"cuzk_memory_peak_bytes", "gauge", "Largest reservation seen.", (double)c->memory_peak},
        {"cuzk_memory_rss_anon_bytes", "gauge", "Anonymous resident memory of the daemon (RssAnon), beside the reservations.",
         (double)c->memory_rss_anon},
        {"cuzk_memory_pinned_bytes", "gauge", "Page-locked parameter memory.", (double)c->memory_pinned},
        {"cuzk_memory_pinned_limit_bytes", "gauge", "Limit on page-locked parameter memory.",
         (double)c->memory_pinned_limit},
        {"cuzk_pce_evictions_total", "counter", "Idle pre-compiled circuits freed for memory.",
         (double)c->pce_evictions},
        {"cuzk_devices_failed_total", "counter", "Prover devices marked failed.", (double)c->devices_failed},
        {"cuzk_devices_healthy", "gauge", "Prover devices not marked failed.", (double)c->devices_healthy},
        {"cuzk_synthesis_limit", "gauge", "Partitions synthesized at once at most.", (double)c->synthesis_limit},
    };
    metric_rows(t, m, sizeof m / sizeof m[0]);
}

/* s as a Prometheus label value (\\, \" and \n escaped) into out, cut to fit. */
static void label_escape(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (const char *q = s; *q && k + 2 < cap; q++) {
        if (*q == '\\' || *q == '"') out[k++] = '\\', out[k++] = *q;
        else if (*q == '\n') out[k++] = '\\', out[k++] = 'n';
        else out[k++] = *q;
    }
    out[k] = 0;
}

/* One series per device: 1 when failed, with the reason as a label. */
static void device_failed_metrics(srv_dispatch *b, mtext *t)
{
    unsigned nd = cuzk_engine_num_devices(b->e);
    mt_printf(t, "# HELP cuzk_device_failed Prover device marked failed (1) or not (0).\n"
                 "# TYPE cuzk_device_failed gauge\n");
    for (unsigned d = 0; d < nd; d++) {
        char why[224], esc[2 * sizeof why];
        bool failed = cuzk_engine_device_failed(b->e, d, why, sizeof why);
        label_escape(why, esc, sizeof esc);
        mt_printf(t, "cuzk_device_failed{device=\"%u\",reason=\"%s\"} %d\n", d, esc, failed);
    }
}

/* One series per kind: 1 while its parameters cannot be loaded (the reason
 * is in GetStatus, /status and the log). */
static void kind_failed_metrics(srv_dispatch *b, mtext *t)
{
    mt_printf(t, "# HELP cuzk_kind_failed Proof kind whose parameters failed to load (1): its jobs fail at once.\n"
                 "# TYPE cuzk_kind_failed gauge\n");
    for (size_t k = 0; k < b->n_kinds; k++) {
        char *why = NULL;
        cuzk_engine_srs_failure(b->e, b->circuits[k], &why, NULL);
        mt_printf(t, "cuzk_kind_failed{proof_kind=\"%s\",circuit=\"%s\"} %d\n", b->kinds[k], b->circuits[k],
                  why != NULL);
        free(why);
    }
}

char *srv_metrics_text(srv_dispatch *b, char *buf)
{
    cuzk_engine_counters c;
    cuzk_engine_get_counters(b->e, &c);
    mtext t = {.len = buf ? strlen(buf) : 0};
    t.cap = t.len + 16384;
    if (!(t.p = realloc(buf, t.cap))) {
        free(buf);
        return NULL;
    }
    engine_metrics(&c, &t);
    device_failed_metrics(b, &t);
    kind_failed_metrics(b, &t);
    kind_keys_metrics(b, &t);
    phase_metrics(&c, &t);
    device_memory_metrics(b, &t);
    curio_metrics(b, &c, &t);
    intake_metrics(b, &t);
    if (b->cl) cluster_metrics(b, &t);
    return t.p;
}

char *srv_status_json(srv_dispatch *b) { return cuzk_engine_status_json(b->e); }

char *srv_cluster_json(srv_dispatch *b) { return b->cl ? srv_cluster_status_json(b->cl) : NULL; }

/* A malloc'd message for *err and the code, as cuzk_errf does for a buffer. */
static int errm(char **err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int errm(char **err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(err, fmt, ap) < 0) *err = NULL;
    va_end(ap);
    return code;
}

int srv_preload(srv_dispatch *b, const char *circuit_id, bool *already, uint64_t *load_ms, char **err)
{
    *err = NULL;
    if (circuit_index(b, circuit_id) < 0) return errm(err, RPC_NOT_FOUND, "unknown circuit id %s", circuit_id);
    cuzk_srs_state st = CUZK_SRS_COLD;
    cuzk_engine_srs_state(b->e, circuit_id, &st);
    *already = st == CUZK_SRS_HOT;
    const double t0 = cuzk_now();
    int rc = cuzk_engine_srs_preload(b->e, circuit_id);
    *load_ms = (uint64_t)((cuzk_now() - t0) * 1000.0);
    if (rc == CUZK_ERR_NO_MEMORY)
        return errm(err, RPC_RESOURCE_EXHAUSTED, "%s does not fit in the memory budget", circuit_id);
    if (rc == CUZK_ERR_CANCELLED) return errm(err, RPC_UNAVAILABLE, "the daemon is shutting down");
    if (rc != CUZK_OK) {
        /* the file is bad, not the daemon: the reason names it and what is wrong */
        char *why = srs_failure(b, circuit_id);
        errm(err, 0, "parameters of %s %s%s", circuit_id, why ? why : "could not be loaded: ",
             why ? "" : cuzk_strerror(rc));
        free(why);
        return RPC_FAILED_PRECONDITION;
    }
    return RPC_OK;
}

int srv_evict(srv_dispatch *b, const char *circuit_id, bool *was_loaded, uint64_t *freed, char *err,
              size_t errlen)
{
    if (circuit_index(b, circuit_id) < 0)
        return cuzk_errf(err, errlen, RPC_NOT_FOUND, "unknown circuit id %s", circuit_id);
    cuzk_srs_state st = CUZK_SRS_COLD;
    cuzk_engine_srs_state(b->e, circuit_id, &st);
    *was_loaded = st == CUZK_SRS_HOT;
    cuzk_engine_counters before, after;
    cuzk_engine_get_counters(b->e, &before);
    int rc = cuzk_engine_srs_evict(b->e, circuit_id);
    cuzk_engine_get_counters(b->e, &after);
    if (rc != CUZK_OK) return cuzk_errf(err, errlen, RPC_INTERNAL, "evicting %s: %s", circuit_id, cuzk_strerror(rc));
    *freed = before.memory_reserved > after.memory_reserved ? before.memory_reserved - after.memory_reserved : 0;
    return RPC_OK;
}

bool srv_drain(srv_dispatch *b, uint64_t timeout_ms)
{
    if (b->cl) srv_cluster_drain(b->cl); /* no new claims: the engine can go idle */
    return cuzk_engine_wait_idle(b->e, (int64_t)timeout_ms) == CUZK_OK;
}

void srv_cancel_all(srv_dispatch *b)
{
    pthread_mutex_lock(&b->mu);
    prune(b);
    for (size_t i = 0; i < b->n_live; i++) cuzk_job_cancel(b->live[i].job);
    pthread_mutex_unlock(&b->mu);
}

void srv_shutdown(srv_dispatch *b, const char *why) { cuzk_engine_shutdown(b->e, why); }
