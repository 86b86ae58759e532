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

/* ---- Fr times a constant (Shoup) ----------------------------------------
 * x·w mod r for a w known in advance (an NTT's twiddles), with the quotient
 * wq = floor(w·2^256 / r) stored beside it. x·wq / 2^256 is within 0.46 of
 * x·w / r (x < r < 0.46·2^256), so q = floor of it is the quotient or one
 * less, and x·w - q·r lies in [0, 2r), below 2^256: it needs only the low
 * 256 bits of x·w and of q·r, and one conditional subtraction. q's own sum
 * leaves out the products below limb 6 and limb 6's low halves (together
 * < 2^-27 of a unit of q, so q still is the quotient or one less). r's limbs
 * 0 and 1 make 2^256 - r's 2^32 - 1 and 0, so q·(2^256 - r) needs no
 * multiplier there. Multiply instructions: 79 for q, 64 for x·w, 36 for
 * q·(2^256 - r): 179, against 224 for the Montgomery product of two
 * variables (f_mul_eo with r's low limbs). Montgomery form passes through:
 * x = aR gives x·w = (a·w)R; w itself is plain (not Montgomery). */
struct fr_shoup_t {
    fr_t w, wq; /* w plain, wq = floor(w·2^256 / r) */
};

/* t = a·b mod B^N, the product's low N limbs: row i's low halves at
 * i..N-1, its high halves at i+1..N-1, the carries out of limb N-1 dropped */
template <int N> CUZK_FD void mul_low_half(uint32_t *t, const uint32_t *a, const uint32_t *b)
{
#pragma unroll
    for (int k = 0; k < N; k++) t[k] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        t[i] = mad_lo_cc(a[i], b[0], t[i]);
#pragma unroll
        for (int j = 1; i + j < N; j++) t[i + j] = madc_lo_cc(a[i], b[j], t[i + j]);
        if (i < N - 1) {
            t[i + 1] = mad_hi_cc(a[i], b[0], t[i + 1]);
#pragma unroll
            for (int j = 1; i + j + 1 < N; j++) t[i + j + 1] = madc_hi_cc(a[i], b[j], t[i + j + 1]);
        }
    }
}

CUZK_FD void fr_mul_shoup(fr_t &out, const fr_t &x, const fr_t &w, const fr_t &wq)
{
    constexpr int N = 8;
    /* q: positions 7..15 of x·wq (index = position) */
    uint32_t a[2 * N];
#pragma unroll
    for (int k = 0; k < 2 * N; k++) a[k] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const uint32_t xi = x.l[i];
        /* low halves at i + j >= 7; the carry out into position i + 8, still 0 */
        constexpr int L = N - 1;
        const int j0 = L - i;
        a[L] = mad_lo_cc(xi, wq.l[j0], a[L]);
#pragma unroll
        for (int j = j0 + 1; j < N; j++) a[i + j] = madc_lo_cc(xi, wq.l[j], a[i + j]);
        a[i + N] = addc(0, 0);
        /* high halves at i + j + 1 for i + j >= 6 (the row's whole sum fits
         * below position i + 9: no carry out of the last) */
        const int h0 = i < L - 1 ? L - 1 - i : 0;
        a[i + h0 + 1] = mad_hi_cc(xi, wq.l[h0], a[i + h0 + 1]);
#pragma unroll
        for (int j = h0 + 1; j < N - 1; j++) a[i + j + 1] = madc_hi_cc(xi, wq.l[j], a[i + j + 1]);
        a[i + N] = madc_hi(xi, wq.l[N - 1], a[i + N]);
    }
    const uint32_t *q = a + N;
    /* t = x·w + q·(2^256 - r) mod 2^256 (= x·w - q·r) */
    uint32_t t[N];
    mul_low_half<N>(t, x.l, w.l);
    /* 2^256 - r = (B - 1) + 0·B + sum_{j >= 2} nr_j·B^j: q·(B - 1) = q·B - q */
    t[1] = add_cc(t[1], q[0]);
#pragma unroll
    for (int k = 2; k < N; k++) t[k] = addc_cc(t[k], q[k - 1]);
    t[0] = sub_cc(t[0], q[0]);
#pragma unroll
    for (int k = 1; k < N; k++) t[k] = subc_cc(t[k], q[k]);
    constexpr uint32_t nr[N] = {0xffffffffu, 0u, 0x0001a401u, 0xac425bfdu,
                                0xf65e27fau, 0xccc627f7u, 0xd66282b7u, 0x8c1258acu};
#pragma unroll
    for (int i = 0; i + 2 < N; i++) {
        const uint32_t qi = q[i];
        t[i + 2] = mad_lo_cc(qi, nr[2], t[i + 2]);
#pragma unroll
        for (int j = 3; i + j < N; j++) t[i + j] = madc_lo_cc(qi, nr[j], t[i + j]);
        if (i + 3 < N) {
            t[i + 3] = mad_hi_cc(qi, nr[2], t[i + 3]);
#pragma unroll
            for (int j = 3; i + j + 1 < N; j++) t[i + j + 1] = madc_hi_cc(qi, nr[j], t[i + j + 1]);
        }
    }
    f_reduce_once(out, t, 0u);
}
CUZK_FD void fr_mul_shoup(fr_t &out, const fr_t &x, const fr_shoup_t &c) { fr_mul_shoup(out, x, c.w, c.wq); }

/* The constant's form for fr_mul_shoup from its Montgomery form wm = wR mod
 * r: w = wm·R^-1, and wq = floor(w·2^256 / r) = (w·2^256 - wm) / r exactly,
 * which is -wm·r^-1 mod 2^256 (a quotient below 2^256 is its own residue):
 * one low-half product. */
CUZK_FD void fr_shoup_make(fr_shoup_t &c, const fr_t &wm)
{
    constexpr int N = 8;
    constexpr uint32_t rinv[N] = {0x00000001u, 0x00000001u, 0x0001a402u, 0xac45a400u,
                                  0xfffb13f9u, 0xe7e4d3e8u, 0x2840d7c6u, 0xc2bbc54fu};
    f_from_mont(c.w, wm);
    uint32_t n[N];
    n[0] = sub_cc(0u, wm.l[0]);
#pragma unroll
    for (int k = 1; k < N; k++) n[k] = subc_cc(0u, wm.l[k]);
    mul_low_half<N>(c.wq.l, n, rinv);
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

/* ---- Fp2 multiplication with one reduction per coefficient -------------
 * Karatsuba's three Fp products are formed whole (24 limbs, no reduction),
 * combined, and each coefficient reduced once: c0 = REDC(a0·b0 - a1·b1),
 * c1 = REDC((a0 + a1)·(b0 + b1) - a0·b0 - a1·b1). Per Fp2 multiplication
 * 3 × 288 + 2 × (288 + 12) = 1,464 IMADs against 3 × 588 = 1,764 for three
 * reduced products (the reduction is half of a Montgomery product).
 * Bounds (p < 2^381, R = 2^384): every value reduced is in [0, p·R), as
 * REDC needs: a0·b1 + a1·b0 < 2p^2, and a0·b0 - a1·b1 > -p^2 takes p·R
 * (p added to the high half) when negative. */

/* t = a·b, 24 limbs, with the even/odd split of f_mul_eo: a's even limbs'
 * (lo, hi) pairs go to E at (i + j, i + j + 1), the odd ones' to O at the
 * same positions, so each row is two independent carry chains; t = E + O.
 * Each row's chain carries into a word no earlier row wrote; O's last carry
 * (position 24) is zero since a·b < B^24. Operands may be up to 2p
 * (unreduced sums): (2p)^2 < B^24. */
template <int N> CUZK_FD void mul_wide_eo(uint32_t *t, const uint32_t *a, const uint32_t *b)
{
    uint32_t E[2 * N], O[2 * N + 1];
    {
        const uint32_t b0 = b[0];
#pragma unroll
        for (int j = 0; j < N; j += 2) {
            E[j] = mul_lo(a[j], b0), E[j + 1] = mul_hi(a[j], b0);
            O[j + 1] = mul_lo(a[j + 1], b0), O[j + 2] = mul_hi(a[j + 1], b0);
        }
        O[0] = 0;
#pragma unroll
        for (int j = N; j < 2 * N; j++) E[j] = 0;
#pragma unroll
        for (int j = N + 1; j < 2 * N + 1; j++) O[j] = 0;
    }
#pragma unroll
    for (int i = 1; i < N; i++) {
        const uint32_t bi = b[i];
        E[i] = mad_lo_cc(a[0], bi, E[i]);
        E[i + 1] = madc_hi_cc(a[0], bi, E[i + 1]);
#pragma unroll
        for (int j = 2; j < N; j += 2) {
            E[i + j] = madc_lo_cc(a[j], bi, E[i + j]);
            E[i + j + 1] = madc_hi_cc(a[j], bi, E[i + j + 1]);
        }
        E[i + N] = addc(E[i + N], 0);
        O[i + 1] = mad_lo_cc(a[1], bi, O[i + 1]);
        O[i + 2] = madc_hi_cc(a[1], bi, O[i + 2]);
#pragma unroll
        for (int j = 3; j < N; j += 2) {
            O[i + j] = madc_lo_cc(a[j], bi, O[i + j]);
            O[i + j + 1] = madc_hi_cc(a[j], bi, O[i + j + 1]);
        }
        O[i + N + 1] = addc(O[i + N + 1], 0);
    }
    t[0] = E[0];
    t[1] = add_cc(E[1], O[1]);
#pragma unroll
    for (int j = 2; j < 2 * N - 1; j++) t[j] = addc_cc(E[j], O[j]);
    t[2 * N - 1] = addc(E[2 * N - 1], O[2 * N - 1]);
}

CUZK_FD void fp_mul_wide(uint32_t *t, const fp_t &a, const fp_t &b) { mul_wide_eo<fp_params::N>(t, a.l, b.l); }

/* The same product by Karatsuba over halves of 6 limbs: a_lo·b_lo, a_hi·b_hi
 * and (a_lo + a_hi)·(b_lo + b_hi), 3 × 72 = 216 multiply instructions
 * against 288, for about 70 more additions (the halves' sums and their
 * carry bits, two 13-limb subtractions, the middle term added at limb 6).
 * The sums are 193 bits at most (operands up to 2p < 2^382), their product
 * and the middle term a_lo·b_hi + a_hi·b_lo below B^13. Not yet measured
 * (bench_gpu_ff times it beside fp_mul_wide); the MSMs keep fp_mul_wide. */
CUZK_FD void fp_mul_wide_kara(uint32_t *t, const fp_t &a, const fp_t &b)
{
    constexpr int H = fp_params::N / 2;
    uint32_t z0[2 * H], z2[2 * H], z1[2 * H], sa[H], sb[H];
    mul_wide_eo<H>(z0, a.l, b.l);
    mul_wide_eo<H>(z2, a.l + H, b.l + H);
    sa[0] = add_cc(a.l[0], a.l[H]);
#pragma unroll
    for (int j = 1; j < H; j++) sa[j] = addc_cc(a.l[j], a.l[H + j]);
    const uint32_t ca = addc(0, 0);
    sb[0] = add_cc(b.l[0], b.l[H]);
#pragma unroll
    for (int j = 1; j < H; j++) sb[j] = addc_cc(b.l[j], b.l[H + j]);
    const uint32_t cb = addc(0, 0);
    mul_wide_eo<H>(z1, sa, sb);
    /* (sa + ca·B^H)(sb + cb·B^H) = sa·sb + (ca·sb + cb·sa)·B^H + ca·cb·B^2H; top = limb 2H */
    const uint32_t ma = 0u - ca, mb = 0u - cb;
    z1[H] = add_cc(z1[H], sb[0] & ma);
#pragma unroll
    for (int j = 1; j < H; j++) z1[H + j] = addc_cc(z1[H + j], sb[j] & ma);
    uint32_t top = addc(ca & cb, 0);
    z1[H] = add_cc(z1[H], sa[0] & mb);
#pragma unroll
    for (int j = 1; j < H; j++) z1[H + j] = addc_cc(z1[H + j], sa[j] & mb);
    top = addc(top, 0);
    /* the middle term z1 - z0 - z2 (>= 0) */
    z1[0] = sub_cc(z1[0], z0[0]);
#pragma unroll
    for (int j = 1; j < 2 * H; j++) z1[j] = subc_cc(z1[j], z0[j]);
    top = subc(top, 0);
    z1[0] = sub_cc(z1[0], z2[0]);
#pragma unroll
    for (int j = 1; j < 2 * H; j++) z1[j] = subc_cc(z1[j], z2[j]);
    top = subc(top, 0);
    /* t = z0 + z2·B^2H + middle·B^H */
#pragma unroll
    for (int j = 0; j < 2 * H; j++) t[j] = z0[j], t[2 * H + j] = z2[j];
    t[H] = add_cc(t[H], z1[0]);
#pragma unroll
    for (int j = 1; j < 2 * H; j++) t[H + j] = addc_cc(t[H + j], z1[j]);
    t[3 * H] = addc_cc(t[3 * H], top);
#pragma unroll
    for (int j = 3 * H + 1; j < 4 * H - 1; j++) t[j] = addc_cc(t[j], 0);
    t[4 * H - 1] = addc(t[4 * H - 1], 0);
}

/* t = a², 2N limbs, by symmetry: the products a_i·a_j (i < j) once, in two
 * arrays by the parity of i + j so that each row is two independent carry
 * chains (as mul_wide_eo), then doubled and the squares a_i² added:
 * N(N - 1)/2 + N products, 156 multiply instructions for Fp against 288.
 * Row i's chain in an array writes up to word i + jl + 1 (jl its last j, N - 1
 * or N - 2) and carries into word i + jl + 2 >= i + N; earlier rows wrote
 * products only below i + N and at most one carry bit there, so that word
 * cannot overflow. The off-diagonal sum is below a²/2 < B^2N / 2: doubling
 * it loses no bit. Any a < B^N. */
template <int N> CUZK_FD void sqr_wide_eo(uint32_t *t, const uint32_t *a)
{
    uint32_t E[2 * N], O[2 * N];
#pragma unroll
    for (int k = 0; k < 2 * N; k++) E[k] = 0, O[k] = 0;
#pragma unroll
    for (int i = 0; i < N - 1; i++) {
#pragma unroll
        for (int par = 1; par <= 2; par++) { /* j = i + 1, i + 3, ... into O; i + 2, i + 4, ... into E */
            uint32_t *T = par == 1 ? O : E;
            const int j0 = i + par;
            if (j0 >= N) continue;
            int jl = j0;
            T[i + j0] = mad_lo_cc(a[i], a[j0], T[i + j0]);
            T[i + j0 + 1] = madc_hi_cc(a[i], a[j0], T[i + j0 + 1]);
#pragma unroll
            for (int j = j0 + 2; j < N; j += 2) {
                T[i + j] = madc_lo_cc(a[i], a[j], T[i + j]);
                T[i + j + 1] = madc_hi_cc(a[i], a[j], T[i + j + 1]);
                jl = j;
            }
            if (i + jl + 2 < 2 * N) T[i + jl + 2] = addc(T[i + jl + 2], 0);
        }
    }
    /* D = E + O, then t = 2·D + the squares */
    uint32_t D[2 * N];
    D[0] = add_cc(E[0], O[0]);
#pragma unroll
    for (int k = 1; k < 2 * N - 1; k++) D[k] = addc_cc(E[k], O[k]);
    D[2 * N - 1] = addc(E[2 * N - 1], O[2 * N - 1]);
    t[0] = add_cc(D[0] << 1, mul_lo(a[0], a[0]));
    t[1] = addc_cc((D[1] << 1) | (D[0] >> 31), mul_hi(a[0], a[0]));
#pragma unroll
    for (int i = 1; i < N; i++) {
        t[2 * i] = addc_cc((D[2 * i] << 1) | (D[2 * i - 1] >> 31), mul_lo(a[i], a[i]));
        if (i < N - 1)
            t[2 * i + 1] = addc_cc((D[2 * i + 1] << 1) | (D[2 * i] >> 31), mul_hi(a[i], a[i]));
        else
            t[2 * i + 1] = addc((D[2 * i + 1] << 1) | (D[2 * i] >> 31), mul_hi(a[i], a[i]));
    }
}

CUZK_FD void fp_sqr_wide(uint32_t *t, const fp_t &a) { sqr_wide_eo<fp_params::N>(t, a.l); }

/* r = t·R^-1 mod p, fully reduced, for t < p·R (24 limbs): the low half
 * reduced as in f_mul_eo without products (V = X + B·Y, a row adds m·p
 * and divides by B), U = (t_lo + m·p)/R <= p, then r = U + t_hi < 2p
 * (t_hi < p), one conditional subtraction. */
CUZK_FD void fp_redc_wide(fp_t &r, const uint32_t *t)
{
    constexpr int N = fp_params::N;
    uint32_t X[N], Y[N];
#pragma unroll
    for (int j = 0; j < N; j++) X[j] = t[j], Y[j] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        if (i > 0) {
            /* V/B (X[0] is 0 after the previous row): the new X is Y with
             * X[1] folded into its first word, the new Y is X[2..] with
             * that fold's carry */
            uint32_t X2[N], Y2[N];
            X2[0] = add_cc(Y[0], X[1]);
#pragma unroll
            for (int j = 0; j < N - 2; j++) Y2[j] = addc_cc(X[j + 2], 0);
            Y2[N - 2] = addc(0, 0);
            Y2[N - 1] = 0;
#pragma unroll
            for (int j = 1; j < N; j++) X2[j] = Y[j];
#pragma unroll
            for (int j = 0; j < N; j++) X[j] = X2[j], Y[j] = Y2[j];
        }
        const uint32_t m = X[0] * fp_params::INV;
        /* Y += the odd limbs of m·p (p[j + 1] at Y[j], Y[j + 1]); its top
         * pair cannot carry, as in eo_reduce_row */
        Y[0] = mad_lo_cc(m, fp_params::m(1), Y[0]);
        Y[1] = madc_hi_cc(m, fp_params::m(1), Y[1]);
#pragma unroll
        for (int j = 2; j < N - 2; j += 2) {
            Y[j] = madc_lo_cc(m, fp_params::m(j + 1), Y[j]);
            Y[j + 1] = madc_hi_cc(m, fp_params::m(j + 1), Y[j + 1]);
        }
        Y[N - 2] = madc_lo_cc(m, fp_params::m(N - 1), Y[N - 2]);
        Y[N - 1] = madc_hi(m, fp_params::m(N - 1), Y[N - 1]);
        /* X += the even limbs of m·p, the carry into Y's top word */
        X[0] = mad_lo_cc(m, fp_params::m(0), X[0]);
        X[1] = madc_hi_cc(m, fp_params::m(0), X[1]);
#pragma unroll
        for (int j = 2; j < N; j += 2) {
            X[j] = madc_lo_cc(m, fp_params::m(j), X[j]);
            X[j + 1] = madc_hi_cc(m, fp_params::m(j), X[j + 1]);
        }
        Y[N - 1] = addc(Y[N - 1], 0);
    }
    /* U = V/B = X[1..] + Y (<= p), then U + t_hi */
    uint32_t u[N], v[N];
    u[0] = add_cc(Y[0], X[1]);
#pragma unroll
    for (int j = 1; j < N - 1; j++) u[j] = addc_cc(Y[j], X[j + 1]);
    u[N - 1] = addc(Y[N - 1], 0);
    v[0] = add_cc(u[0], t[N]);
#pragma unroll
    for (int j = 1; j < N; j++) v[j] = addc_cc(u[j], t[N + j]);
    f_reduce_once(r, v, addc(0, 0));
}

/* Reduced products by way of the 24-limb forms, for operands below p (t <
 * p^2 < p·R): a·b by Karatsuba (219 + 300 multiply instructions against
 * f_mul_eo's 588, with about 240 more additions), a² by symmetry (156 +
 * 300). Both are fully reduced, as f_mul: the same bits. */
CUZK_FD void fp_mul_kara(fp_t &r, const fp_t &a, const fp_t &b)
{
    uint32_t t[2 * fp_params::N];
    fp_mul_wide_kara(t, a, b);
    fp_redc_wide(r, t);
}
CUZK_FD void fp_sqr_redc(fp_t &r, const fp_t &a)
{
    uint32_t t[2 * fp_params::N];
    fp_sqr_wide(t, a);
    fp_redc_wide(r, t);
}

/* Unreduced a + b of two elements below p (< 2p < B^12). */
CUZK_FD void fp_add_unreduced(fp_t &r, const fp_t &a, const fp_t &b)
{
    r.l[0] = add_cc(a.l[0], b.l[0]);
#pragma unroll
    for (int j = 1; j < fp_params::N - 1; j++) r.l[j] = addc_cc(a.l[j], b.l[j]);
    r.l[fp_params::N - 1] = addc(a.l[fp_params::N - 1], b.l[fp_params::N - 1]);
}

/* t -= a, 24 limbs, modulo B^24 (the caller knows the true value's range). */
CUZK_FD void fp_wide_sub(uint32_t *t, const uint32_t *a)
{
    constexpr int N2 = 2 * fp_params::N;
    t[0] = sub_cc(t[0], a[0]);
#pragma unroll
    for (int j = 1; j < N2 - 1; j++) t[j] = subc_cc(t[j], a[j]);
    t[N2 - 1] = subc(t[N2 - 1], a[N2 - 1]);
}

/* t (24 limbs) holds a value in (-2p^2, 2p^2) modulo B^24: a negative one
 * (top bit set: 2p^2 < 2^763) gets p·R, which puts it in [0, p·R). */
CUZK_FD void fp_wide_signed_fix(uint32_t *t)
{
    constexpr int N = fp_params::N;
    const uint32_t mask = 0u - (t[2 * N - 1] >> 31);
    t[N] = add_cc(t[N], fp_params::m(0) & mask);
#pragma unroll
    for (int j = 1; j < N - 1; j++) t[N + j] = addc_cc(t[N + j], fp_params::m(j) & mask);
    t[2 * N - 1] = addc(t[2 * N - 1], fp_params::m(N - 1) & mask);
}

/* a·b - c·d in Fp with one reduction (against two): the two 24-limb
 * products' difference is in (-p^2, p^2), a negative one takes p·R.
 * 2 × 288 + 300 = 876 IMADs against 2 × 588 (KARA: the products by
 * Karatsuba, 2 × 219 + 300). */
template <bool KARA = false>
CUZK_FD void fp_mul_sub_lazy(fp_t &r, const fp_t &a, const fp_t &b, const fp_t &c, const fp_t &d)
{
    uint32_t t[2 * fp_params::N], q[2 * fp_params::N];
    if constexpr (KARA) {
        fp_mul_wide_kara(t, a, b);
        fp_mul_wide_kara(q, c, d);
    } else {
        fp_mul_wide(t, a, b);
        fp_mul_wide(q, c, d);
    }
    fp_wide_sub(t, q);
    fp_wide_signed_fix(t);
    fp_redc_wide(r, t);
}

/* The two coefficients of a·b in Fp2 before reduction (Karatsuba: three
 * 24-limb products): c1 = a0·b1 + a1·b0 in [0, 2p^2), c0 = a0·b0 - a1·b1
 * in (-p^2, p^2) modulo B^24. */
CUZK_FD void fp2_mul_wide(uint32_t *c0, uint32_t *c1, const fp2_t &a, const fp2_t &b)
{
    uint32_t t[2 * fp_params::N];
    fp_t sa, sb;
    fp_add_unreduced(sa, a.c0, a.c1);
    fp_add_unreduced(sb, b.c0, b.c1);
    fp_mul_wide(c1, sa, sb);     /* (a0 + a1)(b0 + b1) */
    fp_mul_wide(c0, a.c0, b.c0); /* a0·b0 */
    fp_wide_sub(c1, c0);
    fp_mul_wide(t, a.c1, b.c1);  /* a1·b1 */
    fp_wide_sub(c1, t);
    fp_wide_sub(c0, t);
}

static CUZK_FD_NOINLINE fp2_t fp2_mul_lazy(fp2_t a, fp2_t b)
{
    uint32_t c0[2 * fp_params::N], c1[2 * fp_params::N];
    fp2_t r;
    fp2_mul_wide(c0, c1, a, b);
    fp_wide_signed_fix(c0);
    fp_redc_wide(r.c0, c0);
    fp_redc_wide(r.c1, c1);
    return r;
}

/* a·b - c·d in Fp2 with two reductions in all (against four for two lazy
 * products): c0 = a0b0 - a1b1 - (c0d0 - c1d1), c1 = (a0b1 + a1b0) -
 * (c0d1 + c1d0), each in (-2p^2, 2p^2) before the fix. Six 24-limb
 * products: 6 × 288 + 2 × 300 = 2,328 IMADs against 2 × 1,464. */
static CUZK_FD_NOINLINE fp2_t fp2_mul_sub_lazy(fp2_t a, fp2_t b, fp2_t c, fp2_t d)
{
    constexpr int N = fp_params::N;
    uint32_t r0[2 * N], r1[2 * N], q0[2 * N], q1[2 * N];
    fp2_t r;
    fp2_mul_wide(r0, r1, a, b);
    fp2_mul_wide(q0, q1, c, d);
    fp_wide_sub(r0, q0);
    fp_wide_sub(r1, q1);
    fp_wide_signed_fix(r0);
    fp_wide_signed_fix(r1);
    fp_redc_wide(r.c0, r0);
    fp_redc_wide(r.c1, r1);
    return r;
}

/* Fp2 whose multiplication is fp2_mul_lazy: the same layout and every
 * other operation as fp2_t (the G2 MSM's switch, CUZK_GPU_FP2_LAZY). */
struct fp2l_t : fp2_t {
};
CUZK_FD void f_mul(fp2l_t &r, const fp2l_t &a, const fp2l_t &b)
{
    fp2_t m = fp2_mul_lazy(a, b);
    r.c0 = m.c0, r.c1 = m.c1;
}
CUZK_FD void f_sqr(fp2l_t &r, const fp2l_t &a)
{
    fp2_t m = fp2_sqr(a);
    r.c0 = m.c0, r.c1 = m.c1;
}

/* Fp whose a·b - c·d is fp_mul_sub_lazy, every other operation fp_t's
 * (the G1 MSM's switch, CUZK_GPU_FP_LAZY). */
struct fpl_t : fp_t {
};

/* Fp whose products go through the 24-limb forms: a·b by Karatsuba, a² by
 * symmetry, a·b - c·d with one reduction (the G1 MSM's switch,
 * CUZK_GPU_FP_KARA; the mixed addition's 8 products and 2 squares:
 * 8 × 519 + 2 × 456 = 5,064 multiply instructions against 5,880). */
struct fpk_t : fp_t {
};
CUZK_FD void f_mul(fpk_t &r, const fpk_t &a, const fpk_t &b) { fp_mul_kara(r, a, b); }
CUZK_FD void f_sqr(fpk_t &r, const fpk_t &a) { fp_sqr_redc(r, a); }

/* Fp as fpl_t (y in one reduction) whose squares go by symmetry (456
 * multiply instructions against 588), products f_mul_eo's: the mixed
 * addition's 2 squares save 264 of 5,580 at fpl_t's registers (the G1
 * MSM's switch CUZK_GPU_FP_SQR). */
struct fps_t : fp_t {
};
CUZK_FD void f_sqr(fps_t &r, const fps_t &a) { fp_sqr_redc(r, a); }

/* r = a·b - c·d, fused (the point formulas' y coordinates): fields that
 * have it say so here; ec.cuh writes the two products out for the others. */
template <class F> struct has_mul_sub {
    static constexpr bool value = false;
};
template <> struct has_mul_sub<fp2l_t> {
    static constexpr bool value = true;
};
template <> struct has_mul_sub<fpl_t> {
    static constexpr bool value = true;
};
template <> struct has_mul_sub<fpk_t> {
    static constexpr bool value = true;
};
template <> struct has_mul_sub<fps_t> {
    static constexpr bool value = true;
};
CUZK_FD void f_mul_sub(fpl_t &r, const fpl_t &a, const fpl_t &b, const fpl_t &c, const fpl_t &d)
{
    fp_mul_sub_lazy(r, a, b, c, d);
}
CUZK_FD void f_mul_sub(fps_t &r, const fps_t &a, const fps_t &b, const fps_t &c, const fps_t &d)
{
    fp_mul_sub_lazy(r, a, b, c, d);
}
CUZK_FD void f_mul_sub(fpk_t &r, const fpk_t &a, const fpk_t &b, const fpk_t &c, const fpk_t &d)
{
    fp_mul_sub_lazy<true>(r, a, b, c, d);
}
CUZK_FD void f_mul_sub(fp2l_t &r, const fp2l_t &a, const fp2l_t &b, const fp2l_t &c, const fp2l_t &d)
{
    fp2_t m = fp2_mul_sub_lazy(a, b, c, d);
    r.c0 = m.c0, r.c1 = m.c1;
}

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
