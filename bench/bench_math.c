/*
 * bench_math: ns/op of the BLS12-381 math core, one table.
 * Each operation runs as a dependent chain (output feeds the next input) so
 * the figure is latency, as in a real prover's inner loops.
 *   bench_math [--quick]
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cuzk/ff/ff.h"
#include "cuzk/ff/fp2.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/ec/pairing.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double scale = 1.0;

#define BENCH(label, iters, setup, body)                                                           \
    do {                                                                                           \
        long n_ = (long)((iters) * scale);                                                         \
        if (n_ < 1) n_ = 1;                                                                        \
        setup;                                                                                     \
        double t0_ = now_ns();                                                                     \
        for (long i_ = 0; i_ < n_; i_++) { body; }                                                 \
        double dt_ = (now_ns() - t0_) / n_;                                                        \
        printf("| %-28s | %12.1f |\n", label, dt_);                                                \
    } while (0)

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) scale = 0.05;
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 1);

    printf("cuzk bench_math (field multiplication: %s)\n\n", cuzk_ff_mont_name(cuzk_ff_mont_active()));
    printf("| %-28s | %12s |\n", "operation", "ns/op");
    printf("|%s|%s|\n", "------------------------------", "--------------");

    cuzk_fp a, b;
    cuzk_fp_random(&a, &rng);
    cuzk_fp_random(&b, &rng);
    if (cuzk_ff_mont_available(CUZK_FF_PORTABLE) && cuzk_ff_mont_available(CUZK_FF_ADX)) {
        cuzk_ff_mont_select(CUZK_FF_PORTABLE);
        BENCH("Fp mul (portable)", 2000000, , cuzk_fp_mul(&a, &a, &b));
        cuzk_ff_mont_select(CUZK_FF_ADX);
    }
    BENCH("Fp mul", 4000000, , cuzk_fp_mul(&a, &a, &b));
    BENCH("Fp sqr", 4000000, , cuzk_fp_sqr(&a, &a));
    BENCH("Fp add", 10000000, , cuzk_fp_add(&a, &a, &b));
    BENCH("Fp inv", 20000, , cuzk_fp_inv(&a, &a));

    cuzk_fr x, y;
    cuzk_fr_random(&x, &rng);
    cuzk_fr_random(&y, &rng);
    BENCH("Fr mul", 4000000, , cuzk_fr_mul(&x, &x, &y));
    BENCH("Fr inv", 20000, , cuzk_fr_inv(&x, &x));

    cuzk_fp2 c, d;
    cuzk_fp2_random(&c, &rng);
    cuzk_fp2_random(&d, &rng);
    BENCH("Fp2 mul", 2000000, , cuzk_fp2_mul(&c, &c, &d));
    BENCH("Fp2 sqr", 2000000, , cuzk_fp2_sqr(&c, &c));

    uint64_t k[4];
    cuzk_rng_bytes(&rng, k, sizeof k);
    k[3] &= 0x3fffffffffffffffULL;

    cuzk_g1_jac p, q;
    cuzk_g1_affine qa;
    cuzk_g1_jac_from_affine(&p, &cuzk_g1_generator);
    cuzk_g1_jac_dbl(&q, &p);
    cuzk_g1_jac_to_affine(&qa, &q);
    BENCH("G1 add (Jacobian)", 1000000, , cuzk_g1_jac_add(&p, &p, &q));
    BENCH("G1 madd (Jacobian+affine)", 1000000, , cuzk_g1_jac_add_affine(&p, &p, &qa));
    BENCH("G1 dbl (Jacobian)", 1000000, , cuzk_g1_jac_dbl(&p, &p));
    cuzk_g1_xyzz px;
    cuzk_g1_xyzz_from_affine(&px, &cuzk_g1_generator);
    BENCH("G1 madd (XYZZ+affine)", 1000000, , cuzk_g1_xyzz_add_affine(&px, &px, &qa));
    BENCH("G1 scalar mul", 2000, , cuzk_g1_jac_mul(&p, &p, k));
    cuzk_fr kf;
    cuzk_fr_random(&kf, &rng);
    cuzk_g1_endo_scalar e1;
    BENCH("G1 scalar mul (endomorphism)", 2000, cuzk_g1_endo_scalar_init(&e1, &kf),
          cuzk_g1_affine_mul_endo(&p, &qa, &e1));

    cuzk_g2_jac p2, q2;
    cuzk_g2_affine q2a;
    cuzk_g2_jac_from_affine(&p2, &cuzk_g2_generator);
    cuzk_g2_jac_dbl(&q2, &p2);
    cuzk_g2_jac_to_affine(&q2a, &q2);
    BENCH("G2 add (Jacobian)", 300000, , cuzk_g2_jac_add(&p2, &p2, &q2));
    BENCH("G2 madd (Jacobian+affine)", 300000, , cuzk_g2_jac_add_affine(&p2, &p2, &q2a));
    BENCH("G2 dbl (Jacobian)", 300000, , cuzk_g2_jac_dbl(&p2, &p2));
    BENCH("G2 scalar mul", 1000, , cuzk_g2_jac_mul(&p2, &p2, k));
    cuzk_g2_endo_scalar e2;
    BENCH("G2 scalar mul (endomorphism)", 1000, cuzk_g2_endo_scalar_init(&e2, &kf),
          cuzk_g2_affine_mul_endo(&p2, &q2a, &e2));

    cuzk_g1_affine pa;
    cuzk_g2_affine p2a;
    cuzk_g1_jac_to_affine(&pa, &p);
    cuzk_g2_jac_to_affine(&p2a, &p2);
    uint8_t enc1[48], enc2[96];
    cuzk_g1_compress(enc1, &pa);
    cuzk_g2_compress(enc2, &p2a);
    volatile int ok = 0;
    BENCH("G1 subgroup check", 2000, , ok += cuzk_g1_affine_in_subgroup(&pa));
    BENCH("G2 subgroup check", 1000, , ok += cuzk_g2_affine_in_subgroup(&p2a));
    BENCH("G1 decompress (checked)", 1000, , ok += cuzk_g1_uncompress(&pa, enc1));
    BENCH("G2 decompress (checked)", 500, , ok += cuzk_g2_uncompress(&p2a, enc2));

    cuzk_fp12 f, g;
    cuzk_gt e;
    BENCH("Fp12 mul", 100000, cuzk_fp12_random(&f, &rng); cuzk_fp12_random(&g, &rng),
          cuzk_fp12_mul(&f, &f, &g));
    BENCH("Fp12 cyclotomic sqr", 100000, , cuzk_fp12_cyclotomic_sqr(&f, &f));
    BENCH("Miller loop", 300, , cuzk_pairing_miller_loop(&f, &pa, &p2a, 1));
    BENCH("final exponentiation", 300, , cuzk_pairing_final_exp(&e, &f));
    BENCH("pairing", 300, , cuzk_pairing(&e, &pa, &p2a));
    cuzk_g1_affine ps[8];
    cuzk_g2_affine qs[8];
    for (int i = 0; i < 8; i++) ps[i] = pa, qs[i] = p2a;
    BENCH("multi-pairing, 8 pairs", 50, , cuzk_pairing_multi(&e, ps, qs, 8));
    /* SnarkPack's commitments: G2 points with 2-3 G1 points each, ten products (a round's) */
    cuzk_pairing_group grp[32];
    cuzk_fp12 prods[10];
    for (int j = 0; j < 32; j++)
        grp[j] = (cuzk_pairing_group){&qs[j % 8], {&ps[0], &ps[1], &ps[2]},
                                      {(unsigned char)(j % 5), (unsigned char)((j + 3) % 5), 2},
                                      (unsigned char)(j % 3 == 2 ? 3 : 2)};
    BENCH("Miller loops, 74 pairs, 32 G2", 10, , cuzk_pairing_miller_loop_groups(prods, 5, grp, 32));

    /* Keep results live so the chains are not optimised away. */
    uint8_t sink[48];
    cuzk_fp_to_be48(sink, &a);
    printf("\n");
    fprintf(stderr, "(sink %02x%02x%02x)\n", sink[0], x.l[0] & 0xff ? 1 : 0, c.c0.l[0] & 1 ? 1 : 0);
    return 0;
}
