/*
 * An MSM taken in chunks of its points, for a set whose points stream
 * (src/gpu/prove.cu): the same sum as msm_run, with the work of a chunk
 * only what its points need. Before the first chunk, the general scalars
 * of the whole MSM are counted and the window width chosen for all of them,
 * at most the plan's (msm_acc_plan), so the chunks share one set of
 * buckets: each chunk's split (step 1), digits, sort and level-0
 * accumulation (steps 2 to 4) add into them (accumulate.cuh with ACC), its
 * ones' sum into a running sum on the device, and nothing is read back
 * after its launches. After the last chunk the buckets are reduced once
 * (step 5) and the windows joined on the host (step 6). Every array lies
 * in the room msm_chunked_reserve made to the plan's sizes, so nothing is
 * allocated chunk by chunk and nothing depends on what the card has free.
 * Taken as whole MSMs, a chunk of 2^22 points would reduce its own 16
 * windows of 2^15 buckets and join them, and pick its width by its own
 * count (16 windows where the whole MSM takes 12 or 13).
 */
#ifndef CUZK_GPU_MSM_CHUNKED_CUH
#define CUZK_GPU_MSM_CHUNKED_CUH

#include "cuzk/gpu/gpu.h"
#include "run.cuh"

namespace cuzk_gpu {

template <class F>
int msm_chunked_begin(const ctx &c, msm_scratch *s, msm_acc *a, const fr_t *scalars, size_t n, bool mont)
{
    if (n >= 0x80000000ull) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: n >= 2^31");
    size_t m = 0;
    int rc = msm_count_general(c, s, scalars, n, mont, &m);
    return rc ? rc : msm_acc_plan(c, s, a, m, sizeof(xyzz_t<F>));
}

/* One chunk: its scalars split (one wait, for the counts), its ones added
 * to the running sum, its general scalars' windows into the buckets. */
template <class F>
int msm_chunked_add(const ctx &c, msm_scratch *s, msm_acc *a, const affine_t<F> *bases, const fr_t *scalars,
                    size_t n, bool mont, fr_t *work)
{
    typedef xyzz_t<F> X;
    if (n == 0) return CUZK_OK;
    fr_t *plain;
    size_t m1, m;
    int rc = msm_split(c, s, scalars, n, mont, work, &plain, &m1, &m);
    if (rc) return rc;
    if (m1 && (rc = msm_ones_sum<F>(c, s, bases, m1, (X *)msm_acc_sum(s, a, sizeof(X)), true))) return rc;
    a->ones |= m1 != 0;
    if (!m) return CUZK_OK;
    a->gen = true;
    msm_batch bt;
    if ((rc = msm_batch_in_room(c, s, m, a->B, sizeof(X), a->nwin, &bt))) return rc;
    for (unsigned w0 = 0; !rc && w0 < a->nwin; w0 += bt.wb) {
        const unsigned nw = a->nwin - w0 < bt.wb ? a->nwin - w0 : bt.wb;
        rc = msm_window_buckets<F, true>(c, s, bases, plain, m, a->cw, a->B, bt, w0, nw,
                                         (X *)msm_acc_buckets(s, a) + (size_t)w0 * a->B);
    }
    return rc;
}

/* After the last chunk: every window's buckets reduced at once, the sums
 * and the ones' sum read back in one wait and joined into *out. */
template <class F, class HX, class HJ>
int msm_chunked_end(const ctx &c, msm_scratch *s, msm_acc *a, HJ *out, const host_ops<HX, HJ> &ops)
{
    typedef xyzz_t<F> X;
    static_assert(sizeof(X) == sizeof(HX), "device and host XYZZ layouts differ");
    HX total;
    ops.set_inf(&total);
    int rc = CUZK_OK;
    if (a->gen) {
        msm_batch bt;
        if ((rc = msm_acc_reduce_plan(c, s, a, sizeof(X), &bt)) ||
            (rc = msm_reduce_windows<F>(c, s, (const X *)msm_acc_buckets(s, a), a->B, bt, 0, a->nwin)))
            return rc;
    }
    const unsigned nwin = a->gen ? a->nwin : 0;
    if ((nwin || a->ones) && (rc = msm_join(c, s, nwin, a->cw, a->ones ? msm_acc_sum(s, a, sizeof(X)) : nullptr, &total, ops)))
        return rc;
    ops.to_jac(out, &total);
    return CUZK_OK;
}

/* msm_run's sum through the chunked path, over chunks of k points of
 * resident bases in order (the hooks' msm_chunk: tests take the path of a
 * streamed set on any MSM), its room made for it: buckets at the width of
 * all n scalars, window batches of every window of a chunk (up to 2^24
 * entries; the hooks' msm_batch narrows them), so that the tests' many
 * chunks do not each run a dozen batches of a few hundred entries. */
template <class F, class HX, class HJ>
int msm_run_chunks(const ctx &c, msm_scratch *s, HJ *out, const affine_t<F> *bases, const fr_t *scalars, size_t n,
                   bool mont, fr_t *work, const host_ops<HX, HJ> &ops, size_t k)
{
    msm_acc *a = &s->acc[0];
    a->off = 0, a->cap = msm_window_bits(n);
    const size_t nwin = (255 + a->cap) / a->cap, kk = k < n ? k : n;
    const size_t entries = (kk * nwin < ((size_t)1 << 24) ? kk * nwin : kk) * sizeof(xyzz_t<F>) / sizeof(xyzz_t<fp_t>);
    const size_t room = cuzk_gpu_msm_bucket_bytes(a->cap, sizeof(xyzz_t<F>));
    int rc = msm_chunked_reserve(c, s, entries, room);
    if (!rc) rc = msm_chunked_begin<F>(c, s, a, scalars, n, mont);
    for (size_t off = 0; !rc && off < n; off += k)
        rc = msm_chunked_add<F>(c, s, a, bases + off, scalars + off, n - off < k ? n - off : k, mont,
                                work ? work + off : nullptr);
    return rc ? rc : msm_chunked_end<F>(c, s, a, out, ops);
}

} // namespace cuzk_gpu
#endif
