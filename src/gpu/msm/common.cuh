/*
 * The device MSM's shared constants (chunk lengths, batch bounds, block
 * sizes) and grid arithmetic. The MSM's parts, in the order they run
 * (src/gpu/msm/run.cuh has the whole): classify.cuh, digits.cuh,
 * accumulate.cuh, reduce.cuh on the device; plan.cuh (src/gpu/msm.cu) on
 * the host.
 */
#ifndef CUZK_GPU_MSM_COMMON_CUH
#define CUZK_GPU_MSM_COMMON_CUH

#include "gpu/ec.cuh"
#include "gpu/gpu_internal.cuh"

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
#define MSM_SEG_THREADS 64         /* bucket segments a block of step 5a */

static inline unsigned blocks_for(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

} // namespace cuzk_gpu
#endif
