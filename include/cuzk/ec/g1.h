/*
 * G1: the order-r subgroup of E(Fp): y^2 = x^3 + 4.
 *
 * Coordinates:
 *   cuzk_g1_affine  (x, y); the point at infinity is x = y = 0 (which is not
 *                   on the curve), so affine points pack into 96 bytes, as
 *                   MSM bases want.
 *   cuzk_g1_jac     Jacobian (X, Y, Z) for x = X/Z^2, y = Y/Z^3; Z = 0 is infinity.
 *   cuzk_g1_xyzz    (X, Y, ZZ, ZZZ) for x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2;
 *                   ZZ = 0 is infinity. Cheapest mixed additions (MSM buckets).
 * No function allocates; outputs may alias inputs.
 *
 * Encodings follow zcash/Filecoin: big-endian coordinates with three flag
 * bits in the top of the first byte: 0x80 compressed, 0x40 infinity, 0x20
 * "y is the lexicographically larger root" (compressed only).
 */
#ifndef CUZK_G1_H
#define CUZK_G1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fp.h"
#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_G1_COMPRESSED_BYTES 48
#define CUZK_G1_UNCOMPRESSED_BYTES 96

typedef struct cuzk_g1_affine { cuzk_fp x, y; } cuzk_g1_affine;
typedef struct cuzk_g1_jac { cuzk_fp x, y, z; } cuzk_g1_jac;
typedef struct cuzk_g1_xyzz { cuzk_fp x, y, zz, zzz; } cuzk_g1_xyzz;

extern const cuzk_g1_affine cuzk_g1_generator; /* the standard generator */

/* affine */
bool cuzk_g1_affine_is_infinity(const cuzk_g1_affine *p);
bool cuzk_g1_affine_is_on_curve(const cuzk_g1_affine *p); /* infinity counts as on the curve */
/* Subgroup membership by the GLV endomorphism (not multiplication by r). */
bool cuzk_g1_affine_in_subgroup(const cuzk_g1_affine *p);
/* x^2·P for P in G1 (x the BLS parameter) by the GLV endomorphism: phi(x, y) =
 * (beta·x, y) acts on G1 as lambda = -x^2 mod r (lambda^2 + lambda + 1 = 0),
 * so x^2·P = -phi(P) = (beta·x, -y). One Fp multiplication; only valid for
 * points of the subgroup. Infinity (0, 0) maps to itself. */
void cuzk_g1_affine_endo_x2(cuzk_g1_affine *r, const cuzk_g1_affine *p);
bool cuzk_g1_affine_eq(const cuzk_g1_affine *a, const cuzk_g1_affine *b);
void cuzk_g1_affine_neg(cuzk_g1_affine *r, const cuzk_g1_affine *p);

/* Jacobian */
void cuzk_g1_jac_set_infinity(cuzk_g1_jac *r);
bool cuzk_g1_jac_is_infinity(const cuzk_g1_jac *p);
void cuzk_g1_jac_from_affine(cuzk_g1_jac *r, const cuzk_g1_affine *p);
void cuzk_g1_jac_to_affine(cuzk_g1_affine *r, const cuzk_g1_jac *p);
/* out[i] = in[i] in affine with one field inversion. out must not alias in. */
void cuzk_g1_jac_batch_to_affine(cuzk_g1_affine *out, const cuzk_g1_jac *in, size_t n);
bool cuzk_g1_jac_eq(const cuzk_g1_jac *a, const cuzk_g1_jac *b);
bool cuzk_g1_jac_is_on_curve(const cuzk_g1_jac *p);
void cuzk_g1_jac_neg(cuzk_g1_jac *r, const cuzk_g1_jac *p);
void cuzk_g1_jac_dbl(cuzk_g1_jac *r, const cuzk_g1_jac *p);
void cuzk_g1_jac_add(cuzk_g1_jac *r, const cuzk_g1_jac *a, const cuzk_g1_jac *b);
void cuzk_g1_jac_add_affine(cuzk_g1_jac *r, const cuzk_g1_jac *a, const cuzk_g1_affine *b);
/* r = k·p, k a plain little-endian 256-bit integer (wNAF). */
void cuzk_g1_jac_mul(cuzk_g1_jac *r, const cuzk_g1_jac *p, const uint64_t k[4]);
void cuzk_g1_jac_mul_fr(cuzk_g1_jac *r, const cuzk_g1_jac *p, const cuzk_fr *k);
/* k·P by the GLV endomorphism, for P in G1 only: k = k1 + k2·x^2 (k1, k2 < 2^128) and
 * x^2·P = (beta·x, -y), both on one doubling chain of 128 steps with width-5 NAF tables
 * (about half of cuzk_g1_jac_mul's work). The recoded scalar is kept apart so that many points
 * multiplied by one k (SnarkPack's folds) recode it once. */
typedef struct cuzk_g1_endo_scalar {
    int8_t naf[2][258];
    int len[2];
} cuzk_g1_endo_scalar;
void cuzk_g1_endo_scalar_init(cuzk_g1_endo_scalar *s, const cuzk_fr *k);
void cuzk_g1_affine_mul_endo(cuzk_g1_jac *r, const cuzk_g1_affine *p, const cuzk_g1_endo_scalar *s);

/* XYZZ */
void cuzk_g1_xyzz_set_infinity(cuzk_g1_xyzz *r);
bool cuzk_g1_xyzz_is_infinity(const cuzk_g1_xyzz *p);
void cuzk_g1_xyzz_from_affine(cuzk_g1_xyzz *r, const cuzk_g1_affine *p);
void cuzk_g1_xyzz_to_jac(cuzk_g1_jac *r, const cuzk_g1_xyzz *p);
void cuzk_g1_xyzz_dbl(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *p);
void cuzk_g1_xyzz_add(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a, const cuzk_g1_xyzz *b);
void cuzk_g1_xyzz_add_affine(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *a, const cuzk_g1_affine *b);

/* Encodings. Decoders validate canonical coordinates, flags, on-curve and
 * subgroup, returning a distinct cuzk_err for each failure. The _unchecked
 * decoders skip only the subgroup check (for trusted parameter files). */
void cuzk_g1_compress(uint8_t out[48], const cuzk_g1_affine *p);
void cuzk_g1_serialize(uint8_t out[96], const cuzk_g1_affine *p);
int cuzk_g1_uncompress(cuzk_g1_affine *r, const uint8_t in[48]);
int cuzk_g1_deserialize(cuzk_g1_affine *r, const uint8_t in[96]);
int cuzk_g1_uncompress_unchecked(cuzk_g1_affine *r, const uint8_t in[48]);
int cuzk_g1_deserialize_unchecked(cuzk_g1_affine *r, const uint8_t in[96]);

#ifdef __cplusplus
}
#endif
#endif
