/*
 * Groth16 proof encoding and verification over BLS12-381 (bellperson
 * semantics).
 *
 * Proof bytes (facts from filecoin-project/bellperson src/groth16/proof.rs,
 * Proof::write / read_many): A compressed G1 (48) || B compressed G2 (96) ||
 * C compressed G1 (48) = 192 bytes; several proofs are concatenated. Each
 * point is fully checked (canonical, flags, on curve, subgroup), and the
 * point at infinity is rejected for A, B and C alike; the input length must
 * be exactly n·192.
 *
 * Verification (bellperson verify_proof): with acc = ic[0] + sum x_i·ic[i+1],
 *   e(A, B) · e(acc, -gamma) · e(C, -delta) == e(alpha, beta),
 * one 3-pair Miller loop and one final exponentiation. The number of public
 * inputs must be n_ic - 1.
 *
 * Batch verification (random linear combination, 128-bit nonzero r_i from a
 * cuzk_rng keyed by the OS):
 *   prod_i e(r_i·A_i, B_i) · e(sum r_i·acc_i, -gamma) · e(sum r_i·C_i, -delta)
 *     == e(alpha, beta)^(sum r_i),
 * n + 2 Miller loops (shared squarings) and one final exponentiation. A bad
 * proof passes only with probability about 2^-128.
 */
#ifndef CUZK_GROTH16_VERIFY_H
#define CUZK_GROTH16_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/groth16/groth16_params.h"
#include "cuzk/ec/pairing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_GROTH16_PROOF_BYTES 192

typedef struct cuzk_groth16_proof {
    cuzk_g1_affine a;
    cuzk_g2_affine b;
    cuzk_g1_affine c;
} cuzk_groth16_proof;

/* Prepared verifying key (bellperson PreparedVerifyingKey). */
typedef struct cuzk_groth16_pvk {
    cuzk_gt alpha_beta;         /* e(alpha_g1, beta_g2) */
    cuzk_g2_affine neg_gamma_g2;
    cuzk_g2_affine neg_delta_g2;
    size_t n_ic;
    cuzk_g1_affine *ic;         /* malloc'd copy of vk->ic */
} cuzk_groth16_pvk;

/* Which part of a proof failed to decode (finer than the cuzk_err code). */
typedef enum cuzk_groth16_proof_part {
    CUZK_GROTH16_PART_NONE = 0,
    CUZK_GROTH16_PART_A,
    CUZK_GROTH16_PART_B,
    CUZK_GROTH16_PART_C
} cuzk_groth16_proof_part;

typedef struct cuzk_groth16_proof_error {
    size_t index;                 /* proof index within the input */
    cuzk_groth16_proof_part part; /* which point */
    int code;                     /* the cuzk_err returned */
} cuzk_groth16_proof_error;

/* 192 bytes, A || B || C compressed. */
void cuzk_groth16_proof_encode(uint8_t out[CUZK_GROTH16_PROOF_BYTES], const cuzk_groth16_proof *p);

/* Decode one proof. Returns CUZK_OK, the point decoder's error
 * (CUZK_ERR_BAD_FLAGS, _NONCANONICAL, _NOT_A_SQUARE, _NOT_ON_CURVE,
 * _NOT_IN_SUBGROUP), or CUZK_ERR_FORMAT when a point is the point at
 * infinity. Parts are checked in the order A, B, C; err (may be NULL)
 * names the first bad one. *out is zeroed on failure. */
int cuzk_groth16_proof_decode(cuzk_groth16_proof *out, const uint8_t in[CUZK_GROTH16_PROOF_BYTES],
                              cuzk_groth16_proof_error *err);

/* Decode n proofs from len bytes; len != n·192 is CUZK_ERR_BAD_LENGTH.
 * The error reported is that of the first bad proof in order. */
int cuzk_groth16_proofs_decode(cuzk_groth16_proof *out, size_t n, const uint8_t *in, size_t len,
                               cuzk_groth16_proof_error *err);

/* Prepare vk: CUZK_OK, CUZK_ERR_INVALID_ARG (NULL, n_ic = 0, ic NULL) or
 * CUZK_ERR_NO_MEMORY (*pvk zeroed then). The vk points are assumed valid
 * (as cuzk_groth16_vk_read_* leaves them). */
int cuzk_groth16_prepare_vk(cuzk_groth16_pvk *pvk, const cuzk_groth16_vk *vk);
/* Release the ic copy and zero the struct (NULL-safe). */
void cuzk_groth16_pvk_free(cuzk_groth16_pvk *pvk);

/* Verify one proof against n_inputs public inputs. Returns CUZK_OK,
 * CUZK_ERR_VERIFY_FAILED, CUZK_ERR_INVALID_ARG (NULL pointers, or
 * n_inputs != n_ic - 1: bellperson's MalformedVerifyingKey) or
 * CUZK_ERR_NO_MEMORY. Proof points must be valid subgroup points
 * (cuzk_groth16_proof_decode checks). */
int cuzk_groth16_verify(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *proof,
                        const cuzk_fr *inputs, size_t n_inputs);

/* Batch-verify n proofs; inputs is n rows of n_inputs elements (row i at
 * inputs + i·n_inputs). CUZK_OK when all verify (with overwhelming
 * probability), CUZK_ERR_VERIFY_FAILED when at least one does not (it does
 * not say which), CUZK_ERR_INVALID_ARG as cuzk_groth16_verify,
 * CUZK_ERR_IO if the OS entropy source fails, CUZK_ERR_NO_MEMORY.
 * n = 0 is CUZK_OK (the empty product; nothing to reject). */
int cuzk_groth16_verify_batch(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *proofs, size_t n,
                              const cuzk_fr *inputs, size_t n_inputs);

/* As cuzk_groth16_verify_batch with the r_i drawn from the caller's rng
 * (deterministic tests; production callers use the OS-seeded variant). */
int cuzk_groth16_verify_batch_rng(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *proofs, size_t n,
                                  const cuzk_fr *inputs, size_t n_inputs, cuzk_rng *rng);

#ifdef __cplusplus
}
#endif
#endif
