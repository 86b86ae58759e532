/*
 * Pippenger MSM on the device, one template over the group (G1: fp_t
 * coordinates, G2: fp2_t). Steps, all on the caller's stream:
 *   1. classify: scalars leave Montgomery form (unless given plain); 0 is dropped, 1 goes to the
 *      "ones" list (summed by plain mixed additions), the rest ("general",
 *      m of them) to the bucket method. One 64-bit inclusive scan gives both
 *      lists' positions (deterministic order).
 *   2. digits: signed Booth digits of c bits, as the CPU (msm.h): a window's
 *      digit is its c bits plus the top bit of the window below, minus 2^c
 *      times its own top bit; key = window·B + |digit| (B = 2^(c-1) + 1
 *      buckets per window), value = point index | sign << 31.
 *   3. sort the (key, value) pairs by key (CUB radix sort on the key bits,
 *      ping-ponging between the two pairs of arrays: no temporary copy).
 *   4. accumulate: the sorted array is cut into equal chunks of L entries,
 *      one thread each (load balanced whatever the bucket sizes: a skewed
 *      bucket spreads over many chunks). A run of one key that lies inside
 *      a chunk is written to its bucket directly; the runs touching the
 *      chunk's ends become (key, partial XYZZ sum) pairs, still sorted by key,
 *      and the same kernel reduces them again until one chunk is left.
 *      Each bucket is written exactly once, by one thread, so no atomics.
 *   5. bucket reduction, parallel: each window's buckets are cut into
 *      segments; a thread computes its segment's running sum R and total T,
 *      then R + (lo - 1)·T; a block per window sums the segments.
 *   6. the host joins the windows by Horner's rule and adds the ones' sum.
 * Windows are processed in batches so that a batch's sort fits a fixed
 * number of entries (memory stays bounded for any n), fewer windows a batch
 * when the card is short of memory. The scalars' plain form goes over the
 * caller's array when it may be overwritten (work), else into the scratch.
 */
#ifndef CUZK_GPU_MSM_CUH
#define CUZK_GPU_MSM_CUH

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "ec.cuh"
#include "gpu_internal.cuh"

namespace cuzk_gpu {

#define MSM_SKIP 0xffffffffu  /* value of a zero digit: nothing to add */
#define MSM_CHUNK 32u          /* sorted entries per accumulating thread */
#define MSM_CHUNK_SMALL 8u     /* the same below MSM_SMALL entries: depth, not throughput */
#define MSM_SMALL (1ull << 22)
/* From 2^26 sorted entries on, chunks of 256: still >= 2^18 threads, and a
 * 128th of the partial sums (H200, 2^26 points: 458.6 -> 441.8 ms). */
#define MSM_CHUNK_LARGE 256u
#define MSM_LARGE (1ull << 26)
#define MSM_MAX_BATCH (1ull << 28) /* sorted entries per window batch */
#define MSM_SUM_THREADS 128

/* 1. plain scalar and its class flag: 1 << 32 for general, 1 for one. */
static __global__ void msm_classify(const fr_t *sc, size_t n, bool mont, fr_t *plain, /* may be sc */
                                    unsigned long long *__restrict__ flags)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t s;
    if (mont)
        f_from_mont(s, sc[i]);
    else
        s = sc[i];
    uint32_t hi = 0;
#pragma unroll
    for (int k = 1; k < 8; k++) hi |= s.l[k];
    unsigned long long f;
    if (hi == 0 && s.l[0] <= 1)
        f = s.l[0]; /* 0 -> nothing, 1 -> ones */
    else
        f = 1ull << 32;
    plain[i] = s;
    flags[i] = f;
}

static __global__ void msm_scatter(const unsigned long long *__restrict__ flags,
                            const unsigned long long *__restrict__ incl, size_t n,
                            uint32_t *__restrict__ ones, uint32_t *__restrict__ gen)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long f = flags[i], p = incl[i] - f;
    if (f & 1) ones[(uint32_t)p] = (uint32_t)i;
    if (f >> 32) gen[p >> 32] = (uint32_t)i;
}

/* Word i of s, 0 outside [0, 8): a select over the unrolled limbs, which
 * keeps s in registers whatever i is. */
static __device__ __forceinline__ uint32_t fr_word(const fr_t &s, int i)
{
    uint32_t r = 0;
#pragma unroll
    for (int k = 0; k < 8; k++) r = i == k ? s.l[k] : r;
    return r;
}

/* 2. digits of windows [w0, w0 + nw) for the m general scalars. */
static __global__ void msm_digits(const fr_t *__restrict__ plain, const uint32_t *__restrict__ gen,
                           size_t m, unsigned c, unsigned w0, unsigned nw, uint32_t B,
                           uint32_t *__restrict__ keys, uint32_t *__restrict__ vals)
{
    size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= m) return;
    const uint32_t idx = gen[q];
    const fr_t s = plain[idx];
    for (unsigned k = 0; k < nw; k++) {
        const unsigned w = w0 + k;
        /* bits [w·c - 1, w·c + c) of s (bit -1 and bits past 255 are zero)
         * in bits 0..c of win: bit 0 is the borrow bit, bits 1..c the
         * window. c + 1 <= 25 bits from a shift of <= 31 lie in two words,
         * so one funnel of words wi and wi + 1 (wi = -1 for window 0)
         * instead of a loop over the bits. */
        const int lo = (int)(w * c) - 1;
        const int wi = lo < 0 ? -1 : lo >> 5;
        const unsigned sh = (unsigned)(lo + 32) & 31u;
        const uint64_t two = (uint64_t)fr_word(s, wi) | (uint64_t)fr_word(s, wi + 1) << 32;
        const uint32_t win = (uint32_t)(two >> sh) & ((1u << (c + 1)) - 1u);
        const uint32_t top = (win >> c) & 1u;
        const int32_t d = (int32_t)(win >> 1) + (int32_t)(win & 1u) - (int32_t)(top << c);
        const uint32_t mag = d < 0 ? (uint32_t)(-d) : (uint32_t)d;
        const size_t e = (size_t)k * m + q;
        keys[e] = k * B + mag;
        vals[e] = mag == 0 ? MSM_SKIP : (idx | (d < 0 ? 0x80000000u : 0u));
    }
}

template <class F> __device__ __forceinline__ void load_signed(affine_t<F> &p, const affine_t<F> *bases, uint32_t v)
{
    load16(p, bases + (v & 0x7fffffffu));
    if (v >> 31) f_neg(p.y, p.y); /* -(0,0) stays (0,0): 0 - 0 = 0 */
}

/* 4. One level of the chunked segmented reduction. Level 0 reads signed
 * indices into bases; later levels read the previous level's partials. */
template <class F, bool LEVEL0>
__device__ __forceinline__ void
msm_accumulate_body(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                    const xyzz_t<F> *__restrict__ pin, const affine_t<F> *__restrict__ bases, size_t M, unsigned L,
                    bool final_level, xyzz_t<F> *__restrict__ buckets, uint32_t *__restrict__ pk,
                    xyzz_t<F> *__restrict__ pp)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t start = t * L;
    if (start >= M) return;
    const size_t end = start + L < M ? start + L : M;
    uint32_t key = keys[start];
    bool first = true;
    xyzz_t<F> acc;
    xyzz_set_inf(acc);
    /* The first run is stored as soon as it ends. An earlier version kept it
     * in a second local until the end of the chunk and got wrong first-run
     * sums on the H200 (nvcc 13.0, sm_90; cause not established). */
    for (size_t e = start; e < end; e++) {
        const uint32_t k = keys[e];
        if (k != key) {
            if (first && !final_level) {
                pk[2 * t] = key; /* may continue in the previous chunk */
                pp[2 * t] = acc;
            } else {
                buckets[key] = acc; /* complete: strictly inside, or the final level */
            }
            first = false;
            key = k;
            xyzz_set_inf(acc);
        }
        if (LEVEL0) {
            const uint32_t v = vals ? vals[e] : (uint32_t)e; /* none: bases[e], in order */
            if (v != MSM_SKIP) {
                affine_t<F> p;
                load_signed(p, bases, v);
                hot_add_aff(acc, p);
            }
        } else {
            xyzz_t<F> q;
            load16(q, pin + e);
            hot_add(acc, q);
        }
    }
    if (final_level) {
        buckets[key] = acc;
        return;
    }
    /* two partials per chunk, keys non-decreasing across chunks */
    if (first) {
        pk[2 * t] = key, pp[2 * t] = acc;
        pk[2 * t + 1] = key, xyzz_set_inf(pp[2 * t + 1]);
    } else {
        pk[2 * t + 1] = key, pp[2 * t + 1] = acc;
    }
}

template <class F, bool LEVEL0>
__global__ void msm_accumulate(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                               const xyzz_t<F> *__restrict__ pin, const affine_t<F> *__restrict__ bases,
                               size_t M, unsigned L, bool final_level, xyzz_t<F> *__restrict__ buckets,
                               uint32_t *__restrict__ pk, xyzz_t<F> *__restrict__ pp)
{
    msm_accumulate_body<F, LEVEL0>(keys, vals, pin, bases, M, L, final_level, buckets, pk, pp);
}
/* Level 0 with its registers held to MINB blocks of 64 per SM, for the
 * fields that name a MINB (level0_minb). G2's level 0 takes 255 registers
 * unbounded, 8 warps per SM; held to 6 blocks it has 168 and 12 warps and
 * ran 4.8 % faster at 2^24 (5 and 6 alike; 7 and 8, at 16 warps, thrash the
 * instruction cache). G1 stays unbounded: with
 * __launch_bounds__(64, 1) ptxas gives it 192 registers instead of 168, and
 * held tighter it loses to instruction fetch as well. */
template <class F> struct level0_minb {
    static constexpr int value = 0;
};
template <> struct level0_minb<fp2_t> {
    static constexpr int value = 6;
};
template <class F, int MINB>
__global__ void __launch_bounds__(64, MINB)
    msm_accumulate_mb(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                      const xyzz_t<F> *__restrict__ pin, const affine_t<F> *__restrict__ bases, size_t M,
                      unsigned L, bool final_level, xyzz_t<F> *__restrict__ buckets, uint32_t *__restrict__ pk,
                      xyzz_t<F> *__restrict__ pp)
{
    msm_accumulate_body<F, true>(keys, vals, pin, bases, M, L, final_level, buckets, pk, pp);
}

/* Block-level tree sum of shared-memory points (blockDim.x a power of two). */
template <class F> __device__ void block_sum(xyzz_t<F> *sm, xyzz_t<F> acc, xyzz_t<F> *out)
{
    sm[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            xyzz_t<F> o = sm[threadIdx.x + h], a = sm[threadIdx.x];
            xyzz_add(a, a, o);
            sm[threadIdx.x] = a;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = sm[0];
}

/* 5a. Segment sums, Q = sum_{j in seg} j·bucket[w][j], summed again over
 * each block's MSM_SEG_THREADS segments: one partial a block, the blocks of
 * window w in row w of the grid (blockIdx.y). Before, every segment wrote
 * its own sum and one block a window added them up: 32,768 sums at one
 * window a batch, ≈ 2.7 ms a launch. */
#define MSM_SEG_THREADS 64
template <class F>
__global__ void msm_bucket_segments(const xyzz_t<F> *__restrict__ buckets, uint32_t B, uint32_t S, uint32_t nseg,
                                    xyzz_t<F> *__restrict__ Q)
{
    extern __shared__ __align__(16) unsigned char smraw[];
    const uint32_t w = blockIdx.y, seg = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t lo = 1 + seg * S;
    uint32_t hi = lo + S - 1;
    if (hi > B - 1) hi = B - 1;
    xyzz_t<F> R, T;
    xyzz_set_inf(R), xyzz_set_inf(T);
    if (seg < nseg && lo <= hi) {
        for (uint32_t j = hi + 1; j-- > lo;) {
            xyzz_add(T, T, buckets[(size_t)w * B + j]);
            xyzz_add(R, R, T);
        }
        /* R = sum (j - lo + 1)·b_j; add (lo - 1)·T */
        if (lo > 1) {
            xyzz_t<F> X;
            xyzz_mul_small(X, T, lo - 1);
            xyzz_add(R, R, X);
        }
    }
    block_sum((xyzz_t<F> *)smraw, R, &Q[(size_t)w * gridDim.x + blockIdx.x]);
}

/* 5b. out[g] = sum of in[g·len .. g·len + len), one block per group. */
template <class F>
__global__ void msm_sum_groups(const xyzz_t<F> *__restrict__ in, size_t len, xyzz_t<F> *__restrict__ out)
{
    extern __shared__ __align__(16) unsigned char smraw[];
    xyzz_t<F> *sm = (xyzz_t<F> *)smraw;
    const xyzz_t<F> *g = in + (size_t)blockIdx.x * len;
    xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (size_t i = threadIdx.x; i < len; i += blockDim.x) xyzz_add(acc, acc, g[i]);
    block_sum(sm, acc, &out[blockIdx.x]);
}

/* Sum of bases[idx[i]] (idx NULL: bases[i]), i < m1: one partial per block. */
template <class F>
__global__ void msm_sum_ones(const affine_t<F> *__restrict__ bases, const uint32_t *__restrict__ idx,
                             size_t m1, xyzz_t<F> *__restrict__ out)
{
    extern __shared__ __align__(16) unsigned char smraw[];
    xyzz_t<F> *sm = (xyzz_t<F> *)smraw;
    xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < m1;
         i += (size_t)gridDim.x * blockDim.x)
        xyzz_add_aff(acc, acc, bases[idx ? idx[i] : i]);
    block_sum(sm, acc, &out[blockIdx.x]);
}

static inline unsigned blocks_for(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

/* Host-side group operations for the final Horner step. */
template <class HX, class HJ> struct host_ops {
    void (*dbl)(HX *, const HX *);
    void (*add)(HX *, const HX *, const HX *);
    void (*set_inf)(HX *);
    void (*to_jac)(HJ *, const HX *);
};

/* Accumulation chunk length for M sorted entries. A level of chunks of L
 * leaves 2 partials per L entries, so the sequential additions are about
 * L·log_{L/2}(M): small MSMs are latency-bound and take short chunks.
 * Benchmarks sweep it (the hooks' msm_l). */
static inline unsigned msm_chunk_len(size_t M)
{
    const unsigned force = cuzk_gpu_hooks_now()->msm_l;
    if (force >= 4 && force <= 4096) return force;
    return M >= MSM_LARGE ? MSM_CHUNK_LARGE : M >= MSM_SMALL ? MSM_CHUNK : MSM_CHUNK_SMALL;
}

/* Bucket segments a batch (threads of step 5a, shared by its windows):
 * 32,768 unless a benchmark sweeps it (the hooks' msm_segs, 64 to 2^20). */
static inline uint32_t msm_seg_threads()
{
    const uint32_t force = cuzk_gpu_hooks_now()->msm_segs;
    if (force >= 64 && force <= (1u << 20)) return force;
    return 32768;
}

/* One window batch's shape (step 3) and its arrays' bytes, for wb windows
 * of B buckets over m general scalars; xb: the bytes of one XYZZ point. */
struct msm_batch {
    size_t Mmax, np0, bucket_bytes, part_bytes, seg_bytes, win_bytes;
    uint32_t nseg, S; /* bucket segments of S buckets: enough threads to fill the chip */
    unsigned gseg;    /* blocks of MSM_SEG_THREADS segments a window: one sum each */
    unsigned L;       /* level 0's chunk length */
};
static inline msm_batch msm_batch_shape(size_t m, unsigned wb, uint32_t B, size_t xb, unsigned nwin)
{
    msm_batch b;
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
static inline void msm_batch_arrays(msm_scratch *s, const msm_batch &b, msm_batch_array a[MSM_BATCH_ARRAYS])
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
static inline size_t msm_batch_growth(msm_scratch *s, const msm_batch &b)
{
    msm_batch_array a[MSM_BATCH_ARRAYS];
    msm_batch_arrays(s, b, a);
    size_t g = 0;
    for (const auto &e : a)
        if (e.bytes > e.d->cap) g += e.bytes - e.d->cap;
    return g;
}

/* Reserves a batch's arrays, in the list's order; the first failure's code. */
static inline int msm_batch_reserve(const ctx &c, msm_scratch *s, const msm_batch &b)
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

template <class F, class HX, class HJ>
int msm_run(const ctx &c, msm_scratch *s, HJ *out, const affine_t<F> *bases, const fr_t *scalars,
            size_t n, bool mont, fr_t *work, const host_ops<HX, HJ> &ops)
{
    typedef xyzz_t<F> X;
    static_assert(sizeof(X) == sizeof(HX), "device and host XYZZ layouts differ");
    HX total;
    ops.set_inf(&total);
    if (n == 0) {
        ops.to_jac(out, &total);
        return CUZK_OK;
    }
    if (n >= 0x80000000ull) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: n >= 2^31");
    const unsigned T = 256;
    int rc;
    /* 1. classify and split */
    /* the scalars' plain form: over the caller's array when it may be
     * overwritten (work), else in the scratch (n 32-byte words less) */
    if ((!work && (rc = buf_reserve(c, &s->plain, n * sizeof(fr_t), "msm plain scalars"))) ||
        (rc = buf_reserve(c, &s->kv, n * 16, "msm class flags (the sort's arena)")) ||
        (rc = buf_reserve(c, &s->ones, n * 4, "msm ones")) ||
        (rc = buf_reserve(c, &s->gen, n * 4, "msm general")))
        return rc;
    fr_t *plain = work ? work : bp<fr_t>(s->plain);
    /* The class flags and their prefix sums (16 bytes a scalar) are dead
     * once the split's count is read, and the sort's keys and values are
     * not born before: both live in one arena (kv), so that on an 80 GB
     * card the 32 GiB H MSM fits two windows a batch. */
    unsigned long long *const flags = bp<unsigned long long>(s->kv), *const pos = flags + n;
    msm_classify<<<blocks_for(n, T), T, 0, c.st>>>(scalars, n, mont, plain, flags);
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
    const size_t m1 = (size_t)(tot & 0xffffffffu), m = (size_t)(tot >> 32);

    const X *ones_sum = nullptr;         /* on the device, when there are ones */
    unsigned nwin = 0, cw = 0;           /* the general scalars' windows of cw bits */
    /* ones: partial per block, then one block */
    if (m1) {
        const uint32_t *vin = bp<uint32_t>(s->ones);
        const affine_t<F> *pts = bases;
        size_t cnt = m1;
        unsigned nb = blocks_for(cnt, MSM_SUM_THREADS);
        if (nb > 1024) nb = 1024;
        if ((rc = buf_reserve(c, &s->onesp, (nb + 1) * sizeof(X), "msm ones partials"))) return rc;
        const size_t sm = MSM_SUM_THREADS * sizeof(X);
        msm_sum_ones<F><<<nb, MSM_SUM_THREADS, sm, c.st>>>(pts, vin, cnt, bp<X>(s->onesp));
        GPU_LAUNCHED(c, "msm_sum_ones");
        msm_sum_groups<F><<<1, MSM_SUM_THREADS, sm, c.st>>>(bp<X>(s->onesp), nb,
                                                            bp<X>(s->onesp) + nb);
        GPU_LAUNCHED(c, "msm_sum_groups(ones)");
        ones_sum = bp<X>(s->onesp) + nb; /* read back with the windows: one wait */
    }

    if (m) {
        /* the CPU's cost model with windows up to 22 bits (the CPU stops at
         * 20 for its bucket memory): from ~2^26 general scalars on, 12
         * windows instead of 13 (H200, 2^27 random: 867 ms at c = 20,
         * 876 at 21, 836 at 22, 864 at 23) */
        cw = cuzk_msm_window_bits(m, 255, NULL);
        for (unsigned wbits = cw + 1; wbits <= 22 && m >= ((size_t)1 << 25); wbits++) {
            const uint64_t nw0 = (256 + cw - 1) / cw, nw1 = (256 + wbits - 1) / wbits;
            if (nw1 * ((uint64_t)m + (1ull << wbits)) < nw0 * ((uint64_t)m + (1ull << cw))) cw = wbits;
        }
        /* tests force narrow windows (long bucket runs, several partial levels) */
        const unsigned force = cuzk_gpu_hooks_now()->msm_c;
        if (force >= 2 && force <= 24) cw = force;
        nwin = (255 + 1 + cw - 1) / cw;
        const uint32_t B = (1u << (cw - 1)) + 1;
        size_t max_batch = MSM_MAX_BATCH;
        const uint64_t mbe = cuzk_gpu_hooks_now()->msm_batch; /* tests: many window batches at small sizes */
        if (mbe > 0) max_batch = (size_t)mbe;
        unsigned wb = (unsigned)(max_batch / m);
        if (wb < 1) wb = 1;
        if (wb > nwin) wb = nwin;
        /* Narrowed first by arithmetic: the batch's arrays' growth beyond what
         * the scratch holds, against the device's free memory. Before this,
         * each prove's H MSM at 2^27 on an 80 GB card tried two windows a
         * batch, failed, freed a dozen arrays and made them again: ≈ 20
         * cudaMalloc and cudaFree a partition, at steady state, some taking
         * 0.12-0.29 s in the packed run. So the batch is narrowed before
         * anything is allocated, and the arrays, once at their largest, stay. */
        msm_batch bt = msm_batch_shape(m, wb, B, sizeof(X), nwin);
        size_t freeb = 0;
        if (wb > 1 && device_free_bytes(c, &freeb)) {
            while (wb > 1 && msm_batch_growth(s, bt) + MSM_FREE_MARGIN > freeb)
                wb = (wb + 1) / 2, bt = msm_batch_shape(m, wb, B, sizeof(X), nwin);
        }
        bool freed = false;
        for (;;) {
            bt = msm_batch_shape(m, wb, B, sizeof(X), nwin);
            if ((rc = msm_batch_reserve(c, s, bt)))
                if (rc == CUZK_ERR_NO_MEMORY && (wb > 1 || !freed)) {
                    /* a card short of memory after all (the free figure
                     * is the driver's; its pages may be scattered): first
                     * what is dead by now or made again on demand -- the
                     * class flags and positions, the scan's and sort's
                     * temporaries, the batch's own at another MSM's sizes --
                     * then, while
                     * that is not enough, fewer windows a batch (the same
                     * sum), the batch's arrays made again at that size */
                    GPU_TRY(c, cudaStreamSynchronize(c.st));
                    dbuf *batch[] = {&s->kv,        &s->buckets, &s->part_k[0], &s->part_p[0],
                                     &s->part_k[1], &s->part_p[1], &s->segs,     &s->cub};
                    for (dbuf *b : batch) buf_free(b);
                    if (freed) wb = (wb + 1) / 2;
                    freed = true;
                    continue;
                }
            break;
        }
        if (rc) return rc;
        if (freed && c.err) c.err[0] = 0; /* a retry that found room: no error to report */
        const size_t Mmax = bt.Mmax;
        uint32_t *const keys = bp<uint32_t>(s->kv), *const vals = keys + Mmax, *const keys2 = keys + 2 * Mmax,
                        *const vals2 = keys + 3 * Mmax;
        const uint32_t nseg = bt.nseg, S = bt.S;
        const unsigned gseg = bt.gseg;
        const unsigned L = bt.L;
        unsigned key_bits = 1;
        while (((uint64_t)1 << key_bits) < (uint64_t)wb * B) key_bits++;
        /* the sort ping-pongs between the two pairs of arrays (CUB's
         * DoubleBuffer): its temporary storage is then a few MB instead of
         * another copy of the pairs (2 GiB at 2^28 entries) */
        size_t sort_bytes = 0;
        {
            cub::DoubleBuffer<uint32_t> dk(keys, keys2), dv(vals, vals2);
            GPU_TRY(c, cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, dk, dv, Mmax, 0, key_bits, c.st));
        }
        if ((rc = buf_reserve(c, &s->cub, sort_bytes, "msm sort temp"))) return rc;

        for (unsigned w0 = 0; w0 < nwin; w0 += wb) {
            const unsigned nw = nwin - w0 < wb ? nwin - w0 : wb;
            const size_t M = (size_t)nw * m;
            msm_digits<<<blocks_for(m, T), T, 0, c.st>>>(plain, bp<uint32_t>(s->gen), m,
                                                         cw, w0, nw, B, keys, vals);
            GPU_LAUNCHED(c, "msm_digits");
            size_t sb = s->cub.cap;
            cub::DoubleBuffer<uint32_t> dk(keys, keys2), dv(vals, vals2);
            GPU_TRY(c, cub::DeviceRadixSort::SortPairs(s->cub.p, sb, dk, dv, M, 0, key_bits, c.st));
            trace_mark(c, "msm sort");
            GPU_TRY(c, cudaMemsetAsync(s->buckets.p, 0, (size_t)nw * B * sizeof(X), c.st));
            trace_mark(c, "msm bucket clear");
            const uint32_t *kin = dk.Current(), *vin = dv.Current();
            const affine_t<F> *pts = bases;
            size_t cnt = M;
            const unsigned Lf = L;
            /* level 0 from the sorted pairs, then partial levels */
            bool fin = cnt <= Lf;
            size_t nt = (cnt + Lf - 1) / Lf;
            void (*acc0)(const uint32_t *, const uint32_t *, const X *, const affine_t<F> *, size_t, unsigned,
                         bool, X *, uint32_t *, X *);
            if constexpr (level0_minb<F>::value > 0)
                acc0 = msm_accumulate_mb<F, level0_minb<F>::value>;
            else
                acc0 = msm_accumulate<F, true>;
            acc0<<<blocks_for(nt, 64), 64, 0, c.st>>>(kin, vin, nullptr, pts, cnt, Lf, fin, bp<X>(s->buckets),
                                                      bp<uint32_t>(s->part_k[0]), bp<X>(s->part_p[0]));
            GPU_LAUNCHED(c, "msm_accumulate(level 0)");
            /* the partial levels take the chunk length of their own count:
             * level 1 of a 2^28-entry batch holds 2^21 partials, and 256
             * sequential additions on each of only 8,192 threads left the
             * chip waiting on latency (the trace's 30 ms of partial levels
             * at 2^27); its output fits the level-0 sized arrays as every
             * level at least halves its count */
            int cur = 0;
            while (!fin) {
                cnt = 2 * nt;
                const unsigned Lp = msm_chunk_len(cnt);
                fin = cnt <= Lp;
                nt = (cnt + Lp - 1) / Lp;
                msm_accumulate<F, false><<<blocks_for(nt, 64), 64, 0, c.st>>>(
                    bp<uint32_t>(s->part_k[cur]), nullptr, bp<X>(s->part_p[cur]), nullptr, cnt,
                    Lp, fin, bp<X>(s->buckets), bp<uint32_t>(s->part_k[cur ^ 1]),
                    bp<X>(s->part_p[cur ^ 1]));
                GPU_LAUNCHED(c, "msm_accumulate(partials)");
                cur ^= 1;
            }
            msm_bucket_segments<F><<<dim3(gseg, nw), MSM_SEG_THREADS, MSM_SEG_THREADS * sizeof(X), c.st>>>(
                bp<X>(s->buckets), B, S, nseg, bp<X>(s->segs));
            GPU_LAUNCHED(c, "msm_bucket_segments");
            msm_sum_groups<F><<<nw, MSM_SUM_THREADS, MSM_SUM_THREADS * sizeof(X), c.st>>>(
                bp<X>(s->segs), gseg, bp<X>(s->wins) + w0);
            GPU_LAUNCHED(c, "msm_sum_groups(windows)");
        }
    }
    /* the windows' sums and the ones' sum in one copy and one wait (each
     * wait is a window in which the card idles until this thread runs) */
    if (nwin || ones_sum) {
        HX *win = (HX *)malloc((nwin + 1) * sizeof(HX));
        if (!win) return fail_msg(c, CUZK_ERR_NO_MEMORY, "msm: host window buffer");
        cudaError_t e = nwin ? cudaMemcpyAsync(win, s->wins.p, nwin * sizeof(HX), cudaMemcpyDeviceToHost, c.st)
                             : cudaSuccess;
        if (e == cudaSuccess && ones_sum)
            e = cudaMemcpyAsync(win + nwin, ones_sum, sizeof(HX), cudaMemcpyDeviceToHost, c.st);
        if (e == cudaSuccess) e = cudaStreamSynchronize(c.st);
        if (e != cudaSuccess) {
            free(win);
            return fail(c, e, "cudaMemcpyAsync(msm windows)");
        }
        if (ones_sum) ops.add(&total, &total, &win[nwin]);
        if (nwin) {
            HX acc = win[nwin - 1];
            for (unsigned w = nwin - 1; w-- > 0;) {
                for (unsigned k = 0; k < cw; k++) ops.dbl(&acc, &acc);
                ops.add(&acc, &acc, &win[w]);
            }
            ops.add(&total, &total, &acc);
        }
        free(win);
    }
    ops.to_jac(out, &total);
    return CUZK_OK;
}

} // namespace cuzk_gpu
#endif
