/*
 * G2: the order-r subgroup of the twist E'(Fp2): y^2 = x^3 + 4(u + 1).
 * An Fp2 element c0 + c1·u is encoded as c1 then c0 (zcash order).
 *
 * Coordinates:
 *   cuzk_g2_affine  (x, y); the point at infinity is x = y = 0 (which is not
 *                   on the curve), so affine points pack into 192 bytes, as
 *                   MSM bases want.
 *   cuzk_g2_jac     Jacobian (X, Y, Z) for x = X/Z^2, y = Y/Z^3; Z = 0 is infinity.
 *   cuzk_g2_xyzz    (X, Y, ZZ, ZZZ) for x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2;
 *                   ZZ = 0 is infinity. Cheapest mixed additions (MSM buckets).
 * No function allocates; outputs may alias inputs.
 *
 * Encodings follow zcash/Filecoin: big-endian coordinates with three flag
 * bits in the top of the first byte: 0x80 compressed, 0x40 infinity, 0x20
 * "y is the lexicographically larger root" (compressed only).
 */
#ifndef CUZK_G2_H
#define CUZK_G2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fp2.h"
#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_G2_COMPRESSED_BYTES 96
#define CUZK_G2_UNCOMPRESSED_BYTES 192

typedef struct cuzk_g2_affine { cuzk_fp2 x, y; } cuzk_g2_affine;
typedef struct cuzk_g2_jac { cuzk_fp2 x, y, z; } cuzk_g2_jac;
typedef struct cuzk_g2_xyzz { cuzk_fp2 x, y, zz, zzz; } cuzk_g2_xyzz;

extern const cuzk_g2_affine cuzk_g2_generator; /* the standard generator */

/* affine */
bool cuzk_g2_affine_is_infinity(const cuzk_g2_affine *p);
bool cuzk_g2_affine_is_on_curve(const cuzk_g2_affine *p); /* infinity counts as on the curve */
/* Subgroup membership by the untwist-Frobenius-twist endomorphism psi (not multiplication by r). */
bool cuzk_g2_affine_in_subgroup(const cuzk_g2_affine *p);
bool cuzk_g2_affine_eq(const cuzk_g2_affine *a, const cuzk_g2_affine *b);
void cuzk_g2_affine_neg(cuzk_g2_affine *r, const cuzk_g2_affine *p);
/* psi = untwist-Frobenius-twist endomorphism: (x, y) -> (conj(x)·cx, conj(y)·cy)
 * with cx = 1/(u+1)^((p-1)/3), cy = 1/(u+1)^((p-1)/2). On G2 it acts as
 * multiplication by the BLS parameter x = -0xd201000000010000 (mod r). */
void cuzk_g2_affine_psi(cuzk_g2_affine *r, const cuzk_g2_affine *p);
/* x^2·P for P in G2 as psi(psi(P)) (psi acts on G2 as x); only valid for
 * points of the subgroup. Infinity (0, 0) maps to itself. */
void cuzk_g2_affine_endo_x2(cuzk_g2_affine *r, const cuzk_g2_affine *p);

/* Jacobian */
void cuzk_g2_jac_set_infinity(cuzk_g2_jac *r);
bool cuzk_g2_jac_is_infinity(const cuzk_g2_jac *p);
void cuzk_g2_jac_from_affine(cuzk_g2_jac *r, const cuzk_g2_affine *p);
void cuzk_g2_jac_to_affine(cuzk_g2_affine *r, const cuzk_g2_jac *p);
/* out[i] = in[i] in affine with one field inversion. out must not alias in. */
void cuzk_g2_jac_batch_to_affine(cuzk_g2_affine *out, const cuzk_g2_jac *in, size_t n);
bool cuzk_g2_jac_eq(const cuzk_g2_jac *a, const cuzk_g2_jac *b);
bool cuzk_g2_jac_is_on_curve(const cuzk_g2_jac *p);
void cuzk_g2_jac_neg(cuzk_g2_jac *r, const cuzk_g2_jac *p);
void cuzk_g2_jac_psi(cuzk_g2_jac *r, const cuzk_g2_jac *p); /* psi, as cuzk_g2_affine_psi */
void cuzk_g2_jac_dbl(cuzk_g2_jac *r, const cuzk_g2_jac *p);
void cuzk_g2_jac_add(cuzk_g2_jac *r, const cuzk_g2_jac *a, const cuzk_g2_jac *b);
void cuzk_g2_jac_add_affine(cuzk_g2_jac *r, const cuzk_g2_jac *a, const cuzk_g2_affine *b);
/* r = k·p, k a plain little-endian 256-bit integer (wNAF). */
void cuzk_g2_jac_mul(cuzk_g2_jac *r, const cuzk_g2_jac *p, const uint64_t k[4]);
void cuzk_g2_jac_mul_fr(cuzk_g2_jac *r, const cuzk_g2_jac *p, const cuzk_fr *k);
/* k·P by the endomorphism psi, for P in G2 only: k = d0 + d1|x| + d2|x|^2 + d3|x|^3 (each
 * d_j < 2^64, r < |x|^4) and |x|^j·P = (-psi)^j(P), all four on one doubling chain of 64 steps
 * with width-5 NAF tables (under half of cuzk_g2_jac_mul's work). The recoded scalar is kept
 * apart so that many points multiplied by one k (SnarkPack's folds) recode it once. */
typedef struct cuzk_g2_endo_scalar {
    int8_t naf[4][258];
    int len[4];
} cuzk_g2_endo_scalar;
void cuzk_g2_endo_scalar_init(cuzk_g2_endo_scalar *s, const cuzk_fr *k);
void cuzk_g2_affine_mul_endo(cuzk_g2_jac *r, const cuzk_g2_affine *p, const cuzk_g2_endo_scalar *s);

/* XYZZ */
void cuzk_g2_xyzz_set_infinity(cuzk_g2_xyzz *r);
bool cuzk_g2_xyzz_is_infinity(const cuzk_g2_xyzz *p);
void cuzk_g2_xyzz_from_affine(cuzk_g2_xyzz *r, const cuzk_g2_affine *p);
void cuzk_g2_xyzz_to_jac(cuzk_g2_jac *r, const cuzk_g2_xyzz *p);
void cuzk_g2_xyzz_dbl(cuzk_g2_xyzz *r, const cuzk_g2_xyzz *p);
void cuzk_g2_xyzz_add(cuzk_g2_xyzz *r, const cuzk_g2_xyzz *a, const cuzk_g2_xyzz *b);
void cuzk_g2_xyzz_add_affine(cuzk_g2_xyzz *r, const cuzk_g2_xyzz *a, const cuzk_g2_affine *b);

/* Encodings. Decoders validate canonical coordinates, flags, on-curve and
 * subgroup, returning a distinct cuzk_err for each failure. The _unchecked
 * decoders skip only the subgroup check (for trusted parameter files). */
void cuzk_g2_compress(uint8_t out[96], const cuzk_g2_affine *p);
void cuzk_g2_serialize(uint8_t out[192], const cuzk_g2_affine *p);
int cuzk_g2_uncompress(cuzk_g2_affine *r, const uint8_t in[96]);
int cuzk_g2_deserialize(cuzk_g2_affine *r, const uint8_t in[192]);
int cuzk_g2_uncompress_unchecked(cuzk_g2_affine *r, const uint8_t in[96]);
int cuzk_g2_deserialize_unchecked(cuzk_g2_affine *r, const uint8_t in[192]);

#ifdef __cplusplus
}
#endif
#endif
