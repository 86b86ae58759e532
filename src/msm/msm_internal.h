/* Internal to src/msm (and its tests): the MSM with its method chosen by
 * flags, and the GLV scalar split. The public entry points use
 * CUZK_MSM_DEFAULT; flags 0 is the plain Pippenger reference (XYZZ buckets,
 * full-width digits) that the other paths are tested against. */
#ifndef CUZK_SRC_MSM_INTERNAL_H
#define CUZK_SRC_MSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"

enum {
    /* k = k1 + k2·x^2 with k1, k2 < 2^128, and x^2·P from the endomorphism
     * (cuzk_g{1,2}_affine_endo_x2): 2m points with 128-bit scalars. Needs
     * bases in the prime-order subgroup; scalars are reduced mod r first. */
    CUZK_MSM_GLV = 1,
    /* Buckets kept affine and filled by batches of affine additions sharing
     * one inversion (Montgomery's trick); a point whose bucket is already in
     * the open batch (or equals it in x) goes to a per-bucket XYZZ overflow. */
    CUZK_MSM_AFFINE = 2,
    CUZK_MSM_DEFAULT = CUZK_MSM_GLV | CUZK_MSM_AFFINE,
};

/* Affine buckets only when the affine model's window has at least this many
 * buckets (2^(c-1)); below, XYZZ buckets with cuzk_msm_window_bits' window.
 * An Fp inversion costs ~37 multiplications, an Fp2 one ~11 Fp2 ones. */
enum { CUZK_MSM_G1_AFF_MIN_NB = 256, CUZK_MSM_G2_AFF_MIN_NB = 64 };

/* x^2 for the BLS parameter x, as a 128-bit integer (little-endian limbs). */
extern const uint64_t cuzk_msm_x2[2];

/* For k < r: k = k1 + k2·x^2 as integers, k1 < x^2, k2 < 2^128. */
void cuzk_msm_glv_split(uint64_t k1[2], uint64_t k2[2], const uint64_t k[4]);

/* As cuzk_g{1,2}_msm_plain with the method given by flags. */
int cuzk_g1_msm_flags(cuzk_g1_jac *out, const cuzk_g1_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads, unsigned flags);
int cuzk_g2_msm_flags(cuzk_g2_jac *out, const cuzk_g2_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads, unsigned flags);

/* Window width for m entries of the given bit length under the batch-affine
 * cost model nwin·(m + 2·2^c) (a bucket's share of the running sum costs
 * about four affine additions). */
unsigned cuzk_msm_window_bits_affine(size_t m, unsigned bits);

#endif
