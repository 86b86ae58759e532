/*
 * Fp2 = Fp[u] / (u^2 + 1): c0 + c1·u. The field of G2's coordinates.
 * No function allocates; outputs may alias inputs.
 */
#ifndef CUZK_FP2_H
#define CUZK_FP2_H

#include "cuzk/ff/fp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_fp2 { cuzk_fp c0, c1; } cuzk_fp2;

extern const cuzk_fp2 cuzk_fp2_zero;
extern const cuzk_fp2 cuzk_fp2_one;

void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a); /* c0 - c1·u, also the Frobenius map */
void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b);
/* r = a·(u + 1), the non-residue used to build Fp6. */
void cuzk_fp2_mul_by_nonresidue(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a); /* inv(0) = 0 */
/* Norm c0^2 + c1^2 in Fp. */
void cuzk_fp2_norm(cuzk_fp *r, const cuzk_fp2 *a);
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t e_limbs);
/* r = sqrt(a) if a is a square in Fp2 (true), else r untouched (false). */
bool cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a);
/* 1 for nonzero squares, -1 for non-squares, 0 for zero. */
int cuzk_fp2_legendre(const cuzk_fp2 *a);

bool cuzk_fp2_is_zero(const cuzk_fp2 *a);
bool cuzk_fp2_is_one(const cuzk_fp2 *a);
bool cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_random(cuzk_fp2 *r, cuzk_rng *rng);

#ifdef __cplusplus
}
#endif
#endif
