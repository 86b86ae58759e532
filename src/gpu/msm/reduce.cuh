/*
 * MSM step 5, the buckets reduced to a sum a window, in parallel: each
 * window's buckets are cut into segments; a thread computes its segment's
 * running sum R and total T, then R + (lo - 1)·T, and the blocks' partials
 * are summed a window (and the ones' partials into one point).
 */
#ifndef CUZK_GPU_MSM_REDUCE_CUH
#define CUZK_GPU_MSM_REDUCE_CUH

#include "common.cuh"

namespace cuzk_gpu {

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

/* 5b. out[g] = sum of in[g·len .. g·len + len), one block per group; with
 * add, out[g] += that sum (a chunked MSM's running sum of its ones). */
template <class F>
__global__ void msm_sum_groups(const xyzz_t<F> *__restrict__ in, size_t len, xyzz_t<F> *__restrict__ out, bool add)
{
    extern __shared__ __align__(16) unsigned char smraw[];
    xyzz_t<F> *sm = (xyzz_t<F> *)smraw;
    const xyzz_t<F> *g = in + (size_t)blockIdx.x * len;
    xyzz_t<F> acc;
    if (add && threadIdx.x == 0)
        acc = out[blockIdx.x];
    else
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

} // namespace cuzk_gpu
#endif
