/*
 * Device Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1, and Fp12 = Fp6[w]/(w^2 - v):
 * what a Miller loop multiplies. The layouts are the CPU's (cuzk_fp6,
 * cuzk_fp12: coefficients low first), values fully reduced as every device
 * field element is, so a product downloads bit-identical to the CPU's
 * (src/ff/fp6.c, fp12.c use the same formulas: Karatsuba over the
 * coefficients, the sparse products of a line). CUZK_FD functions only:
 * test_gpu_pairing_emu runs this source on the host.
 */
#ifndef CUZK_GPU_FP12_CUH
#define CUZK_GPU_FP12_CUH

#include "ff.cuh"

namespace cuzk_gpu {

struct fp6_t {
    fp2_t c0, c1, c2;
};
struct fp12_t {
    fp6_t c0, c1;
};

/* a·xi = (a0 - a1) + (a0 + a1) u */
CUZK_FD void fp2_mul_xi(fp2_t &r, const fp2_t &a)
{
    fp_t t;
    f_sub(t, a.c0, a.c1);
    f_add(r.c1, a.c0, a.c1);
    r.c0 = t;
}
CUZK_FD void fp2_mul_fp(fp2_t &r, const fp2_t &a, const fp_t &b) { f_mul(r.c0, a.c0, b), f_mul(r.c1, a.c1, b); }

CUZK_FD void f_one(fp6_t &r) { f_one(r.c0), f_zero(r.c1), f_zero(r.c2); }
CUZK_FD void f_add(fp6_t &r, const fp6_t &a, const fp6_t &b)
{
    f_add(r.c0, a.c0, b.c0), f_add(r.c1, a.c1, b.c1), f_add(r.c2, a.c2, b.c2);
}
CUZK_FD void f_sub(fp6_t &r, const fp6_t &a, const fp6_t &b)
{
    f_sub(r.c0, a.c0, b.c0), f_sub(r.c1, a.c1, b.c1), f_sub(r.c2, a.c2, b.c2);
}
CUZK_FD void f_dbl(fp6_t &r, const fp6_t &a) { f_dbl(r.c0, a.c0), f_dbl(r.c1, a.c1), f_dbl(r.c2, a.c2); }
CUZK_FD void f_neg(fp6_t &r, const fp6_t &a) { f_neg(r.c0, a.c0), f_neg(r.c1, a.c1), f_neg(r.c2, a.c2); }

/* a·v = xi a2 + a0 v + a1 v^2 */
CUZK_FD void fp6_mul_v(fp6_t &r, const fp6_t &a)
{
    fp2_t t;
    fp2_mul_xi(t, a.c2);
    r.c2 = a.c1, r.c1 = a.c0, r.c0 = t;
}

/* Karatsuba over the three coefficients: 6 Fp2 products */
static CUZK_FD_NOINLINE fp6_t fp6_mul(fp6_t a, fp6_t b)
{
    fp2_t t0, t1, t2, s, u;
    fp6_t r;
    f_mul(t0, a.c0, b.c0), f_mul(t1, a.c1, b.c1), f_mul(t2, a.c2, b.c2);
    f_add(s, a.c1, a.c2), f_add(u, b.c1, b.c2), f_mul(s, s, u); /* c0 = t0 + xi (a1 b2 + a2 b1) */
    f_sub(s, s, t1), f_sub(s, s, t2), fp2_mul_xi(s, s), f_add(r.c0, s, t0);
    f_add(s, a.c0, a.c1), f_add(u, b.c0, b.c1), f_mul(s, s, u); /* c1 = a0 b1 + a1 b0 + xi t2 */
    f_sub(s, s, t0), f_sub(s, s, t1), fp2_mul_xi(u, t2), f_add(r.c1, s, u);
    f_add(s, a.c0, a.c2), f_add(u, b.c0, b.c2), f_mul(s, s, u); /* c2 = a0 b2 + a2 b0 + t1 */
    f_sub(s, s, t0), f_sub(s, s, t2), f_add(r.c2, s, t1);
    return r;
}
CUZK_FD void f_mul(fp6_t &r, const fp6_t &a, const fp6_t &b) { r = fp6_mul(a, b); }

/* a·(b0 + b1 v): 5 Fp2 products */
static CUZK_FD_NOINLINE fp6_t fp6_mul_01(fp6_t a, fp2_t b0, fp2_t b1)
{
    fp2_t t0, t1, s, u;
    fp6_t r;
    f_mul(t0, a.c0, b0), f_mul(t1, a.c1, b1);
    f_mul(s, a.c2, b1), fp2_mul_xi(s, s), f_add(r.c0, s, t0);                    /* t0 + xi a2 b1 */
    f_add(s, a.c0, a.c1), f_add(u, b0, b1), f_mul(s, s, u), f_sub(s, s, t0), f_sub(r.c1, s, t1);
    f_mul(s, a.c2, b0), f_add(r.c2, s, t1);                                     /* a2 b0 + t1 */
    return r;
}

/* a·(b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
CUZK_FD void fp6_mul_1(fp6_t &r, const fp6_t &a, const fp2_t &b1)
{
    fp2_t c0;
    f_mul(c0, a.c2, b1);
    fp2_mul_xi(c0, c0);
    f_mul(r.c1, a.c0, b1);
    f_mul(r.c2, a.c1, b1);
    r.c0 = c0;
}

CUZK_FD void f_one(fp12_t &r) { f_one(r.c0), f_zero(r.c1.c0), f_zero(r.c1.c1), f_zero(r.c1.c2); }
CUZK_FD void f_conj(fp12_t &r, const fp12_t &a) { r.c0 = a.c0, f_neg(r.c1, a.c1); }

/* Karatsuba over w: c0 = a0 b0 + v a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 */
static CUZK_FD_NOINLINE fp12_t fp12_mul(fp12_t a, fp12_t b)
{
    fp6_t t0, t1, s, u;
    fp12_t r;
    f_mul(t0, a.c0, b.c0), f_mul(t1, a.c1, b.c1);
    f_add(s, a.c0, a.c1), f_add(u, b.c0, b.c1), f_mul(s, s, u);
    f_sub(s, s, t0), f_sub(r.c1, s, t1);
    fp6_mul_v(t1, t1), f_add(r.c0, t0, t1);
    return r;
}
CUZK_FD void f_mul(fp12_t &r, const fp12_t &a, const fp12_t &b) { r = fp12_mul(a, b); }

/* complex squaring: m = a0 a1, c0 = (a0 + a1)(a0 + v a1) - m - v m, c1 = 2m */
static CUZK_FD_NOINLINE fp12_t fp12_sqr(fp12_t a)
{
    fp6_t m, s, t;
    fp12_t r;
    f_mul(m, a.c0, a.c1);
    f_add(s, a.c0, a.c1);
    fp6_mul_v(t, a.c1), f_add(t, t, a.c0);
    f_mul(s, s, t), f_sub(s, s, m);
    fp6_mul_v(t, m), f_sub(r.c0, s, t);
    f_dbl(r.c1, m);
    return r;
}
CUZK_FD void f_sqr(fp12_t &r, const fp12_t &a) { r = fp12_sqr(a); }

/* a·l for the line l = (l0 + l1 v) + (l4 v) w: t0 = a0 (l0 + l1 v),
 * t1 = a1 (l4 v), c0 = t0 + v t1, c1 = (a0 + a1)(l0 + (l1 + l4) v) - t0 - t1 */
static CUZK_FD_NOINLINE fp12_t fp12_mul_014(fp12_t a, fp2_t l0, fp2_t l1, fp2_t l4)
{
    fp6_t t0, t1, s;
    fp2_t m;
    fp12_t r;
    t0 = fp6_mul_01(a.c0, l0, l1);
    fp6_mul_1(t1, a.c1, l4);
    f_add(s, a.c0, a.c1);
    f_add(m, l1, l4);
    s = fp6_mul_01(s, l0, m);
    f_sub(s, s, t0), f_sub(r.c1, s, t1);
    fp6_mul_v(t1, t1), f_add(r.c0, t0, t1);
    return r;
}

} // namespace cuzk_gpu
#endif
