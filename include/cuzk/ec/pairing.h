/*
 * The optimal ate pairing on BLS12-381, e: G1 x G2 -> GT ⊂ Fp12.
 *
 * Miller loop over |x| = 0xd201000000010000 (x = -0xd201000000010000 is the
 * BLS parameter) with the G2 point in homogeneous projective coordinates and
 * lines evaluated at the affine G1 point, conjugated at the end because x < 0.
 * Final exponentiation: easy part (p^6 - 1)(p^2 + 1), hard part by the
 * identity 3·(p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
 * (Hayashida-Hayasaka-Teruya 2020) with five cyclotomic exponentiations by x.
 *
 * So cuzk_pairing(P, Q) = f_{x,Q}(P)^(3·(p^12 - 1)/r), the cube of the
 * "plain" reduced ate pairing. This is the same GT value as @noble/curves
 * (tests/pairing_noble.test.sh compares bytes); since gcd(3, r) = 1 it is
 * still a non-degenerate bilinear pairing, and every equation between
 * pairings (Groth16 verification) is unaffected.
 *
 * Points at infinity (affine (0, 0)) are allowed and contribute 1. Inputs are
 * assumed to be valid subgroup points (the decoders in g1.h / g2.h check).
 * Nothing here allocates.
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/ff/fp12.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Elements of GT are Fp12 elements (of order dividing r). */
typedef cuzk_fp12 cuzk_gt;

/* r = product over i < n of the Miller loops f_{x,Q[i]}(P[i]) (shared squarings); n = 0 gives 1. */
void cuzk_pairing_miller_loop(cuzk_fp12 *r, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n);
/*
 * Several products of Miller loops at once, for pairs that share G2 points (SnarkPack's
 * commitments pair each key and proof point of G2 with two or three G1 points, in different
 * products). A group is one G2 point q and its n <= CUZK_PAIRING_GROUP_MAX pairs: pair k is
 * (p[k], q), its Miller loop multiplied into product prod[k] < nprod <= CUZK_PAIRING_PRODS_MAX.
 * The group's point doubling and addition steps (the lines' coefficients) are computed once and
 * evaluated at each of its G1 points; each product's squarings are shared by all of its pairs.
 * out[k] = the product of the Miller loops sent to k, as cuzk_pairing_miller_loop gives it
 * (1 for a product no pair is sent to); pairs with a point at infinity contribute 1.
 */
#define CUZK_PAIRING_GROUP_MAX 4
#define CUZK_PAIRING_PRODS_MAX 16
typedef struct cuzk_pairing_group {
    const cuzk_g2_affine *q;
    const cuzk_g1_affine *p[CUZK_PAIRING_GROUP_MAX];
    unsigned char prod[CUZK_PAIRING_GROUP_MAX];
    unsigned char n;
} cuzk_pairing_group;
void cuzk_pairing_miller_loop_groups(cuzk_fp12 *out, size_t nprod, const cuzk_pairing_group *g, size_t ng);
/* r = f^(3·(p^12 - 1)/r). f must be nonzero. */
void cuzk_pairing_final_exp(cuzk_gt *r, const cuzk_fp12 *f);
/* r = e(P, Q). */
void cuzk_pairing(cuzk_gt *r, const cuzk_g1_affine *P, const cuzk_g2_affine *Q);
/* r = product of e(P[i], Q[i]) with one final exponentiation. */
void cuzk_pairing_multi(cuzk_gt *r, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n);
/* Whether the product of e(P[i], Q[i]) is 1 (the form pairing equations are checked in). */
bool cuzk_pairing_check(const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n);

bool cuzk_gt_eq(const cuzk_gt *a, const cuzk_gt *b);
bool cuzk_gt_is_one(const cuzk_gt *a);
/* r = a·b, r = a^-1 (conjugation: GT lies in the cyclotomic subgroup), r = a^k (k < 2^256, 4 limbs). */
void cuzk_gt_mul(cuzk_gt *r, const cuzk_gt *a, const cuzk_gt *b);
void cuzk_gt_inv(cuzk_gt *r, const cuzk_gt *a);
void cuzk_gt_pow(cuzk_gt *r, const cuzk_gt *a, const uint64_t k[4]);

/*
 * Encodings of GT as Filecoin's SnarkPack proofs and transcripts carry them (facts from
 * filecoin-project/blstrs src/gt.rs Compress and src/serde_impl.rs):
 *   compressed (288 bytes): the torus form b = (c0 + 1)/c1 of a = c0 + c1·w, its six Fp
 *     coefficients b.c0.c0, b.c0.c1, b.c1.c0, b.c1.c1, b.c2.c0, b.c2.c1 each 48 bytes
 *     little-endian; decompression is a = (b + w)/(b - w). 1 and -1 (c1 = 0) have no form:
 *     cuzk_gt_compress answers CUZK_ERR_INVALID_ARG. cuzk_gt_uncompress answers
 *     CUZK_ERR_NONCANONICAL (a coefficient >= p) or CUZK_ERR_NOT_IN_SUBGROUP (blst's
 *     fp12_in_group: cyclotomic and of order r); *r is zeroed on failure.
 *   little-endian (576 bytes): the twelve Fp coefficients in cuzk_fp12_to_bytes' order, each
 *     48 bytes little-endian (serde's [u64; 6] per Fp under bincode).
 * cuzk_gt_in_subgroup: a^(p^4 - p^2 + 1) = 1 and a^p = a^x (p = x mod r).
 */
#define CUZK_GT_COMPRESSED_BYTES 288
bool cuzk_gt_in_subgroup(const cuzk_gt *a);
int cuzk_gt_compress(uint8_t out[CUZK_GT_COMPRESSED_BYTES], const cuzk_gt *a);
int cuzk_gt_uncompress(cuzk_gt *r, const uint8_t in[CUZK_GT_COMPRESSED_BYTES]);
void cuzk_gt_to_le_bytes(uint8_t out[CUZK_FP12_BYTES], const cuzk_gt *a);

#ifdef __cplusplus
}
#endif
#endif
