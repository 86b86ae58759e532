/*
 * Engine under faults: corrupted partition proofs (retry on another worker
 * or device, never an invalid proof returned), prover and synthesis
 * errors (only their job fails, the engine keeps serving), cancellation at
 * every stage, deadlines, the memory budget (tight budgets, eviction, too
 * small budgets, no lost wake-ups) and the PCE manager through a fake PCE
 * backend (cache at start, single-flight extraction, fast path).
 */
#include <signal.h>

#include "cuzk/util/clock.h"
#include "engine_test.h"

#define NC 128 /* constraints per partition: small, CI runs on 2 cores */
#define NI 3

/* ---- a prover with injected faults ---------------------------------------- */

enum { F_NONE, F_CORRUPT_CALL, F_CORRUPT_DEV0, F_CORRUPT_ALL, F_ERROR_ONCE, F_ERROR_DEV0, F_DEVERR_DEV1, F_DEVERR_ALL,
       F_ERROR_ALL, F_NOMEM_W1, F_HOSTMEM_W1 };

typedef struct fault {
    cuzk_engine_prover cpu;
    atomic_int mode;
    atomic_uint calls, target, corrupted, corrupted_dev1;
    atomic_bool error_armed;
    atomic_uint open_workers;
    atomic_uint dev_calls[2]; /* prove calls per device */
    atomic_uint nomem;        /* F_NOMEM_W1's and F_HOSTMEM_W1's refusals */
    atomic_uint w1_ok;        /* device 0 worker 1's proofs */
} fault;

static fault F;


static int f_open(void *ctx, unsigned device, unsigned workers, void **dev)
{
    atomic_store(&((fault *)ctx)->open_workers, workers);
    *dev = (void *)(uintptr_t)(device + 1);
    return CUZK_OK;
}

/* A prover's device copies (warm, evict), as the GPU layer keeps them: the
 * points copied per device by a warm or by the device's first prove, keyed
 * by the set's handle and knowing the host arrays they came from. Once
 * released, a prove uses the copy and checks that the host's arrays really
 * went (their pages read as zeros). */
typedef struct dev_copy {
    uint64_t key; /* the set's id; 0: none */
    const void *src[5];
    bool released;
    cuzk_groth16_params pts; /* the copied arrays and the sizes */
} dev_copy;
static dev_copy g_dev[2];
static pthread_mutex_t g_dev_mu = PTHREAD_MUTEX_INITIALIZER;
static bool g_dev_hooks;
static int g_warm_fail_dev = -1;        /* this device's warm fails */
static atomic_uint g_from_copy;          /* proves made from a device copy */
static atomic_uint g_host_gone;          /* of those, proves that saw the host's h discarded */

static void dev_copy_free(dev_copy *c)
{
    free(c->pts.h), free(c->pts.l), free(c->pts.a), free(c->pts.b_g1), free(c->pts.b_g2);
    memset(c, 0, sizeof *c);
}

static void *dup_bytes(const void *p, size_t n)
{
    void *d = n ? malloc(n) : NULL;
    if (d) memcpy(d, p, n);
    return d;
}

/* under g_dev_mu: device d's copy of p, made from the host's arrays unless
 * it has one (a released set is never copied again) */
static void dev_copy_make(unsigned d, const cuzk_engine_set *set)
{
    dev_copy *c = &g_dev[d];
    const cuzk_groth16_params *p = set->params;
    CHECK(set->id != 0);
    if (c->key == set->id) return;
    dev_copy_free(c);
    c->key = set->id;
    c->pts = *p;
    c->pts.h = dup_bytes(p->h, p->n_h * sizeof *p->h);
    c->pts.l = dup_bytes(p->l, p->n_l * sizeof *p->l);
    c->pts.a = dup_bytes(p->a, p->n_a * sizeof *p->a);
    c->pts.b_g1 = dup_bytes(p->b_g1, p->n_b_g1 * sizeof *p->b_g1);
    c->pts.b_g2 = dup_bytes(p->b_g2, p->n_b_g2 * sizeof *p->b_g2);
    const void *src[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    memcpy(c->src, src, sizeof src);
}

static int f_warm(void *ctx, void *dev, const cuzk_engine_set *set, char *msg, size_t msg_len)
{
    const unsigned d = (unsigned)(uintptr_t)dev - 1;
    if ((int)d == g_warm_fail_dev) {
        snprintf(msg, msg_len, "injected: no room");
        return CUZK_ERR_NO_MEMORY;
    }
    pthread_mutex_lock(&g_dev_mu);
    dev_copy_make(d, set);
    pthread_mutex_unlock(&g_dev_mu);
    return CUZK_OK;
}

/* the host's arrays may go once the copy is of these very arrays; an evicted set's copy goes */
static int f_evict(void *ctx, void *dev, const cuzk_engine_set *set, unsigned what)
{
    const unsigned d = (unsigned)(uintptr_t)dev - 1;
    const cuzk_groth16_params *p = set->params;
    pthread_mutex_lock(&g_dev_mu);
    dev_copy *c = &g_dev[d];
    int rc = CUZK_OK;
    if (what & CUZK_EVICT_HOST_ARRAYS) {
        const bool ok = c->key == set->id && c->src[0] == p->h && c->src[1] == p->l && c->src[2] == p->a &&
                        c->src[3] == p->b_g1 && c->src[4] == p->b_g2;
        if (ok) c->released = true;
        else rc = CUZK_ERR_NOT_READY;
    }
    if ((what & CUZK_EVICT_PARAMS) && c->key == set->id) dev_copy_free(c);
    pthread_mutex_unlock(&g_dev_mu);
    return rc;
}

/* The params device d proves with: its copy once released (and whether the
 * host's h reads as zeros past its first page, as a discarded array does),
 * else the host's, copied first as a device's first prove uploads them. */
static const cuzk_groth16_params *dev_params(unsigned d, const cuzk_engine_set *set, cuzk_groth16_params *tmp)
{
    const cuzk_groth16_params *p = set->params;
    if (!g_dev_hooks || d >= 2) return p;
    pthread_mutex_lock(&g_dev_mu);
    dev_copy_make(d, set);
    const bool rel = g_dev[d].released;
    if (rel) *tmp = g_dev[d].pts, tmp->vk = p->vk;
    pthread_mutex_unlock(&g_dev_mu);
    if (!rel) return p;
    atomic_fetch_add(&g_from_copy, 1);
    const size_t pg = 4096, nb = p->n_h * sizeof *p->h;
    if (nb >= 3 * pg) {
        const unsigned char *z = (const unsigned char *)(((uintptr_t)p->h + pg - 1) / pg * pg);
        bool zero = true;
        for (size_t i = 0; i < pg && zero; i++) zero = !z[i];
        if (zero) atomic_fetch_add(&g_host_gone, 1);
    }
    return tmp;
}

/* every failure says "injected fault"; F_HOSTMEM_W1's refusal is the host's memory, every other
 * CUZK_ERR_NO_MEMORY the device's */
static int f_prove_dev(fault *f, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                       const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                       cuzk_engine_prove_report *rep);

static int f_prove(void *ctx, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                   const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                   cuzk_engine_prove_report *rep)
{
    int err = f_prove_dev(ctx, dev, worker, set, n, as, r, s, out, rep);
    if (err != CUZK_OK) {
        snprintf(rep->error, sizeof rep->error, "injected fault");
        rep->host_memory_short = atomic_load(&((fault *)ctx)->mode) == F_HOSTMEM_W1;
    }
    return err;
}

static int f_prove_dev(fault *f, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                       const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                       cuzk_engine_prove_report *rep)
{
    unsigned d = (unsigned)(uintptr_t)dev - 1;
    if (d < 2) atomic_fetch_add(&f->dev_calls[d], 1);
    int m0 = atomic_load(&f->mode);
    if (m0 == F_ERROR_ONCE && atomic_exchange(&f->error_armed, false)) return CUZK_ERR_INTERNAL;
    if (m0 == F_ERROR_DEV0 && d == 0) return CUZK_ERR_NO_MEMORY; /* e.g. device OOM: counts */
    if (m0 == F_NOMEM_W1 && d == 0 && worker == 1) { /* a card with room for one worker */
        atomic_fetch_add(&f->nomem, 1);
        return CUZK_ERR_NO_MEMORY;
    }
    if (m0 == F_HOSTMEM_W1 && d == 0 && worker == 1 && atomic_load(&f->nomem) == 0) { /* one host malloc failed */
        atomic_fetch_add(&f->nomem, 1);
        return CUZK_ERR_NO_MEMORY;
    }
    if (m0 == F_ERROR_ALL) return CUZK_ERR_INVALID_ARG;           /* as a malformed witness would */
    if ((m0 == F_DEVERR_DEV1 && d == 1) || m0 == F_DEVERR_ALL) return CUZK_ERR_DEVICE; /* at once */
    cuzk_groth16_params from_copy;
    cuzk_engine_set on_dev = *set;
    on_dev.params = dev_params(d, set, &from_copy);
    int err = f->cpu.prove(f->cpu.ctx, NULL, worker, &on_dev, n, as, r, s, out, rep);
    if (err == CUZK_OK && d == 0 && worker == 1) atomic_fetch_add(&f->w1_ok, 1);
    unsigned call = atomic_fetch_add(&f->calls, 1);
    int m = atomic_load(&f->mode);
    bool bad = (m == F_CORRUPT_CALL && call == atomic_load(&f->target)) || (m == F_CORRUPT_DEV0 && d == 0) ||
               m == F_CORRUPT_ALL;
    if (bad && err == CUZK_OK)
        for (size_t i = 0; i < n; i++) {
            out[i].c = out[i].a; /* still valid points, no longer a proof */
            atomic_fetch_add(&f->corrupted, 1);
            if (d == 1) atomic_fetch_add(&f->corrupted_dev1, 1);
        }
    return err;
}

static void fault_reset(int mode)
{
    atomic_store(&F.mode, mode);
    atomic_store(&F.calls, 0);
    atomic_store(&F.corrupted, 0);
    atomic_store(&F.corrupted_dev1, 0);
    atomic_store(&F.dev_calls[0], 0);
    atomic_store(&F.dev_calls[1], 0);
}

/* A prover's own page-locking (host_pin): records what it was given. */
static atomic_uint_fast64_t g_hook_live; /* bytes pinned by the hook and not unpinned */
static atomic_uint g_hook_pins, g_hook_unpins;

static cuzk_engine_pin_how f_pin(void *ctx, void *ptr, size_t len, cuzk_engine_pin_how undo, char *msg,
                                 size_t msg_len)
{
    if (undo != CUZK_PIN_HOW_NONE) {
        CHECK(undo == CUZK_PIN_HOW_DEVICE);
        atomic_fetch_sub(&g_hook_live, len);
        atomic_fetch_add(&g_hook_unpins, 1);
        return CUZK_PIN_HOW_NONE;
    }
    atomic_fetch_add(&g_hook_live, len);
    atomic_fetch_add(&g_hook_pins, 1);
    return CUZK_PIN_HOW_DEVICE;
}

/* engine options for make_engine: 0 / false = the defaults */
static unsigned g_max_errors, g_synth_workers;
static bool g_fallback, g_pin_hooks, g_keep_host;
static cuzk_engine_pin g_pin;
static uint64_t g_pin_limit;

static cuzk_engine *make_engine(unsigned synth, unsigned devices, unsigned per_dev, uint64_t budget,
                                const cuzk_engine_pce *pce)
{
    static cuzk_engine_prover fp;
    cuzk_engine_cpu_prover(&F.cpu, 1);
    fp = (cuzk_engine_prover){.name = "faulty-cpu", .devices = 2, .open = f_open, .prove = f_prove, .ctx = &F};
    if (g_pin_hooks) fp.pin = f_pin;
    if (g_dev_hooks) fp.warm = f_warm, fp.evict = f_evict;
    cuzk_engine_config cfg = {.synthesis_workers = synth, .num_devices = devices, .workers_per_device = per_dev,
                              .memory_budget = budget, .prover = &fp, .pce = pce, .log = log_capture,
                              .stage_hook = gate_hook, .hook_ctx = &G, .device_max_errors = g_max_errors,
                              .cpu_fallback = g_fallback, .pin = g_pin, .pinned_limit = g_pin_limit,
                              .keep_host_params = g_keep_host};
    if (g_synth_workers) cfg.synthesis_workers = g_synth_workers;
    cuzk_engine *e = NULL;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    return e;
}

static void drain(cuzk_engine *e, const char *const *circuits, size_t n)
{
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    for (size_t i = 0; i < n; i++) CHECK(cuzk_engine_srs_evict(e, circuits[i]) == CUZK_OK);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK_MSG(c.memory_reserved == 0, "%llu bytes still reserved", (unsigned long long)c.memory_reserved);
}

/* ---- invalid proofs -------------------------------------------------------- */

static void corrupt_faults(tkind *k, cuzk_rng *rng)
{
    g_max_errors = 1000; /* the retry rule alone: no device is marked failed here */
    cuzk_engine *e = make_engine(3, 0, 2, 0, NULL); /* the prover says 2 devices */
    g_max_errors = 0;
    CHECK(atomic_load(&F.open_workers) == 2);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 10, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    cuzk_job *j;
    char msg[64];

    /* one partition corrupted at random: the job still returns a valid proof */
    for (int round = 0; round < 3; round++) {
        log_clear();
        fault_reset(F_CORRUPT_CALL);
        atomic_store(&F.target, (unsigned)(cuzk_rng_u64(rng) % 10));
        char id[32];
        snprintf(id, sizeof id, "once-%d", round);
        uint64_t seed = cuzk_rng_u64(rng) >> 1;
        CHECK(tk_submit(e, "porep", id, seed, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        CHECK(cuzk_job_await(j, -1) == CUZK_OK);
        CHECK(tk_proof_ok(k, j, seed, 10));
        cuzk_job_info inf;
        cuzk_job_get_info(j, &inf);
        CHECK(atomic_load(&F.corrupted) == 1 && inf.partitions_reproved == 1);
        CHECK_MSG(log_count("INVALID (device ") == 1, "log: %s", log_buf);
        cuzk_job_release(j);
    }
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.partitions_invalid == 3 && c.partitions_reproved == 3 && c.jobs_done == 3);

    /* device 0 always corrupts: every partition it proves is re-proved on device 1 */
    log_clear();
    fault_reset(F_CORRUPT_DEV0);
    cuzk_job *js[3];
    uint64_t seeds[3];
    for (int i = 0; i < 3; i++) {
        snprintf(msg, sizeof msg, "dev0-%d", i);
        seeds[i] = cuzk_rng_u64(rng) >> 1;
        CHECK(tk_submit(e, "porep", msg, seeds[i], CUZK_PRIORITY_DEFAULT, 0, &js[i]) == CUZK_OK);
    }
    for (int i = 0; i < 3; i++) {
        CHECK(cuzk_job_await(js[i], -1) == CUZK_OK);
        CHECK(tk_proof_ok(k, js[i], seeds[i], 10));
        cuzk_job_release(js[i]);
    }
    unsigned bad = atomic_load(&F.corrupted);
    CHECK(bad > 0 && atomic_load(&F.corrupted_dev1) == 0);
    CHECK_MSG(log_count("INVALID (device 0") == bad && log_count("INVALID (device 1") == 0, "log: %s", log_buf);

    /* every proof corrupt: the job fails after the one retry, clearly */
    fault_reset(F_CORRUPT_ALL);
    CHECK(tk_submit(e, "porep", "all-bad", 42, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_ERR_VERIFY_FAILED);
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    const uint8_t *pr;
    size_t len;
    CHECK(inf.state == CUZK_JOB_FAILED && strstr(inf.message, "INVALID twice"));
    CHECK(cuzk_job_proof(j, &pr, &len) == CUZK_ERR_INVALID_ARG);
    cuzk_job_release(j);

    /* a prover error: the partition is proved again on the other device */
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK); /* the failed job's partitions in flight drain */
    fault_reset(F_ERROR_ONCE);
    atomic_store(&F.error_armed, true);
    cuzk_engine_get_counters(e, &c);
    uint64_t perr = c.prover_errors, reproved = c.partitions_reproved;
    log_clear();
    CHECK(tk_submit(e, "porep", "prover-error", 43, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 43, 10));
    cuzk_job_get_info(j, &inf);
    CHECK(inf.partitions_reproved == 1);
    CHECK_MSG(log_count("prover error on device") == 1 && log_count("injected fault") == 1, "log: %s", log_buf);
    cuzk_job_release(j);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.partitions_reproved == reproved + 1 && c.devices_failed == 0 && c.devices_healthy == 2);
    CHECK(tk_submit(e, "porep", "after-error", 44, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 44, 10));
    cuzk_job_release(j);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.prover_errors == perr + 1);

    /* a synthesis error fails its job only */
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    fault_reset(F_NONE);
    CHECK(tk_submit(e, "porep", "synth-error", 45 | TK_FAIL_SYNTH, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_ERR_UNSATISFIED);
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(strstr(inf.message, "partition 1: synthesis failed"), "%s", inf.message);
    cuzk_job_release(j);
    CHECK(tk_submit(e, "porep", "after-synth-error", 46, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 46, 10));
    cuzk_job_release(j);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.synthesis_errors == 1 && c.jobs_failed == 2);
    const char *circ[] = {"porep-c"};
    drain(e, circ, 1);
    cuzk_engine_destroy(e);

    /* a backend without devices, or without a prove function */
    cuzk_engine_prover none = {.name = "none", .devices = 0, .prove = f_prove, .ctx = &F};
    cuzk_engine_config cfg = {.prover = &none};
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_ERR_NO_DEVICE && e == NULL);
    none.prove = NULL;
    cfg.num_devices = 1;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_ERR_INVALID_ARG && e == NULL);
    /* the core holds no prover: it starts on one it is given, and a
     * fallback must prove too */
    cuzk_engine_config bare = {.num_devices = 1};
    CHECK(cuzk_engine_start(&e, &bare) == CUZK_ERR_INVALID_ARG && e == NULL);
    CHECK(cuzk_engine_start(&e, NULL) == CUZK_ERR_INVALID_ARG && e == NULL);
    none.prove = f_prove;
    cuzk_engine_prover mute = {.name = "mute", .devices = 1};
    cuzk_engine_config fb = {.prover = &none, .num_devices = 1, .fallback = &mute};
    CHECK(cuzk_engine_start(&e, &fb) == CUZK_ERR_INVALID_ARG && e == NULL);
}

/* ---- failed devices ------------------------------------------------------------ */

/* n jobs of the 10-partition kind at once; all must return valid proofs */
static void run_jobs(cuzk_engine *e, tkind *k, const char *prefix, int n, cuzk_rng *rng)
{
    static unsigned serial;
    cuzk_job *js[8];
    uint64_t seeds[8];
    for (int i = 0; i < n && i < 8; i++) {
        char id[48];
        snprintf(id, sizeof id, "%s-%u", prefix, serial++);
        seeds[i] = cuzk_rng_u64(rng) >> 1;
        CHECK(tk_submit(e, "porep", id, seeds[i], CUZK_PRIORITY_DEFAULT, 0, &js[i]) == CUZK_OK);
    }
    for (int i = 0; i < n && i < 8; i++) {
        int r = cuzk_job_await(js[i], -1);
        cuzk_job_info inf;
        cuzk_job_get_info(js[i], &inf);
        CHECK_MSG(r == CUZK_OK, "%s: %s: %s", cuzk_job_request_id(js[i]), cuzk_strerror(r), inf.message);
        CHECK(r != CUZK_OK || tk_proof_ok(k, js[i], seeds[i], 10));
        cuzk_job_release(js[i]);
    }
}

/* One device with room for one of its two workers: the other runs out of
 * device memory once, then leaves the work to the first (it would try again
 * only after 30 s); every job completes, the device is not failed. */
/* One device, two workers, the fault mode: three rounds of 4 jobs of kd
 * (10 partitions each). The engine for the caller's checks; *secs the
 * rounds' time. */
static cuzk_engine *mem_short_rounds(tkind *k, const cuzk_engine_kind *kd, int mode, const char *prefix,
                                     cuzk_rng *rng, double *secs)
{
    fault_reset(mode);
    atomic_store(&F.nomem, 0);
    atomic_store(&F.w1_ok, 0);
    log_clear();
    cuzk_engine *e = make_engine(3, 1, 2, 0, NULL);
    CHECK(cuzk_engine_register_kind(e, kd) == CUZK_OK);
    const double t0 = cuzk_now();
    for (int round = 0; round < 3; round++) run_jobs(e, k, prefix, 4, rng);
    *secs = cuzk_now() - t0;
    return e;
}

static void device_memory_short(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-m", 10, CUZK_PRIORITY_NORMAL);
    const char *circ[] = {"porep-m"};
    double secs;
    cuzk_engine *e = mem_short_rounds(k, &kd, F_NOMEM_W1, "mem-short", rng, &secs);
    const unsigned nomem = atomic_load(&F.nomem), allowed = 1 + (unsigned)(secs / 30.0);
    CHECK_MSG(nomem >= 1 && nomem <= allowed, "%u out-of-memory calls in %.1f s (at most %u)", nomem, secs, allowed);
    CHECK(!cuzk_engine_device_failed(e, 0, NULL, 0));
    CHECK_MSG(log_count("out of device memory") == 1, "log: %s", log_buf); /* once an episode */
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.jobs_failed == 0 && c.partitions_reproved >= 1);
    CHECK_MSG(c.prover_out_of_memory == nomem, "counter %llu, refusals %u", (unsigned long long)c.prover_out_of_memory,
              nomem);
    CHECK(status_has(e, "\"prover_out_of_memory\":"));
    printf("device short of memory: %u refusal(s) in %.1f s, 120 partitions proved\n", nomem, secs);
    drain(e, circ, 1);
    cuzk_engine_destroy(e);
}

/* A prove that fails for want of host memory (a malloc of the prover's)
 * says nothing about the card: the worker goes on taking the device's work
 * at once, the device-memory counter and log line stay quiet. */
static void host_memory_short(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-m", 10, CUZK_PRIORITY_NORMAL);
    const char *circ[] = {"porep-m"};
    double secs;
    cuzk_engine *e = mem_short_rounds(k, &kd, F_HOSTMEM_W1, "host-short", rng, &secs);
    const unsigned w1 = atomic_load(&F.w1_ok);
    CHECK(atomic_load(&F.nomem) == 1);
    /* benched, worker 1 would prove nothing for 30 s; the rounds take less
     * on any machine this runs on (printed), so anything above none shows it
     * was not. The check holds regardless of time when the run took >= 30 s. */
    CHECK_MSG(w1 > 0 || secs >= 30.0, "worker 1 proved nothing after a host allocation failure (%.1f s)", secs);
    CHECK_MSG(log_count("out of device memory") == 0, "log: %s", log_buf);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.jobs_failed == 0 && c.prover_out_of_memory == 0 && c.partitions_reproved >= 1);
    printf("host short of memory: 1 refusal, then worker 1 proved %u of 120 partitions in %.1f s\n", w1, secs);
    drain(e, circ, 1);
    cuzk_engine_destroy(e);
}

/* A fresh 2x2 engine with the fault mode; jobs until device d is marked
 * failed (a few suffice; bounded), whose reason must contain why. */
static cuzk_engine *fail_device(int mode, const cuzk_engine_kind *kd, tkind *k, unsigned d, const char *why,
                                cuzk_rng *rng)
{
    fault_reset(mode);
    cuzk_engine *e = make_engine(3, 2, 2, 0, NULL);
    CHECK(cuzk_engine_register_kind(e, kd) == CUZK_OK);
    for (int round = 0; round < 20 && !cuzk_engine_device_failed(e, d, NULL, 0); round++)
        run_jobs(e, k, "until-failed", 2, rng);
    char reason[256];
    CHECK(cuzk_engine_device_failed(e, d, reason, sizeof reason));
    CHECK_MSG(strstr(reason, why), "%s", reason);
    return e;
}

static void device_failures(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 10, CUZK_PRIORITY_NORMAL);
    const char *circ[] = {"porep-c"};
    char reason[256];
    cuzk_engine_counters c;

    /* device 0 fails every call (an out-of-memory error): once 3 of its
     * failures in a row proved valid on device 1 it is marked failed; every
     * job still completes */
    log_clear();
    g_max_errors = 3;
    cuzk_engine *e = fail_device(F_ERROR_DEV0, &kd, k, 0, "3 failures in a row that other devices proved valid", rng);
    CHECK(status_has(e, "\"device_max_errors\":3"));
    CHECK(cuzk_engine_device_failed(e, 0, reason, sizeof reason) && strstr(reason, "injected fault"));
    CHECK(!cuzk_engine_device_failed(e, 1, reason, sizeof reason) && reason[0] == 0);
    unsigned calls0 = atomic_load(&F.dev_calls[0]);
    CHECK_MSG(calls0 >= 3, "%u calls on device 0", calls0);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.devices_failed == 1 && c.devices_healthy == 1 && c.prover_errors == calls0);
    CHECK(c.jobs_failed == 0 && c.partitions_reproved >= 3);
    CHECK(status_has(e, "\"state\":\"failed\",\"failed\":true,\"reason\":\"3 failures"));
    CHECK(status_has(e, "\"doing\":\"failed\""));
    CHECK_MSG(log_count("marked failed") == 1, "log: %s", log_buf);
    run_jobs(e, k, "after-fail", 3, rng); /* never reaches device 0 again */
    CHECK(atomic_load(&F.dev_calls[0]) == calls0);
    drain(e, circ, 1);
    cuzk_engine_destroy(e);

    /* repeated invalid proofs fail a device the same way */
    e = fail_device(F_CORRUPT_DEV0, &kd, k, 0, "last: invalid proof", rng);
    /* counted once re-proved: proofs made meanwhile on device 0 are re-proved too */
    unsigned bad = atomic_load(&F.corrupted);
    CHECK_MSG(bad >= 3 && atomic_load(&F.corrupted_dev1) == 0, "%u corrupted", bad);
    run_jobs(e, k, "after-invalid", 2, rng);
    CHECK(atomic_load(&F.corrupted) == bad);
    drain(e, circ, 1);
    cuzk_engine_destroy(e);
    g_max_errors = 0;

    /* a device error (CUZK_ERR_DEVICE: a CUDA error) fails the device at once */
    e = fail_device(F_DEVERR_DEV1, &kd, k, 1, "device error: injected fault", rng);
    unsigned calls1 = atomic_load(&F.dev_calls[1]);
    CHECK_MSG(calls1 >= 1 && calls1 <= 2, "%u calls on device 1", calls1);
    run_jobs(e, k, "after-deverr", 2, rng);
    CHECK(atomic_load(&F.dev_calls[1]) == calls1 && !cuzk_engine_device_failed(e, 0, NULL, 0));
    drain(e, circ, 1);
    cuzk_engine_destroy(e);

    /* bad input fails on every device (invalid proofs, prover errors): the
     * jobs fail, but no device is blamed */
    const int bad_modes[2] = {F_CORRUPT_ALL, F_ERROR_ALL};
    for (int m = 0; m < 2; m++) {
        fault_reset(bad_modes[m]);
        e = make_engine(3, 2, 2, 0, NULL);
        CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
        cuzk_job *js[3];
        for (int i = 0; i < 3; i++) {
            char id[32];
            snprintf(id, sizeof id, "bad-input-%d-%d", m, i);
            CHECK(tk_submit(e, "porep", id, 600 + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &js[i]) == CUZK_OK);
        }
        for (int i = 0; i < 3; i++) {
            int r = cuzk_job_await(js[i], -1);
            CHECK_MSG(r == (m == 0 ? CUZK_ERR_VERIFY_FAILED : CUZK_ERR_INVALID_ARG), "%s", cuzk_strerror(r));
            cuzk_job_release(js[i]);
        }
        CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
        cuzk_engine_get_counters(e, &c);
        CHECK_MSG(c.devices_failed == 0 && c.devices_healthy == 2 && c.jobs_failed == 3, "%llu failed devices",
                  (unsigned long long)c.devices_failed);
        CHECK(m == 1 || c.partitions_invalid >= 6);
        CHECK(m == 0 || c.prover_errors >= 6);
        CHECK(status_has(e, "\"last_error\":\"") && !status_has_quiet(e, "\"state\":\"failed\""));
        drain(e, circ, 1);
        cuzk_engine_destroy(e);
    }

    /* every device fails, with the CPU fallback: the CPU prover takes over */
    fault_reset(F_DEVERR_ALL);
    g_fallback = true;
    e = make_engine(3, 2, 2, 0, NULL);
    g_fallback = false;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(status_has(e, "\"fallback\":true") && status_has(e, "\"state\":\"standby\""));
    run_jobs(e, k, "fallback", 3, rng);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.devices_failed == 2 && c.devices_healthy == 0 && c.jobs_done == 3 && c.jobs_failed == 0);
    CHECK(status_has(e, "\"state\":\"active\"") && status_has(e, "\"device\":\"cpu-fallback\""));
    drain(e, circ, 1);
    cuzk_engine_destroy(e);

    /* every device fails, no fallback: the jobs fail clearly, later ones at
     * once, and nothing hangs */
    fault_reset(F_DEVERR_ALL);
    e = make_engine(3, 2, 2, 0, NULL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    for (int round = 0; round < 2; round++) {
        cuzk_job *js[3];
        for (int i = 0; i < 3; i++) {
            char id[32];
            snprintf(id, sizeof id, "dead-%d-%d", round, i);
            CHECK(tk_submit(e, "porep", id, 500 + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &js[i]) == CUZK_OK);
        }
        for (int i = 0; i < 3; i++) {
            CHECK(cuzk_job_await(js[i], -1) == CUZK_ERR_NO_DEVICE);
            cuzk_job_info inf;
            cuzk_job_get_info(js[i], &inf);
            CHECK_MSG(strstr(inf.message, "no working prover device: all 2 failed (device "), "%s", inf.message);
            cuzk_job_release(js[i]);
        }
    }
    cuzk_engine_get_counters(e, &c);
    CHECK(c.devices_failed == 2 && c.devices_healthy == 0 && c.jobs_failed == 6);
    drain(e, circ, 1);
    cuzk_engine_destroy(e);
}

/* ---- cancellation and deadlines ------------------------------------------ */

static void expect_cancelled(cuzk_job *j)
{
    CHECK(cuzk_job_cancel(j) == CUZK_OK);
    CHECK(cuzk_job_await(j, 0) == CUZK_ERR_CANCELLED); /* at once, whatever is running */
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    CHECK(inf.state == CUZK_JOB_CANCELLED && inf.error == CUZK_ERR_CANCELLED);
    CHECK(cuzk_job_cancel(j) == CUZK_ERR_INVALID_ARG);
}

/* One device with one worker; "porep" (parts partitions) and "one" (1). */
static cuzk_engine *two_kinds(tkind *k, tkind *k1, unsigned synth, uint64_t budget, uint32_t parts)
{
    fault_reset(F_NONE);
    cuzk_engine *e = make_engine(synth, 1, 1, budget, NULL);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", parts, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind kw = tk_kind(k1, "one", "one-c", 1, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kw) == CUZK_OK);
    return e;
}

static void cancel_and_timeout(tkind *k, tkind *k1)
{
    cuzk_engine *e = two_kinds(k, k1, 1, 0, 3);
    cuzk_job *a, *b;

    /* queued: the only synthesis worker is held by another job */
    gate_arm(&G, CUZK_STAGE_SYNTHESIS, "q-a");
    CHECK(tk_submit(e, "one", "q-a", 1, CUZK_PRIORITY_DEFAULT, 0, &a) == CUZK_OK);
    gate_wait(&G);
    CHECK(tk_submit(e, "porep", "q-b", 2, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
    CHECK(cuzk_job_await(b, 0) == CUZK_ERR_NOT_READY);
    expect_cancelled(b);
    gate_release(&G);
    CHECK(cuzk_job_await(a, -1) == CUZK_OK && tk_proof_ok(k1, a, 1, 1));
    cuzk_job_release(a);
    cuzk_job_release(b);

    /* in synthesis, in proving, in verification: stops at the stage boundary */
    const cuzk_engine_stage stages[3] = {CUZK_STAGE_SYNTHESIS, CUZK_STAGE_PROVE, CUZK_STAGE_VERIFY};
    for (int s = 0; s < 3; s++) {
        char id[32];
        snprintf(id, sizeof id, "stage-%d", s);
        gate_arm(&G, stages[s], id);
        CHECK(tk_submit(e, "porep", id, 10 + s, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
        gate_wait(&G);
        expect_cancelled(b);
        gate_release(&G);
        cuzk_job_release(b);
    }

    /* waiting in the prove queue: the only prover worker is held */
    gate_arm(&G, CUZK_STAGE_PROVE, "pq-a");
    CHECK(tk_submit(e, "one", "pq-a", 3, CUZK_PRIORITY_DEFAULT, 0, &a) == CUZK_OK);
    gate_wait(&G);
    CHECK(tk_submit(e, "porep", "pq-b", 4, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
    WAIT_FOR(e, c_.queued_prove >= 1);
    expect_cancelled(b);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.queued_prove == 0);
    gate_release(&G);
    CHECK(cuzk_job_await(a, -1) == CUZK_OK && tk_proof_ok(k1, a, 3, 1));
    cuzk_job_release(a);
    cuzk_job_release(b);

    /* a deadline passes while the job is held in synthesis */
    gate_arm(&G, CUZK_STAGE_SYNTHESIS, "late");
    CHECK(tk_submit(e, "porep", "late", 5, CUZK_PRIORITY_DEFAULT, 30, &b) == CUZK_OK);
    gate_wait(&G);
    CHECK(cuzk_job_await(b, -1) == CUZK_ERR_TIMEOUT);
    cuzk_job_info inf;
    cuzk_job_get_info(b, &inf);
    CHECK(inf.state == CUZK_JOB_TIMED_OUT);
    gate_release(&G);
    cuzk_job_release(b);

    /* and the engine still serves */
    CHECK(tk_submit(e, "porep", "after", 6, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
    CHECK(cuzk_job_await(b, -1) == CUZK_OK && tk_proof_ok(k, b, 6, 3));
    cuzk_job_release(b);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.jobs_cancelled == 5 && c.jobs_timed_out == 1 && c.jobs_done == 3);
    const char *circ[] = {"porep-c", "one-c"};
    drain(e, circ, 2);

    /* destroying an engine with work queued and running cancels it */
    gate_arm(&G, CUZK_STAGE_PROVE, "shutdown");
    CHECK(tk_submit(e, "porep", "shutdown", 7, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
    gate_wait(&G);
    gate_release(&G);
    cuzk_job_release(b);
    cuzk_engine_destroy(e);
}

/* ---- the memory budget ------------------------------------------------------ */

/* sizes measured by budget(): parameters, one partition's witness */
static uint64_t g_S, g_W;

static void budget(tkind *k, tkind *k2)
{
    fault_reset(F_NONE);
    /* measure: parameters alone, then parameters plus one partition */
    cuzk_engine *e = make_engine(1, 1, 1, 0, NULL);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 4, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind kd2 = tk_kind(k2, "other", "other-c", 4, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind km = tk_kind(k, "measure", "porep-c", 1, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &km) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    uint64_t S = c.memory_reserved;
    cuzk_job *j;
    CHECK(tk_submit(e, "measure", "measure", 1, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK);
    cuzk_job_release(j);
    cuzk_engine_get_counters(e, &c);
    uint64_t W = c.memory_peak - S;
    cuzk_engine_destroy(e);
    CHECK(S > 0 && W > 0 && S > 2 * W);
    g_S = S, g_W = W;
    fprintf(stderr, "budget: parameters %llu bytes, one partition %llu bytes\n", (unsigned long long)S,
            (unsigned long long)W);

    /* tight: one circuit and one and a half partitions; many workers wait on it */
    uint64_t B = S + W + W / 2;
    e = make_engine(4, 2, 2, B, NULL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kd2) == CUZK_OK);
    enum { N = 8 };
    cuzk_job *js[N];
    uint64_t seeds[N];
    char id[32];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "tight-%d", i);
        seeds[i] = 1000 + (uint64_t)i;
        CHECK(tk_submit(e, i % 4 == 3 ? "other" : "porep", id, seeds[i], CUZK_PRIORITY_DEFAULT, 0, &js[i]) == CUZK_OK);
    }
    for (int i = 0; i < N; i++) {
        int r = cuzk_job_await(js[i], -1);
        CHECK_MSG(r == CUZK_OK, "%s: %s", cuzk_job_request_id(js[i]), cuzk_strerror(r));
        CHECK(tk_proof_ok(i % 4 == 3 ? k2 : k, js[i], seeds[i], 4));
        cuzk_job_release(js[i]);
    }
    cuzk_engine_get_counters(e, &c);
    CHECK_MSG(c.memory_peak <= B, "peak %llu > budget %llu", (unsigned long long)c.memory_peak,
              (unsigned long long)B);
    CHECK(c.memory_waits > 0);
    CHECK(c.srs_evictions > 0); /* two circuits never fit together */
    fprintf(stderr, "budget: %llu waits, %llu evictions, peak %llu of %llu\n", (unsigned long long)c.memory_waits,
            (unsigned long long)c.srs_evictions, (unsigned long long)c.memory_peak, (unsigned long long)B);

    /* a preload waits for memory held by running work, then succeeds */
    gate_arm(&G, CUZK_STAGE_PROVE, "hold");
    CHECK(tk_submit(e, "porep", "hold", 77, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    gate_wait(&G);
    gate_release(&G); /* the preload below may wait for this job's memory */
    CHECK(cuzk_engine_srs_preload(e, "other-c") == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK);
    cuzk_job_release(j);
    const char *circ[] = {"porep-c", "other-c"};
    drain(e, circ, 2);
    cuzk_engine_destroy(e);

    /* too small for the parameters: the job fails clearly, nothing hangs */
    e = make_engine(2, 1, 1, S / 2, NULL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_ERR_NO_MEMORY);
    CHECK(tk_submit(e, "porep", "too-big", 3, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_ERR_NO_MEMORY);
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(strstr(inf.message, "exceed the memory budget"), "%s", inf.message);
    cuzk_job_release(j);
    cuzk_engine_destroy(e);
}

/* ---- the PCE manager through a fake backend ---------------------------------- */

typedef struct fake_pce {
    atomic_uint loads, extracts, witnesses;
    atomic_uint frees, freed_in_use; /* a PCE freed while a witness call used it */
    atomic_uint min_threads, max_threads; /* the threads witness calls were given */
    uint64_t bytes;                  /* the size PCEs claim; 0: 16 (loaded) or 32 (extracted) */
} fake_pce;

static fake_pce P;

/* A fake PCE: witness calls using it now, and witnesses made from it not
 * yet released (a real PCE witness is a view into the PCE's memory). */
typedef struct fake_obj {
    atomic_int users, alive;
} fake_obj;

typedef struct fake_wit {
    cuzk_proving_cs *cs;
    fake_obj *pce;
} fake_wit;

static int fp_new(void **pce, uint64_t *bytes, uint64_t dflt)
{
    fake_obj *o = calloc(1, sizeof *o);
    *pce = o;
    *bytes = P.bytes ? P.bytes : dflt;
    return o ? CUZK_OK : CUZK_ERR_NO_MEMORY;
}

static uint64_t fp_estimate(void *ctx, const cuzk_engine_kind *kind) { return P.bytes; }

static int fp_load(void *ctx, const cuzk_engine_kind *kind, void **pce, uint64_t *bytes)
{
    atomic_fetch_add(&P.loads, 1);
    if (strcmp(kind->circuit_id, "cached-c")) return CUZK_ERR_IO; /* no cache on disk */
    return fp_new(pce, bytes, 16);
}

static int fp_extract(void *ctx, const cuzk_engine_kind *kind, const void *in, size_t len, void **pce,
                      uint64_t *bytes)
{
    if (len != 8) return CUZK_ERR_BAD_LENGTH; /* the triggering job's inputs */
    atomic_fetch_add(&P.extracts, 1);
    if (!strcmp(kind->circuit_id, "broken-c")) return CUZK_ERR_FORMAT;
    usleep(20000); /* a window for other partitions to ask for a second extraction */
    return fp_new(pce, bytes, 32);
}


static void fw_release(void *owner)
{
    fake_wit *fw = owner;
    atomic_fetch_sub(&fw->pce->alive, 1);
    cuzk_cs_free(&fw->cs->base);
    free(fw);
}

/* Stands in for witness-only synthesis plus the mat-vec: same assignment. */
static int fp_witness(void *ctx, void *pce, const cuzk_engine_kind *kind, const void *in, size_t len,
                      const void *prepared, uint32_t part, unsigned flags, unsigned threads,
                      cuzk_engine_witness *out)
{
    (void)flags; /* a full assignment either way */
    atomic_fetch_add(&P.witnesses, 1);
    for (unsigned m = atomic_load(&P.min_threads); threads < m && !atomic_compare_exchange_weak(&P.min_threads, &m, threads);)
        ;
    for (unsigned m = atomic_load(&P.max_threads); threads > m && !atomic_compare_exchange_weak(&P.max_threads, &m, threads);)
        ;
    fake_obj *o = pce;
    atomic_fetch_add(&o->users, 1);
    usleep(1000); /* a window for an eviction that should not happen */
    memset(out, 0, sizeof *out);
    cuzk_proving_cs *cs = cuzk_proving_cs_new();
    int err = cs ? cuzk_cs_alloc_one(&cs->base) : CUZK_ERR_NO_MEMORY;
    if (!err) err = kind->synthesize(kind->ctx, &cs->base, in, len, prepared, part);
    if (!err) err = cuzk_cs_finalize(&cs->base);
    if (!err) err = cuzk_groth16_assignment_from_cs(&out->as, cs);
    atomic_fetch_sub(&o->users, 1);
    fake_wit *fw = err ? NULL : malloc(sizeof *fw);
    if (!fw) {
        if (cs) cuzk_cs_free(&cs->base);
        return err ? err : CUZK_ERR_NO_MEMORY;
    }
    fw->cs = cs, fw->pce = o;
    atomic_fetch_add(&o->alive, 1);
    out->owner = fw;
    out->release = fw_release;
    return CUZK_OK;
}

static void fp_free(void *ctx, void *pce)
{
    fake_obj *o = pce;
    atomic_fetch_add(&P.frees, 1);
    if (atomic_load(&o->users) || atomic_load(&o->alive)) atomic_fetch_add(&P.freed_in_use, 1);
    free(o);
}

static void pce_manager(tkind *k, tkind *k1)
{
    fault_reset(F_NONE);
    cuzk_engine_pce hooks = {.load = fp_load, .extract = fp_extract, .witness = fp_witness, .free = fp_free};
    cuzk_engine *e = make_engine(4, 1, 2, 0, &hooks);
    cuzk_engine_kind kc = tk_kind(k1, "cached", "cached-c", 2, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind kf = tk_kind(k, "fresh", "fresh-c", 10, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind kb = tk_kind(k1, "broken", "broken-c", 2, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kc) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kf) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kb) == CUZK_OK);
    cuzk_pce_state ps;
    CHECK(cuzk_engine_pce_state(e, "cached-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    CHECK(cuzk_engine_pce_state(e, "fresh-c", &ps) == CUZK_OK && ps == CUZK_PCE_NONE);
    CHECK(atomic_load(&P.loads) == 3);

    cuzk_job *js[4];
    const char *kinds[4] = {"fresh", "fresh", "cached", "broken"};
    const uint32_t parts[4] = {10, 10, 2, 2};
    tkind *tk[4] = {k, k, k1, k1};
    for (int i = 0; i < 4; i++) {
        char id[16];
        snprintf(id, sizeof id, "pce-%d", i);
        CHECK(tk_submit(e, kinds[i], id, 300 + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &js[i]) == CUZK_OK);
    }
    for (int i = 0; i < 4; i++) {
        CHECK(cuzk_job_await(js[i], -1) == CUZK_OK);
        CHECK(tk_proof_ok(tk[i], js[i], 300 + (uint64_t)i, parts[i]));
        cuzk_job_release(js[i]);
    }
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK); /* extractions finished too */
    CHECK(atomic_load(&P.extracts) == 2);           /* once per circuit: fresh, broken */
    CHECK(cuzk_engine_pce_state(e, "fresh-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    CHECK(cuzk_engine_pce_state(e, "broken-c", &ps) == CUZK_OK && ps == CUZK_PCE_FAILED);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    uint64_t fast = c.pce_fast_path;
    CHECK(fast >= 2 && fast == atomic_load(&P.witnesses));
    /* now resident: a new job of the fresh kind runs entirely on the fast path;
     * its first partition, alone, gets every CPU, the others a share */
    atomic_store(&P.min_threads, ~0u);
    atomic_store(&P.max_threads, 0);
    cuzk_job *j;
    CHECK(tk_submit(e, "fresh", "pce-after", 400, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 400, 10));
    cuzk_job_release(j);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.pce_fast_path == fast + 10 && c.pce_extractions == 1 && c.pce_failures == 1);
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK_MSG(atomic_load(&P.min_threads) >= 1 && atomic_load(&P.max_threads) == (unsigned)cpus,
              "witness threads %u to %u of %ld CPUs", atomic_load(&P.min_threads), atomic_load(&P.max_threads), cpus);
    cuzk_engine_destroy(e);
}

/* ---- PCE eviction under the budget ------------------------------------------ */

typedef struct preload_arg {
    cuzk_engine *e;
    const char *circuit;
    atomic_int rc, done;
} preload_arg;

static void *preload_main(void *arg)
{
    preload_arg *a = arg;
    atomic_store(&a->rc, cuzk_engine_srs_preload(a->e, a->circuit));
    atomic_store(&a->done, 1);
    return NULL;
}

static void pce_eviction(tkind *k, tkind *k2)
{
    fault_reset(F_NONE);
    memset(&P, 0, sizeof P);
    uint64_t S = g_S, W = g_W;
    P.bytes = S; /* PCEs as large as the parameters: they compete for the budget */
    cuzk_engine_pce hooks = {.load = fp_load, .extract = fp_extract, .witness = fp_witness,
                             .estimate_bytes = fp_estimate, .free = fp_free};
    cuzk_engine_counters c;
    cuzk_pce_state ps;
    cuzk_job *j;

    /* a PCE in use is never evicted: a preload that needs its memory waits
     * until the synthesis using it is done, then evicts it (the LRU idle entry) */
    uint64_t B = 2 * S + W + W / 2;
    cuzk_engine *e = make_engine(2, 1, 1, B, &hooks);
    cuzk_engine_kind kc = tk_kind(k, "cached", "cached-c", 1, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind ko = tk_kind(k2, "other", "other-c", 1, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kc) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &ko) == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "cached-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    gate_arm(&G, CUZK_STAGE_SYNTHESIS, "hold-pce");
    CHECK(tk_submit(e, "cached", "hold-pce", 61, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    gate_wait(&G); /* its synthesis holds the PCE (fast path) and the parameters */
    cuzk_engine_get_counters(e, &c);
    uint64_t waits0 = c.memory_waits;
    preload_arg pa = {.e = e, .circuit = "other-c"};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, preload_main, &pa) == 0);
    WAIT_FOR(e, c_.memory_waits > waits0); /* the preload found no idle entry */
    CHECK(cuzk_engine_pce_state(e, "cached-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    CHECK(!atomic_load(&pa.done));
    char *js = cuzk_engine_status_json(e);
    CHECK_MSG(js && strstr(js, "\"pce\":\"resident\",\"pce_bytes\""), "%s", js ? js : "");
    CHECK(js && strstr(js, "\"pce_refs\":1"));
    free(js);
    gate_release(&G);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 61, 1));
    cuzk_job_release(j);
    pthread_join(th, NULL);
    CHECK(atomic_load(&pa.rc) == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "cached-c", &ps) == CUZK_OK && ps == CUZK_PCE_NONE);
    cuzk_srs_state ss;
    CHECK(cuzk_engine_srs_state(e, "cached-c", &ss) == CUZK_OK && ss == CUZK_SRS_HOT); /* more recent */
    cuzk_engine_get_counters(e, &c);
    CHECK(c.pce_evictions == 1 && c.pce_resident_bytes == 0 && atomic_load(&P.frees) == 1);
    /* the next job of the circuit synthesizes fully and extracts the PCE again */
    CHECK(tk_submit(e, "cached", "re-extract", 62, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 62, 1));
    cuzk_job_release(j);
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "cached-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    CHECK(atomic_load(&P.extracts) == 1);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.memory_peak <= B && c.pce_resident_bytes == S);
    cuzk_engine_destroy(e);

    /* two circuits whose parameters and PCEs never fit together: jobs
     * alternate, idle PCEs and parameters are evicted LRU, all proofs valid */
    B = 2 * S + 2 * W;
    e = make_engine(3, 1, 2, B, &hooks);
    cuzk_engine_kind kx = tk_kind(k, "x", "x-c", 4, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind ky = tk_kind(k2, "y", "y-c", 4, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kx) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &ky) == CUZK_OK);
    for (int i = 0; i < 8; i++) {
        char id[16];
        snprintf(id, sizeof id, "alt-%d", i);
        CHECK(tk_submit(e, i % 2 ? "y" : "x", id, 700 + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        int r = cuzk_job_await(j, -1);
        CHECK_MSG(r == CUZK_OK, "%s: %s", id, cuzk_strerror(r));
        CHECK(tk_proof_ok(i % 2 ? k2 : k, j, 700 + (uint64_t)i, 4));
        cuzk_job_release(j);
        CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK); /* its extraction too */
    }
    cuzk_engine_get_counters(e, &c);
    fprintf(stderr, "pce eviction: %llu PCE evictions, %llu SRS evictions, %llu extractions, peak %llu of %llu\n",
            (unsigned long long)c.pce_evictions, (unsigned long long)c.srs_evictions,
            (unsigned long long)c.pce_extractions, (unsigned long long)c.memory_peak, (unsigned long long)B);
    CHECK(c.pce_evictions > 0 && c.pce_extractions > 2 && c.memory_peak <= B);
    CHECK(atomic_load(&P.freed_in_use) == 0);
    cuzk_engine_destroy(e);
    CHECK(atomic_load(&P.freed_in_use) == 0);
    memset(&P, 0, sizeof P);
}

/* ---- pinned parameters and the synthesis default ----------------------------- */

/* ASan makes mlock a no-op ("AddressSanitizer ignores mlock"): the kernel's
 * count is an oracle only without it. */
#if defined(__SANITIZE_ADDRESS__)
#define VMLCK_ORACLE 0
#else
#define VMLCK_ORACLE 1
#endif

/* The kernel's count of this process's locked memory (VmLck), bytes. */
static uint64_t vm_locked(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmLck:", 6)) kb = strtoull(line + 6, NULL, 10);
    if (f) fclose(f);
    return kb * 1024;
}

static uint64_t upload_bytes(const cuzk_groth16_params *p)
{
    return (p->n_h + p->n_l + p->n_a + p->n_b_g1) * sizeof(cuzk_g1_affine) + p->n_b_g2 * sizeof(cuzk_g2_affine);
}

/* the status's "pinning" value, copied into out */
static void status_pinning(cuzk_engine *e, char *out, size_t n)
{
    char *js = cuzk_engine_status_json(e);
    const char *p = js ? strstr(js, "\"pinning\":\"") : NULL;
    snprintf(out, n, "%.*s", p ? (int)strcspn(p + 11, "\"") : 0, p ? p + 11 : "");
    free(js);
}

static void pinning(tkind *k, tkind *k2)
{
    fault_reset(F_NONE);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 2, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind ko = tk_kind(k2, "other", "other-c", 2, CUZK_PRIORITY_NORMAL);
    uint64_t P1 = upload_bytes(&k->params), P2 = upload_bytes(&k2->params);
    cuzk_engine_counters c;
    char how[32];
    cuzk_job *j;

    /* with a prover backend HOT parameters are page-locked; the limit (one
     * and a half sets) leaves the second set pageable, and it still proves */
    g_pin_limit = P1 + P2 / 2;
    cuzk_engine *e = make_engine(2, 1, 1, 0, NULL);
    g_pin_limit = 0;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &ko) == CUZK_OK);
    uint64_t lck0 = vm_locked();
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    status_pinning(e, how, sizeof how);
    cuzk_engine_get_counters(e, &c);
    fprintf(stderr, "pinning: %s, %llu bytes of %llu\n", how, (unsigned long long)c.memory_pinned,
            (unsigned long long)c.memory_pinned_limit);
    CHECK(c.memory_pinned_limit == P1 + P2 / 2);
    if (!strcmp(how, "none")) {
        /* this prover pins nothing itself and mlock failed (RLIMIT_MEMLOCK):
         * said so, nothing counted */
        char *js = cuzk_engine_status_json(e);
        CHECK_MSG(js && strstr(js, "\"pinning_note\":\"pageable (mlock: "), "%s", js ? js : "");
        free(js);
        CHECK(c.memory_pinned == 0);
    } else {
        /* the test prover has no host_pin: the engine's own mlock */
        CHECK_MSG(!strcmp(how, "mlock"), "%s", how);
        CHECK(c.memory_pinned == P1 && c.memory_pinned_peak == P1);
        if (!strcmp(how, "mlock") && VMLCK_ORACLE)
            CHECK_MSG(vm_locked() >= lck0 + P1, "VmLck %llu", (unsigned long long)vm_locked());
        CHECK(status_has(e, "\"pinned\":\"") && status_has(e, "\"pinning_note\":\""));
        /* over the limit: pageable, counted, and it proves */
        CHECK(cuzk_engine_srs_preload(e, "other-c") == CUZK_OK);
        cuzk_engine_get_counters(e, &c);
        CHECK(c.memory_pinned == P1 && c.pin_over_limit == 1);
        CHECK(tk_submit(e, "other", "pageable", 81, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k2, j, 81, 2));
        cuzk_job_release(j);
        /* eviction unpins; the next load of the other set fits the limit */
        CHECK(cuzk_engine_srs_evict(e, "porep-c") == CUZK_OK);
        CHECK(cuzk_engine_srs_evict(e, "other-c") == CUZK_OK);
        cuzk_engine_get_counters(e, &c);
        CHECK(c.memory_pinned == 0);
        if (!strcmp(how, "mlock") && VMLCK_ORACLE) CHECK(vm_locked() == lck0);
        CHECK(tk_submit(e, "other", "pinned", 82, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k2, j, 82, 2));
        cuzk_job_release(j);
        cuzk_engine_get_counters(e, &c);
        CHECK(c.memory_pinned == P2);
    }
    const char *circ[] = {"porep-c", "other-c"};
    drain(e, circ, 2);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.memory_pinned == 0);
    cuzk_engine_destroy(e);

    /* a prover that page-locks its own way (the GPU prover registers with
     * CUDA): every array goes through its host_pin, none through mlock, and
     * eviction hands each back to its host_unpin */
    g_pin_hooks = true;
    e = make_engine(1, 1, 1, 0, NULL);
    g_pin_hooks = false;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    lck0 = vm_locked();
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    status_pinning(e, how, sizeof how);
    cuzk_engine_get_counters(e, &c);
    CHECK_MSG(!strcmp(how, "device"), "%s", how);
    CHECK(c.memory_pinned == P1 && atomic_load(&g_hook_live) == P1 && atomic_load(&g_hook_pins) >= 4);
    if (VMLCK_ORACLE) CHECK(vm_locked() == lck0);
    CHECK(tk_submit(e, "porep", "hooked", 83, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 83, 2));
    cuzk_job_release(j);
    drain(e, circ, 1);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.memory_pinned == 0 && atomic_load(&g_hook_live) == 0);
    CHECK(atomic_load(&g_hook_unpins) == atomic_load(&g_hook_pins));
    cuzk_engine_destroy(e);

    /* switched off: nothing pinned, the status says so */
    g_pin = CUZK_PIN_OFF;
    e = make_engine(1, 1, 1, 0, NULL);
    g_pin = CUZK_PIN_AUTO;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.memory_pinned == 0 && c.memory_pinned_limit == 0);
    status_pinning(e, how, sizeof how);
    CHECK(!strcmp(how, "off"));
    cuzk_engine_destroy(e);

    /* the built-in CPU prover uploads nothing: off by default */
    cuzk_engine_config cfg = {.synthesis_workers = 1, .log = log_capture};
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    status_pinning(e, how, sizeof how);
    CHECK(!strcmp(how, "off"));
    cuzk_engine_destroy(e);
}

static uint64_t reserved_now(cuzk_engine *e)
{
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    return c.memory_reserved;
}

/* A 2-device engine with the device-copy hooks, one job at a time after
 * the preload of porep-c: whether the host's copy went at the preload,
 * checked against the status and the log. A job's proves on a device
 * without the set copy it there (the first prove's upload): settled tells
 * whether the set must still be kept after they have. */
static bool preload_released(tkind *k, const cuzk_engine_kind *kd, uint64_t seed, bool settled)
{
    const char *circ[] = {"porep-c"};
    cuzk_job *j;
    log_clear();
    cuzk_engine *e = make_engine(2, 2, 1, 0, NULL);
    CHECK(cuzk_engine_register_kind(e, kd) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    const bool released = c.srs_host_released == 1;
    CHECK(released == status_has(e, "\"host_released\":true"));
    CHECK(released == (log_count("stand in for the host's") == 1));
    CHECK(tk_submit(e, "porep", "kept", seed, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, seed, 4));
    cuzk_job_release(j);
    cuzk_engine_get_counters(e, &c);
    if (settled) CHECK(released == (c.srs_host_released == 1));
    drain(e, circ, 1);
    cuzk_engine_destroy(e);
    return released;
}

/* Parameters every device holds leave the host: after a preload's warm on
 * every device, or once a job's proves have put them on every device. The
 * arrays' pages go back to the kernel, their bytes to the budget, and the
 * jobs prove from the devices' copies, also a job in flight at that moment.
 * Not when a device lacks them, nor with a CPU fallback, nor when the
 * operator keeps them. An eviction drops the copies; the next load decodes
 * the set again. */
static void host_release(tkind *k, cuzk_rng *rng)
{
    fault_reset(F_NONE);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 4, CUZK_PRIORITY_NORMAL);
    const char *circ[] = {"porep-c"};
    const uint64_t P = upload_bytes(&k->params), vk2 = 2 * k->params.vk.n_ic * sizeof(cuzk_g1_affine);
    const uint64_t seed = cuzk_rng_u64(rng) >> 8; /* below TK_FAIL_SYNTH */
    cuzk_engine_counters c;
    cuzk_job *j, *held;
    g_dev_hooks = true;
    atomic_store(&g_from_copy, 0);
    atomic_store(&g_host_gone, 0);

    log_clear();
    cuzk_engine *e = make_engine(2, 2, 1, 0, NULL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    const uint64_t r0 = reserved_now(e);
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.srs_host_released == 1 && c.srs_evictions == 0 && c.memory_pinned == 0);
    CHECK_MSG(c.memory_reserved - r0 == vk2, "reserved %llu more, the verifying keys' %llu",
              (unsigned long long)(c.memory_reserved - r0), (unsigned long long)vk2);
    CHECK(status_has(e, "\"host_released\":true"));
    CHECK_MSG(log_count("stand in for the host's") == 1, "log: %s", log_buf);
    cuzk_job *js[3];
    const char *ids[3] = {"copy-0", "copy-1", "copy-2"};
    for (int i = 0; i < 3; i++)
        CHECK(tk_submit(e, "porep", ids[i], seed + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &js[i]) == CUZK_OK);
    for (int i = 0; i < 3; i++) {
        CHECK(cuzk_job_await(js[i], -1) == CUZK_OK && tk_proof_ok(k, js[i], seed + (uint64_t)i, 4));
        cuzk_job_release(js[i]);
    }
    const unsigned from_copy = atomic_load(&g_from_copy);
    CHECK_MSG(from_copy >= 12, "%u proofs from the copies", from_copy);
    CHECK_MSG(atomic_load(&g_host_gone) == from_copy, "the host's h read as zeros in %u of %u proves",
              atomic_load(&g_host_gone), from_copy);

    /* evicted: the copies go with it. A job loads the set again: its host
     * arrays serve the devices' first proves, then go once both hold it */
    CHECK(cuzk_engine_srs_evict(e, "porep-c") == CUZK_OK);
    CHECK(reserved_now(e) == r0 && !g_dev[0].key && !g_dev[1].key);
    CHECK(tk_submit(e, "porep", "reloaded", seed + 3, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, seed + 3, 4));
    cuzk_job_release(j);
    for (int i = 0; i < 40 && !(g_dev[0].key && g_dev[1].key); i++) { /* until both devices proved one */
        CHECK(tk_submit(e, "porep", "reloaded-more", seed + 10 + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &j) ==
              CUZK_OK);
        CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, seed + 10 + (uint64_t)i, 4));
        cuzk_job_release(j);
    }
    cuzk_engine_get_counters(e, &c);
    CHECK_MSG(c.srs_host_released == 2 && reserved_now(e) - r0 == vk2, "released %llu times, %llu reserved",
              (unsigned long long)c.srs_host_released, (unsigned long long)(reserved_now(e) - r0));

    /* released while a job is between its synthesis and its prove (every
     * partition of it held at the gate: no device has the set yet) */
    CHECK(cuzk_engine_srs_evict(e, "porep-c") == CUZK_OK);
    cuzk_engine_get_counters(e, &c);
    const uint64_t synthesized0 = c.partitions_synthesized;
    gate_arm(&G, CUZK_STAGE_PROVE, "held");
    CHECK(tk_submit(e, "porep", "held", seed + 4, CUZK_PRIORITY_DEFAULT, 0, &held) == CUZK_OK);
    gate_wait(&G);
    /* the first partition at the gate does not end the others' synthesis:
     * their witnesses would still be growing the reservation read here */
    bool all4;
    WAIT_FOR_BOUNDED(e, c_.partitions_synthesized >= synthesized0 + 4, all4);
    CHECK_MSG(all4, "the held job's partitions not all synthesized");
    const uint64_t r1 = reserved_now(e); /* the set (no prove has copied it yet) and the witnesses */
    CHECK(r1 - r0 > P + vk2);
    const unsigned fc0 = atomic_load(&g_from_copy);
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.srs_host_released == 3 && r1 - reserved_now(e) == P);
    gate_release(&G);
    CHECK(cuzk_job_await(held, -1) == CUZK_OK && tk_proof_ok(k, held, seed + 4, 4));
    cuzk_job_release(held);
    CHECK(atomic_load(&g_from_copy) > fc0);
    drain(e, circ, 1);
    cuzk_engine_destroy(e);

    /* kept: a device without the set, a CPU fallback, the operator's switch */
    g_warm_fail_dev = 1;
    CHECK(!preload_released(k, &kd, seed + 5, false));
    CHECK_MSG(log_count("ahead of the first proof") == 1, "log: %s", log_buf);
    g_warm_fail_dev = -1;
    g_fallback = true;
    CHECK(!preload_released(k, &kd, seed + 6, true));
    g_fallback = false;
    g_keep_host = true;
    CHECK(!preload_released(k, &kd, seed + 7, true));
    g_keep_host = false;
    CHECK(preload_released(k, &kd, seed + 8, true)); /* and the helper sees a release */
    g_dev_hooks = false;
    printf("host release: %u partitions proved from the devices' copies\n", atomic_load(&g_from_copy));
}

static void synthesis_default(tkind *k, cuzk_rng *rng)
{
    /* the formula: min(cores, budget / footprint), at least 1 */
    CHECK(cuzk_engine_synthesis_workers_default(8, 1000, 0) == 8);   /* footprint unknown */
    CHECK(cuzk_engine_synthesis_workers_default(8, 1000, 10) == 8);  /* cores bound */
    CHECK(cuzk_engine_synthesis_workers_default(8, 1000, 300) == 3); /* memory bound */
    CHECK(cuzk_engine_synthesis_workers_default(8, 100, 300) == 1);  /* at least one */
    CHECK(cuzk_engine_synthesis_workers_default(0, 100, 0) == 1);
    for (int i = 0; i < 1000; i++) {
        unsigned cores = 1 + (unsigned)(cuzk_rng_u64(rng) % 512);
        uint64_t fp = 1 + cuzk_rng_u64(rng) % (1ull << 40), budget = cuzk_rng_u64(rng) % (1ull << 50);
        unsigned n = cuzk_engine_synthesis_workers_default(cores, budget, fp);
        /* n is the largest count <= cores whose footprints fit, or 1 */
        CHECK(n >= 1 && n <= cores);
        CHECK(n == 1 || (uint64_t)n * fp <= budget);
        CHECK(n == cores || (uint64_t)(n + 1) * fp > budget);
    }

    /* in an engine: unset, the limit follows the largest registered kind */
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cores = nc > 0 ? (unsigned)nc : 1;
    uint64_t B = 64ull << 20;
    log_clear();
    g_synth_workers = 0;
    cuzk_engine *e = make_engine(0, 1, 1, B, NULL);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.synthesis_limit == cores);
    CHECK_MSG(log_count("synthesis workers: ") == 1, "log: %s", log_buf);
    cuzk_engine_kind small = tk_kind(k, "small", "small-c", 1, CUZK_PRIORITY_NORMAL);
    small.witness_bytes = B / (2 * cores + 1); /* 2·cores of them fit: cores bound */
    CHECK(cuzk_engine_register_kind(e, &small) == CUZK_OK);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.synthesis_limit == cores);
    cuzk_engine_kind big = tk_kind(k, "big", "small-c", 1, CUZK_PRIORITY_NORMAL);
    big.witness_bytes = B / 2 + 1; /* one fits */
    CHECK(cuzk_engine_register_kind(e, &big) == CUZK_OK);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.synthesis_limit == 1);
    CHECK(cores == 1 || log_count("synthesis workers: 1 = min(") == 1);
    CHECK(status_has(e, "\"synthesis_limit\":1,\"synthesis_workers_configured\":false"));
    /* the small kind still proves with one synthesis at a time */
    cuzk_job *j;
    CHECK(tk_submit(e, "small", "one-at-a-time", 91, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, 91, 1));
    cuzk_job_release(j);
    cuzk_engine_destroy(e);

    /* configured: exactly that many, whatever the kinds */
    e = make_engine(3, 1, 1, B, NULL);
    CHECK(cuzk_engine_register_kind(e, &big) == CUZK_OK);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.synthesis_limit == 3);
    CHECK(status_has(e, "\"synthesis_workers\":3,\"synthesis_limit\":3,\"synthesis_workers_configured\":true"));
    cuzk_engine_destroy(e);
}

/* ---- more cancellation, waiters, budget exhaustion ---------------------------- */

static void cancel_more(tkind *k, tkind *k1)
{
    /* waiting for memory: the job behind a held one cannot load its
     * parameters; cancelling it wakes its waiters, the rest proceeds */
    cuzk_engine *e = two_kinds(k, k1, 2, g_S + g_W + g_W / 2, 2);
    cuzk_job *a, *b;
    gate_arm(&G, CUZK_STAGE_PROVE, "mem-a");
    CHECK(tk_submit(e, "porep", "mem-a", 1, CUZK_PRIORITY_DEFAULT, 0, &a) == CUZK_OK);
    gate_wait(&G);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    uint64_t waits0 = c.memory_waits;
    CHECK(tk_submit(e, "one", "mem-b", 2, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
    WAIT_FOR(e, c_.memory_waits > waits0);
    cuzk_srs_state ss;
    CHECK(cuzk_engine_srs_state(e, "one-c", &ss) == CUZK_OK && ss == CUZK_SRS_COLD);
    expect_cancelled(b);
    cuzk_job_release(b);
    gate_release(&G);
    CHECK(cuzk_job_await(a, -1) == CUZK_OK && tk_proof_ok(k, a, 1, 2));
    cuzk_job_release(a);
    CHECK(tk_submit(e, "one", "mem-c", 3, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
    CHECK(cuzk_job_await(b, -1) == CUZK_OK && tk_proof_ok(k1, b, 3, 1));
    cuzk_job_release(b);
    const char *circ[] = {"porep-c", "one-c"};
    drain(e, circ, 2);
    cuzk_engine_destroy(e);

    /* waiting for a re-prove: one device, two workers, every proof corrupt;
     * the invalid partition must avoid the worker that made it, and the
     * other one is held */
    fault_reset(F_CORRUPT_ALL);
    e = make_engine(1, 1, 2, 0, NULL);
    cuzk_engine_kind ko = tk_kind(k1, "one", "one-c", 1, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &ko) == CUZK_OK);
    gate_arm(&G, CUZK_STAGE_PROVE, "re-hold");
    CHECK(tk_submit(e, "one", "re-hold", 4, CUZK_PRIORITY_DEFAULT, 0, &a) == CUZK_OK);
    gate_wait(&G);
    CHECK(tk_submit(e, "one", "re-victim", 5, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK);
    WAIT_FOR(e, c_.partitions_reproved >= 1 && c_.queued_prove >= 1);
    expect_cancelled(b);
    cuzk_engine_get_counters(e, &c);
    CHECK(c.queued_prove == 0);
    expect_cancelled(a);
    gate_release(&G);
    cuzk_job_release(a);
    cuzk_job_release(b);
    drain(e, circ + 1, 1);
    cuzk_engine_destroy(e);
}

typedef struct waiter {
    cuzk_engine *e;
    cuzk_job *j; /* NULL: wait for idle */
    int rc;
} waiter;

static void *waiter_main(void *arg)
{
    waiter *w = arg;
    /* generous: a lost wake-up shows as CUZK_ERR_NOT_READY */
    w->rc = w->j ? cuzk_job_await(w->j, 120000) : cuzk_engine_wait_idle(w->e, 120000);
    return NULL;
}

/* Many waiters on jobs that finish, are cancelled or time out: every one
 * wakes with the job's result. */
static void waiters(tkind *k1, cuzk_rng *rng)
{
    fault_reset(F_NONE);
    cuzk_engine *e = make_engine(2, 1, 2, 0, NULL);
    cuzk_engine_kind ko = tk_kind(k1, "one", "one-c", 1, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &ko) == CUZK_OK);
    enum { W = 5 };
    unsigned outcomes[6] = {0};
    for (int round = 0; round < 60; round++) {
        char id[32];
        snprintf(id, sizeof id, "wait-%d", round);
        uint64_t seed = cuzk_rng_u64(rng) >> 1;
        int how = (int)(cuzk_rng_u64(rng) % 3); /* 0 finish, 1 cancel, 2 a 1 ms deadline */
        cuzk_job *j;
        CHECK(tk_submit(e, "one", id, seed, CUZK_PRIORITY_DEFAULT, how == 2 ? 1 : 0, &j) == CUZK_OK);
        waiter ws[W];
        pthread_t th[W];
        for (int i = 0; i < W; i++) {
            ws[i] = (waiter){.e = e, .j = i == W - 1 ? NULL : j};
            CHECK(pthread_create(&th[i], NULL, waiter_main, &ws[i]) == 0);
        }
        if (how == 1) {
            if (cuzk_rng_u64(rng) & 1) usleep(500);
            int rc = cuzk_job_cancel(j); /* refused when it already finished */
            CHECK(rc == CUZK_OK || rc == CUZK_ERR_INVALID_ARG);
        }
        for (int i = 0; i < W; i++) pthread_join(th[i], NULL);
        int final = cuzk_job_await(j, 0);
        CHECK(final != CUZK_ERR_NOT_READY);
        for (int i = 0; i < W - 1; i++) CHECK_MSG(ws[i].rc == final, "round %d: %d vs %d", round, ws[i].rc, final);
        CHECK(ws[W - 1].rc == CUZK_OK);
        cuzk_job_info inf;
        cuzk_job_get_info(j, &inf);
        outcomes[inf.state]++;
        if (inf.state == CUZK_JOB_DONE) CHECK(tk_proof_ok(k1, j, seed, 1));
        cuzk_job_release(j);
    }
    fprintf(stderr, "waiters: %u done, %u cancelled, %u timed out\n", outcomes[CUZK_JOB_DONE],
            outcomes[CUZK_JOB_CANCELLED], outcomes[CUZK_JOB_TIMED_OUT]);
    CHECK(outcomes[CUZK_JOB_DONE] + outcomes[CUZK_JOB_CANCELLED] + outcomes[CUZK_JOB_TIMED_OUT] == 60);
    const char *circ[] = {"one-c"};
    drain(e, circ, 1);
    cuzk_engine_destroy(e);
}

/* A partition larger than the whole budget fails its job at once, whether
 * or not the parameters are resident. */
static void budget_exhaustion(tkind *k)
{
    fault_reset(F_NONE);
    uint64_t B = 2 * g_S + 2 * g_W;
    cuzk_engine *e = make_engine(2, 1, 1, B, NULL);
    cuzk_engine_kind kd = tk_kind(k, "huge", "huge-c", 2, CUZK_PRIORITY_NORMAL);
    kd.witness_bytes = B + 1;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    cuzk_job *j;
    cuzk_job_info inf;
    CHECK(tk_submit(e, "huge", "huge-cold", 1, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_ERR_NO_MEMORY);
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(strstr(inf.message, "exceed the memory budget"), "%s", inf.message);
    cuzk_job_release(j);
    CHECK(cuzk_engine_srs_preload(e, "huge-c") == CUZK_OK);
    CHECK(tk_submit(e, "huge", "huge-hot", 2, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_ERR_NO_MEMORY);
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(strstr(inf.message, "one partition") && strstr(inf.message, "exceeds the memory budget"), "%s",
              inf.message);
    cuzk_job_release(j);
    const char *circ[] = {"huge-c"};
    drain(e, circ, 1);
    cuzk_engine_destroy(e);
}

/* A hang is a failure that names where it hung: the scenario running when
 * the watchdog fires (CTest's own timeout would say nothing), re-armed by
 * each scenario; the engine's threads are left as they are. */
#define WATCHDOG_S 300
#define STR_(x) #x
#define STR(x) STR_(x)
static const char *volatile g_scenario = "setup";
static void on_watchdog(int sig)
{
    (void)sig;
    static const char m[] = "test_engine_faults: WATCHDOG: no progress for " STR(WATCHDOG_S) " s in scenario ";
    if (write(2, m, sizeof m - 1) < 0 || write(2, g_scenario, strlen(g_scenario)) < 0 || write(2, "\n", 1) < 0) {
    }
    _exit(3);
}
#define SCENARIO(call) (g_scenario = #call, alarm(WATCHDOG_S), fprintf(stderr, "scenario: %s\n", #call), call)

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_engine_faults");
    signal(SIGALRM, on_watchdog);
    alarm(WATCHDOG_S);
    tkind k, k1, k2;
    tk_setup(&k, NC, NI, &rng);
    tk_setup(&k1, NC / 2, 2, &rng);
    tk_setup(&k2, NC, NI, &rng);
    SCENARIO(corrupt_faults(&k, &rng));
    SCENARIO(device_failures(&k, &rng));
    SCENARIO(device_memory_short(&k, &rng));
    SCENARIO(host_memory_short(&k, &rng));
    SCENARIO(cancel_and_timeout(&k, &k1));
    SCENARIO(budget(&k, &k2));
    SCENARIO(pce_manager(&k, &k1));
    SCENARIO(pce_eviction(&k, &k2));
    SCENARIO(pinning(&k, &k2));
    SCENARIO(host_release(&k, &rng));
    SCENARIO(cancel_more(&k, &k1));
    SCENARIO(waiters(&k1, &rng));
    SCENARIO(budget_exhaustion(&k));
    SCENARIO(synthesis_default(&k, &rng));
    tk_free(&k);
    tk_free(&k1);
    tk_free(&k2);
    return tu_finish("test_engine_faults");
}
