/*
 * The Miller loop of the optimal ate pairing on BLS12-381 for one pair
 * (P in G1, Q in G2), on the device: the CPU's steps (src/ec/pairing.c) line
 * for line, T in homogeneous projective coordinates on the twist, each line
 * scaled as the CPU scales it, so that f_{|x|,Q}(P) is the same field
 * element the CPU's loop multiplies in. A product of pairs' loops is the
 * CPU's multi-pair loop (its shared squarings square the product: the same
 * value), conjugated at the end (x < 0) by the caller. CUZK_FD functions
 * only: test_gpu_pairing_emu runs this source on the host.
 */
#ifndef CUZK_GPU_PAIRING_CUH
#define CUZK_GPU_PAIRING_CUH

#include "fp12.cuh"

namespace cuzk_gpu {

/* |x| for the BLS parameter x = -0xd201000000010000 */
#define CUZK_GPU_BLS_X_ABS 0xd201000000010000ull

struct g2_proj_t {
    fp2_t x, y, z;
};

/* 3b'·a with b' = 4(u + 1): 12·xi·a */
CUZK_FD void fp2_mul_3b(fp2_t &r, const fp2_t &a)
{
    fp2_t t;
    fp2_mul_xi(t, a);
    f_dbl(r, t), f_add(r, r, t), f_dbl(r, r), f_dbl(r, r);
}

/* T <- 2T; the tangent's line at P: l0 = Y^2 - 3b'Z^2, l1 = -3X^2·xP,
 * l4 = 2YZ·yP (the CPU's dbl_step) */
static CUZK_FD_NOINLINE void miller_dbl(g2_proj_t &T, fp2_t &l0, fp2_t &l1, fp2_t &l4, const fp_t &xP, const fp_t &yP)
{
    fp2_t t0, t1, t2, t3, t4, s;
    f_sqr(t0, T.y), f_sqr(t1, T.z);
    fp2_mul_3b(t2, t1);
    f_dbl(t3, t2), f_add(t3, t3, t2);                          /* 9b'Z^2 */
    f_add(t4, T.y, T.z), f_sqr(t4, t4), f_sub(t4, t4, t0), f_sub(t4, t4, t1); /* 2YZ */
    f_sub(l0, t0, t2);
    f_sqr(s, T.x), f_dbl(l1, s), f_add(l1, l1, s), f_neg(l1, l1);
    fp2_mul_fp(l1, l1, xP);
    fp2_mul_fp(l4, t4, yP);
    f_mul(s, T.x, T.y), f_dbl(s, s);                           /* 2XY */
    f_sub(T.x, t0, t3), f_mul(T.x, T.x, s);
    f_mul(T.z, t0, t4), f_dbl(T.z, T.z), f_dbl(T.z, T.z);      /* 4Y^2 · 2YZ */
    f_add(s, t0, t3), f_sqr(s, s);
    f_sqr(t2, t2), f_dbl(t1, t2), f_add(t1, t1, t2), f_dbl(t1, t1), f_dbl(t1, t1); /* 12 (3b'Z^2)^2 */
    f_sub(T.y, s, t1);
}

/* T <- T + Q; the line through them at P, scaled by lambda = X - xQ Z:
 * l0 = theta·xQ - lambda·yQ, l1 = -theta·xP, l4 = lambda·yP (the CPU's
 * add_step) */
static CUZK_FD_NOINLINE void miller_add(g2_proj_t &T, fp2_t &l0, fp2_t &l1, fp2_t &l4, const fp2_t &xQ,
                                        const fp2_t &yQ, const fp_t &xP, const fp_t &yP)
{
    fp2_t th, la, d, e, f, g, t;
    f_mul(th, yQ, T.z), f_sub(th, T.y, th);
    f_mul(la, xQ, T.z), f_sub(la, T.x, la);
    f_mul(l0, th, xQ), f_mul(t, la, yQ), f_sub(l0, l0, t);
    f_neg(l1, th), fp2_mul_fp(l1, l1, xP);
    fp2_mul_fp(l4, la, yP);
    f_sqr(d, la), f_mul(e, d, la), f_mul(f, T.x, d);
    f_sqr(g, th), f_mul(g, g, T.z), f_add(g, g, e), f_sub(g, g, f), f_sub(g, g, f);
    f_mul(T.x, la, g);
    f_sub(t, f, g), f_mul(t, t, th);
    f_mul(T.y, T.y, e), f_sub(T.y, t, T.y);
    f_mul(T.z, T.z, e);
}

/* f_{|x|,Q}(P), unconjugated; 1 for a pair with a point at infinity ((0, 0)
 * affine, as the CPU's layout has it), which the CPU's loop skips */
CUZK_FD void miller_pair(fp12_t &f, const fp_t &xP, const fp_t &yP, const fp2_t &xQ, const fp2_t &yQ)
{
    f_one(f);
    if ((f_is_zero(xP) && f_is_zero(yP)) || (f_is_zero(xQ) && f_is_zero(yQ))) return;
    g2_proj_t T;
    T.x = xQ, T.y = yQ, f_one(T.z);
    fp2_t l0, l1, l4;
    for (int bit = 62; bit >= 0; bit--) {
        if (bit != 62) f_sqr(f, f);
        miller_dbl(T, l0, l1, l4, xP, yP);
        f = fp12_mul_014(f, l0, l1, l4);
        if ((CUZK_GPU_BLS_X_ABS >> bit) & 1) {
            miller_add(T, l0, l1, l4, xQ, yQ, xP, yP);
            f = fp12_mul_014(f, l0, l1, l4);
        }
    }
}

} // namespace cuzk_gpu
#endif
