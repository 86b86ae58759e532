/*
 * Workers: one cuzk_gpu_worker per proving thread, with its own stream, its
 * own buffers and its pinned staging for uploads (h2d), so that uploads and
 * host work of several workers overlap on one card. A call's context (begin)
 * selects the worker's device and routes CUDA errors into the worker's
 * message (fail); the device's shared scratch is touched only inside a
 * kernel region (region_lock .. region_unlock), which holds the device lock
 * and drains the worker's stream before it lets go.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/clock.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/util/parallel.h"
#include "device.cuh"
#include "gpu_internal.cuh"

using namespace cuzk_gpu;

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

} // namespace cuzk_gpu

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
