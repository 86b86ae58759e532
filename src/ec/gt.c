/*
 * GT encodings and membership: blstrs' compressed form of a pairing value (what SnarkPack
 * proofs carry), the subgroup test its reader applies, and the little-endian 576-byte form
 * serde/bincode gives a Gt (what SnarkPack transcripts hash). See cuzk/ec/pairing.h.
 */
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ec/pairing.h"

static const uint64_t BLS_X_ABS = 0xd201000000010000ULL;

static void fp_to_le48(uint8_t out[48], const cuzk_fp *a)
{
    uint8_t be[48];
    cuzk_fp_to_be48(be, a);
    for (int i = 0; i < 48; i++) out[i] = be[47 - i];
}

static int fp_from_le48(cuzk_fp *r, const uint8_t in[48])
{
    uint8_t be[48];
    for (int i = 0; i < 48; i++) be[i] = in[47 - i];
    return cuzk_fp_from_be48(r, be);
}

/* The six Fp coefficients of an Fp6 in order c0.c0, c0.c1, c1.c0, c1.c1, c2.c0, c2.c1. */
static cuzk_fp *fp6_coeff(cuzk_fp6 *a, int i)
{
    cuzk_fp2 *c = i < 2 ? &a->c0 : i < 4 ? &a->c1 : &a->c2;
    return i % 2 ? &c->c1 : &c->c0;
}

bool cuzk_gt_in_subgroup(const cuzk_gt *a)
{
    /* Cyclotomic: a^(p^4 - p^2 + 1) = 1, i.e. a^(p^4)·a = a^(p^2). */
    cuzk_fp12 f4, f2, t;
    if (cuzk_fp12_is_zero(a)) return false;
    cuzk_fp12_frobenius(&f4, a, 4);
    cuzk_fp12_frobenius(&f2, a, 2);
    cuzk_fp12_mul(&t, &f4, a);
    if (!cuzk_fp12_eq(&t, &f2)) return false;
    /* Order r within it: a^p = a^x, x the (negative) BLS parameter, since p = x mod r. */
    cuzk_fp12 ax, ap;
    cuzk_fp12_cyclotomic_pow(&ax, a, &BLS_X_ABS, 1);
    cuzk_fp12_conjugate(&ax, &ax);
    cuzk_fp12_frobenius(&ap, a, 1);
    return cuzk_fp12_eq(&ax, &ap);
}

int cuzk_gt_compress(uint8_t out[CUZK_GT_COMPRESSED_BYTES], const cuzk_gt *a)
{
    /* Torus compression: b = (c0 + 1) / c1, undefined for c1 = 0 (a = ±1). */
    if (cuzk_fp6_is_zero(&a->c1)) return memset(out, 0, CUZK_GT_COMPRESSED_BYTES), CUZK_ERR_INVALID_ARG;
    cuzk_fp6 b, inv;
    cuzk_fp6_add(&b, &a->c0, &cuzk_fp6_one);
    cuzk_fp6_inv(&inv, &a->c1);
    cuzk_fp6_mul(&b, &b, &inv);
    for (int i = 0; i < 6; i++) fp_to_le48(out + 48 * i, fp6_coeff(&b, i));
    return CUZK_OK;
}

int cuzk_gt_uncompress(cuzk_gt *r, const uint8_t in[CUZK_GT_COMPRESSED_BYTES])
{
    cuzk_fp12 num, den;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < 6; i++)
        if (fp_from_le48(fp6_coeff(&num.c0, i), in + 48 * i)) return CUZK_ERR_NONCANONICAL;
    /* a = (b + w) / (b - w) */
    num.c1 = cuzk_fp6_one;
    den.c0 = num.c0;
    cuzk_fp6_neg(&den.c1, &cuzk_fp6_one);
    cuzk_fp12_inv(&den, &den);
    cuzk_fp12_mul(r, &num, &den);
    if (!cuzk_gt_in_subgroup(r)) return memset(r, 0, sizeof *r), CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

void cuzk_gt_to_le_bytes(uint8_t out[CUZK_FP12_BYTES], const cuzk_gt *a)
{
    cuzk_fp12 t = *a;
    for (int i = 0; i < 6; i++) fp_to_le48(out + 48 * i, fp6_coeff(&t.c0, i));
    for (int i = 0; i < 6; i++) fp_to_le48(out + 288 + 48 * i, fp6_coeff(&t.c1, i));
}
