/*
 * MSM step 1, the scalars' split: each scalar leaves Montgomery form
 * (unless given plain); 0 is dropped, 1 goes to the "ones" list (summed by
 * plain mixed additions), the rest ("general") to the bucket method. One
 * 64-bit inclusive scan of the class flags gives both lists' positions, in
 * the scalars' order.
 */
#ifndef CUZK_GPU_MSM_CLASSIFY_CUH
#define CUZK_GPU_MSM_CLASSIFY_CUH

#include "common.cuh"

namespace cuzk_gpu {

/* A scalar's plain form and its class flag: 1 << 32 for general, 1 for
 * one, 0 for zero. */
static __device__ __forceinline__ unsigned long long scalar_class(const fr_t &in, bool mont, fr_t &s)
{
    if (mont)
        f_from_mont(s, in);
    else
        s = in;
    uint32_t hi = 0;
#pragma unroll
    for (int k = 1; k < 8; k++) hi |= s.l[k];
    return hi == 0 && s.l[0] <= 1 ? s.l[0] : 1ull << 32; /* 0 -> nothing, 1 -> ones */
}

/* 1. plain scalar and its class flag. */
static __global__ void msm_classify(const fr_t *sc, size_t n, bool mont, fr_t *plain, /* may be sc */
                                    unsigned long long *__restrict__ flags)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t s;
    const unsigned long long f = scalar_class(sc[i], mont, s);
    plain[i] = s;
    flags[i] = f;
}

/* The general scalars among n, counted into *cnt (a block's count, one
 * atomic): a chunked MSM's window width is chosen for all of them before
 * its first chunk. */
static __global__ void msm_count_gen(const fr_t *__restrict__ sc, size_t n, bool mont, unsigned long long *cnt)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    fr_t s;
    const int g = i < n && (scalar_class(sc[i], mont, s) >> 32) != 0;
    const int k = __syncthreads_count(g);
    if (threadIdx.x == 0 && k) atomicAdd(cnt, (unsigned long long)k);
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

} // namespace cuzk_gpu
#endif
