/* The device field arithmetic's own source (src/gpu/ff.cuh) run on the host,
 * its PTX carry primitives emulated (CUZK_FF_HOST_EMU: each keeps PTX's
 * carry flag in a variable), against the CPU's Fp and Fp2: the single-
 * accumulator Montgomery product, addition, subtraction, the 24-limb product
 * and its reduction, the Fp2 multiplication with one reduction per
 * coefficient (fp2_mul_lazy) and a·b - c·d with two (fp2_mul_sub_lazy, as
 * the point formulas call it through ec_mul_sub; in Fp with one,
 * fp_mul_sub_lazy), with edge values (0, 1, p - 1, sums near 2p)
 * and fresh random ones. No device needed: CI runs it. The PTX-string code
 * (the even/odd CIOS) and the kernels are test_gpu_ff's, on a device. */
#define CUZK_FF_HOST_EMU 1
#define CUZK_GPU_MUL_EO 0 /* f_mul: the single-accumulator CIOS, written in primitives */
#include <stdlib.h>
#include <string.h>

#include "gpu/ec.cuh" /* ec_mul_sub */
extern "C" {
#include "cuzk/fp.h"
#include "cuzk/fp2.h"
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

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gpu_ff_emu");
    /* edges: 0, 1, p - 1, p - 2, 2, R^-1 (limb 1), a zero low word */
    enum { NE = 7 };
    cuzk_fp e[NE];
    memset(e, 0, sizeof e);
    e[1] = cuzk_fp_one;
    cuzk_fp_neg(&e[2], &e[1]);
    cuzk_fp_add(&e[3], &e[2], &e[2]);
    cuzk_fp_add(&e[4], &e[1], &e[1]);
    e[5].l[0] = 1;
    e[6].l[0] = (uint64_t)1 << 32;
    unsigned long bad_fp[5] = {0}, bad_fp2 = 0, n_fp = 0, n_fp2 = 0;
    const char *what[5] = {"f_mul_cios", "fp_mul_wide + fp_redc_wide", "f_add", "f_sub", "fp_mul_sub_lazy"};
    for (int i = 0; i < NE; i++)
        for (int j = 0; j < NE; j++) {
            unsigned b = check_fp(e[i], e[j]);
            n_fp++;
            for (int k = 0; k < 5; k++) bad_fp[k] += (b >> k) & 1;
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
        for (int q = 0; q < 5; q++) bad_fp[q] += (bb >> q) & 1;
        cuzk_fp2 x, y, u, v;
        cuzk_fp2_random(&x, &rng), cuzk_fp2_random(&y, &rng);
        cuzk_fp2_random(&u, &rng), cuzk_fp2_random(&v, &rng);
        if (k & 1) y.c0 = e[2 + (k >> 1) % 2], v.c1 = e[2 + (k >> 2) % 2]; /* p - 1 or p - 2 beside random */
        if (k % 7 == 0) u = x, v = y; /* a·b - a·b */
        bad_fp2 += !check_fp2(x, y, u, v), n_fp2++;
    }
    for (int k = 0; k < 5; k++) CHECK_MSG(bad_fp[k] == 0, "%s: %lu of %lu differ", what[k], bad_fp[k], n_fp);
    CHECK_MSG(bad_fp2 == 0, "fp2_mul_lazy: %lu of %lu differ", bad_fp2, n_fp2);
    printf("Fp: %lu pairs, Fp2: %lu pairs, emulated carries\n", n_fp, n_fp2);
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
    return tu_finish("test_gpu_ff_emu");
}
