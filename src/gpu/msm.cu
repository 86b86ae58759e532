/*
 * The device MSM's host side (msm/plan.cuh): the scalars' split, the window
 * width and the window batches' plan. Group-independent, so built once;
 * msm_g1.cu and msm_g2.cu run the group's launches (msm/run.cuh).
 */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuzk/gpu/gpu.h"
#include "cuzk/msm/msm.h"
#include "msm/classify.cuh"
#include "msm/plan.cuh"

namespace cuzk_gpu {

int msm_split(const ctx &c, msm_scratch *s, const fr_t *scalars, size_t n, bool mont, fr_t *work, fr_t **plain,
              size_t *m1, size_t *m)
{
    const unsigned T = 256;
    int rc;
    /* the scalars' plain form: over the caller's array when it may be
     * overwritten (work), else in the scratch (n 32-byte words less) */
    if ((!work && (rc = buf_reserve(c, &s->plain, n * sizeof(fr_t), "msm plain scalars"))) ||
        (rc = buf_reserve(c, &s->kv, n * 16, "msm class flags (the sort's arena)")) ||
        (rc = buf_reserve(c, &s->ones, n * 4, "msm ones")) ||
        (rc = buf_reserve(c, &s->gen, n * 4, "msm general")))
        return rc;
    *plain = work ? work : bp<fr_t>(s->plain);
    /* The class flags and their prefix sums (16 bytes a scalar) are dead
     * once the split's count is read, and the sort's keys and values are
     * not born before: both live in one arena (kv), so that on an 80 GB
     * card the 32 GiB H MSM fits two windows a batch. */
    unsigned long long *const flags = bp<unsigned long long>(s->kv), *const pos = flags + n;
    msm_classify<<<blocks_for(n, T), T, 0, c.st>>>(scalars, n, mont, *plain, flags);
    GPU_LAUNCHED(c, "msm_classify");
    size_t cub_bytes = 0;
    GPU_TRY(c, cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, flags, pos, n, c.st));
    if ((rc = buf_reserve(c, &s->cub, cub_bytes, "msm scan temp"))) return rc;
    GPU_TRY(c, cub::DeviceScan::InclusiveSum(s->cub.p, cub_bytes, flags, pos, n, c.st));
    trace_mark(c, "msm class scan");
    msm_scatter<<<blocks_for(n, T), T, 0, c.st>>>(flags, pos, n, bp<uint32_t>(s->ones), bp<uint32_t>(s->gen));
    GPU_LAUNCHED(c, "msm_scatter");
    unsigned long long tot;
    GPU_TRY(c, cudaMemcpyAsync(&tot, pos + n - 1, 8, cudaMemcpyDeviceToHost, c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    *m1 = (size_t)(tot & 0xffffffffu), *m = (size_t)(tot >> 32);
    return CUZK_OK;
}

/* The plan's width (cuzk_gpu_msm_window_bits: up to 22 bits from 2^25
 * scalars on; H200, 2^27 random: 867 ms at c = 20, 876 at 21, 836 at 22,
 * 864 at 23). Tests force narrow windows (long bucket runs, several
 * partial levels) through the hooks' msm_c. */
unsigned msm_window_bits(size_t m)
{
    unsigned cw = cuzk_gpu_msm_window_bits(m);
    const unsigned force = cuzk_gpu_hooks_now()->msm_c;
    if (force >= 2 && force <= 24) cw = force;
    return cw;
}

/* A level of chunks of L leaves 2 partials per L entries, so the
 * sequential additions are about L·log_{L/2}(M): small MSMs are
 * latency-bound and take short chunks. Benchmarks sweep it (the hooks'
 * msm_l). */
unsigned msm_chunk_len(size_t M)
{
    const unsigned force = cuzk_gpu_hooks_now()->msm_l;
    if (force >= 4 && force <= 4096) return force;
    return M >= MSM_LARGE ? MSM_CHUNK_LARGE : M >= MSM_SMALL ? MSM_CHUNK : MSM_CHUNK_SMALL;
}

/* Bucket segments a batch (threads of step 5a, shared by its windows):
 * 32,768 unless a benchmark sweeps it (the hooks' msm_segs, 64 to 2^20). */
static uint32_t msm_seg_threads()
{
    const uint32_t force = cuzk_gpu_hooks_now()->msm_segs;
    if (force >= 64 && force <= (1u << 20)) return force;
    return 32768;
}

/* shared: the batch sums into a chunked MSM's own buckets (msm_acc), which
 * also reduces them: no buckets, segments or window sums of its own. */
static msm_batch msm_batch_shape(size_t m, unsigned wb, uint32_t B, size_t xb, unsigned nwin, bool shared)
{
    msm_batch b;
    b.wb = wb, b.key_bits = 0;
    b.Mmax = (size_t)wb * m;
    b.nseg = (uint32_t)((msm_seg_threads() + wb - 1) / wb);
    if (b.nseg > B - 1) b.nseg = B - 1;
    b.S = (B - 1 + b.nseg - 1) / b.nseg;
    b.nseg = (B - 1 + b.S - 1) / b.S;
    b.L = msm_chunk_len(b.Mmax);
    b.np0 = 2 * ((b.Mmax + b.L - 1) / b.L);
    b.bucket_bytes = (size_t)wb * B * xb;
    b.part_bytes = b.np0 * xb;
    b.gseg = blocks_for(b.nseg, MSM_SEG_THREADS);
    b.seg_bytes = (size_t)wb * b.gseg * xb;
    b.win_bytes = (size_t)nwin * xb;
    if (shared) b.bucket_bytes = b.seg_bytes = b.win_bytes = 0;
    return b;
}

/* A batch's arrays in the scratch, their sizes and ledger names: one list
 * for what reserving them would add (msm_batch_growth) and for the
 * reservation itself (msm_batch_reserve). */
#define MSM_BATCH_ARRAYS 8
struct msm_batch_array {
    dbuf *d;
    size_t bytes;
    const char *what;
};
static void msm_batch_arrays(msm_scratch *s, const msm_batch &b, msm_batch_array a[MSM_BATCH_ARRAYS])
{
    const msm_batch_array l[MSM_BATCH_ARRAYS] = {
        {&s->kv, b.Mmax * 16, "msm keys"}, /* keys, values, sorted keys, sorted values */
        {&s->buckets, b.bucket_bytes, "msm buckets"},
        {&s->part_k[0], b.np0 * 4, "msm partial keys"},
        {&s->part_p[0], b.part_bytes, "msm partial sums"},
        {&s->part_k[1], b.np0 * 4, "msm partial keys"},
        {&s->part_p[1], b.part_bytes, "msm partial sums"},
        {&s->segs, b.seg_bytes, "msm segments"},
        {&s->wins, b.win_bytes, "msm windows"}};
    for (int i = 0; i < MSM_BATCH_ARRAYS; i++) a[i] = l[i];
}

/* What reserving a batch's arrays would add to the device memory in use:
 * each array grows by its shortfall (buf_reserve frees the old one first). */
static size_t msm_batch_growth(msm_scratch *s, const msm_batch &b)
{
    msm_batch_array a[MSM_BATCH_ARRAYS];
    msm_batch_arrays(s, b, a);
    size_t g = 0;
    for (const auto &e : a)
        if (e.bytes > e.d->cap) g += e.bytes - e.d->cap;
    return g;
}

/* Reserves a batch's arrays, in the list's order; the first failure's code. */
static int msm_batch_reserve(const ctx &c, msm_scratch *s, const msm_batch &b)
{
    msm_batch_array a[MSM_BATCH_ARRAYS];
    msm_batch_arrays(s, b, a);
    for (const auto &e : a) {
        const int rc = buf_reserve(c, e.d, e.bytes, e.what);
        if (rc) return rc;
    }
    return CUZK_OK;
}

#define MSM_FREE_MARGIN ((size_t)128 << 20) /* the sort's and scans' temporaries, allocation granularity */

/* Windows a batch before anything is allocated: as many as MSM_MAX_BATCH
 * sorted entries hold (the hooks' msm_batch: tests run many batches at
 * small sizes), narrowed by arithmetic, the batch's arrays' growth beyond
 * what the scratch holds against the device's free memory. Trying instead
 * would, on an 80 GB card, fail each prove's 2^27 H MSM at two windows a
 * batch and free and make a dozen arrays again: ≈ 20 cudaMalloc and
 * cudaFree a partition, some taking 0.12-0.29 s. So the arrays, once at
 * their largest, stay. */
static unsigned msm_batch_width(const ctx &c, msm_scratch *s, size_t m, uint32_t B, size_t xb, unsigned nwin)
{
    size_t max_batch = MSM_MAX_BATCH;
    const uint64_t mbe = cuzk_gpu_hooks_now()->msm_batch;
    if (mbe > 0) max_batch = (size_t)mbe;
    unsigned wb = (unsigned)(max_batch / m);
    if (wb < 1) wb = 1;
    if (wb > nwin) wb = nwin;
    msm_batch bt = msm_batch_shape(m, wb, B, xb, nwin, false);
    size_t freeb = 0;
    if (wb > 1 && device_free_bytes(c, &freeb)) {
        while (wb > 1 && msm_batch_growth(s, bt) + MSM_FREE_MARGIN > freeb)
            wb = (wb + 1) / 2, bt = msm_batch_shape(m, wb, B, xb, nwin, false);
    }
    return wb;
}

/* What is dead by now or made again on demand: the class flags and
 * positions, the scan's and sort's temporaries, the batch's own arrays at
 * another MSM's sizes. */
static void msm_batch_free(msm_scratch *s)
{
    dbuf *batch[] = {&s->kv, &s->buckets, &s->part_k[0], &s->part_p[0], &s->part_k[1], &s->part_p[1], &s->segs, &s->cub};
    for (dbuf *b : batch) buf_free(b);
}

/* The batch's arrays reserved at wb windows. A card short of memory after
 * all (the free figure is the driver's; its pages may be scattered) first
 * frees what msm_batch_free names, then, while that is not enough, takes
 * fewer windows a batch (the same sum), the arrays made again at that size. */
static int msm_batch_reserve_retrying(const ctx &c, msm_scratch *s, size_t m, uint32_t B, size_t xb, unsigned nwin,
                                      unsigned wb, msm_batch *bt)
{
    int rc;
    bool freed = false;
    for (;;) {
        *bt = msm_batch_shape(m, wb, B, xb, nwin, false);
        if ((rc = msm_batch_reserve(c, s, *bt)))
            if (rc == CUZK_ERR_NO_MEMORY && (wb > 1 || !freed)) {
                GPU_TRY(c, cudaStreamSynchronize(c.st));
                msm_batch_free(s);
                if (freed) wb = (wb + 1) / 2;
                freed = true;
                continue;
            }
        break;
    }
    if (rc) return rc;
    if (freed && c.err) c.err[0] = 0; /* a retry that found room: no error to report */
    return CUZK_OK;
}

/* The sort's key bits for wb windows of B buckets, and its temporary
 * storage for Mmax entries (grown when short: a few MB). */
static int msm_batch_sort_room(const ctx &c, msm_scratch *s, uint32_t B, msm_batch *bt)
{
    unsigned key_bits = 1;
    while (((uint64_t)1 << key_bits) < (uint64_t)bt->wb * B) key_bits++;
    bt->key_bits = key_bits;
    /* the sort ping-pongs between the two pairs of arrays (CUB's
     * DoubleBuffer): its temporary storage is then a few MB instead of
     * another copy of the pairs (2 GiB at 2^28 entries) */
    uint32_t *const keys = bp<uint32_t>(s->kv);
    const size_t Mmax = bt->Mmax;
    size_t sort_bytes = 0;
    cub::DoubleBuffer<uint32_t> dk(keys, keys + 2 * Mmax), dv(keys + Mmax, keys + 3 * Mmax);
    GPU_TRY(c, cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, dk, dv, Mmax, 0, key_bits, c.st));
    return buf_reserve(c, &s->cub, sort_bytes, "msm sort temp");
}

int msm_batch_plan(const ctx &c, msm_scratch *s, size_t m, uint32_t B, size_t xb, unsigned nwin, msm_batch *bt)
{
    const unsigned wb = msm_batch_width(c, s, m, B, xb, nwin);
    int rc = msm_batch_reserve_retrying(c, s, m, B, xb, nwin, wb, bt);
    return rc ? rc : msm_batch_sort_room(c, s, B, bt);
}

int msm_batch_in_room(const ctx &c, msm_scratch *s, size_t m, uint32_t B, size_t xb, unsigned nwin, msm_batch *bt)
{
    /* a G2 entry's partials take twice a G1 entry's bytes */
    size_t room = s->entries * sizeof(xyzz_t<fp_t>) / xb;
    const uint64_t mbe = cuzk_gpu_hooks_now()->msm_batch;
    if (mbe > 0 && mbe < room) room = (size_t)mbe;
    unsigned wb = m ? (unsigned)(room / m < nwin ? room / m : nwin) : nwin;
    if (wb < 1) wb = 1;
    *bt = msm_batch_shape(m, wb, B, xb, nwin, true);
    /* longer level-0 runs until the partials fit their arrays */
    while (bt->np0 * xb > s->part_p[0].cap && bt->L < MSM_CHUNK_LARGE) {
        bt->L = bt->L < MSM_CHUNK ? MSM_CHUNK : MSM_CHUNK_LARGE;
        bt->np0 = 2 * ((bt->Mmax + bt->L - 1) / bt->L);
        bt->part_bytes = bt->np0 * xb;
    }
    if (bt->Mmax * 16 > s->kv.cap || bt->np0 * xb > s->part_p[0].cap || bt->np0 * 4 > s->part_k[0].cap)
        return fail_msg(c, CUZK_ERR_INTERNAL, "msm: a chunk's window batch exceeds the planned room");
    return msm_batch_sort_room(c, s, B, bt);
}

int msm_count_general(const ctx &c, msm_scratch *s, const fr_t *scalars, size_t n, bool mont, size_t *m)
{
    const unsigned T = 256;
    int rc = buf_reserve(c, &s->count, 8, "msm general count");
    if (rc) return rc;
    unsigned long long *const cnt = bp<unsigned long long>(s->count), tot = 0;
    GPU_TRY(c, cudaMemsetAsync(cnt, 0, 8, c.st));
    if (n) msm_count_gen<<<blocks_for(n, T), T, 0, c.st>>>(scalars, n, mont, cnt);
    GPU_LAUNCHED(c, "msm_count_gen");
    GPU_TRY(c, cudaMemcpyAsync(&tot, cnt, 8, cudaMemcpyDeviceToHost, c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    *m = (size_t)tot;
    return CUZK_OK;
}

int msm_chunked_reserve(const ctx &c, msm_scratch *s, size_t entries, size_t room)
{
    typedef xyzz_t<fp_t> X1;
    typedef xyzz_t<fp2_t> X2;
    /* two partials a level-0 chunk of MSM_CHUNK entries, and 4 for the
     * rounding of G2's batches (half the entries, twice the bytes) */
    const size_t np0 = 2 * ((entries + MSM_CHUNK - 1) / MSM_CHUNK) + 4;
    int rc;
    if ((rc = buf_reserve(c, &s->kv, entries * 16, "msm keys")) ||
        (rc = buf_reserve(c, &s->part_k[0], np0 * 4, "msm partial keys")) ||
        (rc = buf_reserve(c, &s->part_k[1], np0 * 4, "msm partial keys")) ||
        (rc = buf_reserve(c, &s->part_p[0], np0 * sizeof(X1), "msm partial sums")) ||
        (rc = buf_reserve(c, &s->part_p[1], np0 * sizeof(X1), "msm partial sums")) ||
        (rc = buf_reserve(c, &s->acc_room, room, "msm chunked buckets")) ||
        (rc = buf_reserve(c, &s->acc_sums, MSM_ACC_MAX * sizeof(X2), "msm chunked ones")))
        return rc;
    s->entries = entries;
    return CUZK_OK;
}

/* The width for all m general scalars, at most the plan's a->cap; the
 * buckets cleared where the plan put them; the ones' sum set to infinity. */
int msm_acc_plan(const ctx &c, const msm_scratch *s, msm_acc *a, size_t m, size_t xb)
{
    unsigned cw = msm_window_bits(m ? m : 1); /* none general: the buckets stay unread */
    if (a->cap && cw > a->cap) cw = a->cap;
    a->cw = cw;
    a->nwin = (255 + 1 + cw - 1) / cw;
    a->B = (1u << (cw - 1)) + 1;
    const size_t bytes = (size_t)a->nwin * a->B * xb;
    if (a->off + bytes > s->acc_room.cap || (size_t)(a - s->acc) >= MSM_ACC_MAX)
        return fail_msg(c, CUZK_ERR_INTERNAL, "msm: a chunked MSM's buckets exceed the planned room");
    GPU_TRY(c, cudaMemsetAsync((char *)s->acc_room.p + a->off, 0, bytes, c.st));
    GPU_TRY(c, cudaMemsetAsync(msm_acc_sum(s, a, xb), 0, xb, c.st));
    a->gen = a->ones = false;
    return CUZK_OK;
}

/* Step 5's shape over all windows of a chunked MSM, its arrays reserved. */
int msm_acc_reduce_plan(const ctx &c, msm_scratch *s, const msm_acc *a, size_t xb, msm_batch *bt)
{
    *bt = msm_batch_shape(0, a->nwin, a->B, xb, a->nwin, false);
    int rc = buf_reserve(c, &s->segs, bt->seg_bytes, "msm segments");
    return rc ? rc : buf_reserve(c, &s->wins, bt->win_bytes, "msm windows");
}

} // namespace cuzk_gpu
