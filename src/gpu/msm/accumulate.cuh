/*
 * MSM step 4, the buckets' sums: the sorted array is cut into equal chunks
 * of L entries, one thread each (load balanced whatever the bucket sizes: a
 * skewed bucket spreads over many chunks). A run of one key that lies
 * inside a chunk is written to its bucket directly; the runs touching the
 * chunk's ends become (key, partial XYZZ sum) pairs, still sorted by key,
 * and the same kernel reduces them again until one chunk is left. Each
 * bucket is written exactly once, by one thread, so no atomics. With ACC
 * the write adds to what the bucket holds: an MSM taken in chunks of its
 * points (msm/chunked.cuh) sums every chunk into one set of buckets.
 */
#ifndef CUZK_GPU_MSM_ACCUMULATE_CUH
#define CUZK_GPU_MSM_ACCUMULATE_CUH

#include "common.cuh"

namespace cuzk_gpu {

template <class F> __device__ __forceinline__ void load_signed(affine_t<F> &p, const affine_t<F> *bases, uint32_t v)
{
    load16(p, bases + (v & 0x7fffffffu));
    if (v >> 31) f_neg(p.y, p.y); /* -(0,0) stays (0,0): 0 - 0 = 0 */
}

/* A finished run's sum into its bucket: stored, or added to the sums of
 * the MSM's earlier chunks (ACC). The addition reads the bucket where it
 * lies (a plain load: the array is written in this kernel): a copy of it
 * in the kernel's frame grew G2's level 0 from 1,168 to 1,712 bytes of
 * stack, and the driver reserves a kernel's stack for every thread the
 * chip holds (270,336 on the H100: 463 MB), which a card held small may
 * not have. */
template <class F, bool ACC> __device__ __forceinline__ void bucket_put(xyzz_t<F> *buckets, uint32_t key, xyzz_t<F> &acc)
{
    if constexpr (ACC) xyzz_add(acc, acc, buckets[key]);
    buckets[key] = acc;
}

/* 4. One level of the chunked segmented reduction. Level 0 reads signed
 * indices into bases; later levels read the previous level's partials. */
template <class F, bool LEVEL0, bool ACC>
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
                bucket_put<F, ACC>(buckets, key, acc); /* complete: strictly inside, or the final level */
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
        bucket_put<F, ACC>(buckets, key, acc);
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

template <class F, bool LEVEL0, bool ACC>
__global__ void msm_accumulate(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                               const xyzz_t<F> *__restrict__ pin, const affine_t<F> *__restrict__ bases,
                               size_t M, unsigned L, bool final_level, xyzz_t<F> *__restrict__ buckets,
                               uint32_t *__restrict__ pk, xyzz_t<F> *__restrict__ pp)
{
    msm_accumulate_body<F, LEVEL0, ACC>(keys, vals, pin, bases, M, L, final_level, buckets, pk, pp);
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
template <class F, int MINB, bool ACC>
__global__ void __launch_bounds__(64, MINB)
    msm_accumulate_mb(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                      const xyzz_t<F> *__restrict__ pin, const affine_t<F> *__restrict__ bases, size_t M,
                      unsigned L, bool final_level, xyzz_t<F> *__restrict__ buckets, uint32_t *__restrict__ pk,
                      xyzz_t<F> *__restrict__ pp)
{
    msm_accumulate_body<F, true, ACC>(keys, vals, pin, bases, M, L, final_level, buckets, pk, pp);
}

} // namespace cuzk_gpu
#endif
