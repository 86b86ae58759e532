/*
 * SnarkPack's bulk arithmetic on a GPU: an aggregation's hooks
 * (cuzk/groth16/snarkpack.h's cuzk_snarkpack_accel) over one worker.
 *   miller_groups  the groups' pairs gathered by product, every product's
 *                  loops in one cuzk_gpu_miller_loops call;
 *   msm_batch      each job through cuzk_gpu_g1_msm / cuzk_gpu_g2_msm.
 * Calls below min_n pairs or points (the last GIPA rounds, a few proofs)
 * stay on the CPU, where a launch and a copy cost more than the work. The
 * worker must outlive the aggregation; its kernel regions take turns with
 * proofs on the same device.
 */
#ifndef CUZK_GPU_SNARKPACK_GPU_H
#define CUZK_GPU_SNARKPACK_GPU_H

#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/snarkpack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Below this many pairs or points a call stays on the CPU. */
#define CUZK_GPU_SNARKPACK_MIN_N 256

/* Fills *acc for worker w with min_n (0: CUZK_GPU_SNARKPACK_MIN_N). */
void cuzk_gpu_snarkpack_accel(cuzk_snarkpack_accel *acc, cuzk_gpu_worker *w, size_t min_n);

#ifdef __cplusplus
}
#endif
#endif
