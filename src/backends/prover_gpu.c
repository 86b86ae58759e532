/*
 * The GPU prover backend: one engine device per configured GPU ordinal, one
 * cuzk_gpu_worker (CUDA stream, witness buffers, error message) per engine
 * worker. An ordinal may repeat: each entry opens its own device context
 * (its own parameter copy, scratch and kernel lock), so two contexts share
 * one physical GPU (the multi-GPU test mode on a one-GPU machine).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/backends.h"
#include "cuzk/error.h"
#include "cuzk/gpu.h"

typedef struct gpu_ctx {
    unsigned n;
    uint64_t memory_limit; /* per card; 0: its free memory at open */
    int ordinals[];
} gpu_ctx;

typedef struct gpu_dev {
    cuzk_gpu_device *dev;
    unsigned n_workers;
    cuzk_gpu_worker **w;
    cuzk_groth16_prove_timing *tm; /* per worker: its last proof */
    char msg[256]; /* why the open failed */
} gpu_dev;

static unsigned gpu_num_devices(void *ctx) { return ((gpu_ctx *)ctx)->n; }

static void gpu_device_close(void *ctx, void *d)
{
    gpu_dev *g = d;
    if (!g) return;
    for (unsigned i = 0; i < g->n_workers; i++) cuzk_gpu_worker_destroy(g->w[i]);
    free(g->w);
    free(g->tm);
    cuzk_gpu_device_close(g->dev);
    free(g);
}

static int gpu_device_open(void *ctx, unsigned device, unsigned workers, void **out)
{
    gpu_ctx *c = ctx;
    *out = NULL;
    if (device >= c->n) return CUZK_ERR_INVALID_ARG;
    gpu_dev *g = calloc(1, sizeof *g);
    if (!g || !(g->w = calloc(workers, sizeof *g->w)) || !(g->tm = calloc(workers, sizeof *g->tm))) {
        if (g) free(g->w);
        free(g);
        return CUZK_ERR_NO_MEMORY;
    }
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

static int gpu_prove(void *ctx, void *d, unsigned worker, const cuzk_groth16_params *params, size_t n,
                     const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s,
                     cuzk_groth16_proof *out)
{
    gpu_dev *g = d;
    if (worker >= g->n_workers) return CUZK_ERR_INVALID_ARG;
    return cuzk_gpu_prove(g->w[worker], out, params, as, r, s, n, &g->tm[worker]);
}

static int gpu_warm(void *ctx, void *d, const cuzk_groth16_params *params, const void *pce, char *msg,
                    size_t msg_len)
{
    return cuzk_gpu_device_preload(((gpu_dev *)d)->dev, params, pce, msg, msg_len);
}

static void gpu_last_timing(void *ctx, void *d, unsigned worker, cuzk_groth16_prove_timing *out)
{
    gpu_dev *g = d;
    if (worker < g->n_workers) *out = g->tm[worker];
}

static void gpu_srs_evicted(void *ctx, void *d, const cuzk_groth16_params *params)
{
    cuzk_gpu_device_release_params(((gpu_dev *)d)->dev, params);
}

static int gpu_release_host_params(void *ctx, void *d, const cuzk_groth16_params *params)
{
    return cuzk_gpu_device_params_host_released(((gpu_dev *)d)->dev, params);
}

static void gpu_pce_evicted(void *ctx, void *d, const void *pce)
{
    cuzk_gpu_device_release_pce(((gpu_dev *)d)->dev, pce);
}

static const char *gpu_last_error(void *ctx, void *d, unsigned worker)
{
    gpu_dev *g = d;
    return worker < g->n_workers ? cuzk_gpu_worker_error(g->w[worker]) : NULL;
}

static bool gpu_out_of_device_memory(void *ctx, void *d, unsigned worker)
{
    gpu_dev *g = d;
    return worker < g->n_workers && cuzk_gpu_worker_out_of_device_memory(g->w[worker]);
}

static const char *gpu_device_name(void *ctx, void *d)
{
    return cuzk_gpu_device_describe(((gpu_dev *)d)->dev);
}

static int gpu_device_memory(void *ctx, void *d, cuzk_engine_device_mem *out)
{
    cuzk_gpu_device *dev = ((gpu_dev *)d)->dev;
    int err = cuzk_gpu_device_memory(dev, &out->total, &out->free_bytes);
    if (err == CUZK_OK) err = cuzk_gpu_device_budget(dev, &out->budget, &out->held);
    if (err == CUZK_OK) snprintf(out->plan, sizeof out->plan, "%s", cuzk_gpu_device_plan(dev));
    return err;
}

/* HOT parameter arrays registered with CUDA (uploads from them are direct
 * DMA), mlock where CUDA refuses: the GPU layer's page-locking. */
static cuzk_engine_pin_how gpu_host_pin(void *ctx, void *ptr, size_t len, char *msg, size_t msg_len)
{
    switch (cuzk_gpu_host_pin(ptr, len, msg, msg_len)) {
    case CUZK_GPU_PIN_CUDA: return CUZK_PIN_HOW_DEVICE;
    case CUZK_GPU_PIN_MLOCK: return CUZK_PIN_HOW_MLOCK;
    default: return CUZK_PIN_HOW_NONE;
    }
}

static void gpu_host_unpin(void *ctx, void *ptr, size_t len, cuzk_engine_pin_how how)
{
    cuzk_gpu_host_unpin(ptr, len, how == CUZK_PIN_HOW_DEVICE ? CUZK_GPU_PIN_CUDA
                                  : how == CUZK_PIN_HOW_MLOCK ? CUZK_GPU_PIN_MLOCK
                                                              : CUZK_GPU_PIN_NONE);
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
    c->n = n, c->memory_limit = 0;
    for (unsigned i = 0; i < n; i++) c->ordinals[i] = ordinals ? (int)ordinals[i] : (int)i;
    out->name = "gpu";
    out->num_devices = gpu_num_devices;
    out->device_open = gpu_device_open;
    out->device_close = gpu_device_close;
    out->prove = gpu_prove;
    out->srs_evicted = gpu_srs_evicted;
    out->release_host_params = gpu_release_host_params;
    /* a, b, c computed on the device from the PCE's resident matrices: the
     * host holds and uploads the witness alone */
    out->defer_pce_eval = true;
    /* packed by value class (103 MB instead of 4.17 GB a 32 GiB PoRep
     * partition) when the caller sets pack_witness ([gpus] pack_witness) */
    out->pce_evicted = gpu_pce_evicted;
    out->last_timing = gpu_last_timing;
    out->warm = gpu_warm;
    out->last_error = gpu_last_error;
    out->out_of_device_memory = gpu_out_of_device_memory;
    out->device_name = gpu_device_name;
    out->device_memory = gpu_device_memory;
    out->host_pin = gpu_host_pin;
    out->host_unpin = gpu_host_unpin;
    out->ctx = c;
    return CUZK_OK;
}

void cuzk_engine_gpu_prover_memory_limit(cuzk_engine_prover *p, uint64_t limit)
{
    if (p && p->ctx) ((gpu_ctx *)p->ctx)->memory_limit = limit;
}

void cuzk_engine_gpu_prover_free(cuzk_engine_prover *p)
{
    if (!p) return;
    free(p->ctx);
    memset(p, 0, sizeof *p);
}
