/*
 * Device field arithmetic for BLS12-381's Fp (12 x 32-bit limbs) and Fr
 * (8 x 32-bit limbs), Montgomery form with R = 2^384 and 2^256 as on the
 * CPU: a cuzk_fp (6 x 64-bit little-endian limbs) is bit-for-bit the same
 * memory as a device fp_t, so parameters and witnesses upload unconverted.
 * Values are kept fully reduced (< modulus) after every operation, so limb
 * equality is field equality and results download bit-identical to the CPU.
 *
 * Multiplication is CIOS with the carry chains written in PTX (mad.lo.cc /
 * madc.hi.cc): per outer step one chain adds the low halves of a·b_i, one
 * the high halves (shifted one limb), and two more add m·p. Both moduli
 * leave a spare top bit, so the running sum stays below 2p and fits in
 * N + 1 limbs.
 */
#ifndef CUZK_GPU_FF_CUH
#define CUZK_GPU_FF_CUH

#include <stdint.h>

namespace cuzk_gpu {

/* Qualifiers: device functions, or (CUZK_FF_HOST_EMU, the host test
 * test_gpu_ff_emu) plain host functions over the emulated primitives below,
 * so that CI without a device runs the same source. */
#ifdef CUZK_FF_HOST_EMU
#define CUZK_FD inline
#define CUZK_FD_NOINLINE inline
#else
#define CUZK_FD __device__ __forceinline__
#define CUZK_FD_NOINLINE __device__ __noinline__
#endif

/* ---- PTX carry-chain primitives ---------------------------------------- */
#ifdef CUZK_FF_HOST_EMU
/* PTX's carry flag (CC.CF; after a subtraction, the borrow) as a variable:
 * each primitive below does what its PTX instruction does to it. */
static uint32_t ff_emu_cf;
#define CUZK_ASM inline uint32_t
CUZK_ASM ff_emu_add(uint64_t s) { ff_emu_cf = (uint32_t)(s >> 32); return (uint32_t)s; }
CUZK_ASM ff_emu_sub(uint32_t a, uint64_t b) { ff_emu_cf = b > a; return (uint32_t)(a - b); }
CUZK_ASM add_cc(uint32_t a, uint32_t b) { return ff_emu_add((uint64_t)a + b); }
CUZK_ASM addc_cc(uint32_t a, uint32_t b) { return ff_emu_add((uint64_t)a + b + ff_emu_cf); }
CUZK_ASM addc(uint32_t a, uint32_t b) { return a + b + ff_emu_cf; }
CUZK_ASM sub_cc(uint32_t a, uint32_t b) { return ff_emu_sub(a, b); }
CUZK_ASM subc_cc(uint32_t a, uint32_t b) { return ff_emu_sub(a, (uint64_t)b + ff_emu_cf); }
CUZK_ASM subc(uint32_t a, uint32_t b) { return a - b - ff_emu_cf; }
CUZK_ASM mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return ff_emu_add((uint64_t)(a * b) + c); }
CUZK_ASM madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return ff_emu_add((uint64_t)(a * b) + c + ff_emu_cf); }
CUZK_ASM mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return ff_emu_add(((uint64_t)a * b >> 32) + c); }
CUZK_ASM madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return ff_emu_add(((uint64_t)a * b >> 32) + c + ff_emu_cf); }
CUZK_ASM madc_hi(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)((uint64_t)a * b >> 32) + c + ff_emu_cf; }
CUZK_ASM mul_lo(uint32_t a, uint32_t b) { return a * b; }
CUZK_ASM mul_hi(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b >> 32); }
#else
#define CUZK_ASM __device__ __forceinline__ uint32_t
CUZK_ASM add_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
CUZK_ASM addc_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
CUZK_ASM addc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
CUZK_ASM sub_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
CUZK_ASM subc_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
CUZK_ASM subc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
CUZK_ASM mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
CUZK_ASM madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
CUZK_ASM mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
CUZK_ASM madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
CUZK_ASM madc_hi(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
CUZK_ASM mul_lo(uint32_t a, uint32_t b) { return a * b; }
CUZK_ASM mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
#endif
#undef CUZK_ASM

/* Modulus parameters: limbs, -m^-1 mod 2^32, R mod m (one). */
struct fp_params {
    static constexpr int N = 12;
    static constexpr uint32_t INV = 0xfffcfffdu;
    static constexpr bool LOW01 = false; /* see fr_params */
    CUZK_FD static uint32_t m(int i)
    {
        constexpr uint32_t v[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                                    0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                                    0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return v[i];
    }
    CUZK_FD static uint32_t one(int i)
    {
        constexpr uint32_t v[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                                    0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                                    0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return v[i];
    }
};
struct fr_params {
    static constexpr int N = 8;
    static constexpr uint32_t INV = 0xffffffffu;
    /* r's two low limbs are 1 and 2^32 - 1: m·r[0] and m·r[1] need no
     * multiplier (eo_reduce_row_low01) */
    static constexpr bool LOW01 = true;
    CUZK_FD static uint32_t m(int i)
    {
        constexpr uint32_t v[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return v[i];
    }
    CUZK_FD static uint32_t one(int i)
    {
        constexpr uint32_t v[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                                   0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return v[i];
    }
};

/* 16-byte aligned (both sizes are multiples of 16): element and point loads
 * and stores become 128-bit accesses instead of 32-bit ones. Device arrays
 * come from cudaMalloc and are indexed by whole elements, so they always are. */
template <class P> struct alignas(16) fe {
    static constexpr int N = P::N;
    uint32_t l[P::N];
};
typedef fe<fp_params> fp_t;
typedef fe<fr_params> fr_t;

template <class P> CUZK_FD void f_zero(fe<P> &r)
{
#pragma unroll
    for (int i = 0; i < P::N; i++) r.l[i] = 0;
}
template <class P> CUZK_FD void f_one(fe<P> &r)
{
#pragma unroll
    for (int i = 0; i < P::N; i++) r.l[i] = P::one(i);
}
template <class P> CUZK_FD bool f_is_zero(const fe<P> &a)
{
    uint32_t t = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++) t |= a.l[i];
    return t == 0;
}
template <class P> CUZK_FD bool f_eq(const fe<P> &a, const fe<P> &b)
{
    uint32_t t = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++) t |= a.l[i] ^ b.l[i];
    return t == 0;
}

/* r = t - m if t >= m (t < 2m given as N limbs plus a top carry word). */
template <class P> CUZK_FD void f_reduce_once(fe<P> &r, const uint32_t *t, uint32_t top)
{
    uint32_t d[P::N];
    d[0] = sub_cc(t[0], P::m(0));
#pragma unroll
    for (int i = 1; i < P::N; i++) d[i] = subc_cc(t[i], P::m(i));
    uint32_t borrow = subc(top, 0); /* 0xffffffff when t < m */
#pragma unroll
    for (int i = 0; i < P::N; i++) r.l[i] = borrow ? t[i] : d[i];
}

template <class P> CUZK_FD void f_add(fe<P> &r, const fe<P> &a, const fe<P> &b)
{
    uint32_t t[P::N];
    t[0] = add_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < P::N; i++) t[i] = addc_cc(a.l[i], b.l[i]);
    uint32_t top = addc(0, 0);
    f_reduce_once(r, t, top);
}
template <class P> CUZK_FD void f_dbl(fe<P> &r, const fe<P> &a) { f_add(r, a, a); }

template <class P> CUZK_FD void f_sub(fe<P> &r, const fe<P> &a, const fe<P> &b)
{
    uint32_t t[P::N];
    t[0] = sub_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < P::N; i++) t[i] = subc_cc(a.l[i], b.l[i]);
    uint32_t mask = subc(0, 0); /* all ones on borrow: add m back */
    r.l[0] = add_cc(t[0], P::m(0) & mask);
#pragma unroll
    for (int i = 1; i < P::N; i++) r.l[i] = addc_cc(t[i], P::m(i) & mask);
}
template <class P> CUZK_FD void f_neg(fe<P> &r, const fe<P> &a)
{
    fe<P> z;
    f_zero(z);
    f_sub(r, z, a);
}

/* Montgomery product a·b·R^-1, fully reduced: the first version (one
 * accumulator, four dependent carry chains per row), kept as the reference
 * that f_mul is tested and measured against. */
template <class P> CUZK_FD void f_mul_cios(fe<P> &r, const fe<P> &a, const fe<P> &b)
{
    constexpr int N = P::N;
    uint32_t t[N + 2];
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const uint32_t bi = b.l[i];
        /* t += a·b_i: low halves at limb j, high halves at limb j + 1 */
        t[0] = mad_lo_cc(a.l[0], bi, t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = madc_lo_cc(a.l[j], bi, t[j]);
        t[N] = addc_cc(t[N], 0);
        t[N + 1] = addc(t[N + 1], 0);
        t[1] = mad_hi_cc(a.l[0], bi, t[1]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j + 1] = madc_hi_cc(a.l[j], bi, t[j + 1]);
        t[N + 1] = addc(t[N + 1], 0);
        /* t += m·p with m chosen so that t[0] becomes 0, then shift */
        const uint32_t mq = t[0] * P::INV;
        t[0] = mad_lo_cc(mq, P::m(0), t[0]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j] = madc_lo_cc(mq, P::m(j), t[j]);
        t[N] = addc_cc(t[N], 0);
        t[N + 1] = addc(t[N + 1], 0);
        t[1] = mad_hi_cc(mq, P::m(0), t[1]);
#pragma unroll
        for (int j = 1; j < N; j++) t[j + 1] = madc_hi_cc(mq, P::m(j), t[j + 1]);
        t[N + 1] = addc(t[N + 1], 0);
#pragma unroll
        for (int j = 0; j < N + 1; j++) t[j] = t[j + 1];
        t[N + 1] = 0;
    }
    f_reduce_once(r, t, t[N]);
}
/* ---- even/odd CIOS ------------------------------------------------------
 * a·b_i is split by the parity of the limb of a: a_j·b_i with j even has its
 * (lo, hi) pair at positions (j, j+1), with j odd at (j, j+1) too but odd
 * aligned. Two N-word accumulators hold the running sum V = X + B·Y
 * (B = 2^32; X at positions 0..N-1, Y at 1..N), so each half of a row is ONE
 * carry chain of lo/hi pairs, and the X and Y chains of a row do not depend
 * on each other: the scheduler can overlap them, where the single
 * accumulator's four chains ran strictly one after another. m·p is added the
 * same way. Dividing by B after the reduction turns Y into the next X and
 * X[2..] into the next Y; X[1] (position 0 after the division) is folded
 * into the next row's first word, its carry running on in that row's Y chain.
 * Bounds as for plain CIOS: V < 2p·(B + 1) < B^(N+1) for both moduli, so
 * Y's chain never carries out of position N (its last step drops the flag)
 * and X's carry out of position N-1 lands in Y's top word. */
#define CUZK_PAIR_ASM(op_lo, op_hi)                                                                \
    asm volatile(op_lo " %0, %2, %3, %0; " op_hi " %1, %2, %3, %1;"                                 \
                 : "+r"(acc[j]), "+r"(acc[j + 1]) : "r"(a[j]), "r"(bi))

/* acc[j], acc[j+1] += lo, hi of a[j]·bi for j = 0, 2, .. N-2; one chain, carry
 * out left in the flag (N even). */
template <int N> CUZK_FD void eo_mac(uint32_t *acc, const uint32_t *a, uint32_t bi)
{
    {
        constexpr int j = 0;
        CUZK_PAIR_ASM("mad.lo.cc.u32", "madc.hi.cc.u32");
    }
#pragma unroll
    for (int j = 2; j < N; j += 2) CUZK_PAIR_ASM("madc.lo.cc.u32", "madc.hi.cc.u32");
}
/* The same, the last pair dropping the carry (Y's top word cannot carry). */
template <int N> CUZK_FD void eo_mac_top(uint32_t *acc, const uint32_t *a, uint32_t bi)
{
    {
        constexpr int j = 0;
        CUZK_PAIR_ASM("mad.lo.cc.u32", "madc.hi.cc.u32");
    }
#pragma unroll
    for (int j = 2; j < N - 2; j += 2) CUZK_PAIR_ASM("madc.lo.cc.u32", "madc.hi.cc.u32");
    {
        constexpr int j = N - 2;
        CUZK_PAIR_ASM("madc.lo.cc.u32", "madc.hi.u32");
    }
}
#undef CUZK_PAIR_ASM

/* out[j], out[j+1] = lo, hi of a[j]·bi + in[j + 2], in[j + 3] + carry, carrying
 * in the flag left by the caller (the fold of the previous row's X[1]); in
 * is the previous X, out the new Y; the top pair has nothing of in to add. */
template <int N>
CUZK_FD void eo_mac_shift(uint32_t *out, const uint32_t *in, const uint32_t *a, uint32_t bi)
{
#pragma unroll
    for (int j = 0; j < N - 2; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %4; madc.hi.cc.u32 %1, %2, %3, %5;"
                     : "=r"(out[j]), "=r"(out[j + 1])
                     : "r"(a[j]), "r"(bi), "r"(in[j + 2]), "r"(in[j + 3]));
    asm volatile("madc.lo.cc.u32 %0, %2, %3, 0; madc.hi.u32 %1, %2, %3, 0;"
                 : "=r"(out[N - 2]), "=r"(out[N - 1])
                 : "r"(a[N - 2]), "r"(bi));
}

/* X[0] = 0 mod B after this: V += m·p, m = X[0]·(-p^-1) mod B. */
template <class P> CUZK_FD void eo_reduce_row(uint32_t *X, uint32_t *Y, const uint32_t *pm)
{
    constexpr int N = P::N;
    const uint32_t m = X[0] * P::INV;
    eo_mac_top<N>(Y, pm + 1, m);
    eo_mac<N>(X, pm, m);
    Y[N - 1] = addc(Y[N - 1], 0);
}

/* eo_reduce_row for a modulus whose limbs 0 and 1 are 1 and B - 1 (Fr):
 * m = -X[0]; m·1 is m, and m·(B - 1) = (m - 1)·B + (B - m) for m >= 1 (0 for
 * m = 0), so the first pair of each chain is a plain add: 4 of the row's 33
 * IMADs, and the one that forms m, move to the integer ALU, which IMAD-bound
 * code leaves idle. Same carries and bounds as eo_reduce_row. */
template <class P> CUZK_FD void eo_reduce_row_low01(uint32_t *X, uint32_t *Y, const uint32_t *pm)
{
    constexpr int N = P::N;
    const uint32_t m = 0u - X[0], lo1 = 0u - m, hi1 = m - (m != 0u);
    asm volatile("add.cc.u32 %0, %0, %2; addc.cc.u32 %1, %1, %3;" : "+r"(Y[0]), "+r"(Y[1]) : "r"(lo1), "r"(hi1));
#pragma unroll
    for (int j = 2; j < N - 2; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(Y[j]), "+r"(Y[j + 1]) : "r"(pm[j + 1]), "r"(m));
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.u32 %1, %2, %3, %1;"
                 : "+r"(Y[N - 2]), "+r"(Y[N - 1]) : "r"(pm[N - 1]), "r"(m));
    asm volatile("add.cc.u32 %0, %0, %2; addc.cc.u32 %1, %1, 0;" : "+r"(X[0]), "+r"(X[1]) : "r"(m));
#pragma unroll
    for (int j = 2; j < N; j += 2)
        asm volatile("madc.lo.cc.u32 %0, %2, %3, %0; madc.hi.cc.u32 %1, %2, %3, %1;"
                     : "+r"(X[j]), "+r"(X[j + 1]) : "r"(pm[j]), "r"(m));
    Y[N - 1] = addc(Y[N - 1], 0);
}

/* Fr's multiplications take eo_reduce_row_low01 when CUZK_GPU_FR_LOW01 is 1
 * (the kernels' choice); f_mul_eo<P, false> / <P, true> pick one explicitly
 * (test_gpu_ff checks both against the CPU, bench_gpu_ff times both). */
#ifndef CUZK_GPU_FR_LOW01
#define CUZK_GPU_FR_LOW01 0
#endif

/* Montgomery product a·b·R^-1, fully reduced (the even/odd CIOS above). */
template <class P, bool LOW01 = P::LOW01 && CUZK_GPU_FR_LOW01>
CUZK_FD void f_mul_eo(fe<P> &r, const fe<P> &a, const fe<P> &b)
{
    static_assert(!LOW01 || P::LOW01, "the low01 reduction needs limbs 1 and 2^32 - 1");
    constexpr int N = P::N;
    uint32_t pm[N];
#pragma unroll
    for (int j = 0; j < N; j++) pm[j] = P::m(j);
    uint32_t X[N], Y[N];
    /* row 0: the products alone */
    {
        const uint32_t b0 = b.l[0];
#pragma unroll
        for (int j = 0; j < N; j += 2) {
            X[j] = a.l[j] * b0, X[j + 1] = __umulhi(a.l[j], b0);
            Y[j] = a.l[j + 1] * b0, Y[j + 1] = __umulhi(a.l[j + 1], b0);
        }
        if (LOW01)
            eo_reduce_row_low01<P>(X, Y, pm);
        else
            eo_reduce_row<P>(X, Y, pm);
    }
#pragma unroll
    for (int i = 1; i < N; i++) {
        const uint32_t bi = b.l[i];
        uint32_t X2[N], Y2[N];
        /* V/B = X[1..] + Y: the new X is Y with X[1] folded into its first
         * word; the new Y is X[2..] plus the odd products */
#pragma unroll
        for (int j = 1; j < N; j++) X2[j] = Y[j];
        X2[0] = add_cc(Y[0], X[1]);
        eo_mac_shift<N>(Y2, X, a.l + 1, bi);
        eo_mac<N>(X2, a.l, bi);
        Y2[N - 1] = addc(Y2[N - 1], 0);
        if (LOW01)
            eo_reduce_row_low01<P>(X2, Y2, pm);
        else
            eo_reduce_row<P>(X2, Y2, pm);
#pragma unroll
        for (int j = 0; j < N; j++) X[j] = X2[j], Y[j] = Y2[j];
    }
    /* result = X[1..] + Y < 2p */
    uint32_t t[N];
    t[0] = add_cc(Y[0], X[1]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) t[j] = addc_cc(Y[j], X[j + 1]);
    t[N - 1] = addc(Y[N - 1], 0);
    f_reduce_once(r, t, 0u);
}
/* The multiplication every kernel uses: the even/odd CIOS (1.8x the Fp and
 * 1.5x the Fr throughput of f_mul_cios on the H200, bench_gpu_ff);
 * CUZK_GPU_MUL_EO=0 builds the kernels with the single-accumulator version
 * for comparison. test_gpu_ff checks both against the CPU. */
#ifndef CUZK_GPU_MUL_EO
#define CUZK_GPU_MUL_EO 1
#endif
template <class P> CUZK_FD void f_mul(fe<P> &r, const fe<P> &a, const fe<P> &b)
{
    if constexpr (CUZK_GPU_MUL_EO)
        f_mul_eo(r, a, b);
    else
        f_mul_cios(r, a, b);
}
template <class P> CUZK_FD void f_sqr(fe<P> &r, const fe<P> &a) { f_mul(r, a, a); }

/* Montgomery form -> plain integer (a·R^-1), limbs little-endian. */
template <class P> CUZK_FD void f_from_mont(fe<P> &r, const fe<P> &a)
{
    fe<P> one;
    f_zero(one);
    one.l[0] = 1;
    f_mul(r, a, one);
}

/* ---- Fp2 = Fp[u]/(u^2 + 1), the same layout as cuzk_fp2 ---------------- */
struct fp2_t {
    fp_t c0, c1;
};
CUZK_FD void f_zero(fp2_t &r) { f_zero(r.c0), f_zero(r.c1); }
CUZK_FD void f_one(fp2_t &r) { f_one(r.c0), f_zero(r.c1); }
CUZK_FD bool f_is_zero(const fp2_t &a) { return f_is_zero(a.c0) && f_is_zero(a.c1); }
CUZK_FD bool f_eq(const fp2_t &a, const fp2_t &b) { return f_eq(a.c0, b.c0) && f_eq(a.c1, b.c1); }
CUZK_FD void f_add(fp2_t &r, const fp2_t &a, const fp2_t &b) { f_add(r.c0, a.c0, b.c0), f_add(r.c1, a.c1, b.c1); }
CUZK_FD void f_sub(fp2_t &r, const fp2_t &a, const fp2_t &b) { f_sub(r.c0, a.c0, b.c0), f_sub(r.c1, a.c1, b.c1); }
CUZK_FD void f_dbl(fp2_t &r, const fp2_t &a) { f_dbl(r.c0, a.c0), f_dbl(r.c1, a.c1); }
CUZK_FD void f_neg(fp2_t &r, const fp2_t &a) { f_neg(r.c0, a.c0), f_neg(r.c1, a.c1); }
/* Out of line: G2 formulas call these dozens of times per point operation. */
static CUZK_FD_NOINLINE fp2_t fp2_mul(fp2_t a, fp2_t b)
{
    /* Karatsuba, as the CPU */
    fp_t t0, t1, s0, s1;
    fp2_t r;
    f_mul(t0, a.c0, b.c0);
    f_mul(t1, a.c1, b.c1);
    f_add(s0, a.c0, a.c1);
    f_add(s1, b.c0, b.c1);
    f_mul(s0, s0, s1);
    f_sub(s0, s0, t0);
    f_sub(r.c1, s0, t1);
    f_sub(r.c0, t0, t1);
    return r;
}
static CUZK_FD_NOINLINE fp2_t fp2_sqr(fp2_t a)
{
    fp_t s, d, m;
    fp2_t r;
    f_add(s, a.c0, a.c1);
    f_sub(d, a.c0, a.c1);
    f_mul(m, a.c0, a.c1);
    f_mul(r.c0, s, d);
    f_dbl(r.c1, m);
    return r;
}
CUZK_FD void f_mul(fp2_t &r, const fp2_t &a, const fp2_t &b) { r = fp2_mul(a, b); }
CUZK_FD void f_sqr(fp2_t &r, const fp2_t &a) { r = fp2_sqr(a); }

/* ---- inversion (Fermat), for the Montgomery batch tricks of the
 * fixed-base conversion and the MSM's batch-affine rounds ------------------ */
/* a^(p-2) in Fp by square-and-multiply over p - 2's bits (p - 2 differs from
 * p only in limb 0, which is >= 2). */
static CUZK_FD_NOINLINE fp_t fp_inv(fp_t a)
{
    fp_t r;
    f_one(r);
    for (int i = fp_params::N - 1; i >= 0; i--) {
        const uint32_t e = i == 0 ? fp_params::m(0) - 2 : fp_params::m(i);
        for (int b = 31; b >= 0; b--) {
            f_sqr(r, r);
            if ((e >> b) & 1) f_mul(r, r, a);
        }
    }
    return r;
}
CUZK_FD void f_inv(fp_t &r, const fp_t &a) { r = fp_inv(a); }
/* (c0 + c1·u)^-1 = (c0 - c1·u) / (c0^2 + c1^2) since u^2 = -1 */
CUZK_FD void f_inv(fp2_t &r, const fp2_t &a)
{
    fp_t t0, t1;
    f_mul(t0, a.c0, a.c0);
    f_mul(t1, a.c1, a.c1);
    f_add(t0, t0, t1);
    f_inv(t1, t0);
    f_mul(r.c0, a.c0, t1);
    f_mul(r.c1, a.c1, t1);
    f_neg(r.c1, r.c1);
}

} // namespace cuzk_gpu
#endif
