/*
 * MSM step 2, the general scalars' signed digits of c bits, as the CPU's
 * (cuzk/msm/msm.h): a window's digit is its c bits plus the top bit of the
 * window below, minus 2^c times its own top bit; key = window·B + |digit|
 * (B = 2^(c-1) + 1 buckets a window), value = point index | sign << 31,
 * MSM_SKIP for a zero digit. Step 3 sorts the pairs by key (CUB).
 */
#ifndef CUZK_GPU_MSM_DIGITS_CUH
#define CUZK_GPU_MSM_DIGITS_CUH

#include "common.cuh"

namespace cuzk_gpu {

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

} // namespace cuzk_gpu
#endif
