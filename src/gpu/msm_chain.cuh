/*
 * Level 0 of the MSM's accumulation (msm.cuh, step 4) in affine coordinates,
 * K additions per thread sharing one inversion (CUZK_GPU_MSM_CHAINS=K).
 *
 * A thread's chunk of L sorted (key, signed point index) entries is cut into
 * K strands of S = L/K consecutive entries. Step i adds entry i of every
 * strand to that strand's affine sum: the K denominators (x2 - x1, or 2y for
 * a doubling) are chained into running products, the last one is inverted by
 * divsteps (ff_inv.cuh), and a backward pass hands each addition its inverse
 * (1 product forward, 2 back, 3 for the sum: aff_sum). Per addition that is
 * ≈ 6 products and 1/K of an inversion (≈ 68 products on an H100: 2 at
 * K = 32) against ≈ 10 for the XYZZ mixed addition of the plain level 0
 * (docs/perf-log.md, thirteenth session).
 *
 * When a strand meets a new key, its sum so far is a piece of that key's
 * run: the strand's first piece is kept (it may continue the strand before),
 * a piece between two key changes is a whole run and goes to its bucket at
 * once. After the S steps the pieces left, each strand's first and last in
 * entry order (≤ 2K), go through the plain level 0's loop with XYZZ
 * additions, and leave the same outputs it does: complete runs to their
 * buckets, the chunk's first and last runs as two (key, partial) pairs.
 * With S ≫ 2 the pieces cost little: 2K XYZZ additions per K·S entries.
 *
 * The strands' sums, first pieces and running products (K·(2·96 + 48) bytes
 * a thread for G1) live in local memory. The point of an entry is read twice,
 * forward for its denominator and backward for its sum, rather than held.
 * The body is plain code over the field, so the host test test_gpu_msm_emu
 * runs the same source (CUZK_FF_HOST_EMU) without a device.
 */
#ifndef CUZK_GPU_MSM_CHAIN_CUH
#define CUZK_GPU_MSM_CHAIN_CUH

#include <stddef.h>
#include <stdint.h>

#include "ec.cuh"
#include "ff_inv.cuh"

namespace cuzk_gpu {

#ifndef MSM_SKIP
#define MSM_SKIP 0xffffffffu /* value of a zero digit: nothing to add */
#endif

/* the fields' fast inversions: Fp by divsteps, Fp2 through its norm */
CUZK_FD void f_inv_fast(fp_t &r, const fp_t &a) { f_inv_divsteps(r, a); }
CUZK_FD void f_inv_fast(fp2_t &r, const fp2_t &a)
{
    fp_t t0, t1;
    f_mul(t0, a.c0, a.c0);
    f_mul(t1, a.c1, a.c1);
    f_add(t0, t0, t1);
    f_inv_divsteps(t1, t0);
    f_mul(r.c0, a.c0, t1);
    f_mul(r.c1, a.c1, t1);
    f_neg(r.c1, r.c1);
}

/* entry value v (a signed base index, or MSM_SKIP: the point at infinity) */
template <class F> CUZK_FD void chain_point(affine_t<F> &p, const affine_t<F> *bases, uint32_t v)
{
    if (v == MSM_SKIP) {
        f_zero(p.x), f_zero(p.y);
        return;
    }
#ifdef CUZK_FF_HOST_EMU
    p = bases[v & 0x7fffffffu];
#else
    load16(p, bases + (v & 0x7fffffffu));
#endif
    if (v >> 31) f_neg(p.y, p.y); /* -(0,0) stays (0,0) */
}

/* One thread t of level 0 over M sorted entries (vals NULL: entry e is
 * bases[e]), chunks of L, strands of S = ceil(L/K); outputs as
 * msm_accumulate_body's. K <= 64. */
template <class F, int K>
CUZK_FD void msm_chain_body(size_t t, const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                            const affine_t<F> *__restrict__ bases, size_t M, unsigned L, bool final_level,
                            xyzz_t<F> *__restrict__ buckets, uint32_t *__restrict__ pk, xyzz_t<F> *__restrict__ pp)
{
    static_assert(K >= 1 && K <= 64, "msm_chain_body: K in 1..64");
    const size_t start = t * L;
    if (start >= M) return;
    const size_t end = start + L < M ? start + L : M;
    const unsigned S = (L + K - 1) / K;
    affine_t<F> acc[K], head[K]; /* strand j's open piece; its first piece once closed */
    uint32_t akey[K], hkey[K];
    F pre[K]; /* running products of the step's denominators */
    uint64_t closed = 0; /* bit j: strand j's first piece is in head[j] */
    for (int j = 0; j < K; j++) {
        const size_t e = start + (size_t)j * S;
        akey[j] = e < end ? keys[e] : 0u;
        f_zero(acc[j].x), f_zero(acc[j].y);
    }
    for (unsigned i = 0; i < S; i++) {
        F run;
        f_one(run);
        for (int j = 0; j < K; j++) {
            const size_t e = start + (size_t)j * S + i;
            F d;
            if (e < end) {
                const uint32_t k = keys[e];
                if (k != akey[j]) { /* the piece ends: keep it (the first) or store it (a whole run) */
                    if (!((closed >> j) & 1)) {
                        head[j] = acc[j], hkey[j] = akey[j];
                        closed |= 1ull << j;
                    } else {
                        xyzz_t<F> b;
                        xyzz_from_aff(b, acc[j]);
                        buckets[akey[j]] = b;
                    }
                    akey[j] = k;
                    f_zero(acc[j].x), f_zero(acc[j].y);
                }
                affine_t<F> p;
                chain_point(p, bases, vals ? vals[e] : (uint32_t)e);
                aff_case(acc[j], p, d);
            } else {
                f_one(d);
            }
            f_mul(run, run, d);
            pre[j] = run;
        }
        F inv;
        f_inv_fast(inv, run); /* a product of non-zero denominators */
        for (int j = K - 1; j >= 0; j--) {
            const size_t e = start + (size_t)j * S + i;
            if (e >= end) continue; /* its denominator was 1 */
            affine_t<F> p;
            chain_point(p, bases, vals ? vals[e] : (uint32_t)e);
            F d, id;
            const int cs = aff_case(acc[j], p, d);
            if (j)
                f_mul(id, inv, pre[j - 1]);
            else
                id = inv;
            f_mul(inv, inv, d);
            aff_sum(acc[j], acc[j], p, cs, id);
        }
    }
    /* the pieces left, in entry order, through the plain level 0's loop */
    uint32_t key = (closed & 1) ? hkey[0] : akey[0];
    bool first = true;
    xyzz_t<F> cur;
    xyzz_set_inf(cur);
    for (int j = 0; j < K && start + (size_t)j * S < end; j++) {
        for (int h = ((closed >> j) & 1) ? 0 : 1; h < 2; h++) {
            const uint32_t k = h ? akey[j] : hkey[j];
            if (k != key) {
                if (first && !final_level) {
                    pk[2 * t] = key; /* may continue in the previous chunk */
                    pp[2 * t] = cur;
                } else {
                    buckets[key] = cur;
                }
                first = false;
                key = k;
                xyzz_set_inf(cur);
            }
            xyzz_add_aff(cur, cur, h ? acc[j] : head[j]);
        }
    }
    if (final_level) {
        buckets[key] = cur;
        return;
    }
    if (first) {
        pk[2 * t] = key, pp[2 * t] = cur;
        pk[2 * t + 1] = key, xyzz_set_inf(pp[2 * t + 1]);
    } else {
        pk[2 * t + 1] = key, pp[2 * t + 1] = cur;
    }
}

} // namespace cuzk_gpu
#endif
