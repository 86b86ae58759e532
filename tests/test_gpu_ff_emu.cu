/* The device field arithmetic's own source (src/gpu/ff.cuh) run on the host,
 * its PTX carry primitives emulated (CUZK_FF_HOST_EMU: each keeps PTX's
 * carry flag in a variable), against the CPU's Fp and Fp2: the single-
 * accumulator Montgomery product, addition, subtraction, the 24-limb product
 * and its reduction, the Fp2 multiplication with one reduction per
 * coefficient (fp2_mul_lazy) and a·b - c·d with two (fp2_mul_sub_lazy, as
 * the point formulas call it through ec_mul_sub; in Fp with one,
 * fp_mul_sub_lazy), with edge values (0, 1, p - 1, sums near 2p)
 * and fresh random ones; in Fr, the product by a constant with Shoup's
 * quotient (fr_mul_shoup, fr_shoup_make) against the Montgomery product. No device needed: CI runs it. The PTX-string code
 * (the even/odd CIOS) and the kernels are test_gpu_ff's, on a device. */
#define CUZK_FF_HOST_EMU 1
#define CUZK_GPU_MUL_EO 0 /* f_mul: the single-accumulator CIOS, written in primitives */
#include <stdlib.h>
#include <string.h>

#include "gpu/ec.cuh" /* ec_mul_sub */
extern "C" {
#include "cuzk/fp.h"
#include "cuzk/fp2.h"
#include "cuzk/fr.h"
#include "testutil.h"
}

using namespace cuzk_gpu;

static_assert(sizeof(cuzk_fp) == sizeof(fp_t) && sizeof(cuzk_fp2) == sizeof(fp2_t), "layouts differ");

static fp_t dv(const cuzk_fp &a)
{
    fp_t r;
    memcpy(&r, &a, sizeof r);
    return r;
}
static fp2_t dv2(const cuzk_fp2 &a)
{
    fp2_t r;
    memcpy(&r, &a, sizeof r);
    return r;
}

/* The 24-limb product against the CPU: fp_mul_wide's t reduced by
 * fp_redc_wide is a·b·R^-1, which cuzk_fp_mul computes. */
static unsigned check_fp(const cuzk_fp &a, const cuzk_fp &b)
{
    unsigned bad = 0;
    cuzk_fp want, s;
    fp_t r;
    cuzk_fp_mul(&want, &a, &b);
    f_mul_cios(r, dv(a), dv(b));
    bad |= memcmp(&r, &want, sizeof r) != 0;
    uint32_t t[24];
    fp_mul_wide(t, dv(a), dv(b));
    fp_redc_wide(r, t);
    bad |= (memcmp(&r, &want, sizeof r) != 0) << 1;
    cuzk_fp_add(&s, &a, &b);
    f_add(r, dv(a), dv(b));
    bad |= (memcmp(&r, &s, sizeof r) != 0) << 2;
    cuzk_fp_sub(&s, &a, &b);
    f_sub(r, dv(a), dv(b));
    bad |= (memcmp(&r, &s, sizeof r) != 0) << 3;
    /* a·b - b·(a + b) with one reduction (fpl_t through ec_mul_sub) */
    cuzk_fp ab, c, bc;
    cuzk_fp_add(&c, &a, &b);
    cuzk_fp_mul(&ab, &a, &b);
    cuzk_fp_mul(&bc, &b, &c);
    cuzk_fp_sub(&s, &ab, &bc);
    fpl_t x, y, z, o, tmp;
    memcpy(&x, &a, sizeof x), memcpy(&y, &b, sizeof y), memcpy(&z, &c, sizeof z);
    ec_mul_sub(o, x, y, tmp, y, z);
    bad |= (memcmp(&o, &s, sizeof o) != 0) << 4;
    ec_mul_sub(o, x, y, tmp, x, y); /* a·b - a·b */
    bad |= (!f_is_zero(o)) << 4;
    /* the Karatsuba 24-limb product, limb for limb the schoolbook one: on a, b
     * and on the unreduced sums a + b, a + a (up to 2p, as Fp2's Karatsuba gives it) */
    uint32_t tk[24];
    fp_mul_wide_kara(tk, dv(a), dv(b));
    bad |= (memcmp(tk, t, sizeof t) != 0) << 5;
    fp_t sab, saa;
    fp_add_unreduced(sab, dv(a), dv(b));
    fp_add_unreduced(saa, dv(a), dv(a));
    fp_mul_wide(t, sab, saa);
    fp_mul_wide_kara(tk, sab, saa);
    bad |= (memcmp(tk, t, sizeof t) != 0) << 5;
    /* the square by symmetry, limb for limb the product a·a (on a and on the
     * unreduced 2a, b + a) */
    fp_mul_wide(t, dv(a), dv(a));
    fp_sqr_wide(tk, dv(a));
    bad |= (memcmp(tk, t, sizeof t) != 0) << 6;
    fp_mul_wide(t, saa, saa);
    fp_sqr_wide(tk, saa);
    bad |= (memcmp(tk, t, sizeof t) != 0) << 6;
    fp_mul_wide(t, sab, sab);
    fp_sqr_wide(tk, sab);
    bad |= (memcmp(tk, t, sizeof t) != 0) << 6;
    /* fpk_t (the G1 switch CUZK_GPU_FP_KARA): a·b, a², a·b - b·(a + b) */
    cuzk_fp sq;
    cuzk_fp_mul(&sq, &a, &a);
    fpk_t kx, ky, kz, ko, kt;
    memcpy(&kx, &a, sizeof kx), memcpy(&ky, &b, sizeof ky), memcpy(&kz, &c, sizeof kz);
    f_mul(ko, kx, ky);
    bad |= (memcmp(&ko, &want, sizeof ko) != 0) << 7;
    f_sqr(ko, kx);
    bad |= (memcmp(&ko, &sq, sizeof ko) != 0) << 7;
    ec_mul_sub(ko, kx, ky, kt, ky, kz);
    bad |= (memcmp(&ko, &s, sizeof ko) != 0) << 7;
    /* fps_t (CUZK_GPU_FP_SQR): a², a·b - b·(a + b) */
    fps_t sx, sy, sz, so, st;
    memcpy(&sx, &a, sizeof sx), memcpy(&sy, &b, sizeof sy), memcpy(&sz, &c, sizeof sz);
    f_sqr(so, sx);
    bad |= (memcmp(&so, &sq, sizeof so) != 0) << 8;
    ec_mul_sub(so, sx, sy, st, sy, sz);
    bad |= (memcmp(&so, &s, sizeof so) != 0) << 8;
    return bad;
}

/* a·b (fp2_mul_lazy, and the fp2l_t overload the G2 MSM's switch takes)
 * and a·b - c·d (fp2_mul_sub_lazy through ec_mul_sub, as the point
 * formulas call it) */
static bool check_fp2(const cuzk_fp2 &a, const cuzk_fp2 &b, const cuzk_fp2 &c, const cuzk_fp2 &d)
{
    cuzk_fp2 want, cd, want_ms;
    cuzk_fp2_mul(&want, &a, &b);
    cuzk_fp2_mul(&cd, &c, &d);
    cuzk_fp2_sub(&want_ms, &want, &cd);
    const fp2_t r = fp2_mul_lazy(dv2(a), dv2(b));
    fp2l_t x, y, z, u, v, t, ms;
    memcpy(&x, &a, sizeof x), memcpy(&y, &b, sizeof y), memcpy(&u, &c, sizeof u), memcpy(&v, &d, sizeof v);
    f_mul(z, x, y);
    ec_mul_sub(ms, x, y, t, u, v);
    return !memcmp(&r, &want, sizeof r) && !memcmp(&z, &want, sizeof z) && !memcmp(&ms, &want_ms, sizeof ms);
}

/* fr_mul_shoup(x, c) against cuzk_fr_mul(x, c) in Montgomery form, c's
 * Shoup form made by fr_shoup_make; and that form checked by its
 * definition, wq·r + cR mod r = w·2^256 with w = c (plain), in 512-bit
 * arithmetic of the test's own (bit 0: product, bit 1: quotient). */
static unsigned check_fr(const cuzk_fr &x, const cuzk_fr &c)
{
    static const uint64_t r[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                                  0x73eda753299d7d48ull};
    cuzk_fr want;
    cuzk_fr_mul(&want, &x, &c);
    fr_t dx, dc, o;
    memcpy(&dx, &x, sizeof dx), memcpy(&dc, &c, sizeof dc);
    fr_shoup_t sh;
    fr_shoup_make(sh, dc);
    fr_mul_shoup(o, dx, sh);
    unsigned bad = memcmp(&o, &want, sizeof o) != 0;
    uint64_t wq[4], w[4], lhs[8] = {0};
    memcpy(wq, &sh.wq, sizeof wq), memcpy(w, &sh.w, sizeof w);
    for (int i = 0; i < 4; i++) { /* lhs = wq·r */
        unsigned __int128 carry = 0;
        for (int j = 0; j < 4; j++) {
            unsigned __int128 v = (unsigned __int128)wq[i] * r[j] + lhs[i + j] + carry;
            lhs[i + j] = (uint64_t)v, carry = v >> 64;
        }
        lhs[i + 4] = (uint64_t)carry;
    }
    unsigned __int128 carry = 0; /* + cR mod r, which is c's limbs as stored */
    for (int k = 0; k < 8; k++) {
        unsigned __int128 v = (unsigned __int128)lhs[k] + (k < 4 ? c.l[k] : 0) + carry;
        lhs[k] = (uint64_t)v, carry = v >> 64;
    }
    bad |= (carry || lhs[0] || lhs[1] || lhs[2] || lhs[3] || memcmp(lhs + 4, w, sizeof w)) << 1;
    return bad;
}

/* The edges of a field (Fp or Fr, m its modulus): 0, 1, m - 1, m - 2, 2,
 * R^-1 (limb 1), a zero low word */
enum { NE = 7 };
template <class T>
static void edges(T e[NE], const T &one, void (*neg)(T *, const T *), void (*add)(T *, const T *, const T *))
{
    memset(e, 0, NE * sizeof *e);
    e[1] = one;
    neg(&e[2], &e[1]);
    add(&e[3], &e[2], &e[2]);
    add(&e[4], &e[1], &e[1]);
    e[5].l[0] = 1;
    e[6].l[0] = (uint64_t)1 << 32;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gpu_ff_emu");
    cuzk_fp e[NE];
    edges(e, cuzk_fp_one, cuzk_fp_neg, cuzk_fp_add);
    enum { NB = 9 };
    unsigned long bad_fp[NB] = {0}, bad_fp2 = 0, n_fp = 0, n_fp2 = 0;
    const char *what[NB] = {"f_mul_cios", "fp_mul_wide + fp_redc_wide", "f_add", "f_sub", "fp_mul_sub_lazy",
                            "fp_mul_wide_kara", "fp_sqr_wide", "fpk_t (f_mul, f_sqr, a·b - c·d)",
                            "fps_t (f_sqr, a·b - c·d)"};
    for (int i = 0; i < NE; i++)
        for (int j = 0; j < NE; j++) {
            unsigned b = check_fp(e[i], e[j]);
            n_fp++;
            for (int k = 0; k < NB; k++) bad_fp[k] += (b >> k) & 1;
        }
    for (int i = 0; i < NE * NE; i++)
        for (int j = 0; j < NE * NE; j++) { /* every pair of edge-built Fp2 values */
            cuzk_fp2 x = {e[i / NE], e[i % NE]}, y = {e[j / NE], e[j % NE]};
            cuzk_fp2 u = {e[j % NE], e[i / NE]}, v = {e[i % NE], e[j / NE]};
            bad_fp2 += !check_fp2(x, y, u, v), n_fp2++;
        }
    for (int k = 0; k < 200000; k++) {
        cuzk_fp a, b;
        cuzk_fp_random(&a, &rng), cuzk_fp_random(&b, &rng);
        unsigned bb = check_fp(a, b);
        n_fp++;
        for (int q = 0; q < NB; q++) bad_fp[q] += (bb >> q) & 1;
        cuzk_fp2 x, y, u, v;
        cuzk_fp2_random(&x, &rng), cuzk_fp2_random(&y, &rng);
        cuzk_fp2_random(&u, &rng), cuzk_fp2_random(&v, &rng);
        if (k & 1) y.c0 = e[2 + (k >> 1) % 2], v.c1 = e[2 + (k >> 2) % 2]; /* p - 1 or p - 2 beside random */
        if (k % 7 == 0) u = x, v = y; /* a·b - a·b */
        bad_fp2 += !check_fp2(x, y, u, v), n_fp2++;
    }
    /* Fr: every pairing of its edges; fresh pairs */
    cuzk_fr fe_[NE];
    edges(fe_, cuzk_fr_one, cuzk_fr_neg, cuzk_fr_add);
    unsigned long bad_fr[2] = {0}, n_fr = 0;
    for (int i = 0; i < NE; i++)
        for (int j = 0; j < NE; j++) {
            unsigned b = check_fr(fe_[i], fe_[j]);
            n_fr++, bad_fr[0] += b & 1, bad_fr[1] += b >> 1;
        }
    for (int k = 0; k < 200000; k++) {
        cuzk_fr x, c;
        cuzk_fr_random(&x, &rng), cuzk_fr_random(&c, &rng);
        if (k % 5 == 1) x = fe_[2 + k % 2]; /* r - 1, r - 2 beside a random constant */
        if (k % 5 == 2) c = fe_[2 + k % 2];
        unsigned b = check_fr(x, c);
        n_fr++, bad_fr[0] += b & 1, bad_fr[1] += b >> 1;
    }
    CHECK_MSG(bad_fr[0] == 0, "fr_mul_shoup: %lu of %lu differ", bad_fr[0], n_fr);
    CHECK_MSG(bad_fr[1] == 0, "fr_shoup_make: %lu of %lu quotients wrong", bad_fr[1], n_fr);
    for (int k = 0; k < NB; k++) CHECK_MSG(bad_fp[k] == 0, "%s: %lu of %lu differ", what[k], bad_fp[k], n_fp);
    CHECK_MSG(bad_fp2 == 0, "fp2_mul_lazy: %lu of %lu differ", bad_fp2, n_fp2);
    printf("Fp: %lu pairs, Fp2: %lu pairs, Fr (Shoup): %lu pairs, emulated carries\n", n_fp, n_fp2, n_fr);
    /* the oracle can fail: one flipped limb is seen */
    cuzk_fp a = e[2], b = e[2];
    uint32_t t[24];
    fp_mul_wide(t, dv(a), dv(b));
    t[3] ^= 1;
    fp_t r;
    fp_redc_wide(r, t);
    cuzk_fp want;
    cuzk_fp_mul(&want, &a, &b);
    CHECK(memcmp(&r, &want, sizeof r) != 0);
    /* and a wrong quotient is seen: wq one too small leaves x·w - q·r up to 3r */
    {
        cuzk_fr x = fe_[2], c = fe_[2], wr;
        fr_t dx, dc, o;
        memcpy(&dx, &x, sizeof dx), memcpy(&dc, &c, sizeof dc);
        fr_shoup_t sh;
        fr_shoup_make(sh, dc);
        sh.wq.l[7] -= 1;
        fr_mul_shoup(o, dx, sh);
        cuzk_fr_mul(&wr, &x, &c);
        CHECK(memcmp(&o, &wr, sizeof o) != 0);
    }
    return tu_finish("test_gpu_ff_emu");
}
