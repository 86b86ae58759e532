/* Fp12 = Fp6[w]/(w^2 - v). */
#include "cuzk/ff/fp12.h"

#include "cuzk/util/error.h"

extern const cuzk_fp2 cuzk_fp12_frob_gamma[3][6]; /* defined in fp6.c */

const cuzk_fp12 cuzk_fp12_zero = {{{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}},
                                  {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};
const cuzk_fp12 cuzk_fp12_one = {
    {{{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
        0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
      {{0}}},
     {{{0}}, {{0}}},
     {{{0}}, {{0}}}},
    {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

void cuzk_fp12_add(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    cuzk_fp6_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp6_add(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp12_sub(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    cuzk_fp6_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp6_sub(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp12_neg(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp6_neg(&r->c0, &a->c0);
    cuzk_fp6_neg(&r->c1, &a->c1);
}

void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    /* Karatsuba: c0 = a0 b0 + v a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 */
    cuzk_fp6 t0, t1, s, u;
    cuzk_fp6_mul(&t0, &a->c0, &b->c0);
    cuzk_fp6_mul(&t1, &a->c1, &b->c1);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_add(&u, &b->c0, &b->c1);
    cuzk_fp6_mul(&s, &s, &u);
    cuzk_fp6_sub(&s, &s, &t0);
    cuzk_fp6_sub(&r->c1, &s, &t1);
    cuzk_fp6_mul_by_nonresidue(&t1, &t1);
    cuzk_fp6_add(&r->c0, &t0, &t1);
}

void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    /* complex squaring: with m = a0 a1, c0 = (a0 + a1)(a0 + v a1) - m - v m, c1 = 2m */
    cuzk_fp6 m, s, t;
    cuzk_fp6_mul(&m, &a->c0, &a->c1);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_mul_by_nonresidue(&t, &a->c1);
    cuzk_fp6_add(&t, &t, &a->c0);
    cuzk_fp6_mul(&s, &s, &t);
    cuzk_fp6_sub(&s, &s, &m);
    cuzk_fp6_mul_by_nonresidue(&t, &m);
    cuzk_fp6_sub(&r->c0, &s, &t);
    cuzk_fp6_dbl(&r->c1, &m);
}

void cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    /* 1/(a0 + a1 w) = (a0 - a1 w)/(a0^2 - v a1^2) */
    cuzk_fp6 t0, t1;
    cuzk_fp6_sqr(&t0, &a->c0);
    cuzk_fp6_sqr(&t1, &a->c1);
    cuzk_fp6_mul_by_nonresidue(&t1, &t1);
    cuzk_fp6_sub(&t0, &t0, &t1);
    cuzk_fp6_inv(&t0, &t0);
    cuzk_fp6_mul(&r->c0, &a->c0, &t0);
    cuzk_fp6_mul(&r->c1, &a->c1, &t0);
    cuzk_fp6_neg(&r->c1, &r->c1);
}

void cuzk_fp12_conjugate(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    r->c0 = a->c0;
    cuzk_fp6_neg(&r->c1, &a->c1);
}

/*
 * a^(p^k) for k in 1..3. Coefficient j of the basis w^j (c0 holds j = 0, 2, 4,
 * c1 holds j = 1, 3, 5) is mapped by the Fp2 Frobenius and multiplied by
 * gamma_{k,j} = xi^(j(p^k-1)/6).
 */
static void fp12_frobenius_small(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned k)
{
    const cuzk_fp2 *g = cuzk_fp12_frob_gamma[k - 1];
    cuzk_fp6_frobenius(&r->c0, &a->c0, k);
    if (k & 1) {
        cuzk_fp2_conj(&r->c1.c0, &a->c1.c0);
        cuzk_fp2_conj(&r->c1.c1, &a->c1.c1);
        cuzk_fp2_conj(&r->c1.c2, &a->c1.c2);
        cuzk_fp2_mul(&r->c1.c0, &r->c1.c0, &g[1]);
        cuzk_fp2_mul(&r->c1.c1, &r->c1.c1, &g[3]);
        cuzk_fp2_mul(&r->c1.c2, &r->c1.c2, &g[5]);
    } else {
        cuzk_fp2_mul_fp(&r->c1.c0, &a->c1.c0, &g[1].c0);
        cuzk_fp2_mul_fp(&r->c1.c1, &a->c1.c1, &g[3].c0);
        cuzk_fp2_mul_fp(&r->c1.c2, &a->c1.c2, &g[5].c0);
    }
}

void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned k)
{
    k %= 12;
    if (k == 0) {
        *r = *a;
        return;
    }
    if (k == 6) {
        cuzk_fp12_conjugate(r, a);
        return;
    }
    const cuzk_fp12 *src = a;
    while (k > 3) {
        fp12_frobenius_small(r, src, 3);
        src = r;
        k -= 3;
    }
    fp12_frobenius_small(r, src, k);
}

void cuzk_fp12_mul_by_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                          const cuzk_fp2 *l4)
{
    /*
     * l = (l0 + l1 v) + (l4 v) w. Karatsuba over w with the sparse Fp6 products:
     * t0 = a0·(l0 + l1 v), t1 = a1·(l4 v), c0 = t0 + v t1,
     * c1 = (a0 + a1)(l0 + (l1 + l4) v) - t0 - t1. 13 Fp2 multiplications.
     */
    cuzk_fp6 t0, t1, s;
    cuzk_fp2 m;
    cuzk_fp6_mul_by_01(&t0, &a->c0, l0, l1);
    cuzk_fp6_mul_by_1(&t1, &a->c1, l4);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&m, l1, l4);
    cuzk_fp6_mul_by_01(&s, &s, l0, &m);
    cuzk_fp6_sub(&s, &s, &t0);
    cuzk_fp6_sub(&r->c1, &s, &t1);
    cuzk_fp6_mul_by_nonresidue(&t1, &t1);
    cuzk_fp6_add(&r->c0, &t0, &t1);
}

/* (a + b T)^2 in Fp4 = Fp2[T]/(T^2 - xi): 3 Fp2 squarings. */
static void fp4_sqr(cuzk_fp2 *r0, cuzk_fp2 *r1, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp2 t0, t1, s;
    cuzk_fp2_sqr(&t0, a);
    cuzk_fp2_sqr(&t1, b);
    cuzk_fp2_add(&s, a, b);
    cuzk_fp2_sqr(&s, &s);
    cuzk_fp2_sub(&s, &s, &t0);
    cuzk_fp2_sub(r1, &s, &t1);
    cuzk_fp2_mul_by_nonresidue(&t1, &t1);
    cuzk_fp2_add(r0, &t0, &t1);
}

/* r = 3x - 2a and r = 3x + 2a, as 2(x -/+ a) + x */
static void three_minus_two(cuzk_fp2 *r, const cuzk_fp2 *x, const cuzk_fp2 *a)
{
    cuzk_fp2 t;
    cuzk_fp2_sub(&t, x, a);
    cuzk_fp2_dbl(&t, &t);
    cuzk_fp2_add(r, &t, x);
}

static void three_plus_two(cuzk_fp2 *r, const cuzk_fp2 *x, const cuzk_fp2 *a)
{
    cuzk_fp2 t;
    cuzk_fp2_add(&t, x, a);
    cuzk_fp2_dbl(&t, &t);
    cuzk_fp2_add(r, &t, x);
}

void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    /*
     * Granger-Scott: view Fp12 as Fp4[w]/(w^3 - T) with T = w^3, Fp4 = Fp2[T].
     * In the basis w^j, a = A0 + A1 w + A2 w^2 with
     *   A0 = g0 + h1 T, A1 = h0 + g2 T, A2 = g1 + h2 T
     * (g = a.c0, h = a.c1). For a in the cyclotomic subgroup
     *   a^2 = (3 A0^2 - 2 conj A0) + (3 T A2^2 + 2 conj A1) w + (3 A1^2 - 2 conj A2) w^2,
     * conj being T -> -T.
     */
    const cuzk_fp2 g0 = a->c0.c0, g1 = a->c0.c1, g2 = a->c0.c2;
    const cuzk_fp2 h0 = a->c1.c0, h1 = a->c1.c1, h2 = a->c1.c2;
    cuzk_fp2 x0, y0, x1, y1, x2, y2;
    fp4_sqr(&x0, &y0, &g0, &h1);
    fp4_sqr(&x1, &y1, &h0, &g2);
    fp4_sqr(&x2, &y2, &g1, &h2);
    /* A0 part */
    three_minus_two(&r->c0.c0, &x0, &g0);
    three_plus_two(&r->c1.c1, &y0, &h1);
    /* w part: T·A2^2 = xi y2 + x2 T */
    cuzk_fp2_mul_by_nonresidue(&y2, &y2);
    three_plus_two(&r->c1.c0, &y2, &h0);
    three_minus_two(&r->c0.c2, &x2, &g2);
    /* w^2 part */
    three_minus_two(&r->c0.c1, &x1, &g1);
    three_plus_two(&r->c1.c2, &y1, &h2);
}

void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t e_limbs)
{
    cuzk_fp12 acc = cuzk_fp12_one, base = *a;
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            cuzk_fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) cuzk_fp12_mul(&acc, &acc, &base);
        }
    *r = acc;
}

void cuzk_fp12_cyclotomic_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t e_limbs)
{
    cuzk_fp12 acc = cuzk_fp12_one, base = *a;
    bool started = false;
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            if (started) cuzk_fp12_cyclotomic_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) {
                if (started)
                    cuzk_fp12_mul(&acc, &acc, &base);
                else
                    acc = base;
                started = true;
            }
        }
    *r = acc;
}

bool cuzk_fp12_is_zero(const cuzk_fp12 *a) { return cuzk_fp6_is_zero(&a->c0) && cuzk_fp6_is_zero(&a->c1); }
bool cuzk_fp12_is_one(const cuzk_fp12 *a) { return cuzk_fp6_is_one(&a->c0) && cuzk_fp6_is_zero(&a->c1); }
bool cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    return cuzk_fp6_eq(&a->c0, &b->c0) && cuzk_fp6_eq(&a->c1, &b->c1);
}

void cuzk_fp12_random(cuzk_fp12 *r, cuzk_rng *rng)
{
    cuzk_fp6_random(&r->c0, rng);
    cuzk_fp6_random(&r->c1, rng);
}

/* The 12 Fp coordinates in noble's order. */
static const cuzk_fp *fp12_coord(const cuzk_fp12 *a, int i)
{
    const cuzk_fp6 *s = i < 6 ? &a->c0 : &a->c1;
    const cuzk_fp2 *d = (i % 6) / 2 == 0 ? &s->c0 : (i % 6) / 2 == 1 ? &s->c1 : &s->c2;
    return (i & 1) ? &d->c1 : &d->c0;
}

void cuzk_fp12_to_bytes(uint8_t out[CUZK_FP12_BYTES], const cuzk_fp12 *a)
{
    for (int i = 0; i < 12; i++) cuzk_fp_to_be48(out + 48 * i, fp12_coord(a, i));
}

int cuzk_fp12_from_bytes(cuzk_fp12 *r, const uint8_t in[CUZK_FP12_BYTES])
{
    cuzk_fp12 t;
    for (int i = 0; i < 12; i++) {
        int err = cuzk_fp_from_be48((cuzk_fp *)fp12_coord(&t, i), in + 48 * i);
        if (err) return err;
    }
    *r = t;
    return CUZK_OK;
}
