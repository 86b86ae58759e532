/*
 * Fp: the 381-bit base field of BLS12-381,
 *   p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
 *
 * Elements are kept in Montgomery form (a·2^384 mod p) in six little-endian
 * 64-bit limbs and are always fully reduced (< p), so limb equality is
 * field equality. No function allocates. Outputs may alias inputs unless
 * stated otherwise.
 */
#ifndef CUZK_FP_H
#define CUZK_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/util/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_FP_LIMBS 6
#define CUZK_FP_BYTES 48

typedef struct cuzk_fp { uint64_t l[CUZK_FP_LIMBS]; } cuzk_fp;

extern const cuzk_fp cuzk_fp_zero;
extern const cuzk_fp cuzk_fp_one;          /* 1 in Montgomery form */
extern const uint64_t cuzk_fp_modulus[CUZK_FP_LIMBS]; /* p as a plain integer */

void cuzk_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_dbl(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_neg(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sqr(cuzk_fp *r, const cuzk_fp *a);
/* r = a^-1; the inverse of zero is defined as zero. */
void cuzk_fp_inv(cuzk_fp *r, const cuzk_fp *a);
/*
 * out[i] = in[i]^-1 for i < n with one inversion (Montgomery's trick);
 * zeros map to zero. out must not alias in.
 */
void cuzk_fp_batch_inv(cuzk_fp *out, const cuzk_fp *in, size_t n);
/* r = a^e, e a plain little-endian integer of e_limbs limbs. */
void cuzk_fp_pow(cuzk_fp *r, const cuzk_fp *a, const uint64_t *e, size_t e_limbs);
/* r = sqrt(a) if a is a square (returns true), else r untouched, false. */
bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a);
/* Legendre symbol: 1 for nonzero squares, -1 for non-squares, 0 for zero. */
int cuzk_fp_legendre(const cuzk_fp *a);

bool cuzk_fp_is_zero(const cuzk_fp *a);
bool cuzk_fp_is_one(const cuzk_fp *a);
bool cuzk_fp_eq(const cuzk_fp *a, const cuzk_fp *b);

void cuzk_fp_set_u64(cuzk_fp *r, uint64_t v);
/* From / to a canonical integer in little-endian limbs; >= p is CUZK_ERR_NONCANONICAL. */
int cuzk_fp_from_limbs(cuzk_fp *r, const uint64_t a[CUZK_FP_LIMBS]);
void cuzk_fp_to_limbs(uint64_t out[CUZK_FP_LIMBS], const cuzk_fp *a);
/* 48-byte big-endian canonical encoding (the zcash/Filecoin coordinate format). */
int cuzk_fp_from_be48(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES]);
void cuzk_fp_to_be48(uint8_t out[CUZK_FP_BYTES], const cuzk_fp *a);
/* Uniformly random element. */
void cuzk_fp_random(cuzk_fp *r, cuzk_rng *rng);

#ifdef __cplusplus
}
#endif
#endif
