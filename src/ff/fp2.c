/* Fp2 = Fp[u]/(u^2+1). */
#include "cuzk/ff/fp2.h"

const cuzk_fp2 cuzk_fp2_zero = {{{0}}, {{0}}};
const cuzk_fp2 cuzk_fp2_one = {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                                 0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
                               {{0}}};

void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp_add(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp_sub(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp_dbl(&r->c0, &a->c0);
    cuzk_fp_dbl(&r->c1, &a->c1);
}

void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp_neg(&r->c0, &a->c0);
    cuzk_fp_neg(&r->c1, &a->c1);
}

void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    r->c0 = a->c0;
    cuzk_fp_neg(&r->c1, &a->c1);
}

void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    /* Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0b0 - a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
    cuzk_fp t0, t1, s0, s1;
    cuzk_fp_mul(&t0, &a->c0, &b->c0);
    cuzk_fp_mul(&t1, &a->c1, &b->c1);
    cuzk_fp_add(&s0, &a->c0, &a->c1);
    cuzk_fp_add(&s1, &b->c0, &b->c1);
    cuzk_fp_mul(&s0, &s0, &s1);
    cuzk_fp_sub(&s0, &s0, &t0);
    cuzk_fp_sub(&r->c1, &s0, &t1);
    cuzk_fp_sub(&r->c0, &t0, &t1);
}

void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    cuzk_fp s, d, m;
    cuzk_fp_add(&s, &a->c0, &a->c1);
    cuzk_fp_sub(&d, &a->c0, &a->c1);
    cuzk_fp_mul(&m, &a->c0, &a->c1);
    cuzk_fp_mul(&r->c0, &s, &d);
    cuzk_fp_dbl(&r->c1, &m);
}

void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b)
{
    cuzk_fp_mul(&r->c0, &a->c0, b);
    cuzk_fp_mul(&r->c1, &a->c1, b);
}

void cuzk_fp2_mul_by_nonresidue(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    /* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
    cuzk_fp t;
    cuzk_fp_sub(&t, &a->c0, &a->c1);
    cuzk_fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

void cuzk_fp2_norm(cuzk_fp *r, const cuzk_fp2 *a)
{
    cuzk_fp t0, t1;
    cuzk_fp_sqr(&t0, &a->c0);
    cuzk_fp_sqr(&t1, &a->c1);
    cuzk_fp_add(r, &t0, &t1);
}

void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    cuzk_fp n;
    cuzk_fp2_norm(&n, a);
    cuzk_fp_inv(&n, &n);
    cuzk_fp_mul(&r->c0, &a->c0, &n);
    cuzk_fp_mul(&r->c1, &a->c1, &n);
    cuzk_fp_neg(&r->c1, &r->c1);
}

void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t e_limbs)
{
    cuzk_fp2 acc = cuzk_fp2_one, base = *a;
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            cuzk_fp2_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) cuzk_fp2_mul(&acc, &acc, &base);
        }
    *r = acc;
}

int cuzk_fp2_legendre(const cuzk_fp2 *a)
{
    /* a is a square in Fp2 iff its norm is a square in Fp. */
    cuzk_fp n;
    cuzk_fp2_norm(&n, a);
    return cuzk_fp_legendre(&n);
}

bool cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    /*
     * Complex-method square root (p = 3 mod 4): with n = sqrt(a0^2 + a1^2),
     * x0^2 = (a0 ± n)/2 for the sign that makes it a square, x1 = a1 / (2 x0).
     */
    if (cuzk_fp2_is_zero(a)) {
        *r = *a;
        return true;
    }
    cuzk_fp n, t, x0, x1, half;
    cuzk_fp2_norm(&n, a);
    if (!cuzk_fp_sqrt(&n, &n)) return false;
    cuzk_fp_set_u64(&half, 2);
    cuzk_fp_inv(&half, &half);
    cuzk_fp_add(&t, &a->c0, &n);
    cuzk_fp_mul(&t, &t, &half);
    if (!cuzk_fp_sqrt(&x0, &t)) {
        cuzk_fp_sub(&t, &a->c0, &n);
        cuzk_fp_mul(&t, &t, &half);
        if (!cuzk_fp_sqrt(&x0, &t)) return false;
    }
    if (cuzk_fp_is_zero(&x0)) {
        /* a0 = -n, a1 = 0: a = a0 with a0 a non-square in Fp, root is sqrt(-a0)·u */
        cuzk_fp_neg(&t, &a->c0);
        if (!cuzk_fp_sqrt(&x1, &t)) return false;
    } else {
        cuzk_fp_dbl(&t, &x0);
        cuzk_fp_inv(&t, &t);
        cuzk_fp_mul(&x1, &a->c1, &t);
    }
    cuzk_fp2 s = {x0, x1}, chk;
    cuzk_fp2_sqr(&chk, &s);
    if (!cuzk_fp2_eq(&chk, a)) return false;
    *r = s;
    return true;
}

bool cuzk_fp2_is_zero(const cuzk_fp2 *a) { return cuzk_fp_is_zero(&a->c0) && cuzk_fp_is_zero(&a->c1); }
bool cuzk_fp2_is_one(const cuzk_fp2 *a) { return cuzk_fp_is_one(&a->c0) && cuzk_fp_is_zero(&a->c1); }
bool cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    return cuzk_fp_eq(&a->c0, &b->c0) && cuzk_fp_eq(&a->c1, &b->c1);
}

void cuzk_fp2_random(cuzk_fp2 *r, cuzk_rng *rng)
{
    cuzk_fp_random(&r->c0, rng);
    cuzk_fp_random(&r->c1, rng);
}
