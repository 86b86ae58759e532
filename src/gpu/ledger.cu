/*
 * The cards' device-memory ledger (card_ledger, device.cuh) and the growable
 * device buffers (dbuf) charged to it. Every cudaMalloc of the layer first
 * takes its bytes from its card's budget (ledger_take: buf_reserve here,
 * srs_copy in resident.cu) and gives them back when freed, so a memory limit
 * holds on a larger card as a smaller card's driver would; the plan
 * (resident.cu), the MSM's window batches (device_free_bytes) and the status
 * (cuzk_gpu_device_budget) read the same counters. Device objects open and
 * close a card's entry through ledger_open and ledger_close, so its lock,
 * ledger_mu, stays in this file.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/gpu/gpu.h"
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

void ledger_open(int ordinal)
{
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
}

void ledger_close(int ordinal)
{
    if (card_ledger *l = ledger_of(ordinal)) {
        pthread_mutex_lock(&ledger_mu);
        if (l->opens && !--l->opens) l->limit = 0; /* the next first open measures and caps afresh */
        pthread_mutex_unlock(&ledger_mu);
    }
}

} // namespace cuzk_gpu

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

namespace cuzk_gpu {

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
