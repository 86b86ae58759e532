/* Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1. */
#include "cuzk/ff/fp12.h"

/* Shared with fp12.c (not public API). */
extern const cuzk_fp2 cuzk_fp12_frob_gamma[3][6];

#define FP_ONE_MONT                                                                                \
    {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL, \
      0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}}

const cuzk_fp6 cuzk_fp6_zero = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
const cuzk_fp6 cuzk_fp6_one = {{FP_ONE_MONT, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};

/*
 * Frobenius coefficients gamma[k-1][j] = xi^(j·(p^k - 1)/6) for k = 1, 2, 3
 * and j = 1..5, in Montgomery form (computed offline; test_fp12 checks the
 * maps they define against a^(p^k) by exponentiation). w^(p^k) = gamma_{k,1}·w,
 * so v = w^2 picks up gamma_{k,2} and v^2 gamma_{k,4}. For even k they lie in Fp.
 */
const cuzk_fp2 cuzk_fp12_frob_gamma[3][6] = {
    { /* k = 1 */
        {{{0}}, {{0}}}, /* j = 0 unused */
        {{{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL, 0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}},
         {{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL, 0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}}},
        {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}},
         {{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}}},
        {{{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
         {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}},
        {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
         {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}},
        {{{0x82d83cf50dbce43fULL, 0xa2813e53df9d018fULL, 0xc6f0caa53c65e181ULL, 0x7525cf528d50fe95ULL, 0x4a85ed50f4798a6bULL, 0x171da0fd6cf8eebdULL}},
         {{0x3726c30af242c66cULL, 0x7c2ac1aad1b6fe70ULL, 0xa04007fbba4b14a2ULL, 0xef517c3266341429ULL, 0x0095ba654ed2226bULL, 0x02e370eccc86f7ddULL}}},
    },
    { /* k = 2 */
        {{{0}}, {{0}}}, /* j = 0 unused */
        {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL, 0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
         {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}},
        {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
         {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}},
        {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL, 0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
         {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}},
        {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL, 0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
         {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}},
        {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
         {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}},
    },
    { /* k = 3 */
        {{{0}}, {{0}}}, /* j = 0 unused */
        {{{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
         {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}},
        {{{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}},
         {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}}},
        {{{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
         {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}}},
        {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL, 0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
         {{0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL}}},
        {{{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
         {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}}},
    },
};

void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_add(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_add(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_sub(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_dbl(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2_dbl(&r->c0, &a->c0);
    cuzk_fp2_dbl(&r->c1, &a->c1);
    cuzk_fp2_dbl(&r->c2, &a->c2);
}

void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2_neg(&r->c0, &a->c0);
    cuzk_fp2_neg(&r->c1, &a->c1);
    cuzk_fp2_neg(&r->c2, &a->c2);
}

void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    /* Karatsuba over the three coefficients: 6 Fp2 multiplications. */
    cuzk_fp2 t0, t1, t2, s, u, c0, c1, c2;
    cuzk_fp2_mul(&t0, &a->c0, &b->c0);
    cuzk_fp2_mul(&t1, &a->c1, &b->c1);
    cuzk_fp2_mul(&t2, &a->c2, &b->c2);
    /* c0 = t0 + xi·(a1 b2 + a2 b1) */
    cuzk_fp2_add(&s, &a->c1, &a->c2);
    cuzk_fp2_add(&u, &b->c1, &b->c2);
    cuzk_fp2_mul(&s, &s, &u);
    cuzk_fp2_sub(&s, &s, &t1);
    cuzk_fp2_sub(&s, &s, &t2);
    cuzk_fp2_mul_by_nonresidue(&s, &s);
    cuzk_fp2_add(&c0, &s, &t0);
    /* c1 = a0 b1 + a1 b0 + xi·t2 */
    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&u, &b->c0, &b->c1);
    cuzk_fp2_mul(&s, &s, &u);
    cuzk_fp2_sub(&s, &s, &t0);
    cuzk_fp2_sub(&s, &s, &t1);
    cuzk_fp2_mul_by_nonresidue(&u, &t2);
    cuzk_fp2_add(&c1, &s, &u);
    /* c2 = a0 b2 + a2 b0 + t1 */
    cuzk_fp2_add(&s, &a->c0, &a->c2);
    cuzk_fp2_add(&u, &b->c0, &b->c2);
    cuzk_fp2_mul(&s, &s, &u);
    cuzk_fp2_sub(&s, &s, &t0);
    cuzk_fp2_sub(&s, &s, &t2);
    cuzk_fp2_add(&c2, &s, &t1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    /* Chung-Hasan SQR2: 2 Fp2 multiplications and 3 squarings. */
    cuzk_fp2 s0, s1, s2, s3, s4;
    cuzk_fp2_sqr(&s0, &a->c0);
    cuzk_fp2_mul(&s1, &a->c0, &a->c1);
    cuzk_fp2_dbl(&s1, &s1);
    cuzk_fp2_sub(&s2, &a->c0, &a->c1);
    cuzk_fp2_add(&s2, &s2, &a->c2);
    cuzk_fp2_sqr(&s2, &s2);
    cuzk_fp2_mul(&s3, &a->c1, &a->c2);
    cuzk_fp2_dbl(&s3, &s3);
    cuzk_fp2_sqr(&s4, &a->c2);
    /* c2 = s1 + s2 + s3 - s0 - s4 (= 2 a0 a2 + a1^2) */
    cuzk_fp2_add(&r->c2, &s1, &s2);
    cuzk_fp2_add(&r->c2, &r->c2, &s3);
    cuzk_fp2_sub(&r->c2, &r->c2, &s0);
    cuzk_fp2_sub(&r->c2, &r->c2, &s4);
    cuzk_fp2_mul_by_nonresidue(&s3, &s3);
    cuzk_fp2_add(&r->c0, &s0, &s3);
    cuzk_fp2_mul_by_nonresidue(&s4, &s4);
    cuzk_fp2_add(&r->c1, &s1, &s4);
}

void cuzk_fp6_mul_fp2(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b)
{
    cuzk_fp2_mul(&r->c0, &a->c0, b);
    cuzk_fp2_mul(&r->c1, &a->c1, b);
    cuzk_fp2_mul(&r->c2, &a->c2, b);
}

void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1)
{
    /* Karatsuba with b2 = 0: 5 Fp2 multiplications. */
    cuzk_fp2 t0, t1, s, u, c0, c1, c2;
    cuzk_fp2_mul(&t0, &a->c0, b0);
    cuzk_fp2_mul(&t1, &a->c1, b1);
    /* c0 = t0 + xi·a2 b1 */
    cuzk_fp2_mul(&s, &a->c2, b1);
    cuzk_fp2_mul_by_nonresidue(&s, &s);
    cuzk_fp2_add(&c0, &s, &t0);
    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 */
    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&u, b0, b1);
    cuzk_fp2_mul(&s, &s, &u);
    cuzk_fp2_sub(&s, &s, &t0);
    cuzk_fp2_sub(&c1, &s, &t1);
    /* c2 = a2 b0 + t1 */
    cuzk_fp2_mul(&s, &a->c2, b0);
    cuzk_fp2_add(&c2, &s, &t1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1)
{
    /* (a0 + a1 v + a2 v^2)·b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
    cuzk_fp2 c0, c1, c2;
    cuzk_fp2_mul(&c0, &a->c2, b1);
    cuzk_fp2_mul_by_nonresidue(&c0, &c0);
    cuzk_fp2_mul(&c1, &a->c0, b1);
    cuzk_fp2_mul(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void cuzk_fp6_mul_by_nonresidue(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    /* (a0 + a1 v + a2 v^2)·v = xi a2 + a0 v + a1 v^2 */
    cuzk_fp2 t;
    cuzk_fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    /*
     * The adjugate: A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1, C = a1^2 - a0 a2
     * satisfy a·(A + B v + C v^2) = F with F = a0 A + xi (a2 B + a1 C) in Fp2.
     */
    cuzk_fp2 A, B, C, t, F;
    cuzk_fp2_sqr(&A, &a->c0);
    cuzk_fp2_mul(&t, &a->c1, &a->c2);
    cuzk_fp2_mul_by_nonresidue(&t, &t);
    cuzk_fp2_sub(&A, &A, &t);
    cuzk_fp2_sqr(&B, &a->c2);
    cuzk_fp2_mul_by_nonresidue(&B, &B);
    cuzk_fp2_mul(&t, &a->c0, &a->c1);
    cuzk_fp2_sub(&B, &B, &t);
    cuzk_fp2_sqr(&C, &a->c1);
    cuzk_fp2_mul(&t, &a->c0, &a->c2);
    cuzk_fp2_sub(&C, &C, &t);
    cuzk_fp2_mul(&F, &a->c2, &B);
    cuzk_fp2_mul(&t, &a->c1, &C);
    cuzk_fp2_add(&F, &F, &t);
    cuzk_fp2_mul_by_nonresidue(&F, &F);
    cuzk_fp2_mul(&t, &a->c0, &A);
    cuzk_fp2_add(&F, &F, &t);
    cuzk_fp2_inv(&F, &F);
    cuzk_fp2_mul(&r->c0, &A, &F);
    cuzk_fp2_mul(&r->c1, &B, &F);
    cuzk_fp2_mul(&r->c2, &C, &F);
}

/* r = a^(p^k) for k in 1..3 by the coefficient table. */
static void fp6_frobenius_small(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned k)
{
    const cuzk_fp2 *g = cuzk_fp12_frob_gamma[k - 1];
    if (k & 1) {
        cuzk_fp2_conj(&r->c0, &a->c0);
        cuzk_fp2_conj(&r->c1, &a->c1);
        cuzk_fp2_conj(&r->c2, &a->c2);
        cuzk_fp2_mul(&r->c1, &r->c1, &g[2]);
        cuzk_fp2_mul(&r->c2, &r->c2, &g[4]);
    } else {
        /* even k: Fp2 is fixed and the coefficients are in Fp */
        r->c0 = a->c0;
        cuzk_fp2_mul_fp(&r->c1, &a->c1, &g[2].c0);
        cuzk_fp2_mul_fp(&r->c2, &a->c2, &g[4].c0);
    }
}

void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned k)
{
    k %= 6; /* a^(p^6) = a in Fp6 */
    if (k == 0) {
        *r = *a;
        return;
    }
    if (k <= 3) {
        fp6_frobenius_small(r, a, k);
        return;
    }
    fp6_frobenius_small(r, a, 3);
    fp6_frobenius_small(r, r, k - 3);
}

bool cuzk_fp6_is_zero(const cuzk_fp6 *a)
{
    return cuzk_fp2_is_zero(&a->c0) && cuzk_fp2_is_zero(&a->c1) && cuzk_fp2_is_zero(&a->c2);
}

bool cuzk_fp6_is_one(const cuzk_fp6 *a)
{
    return cuzk_fp2_is_one(&a->c0) && cuzk_fp2_is_zero(&a->c1) && cuzk_fp2_is_zero(&a->c2);
}

bool cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    return cuzk_fp2_eq(&a->c0, &b->c0) && cuzk_fp2_eq(&a->c1, &b->c1) && cuzk_fp2_eq(&a->c2, &b->c2);
}

void cuzk_fp6_random(cuzk_fp6 *r, cuzk_rng *rng)
{
    cuzk_fp2_random(&r->c0, rng);
    cuzk_fp2_random(&r->c1, rng);
    cuzk_fp2_random(&r->c2, rng);
}
