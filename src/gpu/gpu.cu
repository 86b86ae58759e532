/*
 * GPU devices, workers and the Groth16 prover (C ABI of include/cuzk/gpu/gpu.h).
 * Ownership and locking rule: docs/gpu.md.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/util/clock.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/util/mem.h"
#include "cuzk/poly/ntt.h"
#include "cuzk/util/parallel.h"
#include "cuzk/pce/pce.h"
#include "device.cuh"
#include "gpu_internal.cuh"

using namespace cuzk_gpu;

/* Each card's budget and what this process holds of it. The budget is the
 * driver's free memory when the card was first opened (the CUDA context
 * made: other processes' use excluded), capped by the device's memory
 * limit; every allocation here (buf_reserve, srs_copy) takes its bytes
 * from it first, so a cap holds on a larger card as a smaller card's
 * driver would. Device objects on one ordinal share the card's entry. */
static card_ledger ledger[LEDGER_CARDS];
static pthread_mutex_t ledger_mu = PTHREAD_MUTEX_INITIALIZER;

card_ledger *ledger_of(int ordinal)
{
    return ordinal >= 0 && ordinal < LEDGER_CARDS ? &ledger[ordinal] : NULL;
}

/* bytes taken from the card's budget; false (nothing taken) when over it */
bool ledger_take(int ordinal, size_t bytes)
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

void ledger_give(int ordinal, size_t bytes)
{
    if (card_ledger *l = ledger_of(ordinal)) l->used.fetch_sub(bytes);
}

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
bool dev_mem_gib(double *free_gib, double *total_gib)
{
    size_t f = 0, t = 0;
    const bool ok = cudaMemGetInfo(&f, &t) == cudaSuccess;
    if (!ok) cudaGetLastError();
    *free_gib = f / 1073741824.0, *total_gib = t / 1073741824.0;
    return ok;
}

/* "cudaMalloc(what, n bytes)" failed as the driver's out of memory does,
 * with the budget it would have passed */
int over_budget(const ctx &c, const char *what, size_t bytes)
{
    card_ledger *l = ledger_of(c.ordinal);
    char msg[224];
    snprintf(msg, sizeof msg, "cudaMalloc(%s, %zu bytes): over the device's memory budget (%.2f of %.2f GiB held)",
             what, bytes, l->used.load() / 1073741824.0, l->budget / 1073741824.0);
    return fail(c, cudaErrorMemoryAllocation, msg);
}

bool device_free_bytes(const ctx &c, size_t *freeb)
{
    if (const uint64_t fake = cuzk_gpu_hooks_now()->msm_free) {
        *freeb = (size_t)fake;
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

/* With CUZK_GPU_TRACE_ALLOC every device allocation is listed on stderr
 * with the device's free memory after it: the ledger of what a card must
 * hold. */
void alloc_note(const ctx &c, const char *what, size_t bytes)
{
    if (!(cuzk_gpu_trace_flags() & CUZK_GPU_TRACE_ALLOC)) return;
    double f, t;
    dev_mem_gib(&f, &t);
    fprintf(stderr, "gpu alloc, device %d: %-28s %14zu bytes, %.2f of %.2f GiB free\n", c.ordinal, what, bytes, f, t);
}

int buf_reserve(const ctx &c, dbuf *b, size_t bytes, const char *what)
{
    /* tests: a reservation whose name contains the hooks' fail_alloc fails
     * as the driver's out of memory does, whether or not it would allocate */
    const char *inject = cuzk_gpu_hooks_now()->fail_alloc;
    if (*inject && strstr(what, inject)) {
        char msg[160];
        snprintf(msg, sizeof msg, "cudaMalloc(%s, %zu bytes) [test hook fail_alloc]", what, bytes);
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
    dbuf *all[] = {&s->plain,     &s->kv,        &s->ones,      &s->gen,       &s->cub,  &s->buckets, &s->part_k[0],
                   &s->part_k[1], &s->part_p[0], &s->part_p[1], &s->segs,      &s->wins, &s->onesp,   &s->count,
                   &s->acc_room,  &s->acc_sums};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) buf_free(all[i]);
    s->entries = 0;
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
    /* the hooks' stage_threads (4; 0: the driver's own pageable copies) and
     * stage_kib (32768 per slot) shape the staging */
    const cuzk_gpu_test_hooks *hk = cuzk_gpu_hooks_now();
    const unsigned nt = hk->stage_threads, kib = hk->stage_kib;
    w->stage.threads = nt > 64 ? 64 : nt;
    w->stage.bytes = (size_t)(kib < 1 ? 32768 : kib > (1u << 20) ? (1u << 20) : kib) * 1024; /* 1 KiB to 1 GiB */
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
int h2d(cuzk_gpu_worker *w, const ctx &c, void *dst, const void *src, size_t bytes)
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
void worker_shed(cuzk_gpu_worker *w)
{
    cudaStreamSynchronize(w->st);
    if (w->cst) cudaStreamSynchronize(w->cst);
    buf_free(&w->abc), buf_free(&w->aux), buf_free(&w->sa), buf_free(&w->sb), buf_free(&w->tmp);
    buf_free(&w->wpk), buf_free(&w->lchunk);
    for (cuzk_gpu::dbuf &b : w->chunk) buf_free(&b);
}

extern "C" void cuzk_gpu_worker_destroy(cuzk_gpu_worker *w)
{
    if (!w) return;
    cudaSetDevice(w->dev->ordinal);
    worker_shed(w);
    fixed_base_bufs_free(&w->fb);
    stage_free(&w->stage);
    if (w->cst) {
        for (int i = 0; i < FEED_BUFS; i++)
            cudaEventDestroy(w->ev_start[i]), cudaEventDestroy(w->ev_done[i]), cudaEventDestroy(w->ev_free[i]);
        for (int i = 0; i < FEED_TIMERS; i++) cudaEventDestroy(w->ev_t0[i]), cudaEventDestroy(w->ev_t1[i]);
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
    if (!w) return 0;
    uint64_t b = (uint64_t)w->abc.cap + w->aux.cap + w->sa.cap + w->sb.cap + w->tmp.cap + w->wpk.cap + w->lchunk.cap;
    for (const cuzk_gpu::dbuf &k : w->chunk) b += k.cap;
    return b;
}

/* Selects the worker's device in the calling thread; refuses failed devices. */
int begin(cuzk_gpu_worker *w, ctx *c)
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
static inline bool trace_on() { return cuzk_gpu_trace_flags() & CUZK_GPU_TRACE_KERNELS; }
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
    if (!trace_on()) return;
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
    if (!trace_on() || !tr || tr->n < 0 || tr->n >= TRACE_MAX) return;
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
    if (!trace_on() || !tr || tr->n < 0) return;
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
double region_lock(cuzk_gpu_worker *w)
{
    const double t = cuzk_now();
    pthread_mutex_lock(&w->dev->lock);
    w->region_s = cuzk_now();
    trace_region_start(w->st, w->dev->ordinal);
    return w->region_s - t; /* the wait */
}
int region_unlock(cuzk_gpu_worker *w, const ctx &c, int rc)
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
