/*
 * Fp inversion by Bernstein–Yang divsteps ("safegcd"), in constant time and
 * without a division: the cheap inversion that batch-affine additions need.
 * Fermat's a^(p-2) (fp_inv in ff.cuh)
 * costs ≈ 575 dependent products; this costs 37 batches of 30 divsteps on
 * one 32-bit word each, plus a 2×2 matrix of 30-bit entries applied to four
 * 13-limb numbers per batch: ≈ 35 k instructions, every lane the same path.
 *
 * The state: f, g with f odd (f = p, g = x at the start), and d, e mod p
 * with d·x ≡ f, e·x ≡ g (mod p). A divstep is
 *     δ > 0 and g odd:  (δ, f, g) <- (1 - δ, g, (g - f)/2)
 *     g odd:            (δ, f, g) <- (1 + δ, f, (g + f)/2)
 *     else:             (δ, f, g) <- (1 + δ, f, g/2)
 * and after enough of them g = 0 and f = ±1, so x^-1 = ±d. For 381-bit
 * inputs ⌊(49·381 + 57)/17⌋ = 1,101 divsteps suffice (Bernstein and Yang,
 * "Fast constant-time gcd computation and modular inversion", 2019,
 * Theorem 11.2); 37 × 30 = 1,110. Extra divsteps leave g = 0, f = ±1.
 *
 * Numbers are 13 signed limbs of 30 bits (limbs 0..11 in [0, 2^30), the top
 * one signed), so that a limb times a matrix entry plus a carry fits int64.
 * d and e stay in (-2p, p): each update adds to md the matrix entries of the
 * negative ones before picking md ≡ -(u·d + v·e)/p (mod 2^30) (the bound's
 * argument is the one of libsecp256k1's safegcd write-up; test_gpu_ff_emu
 * checks the range on every update it runs).
 */
#ifndef CUZK_GPU_FF_INV_CUH
#define CUZK_GPU_FF_INV_CUH

#include "ff.cuh"

namespace cuzk_gpu {

#define INV_L 13        /* limbs of 30 bits */
#define INV_N 30        /* divsteps per batch */
#define INV_BATCHES 37  /* 1,110 >= 1,101 divsteps */
#define INV_M30 0x3fffffff

struct inv30_t {
    int32_t v[INV_L];
};

/* p in limbs of 30 bits; p^-1 mod 2^30; R^3 mod p in limbs of 32 (R = 2^384) */
CUZK_FD int32_t inv_p30(int i)
{
    constexpr int32_t v[INV_L] = {0x3fffaaab, 0x27fbffff, 0x153ffffb, 0x2affffac, 0x30f6241e, 0x034a83da, 0x112bf673,
                                  0x12e13ce1, 0x2cd76477, 0x1ed90d2e, 0x29a4b1ba, 0x3a8e5ff9, 0x001a0111};
    return v[i];
}
#define INV_PINV30 0x00030003u
CUZK_FD uint32_t inv_r3(int i)
{
    constexpr uint32_t v[12] = {0xd94ca1e0, 0xed48ac6b, 0x03a7adf8, 0x315f831e, 0x615e29dd, 0x9a53352a,
                                0x921e1761, 0x34c04e5e, 0x65724728, 0x2512d435, 0x91755d4d, 0x0aa63460};
    return v[i];
}

/* INV_N divsteps on the low words of f and g (their low 32 - i bits stay
 * right after i steps, and each step reads only g's lowest bit). Returns δ;
 * t = {u, v, q, r} with 2^N·(f', g') = (u·f + v·g, q·f + r·g). Branch-free:
 * the swap and the additions are masked. */
CUZK_FD int32_t inv_divsteps(int32_t delta, uint32_t f, uint32_t g, int32_t t[4])
{
    uint32_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < INV_N; i++) {
        const uint32_t sw = 0u - (uint32_t)((delta > 0) & (int32_t)(g & 1u));
        uint32_t x = (f ^ g) & sw; /* swap (f, g) and (u, v) <-> (q, r), negating the new g row */
        f ^= x, g ^= x, g = (g ^ sw) - sw;
        x = (u ^ q) & sw, u ^= x, q ^= x, q = (q ^ sw) - sw;
        x = (v ^ r) & sw, v ^= x, r ^= x, r = (r ^ sw) - sw;
        delta = (int32_t)(((uint32_t)delta ^ sw) - sw);
        const uint32_t odd = 0u - (g & 1u); /* g odd: add f (g - f after a swap) */
        g += f & odd, q += u & odd, r += v & odd;
        g >>= 1, u <<= 1, v <<= 1, delta += 1;
    }
    t[0] = (int32_t)u, t[1] = (int32_t)v, t[2] = (int32_t)q, t[3] = (int32_t)r;
    return delta;
}

/* a's low 32 bits (limbs 0..11 are in [0, 2^30), so limb 0 and limb 1's low
 * two bits; two's complement for a negative a) */
CUZK_FD uint32_t inv_lo32(const inv30_t &a) { return (uint32_t)a.v[0] | (uint32_t)a.v[1] << 30; }

/* (f, g) <- (u·f + v·g, q·f + r·g) / 2^30, exact */
CUZK_FD void inv_update_fg(inv30_t &f, inv30_t &g, const int32_t t[4])
{
    int64_t cf = (int64_t)t[0] * f.v[0] + (int64_t)t[1] * g.v[0];
    int64_t cg = (int64_t)t[2] * f.v[0] + (int64_t)t[3] * g.v[0];
    cf >>= INV_N, cg >>= INV_N; /* the low 30 bits are zero */
    for (int i = 1; i < INV_L; i++) {
        cf += (int64_t)t[0] * f.v[i] + (int64_t)t[1] * g.v[i];
        cg += (int64_t)t[2] * f.v[i] + (int64_t)t[3] * g.v[i];
        f.v[i - 1] = (int32_t)(cf & INV_M30), g.v[i - 1] = (int32_t)(cg & INV_M30);
        cf >>= INV_N, cg >>= INV_N;
    }
    f.v[INV_L - 1] = (int32_t)cf, g.v[INV_L - 1] = (int32_t)cg;
}

/* (d, e) <- (u·d + v·e, q·d + r·e) / 2^30 mod p, both kept in (-2p, p) */
CUZK_FD void inv_update_de(inv30_t &d, inv30_t &e, const int32_t t[4])
{
    const int32_t sd = d.v[INV_L - 1] >> 31, se = e.v[INV_L - 1] >> 31; /* -1 when negative */
    int32_t md = (t[0] & sd) + (t[1] & se), me = (t[2] & sd) + (t[3] & se);
    int64_t cd = (int64_t)t[0] * d.v[0] + (int64_t)t[1] * e.v[0];
    int64_t ce = (int64_t)t[2] * d.v[0] + (int64_t)t[3] * e.v[0];
    md -= (int32_t)((INV_PINV30 * (uint32_t)cd + (uint32_t)md) & INV_M30);
    me -= (int32_t)((INV_PINV30 * (uint32_t)ce + (uint32_t)me) & INV_M30);
    cd += (int64_t)inv_p30(0) * md, ce += (int64_t)inv_p30(0) * me;
    cd >>= INV_N, ce >>= INV_N;
    for (int i = 1; i < INV_L; i++) {
        cd += (int64_t)t[0] * d.v[i] + (int64_t)t[1] * e.v[i] + (int64_t)inv_p30(i) * md;
        ce += (int64_t)t[2] * d.v[i] + (int64_t)t[3] * e.v[i] + (int64_t)inv_p30(i) * me;
        d.v[i - 1] = (int32_t)(cd & INV_M30), e.v[i - 1] = (int32_t)(ce & INV_M30);
        cd >>= INV_N, ce >>= INV_N;
    }
    d.v[INV_L - 1] = (int32_t)cd, e.v[INV_L - 1] = (int32_t)ce;
}

/* a + p·k for k = 0 or ±1 chosen by the mask (k·p added limb by limb, then carried) */
CUZK_FD void inv_add_p(inv30_t &a, int32_t mask, int32_t sign)
{
    int64_t c = 0;
    for (int i = 0; i < INV_L; i++) {
        c += (int64_t)a.v[i] + (int64_t)((inv_p30(i) & mask) * sign);
        a.v[i] = i < INV_L - 1 ? (int32_t)(c & INV_M30) : (int32_t)c;
        c >>= INV_N;
    }
}

/* The start: f = p, g = a's 384 bits in 13 limbs of 30 (a < p < 2^381),
 * d = 0, e = 1. */
CUZK_FD void inv_start(inv30_t &f, inv30_t &g, inv30_t &d, inv30_t &e, const fp_t &a)
{
    for (int i = 0; i < INV_L; i++) {
        const int b = 30 * i, w = b >> 5, s = b & 31;
        uint64_t two = a.l[w];
        if (w + 1 < 12) two |= (uint64_t)a.l[w + 1] << 32;
        g.v[i] = (int32_t)((two >> s) & INV_M30);
        f.v[i] = inv_p30(i), d.v[i] = 0, e.v[i] = 0;
    }
    e.v[0] = 1;
}

/* r = a^-1 in Montgomery form (a = x·R^-1 as stored: x^-1 then times R^3
 * by one Montgomery product); 0 for 0, as Fermat's. */
CUZK_FD void f_inv_divsteps(fp_t &r, const fp_t &a)
{
    inv30_t f, g, d, e;
    inv_start(f, g, d, e, a);
    int32_t delta = 1, t[4];
    for (int b = 0; b < INV_BATCHES; b++) {
        delta = inv_divsteps(delta, inv_lo32(f), inv_lo32(g), t);
        inv_update_de(d, e, t);
        inv_update_fg(f, g, t);
    }
    /* f = ±1: x^-1 = f·d, d in (-2p, p) -> [0, p) */
    const int32_t neg = f.v[INV_L - 1] >> 31;
    for (int i = 0; i < INV_L; i++) d.v[i] = (d.v[i] ^ neg) - neg; /* limb-wise negation, carried below */
    inv_add_p(d, 0, 1);                                          /* carry the negated limbs */
    inv_add_p(d, d.v[INV_L - 1] >> 31, 1);                       /* (-2p, 2p) -> (-p, 2p) */
    inv_add_p(d, d.v[INV_L - 1] >> 31, 1);                       /* -> [0, 2p) */
    inv30_t s = d;
    inv_add_p(s, -1, -1); /* d - p: keep it when not negative */
    const int32_t keep = ~(s.v[INV_L - 1] >> 31);
    for (int i = 0; i < INV_L; i++) d.v[i] = (s.v[i] & keep) | (d.v[i] & ~keep);
    fp_t x, r3;
    for (int i = 0; i < 12; i++) {
        const int b = 32 * i, w = b / 30, s2 = b % 30;
        uint64_t three = (uint64_t)(uint32_t)d.v[w] >> s2;
        if (w + 1 < INV_L) three |= (uint64_t)(uint32_t)d.v[w + 1] << (30 - s2);
        if (w + 2 < INV_L) three |= (uint64_t)(uint32_t)d.v[w + 2] << (60 - s2);
        x.l[i] = (uint32_t)three;
        r3.l[i] = inv_r3(i);
    }
    f_mul(r, x, r3);
}

} // namespace cuzk_gpu
#endif
