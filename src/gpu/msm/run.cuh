/*
 * Pippenger MSM on the device, one template over the group (G1: fp_t
 * coordinates, G2: fp2_t), instantiated by msm_g1.cu and msm_g2.cu. Steps,
 * all on the caller's stream:
 *   1. classify.cuh: the scalars split into ones and general ones (m);
 *   2. digits.cuh: the general scalars' signed digits of c bits as
 *      (key, value) pairs, a batch of windows at a time;
 *   3. the pairs sorted by key (CUB radix sort on the key bits, ping-ponging
 *      between the two pairs of arrays: no temporary copy);
 *   4. accumulate.cuh: the buckets' sums, load balanced, no atomics;
 *   5. reduce.cuh: each window's buckets reduced to its sum, in parallel;
 *   6. the host joins the windows by Horner's rule and adds the ones' sum.
 * Windows are processed in batches so that a batch's sort fits a fixed
 * number of entries (memory stays bounded for any n), fewer windows a batch
 * when the card is short of memory (plan.cuh, src/gpu/msm.cu). The
 * scalars' plain form goes over the caller's array when it may be
 * overwritten (work), else into the scratch.
 */
#ifndef CUZK_GPU_MSM_RUN_CUH
#define CUZK_GPU_MSM_RUN_CUH

#include <cub/device/device_radix_sort.cuh>
#include <stdlib.h>

#include "accumulate.cuh"
#include "digits.cuh"
#include "plan.cuh"
#include "reduce.cuh"

namespace cuzk_gpu {

/* Host-side group operations for the final Horner step. */
template <class HX, class HJ> struct host_ops {
    void (*dbl)(HX *, const HX *);
    void (*add)(HX *, const HX *, const HX *);
    void (*set_inf)(HX *);
    void (*to_jac)(HJ *, const HX *);
};

/* Blocks of the ones' partial sums (their sum lands after them). */
static inline unsigned ones_blocks(size_t m1)
{
    const unsigned nb = blocks_for(m1, MSM_SUM_THREADS);
    return nb > 1024 ? 1024 : nb;
}

/* The ones' sum (step 5 over the m1 ones): a partial per block, then one
 * block, into *dst (added to it when add); on the device, read back with
 * the windows (one wait). */
template <class F>
int msm_ones_sum(const ctx &c, msm_scratch *s, const affine_t<F> *bases, size_t m1, xyzz_t<F> *dst, bool add)
{
    typedef xyzz_t<F> X;
    int rc;
    const unsigned nb = ones_blocks(m1);
    if ((rc = buf_reserve(c, &s->onesp, (nb + 1) * sizeof(X), "msm ones partials"))) return rc;
    const size_t sm = MSM_SUM_THREADS * sizeof(X);
    msm_sum_ones<F><<<nb, MSM_SUM_THREADS, sm, c.st>>>(bases, bp<uint32_t>(s->ones), m1, bp<X>(s->onesp));
    GPU_LAUNCHED(c, "msm_sum_ones");
    msm_sum_groups<F><<<1, MSM_SUM_THREADS, sm, c.st>>>(bp<X>(s->onesp), nb, dst ? dst : bp<X>(s->onesp) + nb, add);
    GPU_LAUNCHED(c, "msm_sum_groups(ones)");
    return CUZK_OK;
}

/* Step 4 over the cnt sorted pairs (keys, vals) of a batch: level 0 into
 * the buckets and the first partials, then partial levels until one chunk
 * is left. The partial levels take the chunk length of their own count:
 * level 1 of a 2^28-entry batch holds 2^21 partials, and 256 sequential
 * additions on each of only 8,192 threads left the chip waiting on latency
 * (30 ms of partial levels at 2^27); its output fits the level-0 sized
 * arrays as every level at least halves its count. */
template <class F, bool ACC>
int msm_accumulate_levels(const ctx &c, msm_scratch *s, const uint32_t *keys, const uint32_t *vals,
                          const affine_t<F> *bases, size_t cnt, unsigned L, xyzz_t<F> *buckets)
{
    typedef xyzz_t<F> X;
    bool fin = cnt <= L;
    size_t nt = (cnt + L - 1) / L;
    void (*acc0)(const uint32_t *, const uint32_t *, const X *, const affine_t<F> *, size_t, unsigned, bool, X *,
                 uint32_t *, X *);
    if constexpr (level0_minb<F>::value > 0)
        acc0 = msm_accumulate_mb<F, level0_minb<F>::value, ACC>;
    else
        acc0 = msm_accumulate<F, true, ACC>;
    acc0<<<blocks_for(nt, 64), 64, 0, c.st>>>(keys, vals, nullptr, bases, cnt, L, fin, buckets,
                                              bp<uint32_t>(s->part_k[0]), bp<X>(s->part_p[0]));
    GPU_LAUNCHED(c, "msm_accumulate(level 0)");
    int cur = 0;
    while (!fin) {
        cnt = 2 * nt;
        const unsigned Lp = msm_chunk_len(cnt);
        fin = cnt <= Lp;
        nt = (cnt + Lp - 1) / Lp;
        msm_accumulate<F, false, ACC><<<blocks_for(nt, 64), 64, 0, c.st>>>(
            bp<uint32_t>(s->part_k[cur]), nullptr, bp<X>(s->part_p[cur]), nullptr, cnt, Lp, fin, buckets,
            bp<uint32_t>(s->part_k[cur ^ 1]), bp<X>(s->part_p[cur ^ 1]));
        GPU_LAUNCHED(c, "msm_accumulate(partials)");
        cur ^= 1;
    }
    return CUZK_OK;
}

/* Step 5 over nw windows' buckets (from buckets, B a window): their sums
 * into s->wins[w0 ..]. */
template <class F>
int msm_reduce_windows(const ctx &c, msm_scratch *s, const xyzz_t<F> *buckets, uint32_t B, const msm_batch &bt,
                       unsigned w0, unsigned nw)
{
    typedef xyzz_t<F> X;
    msm_bucket_segments<F><<<dim3(bt.gseg, nw), MSM_SEG_THREADS, MSM_SEG_THREADS * sizeof(X), c.st>>>(
        buckets, B, bt.S, bt.nseg, bp<X>(s->segs));
    GPU_LAUNCHED(c, "msm_bucket_segments");
    msm_sum_groups<F><<<nw, MSM_SUM_THREADS, MSM_SUM_THREADS * sizeof(X), c.st>>>(bp<X>(s->segs), bt.gseg,
                                                                                  bp<X>(s->wins) + w0, false);
    GPU_LAUNCHED(c, "msm_sum_groups(windows)");
    return CUZK_OK;
}

/* Steps 2 to 4 for one batch of nw windows from w0: the digits of the m
 * general scalars sorted and summed into buckets (nw·B of them; added to
 * what they hold when ACC). */
template <class F, bool ACC>
int msm_window_buckets(const ctx &c, msm_scratch *s, const affine_t<F> *bases, const fr_t *plain, size_t m,
                       unsigned cw, uint32_t B, const msm_batch &bt, unsigned w0, unsigned nw, xyzz_t<F> *buckets)
{
    const unsigned T = 256;
    const size_t Mmax = bt.Mmax, M = (size_t)nw * m;
    uint32_t *const keys = bp<uint32_t>(s->kv), *const vals = keys + Mmax, *const keys2 = keys + 2 * Mmax,
                    *const vals2 = keys + 3 * Mmax;
    msm_digits<<<blocks_for(m, T), T, 0, c.st>>>(plain, bp<uint32_t>(s->gen), m, cw, w0, nw, B, keys, vals);
    GPU_LAUNCHED(c, "msm_digits");
    size_t sb = s->cub.cap;
    cub::DoubleBuffer<uint32_t> dk(keys, keys2), dv(vals, vals2);
    GPU_TRY(c, cub::DeviceRadixSort::SortPairs(s->cub.p, sb, dk, dv, M, 0, bt.key_bits, c.st));
    trace_mark(c, "msm sort");
    return msm_accumulate_levels<F, ACC>(c, s, dk.Current(), dv.Current(), bases, M, bt.L, buckets);
}

/* One batch of nw windows from w0 (steps 2 to 5): their sums into
 * s->wins[w0 ..]. */
template <class F>
int msm_window_batch(const ctx &c, msm_scratch *s, const affine_t<F> *bases, const fr_t *plain, size_t m,
                     unsigned cw, uint32_t B, const msm_batch &bt, unsigned w0, unsigned nw)
{
    typedef xyzz_t<F> X;
    GPU_TRY(c, cudaMemsetAsync(s->buckets.p, 0, (size_t)nw * B * sizeof(X), c.st));
    trace_mark(c, "msm bucket clear");
    int rc = msm_window_buckets<F, false>(c, s, bases, plain, m, cw, B, bt, w0, nw, bp<X>(s->buckets));
    return rc ? rc : msm_reduce_windows<F>(c, s, bp<X>(s->buckets), B, bt, w0, nw);
}

/* The m general scalars' windows of *cw bits (*nwin of them), their sums
 * into s->wins. */
template <class F>
int msm_windows(const ctx &c, msm_scratch *s, const affine_t<F> *bases, const fr_t *plain, size_t m, unsigned *cw,
                unsigned *nwin)
{
    *cw = msm_window_bits(m);
    *nwin = (255 + 1 + *cw - 1) / *cw;
    const uint32_t B = (1u << (*cw - 1)) + 1;
    msm_batch bt;
    int rc = msm_batch_plan(c, s, m, B, sizeof(xyzz_t<F>), *nwin, &bt);
    for (unsigned w0 = 0; !rc && w0 < *nwin; w0 += bt.wb) {
        const unsigned nw = *nwin - w0 < bt.wb ? *nwin - w0 : bt.wb;
        rc = msm_window_batch<F>(c, s, bases, plain, m, *cw, B, bt, w0, nw);
    }
    return rc;
}

/* Step 6: the windows' sums and the ones' sum in one copy and one wait
 * (each wait is a window in which the card idles until this thread runs),
 * joined into *total. */
template <class HX, class HJ>
int msm_join(const ctx &c, msm_scratch *s, unsigned nwin, unsigned cw, const void *ones_sum, HX *total,
             const host_ops<HX, HJ> &ops)
{
    HX *win = (HX *)malloc((nwin + 1) * sizeof(HX));
    if (!win) return fail_msg(c, CUZK_ERR_NO_MEMORY, "msm: host window buffer");
    cudaError_t e =
        nwin ? cudaMemcpyAsync(win, s->wins.p, nwin * sizeof(HX), cudaMemcpyDeviceToHost, c.st) : cudaSuccess;
    if (e == cudaSuccess && ones_sum) e = cudaMemcpyAsync(win + nwin, ones_sum, sizeof(HX), cudaMemcpyDeviceToHost, c.st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c.st);
    if (e != cudaSuccess) {
        free(win);
        return fail(c, e, "cudaMemcpyAsync(msm windows)");
    }
    if (ones_sum) ops.add(total, total, &win[nwin]);
    if (nwin) {
        HX acc = win[nwin - 1];
        for (unsigned w = nwin - 1; w-- > 0;) {
            for (unsigned k = 0; k < cw; k++) ops.dbl(&acc, &acc);
            ops.add(&acc, &acc, &win[w]);
        }
        ops.add(total, total, &acc);
    }
    free(win);
    return CUZK_OK;
}

template <class F, class HX, class HJ>
int msm_run(const ctx &c, msm_scratch *s, HJ *out, const affine_t<F> *bases, const fr_t *scalars, size_t n,
            bool mont, fr_t *work, const host_ops<HX, HJ> &ops)
{
    static_assert(sizeof(xyzz_t<F>) == sizeof(HX), "device and host XYZZ layouts differ");
    HX total;
    ops.set_inf(&total);
    if (n == 0) {
        ops.to_jac(out, &total);
        return CUZK_OK;
    }
    if (n >= 0x80000000ull) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: n >= 2^31");
    fr_t *plain;
    size_t m1, m;
    int rc = msm_split(c, s, scalars, n, mont, work, &plain, &m1, &m);
    if (rc) return rc;
    const xyzz_t<F> *ones_sum = nullptr; /* on the device, when there are ones */
    if (m1 && (rc = msm_ones_sum<F>(c, s, bases, m1, nullptr, false))) return rc;
    if (m1) ones_sum = bp<xyzz_t<F>>(s->onesp) + ones_blocks(m1);
    unsigned nwin = 0, cw = 0; /* the general scalars' windows of cw bits */
    if (m && (rc = msm_windows<F>(c, s, bases, plain, m, &cw, &nwin))) return rc;
    if ((nwin || ones_sum) && (rc = msm_join(c, s, nwin, cw, ones_sum, &total, ops))) return rc;
    ops.to_jac(out, &total);
    return CUZK_OK;
}

} // namespace cuzk_gpu
#endif
