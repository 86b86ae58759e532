/*
 * The Montgomery product of Fp and Fr on the FP64 pipe (f_mul_dp): whether a
 * second multiplier raises the card's product rate.
 *
 * f_mul_eo runs on the IMAD pipe alone, at its floor. The FP64 pipe (64 DFMA
 * lanes per SM) is a separate unit that the kernels leave idle, so a kernel
 * that ran some products here and the rest on IMAD might have finished a
 * product every ~5 clocks instead of 9. Measured on the H100:
 * - alone: 20.3 G/s for Fp and 36.0 for Fr, against 27.8 and 53.5 on IMAD;
 * - mixed: the two pipes share their cycles (ncu: 42 % + 53 % busy), so the
 *   best mix (3 : 1) gains 7.5 %;
 * - in the kernels: G1 and the NTT with some products moved here were slower.
 * No kernel calls it. bench_gpu_ff keeps the measurement reproducible.
 *
 * The same value and form as f_mul (a·b·R^-1 mod m, fully reduced, the word
 * layout in and out). Fp: p has 381 bits, so 8 limbs of 48 bits make
 * R = 2^384 as on the IMAD path, with 8 reduction rows. Fr: R = 2^256 is
 * 5·48 + 16 bits, so 6 limbs, 5 rows of 48 bits and one of 16 (its bounds
 * are at dp_params<fr_params>). Fp's bounds:
 *
 * Exactness (every operation below is exact; no value ever rounds away):
 * - a limb product x·y (|x·y| < 2^96) splits in three operations into
 *   h + l: t = fma(x, y, 3·2^99) lies in [2^100, 2^101), where doubles are
 *   spaced 2^48, so h = t - 3·2^99 is x·y rounded to a multiple of 2^48 and
 *   l = fma(x, y, -h) = x·y - h, |l| <= 2^47, is exact;
 * - columns are doubles holding integers in units of 2^(48k): l adds to
 *   column i+j, h·2^-48 (an integer, exact scaling) to column i+j+1; every
 *   column stays below 2.5·2^51 in magnitude (below: ab adds at most
 *   8·(2^47 + 2^48), the reduction 8·(2^47 + 2^47) and small carries), so
 *   sums of integers are exact below 2^53;
 * - the reduction's row k takes the column's residue c mod 2^48 as a signed
 *   value |cl| <= 2^47 (c minus round(c/2^48)·2^48), then q = cl·(-p^-1)
 *   mod 2^48 by the same split (|q| <= 2^47, signed). c + q·p_0 is then a
 *   multiple of 2^48 and moves whole to column k+1;
 * - with signed q the result V = (ab + Q·p)/2^384 lies in (-p/2, 5p/8): the
 *   final carry pass (floor) leaves 7 digits in [0, 2^48) and a signed top
 *   one, i.e. V's two's complement in 12 words, and p is added once when V
 *   is negative.
 * test_gpu_ff_emu checks it on the host (fma is IEEE's, the same as DFMA);
 * test_gpu_ff on the device.
 */
#ifndef CUZK_GPU_FF_DP_CUH
#define CUZK_GPU_FF_DP_CUH

#include <math.h>
#ifdef CUZK_FF_HOST_EMU
#include <string.h>
#endif

#include "ff.cuh"

namespace cuzk_gpu {

/* a double's words, and a double from words (register moves on the device) */
CUZK_FD double dp_from_words(uint32_t hi, uint32_t lo)
{
#ifdef CUZK_FF_HOST_EMU
    const uint64_t u = (uint64_t)hi << 32 | lo;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
#else
    return __hiloint2double((int)hi, (int)lo);
#endif
}
CUZK_FD uint32_t dp_hi(double d)
{
#ifdef CUZK_FF_HOST_EMU
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return (uint32_t)(u >> 32);
#else
    return (uint32_t)__double2hiint(d);
#endif
}
CUZK_FD uint32_t dp_lo(double d)
{
#ifdef CUZK_FF_HOST_EMU
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return (uint32_t)u;
#else
    return (uint32_t)__double2loint(d);
#endif
}
/* floor(c / 2^48) for an integer |c| < 2^100 (2^-48·c is exact; the fma rounds down to
 * 1.5·2^52's integer grid) */
CUZK_FD double dp_floor48(double c)
{
    const double M = 6755399441055744.0; /* 1.5·2^52 */
#ifdef CUZK_FF_HOST_EMU
    (void)M;
    return floor(ldexp(c, -48));
#else
    return __fma_rd(c, 0x1p-48, M) - M;
#endif
}

/* N words -> NL doubles of 48 bits (words past N read as 0): the words go into a double's
 * mantissa under 2^52's exponent (2^52 + limb), and 2^52 comes off. */
template <int NL, int N> CUZK_FD void dp_load(double *d, const uint32_t *w)
{
    const double T52 = 4503599627370496.0; /* 2^52 */
#pragma unroll
    for (int n = 0; n < NL / 2; n++) {
        const uint32_t w0 = w[3 * n], w1 = 3 * n + 1 < N ? w[3 * n + 1] : 0u, w2 = 3 * n + 2 < N ? w[3 * n + 2] : 0u;
        d[2 * n] = dp_from_words(0x43300000u | (w1 & 0xffffu), w0) - T52;
        d[2 * n + 1] = dp_from_words(0x43300000u | (w2 >> 16), (w1 >> 16) | (w2 << 16)) - T52;
    }
}

/* x·y = h + l, h a multiple of 2^48, |l| <= 2^47 (|x·y| < 2^99) */
#define CUZK_DP_SPLIT(h, l, x, y)                                                                  \
    do {                                                                                           \
        const double t_ = fma((x), (y), 0x1.8p+100);                                               \
        h = t_ - 0x1.8p+100;                                                                       \
        l = fma((x), (y), -h);                                                                     \
    } while (0)

/* The modulus in 48-bit limbs for the FP64 product: NL limbs, NFULL reduction rows of 48 bits
 * and a last row of TAIL bits, so that 48·NFULL + TAIL is log2 R of the IMAD path. */
template <class P> struct dp_params;
template <> struct dp_params<fp_params> {
    static constexpr int NL = 8, NFULL = 8, TAIL = 0; /* 384 = 8·48 */
    CUZK_FD static double m(int i)
    {
        constexpr double v[8] = {(double)0xffffffffaaabull, (double)0xb153ffffb9feull, (double)0xf6241eabfffeull,
                                 (double)0x6730d2a0f6b0ull, (double)0x4b84f38512bfull, (double)0x434bacd76477ull,
                                 (double)0xe69a4b1ba7b6ull, (double)0x1a0111ea397full};
        return v[i];
    }
    static constexpr double INV = (double)0xfffcfffcfffdull; /* -p^-1 mod 2^48 */
};
template <> struct dp_params<fr_params> {
    /* 256 = 5·48 + 16; the 16-bit row's factor -r^-1 mod 2^16 is -1 (r = 1 mod 2^32), so its
     * q is minus the residue (|q| <= 2^15, q·r_j < 2^63: the same split). Columns take at most
     * 6 + 6 terms, below Fp's bounds; |Q| < 2^255·(1 + 2^-16) and r < 0.453·2^256 put
     * V = (ab + Q·r)/2^256 in (-r/2 - 1, 0.96·r), so one conditional add of r is enough. */
    static constexpr int NL = 6, NFULL = 5, TAIL = 16;
    CUZK_FD static double m(int i)
    {
        constexpr double v[6] = {(double)0xffff00000001ull, (double)0xfffe5bfeffffull, (double)0xd80553bda402ull,
                                 (double)0x3339d80809a1ull, (double)0xa753299d7d48ull, (double)0x73edull};
        return v[i];
    }
    static constexpr double INV = (double)0xfffeffffffffull; /* -r^-1 mod 2^48 */
};

/* columns k, k + 1 += x·y: l at k, h·2^-48 at k + 1 */
CUZK_FD void dp_mac(double *C, int k, double x, double y)
{
    double h, l;
    CUZK_DP_SPLIT(h, l, x, y);
    C[k] += l;
    C[k + 1] = fma(h, 0x1p-48, C[k + 1]);
}
/* a reduction row: column k (value c) plus q·m. q·m_0's low part joins c, which then moves
 * whole to column k + 1 (MOVE: the 48-bit rows, c + l = 0 mod 2^48) or stays (Fr's 16-bit
 * row, c + l = 0 mod 2^16); the other limbs add by columns. */
template <class Q, bool MOVE> CUZK_FD void dp_row(double *C, int k, double c, double q)
{
    double h, l;
    CUZK_DP_SPLIT(h, l, q, Q::m(0));
    if (MOVE)
        C[k + 1] = fma(c + l, 0x1p-48, C[k + 1]);
    else
        C[k] = c + l;
    C[k + 1] = fma(h, 0x1p-48, C[k + 1]);
#pragma unroll
    for (int j = 1; j < Q::NL; j++) dp_mac(C, k + j, q, Q::m(j));
}

/* r = a·b·R^-1 mod m, fully reduced (a, b < m): the same result as f_mul, in Fp and Fr */
template <class P> CUZK_FD void f_mul_dp(fe<P> &r, const fe<P> &a, const fe<P> &b)
{
    typedef dp_params<P> Q;
    constexpr int NL = Q::NL, NC = 2 * NL, N = P::N, NW = NL * 3 / 2;
    const double S = 0x1p-48, M = 6755399441055744.0 /* 1.5·2^52 */;
    double A[NL], B[NL], C[NC];
    dp_load<NL, N>(A, a.l);
    dp_load<NL, N>(B, b.l);
#pragma unroll
    for (int k = 0; k < NC; k++) C[k] = 0.0;
    /* a·b by columns */
#pragma unroll
    for (int i = 0; i < NL; i++)
#pragma unroll
        for (int j = 0; j < NL; j++) dp_mac(C, i + j, A[i], B[j]);
    /* the 48-bit rows: column k becomes 0 mod 2^48 and moves on */
#pragma unroll
    for (int k = 0; k < Q::NFULL; k++) {
        const double c = C[k];
        const double rc = fma(c, S, M) - M;    /* round(c / 2^48) */
        const double cl = fma(rc, -0x1p48, c); /* c mod 2^48, signed */
        double hq, q;
        CUZK_DP_SPLIT(hq, q, cl, Q::INV); /* q = cl·inv mod 2^48, signed */
        dp_row<Q, true>(C, k, c, q);
    }
    /* the TAIL-bit row (Fr): column NFULL becomes 0 mod 2^16 and stays */
    if constexpr (Q::TAIL == 16) {
        constexpr int k = Q::NFULL;
        const double c = C[k];
        const double rc = fma(c, 0x1p-16, M) - M; /* round(c / 2^16) */
        const double q = fma(rc, 0x1p16, -c);     /* -(c mod 2^16), signed: c·(-1) mod 2^16 */
        dp_row<Q, false>(C, k, c, q);
    } else {
        static_assert(Q::TAIL == 0, "a last row of 0 or 16 bits");
    }
    /* digits: columns NFULL.. in [0, 2^48), the last one signed (in Fr only the sign) */
    constexpr int D = Q::NFULL;
#pragma unroll
    for (int m = D; m < NC - 1; m++) {
        const double f = dp_floor48(C[m]);
        C[m] = fma(f, -0x1p48, C[m]);
        C[m + 1] += f;
    }
    /* NL digits into words: a digit under 1.5·2^52's exponent has its value mod 2^48 in the
     * mantissa's low 48 bits (2^51 = 0 mod 2^48); the words are the value's two's complement
     * (times 2^TAIL), its sign the top bit */
    uint32_t w[NW];
#pragma unroll
    for (int n = 0; n < NL / 2; n++) {
        const double e0 = C[D + 2 * n] + M, e1 = C[D + 2 * n + 1] + M;
        const uint32_t lo0 = dp_lo(e0), hi0 = dp_hi(e0), lo1 = dp_lo(e1), hi1 = dp_hi(e1);
        w[3 * n] = lo0;
        w[3 * n + 1] = (hi0 & 0xffffu) | (lo1 << 16);
        w[3 * n + 2] = (lo1 >> 16) | (hi1 << 16);
    }
    uint32_t v[N];
#pragma unroll
    for (int i = 0; i < N; i++)
        v[i] = Q::TAIL ? (w[i] >> (Q::TAIL & 31)) | (w[(i + 1) % NW] << ((32 - Q::TAIL) & 31)) : w[i];
    const uint32_t mask = 0u - (v[N - 1] >> 31); /* V < 0: add m */
    r.l[0] = add_cc(v[0], P::m(0) & mask);
#pragma unroll
    for (int i = 1; i < N; i++) r.l[i] = addc_cc(v[i], P::m(i) & mask);
}
#undef CUZK_DP_SPLIT

} // namespace cuzk_gpu
#endif
