/*
 * The GPU prover backend: one engine device per configured GPU ordinal, one
 * cuzk_gpu_worker (CUDA stream, witness buffers, error message) per engine
 * worker. An ordinal may repeat: each entry opens its own device context
 * (its own parameter copy, scratch and kernel lock), so two contexts share
 * one physical GPU (the multi-GPU test mode on a one-GPU machine).
 * Aggregations (SnarkPack finishes on CPU workers) borrow a device through
 * one more worker of its own, made on first use: a proving worker's stream
 * belongs to its prover thread, and the aggregations' calls take turns on
 * theirs under a mutex, as cuzk_gpu_snarkpack_accel serves one caller.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/gpu/snarkpack_gpu.h"

typedef struct gpu_ctx {
    unsigned n;
    uint64_t memory_limit; /* per card; 0: its free memory at open */
    unsigned trace;        /* CUZK_GPU_TRACE_* flags, set as the devices open */
    int ordinals[];
} gpu_ctx;

typedef struct gpu_dev {
    cuzk_gpu_device *dev;
    unsigned n_workers;
    cuzk_gpu_worker **w;
    char msg[256]; /* why the open failed */
    /* aggregations: their worker (NULL until the first asks) and its hooks,
     * one caller at a time under agg_mu */
    pthread_mutex_t agg_mu;
    cuzk_gpu_worker *agg_w;
    cuzk_snarkpack_accel agg;
} gpu_dev;

static void gpu_device_close(void *ctx, void *d)
{
    gpu_dev *g = d;
    if (!g) return;
    if (g->agg_w) cuzk_gpu_worker_destroy(g->agg_w);
    pthread_mutex_destroy(&g->agg_mu);
    for (unsigned i = 0; i < g->n_workers; i++) cuzk_gpu_worker_destroy(g->w[i]);
    free(g->w);
    cuzk_gpu_device_close(g->dev);
    free(g);
}

static int gpu_device_open(void *ctx, unsigned device, unsigned workers, void **out)
{
    gpu_ctx *c = ctx;
    *out = NULL;
    if (device >= c->n) return CUZK_ERR_INVALID_ARG;
    gpu_dev *g = calloc(1, sizeof *g);
    if (!g || !(g->w = calloc(workers, sizeof *g->w))) {
        if (g) free(g->w);
        free(g);
        return CUZK_ERR_NO_MEMORY;
    }
    pthread_mutex_init(&g->agg_mu, NULL);
    if (c->trace) cuzk_gpu_set_trace(c->trace); /* process-wide: the GPU layer's stderr */
    int err = cuzk_gpu_device_open(&g->dev, c->ordinals[device], g->msg, sizeof g->msg);
    if (err == CUZK_OK && c->memory_limit) err = cuzk_gpu_device_set_memory_limit(g->dev, c->memory_limit);
    for (; err == CUZK_OK && g->n_workers < workers; g->n_workers++)
        err = cuzk_gpu_worker_create(&g->w[g->n_workers], g->dev);
    if (err != CUZK_OK) {
        if (g->msg[0]) fprintf(stderr, "cuzk: GPU %d: %s\n", c->ordinals[device], g->msg);
        gpu_device_close(ctx, g);
        return err;
    }
    *out = g;
    return CUZK_OK;
}

/* The engine's handles are the device's keys (never reused, unique in
 * the process: cuzk/util/handle.h). */
static cuzk_gpu_set gpu_set_of(const cuzk_engine_set *set)
{
    return (cuzk_gpu_set){.key = set->id, .params = set->params, .pce_key = set->pce_id, .pce = set->pce};
}

static int gpu_prove(void *ctx, void *d, unsigned worker, const cuzk_engine_set *set, size_t n,
                     const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                     cuzk_engine_prove_report *rep)
{
    gpu_dev *g = d;
    if (worker >= g->n_workers) return CUZK_ERR_INVALID_ARG;
    cuzk_gpu_worker *w = g->w[worker];
    const cuzk_gpu_set gs = gpu_set_of(set);
    int err = cuzk_gpu_prove(w, out, &gs, as, r, s, n, &rep->timing);
    rep->timed = err == CUZK_OK;
    if (err != CUZK_OK) {
        const char *m = cuzk_gpu_worker_error(w);
        if (m) snprintf(rep->error, sizeof rep->error, "%s", m);
        rep->host_memory_short = err == CUZK_ERR_NO_MEMORY && !cuzk_gpu_worker_out_of_device_memory(w);
    }
    return err;
}

static int gpu_warm(void *ctx, void *d, const cuzk_engine_set *set, char *msg, size_t msg_len)
{
    const cuzk_gpu_set gs = gpu_set_of(set);
    return cuzk_gpu_device_preload(((gpu_dev *)d)->dev, &gs, msg, msg_len);
}

static int gpu_evict(void *ctx, void *d, const cuzk_engine_set *set, unsigned what)
{
    cuzk_gpu_device *dev = ((gpu_dev *)d)->dev;
    if (what & CUZK_EVICT_PARAMS) cuzk_gpu_device_release(dev, set->id);
    if ((what & CUZK_EVICT_PCE) && set->pce_id) cuzk_gpu_device_release(dev, set->pce_id);
    return what & CUZK_EVICT_HOST_ARRAYS ? cuzk_gpu_device_params_host_released(dev, set->id) : CUZK_OK;
}

static int gpu_describe(void *ctx, void *d, const char **name, cuzk_engine_device_mem *out)
{
    cuzk_gpu_device *dev = ((gpu_dev *)d)->dev;
    *name = cuzk_gpu_device_describe(dev);
    if (!out) return CUZK_OK;
    int err = cuzk_gpu_device_memory(dev, &out->total, &out->free_bytes);
    if (err == CUZK_OK) err = cuzk_gpu_device_budget(dev, &out->budget, &out->held);
    if (err == CUZK_OK) snprintf(out->plan, sizeof out->plan, "%s", cuzk_gpu_device_plan(dev));
    return err;
}

/* The aggregations' hooks: the device's own, one caller at a time. */
static int gpu_agg_miller(void *d, cuzk_fp12 *out, size_t nprod, const cuzk_pairing_group *grp, size_t ng)
{
    gpu_dev *g = d;
    pthread_mutex_lock(&g->agg_mu);
    int err = g->agg.miller_groups(g->agg.ctx, out, nprod, grp, ng);
    pthread_mutex_unlock(&g->agg_mu);
    return err;
}

static int gpu_agg_msm(void *d, const cuzk_msm_job *jobs, size_t njobs)
{
    gpu_dev *g = d;
    pthread_mutex_lock(&g->agg_mu);
    int err = g->agg.msm_batch(g->agg.ctx, jobs, njobs);
    pthread_mutex_unlock(&g->agg_mu);
    return err;
}

/* Under agg_mu: the aggregations' worker, made on first use (a stream and
 * scratch that no prove ever holds), and its hooks. */
static int gpu_agg_worker(gpu_dev *g)
{
    if (g->agg_w) return CUZK_OK;
    int err = cuzk_gpu_worker_create(&g->agg_w, g->dev);
    if (err != CUZK_OK) {
        g->agg_w = NULL;
        return err;
    }
    cuzk_gpu_snarkpack_accel(&g->agg, g->agg_w, 0);
    return CUZK_OK;
}

static int gpu_snarkpack(void *ctx, void *d, cuzk_snarkpack_accel *acc)
{
    (void)ctx;
    gpu_dev *g = d;
    pthread_mutex_lock(&g->agg_mu);
    int err = gpu_agg_worker(g);
    size_t min_n = g->agg.min_n;
    pthread_mutex_unlock(&g->agg_mu);
    if (err != CUZK_OK) return err;
    *acc = (cuzk_snarkpack_accel){.miller_groups = gpu_agg_miller, .msm_batch = gpu_agg_msm, .ctx = g,
                                  .min_n = min_n};
    return CUZK_OK;
}

/* HOT parameter arrays registered with CUDA (uploads from them are direct
 * DMA), mlock where CUDA refuses: the GPU layer's page-locking; undone the
 * way it was made. */
static cuzk_engine_pin_how gpu_pin(void *ctx, void *ptr, size_t len, cuzk_engine_pin_how undo, char *msg,
                                   size_t msg_len)
{
    if (undo != CUZK_PIN_HOW_NONE) {
        cuzk_gpu_host_unpin(ptr, len, undo == CUZK_PIN_HOW_DEVICE ? CUZK_GPU_PIN_CUDA : CUZK_GPU_PIN_MLOCK);
        return CUZK_PIN_HOW_NONE;
    }
    switch (cuzk_gpu_host_pin(ptr, len, msg, msg_len)) {
    case CUZK_GPU_PIN_CUDA: return CUZK_PIN_HOW_DEVICE;
    case CUZK_GPU_PIN_MLOCK: return CUZK_PIN_HOW_MLOCK;
    default: return CUZK_PIN_HOW_NONE;
    }
}

int cuzk_engine_gpu_prover(cuzk_engine_prover *out, const unsigned *ordinals, unsigned n)
{
    memset(out, 0, sizeof *out);
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count <= 0) return CUZK_ERR_NO_DEVICE;
    if (n == 0) {
        ordinals = NULL;
        n = (unsigned)count;
    } else if (!ordinals) {
        return CUZK_ERR_INVALID_ARG;
    }
    for (unsigned i = 0; ordinals && i < n; i++)
        if (ordinals[i] >= (unsigned)count) return CUZK_ERR_NO_DEVICE;
    gpu_ctx *c = malloc(sizeof *c + n * sizeof c->ordinals[0]);
    if (!c) return CUZK_ERR_NO_MEMORY;
    c->n = n, c->memory_limit = 0, c->trace = 0;
    for (unsigned i = 0; i < n; i++) c->ordinals[i] = ordinals ? (int)ordinals[i] : (int)i;
    out->name = "gpu";
    out->devices = n;
    out->open = gpu_device_open;
    out->close = gpu_device_close;
    out->prove = gpu_prove;
    out->warm = gpu_warm;
    out->evict = gpu_evict;
    out->describe = gpu_describe;
    out->pin = gpu_pin;
    out->snarkpack = gpu_snarkpack;
    /* a, b, c computed on the device from the PCE's resident matrices: the
     * host holds and uploads the witness alone */
    out->defer_pce_eval = true;
    /* packed by value class (103 MB instead of 4.17 GB a 32 GiB PoRep
     * partition) when the caller sets pack_witness ([gpus] pack_witness) */
    out->ctx = c;
    return CUZK_OK;
}

void cuzk_engine_gpu_prover_memory_limit(cuzk_engine_prover *p, uint64_t limit)
{
    if (p && p->ctx) ((gpu_ctx *)p->ctx)->memory_limit = limit;
}

void cuzk_engine_gpu_prover_log_allocations(cuzk_engine_prover *p, bool on)
{
    if (p && p->ctx) ((gpu_ctx *)p->ctx)->trace = on ? CUZK_GPU_TRACE_ALLOC : 0;
}

void cuzk_engine_gpu_prover_free(cuzk_engine_prover *p)
{
    if (!p) return;
    free(p->ctx);
    memset(p, 0, sizeof *p);
}
