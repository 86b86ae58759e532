/*
 * GPU devices, workers and the Groth16 prover (C ABI of include/cuzk/gpu.h).
 * Ownership and locking rule: docs/gpu.md.
 */
#include <pthread.h>
#include <atomic>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/clock.h"
#include "cuzk/gpu.h"
#include "cuzk/mem.h"
#include "cuzk/ntt.h"
#include "cuzk/parallel.h"
#include "cuzk/pce.h"
#include "gpu_internal.cuh"

using namespace cuzk_gpu;

/* Each card's budget and what this process holds of it. The budget is the
 * driver's free memory when the card was first opened (the CUDA context
 * made: other processes' use excluded), capped by the device's memory
 * limit; every allocation here (buf_reserve, srs_copy) takes its bytes
 * from it first, so a cap holds on a larger card as a smaller card's
 * driver would. Device objects on one ordinal share the card's entry. */
#define LEDGER_CARDS 64
struct card_ledger {
    uint64_t measured, limit, budget; /* under ledger_mu */
    unsigned opens;
    std::atomic<uint64_t> used;
};
static card_ledger ledger[LEDGER_CARDS];
static pthread_mutex_t ledger_mu = PTHREAD_MUTEX_INITIALIZER;

static card_ledger *ledger_of(int ordinal)
{
    return ordinal >= 0 && ordinal < LEDGER_CARDS ? &ledger[ordinal] : NULL;
}

/* bytes taken from the card's budget; false (nothing taken) when over it */
static bool ledger_take(int ordinal, size_t bytes)
{
    card_ledger *l = ledger_of(ordinal);
    if (!l) return true;
    const uint64_t before = l->used.fetch_add(bytes);
    if (l->budget && before + bytes > l->budget) {
        l->used.fetch_sub(bytes);
        return false;
    }
    return true;
}

static void ledger_give(int ordinal, size_t bytes)
{
    if (card_ledger *l = ledger_of(ordinal)) l->used.fetch_sub(bytes);
}

/* Read-only arrays resident on one device, uploaded once per set and keyed
 * by the host object's address: a parameter set (a job's key: the five
 * queries' points and, for queries by index, the witness index of each point
 * of A, B1, B2), or a pre-compiled circuit (the CSR arrays of A, B, C, the
 * general coefficients, and the unified witness index of each scalar of the
 * A and B queries, from the density bitmaps). */
enum {
    SRS_H, SRS_L, SRS_A, SRS_B1, SRS_B2, SRS_IA, SRS_IB1, SRS_IB2, /* parameters */
    PCE_RP, PCE_COL = PCE_RP + 3, PCE_CODE = PCE_COL + 3, PCE_COEFFS = PCE_CODE + 3, /* PCE, as in its image */
    PCE_IA, PCE_IB, PCE_LONG, /* PCE, derived here: query index lists, long rows of A, B, C */
    PCE_LONG_END = PCE_LONG + 3 - 1,
    SRS_N
};
/* The device copies of one parameter set or PCE (key: its host object), listed per device.
 * (The engine's srs_entry is the host side's bookkeeping of a parameter set.) */
struct dev_resident {
    const void *key;
    void *p[SRS_N];
    const void *src[SRS_N]; /* host arrays and sizes uploaded: a key whose */
    size_t bytes[SRS_N];    /* arrays changed is a new parameter set */
    bool host_released;     /* the owner released the host's point arrays (h .. b_g2, freed or */
    dev_resident *next;     /* discarded): the key and sizes alone say they are these */
    bool streamed[SRS_N];   /* points left on the host (src), uploaded by chunks at each MSM: the
                               plan of a set that with one worker's buffers does not fit the budget */
    int ordinal;            /* the card whose budget holds the arrays */
    unsigned h_vectors;     /* the plan's H: 3 vectors, or 2 (c evaluated after a·b) */
    size_t chunk_bytes;     /* the plan's chunk buffers, when anything is streamed */
};
static const char *const srs_name[SRS_N] = {"h", "l", "a", "b_g1", "b_g2", "a index", "b_g1 index", "b_g2 index",
                                            "PCE row_ptr A", "PCE row_ptr B", "PCE row_ptr C", "PCE col A",
                                            "PCE col B", "PCE col C", "PCE code A", "PCE code B", "PCE code C",
                                            "PCE coefficients", "PCE A query index", "PCE B query index",
                                            "PCE long rows A", "PCE long rows B", "PCE long rows C"};

static void dev_resident_free(dev_resident *e)
{
    for (int i = 0; i < SRS_N; i++)
        if (e->p[i]) cudaFree(e->p[i]), ledger_give(e->ordinal, e->bytes[i] ? e->bytes[i] : 1);
    free(e);
}

struct cuzk_gpu_device {
    int ordinal;
    char desc[320];
    int failed;
    char err[320];              /* device-level error (SRS upload, open) */
    pthread_mutex_t lock;       /* kernel regions: holder owns ntt and msm below */
    ntt_tables ntt;
    msm_scratch msm;
    pthread_mutex_t srs_mu;     /* the SRS list; entries are read-only once listed */
    dev_resident *srs;
    char plan[400];             /* the plan of the last set uploaded (under srs_mu) */
};

/* A worker's pinned staging for uploads from pageable memory (h2d): two
 * slots, each filled by several threads while the other's DMA runs; made
 * at the first large upload. */
struct stage_bufs {
    void *slot[2];
    cudaEvent_t done[2]; /* recorded after each slot's copy */
    bool used[2];
    int state;           /* 0: not made yet, 1: made, -1: off or unavailable */
    unsigned next, threads;
    size_t bytes;        /* per slot */
};

/* A prove's MSMs as chunks when its set streams (cuzk_gpu_chunk_schedule):
 * the streamed chunks go up on the worker's copy stream into two buffers,
 * two ahead of the MSMs that read them, the first two before the kernel
 * region (they write only the worker's own buffers, so no lock is needed). */
#define FEED_STEPS_MAX 16384
struct stream_feed {
    cuzk_gpu_chunk_step *step; /* the schedule (FEED_STEPS_MAX, made at the first streamed prove) */
    size_t n_steps;            /* 0: nothing streams, the MSMs run whole */
    const char *src[SRS_B2 + 1]; /* a streamed MSM's host points, else NULL */
    size_t next_copy;          /* the next step to look at for a copy */
    size_t buf_step[2];        /* the step each chunk buffer holds */
    unsigned issued, taken;    /* streamed chunks copied and read */
    double copy_s, wait_s;     /* the copy engine's time, and the MSMs' waits for it */
    uint64_t bytes;
};

struct cuzk_gpu_worker {
    cuzk_gpu_device *dev;
    cudaStream_t st;
    char err[320];
    double region_s;            /* seconds in the last kernel region */
    int dev_oom;                /* the last call ran out of device memory */
    dbuf abc, aux, sa, sb, tmp; /* written only by this worker */
    dbuf chunk[2];              /* streamed points, two chunks in turn */
    cudaStream_t cst;           /* their copies (made at the first streamed prove) */
    cudaEvent_t ev_start[2], ev_done[2];
    stream_feed feed;           /* the chunks of the prove in progress */
    fixed_base_bufs fb;         /* likewise */
    stage_bufs stage;           /* likewise */
};

namespace cuzk_gpu {

int fail_msg(const ctx &c, int code, const char *msg)
{
    if (c.err) snprintf(c.err, c.errlen, "cuda device %d: %s", c.ordinal, msg);
    return code;
}

int fail(const ctx &c, cudaError_t e, const char *call)
{
    if (c.err)
        snprintf(c.err, c.errlen, "cuda device %d: %s: %s (%s)", c.ordinal, call, cudaGetErrorString(e),
                 cudaGetErrorName(e));
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* not sticky: clear it */
        if (c.oom) *c.oom = 1;
        return CUZK_ERR_NO_MEMORY;
    }
    if (c.failed) *c.failed = 1;
    return CUZK_ERR_DEVICE;
}

/* The current device's free and total memory in GiB (0 when the driver
 * cannot say; its error is cleared). */
static bool dev_mem_gib(double *free_gib, double *total_gib)
{
    size_t f = 0, t = 0;
    const bool ok = cudaMemGetInfo(&f, &t) == cudaSuccess;
    if (!ok) cudaGetLastError();
    *free_gib = f / 1073741824.0, *total_gib = t / 1073741824.0;
    return ok;
}

/* "cudaMalloc(what, n bytes)" failed as the driver's out of memory does,
 * with the budget it would have passed */
static int over_budget(const ctx &c, const char *what, size_t bytes)
{
    card_ledger *l = ledger_of(c.ordinal);
    char msg[224];
    snprintf(msg, sizeof msg, "cudaMalloc(%s, %zu bytes): over the device's memory budget (%.2f of %.2f GiB held)",
             what, bytes, l->used.load() / 1073741824.0, l->budget / 1073741824.0);
    return fail(c, cudaErrorMemoryAllocation, msg);
}

bool device_free_bytes(const ctx &c, size_t *freeb)
{
    const char *fake = getenv("CUZK_GPU_MSM_FREE");
    if (fake && *fake) {
        *freeb = (size_t)strtoull(fake, NULL, 10);
        return true;
    }
    size_t total;
    if (cudaMemGetInfo(freeb, &total) != cudaSuccess) return cudaGetLastError(), false;
    if (card_ledger *l = ledger_of(c.ordinal)) {
        const uint64_t used = l->used.load(), left = l->budget > used ? l->budget - used : 0;
        if (l->budget && left < *freeb) *freeb = left;
    }
    return true;
}

/* With CUZK_GPU_TRACE=1 (or =alloc, without the kernel split) every device
 * allocation is listed on stderr with the device's free memory after it:
 * the ledger of what a card must hold. */
static void alloc_note(const ctx &c, const char *what, size_t bytes)
{
    static const char *const env = getenv("CUZK_GPU_TRACE");
    static const bool on = env && (atoi(env) == 1 || !strcmp(env, "alloc"));
    if (!on) return;
    double f, t;
    dev_mem_gib(&f, &t);
    fprintf(stderr, "gpu alloc, device %d: %-28s %14zu bytes, %.2f of %.2f GiB free\n", c.ordinal, what, bytes, f, t);
}

int buf_reserve(const ctx &c, dbuf *b, size_t bytes, const char *what)
{
    /* tests: a reservation whose name contains $CUZK_GPU_FAIL_ALLOC fails as
     * the driver's out of memory does, whether or not it would allocate */
    const char *inject = getenv("CUZK_GPU_FAIL_ALLOC");
    if (inject && *inject && strstr(what, inject)) {
        char msg[160];
        snprintf(msg, sizeof msg, "cudaMalloc(%s, %zu bytes) [CUZK_GPU_FAIL_ALLOC]", what, bytes);
        return fail(c, cudaErrorMemoryAllocation, msg);
    }
    if (bytes <= b->cap && b->p) return CUZK_OK;
    if (b->p) {
        cudaError_t e = cudaStreamSynchronize(c.st); /* in-flight work may still use it */
        if (e != cudaSuccess) return fail(c, e, "cudaStreamSynchronize");
        buf_free(b);
    }
    if (bytes == 0) bytes = 1;
    if (!ledger_take(c.ordinal, bytes)) return over_budget(c, what, bytes);
    cudaError_t e = cudaMalloc(&b->p, bytes);
    if (e != cudaSuccess) {
        ledger_give(c.ordinal, bytes);
        b->p = NULL;
        char msg[160];
        snprintf(msg, sizeof msg, "cudaMalloc(%s, %zu bytes)", what, bytes);
        return fail(c, e, msg);
    }
    b->cap = bytes, b->dev = c.ordinal;
    alloc_note(c, what, bytes);
    return CUZK_OK;
}

void buf_free(dbuf *b)
{
    if (b->p) cudaFree(b->p), ledger_give(b->dev, b->cap);
    b->p = NULL, b->cap = 0;
}

void msm_scratch_free(msm_scratch *s)
{
    dbuf *all[] = {&s->plain,     &s->kv,        &s->ones,      &s->gen,       &s->cub,       &s->buckets,
                   &s->part_k[0], &s->part_k[1], &s->part_p[0], &s->part_p[1], &s->segs,      &s->wins,
                   &s->onesp,     &s->host_tot,  &s->aff_pos,   &s->aff_src,   &s->aff_k[0],  &s->aff_k[1],
                   &s->aff_p[0],  &s->aff_p[1],  &s->aff_chain, &s->aff_tprod, &s->aff_bprod};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) buf_free(all[i]);
}

} // namespace cuzk_gpu

extern "C" int cuzk_gpu_device_count(int *count)
{
    if (!count) return CUZK_ERR_INVALID_ARG;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        n = 0;
    }
    *count = n;
    return n > 0 ? CUZK_OK : CUZK_ERR_NO_DEVICE;
}

extern "C" int cuzk_gpu_device_open(cuzk_gpu_device **out, int ordinal, char *msg, size_t msg_len)
{
    if (!out) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || ordinal < 0 || ordinal >= n) {
        if (msg)
            snprintf(msg, msg_len, "cuda device %d: not available (%d devices%s%s)", ordinal,
                     e == cudaSuccess ? n : 0, e == cudaSuccess ? "" : ": ",
                     e == cudaSuccess ? "" : cudaGetErrorString(e));
        cudaGetLastError();
        return CUZK_ERR_NO_DEVICE;
    }
    cudaDeviceProp prop;
    if ((e = cudaSetDevice(ordinal)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&prop, ordinal)) != cudaSuccess) {
        if (msg) snprintf(msg, msg_len, "cuda device %d: initialisation: %s", ordinal, cudaGetErrorString(e));
        cudaGetLastError();
        return CUZK_ERR_DEVICE;
    }
    cuzk_gpu_device *d = (cuzk_gpu_device *)calloc(1, sizeof *d);
    if (!d) return CUZK_ERR_NO_MEMORY;
    d->ordinal = ordinal;
    snprintf(d->desc, sizeof d->desc, "%s (device %d, sm_%d%d, %d SMs, %.1f GiB)", prop.name, ordinal,
             prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0);
    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->srs_mu, NULL);
    if (card_ledger *l = ledger_of(ordinal)) {
        pthread_mutex_lock(&ledger_mu);
        if (!l->opens++ && !l->used.load()) { /* the card's first device object: what is free now */
            size_t f = 0, t = 0;
            if (cudaMemGetInfo(&f, &t) != cudaSuccess) cudaGetLastError();
            l->measured = f;
            l->budget = l->limit && l->limit < f ? l->limit : f;
        }
        pthread_mutex_unlock(&ledger_mu);
    }
    *out = d;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_device_set_memory_limit(cuzk_gpu_device *d, uint64_t limit)
{
    card_ledger *l = d ? ledger_of(d->ordinal) : NULL;
    if (!l) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&ledger_mu);
    l->limit = limit;
    l->budget = limit && limit < l->measured ? limit : l->measured;
    pthread_mutex_unlock(&ledger_mu);
    return CUZK_OK;
}

extern "C" const char *cuzk_gpu_device_plan(cuzk_gpu_device *d)
{
    static thread_local char copy[sizeof d->plan];
    if (!d) return "";
    pthread_mutex_lock(&d->srs_mu);
    memcpy(copy, d->plan, sizeof copy);
    pthread_mutex_unlock(&d->srs_mu);
    return copy;
}

extern "C" int cuzk_gpu_device_budget(const cuzk_gpu_device *d, uint64_t *budget, uint64_t *used)
{
    card_ledger *l = d ? ledger_of(d->ordinal) : NULL;
    if (!l || !budget || !used) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&ledger_mu);
    *budget = l->budget;
    pthread_mutex_unlock(&ledger_mu);
    *used = l->used.load();
    return CUZK_OK;
}

extern "C" void cuzk_gpu_device_close(cuzk_gpu_device *d)
{
    if (!d) return;
    cudaSetDevice(d->ordinal);
    ntt_tables_free(&d->ntt);
    msm_scratch_free(&d->msm);
    for (dev_resident *e = d->srs, *nx; e; e = nx) {
        nx = e->next;
        dev_resident_free(e);
    }
    pthread_mutex_destroy(&d->lock);
    pthread_mutex_destroy(&d->srs_mu);
    if (card_ledger *l = ledger_of(d->ordinal)) {
        pthread_mutex_lock(&ledger_mu);
        if (l->opens && !--l->opens) l->limit = 0; /* the next first open measures and caps afresh */
        pthread_mutex_unlock(&ledger_mu);
    }
    free(d);
}

extern "C" const char *cuzk_gpu_device_describe(const cuzk_gpu_device *d) { return d ? d->desc : ""; }

/* For the status: sets this thread's current device (as every entry point
 * here does) and asks the driver; the device is not marked failed on error. */
extern "C" int cuzk_gpu_device_memory(cuzk_gpu_device *d, uint64_t *total, uint64_t *free_bytes)
{
    if (!d || !total || !free_bytes) return CUZK_ERR_INVALID_ARG;
    *total = *free_bytes = 0;
    if (d->failed) return CUZK_ERR_DEVICE;
    size_t f = 0, t = 0;
    if (cudaSetDevice(d->ordinal) != cudaSuccess || cudaMemGetInfo(&f, &t) != cudaSuccess) {
        cudaGetLastError();
        return CUZK_ERR_DEVICE;
    }
    *total = t;
    *free_bytes = f;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_worker_create(cuzk_gpu_worker **out, cuzk_gpu_device *d)
{
    if (!out || !d) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    if (d->failed) return CUZK_ERR_DEVICE;
    cuzk_gpu_worker *w = (cuzk_gpu_worker *)calloc(1, sizeof *w);
    if (!w) return CUZK_ERR_NO_MEMORY;
    w->dev = d;
    cudaError_t e = cudaSetDevice(d->ordinal);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->st, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        snprintf(d->err, sizeof d->err, "cuda device %d: cudaStreamCreate: %s", d->ordinal,
                 cudaGetErrorString(e));
        free(w);
        return CUZK_ERR_DEVICE;
    }
    /* CUZK_GPU_STAGE_THREADS (4; 0: the driver's own pageable copies) and
     * CUZK_GPU_STAGE_KIB (32768 per slot) shape the staging */
    const char *st = getenv("CUZK_GPU_STAGE_THREADS"), *sk = getenv("CUZK_GPU_STAGE_KIB");
    const long nt = st ? atol(st) : 4, kib = sk ? atol(sk) : 32768;
    w->stage.threads = nt < 0 ? 0 : nt > 64 ? 64 : (unsigned)nt;
    w->stage.bytes = (size_t)(kib < 1 ? 32768 : kib > (1l << 20) ? (1l << 20) : kib) * 1024; /* 1 KiB to 1 GiB */
    w->stage.state = w->stage.threads ? 0 : -1;
    *out = w;
    return CUZK_OK;
}

static void stage_free(stage_bufs *s)
{
    for (int i = 0; i < 2; i++) {
        if (s->slot[i]) cudaFreeHost(s->slot[i]);
        if (s->done[i]) cudaEventDestroy(s->done[i]);
        s->slot[i] = NULL, s->done[i] = NULL, s->used[i] = false;
    }
}

struct stage_copy {
    char *dst;
    const char *src;
};

static void stage_copy_part(void *ctx, unsigned, size_t lo, size_t hi)
{
    const stage_copy *k = (const stage_copy *)ctx;
    memcpy(k->dst + lo, k->src + lo, hi - lo);
}

/* Host to device on the worker's stream, in stream order. From pageable
 * memory the driver copies through its own staging with one thread, and the
 * call returns only when done (7.7 GB/s for a 32 GiB PoRep partition's
 * 4.2 GB witness on the H100 host: 0.54 s of every partition with one GPU
 * worker, the card idle): here several threads fill one pinned slot while
 * the other slot's DMA runs. Pinned (registered) memory, copies under two
 * slots' worth and a worker whose staging is off or could not be made copy
 * directly. The caller synchronizes the stream before it frees or reuses
 * src. */
static int h2d(cuzk_gpu_worker *w, const ctx &c, void *dst, const void *src, size_t bytes)
{
    stage_bufs *s = &w->stage;
    bool direct = s->state < 0 || bytes < 2 * s->bytes;
    if (!direct) {
        cudaPointerAttributes at;
        if (cudaPointerGetAttributes(&at, src) != cudaSuccess) cudaGetLastError(), direct = true;
        else direct = at.type != cudaMemoryTypeUnregistered; /* pinned or managed: the DMA reads it */
    }
    if (!direct && s->state == 0) {
        s->state = 1;
        for (int i = 0; i < 2 && s->state > 0; i++)
            if (cudaHostAlloc(&s->slot[i], s->bytes, cudaHostAllocPortable) != cudaSuccess ||
                cudaEventCreateWithFlags(&s->done[i], cudaEventDisableTiming) != cudaSuccess) {
                stage_free(s);
                cudaGetLastError(); /* not sticky: without staging, as the driver copies */
                s->state = -1;
            }
    }
    if (direct || s->state < 0) {
        if (bytes) GPU_TRY(c, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c.st));
        return CUZK_OK;
    }
    for (size_t off = 0; off < bytes; off += s->bytes) {
        const size_t len = bytes - off < s->bytes ? bytes - off : s->bytes;
        const unsigned k = s->next;
        s->next ^= 1u;
        if (s->used[k]) GPU_TRY(c, cudaEventSynchronize(s->done[k])); /* its last DMA has read it */
        stage_copy cp = {(char *)s->slot[k], (const char *)src + off};
        const size_t part = ((len + s->threads - 1) / s->threads + 63) & ~(size_t)63;
        cuzk_parallel_for(len, part, s->threads, stage_copy_part, &cp);
        GPU_TRY(c, cudaMemcpyAsync((char *)dst + off, s->slot[k], len, cudaMemcpyHostToDevice, c.st));
        s->used[k] = true;
        const cudaError_t re = cudaEventRecord(s->done[k], c.st);
        if (re != cudaSuccess) { /* nothing guards the slot now: drain, and copy without staging from here */
            cudaStreamSynchronize(c.st);
            s->state = -1;
            return fail(c, re, "cudaEventRecord(staging)");
        }
    }
    return CUZK_OK;
}

/* The worker's own buffers freed (its stream drained first). */
static void worker_shed(cuzk_gpu_worker *w)
{
    cudaStreamSynchronize(w->st);
    if (w->cst) cudaStreamSynchronize(w->cst);
    buf_free(&w->abc), buf_free(&w->aux), buf_free(&w->sa), buf_free(&w->sb), buf_free(&w->tmp);
    buf_free(&w->chunk[0]), buf_free(&w->chunk[1]);
}

extern "C" void cuzk_gpu_worker_destroy(cuzk_gpu_worker *w)
{
    if (!w) return;
    cudaSetDevice(w->dev->ordinal);
    worker_shed(w);
    fixed_base_bufs_free(&w->fb);
    stage_free(&w->stage);
    if (w->cst) {
        for (int i = 0; i < 2; i++) cudaEventDestroy(w->ev_start[i]), cudaEventDestroy(w->ev_done[i]);
        cudaStreamDestroy(w->cst);
    }
    free(w->feed.step);
    cudaStreamDestroy(w->st);
    free(w);
}

extern "C" const char *cuzk_gpu_worker_error(const cuzk_gpu_worker *w) { return w ? w->err : ""; }
extern "C" int cuzk_gpu_worker_out_of_device_memory(const cuzk_gpu_worker *w) { return w && w->dev_oom; }
extern "C" double cuzk_gpu_worker_region_s(const cuzk_gpu_worker *w) { return w ? w->region_s : 0; }
extern "C" uint64_t cuzk_gpu_worker_held_bytes(const cuzk_gpu_worker *w)
{
    return w ? (uint64_t)w->abc.cap + w->aux.cap + w->sa.cap + w->sb.cap + w->tmp.cap + w->chunk[0].cap +
                   w->chunk[1].cap
             : 0;
}

/* Selects the worker's device in the calling thread; refuses failed devices. */
static int begin(cuzk_gpu_worker *w, ctx *c)
{
    cuzk_gpu_device *d = w->dev;
    *c = ctx{d->ordinal, w->st, w->err, sizeof w->err, &d->failed, &w->dev_oom};
    w->err[0] = 0, w->dev_oom = 0;
    if (d->failed) {
        snprintf(w->err, sizeof w->err, "cuda device %d: marked failed by an earlier error", d->ordinal);
        return CUZK_ERR_DEVICE;
    }
    cudaError_t e = cudaSetDevice(d->ordinal);
    if (e != cudaSuccess) return fail(*c, e, "cudaSetDevice");
    return CUZK_OK;
}

/* b made to hold bytes and src copied in through h2d: the lone entry
 * points' inputs take the prove's path from pageable memory */
static int upload(cuzk_gpu_worker *w, const ctx &c, dbuf *b, const void *src, size_t bytes, const char *what)
{
    int rc = buf_reserve(c, b, bytes, what);
    return rc ? rc : h2d(w, c, b->p, src, bytes);
}

/* ---- kernel trace (gpu_internal.cuh) ---------------------------------- */
namespace cuzk_gpu {
#define TRACE_MAX 4096
static const bool trace_on = getenv("CUZK_GPU_TRACE") && atoi(getenv("CUZK_GPU_TRACE")) == 1;
/* one region at a time per thread: its events (0 is the start) and names;
 * allocated by the first region a thread traces */
struct trace_state {
    cudaEvent_t ev[TRACE_MAX + 1];
    const char *name[TRACE_MAX + 1];
    int made, n, ordinal; /* events created; marks in the open region (-1: none open) */
};
static thread_local trace_state *tr;

void trace_region_start(cudaStream_t st, int ordinal)
{
    if (!trace_on) return;
    if (!tr) {
        if (!(tr = (trace_state *)calloc(1, sizeof *tr))) return;
        tr->ordinal = ordinal;
    }
    if (tr->ordinal != ordinal) { /* events belong to a device */
        for (int i = 0; i < tr->made; i++) cudaEventDestroy(tr->ev[i]);
        tr->made = 0, tr->ordinal = ordinal;
    }
    if (tr->made == 0 && cudaEventCreate(&tr->ev[0]) == cudaSuccess) tr->made = 1;
    tr->n = tr->made && cudaEventRecord(tr->ev[0], st) == cudaSuccess ? 0 : -1;
}

void trace_mark(const ctx &c, const char *name)
{
    if (!trace_on || !tr || tr->n < 0 || tr->n >= TRACE_MAX) return;
    const int i = tr->n + 1;
    if (i >= tr->made) {
        if (cudaEventCreate(&tr->ev[i]) != cudaSuccess) return;
        tr->made = i + 1;
    }
    if (cudaEventRecord(tr->ev[i], c.st) != cudaSuccess) return;
    tr->name[i] = name, tr->n = i;
}

/* After the stream was drained: the marks' times summed by name, in the
 * order of their first appearance. */
void trace_region_end(const char *what)
{
    if (!trace_on || !tr || tr->n < 0) return;
    const char *names[64];
    float ms[64], total = 0;
    int count[64], k = 0;
    for (int i = 1; i <= tr->n; i++) {
        float t = 0;
        if (cudaEventElapsedTime(&t, tr->ev[i - 1], tr->ev[i]) != cudaSuccess) t = 0;
        total += t;
        int j = 0;
        while (j < k && strcmp(names[j], tr->name[i])) j++;
        if (j == k) {
            if (k == 64) continue;
            names[k] = tr->name[i], ms[k] = 0, count[k] = 0, k++;
        }
        ms[j] += t, count[j]++;
    }
    fprintf(stderr, "gpu trace, %s: %.3f ms between %d marks\n", what, total, tr->n);
    for (int j = 0; j < k; j++) fprintf(stderr, "  %-28s %10.3f ms  x%d\n", names[j], ms[j], count[j]);
    tr->n = -1;
}
} // namespace cuzk_gpu

/* Kernel region: the device lock is held from lock() to unlock(), and the
 * worker's stream is drained before the lock is released so that the next
 * holder never overlaps with kernels still using the shared scratch. */
static double region_lock(cuzk_gpu_worker *w)
{
    const double t = cuzk_now();
    pthread_mutex_lock(&w->dev->lock);
    w->region_s = cuzk_now();
    trace_region_start(w->st, w->dev->ordinal);
    return w->region_s - t; /* the wait */
}
static int region_unlock(cuzk_gpu_worker *w, const ctx &c, int rc)
{
    cudaError_t e = cudaStreamSynchronize(w->st);
    w->region_s = cuzk_now() - w->region_s;
    trace_region_end("region");
    pthread_mutex_unlock(&w->dev->lock);
    if (e != cudaSuccess && rc == CUZK_OK) rc = fail(c, e, "cudaStreamSynchronize");
    return rc;
}

extern "C" int cuzk_gpu_ntt(cuzk_gpu_worker *w, cuzk_fr *x, unsigned log_n, unsigned flags)
{
    if (!w || !x || log_n > CUZK_NTT_MAX_LOG || flags > 15) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    const size_t bytes = sizeof(cuzk_fr) << log_n;
    if ((rc = upload(w, c, &w->abc, x, bytes, "ntt input")) ||
        (rc = buf_reserve(c, &w->tmp, bytes, "ntt reorder buffer")))
        return rc;
    /* from pinned memory the upload is still in flight: the region is the
     * transform alone (sppark_side's row counted 79 ms of copy at 2^27) */
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    region_lock(w);
    rc = ntt_run(c, &w->dev->ntt, bp<fr_t>(w->abc), bp<fr_t>(w->tmp), log_n, flags);
    rc = region_unlock(w, c, rc);
    if (rc) return rc;
    GPU_TRY(c, cudaMemcpyAsync(x, w->abc.p, bytes, cudaMemcpyDeviceToHost, c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_groth16_h(cuzk_gpu_worker *w, cuzk_fr *a, cuzk_fr *b, cuzk_fr *cc, unsigned log_n)
{
    if (!w || !a || !b || !cc || log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    const size_t n = (size_t)1 << log_n, bytes = n * sizeof(cuzk_fr);
    if ((rc = buf_reserve(c, &w->abc, 3 * bytes, "H a, b, c"))) return rc;
    fr_t *d = bp<fr_t>(w->abc);
    if ((rc = h2d(w, c, d, a, bytes)) || (rc = h2d(w, c, d + n, b, bytes)) || (rc = h2d(w, c, d + 2 * n, cc, bytes)))
        return rc;
    GPU_TRY(c, cudaStreamSynchronize(c.st)); /* the region is H alone, also from pinned memory */
    fr_t *h = NULL;
    region_lock(w);
    rc = ntt_groth16_h(c, &w->dev->ntt, d, d + n, d + 2 * n, log_n, &h);
    rc = region_unlock(w, c, rc);
    if (rc) return rc;
    GPU_TRY(c, cudaMemcpyAsync(a, h, bytes, cudaMemcpyDeviceToHost, c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    return CUZK_OK;
}

/* The scalars up (outside the device lock), then the MSM over device bases
 * in a kernel region: the tail of both lone-MSM entry points. */
template <class HJ>
static int msm_with_bases(cuzk_gpu_worker *w, const ctx &c, HJ *out, const void *dbases, const cuzk_fr *scalars,
                          size_t n, int (*run)(const ctx &, msm_scratch *, HJ *, const void *, const fr_t *, size_t, bool, fr_t *))
{
    int rc = upload(w, c, &w->sa, scalars, n * sizeof *scalars, "msm scalars");
    if (rc) return rc;
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    region_lock(w);
    rc = run(c, &w->dev->msm, out, dbases, bp<fr_t>(w->sa), n, true, bp<fr_t>(w->sa)); /* uploaded for this call */
    return region_unlock(w, c, rc);
}

template <class HA, class HJ>
static int gpu_msm(cuzk_gpu_worker *w, HJ *out, const HA *bases, const cuzk_fr *scalars, size_t n,
                   int (*run)(const ctx &, msm_scratch *, HJ *, const void *, const fr_t *, size_t, bool, fr_t *))
{
    if (!w || !out || (n && (!bases || !scalars)) || n >= 0x80000000ull) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    if ((rc = upload(w, c, &w->tmp, bases, n * sizeof *bases, "msm bases"))) return rc;
    return msm_with_bases(w, c, out, w->tmp.p, scalars, n, run);
}

extern "C" int cuzk_gpu_g1_msm(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_g1_affine *bases,
                               const cuzk_fr *scalars, size_t n)
{
    return gpu_msm(w, out, bases, scalars, n, msm_g1);
}

extern "C" int cuzk_gpu_g2_msm(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_g2_affine *bases,
                               const cuzk_fr *scalars, size_t n)
{
    return gpu_msm(w, out, bases, scalars, n, msm_g2);
}

/* Bases resident on one device: what a prover's parameters are, here for a
 * lone MSM (and for timing cuzk the way sppark's msm_t is timed: points
 * uploaded once, the scalars from the host on every call). */
struct cuzk_gpu_bases {
    cuzk_gpu_device *dev;
    void *p;
    size_t n, point_bytes;
};

static int bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const void *bases, size_t n, size_t point_bytes)
{
    if (!out) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    if (!w || (n && !bases) || n >= 0x80000000ull) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    cuzk_gpu_bases *b = (cuzk_gpu_bases *)calloc(1, sizeof *b);
    if (!b) return fail_msg(c, CUZK_ERR_NO_MEMORY, "resident bases");
    dbuf d = {};
    if ((rc = upload(w, c, &d, bases, n * point_bytes, "resident msm bases"))) {
        free(b);
        return rc;
    }
    cudaError_t e = cudaStreamSynchronize(c.st);
    if (e != cudaSuccess) {
        buf_free(&d);
        free(b);
        return fail(c, e, "cudaStreamSynchronize(resident msm bases)");
    }
    b->dev = w->dev, b->p = d.p, b->n = n, b->point_bytes = point_bytes;
    *out = b;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g1_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g1_affine *bases,
                                        size_t n)
{
    return bases_upload(w, out, bases, n, sizeof *bases);
}

extern "C" int cuzk_gpu_g2_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g2_affine *bases,
                                        size_t n)
{
    return bases_upload(w, out, bases, n, sizeof *bases);
}

extern "C" void cuzk_gpu_bases_free(cuzk_gpu_bases *b)
{
    if (!b) return;
    cudaSetDevice(b->dev->ordinal);
    if (b->p) cudaFree(b->p);
    free(b);
}

template <class HJ>
static int gpu_msm_bases(cuzk_gpu_worker *w, HJ *out, const cuzk_gpu_bases *b, size_t point_bytes,
                         const cuzk_fr *scalars, size_t n,
                         int (*run)(const ctx &, msm_scratch *, HJ *, const void *, const fr_t *, size_t, bool, fr_t *))
{
    if (!w || !out || !b || (n && !scalars)) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    if (b->dev != w->dev) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: the bases are resident on another device");
    if (b->point_bytes != point_bytes) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: the bases are of the other group");
    if (n > b->n) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: more scalars than resident bases");
    return msm_with_bases(w, c, out, b->p, scalars, n, run);
}

extern "C" int cuzk_gpu_g1_msm_bases(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_gpu_bases *b,
                                     const cuzk_fr *scalars, size_t n)
{
    return gpu_msm_bases(w, out, b, sizeof(cuzk_g1_affine), scalars, n, msm_g1);
}

extern "C" int cuzk_gpu_g2_msm_bases(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_gpu_bases *b,
                                     const cuzk_fr *scalars, size_t n)
{
    return gpu_msm_bases(w, out, b, sizeof(cuzk_g2_affine), scalars, n, msm_g2);
}

/* ---- fixed-base multiplications (test setup) ---------------------------- */

/* tab[w·255 + d - 1] = d·2^(8w)·base: per window a chain of additions of
 * P_w = 2^(8w)·base, then one batch conversion to affine. */
#define FB_TABLE(G, AFF, JAC)                                                                      \
    static AFF *fb_table_##G(const AFF *base)                                                      \
    {                                                                                              \
        const size_t nt = (size_t)CUZK_GPU_FB_NWIN * CUZK_GPU_FB_DIG;                              \
        JAC *j = (JAC *)malloc(nt * sizeof *j);                                                    \
        AFF *t = (AFF *)malloc(nt * sizeof *t);                                                    \
        if (!j || !t) return free(j), free(t), (AFF *)NULL;                                        \
        JAC pw;                                                                                    \
        cuzk_##G##_jac_from_affine(&pw, base);                                                     \
        for (size_t w = 0; w < CUZK_GPU_FB_NWIN; w++) {                                            \
            JAC *row = j + w * CUZK_GPU_FB_DIG;                                                    \
            row[0] = pw;                                                                           \
            for (size_t d = 1; d < CUZK_GPU_FB_DIG; d++) cuzk_##G##_jac_add(&row[d], &row[d - 1], &pw); \
            for (int b = 0; b < 8; b++) cuzk_##G##_jac_dbl(&pw, &pw);                              \
        }                                                                                          \
        cuzk_##G##_jac_batch_to_affine(t, j, nt);                                                  \
        free(j);                                                                                   \
        return t;                                                                                  \
    }
FB_TABLE(g1, cuzk_g1_affine, cuzk_g1_jac)
FB_TABLE(g2, cuzk_g2_affine, cuzk_g2_jac)
#undef FB_TABLE

template <class AFF>
static int gpu_fixed_base(cuzk_gpu_worker *w, AFF *out, const AFF *base, const cuzk_fr *k, size_t n,
                          AFF *(*table)(const AFF *),
                          int (*run)(const ctx &, fixed_base_bufs *, AFF *, const AFF *, const cuzk_fr *, size_t))
{
    if (!w || !base || (n && (!out || !k))) return CUZK_ERR_INVALID_ARG;
    if (n == 0) return CUZK_OK;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    AFF *tab = table(base);
    if (!tab) return fail_msg(c, CUZK_ERR_NO_MEMORY, "fixed-base: host comb table");
    region_lock(w);
    rc = run(c, &w->fb, out, tab, k, n);
    rc = region_unlock(w, c, rc);
    free(tab);
    return rc;
}

extern "C" int cuzk_gpu_g1_fixed_base(cuzk_gpu_worker *w, cuzk_g1_affine *out, const cuzk_g1_affine *base,
                                      const cuzk_fr *k, size_t n)
{
    return gpu_fixed_base(w, out, base, k, n, fb_table_g1, fixed_base_g1);
}
extern "C" int cuzk_gpu_g2_fixed_base(cuzk_gpu_worker *w, cuzk_g2_affine *out, const cuzk_g2_affine *base,
                                      const cuzk_fr *k, size_t n)
{
    return gpu_fixed_base(w, out, base, k, n, fb_table_g2, fixed_base_g2);
}

static int setup_fb_g1(void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *base, const cuzk_fr *k, size_t n)
{
    return cuzk_gpu_g1_fixed_base((cuzk_gpu_worker *)ctx, out, base, k, n);
}
static int setup_fb_g2(void *ctx, cuzk_g2_affine *out, const cuzk_g2_affine *base, const cuzk_fr *k, size_t n)
{
    return cuzk_gpu_g2_fixed_base((cuzk_gpu_worker *)ctx, out, base, k, n);
}
extern "C" void cuzk_gpu_setup_fixed_base(cuzk_groth16_fixed_base *fb, cuzk_gpu_worker *w)
{
    fb->g1 = setup_fb_g1, fb->g2 = setup_fb_g2, fb->ctx = w;
}

/* ---- Groth16 ------------------------------------------------------------ */

static int srs_copy(const ctx &c, void **dst, const void *src, size_t bytes, const char *what)
{
    char name[48];
    snprintf(name, sizeof name, "SRS %s", what);
    if (!ledger_take(c.ordinal, bytes ? bytes : 1)) return *dst = NULL, over_budget(c, name, bytes);
    cudaError_t e = cudaMalloc(dst, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        ledger_give(c.ordinal, bytes ? bytes : 1);
        *dst = NULL;
        char msg[96];
        snprintf(msg, sizeof msg, "cudaMalloc(SRS %s, %zu bytes)", what, bytes);
        return fail(c, e, msg);
    }
    alloc_note(c, what, bytes);
    if (bytes) GPU_TRY(c, cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, c.st));
    return CUZK_OK;
}

/* a streamed set's chunk buffers when no plan chose them (CUZK_GPU_STREAM) */
#define STREAM_CHUNK_BYTES ((size_t)512 << 20)

/* CUZK_GPU_STREAM (tests): point arrays named there ("h,l,a,b_g1,b_g2")
 * are streamed in every new parameter set, whatever the card's room. */
static bool stream_forced(int slot)
{
    const char *v = getenv("CUZK_GPU_STREAM");
    if (!v || !*v) return false;
    const size_t l = strlen(srs_name[slot]);
    for (const char *q = v; (q = strstr(q, srs_name[slot])) != NULL; q += l)
        if ((q == v || q[-1] == ',') && (q[l] == ',' || q[l] == 0)) return true;
    return false;
}

/* The device copy of a parameter set (key: its address), uploaded by the
 * first worker that needs it; src/bytes per SRS_* slot (bytes 0: unused).
 * src identifies the host arrays (a set whose arrays changed is stale);
 * data (may be NULL) gives, per slot, other bytes to upload in src's place
 * (arrays derived on the host for the upload, identified by their source).
 * *made says whether this call uploaded it (may be NULL). */
static int srs_get(cuzk_gpu_worker *w, const ctx &c, const void *key, const void *const src[SRS_N],
                   const size_t bytes[SRS_N], dev_resident **out, const void *const *data = NULL,
                   bool *made = NULL, const cuzk_gpu_plan *plan = NULL)
{
    if (made) *made = false;
    cuzk_gpu_device *d = w->dev;
    pthread_mutex_lock(&d->srs_mu);
    dev_resident *e, **pe;
    for (pe = &d->srs; (e = *pe) != NULL; pe = &e->next)
        if (e->key == key) break;
    if (e && e->host_released) {
        /* no longer comparable by address: the sizes must agree, and the
         * arrays be the released ones (NULL) or those uploaded */
        bool same = !memcmp(e->bytes, bytes, sizeof e->bytes);
        for (int i = 0; i < SRS_N && same; i++)
            same = src[i] == e->src[i] || (i < SRS_IA && !src[i] && !e->streamed[i]);
        if (!same) {
            pthread_mutex_unlock(&d->srs_mu);
            return fail_msg(c, CUZK_ERR_INVALID_ARG,
                            "parameters: the set's host arrays were released and the job's differ from the device's copy");
        }
    } else {
        /* arrays released by their owner can only be a copy's stand-in */
        for (int i = 0; i < SRS_N; i++)
            if (bytes[i] && !src[i] && !(data && data[i])) {
                pthread_mutex_unlock(&d->srs_mu);
                char m[160];
                snprintf(m, sizeof m, "parameters: %s neither on the device nor on the host (released)", srs_name[i]);
                return fail_msg(c, CUZK_ERR_INVALID_ARG, m);
            }
    }
    if (e && !e->host_released && (memcmp(e->src, src, sizeof e->src) || memcmp(e->bytes, bytes, sizeof e->bytes))) {
        /* the caller freed a parameter set without releasing it and built
         * another at the same address: the old copy is stale */
        *pe = e->next;
        dev_resident_free(e);
        e = NULL;
    }
    int rc = CUZK_OK;
    if (!e) {
        e = (dev_resident *)calloc(1, sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&d->srs_mu);
            return CUZK_ERR_NO_MEMORY;
        }
        e->key = key, e->ordinal = c.ordinal;
        memcpy(e->src, src, sizeof e->src);
        memcpy(e->bytes, bytes, sizeof e->bytes);
        e->h_vectors = plan ? plan->h_vectors : 3;
        e->chunk_bytes = plan && plan->chunk_bytes ? plan->chunk_bytes : STREAM_CHUNK_BYTES;
        for (int i = 0; i < SRS_N && !rc; i++)
            if (src[i] && i <= SRS_B2 && ((plan && plan->streamed[i]) || stream_forced(i))) e->streamed[i] = true;
            else if (src[i]) rc = srs_copy(c, &e->p[i], data && data[i] ? data[i] : src[i], bytes[i], srs_name[i]);
        if (!rc) {
            cudaError_t ce = cudaStreamSynchronize(c.st);
            if (ce != cudaSuccess) rc = fail(c, ce, "cudaStreamSynchronize(SRS upload)");
        }
        if (rc) {
            dev_resident_free(e);
            pthread_mutex_unlock(&d->srs_mu);
            return rc;
        }
        e->next = d->srs;
        d->srs = e;
        if (plan) cuzk_gpu_plan_describe(plan, d->plan, sizeof d->plan);
        if (made) *made = true;
    }
    pthread_mutex_unlock(&d->srs_mu);
    *out = e;
    return CUZK_OK;
}

/* The plan of a set on the worker's card from what its budget leaves now
 * (the set's own arrays not yet there). */
static void plan_for(cuzk_gpu_worker *w, cuzk_gpu_plan *plan, const cuzk_groth16_params *params,
                     const cuzk_pce *pce, bool gathers_on_device)
{
    cuzk_gpu_plan_need nd;
    cuzk_gpu_plan_need_of(&nd, params, pce, gathers_on_device);
    card_ledger *l = ledger_of(w->dev->ordinal);
    uint64_t left = UINT64_MAX;
    if (l && l->budget) {
        const uint64_t used = l->used.load();
        left = l->budget > used ? l->budget - used : 0;
    }
    cuzk_gpu_plan_make(plan, &nd, left);
}

/* Whether the device gathers the job's A and B scalars from the uploaded
 * witness (the PCE's index lists, or the job's): else the host gathers them. */
static bool job_gathers_on_device(const cuzk_groth16_job *j) { return j->pce || j->q_a.idx; }

/* The device copy of a job's parameter set (key: job->key): the points of
 * the five MSMs and the queries' index lists when they have them (B2's only
 * when its scalars are not B1's). A set uploaded here, not by a preload,
 * follows the plan of what the budget leaves at that moment. */
static int srs_get_job(cuzk_gpu_worker *w, const ctx &c, const cuzk_groth16_job *j, dev_resident **out,
                       bool *made = NULL, const cuzk_gpu_plan *plan = NULL)
{
    const cuzk_groth16_params *p = j->params;
    const cuzk_groth16_query *q[3] = {&j->q_a, &j->q_b_g1, cuzk_groth16_job_b_shared(j) ? NULL : &j->q_b_g2};
    const void *src[SRS_N] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    size_t bytes[SRS_N] = {p->n_h * sizeof *p->h, p->n_l * sizeof *p->l, p->n_a * sizeof *p->a,
                           p->n_b_g1 * sizeof *p->b_g1, p->n_b_g2 * sizeof *p->b_g2};
    for (int k = 0; k < 3; k++)
        if (q[k] && q[k]->idx) src[SRS_IA + k] = q[k]->idx, bytes[SRS_IA + k] = q[k]->n * 4;
    cuzk_gpu_plan own;
    if (!plan && j->key == (const void *)p && p->n_h) { /* a set of Groth16 parameters: planned */
        plan_for(w, &own, p, j->pce, job_gathers_on_device(j));
        if (own.fits) plan = &own;
    }
    return srs_get(w, c, j->key, src, bytes, out, NULL, made, plan);
}

static void srs_release(cuzk_gpu_device *d, const void *key)
{
    if (!d) return;
    cudaSetDevice(d->ordinal);
    pthread_mutex_lock(&d->srs_mu);
    for (dev_resident **pe = &d->srs; *pe; pe = &(*pe)->next) {
        dev_resident *e = *pe;
        if (e->key != key) continue;
        *pe = e->next;
        dev_resident_free(e);
        break;
    }
    pthread_mutex_unlock(&d->srs_mu);
}

extern "C" void cuzk_gpu_device_release_params(cuzk_gpu_device *d, const cuzk_groth16_params *p)
{
    srs_release(d, p);
}

extern "C" int cuzk_gpu_device_params_host_released(cuzk_gpu_device *d, const cuzk_groth16_params *p)
{
    if (!d || !p) return CUZK_ERR_INVALID_ARG;
    /* the caller holds its scheduler's lock: never wait out another set's
     * upload (srs_mu is held through one); asked again later */
    if (pthread_mutex_trylock(&d->srs_mu)) return CUZK_ERR_NOT_READY;
    dev_resident *e = d->srs;
    while (e && e->key != p) e = e->next;
    /* only a copy of these very arrays (the points uploaded, not a stale
     * set at the same address) may stand in for them */
    bool ok = e && e->src[SRS_H] == p->h && e->src[SRS_L] == p->l && e->src[SRS_A] == p->a &&
              e->src[SRS_B1] == p->b_g1 && e->src[SRS_B2] == p->b_g2;
    for (int i = 0; ok && i <= SRS_B2; i++) ok = !e->streamed[i]; /* read at every MSM */
    if (ok) e->host_released = true;
    pthread_mutex_unlock(&d->srs_mu);
    return ok ? CUZK_OK : CUZK_ERR_NOT_READY;
}

static int pce_get(cuzk_gpu_worker *w, const ctx &c, const cuzk_pce *p, dev_resident **out);

extern "C" int cuzk_gpu_device_preload(cuzk_gpu_device *d, const cuzk_groth16_params *params,
                                       const cuzk_pce *p, char *msg, size_t msg_len)
{
    if (!d || !params) return CUZK_ERR_INVALID_ARG;
    cuzk_gpu_worker *w; /* its own stream and message buffer, for this call */
    int rc = cuzk_gpu_worker_create(&w, d);
    if (rc) {
        if (msg && msg_len) snprintf(msg, msg_len, "%s", d->err);
        return rc;
    }
    ctx c;
    dev_resident *e;
    cuzk_groth16_job j = {}; /* the points of params as a job of them keeps them */
    j.params = params, j.key = params, j.pce = p;
    /* bellman's H has n - 1 points */
    const size_t n = params->n_h + 1;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < n) log_n++;
    j.log_n = log_n;
    /* the set's plan (cuzk/gpu.h) from what the card's budget leaves: the
     * arrays it streams are never uploaded */
    cuzk_gpu_plan plan;
    char line[400] = "";
    plan_for(w, &plan, params, p, p != NULL);
    cuzk_gpu_plan_describe(&plan, line, sizeof line);
    rc = begin(w, &c);
    if (!rc && params->n_h && !plan.fits) {
        /* a set already on the device is not planned again */
        pthread_mutex_lock(&d->srs_mu);
        for (e = d->srs; e && e->key != params; e = e->next) {}
        pthread_mutex_unlock(&d->srs_mu);
        if (!e) {
            char m[480];
            snprintf(m, sizeof m, "one worker does not fit beside the parameters with every point streamed: %s", line);
            rc = fail_msg(c, CUZK_ERR_NO_MEMORY, m);
        }
    }
    if (!rc) rc = srs_get_job(w, c, &j, &e, NULL, params->n_h && plan.fits ? &plan : NULL);
    if (!rc && p) {
        if (cuzk_pce_ready(p, NULL) != CUZK_OK) rc = fail_msg(c, CUZK_ERR_FORMAT, "preload: the PCE failed verification");
        else rc = pce_get(w, c, p, &e);
    }
    /* H's NTT tables for the parameters' domain: 2 × 2 GiB of twiddles at
     * 2^27, built at the first proof's H otherwise (its NTT step took 1.38 s
     * against 0.33 s later, H200). Best effort: without room now, the first
     * proof builds them as before. */
    if (!rc && params->n_h && !(n & (n - 1)) && n <= ((size_t)1 << CUZK_NTT_MAX_LOG)) {
        region_lock(w);
        int trc = ntt_groth16_h_tables(c, &d->ntt, log_n);
        trc = region_unlock(w, c, trc);
        if (trc == CUZK_ERR_DEVICE) rc = trc; /* the context is no longer trusted */
        else w->err[0] = 0;
    }
    if (rc && msg && msg_len) snprintf(msg, msg_len, "%s", w->err);
    /* on success, the plan and what the card has left */
    double f, t;
    if (!rc && msg && msg_len && dev_mem_gib(&f, &t))
        snprintf(msg, msg_len, "%.1f of %.1f GiB free on the device; plan: %s", f, t,
                 params->n_h ? line : "no H domain");
    cuzk_gpu_worker_destroy(w);
    return rc;
}

extern "C" void cuzk_gpu_device_release_pce(cuzk_gpu_device *d, const cuzk_pce *p)
{
    srs_release(d, p);
}

extern "C" void cuzk_gpu_device_release(cuzk_gpu_device *d, const void *key)
{
    srs_release(d, key);
}

/* out[k] = wit[idx[k]]: a query's scalars by index into the witness (plain
 * integers or Montgomery values alike). */
static __global__ void gather_wires(fr_t *__restrict__ out, const fr_t *__restrict__ wit,
                                    const uint32_t *__restrict__ idx, size_t n)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = wit[idx[k]];
}

static int gather_on_device(const ctx &c, fr_t *dst, const fr_t *wit, const void *idx, size_t n)
{
    if (n == 0) return CUZK_OK;
    gather_wires<<<(unsigned)((n + 255) / 256), 256, 0, c.st>>>(dst, wit, (const uint32_t *)idx, n);
    GPU_LAUNCHED(c, "gather_wires");
    return CUZK_OK;
}

/* out[i] = entry i of a packed vector (cuzk/fr_packed.h): 0, one, or the
 * general value that the word's count and the general codes below i name. */
static __global__ void fr_unpack_entries(fr_t *__restrict__ out, const unsigned long long *__restrict__ codes,
                                         const uint32_t *__restrict__ before, const fr_t *__restrict__ gen,
                                         size_t n, const fr_t one)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long word = codes[i >> 5];
    const unsigned sh = 2 * (unsigned)(i & 31), code = (unsigned)(word >> sh) & 3u;
    if (code >= CUZK_FR_PACKED_GENERAL)
        out[i] = gen[before[i >> 5] + __popcll(word & 0xaaaaaaaaaaaaaaaaull & ((1ull << sh) - 1))];
    else if (code == CUZK_FR_PACKED_ONE)
        out[i] = one;
    else
        f_zero(out[i]);
}

/* Where a packed vector's arrays lie in the device's scratch (each 256-byte
 * aligned): the counts at *before, the general values at *gen, the bytes in all
 * returned. */
static size_t packed_dev_layout(const cuzk_fr_packed *pk, size_t *before, size_t *gen)
{
    const size_t nw = (pk->n + 31) / 32, al = 255;
    *before = (nw * 8 + al) & ~al;
    *gen = *before + ((nw * 4 + al) & ~al);
    return *gen + pk->n_gen * sizeof(cuzk_fr);
}

/* dst <- the entries of pk: its arrays uploaded into scratch (at least
 * packed_dev_layout, dead until the caller's next writes in stream order),
 * then expanded there: 103 MB over the bus instead of 4.17 GB for a 32 GiB
 * PoRep partition's aux. */
static int unpack_on_device(cuzk_gpu_worker *w, const ctx &c, fr_t *dst, const cuzk_fr_packed *pk, void *scratch)
{
    if (!pk->n) return CUZK_OK;
    const size_t nw = (pk->n + 31) / 32;
    size_t ob, og;
    packed_dev_layout(pk, &ob, &og);
    unsigned long long *codes = (unsigned long long *)scratch;
    uint32_t *before = (uint32_t *)((char *)scratch + ob);
    fr_t *gen = (fr_t *)((char *)scratch + og);
    int rc;
    if ((rc = h2d(w, c, codes, pk->codes, nw * 8)) || (rc = h2d(w, c, before, pk->before, nw * 4)) ||
        (pk->n_gen && (rc = h2d(w, c, gen, pk->gen, pk->n_gen * sizeof(cuzk_fr)))))
        return rc;
    fr_t one; /* in the vector's form: the integer 1, or R mod r (the same limbs) */
    memcpy(&one, cuzk_fr_packed_one(pk->plain), sizeof one);
    fr_unpack_entries<<<(unsigned)((pk->n + 255) / 256), 256, 0, c.st>>>(dst, codes, before, gen, pk->n, one);
    GPU_LAUNCHED(c, "fr_unpack_entries");
    return CUZK_OK;
}

/* The device copy of a PCE (key: its address): the CSR arrays as they lie
 * in its image, and, built here, the A and B query index lists from the
 * density bitmaps (A: every input, then the aux in A's density; B: the
 * inputs in B's input density, then the aux in B's: cuzk_groth16_gather's
 * order) over the unified witness (input i -> i, aux j -> num_inputs + j),
 * and each matrix's rows longer than PCE_SPMV_LONG. */
static int pce_get(cuzk_gpu_worker *w, const ctx &c, const cuzk_pce *p, dev_resident **out)
{
    const void *src[SRS_N] = {};
    size_t bytes[SRS_N] = {};
    const size_t ni = (size_t)p->num_inputs, na = (size_t)p->num_aux, m = (size_t)p->num_constraints;
    for (int k = 0; k < 3; k++) {
        const cuzk_pce_matrix *mx = &p->m[k];
        src[PCE_RP + k] = mx->row_ptr32 ? (const void *)mx->row_ptr32 : (const void *)mx->row_ptr64;
        bytes[PCE_RP + k] = (m + 1) * (mx->row_ptr32 ? 4 : 8);
        src[PCE_COL + k] = mx->col, bytes[PCE_COL + k] = mx->nnz * 4;
        src[PCE_CODE + k] = mx->code, bytes[PCE_CODE + k] = mx->nnz * 4;
    }
    if (p->num_coeffs) src[PCE_COEFFS] = p->coeffs, bytes[PCE_COEFFS] = p->num_coeffs * sizeof(cuzk_fr);
    const size_t n_a = ni + p->a_aux.total, n_b = p->b_input.total + p->b_aux.total;
    src[PCE_IA] = p->a_aux.bits, bytes[PCE_IA] = n_a * 4;
    src[PCE_IB] = p->b_aux.bits, bytes[PCE_IB] = n_b * 4;
    if (ni + na > 0xffffffffull) return fail_msg(c, CUZK_ERR_UNSUPPORTED, "PCE: 2^32 or more variables");
    { /* resident already: nothing to build (the image's arrays identify it) */
        cuzk_gpu_device *d = w->dev;
        pthread_mutex_lock(&d->srs_mu);
        dev_resident *e = d->srs;
        while (e && (e->key != p || memcmp(e->src, src, PCE_IA * sizeof *src) ||
                     memcmp(e->bytes, bytes, PCE_IA * sizeof *bytes)))
            e = e->next;
        pthread_mutex_unlock(&d->srs_mu);
        if (e) return *out = e, CUZK_OK;
    }
    uint32_t *ia = (uint32_t *)malloc((n_a ? n_a : 1) * 4), *ib = (uint32_t *)malloc((n_b ? n_b : 1) * 4);
    uint32_t *lr[3] = {};
    size_t nl[3] = {};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < m; i++)
            nl[k] += cuzk_pce_row_start(&p->m[k], i + 1) - cuzk_pce_row_start(&p->m[k], i) > PCE_SPMV_LONG;
        lr[k] = (uint32_t *)malloc((nl[k] ? nl[k] : 1) * 4);
    }
    if (!ia || !ib || !lr[0] || !lr[1] || !lr[2]) {
        free(ia), free(ib), free(lr[0]), free(lr[1]), free(lr[2]);
        return fail_msg(c, CUZK_ERR_NO_MEMORY, "PCE: host index lists");
    }
    for (int k = 0; k < 3; k++) {
        size_t j = 0;
        for (size_t i = 0; i < m; i++)
            if (cuzk_pce_row_start(&p->m[k], i + 1) - cuzk_pce_row_start(&p->m[k], i) > PCE_SPMV_LONG)
                lr[k][j++] = (uint32_t)i;
        if (nl[k]) src[PCE_LONG + k] = src[PCE_RP + k], bytes[PCE_LONG + k] = nl[k] * 4;
    }
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < ni; i++) {
        ia[ka++] = (uint32_t)i;
        if (cuzk_density_get(&p->b_input, i)) ib[kb++] = (uint32_t)i;
    }
    for (size_t j = 0; j < na; j++) {
        if (cuzk_density_get(&p->a_aux, j)) ia[ka++] = (uint32_t)(ni + j);
        if (cuzk_density_get(&p->b_aux, j)) ib[kb++] = (uint32_t)(ni + j);
    }
    const void *data[SRS_N] = {};
    data[PCE_IA] = ia, data[PCE_IB] = ib;
    for (int k = 0; k < 3; k++) data[PCE_LONG + k] = lr[k];
    int rc = srs_get(w, c, p, src, bytes, out, data);
    free(ia), free(ib), free(lr[0]), free(lr[1]), free(lr[2]);
    return rc;
}

static size_t point_bytes(int slot) { return slot == SRS_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine); }

/* The next streamed chunk of the schedule copied into the buffer it frees,
 * when one is free (at most two in flight: the one read next and the one
 * after). */
static int feed_issue(cuzk_gpu_worker *w, const ctx &c)
{
    stream_feed *f = &w->feed;
    while (f->next_copy < f->n_steps && !f->src[f->step[f->next_copy].msm]) f->next_copy++;
    if (f->next_copy >= f->n_steps || f->issued - f->taken >= 2) return CUZK_OK;
    const cuzk_gpu_chunk_step *st = &f->step[f->next_copy];
    const size_t pb = point_bytes((int)st->msm);
    const unsigned k = f->issued & 1;
    f->buf_step[k] = f->next_copy++;
    GPU_TRY(c, cudaEventRecord(w->ev_start[k], w->cst));
    GPU_TRY(c, cudaMemcpyAsync(w->chunk[k].p, f->src[st->msm] + st->off * pb, st->len * pb, cudaMemcpyHostToDevice,
                               w->cst));
    GPU_TRY(c, cudaEventRecord(w->ev_done[k], w->cst));
    f->issued++, f->bytes += st->len * pb;
    return CUZK_OK;
}

/* The chunk schedule of a prove over srs whose MSMs have n[slot] points,
 * B's in phase 1 when late_b (their scalars are gathered once H's MSM is
 * done), made with the chunk buffers, the copy stream and the first two
 * copies; none (n_steps 0) when nothing streams. */
static int feed_start(cuzk_gpu_worker *w, const ctx &c, const dev_resident *srs, const size_t n[SRS_B2 + 1],
                      bool late_b)
{
    stream_feed *f = &w->feed;
    cuzk_gpu_chunk_step *keep = f->step;
    memset(f, 0, sizeof *f);
    f->step = keep;
    uint64_t nn[SRS_B2 + 1], per[SRS_B2 + 1];
    unsigned phase[SRS_B2 + 1];
    bool any = false;
    size_t buf = 0;
    const char *v = getenv("CUZK_GPU_STREAM_CHUNK"); /* tests: points a chunk */
    for (int slot = SRS_H; slot <= SRS_B2; slot++) {
        const size_t pb = point_bytes(slot);
        nn[slot] = n[slot], phase[slot] = late_b && (slot == SRS_B1 || slot == SRS_B2);
        per[slot] = v && atol(v) > 0 ? (uint64_t)atol(v) : srs->chunk_bytes / pb;
        if (!srs->streamed[slot] || !n[slot]) continue;
        f->src[slot] = (const char *)srs->src[slot], any = true;
        const size_t b = (per[slot] < n[slot] ? per[slot] : n[slot]) * pb;
        if (b > buf) buf = b;
    }
    if (!any) return CUZK_OK;
    if (!f->step && !(f->step = (cuzk_gpu_chunk_step *)malloc(FEED_STEPS_MAX * sizeof *f->step)))
        return fail_msg(c, CUZK_ERR_NO_MEMORY, "streamed points: the chunk schedule");
    f->n_steps = cuzk_gpu_chunk_schedule(f->step, FEED_STEPS_MAX, nn, per, phase);
    if (f->n_steps > FEED_STEPS_MAX) return fail_msg(c, CUZK_ERR_UNSUPPORTED, "streamed points: over 16,384 chunks");
    if (!w->cst) {
        GPU_TRY(c, cudaStreamCreateWithFlags(&w->cst, cudaStreamNonBlocking));
        for (int i = 0; i < 2; i++) {
            GPU_TRY(c, cudaEventCreate(&w->ev_start[i]));
            GPU_TRY(c, cudaEventCreate(&w->ev_done[i]));
        }
    }
    int rc;
    for (int i = 0; i < 2; i++)
        if ((rc = buf_reserve(c, &w->chunk[i], buf, "streamed points"))) return rc;
    if ((rc = feed_issue(w, c))) return rc;
    return feed_issue(w, c);
}

/* One MSM over the scalars of a prove (work as for msm_g1; NULL: the plain
 * form goes to the MSM's scratch), its sum on the host as G1 or G2. */
struct msm_task {
    const fr_t *sc;
    bool mont;
    fr_t *work;
};

/* The schedule's steps of one phase: each chunk's MSM over its points (a
 * streamed chunk's buffer once its copy is in, waited for on the host: that
 * wait is the copy time the kernels did not hide; a resident array's range
 * in place), its sum added to its MSM's on the host, the next copy issued
 * as a buffer frees. secs[slot] gets each MSM's time. */
static int feed_run(cuzk_gpu_worker *w, const ctx &c, const dev_resident *srs, const msm_task t[SRS_B2 + 1],
                    unsigned phase, cuzk_g1_jac g1[SRS_B1 + 1], cuzk_g2_jac *g2, double secs[SRS_B2 + 1])
{
    stream_feed *f = &w->feed;
    msm_scratch *ms = &w->dev->msm;
    int rc = CUZK_OK;
    for (size_t i = 0; i < f->n_steps && !rc; i++) {
        const cuzk_gpu_chunk_step *st = &f->step[i];
        if (st->phase != phase) continue;
        const int slot = (int)st->msm;
        const double t0 = cuzk_now();
        const void *bases;
        const bool streamed = f->src[slot] != NULL;
        const unsigned k = f->taken & 1;
        if (streamed) {
            if (f->taken >= f->issued || f->buf_step[k] != i) /* the copies follow the schedule */
                return fail_msg(c, CUZK_ERR_INTERNAL, "streamed points: chunk out of order");
            GPU_TRY(c, cudaEventSynchronize(w->ev_done[k]));
            f->wait_s += cuzk_now() - t0;
            float ms_ = 0;
            if (cudaEventElapsedTime(&ms_, w->ev_start[k], w->ev_done[k]) == cudaSuccess) f->copy_s += ms_ / 1e3;
            else cudaGetLastError();
            bases = w->chunk[k].p;
        } else {
            bases = (const char *)srs->p[slot] + st->off * point_bytes(slot);
        }
        const fr_t *sc = t[slot].sc + st->off;
        fr_t *work = t[slot].work ? t[slot].work + st->off : NULL;
        /* each returns its sum on the host, its kernels done: the buffer may be overwritten next */
        if (slot == SRS_B2) {
            cuzk_g2_jac p2;
            rc = msm_g2(c, ms, &p2, bases, sc, st->len, t[slot].mont, work);
            if (!rc) cuzk_g2_jac_add(g2, g2, &p2);
        } else {
            cuzk_g1_jac p1;
            rc = msm_g1(c, ms, &p1, bases, sc, st->len, t[slot].mont, work);
            if (!rc) cuzk_g1_jac_add(&g1[slot], &g1[slot], &p1);
        }
        if (streamed) {
            f->taken++;
            if (!rc) rc = feed_issue(w, c);
        }
        secs[slot] += cuzk_now() - t0;
    }
    return rc;
}

/* msm_g1 or msm_g2 over the set's resident slot, whole */
static int msm_slot(cuzk_gpu_worker *w, const ctx &c, const dev_resident *srs, int slot, void *out,
                    const fr_t *scalars, size_t n, bool mont, fr_t *work)
{
    if (slot == SRS_B2) return msm_g2(c, &w->dev->msm, (cuzk_g2_jac *)out, srs->p[slot], scalars, n, mont, work);
    return msm_g1(c, &w->dev->msm, (cuzk_g1_jac *)out, srs->p[slot], scalars, n, mont, work);
}


/* The stream drained; a failure named by what ran on it */
static int sync_named(const ctx &c, const char *what)
{
    cudaError_t e = cudaStreamSynchronize(c.st);
    return e == cudaSuccess ? CUZK_OK : fail(c, e, what);
}

/* Matrix k of the PCE times the witness into o (n elements: the rows past
 * m zeroed), on the stream. */
static int pce_eval_row(const ctx &c, const cuzk_pce *p, const dev_resident *pe, int k, const fr_t *wit, fr_t *o,
                        size_t m, size_t n)
{
    int rc = pce_spmv(c, o, pe->p[PCE_RP + k], p->m[k].row_ptr64 != NULL, (const uint32_t *)pe->p[PCE_COL + k],
                      (const uint32_t *)pe->p[PCE_CODE + k], (const fr_t *)pe->p[PCE_COEFFS], wit, m,
                      (const uint32_t *)pe->p[PCE_LONG + k], pe->bytes[PCE_LONG + k] / 4);
    if (!rc && n > m) GPU_TRY(c, cudaMemsetAsync(o + m, 0, (n - m) * sizeof(fr_t), c.st));
    return rc;
}

/*
 * The GPU back end: one proof of a job (cuzk/groth16.h). Without the lock,
 * into this worker's buffers: the witness (inputs and aux as one vector when
 * the A and B scalars are gathered on the device, else the aux alone), a, b,
 * c unless a PCE gives them, and the A and B scalars gathered on the host
 * unless the device has index lists for them (a PCE's, from its densities,
 * or the queries' own). Then the kernel region, the device lock held: the
 * PCE's sparse products into the NTT buffers, the device gathers, H and the
 * five MSMs. The proof is finished on the host.
 */
static int prove_job_run(cuzk_gpu_worker *w, const ctx &c, cuzk_groth16_proof *out, const cuzk_groth16_job *j,
                         const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *tm)
{
    int rc = cuzk_groth16_job_check(j);
    if (rc) return fail_msg(c, rc, "prove: the job's sizes do not agree");
    dev_resident *srs, *pe = NULL;
    if ((rc = srs_get_job(w, c, j, &srs))) return rc;
    const double t0 = cuzk_now();
    const cuzk_pce *p = j->pce;
    const size_t n = (size_t)1 << j->log_n, m = j->num_constraints, ni = j->num_inputs, na = j->num_aux;
    const size_t fb = sizeof(cuzk_fr);
    const bool on_device = job_gathers_on_device(j), share_b = cuzk_groth16_job_b_shared(j);
    const cuzk_groth16_query *q[3] = {&j->q_a, &j->q_b_g1, share_b ? NULL : &j->q_b_g2}; /* NULL: shared */
    dbuf *sc[3] = {&w->sa, &w->sb, &w->tmp};
    static const char *const sc_name[3] = {"A scalars", "B scalars", "B2 scalars"};

    /* H over two vectors where the plan says so and a PCE evaluates c after
     * a·b; A's and B's scalars then go into the two once H's MSM is done */
    const bool two = p && srs->h_vectors == 2 && on_device && q[0]->n <= n && q[1]->n <= n;
    /* the streamed points' first chunks go up on the copy stream meanwhile */
    const size_t n_msm[SRS_B2 + 1] = {j->params->n_h, na, q[0]->n, q[1]->n, j->q_b_g2.n};
    if ((rc = feed_start(w, c, srs, n_msm, two))) return rc;
    const bool chunked = w->feed.n_steps != 0;
    /* uploads into this worker's buffers: no lock needed */
    if ((rc = buf_reserve(c, &w->abc, (two ? 2 : 3) * n * fb, "H a, b, c"))) return rc;
    fr_t *abc = bp<fr_t>(w->abc);
    if (p && cuzk_pce_ready(p, NULL) != CUZK_OK) /* its checksums, verified in the background, failed */
        return fail_msg(c, CUZK_ERR_FORMAT, "prove: the PCE failed verification");
    if (p && (rc = pce_get(w, c, p, &pe))) return rc;
    double t = t0;
    /* Gathered on the device, A's and B's scalars go where H leaves two of
     * a, b, c dead, when they fit (no arrays of their own: 5.3 GB less per
     * worker at 32 GiB); B2's own list, when it has one, to tmp. */
    const bool in_abc = on_device && q[0]->n <= n && q[1]->n <= n;
    if (on_device) {
        if ((rc = buf_reserve(c, &w->aux, (ni + na) * fb, "witness"))) return rc;
        for (int k = in_abc ? 2 : 0; k < 3 && q[k]; k++)
            if ((rc = buf_reserve(c, sc[k], q[k]->n * fb, sc_name[k]))) return rc;
        if (in_abc) buf_free(&w->sa), buf_free(&w->sb); /* from a call that had no room in a, b, c */
        t = cuzk_now();
        if (ni) GPU_TRY(c, cudaMemcpyAsync(w->aux.p, j->input, ni * fb, cudaMemcpyHostToDevice, c.st));
        if (j->aux_packed) { /* through a, b, c's room, which nothing has written yet (prove_job checked the fit) */
            if ((rc = unpack_on_device(w, c, bp<fr_t>(w->aux) + ni, j->aux_packed, abc))) return rc;
        } else if (na && (rc = h2d(w, c, bp<fr_t>(w->aux) + ni, j->aux, na * fb))) {
            return rc;
        }
    } else if ((rc = buf_reserve(c, &w->aux, na * fb, "aux witness")) || (rc = h2d(w, c, w->aux.p, j->aux, na * fb))) {
        return rc;
    }
    if (!p && j->abc) { /* already in the NTT layout (zero tail): one transfer, a DMA when pinned */
        if ((rc = h2d(w, c, abc, j->abc, 3 * n * fb))) return rc;
    } else if (!p) {
        const cuzk_fr *src[3] = {j->a, j->b, j->c};
        for (int i = 0; i < 3; i++) {
            if (m && (rc = h2d(w, c, abc + i * n, src[i], m * fb))) return rc;
            if (n > m) GPU_TRY(c, cudaMemsetAsync(abc + i * n + m, 0, (n - m) * fb, c.st));
        }
    }
    if (on_device) {
        GPU_TRY(c, cudaStreamSynchronize(c.st));
    } else {
        const size_t nsc = j->q_a.n + j->q_b_g1.n + (share_b ? 0 : j->q_b_g2.n);
        cuzk_fr *hs = (cuzk_fr *)malloc((nsc + 1) * fb), *h = hs;
        if (!hs) return fail_msg(c, CUZK_ERR_NO_MEMORY, "prove: host scalar buffer");
        for (int k = 0; k < 3 && q[k] && !rc; h += q[k]->n, k++) {
            cuzk_groth16_gather(h, j, q[k]);
            rc = buf_reserve(c, sc[k], q[k]->n * fb, sc_name[k]);
            if (!rc) rc = h2d(w, c, sc[k]->p, h, q[k]->n * fb);
        }
        if (!rc) {
            cudaError_t e = cudaStreamSynchronize(c.st); /* hs is wiped next */
            if (e != cudaSuccess) rc = fail(c, e, "cudaStreamSynchronize(uploads)");
        }
        cuzk_mem_wipe(hs, nsc * fb);
        free(hs);
        if (rc) return rc;
    }
    tm->upload_s = cuzk_now() - t;

    tm->wait_s = region_lock(w);
    cuzk_gpu_device *d = w->dev;
    const fr_t *wit = bp<fr_t>(w->aux);
    t = cuzk_now();
    /* A·w and B·w (and C·w unless H runs over two vectors: then after a·b) */
    for (int k = 0; p && k < (two ? 2 : 3) && !rc; k++) rc = pce_eval_row(c, p, pe, k, wit, abc + k * n, m, n);
    if (p) {
        if (!rc) {
            cudaError_t e = cudaStreamSynchronize(c.st);
            if (e != cudaSuccess) rc = fail(c, e, "pce_spmv");
        }
        tm->eval_s = cuzk_now() - t;
    }
    if (rc) return region_unlock(w, c, rc);

    /* H, then the five MSMs: H, L over the aux, A and B over the gathered scalars */
    const size_t n_h = j->params->n_h, n_a = j->q_a.n, n_b = j->q_b_g1.n, n_b2 = j->q_b_g2.n;
    const bool mont = !j->plain;
    cuzk_groth16_msm_sums sums;
    t = cuzk_now();
    fr_t *h = abc;
    if (two) {
        /* a·b in a, then c evaluated into b's room (timed as evaluation), then H into b */
        rc = ntt_groth16_h_ab(c, &d->ntt, abc, abc + n, j->log_n);
        double te = cuzk_now();
        if (!rc) rc = pce_eval_row(c, p, pe, 2, wit, abc + n, m, n);
        if (!rc) rc = sync_named(c, "ntt_groth16_h_ab, pce_spmv C");
        te = cuzk_now() - te;
        tm->eval_s += te;
        if (!rc) rc = ntt_groth16_h_c(c, &d->ntt, abc, abc + n, j->log_n);
        h = abc + n;
        t += te;
    } else if (j->form == CUZK_GROTH16_H_COSET) {
        rc = ntt_groth16_h(c, &d->ntt, abc, abc + n, abc + 2 * n, j->log_n, &h);
    } else {
        rc = ntt_groth16_h_odd(c, &d->ntt, abc, abc + n, abc + 2 * n, j->log_n);
    }
    if (!rc) rc = sync_named(c, "ntt_groth16_h");
    tm->ntt_h_s = cuzk_now() - t, t = cuzk_now();
    /* A's and B's scalars gathered from the witness (counted with the
     * evaluation), into the two arrays H left dead when they fit: over
     * three vectors now; over two, A's into the one H left dead now and
     * B's into h's once H's MSM has read it */
    fr_t *sa = bp<fr_t>(w->sa), *sb = bp<fr_t>(w->sb), *sb2 = share_b ? sb : bp<fr_t>(w->tmp);
    if (in_abc) { /* the thirds (or halves) not holding h, h's own last */
        fr_t *dead[3], **dp = dead;
        for (int k = 0; k < (two ? 2 : 3); k++)
            if (abc + k * n != h) *dp++ = abc + k * n;
        if (two) *dp++ = h;
        sa = dead[0], sb = dead[1], sb2 = share_b ? sb : sb2;
    }
    const void *const ix[3] = {p ? pe->p[PCE_IA] : srs->p[SRS_IA], p ? pe->p[PCE_IB] : srs->p[SRS_IB1],
                               srs->p[SRS_IB2]};
    fr_t *const dst[3] = {sa, sb, sb2};
    if (on_device && !rc) {
        for (int k = 0; k < (two ? 1 : 3) && q[k] && !rc; k++) rc = gather_on_device(c, dst[k], wit, ix[k], q[k]->n);
        if (!rc) rc = sync_named(c, "gather_wires");
        tm->eval_s += cuzk_now() - t, t = cuzk_now();
    }
    /* Each MSM's scalars are dead after it (the witness once gathered), so
     * each leaves its plain form over them (work) instead of in a scratch
     * copy: 4.3 GB less on the device at 32 GiB. B's, when B2 shares them,
     * are read by B2 as the plain form B1 left. In chunks (the set streams),
     * L's and B's leave it in the MSM's scratch instead: the witness stays
     * for B's gather after H's MSM, and B's scalars for both of B's MSMs,
     * whose chunks interleave. */
    fr_t *const l_sc = bp<fr_t>(w->aux) + (on_device ? ni : 0);
    double secs[SRS_B2 + 1] = {0};
    if (chunked) {
        const msm_task task[SRS_B2 + 1] = {{h, true, h}, {l_sc, mont, NULL}, {sa, mont, sa}, {sb, mont, NULL},
                                           {sb2, mont, NULL}};
        cuzk_g1_jac g1[SRS_B1 + 1];
        for (int k = 0; k <= SRS_B1; k++) cuzk_g1_jac_set_infinity(&g1[k]);
        cuzk_g2_jac_set_infinity(&sums.b_g2);
        if (!rc) rc = feed_run(w, c, srs, task, 0, g1, &sums.b_g2, secs);
        if (two && !rc) { /* h read: B's scalars into its vector (phase 1 of the schedule) */
            t = cuzk_now();
            for (int k = 1; k < 3 && q[k] && !rc; k++) rc = gather_on_device(c, dst[k], wit, ix[k], q[k]->n);
            if (!rc) rc = sync_named(c, "gather_wires");
            tm->eval_s += cuzk_now() - t;
            if (!rc) rc = feed_run(w, c, srs, task, 1, g1, &sums.b_g2, secs);
        }
        sums.h = g1[SRS_H], sums.l = g1[SRS_L], sums.a = g1[SRS_A], sums.b_g1 = g1[SRS_B1];
    } else {
        if (!rc) rc = msm_slot(w, c, srs, SRS_H, &sums.h, h, n_h, true, h);
        secs[SRS_H] = cuzk_now() - t, t = cuzk_now();
        if (two && !rc) { /* before L's MSM leaves the aux in plain form */
            for (int k = 1; k < 3 && q[k] && !rc; k++) rc = gather_on_device(c, dst[k], wit, ix[k], q[k]->n);
            if (!rc) rc = sync_named(c, "gather_wires");
            tm->eval_s += cuzk_now() - t, t = cuzk_now();
        }
        if (!rc) rc = msm_slot(w, c, srs, SRS_L, &sums.l, l_sc, na, mont, l_sc);
        secs[SRS_L] = cuzk_now() - t, t = cuzk_now();
        if (!rc) rc = msm_slot(w, c, srs, SRS_A, &sums.a, sa, n_a, mont, sa);
        secs[SRS_A] = cuzk_now() - t, t = cuzk_now();
        if (!rc) rc = msm_slot(w, c, srs, SRS_B1, &sums.b_g1, sb, n_b, mont, sb);
        secs[SRS_B1] = cuzk_now() - t, t = cuzk_now();
        if (!rc) rc = msm_slot(w, c, srs, SRS_B2, &sums.b_g2, sb2, n_b2, mont && !share_b, sb2);
        secs[SRS_B2] = cuzk_now() - t;
    }
    tm->msm_h_s = secs[SRS_H], tm->msm_l_s = secs[SRS_L], tm->msm_a_s = secs[SRS_A];
    tm->msm_b_g1_s = secs[SRS_B1], tm->msm_b_g2_s = secs[SRS_B2];
    tm->msm_s = tm->msm_h_s + tm->msm_l_s + tm->msm_a_s + tm->msm_b_g1_s + tm->msm_b_g2_s;
    tm->stream_bytes = w->feed.bytes, tm->stream_copy_s = w->feed.copy_s, tm->stream_wait_s = w->feed.wait_s;
    rc = region_unlock(w, c, rc);
    if (rc) return rc;
    cuzk_groth16_finish(out, j->params, &sums, r, s);
    tm->total_s = cuzk_now() - t0;
    return CUZK_OK;
}

/* One proof. A worker that ran out of device memory lets go of what it
 * holds: a half-grown set (a, b, c but no witness) would otherwise stay
 * allocated and could starve the device's other workers, whose MSM scratch
 * grows inside their kernel regions, so that one worker too many for the
 * card fails every worker instead of only itself. The engine proves the
 * partition again on another worker. */
static int prove_job(cuzk_gpu_worker *w, const ctx &c, cuzk_groth16_proof *out, const cuzk_groth16_job *j,
                     const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *tm)
{
    /* a packed aux is expanded on the device where the queries are gathered
     * there and its arrays fit in a, b, c's room; else unpacked here first */
    cuzk_groth16_job uj;
    cuzk_fr *uaux = NULL;
    size_t ob, og;
    if (j->aux_packed && (!job_gathers_on_device(j) || /* in H's two vectors' room, the fewest it may have */
                          packed_dev_layout(j->aux_packed, &ob, &og) > 2 * sizeof(cuzk_fr) << j->log_n)) {
        int rc = cuzk_groth16_job_unpacked(&uj, &uaux, j);
        if (rc) return fail_msg(c, rc, "prove: no host memory to unpack the witness");
        j = &uj;
    }
    int rc = prove_job_run(w, c, out, j, r, s, tm);
    /* a failure may leave copies from the job's host arrays in flight (a
     * pinned source goes straight to the DMA): they end before the caller
     * frees or unpins them */
    if (rc && cudaStreamSynchronize(w->st) != cudaSuccess) cudaGetLastError();
    if (w->cst && cudaStreamSynchronize(w->cst) != cudaSuccess) cudaGetLastError(); /* the feed's copies too */
    cuzk_groth16_job_unpacked_free(uaux, j->num_aux);
    if (rc == CUZK_ERR_NO_MEMORY && w->dev_oom) { /* the device's memory, not a host allocation */
        worker_shed(w);
        double f, t;
        dev_mem_gib(&f, &t);
        const size_t l = strlen(w->err);
        if (c.err == w->err && l + 1 < sizeof w->err)
            snprintf(w->err + l, sizeof w->err - l, "; this worker's buffers released (%.1f of %.1f GiB free)", f, t);
    }
    return rc;
}

extern "C" int cuzk_gpu_prove_job(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_groth16_job *job,
                                  const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *timing)
{
    if (!w || !out || !job || !r || !s) return CUZK_ERR_INVALID_ARG;
    cuzk_groth16_prove_timing tdummy;
    cuzk_groth16_prove_timing *tm = timing ? timing : &tdummy;
    memset(tm, 0, sizeof *tm);
    ctx c;
    int rc = begin(w, &c);
    return rc ? rc : prove_job(w, c, out, job, r, s, tm);
}

extern "C" int cuzk_gpu_prove(cuzk_gpu_worker *w, cuzk_groth16_proof *out,
                              const cuzk_groth16_params *params, const cuzk_groth16_assignment *as,
                              const cuzk_fr *r, const cuzk_fr *s, size_t count,
                              cuzk_groth16_prove_timing *timing)
{
    if (!w || !params || (count && (!out || !as || !r || !s))) return CUZK_ERR_INVALID_ARG;
    cuzk_groth16_prove_timing tdummy;
    cuzk_groth16_prove_timing *tm = timing ? timing : &tdummy;
    memset(tm, 0, sizeof *tm);
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    for (size_t i = 0; i < count; i++) {
        cuzk_groth16_job j;
        if ((rc = cuzk_groth16_job_init(&j, params, &as[i])))
            return fail_msg(c, rc, "prove: assignment does not fit the parameters");
        if ((rc = prove_job(w, c, &out[i], &j, &r[i], &s[i], tm))) return rc;
    }
    return CUZK_OK;
}

/* ---- page-locked host memory (the CUDA half of cuzk_gpu_host_pin) --------- */

extern "C" int cuzk_gpu_host_register(void *ptr, size_t len, char *msg, size_t msg_len)
{
    /* portable: every device's context sees it as pinned, whichever uploads */
    cudaError_t e = cudaHostRegister(ptr, len, cudaHostRegisterPortable);
    if (e == cudaSuccess) return CUZK_OK;
    if (msg && msg_len)
        snprintf(msg, msg_len, "cudaHostRegister(%zu bytes): %s (%s)", len, cudaGetErrorString(e),
                 cudaGetErrorName(e));
    cudaGetLastError(); /* not sticky: clear it */
    return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? CUZK_ERR_NO_DEVICE : CUZK_ERR_DEVICE;
}

extern "C" void cuzk_gpu_host_unregister(void *ptr)
{
    if (cudaHostUnregister(ptr) != cudaSuccess) cudaGetLastError();
}

extern "C" int cuzk_gpu_host_is_registered(const void *ptr)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}
