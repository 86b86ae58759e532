/* The device Miller loop's own source (src/gpu/fp12.cuh, pairing.cuh) run
 * on the host (CUZK_FF_HOST_EMU, as test_gpu_ff_emu runs ff.cuh) against the
 * CPU's tower and pairing: Fp12 products, squares and line products of
 * fresh random values bit for bit; the product of per-pair loops, conjugated,
 * equal to cuzk_pairing_miller_loop over the same pairs (random multiples of
 * the generators, a pair with a point at infinity among them) and its final
 * exponentiation to cuzk_pairing_multi; a loop over other pairs, or with a
 * line coefficient changed, differs. No device needed. */
#define CUZK_FF_HOST_EMU 1
#define CUZK_GPU_MUL_EO 0 /* f_mul: the single-accumulator CIOS, written in primitives */
#include <stdlib.h>
#include <string.h>

#include "gpu/pairing.cuh"
extern "C" {
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/ec/pairing.h"
#include "cuzk/ff/fp12.h"
#include "testutil.h"
}
#include "gpu_emu.h"

using namespace cuzk_gpu;

static_assert(sizeof(cuzk_fp12) == sizeof(fp12_t) && sizeof(cuzk_fp6) == sizeof(fp6_t), "layouts differ");

/* one random pair of Fp12 values and a line: product, square, line product */
static unsigned check_tower(cuzk_rng *rng)
{
    cuzk_fp12 a, b, want;
    cuzk_fp2 l0, l1, l4;
    cuzk_fp12_random(&a, rng), cuzk_fp12_random(&b, rng);
    cuzk_fp2_random(&l0, rng), cuzk_fp2_random(&l1, rng), cuzk_fp2_random(&l4, rng);
    unsigned bad = 0;
    fp12_t r;
    cuzk_fp12_mul(&want, &a, &b);
    f_mul(r, dv<fp12_t>(a), dv<fp12_t>(b));
    bad |= !same(r, want);
    cuzk_fp12_sqr(&want, &a);
    f_sqr(r, dv<fp12_t>(a));
    bad |= !same(r, want) << 1;
    cuzk_fp12_mul_by_014(&want, &a, &l0, &l1, &l4);
    r = fp12_mul_014(dv<fp12_t>(a), dv<fp2_t>(l0), dv<fp2_t>(l1), dv<fp2_t>(l4));
    bad |= !same(r, want) << 2;
    return bad;
}

/* P = k·G1, Q = m·G2 for fresh k, m */
static void random_pair(cuzk_g1_affine *P, cuzk_g2_affine *Q, cuzk_rng *rng)
{
    cuzk_fr k;
    cuzk_g1_jac pj;
    cuzk_g2_jac qj;
    cuzk_fr_random(&k, rng);
    cuzk_g1_jac_from_affine(&pj, &cuzk_g1_generator);
    cuzk_g1_jac_mul_fr(&pj, &pj, &k);
    cuzk_g1_jac_to_affine(P, &pj);
    cuzk_fr_random(&k, rng);
    cuzk_g2_jac_from_affine(&qj, &cuzk_g2_generator);
    cuzk_g2_jac_mul_fr(&qj, &qj, &k);
    cuzk_g2_jac_to_affine(Q, &qj);
}

/* the device's loop: the product of the pairs' loops, conjugated */
static void emu_miller(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n)
{
    fp12_t f, g;
    f_one(f);
    for (size_t i = 0; i < n; i++) {
        miller_pair(g, dv<fp_t>(P[i].x), dv<fp_t>(P[i].y), dv<fp2_t>(Q[i].x), dv<fp2_t>(Q[i].y));
        f_mul(f, f, g);
    }
    f_conj(f, f);
    memcpy(out, &f, sizeof *out);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gpu_pairing_emu");
    unsigned bad[3] = {0, 0, 0};
    const int nt = 3000;
    for (int t = 0; t < nt; t++) {
        const unsigned b = check_tower(&rng);
        for (int k = 0; k < 3; k++) bad[k] += (b >> k) & 1;
    }
    CHECK_MSG(bad[0] == 0, "Fp12 product: %u of %d differ", bad[0], nt);
    CHECK_MSG(bad[1] == 0, "Fp12 square: %u of %d differ", bad[1], nt);
    CHECK_MSG(bad[2] == 0, "Fp12 line product: %u of %d differ", bad[2], nt);
    printf("Fp12: %d products, squares and line products\n", nt);

    enum { NP = 6 };
    cuzk_g1_affine P[NP];
    cuzk_g2_affine Q[NP];
    for (int i = 0; i < NP; i++) random_pair(&P[i], &Q[i], &rng);
    memset(&P[3], 0, sizeof P[3]); /* at infinity: skipped by both */
    for (size_t n = 1; n <= NP; n++) {
        cuzk_fp12 want, got;
        cuzk_pairing_miller_loop(&want, P, Q, n);
        emu_miller(&got, P, Q, n);
        CHECK_MSG(same(got, want), "the Miller loop of %zu pairs differs from the CPU's", n);
        cuzk_gt gw, gg;
        cuzk_pairing_multi(&gw, P, Q, n);
        cuzk_pairing_final_exp(&gg, &got);
        CHECK_MSG(cuzk_gt_eq(&gg, &gw), "the pairing product of %zu pairs differs", n);
    }
    printf("Miller loops: products of 1..%d pairs, one at infinity\n", NP);
    /* the comparison can fail: other pairs, and a line's coefficient changed */
    {
        cuzk_fp12 want, got;
        cuzk_pairing_miller_loop(&want, P, Q, 2);
        emu_miller(&got, P + 1, Q + 1, 2);
        CHECK(!same(got, want));
        fp12_t f;
        f_one(f);
        fp2_t l0 = dv<fp2_t>(Q[0].x), l1 = dv<fp2_t>(Q[0].y), l4 = dv<fp2_t>(Q[1].x);
        const fp12_t a = fp12_mul_014(f, l0, l1, l4);
        l4.c0.l[0] ^= 1;
        const fp12_t b = fp12_mul_014(f, l0, l1, l4);
        CHECK(!same(a, b));
    }
    return tu_finish("test_gpu_pairing_emu");
}
