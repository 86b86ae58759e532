/*
 * The BLS12-381 extension tower above Fp2:
 *   Fp6  = Fp2[v] / (v^3 - xi), xi = u + 1:   c0 + c1·v + c2·v^2
 *   Fp12 = Fp6[w] / (w^2 - v):                 c0 + c1·w
 * so w^6 = xi. Fp12 holds the pairing's target group GT.
 *
 * No function allocates; outputs may alias inputs.
 */
#ifndef CUZK_FP12_H
#define CUZK_FP12_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/ff/fp2.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_FP12_BYTES 576 /* 12 · 48 */

typedef struct cuzk_fp6 { cuzk_fp2 c0, c1, c2; } cuzk_fp6;
typedef struct cuzk_fp12 { cuzk_fp6 c0, c1; } cuzk_fp12;

extern const cuzk_fp6 cuzk_fp6_zero;
extern const cuzk_fp6 cuzk_fp6_one;
extern const cuzk_fp12 cuzk_fp12_zero;
extern const cuzk_fp12 cuzk_fp12_one;

/* ---- Fp6 ---- */
void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_dbl(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);  /* Karatsuba, 6 Fp2 muls */
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a);                     /* Chung-Hasan SQR2 */
void cuzk_fp6_mul_fp2(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b);
/* r = a·(b0 + b1·v) (5 Fp2 muls) and r = a·(b1·v) (3 Fp2 muls): sparse line factors. */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
/* r = a·v, the non-residue used to build Fp12. */
void cuzk_fp6_mul_by_nonresidue(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a); /* inv(0) = 0 */
/* r = a^(p^k) for any k >= 0. */
void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned k);
bool cuzk_fp6_is_zero(const cuzk_fp6 *a);
bool cuzk_fp6_is_one(const cuzk_fp6 *a);
bool cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_random(cuzk_fp6 *r, cuzk_rng *rng);

/* ---- Fp12 ---- */
void cuzk_fp12_add(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_sub(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_neg(cuzk_fp12 *r, const cuzk_fp12 *a);
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b); /* Karatsuba, 3 Fp6 muls */
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);                     /* complex squaring, 2 Fp6 muls */
void cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a);                     /* inv(0) = 0 */
/* r = c0 - c1·w = a^(p^6); the inverse of a for a in the cyclotomic subgroup. */
void cuzk_fp12_conjugate(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^(p^k) for any k >= 0 (tables for k = 1, 2, 3; others by composition). */
void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned k);
/*
 * r = a·l for the sparse line value l = l0 + l1·v + l4·v·w (coefficients at
 * positions 0, 1 and 4 of the basis 1, v, v^2, w, vw, v^2w). This is the shape
 * of a line through points of BLS12-381's M-type twist, evaluated at a G1
 * point after untwisting and scaling by w^3.
 */
void cuzk_fp12_mul_by_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                          const cuzk_fp2 *l4);
/*
 * Granger-Scott squaring, valid only for a in the cyclotomic subgroup
 * (a^(p^4 - p^2 + 1) = 1, e.g. any a^((p^6-1)(p^2+1))). 9 Fp2 squarings.
 */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^e (plain square-and-multiply), e a little-endian integer of e_limbs limbs. */
void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t e_limbs);
/* r = a^e by cyclotomic squarings; a must be in the cyclotomic subgroup. */
void cuzk_fp12_cyclotomic_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t e_limbs);
bool cuzk_fp12_is_zero(const cuzk_fp12 *a);
bool cuzk_fp12_is_one(const cuzk_fp12 *a);
bool cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_random(cuzk_fp12 *r, cuzk_rng *rng);
/*
 * 576-byte encoding in @noble/curves' Fp12.toBytes order: c0.c0.c0, c0.c0.c1,
 * c0.c1.c0, ... c1.c2.c1 (Fp2 as c0 then c1; note this is NOT the zcash
 * c1-first order of G2 coordinates), each a 48-byte big-endian integer.
 */
void cuzk_fp12_to_bytes(uint8_t out[CUZK_FP12_BYTES], const cuzk_fp12 *a);
/* Inverse of cuzk_fp12_to_bytes; CUZK_ERR_NONCANONICAL if a coordinate is >= p. */
int cuzk_fp12_from_bytes(cuzk_fp12 *r, const uint8_t in[CUZK_FP12_BYTES]);

#ifdef __cplusplus
}
#endif
#endif
