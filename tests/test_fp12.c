/*
 * Fp6 / Fp12 tower: field axioms, an independent schoolbook product in
 * Fp2[w]/(w^6 - xi), inverses, Frobenius maps against exponentiation by p
 * (and their coefficient tables against xi^(j(p^k-1)/6) computed with GMP),
 * cyclotomic squaring, sparse line multiplication, byte encoding.
 */
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/ff.h"
#include "cuzk/ff/fp12.h"
#include "testutil.h"
#ifdef CUZK_HAVE_GMP
#include <gmp.h>
#endif

extern const cuzk_fp2 cuzk_fp12_frob_gamma[3][6]; /* the library's table (src/ff/fp6.c) */

/* Coefficient of w^j (c0 holds j = 0, 2, 4; c1 holds j = 1, 3, 5). */
static cuzk_fp2 *coef(cuzk_fp12 *a, int j)
{
    cuzk_fp6 *s = (j & 1) ? &a->c1 : &a->c0;
    int i = j / 2;
    return i == 0 ? &s->c0 : i == 1 ? &s->c1 : &s->c2;
}

/* Schoolbook product in Fp2[w]/(w^6 - xi), independent of the tower formulas. */
static void ref_mul(cuzk_fp12 *r, const cuzk_fp12 *a_in, const cuzk_fp12 *b_in)
{
    cuzk_fp12 a = *a_in, b = *b_in;
    cuzk_fp2 acc[11];
    for (int k = 0; k < 11; k++) acc[k] = cuzk_fp2_zero;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            cuzk_fp2 t;
            cuzk_fp2_mul(&t, coef(&a, i), coef(&b, j));
            cuzk_fp2_add(&acc[i + j], &acc[i + j], &t);
        }
    for (int k = 10; k >= 6; k--) {
        cuzk_fp2 t;
        cuzk_fp2_mul_by_nonresidue(&t, &acc[k]);
        cuzk_fp2_add(&acc[k - 6], &acc[k - 6], &t);
    }
    for (int k = 0; k < 6; k++) *coef(r, k) = acc[k];
}

static void fp12_from_fp6(cuzk_fp12 *r, const cuzk_fp6 *a)
{
    r->c0 = *a;
    r->c1 = cuzk_fp6_zero;
}

/* f^((p^6-1)(p^2+1)): lands in the cyclotomic subgroup. */
static void easy_part(cuzk_fp12 *r, const cuzk_fp12 *f)
{
    cuzk_fp12 t, inv;
    cuzk_fp12_conjugate(&t, f);
    cuzk_fp12_inv(&inv, f);
    cuzk_fp12_mul(&t, &t, &inv);
    cuzk_fp12_frobenius(r, &t, 2);
    cuzk_fp12_mul(r, r, &t);
}

static void test_fp6(cuzk_rng *rng)
{
    for (int it = 0; it < 50; it++) {
        cuzk_fp6 a, b, c, x, y, z;
        cuzk_fp6_random(&a, rng);
        cuzk_fp6_random(&b, rng);
        cuzk_fp6_random(&c, rng);
        /* commutativity, associativity, distributivity */
        cuzk_fp6_mul(&x, &a, &b);
        cuzk_fp6_mul(&y, &b, &a);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6_mul(&x, &x, &c);
        cuzk_fp6_mul(&y, &b, &c);
        cuzk_fp6_mul(&y, &a, &y);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6_add(&x, &b, &c);
        cuzk_fp6_mul(&x, &a, &x);
        cuzk_fp6_mul(&y, &a, &b);
        cuzk_fp6_mul(&z, &a, &c);
        cuzk_fp6_add(&y, &y, &z);
        CHECK(cuzk_fp6_eq(&x, &y));
        /* against the Fp12 schoolbook product (Fp6 = the w-even part) */
        cuzk_fp12 A, B, R;
        fp12_from_fp6(&A, &a);
        fp12_from_fp6(&B, &b);
        ref_mul(&R, &A, &B);
        cuzk_fp6_mul(&x, &a, &b);
        CHECK(cuzk_fp6_eq(&x, &R.c0) && cuzk_fp6_is_zero(&R.c1));
        /* squaring, doubling, neg, sub */
        cuzk_fp6_sqr(&x, &a);
        cuzk_fp6_mul(&y, &a, &a);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6_dbl(&x, &a);
        cuzk_fp6_add(&y, &a, &a);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6_neg(&x, &a);
        cuzk_fp6_add(&x, &x, &a);
        CHECK(cuzk_fp6_is_zero(&x));
        cuzk_fp6_sub(&x, &a, &b);
        cuzk_fp6_add(&x, &x, &b);
        CHECK(cuzk_fp6_eq(&x, &a));
        /* identities */
        cuzk_fp6_mul(&x, &a, &cuzk_fp6_one);
        CHECK(cuzk_fp6_eq(&x, &a));
        cuzk_fp6_add(&x, &a, &cuzk_fp6_zero);
        CHECK(cuzk_fp6_eq(&x, &a));
        /* inverse */
        cuzk_fp6_inv(&x, &a);
        cuzk_fp6_mul(&x, &x, &a);
        CHECK(cuzk_fp6_is_one(&x));
        /* non-residue v, mul by Fp2, sparse forms */
        cuzk_fp6 v = {cuzk_fp2_zero, cuzk_fp2_one, cuzk_fp2_zero};
        cuzk_fp6_mul_by_nonresidue(&x, &a);
        cuzk_fp6_mul(&y, &a, &v);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6 bs = {b.c0, cuzk_fp2_zero, cuzk_fp2_zero};
        cuzk_fp6_mul_fp2(&x, &a, &b.c0);
        cuzk_fp6_mul(&y, &a, &bs);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6 b01 = {b.c0, b.c1, cuzk_fp2_zero};
        cuzk_fp6_mul_by_01(&x, &a, &b.c0, &b.c1);
        cuzk_fp6_mul(&y, &a, &b01);
        CHECK(cuzk_fp6_eq(&x, &y));
        cuzk_fp6 b1 = {cuzk_fp2_zero, b.c1, cuzk_fp2_zero};
        cuzk_fp6_mul_by_1(&x, &a, &b.c1);
        cuzk_fp6_mul(&y, &a, &b1);
        CHECK(cuzk_fp6_eq(&x, &y));
        /* aliasing: r = a */
        x = a;
        cuzk_fp6_mul(&x, &x, &x);
        cuzk_fp6_sqr(&y, &a);
        CHECK(cuzk_fp6_eq(&x, &y));
    }
    cuzk_fp6 z0 = cuzk_fp6_zero, x;
    cuzk_fp6_inv(&x, &z0);
    CHECK(cuzk_fp6_is_zero(&x));
    CHECK(!cuzk_fp6_is_one(&cuzk_fp6_zero) && cuzk_fp6_is_one(&cuzk_fp6_one));

    /* Frobenius: a^(p^k) by exponentiation; and frob^6 = id */
    for (int it = 0; it < 3; it++) {
        cuzk_fp6 a, pw, fr;
        cuzk_fp6_random(&a, rng);
        cuzk_fp12 A, P;
        fp12_from_fp6(&A, &a);
        P = A;
        for (unsigned k = 1; k <= 6; k++) {
            cuzk_fp12_pow(&P, &P, cuzk_fp_modulus, CUZK_FP_LIMBS);
            pw = P.c0;
            cuzk_fp6_frobenius(&fr, &a, k);
            CHECK_MSG(cuzk_fp6_eq(&fr, &pw), "fp6 frobenius k=%u", k);
        }
        CHECK(cuzk_fp6_eq(&pw, &a)); /* a^(p^6) = a */
        cuzk_fp6_frobenius(&fr, &a, 1);
        cuzk_fp6_frobenius(&pw, &a, 2);
        CHECK(!cuzk_fp6_eq(&fr, &a) && !cuzk_fp6_eq(&pw, &a));
    }
}

static void test_fp12_arith(cuzk_rng *rng)
{
    for (int it = 0; it < 50; it++) {
        cuzk_fp12 a, b, c, x, y, z;
        cuzk_fp12_random(&a, rng);
        cuzk_fp12_random(&b, rng);
        cuzk_fp12_random(&c, rng);
        cuzk_fp12_mul(&x, &a, &b);
        ref_mul(&y, &a, &b);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_mul(&y, &b, &a);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_mul(&x, &x, &c);
        cuzk_fp12_mul(&y, &b, &c);
        cuzk_fp12_mul(&y, &a, &y);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_add(&x, &b, &c);
        cuzk_fp12_mul(&x, &a, &x);
        cuzk_fp12_mul(&y, &a, &b);
        cuzk_fp12_mul(&z, &a, &c);
        cuzk_fp12_add(&y, &y, &z);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_sqr(&x, &a);
        ref_mul(&y, &a, &a);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_neg(&x, &a);
        cuzk_fp12_add(&x, &x, &a);
        CHECK(cuzk_fp12_is_zero(&x));
        cuzk_fp12_sub(&x, &a, &b);
        cuzk_fp12_add(&x, &x, &b);
        CHECK(cuzk_fp12_eq(&x, &a));
        cuzk_fp12_mul(&x, &a, &cuzk_fp12_one);
        CHECK(cuzk_fp12_eq(&x, &a));
        cuzk_fp12_inv(&x, &a);
        cuzk_fp12_mul(&x, &x, &a);
        CHECK(cuzk_fp12_is_one(&x));
        /* sparse line multiplication == full multiplication */
        cuzk_fp2 l0, l1, l4;
        cuzk_fp2_random(&l0, rng);
        cuzk_fp2_random(&l1, rng);
        cuzk_fp2_random(&l4, rng);
        cuzk_fp12 l = cuzk_fp12_zero;
        l.c0.c0 = l0;
        l.c0.c1 = l1;
        l.c1.c1 = l4;
        cuzk_fp12_mul_by_014(&x, &a, &l0, &l1, &l4);
        ref_mul(&y, &a, &l);
        CHECK(cuzk_fp12_eq(&x, &y));
        x = a;
        cuzk_fp12_mul_by_014(&x, &x, &l0, &l1, &l4); /* aliasing */
        CHECK(cuzk_fp12_eq(&x, &y));
        /* conjugate = frobenius 6, and a·conj(a) lies in Fp6 */
        cuzk_fp12_conjugate(&x, &a);
        cuzk_fp12_frobenius(&y, &a, 6);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_fp12_mul(&x, &x, &a);
        CHECK(cuzk_fp6_is_zero(&x.c1));
    }
    cuzk_fp12 z0 = cuzk_fp12_zero, x;
    cuzk_fp12_inv(&x, &z0);
    CHECK(cuzk_fp12_is_zero(&x));
    CHECK(cuzk_fp12_is_one(&cuzk_fp12_one) && !cuzk_fp12_is_one(&cuzk_fp12_zero));
}

static void test_fp12_frobenius(cuzk_rng *rng)
{
    for (int it = 0; it < 3; it++) {
        cuzk_fp12 a, P, f, g;
        cuzk_fp12_random(&a, rng);
        P = a;
        for (unsigned k = 1; k <= 12; k++) {
            cuzk_fp12_pow(&P, &P, cuzk_fp_modulus, CUZK_FP_LIMBS);
            cuzk_fp12_frobenius(&f, &a, k);
            CHECK_MSG(cuzk_fp12_eq(&f, &P), "fp12 frobenius k=%u", k);
            if (k < 12) CHECK(!cuzk_fp12_eq(&f, &a));
        }
        CHECK(cuzk_fp12_eq(&P, &a)); /* a^(p^12) = a */
        /* frobenius^12 == id by composition of single steps */
        g = a;
        for (int k = 0; k < 12; k++) cuzk_fp12_frobenius(&g, &g, 1);
        CHECK(cuzk_fp12_eq(&g, &a));
        /* Frobenius is a ring map */
        cuzk_fp12 b, ab, fa, fb;
        cuzk_fp12_random(&b, rng);
        cuzk_fp12_mul(&ab, &a, &b);
        for (unsigned k = 1; k <= 3; k++) {
            cuzk_fp12_frobenius(&f, &ab, k);
            cuzk_fp12_frobenius(&fa, &a, k);
            cuzk_fp12_frobenius(&fb, &b, k);
            cuzk_fp12_mul(&fa, &fa, &fb);
            CHECK(cuzk_fp12_eq(&f, &fa));
        }
    }
#ifdef CUZK_HAVE_GMP
    /* The table entries themselves: gamma_{k,j} = xi^(j(p^k-1)/6). */
    mpz_t p, e;
    mpz_inits(p, e, NULL);
    mpz_import(p, CUZK_FP_LIMBS, -1, 8, 0, 0, cuzk_fp_modulus);
    cuzk_fp2 xi = {cuzk_fp_one, cuzk_fp_one};
    for (unsigned k = 1; k <= 3; k++)
        for (unsigned j = 1; j <= 5; j++) {
            mpz_pow_ui(e, p, k);
            mpz_sub_ui(e, e, 1);
            mpz_mul_ui(e, e, j);
            CHECK(mpz_divisible_ui_p(e, 6));
            mpz_divexact_ui(e, e, 6);
            uint64_t limbs[20] = {0};
            size_t n = 0;
            mpz_export(limbs, &n, -1, 8, 0, 0, e);
            cuzk_fp2 g;
            cuzk_fp2_pow(&g, &xi, limbs, n);
            CHECK_MSG(cuzk_fp2_eq(&g, &cuzk_fp12_frob_gamma[k - 1][j]), "gamma k=%u j=%u", k, j);
        }
    mpz_clears(p, e, NULL);
#endif
}

static void test_cyclotomic(cuzk_rng *rng)
{
    for (int it = 0; it < 10; it++) {
        cuzk_fp12 f, c, s1, s2;
        cuzk_fp12_random(&f, rng);
        easy_part(&c, &f);
        /* c is in the cyclotomic subgroup: c^(p^4 - p^2 + 1) = 1, i.e. c^(p^4)·c = c^(p^2) */
        cuzk_fp12 t4, t2;
        cuzk_fp12_frobenius(&t4, &c, 4);
        cuzk_fp12_mul(&t4, &t4, &c);
        cuzk_fp12_frobenius(&t2, &c, 2);
        CHECK(cuzk_fp12_eq(&t4, &t2));
        cuzk_fp12_cyclotomic_sqr(&s1, &c);
        cuzk_fp12_sqr(&s2, &c);
        CHECK(cuzk_fp12_eq(&s1, &s2));
        /* conjugate is the inverse there */
        cuzk_fp12_conjugate(&s1, &c);
        cuzk_fp12_mul(&s1, &s1, &c);
        CHECK(cuzk_fp12_is_one(&s1));
        /* on a random (non-cyclotomic) element the shortcut must not agree */
        cuzk_fp12_cyclotomic_sqr(&s1, &f);
        cuzk_fp12_sqr(&s2, &f);
        CHECK(!cuzk_fp12_eq(&s1, &s2));
        /* cyclotomic_pow == pow */
        uint64_t e[2] = {cuzk_rng_u64(rng), cuzk_rng_u64(rng)};
        cuzk_fp12_cyclotomic_pow(&s1, &c, e, 2);
        cuzk_fp12_pow(&s2, &c, e, 2);
        CHECK(cuzk_fp12_eq(&s1, &s2));
    }
    uint64_t zero = 0;
    cuzk_fp12 f, r;
    cuzk_fp12_random(&f, rng);
    cuzk_fp12_cyclotomic_pow(&r, &f, &zero, 1);
    CHECK(cuzk_fp12_is_one(&r));
}

static void test_bytes(cuzk_rng *rng)
{
    for (int it = 0; it < 10; it++) {
        cuzk_fp12 a, b;
        uint8_t buf[CUZK_FP12_BYTES];
        cuzk_fp12_random(&a, rng);
        cuzk_fp12_to_bytes(buf, &a);
        CHECK(cuzk_fp12_from_bytes(&b, buf) == CUZK_OK && cuzk_fp12_eq(&a, &b));
        /* order: first 48 bytes are c0.c0.c0, bytes 48..95 are c0.c0.c1, last c1.c2.c1 */
        uint8_t one[48];
        cuzk_fp_to_be48(one, &a.c0.c0.c1);
        CHECK(memcmp(buf + 48, one, 48) == 0);
        cuzk_fp_to_be48(one, &a.c1.c2.c1);
        CHECK(memcmp(buf + 11 * 48, one, 48) == 0);
        cuzk_fp_to_be48(one, &a.c0.c1.c0);
        CHECK(memcmp(buf + 2 * 48, one, 48) == 0);
        /* a coordinate >= p is rejected */
        int slot = (int)(cuzk_rng_u64(rng) % 12);
        memset(buf + 48 * slot, 0xff, 48);
        CHECK(cuzk_fp12_from_bytes(&b, buf) == CUZK_ERR_NONCANONICAL);
    }
    uint8_t buf[CUZK_FP12_BYTES];
    cuzk_fp12_to_bytes(buf, &cuzk_fp12_one);
    int ok = buf[47] == 1;
    for (int i = 0; i < CUZK_FP12_BYTES; i++)
        if (i != 47 && buf[i]) ok = 0;
    CHECK(ok);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_fp12");
    for (int be = CUZK_FF_PORTABLE; be <= CUZK_FF_ADX; be++) {
        if (!cuzk_ff_mont_available((cuzk_ff_mont)be)) continue;
        cuzk_ff_mont_select((cuzk_ff_mont)be);
        fprintf(stderr, "test_fp12: multiplication %s\n", cuzk_ff_mont_name((cuzk_ff_mont)be));
        test_fp6(&rng);
        test_fp12_arith(&rng);
        test_fp12_frobenius(&rng);
        test_cyclotomic(&rng);
        test_bytes(&rng);
    }
    return tu_finish("test_fp12");
}
