/*
 * Optimal ate pairing: bilinearity with fresh random scalars, order r,
 * non-degeneracy, e(P,-Q)·e(P,Q) = 1, multi-pairing = product of pairings, several products
 * with shared G2 points (cuzk_pairing_miller_loop_groups) = products of pairings,
 * infinity inputs, and the final exponentiation against a plain
 * exponentiation by 3·(p^12-1)/r computed with GMP.
 * (Byte-exact agreement with @noble/curves: tests/pairing_noble.test.sh.)
 */
#include <string.h>

#include "cuzk/ec/pairing.h"
#include "testutil.h"
#ifdef CUZK_HAVE_GMP
#include <gmp.h>
#endif

static cuzk_rng rng;

static void g1_mul(cuzk_g1_affine *r, const cuzk_g1_affine *p, const cuzk_fr *k)
{
    cuzk_g1_jac j;
    cuzk_g1_jac_from_affine(&j, p);
    cuzk_g1_jac_mul_fr(&j, &j, k);
    cuzk_g1_jac_to_affine(r, &j);
}

static void g2_mul(cuzk_g2_affine *r, const cuzk_g2_affine *p, const cuzk_fr *k)
{
    cuzk_g2_jac j;
    cuzk_g2_jac_from_affine(&j, p);
    cuzk_g2_jac_mul_fr(&j, &j, k);
    cuzk_g2_jac_to_affine(r, &j);
}

static void rand_g1(cuzk_g1_affine *r)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    g1_mul(r, &cuzk_g1_generator, &k);
}

static void rand_g2(cuzk_g2_affine *r)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    g2_mul(r, &cuzk_g2_generator, &k);
}

static void gt_pow_fr(cuzk_gt *r, const cuzk_gt *a, const cuzk_fr *k)
{
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_gt_pow(r, a, l);
}

static void test_bilinear(void)
{
    const cuzk_g1_affine *P = &cuzk_g1_generator;
    const cuzk_g2_affine *Q = &cuzk_g2_generator;
    cuzk_gt e, x, y;
    cuzk_pairing(&e, P, Q);
    CHECK(!cuzk_gt_is_one(&e));
    uint64_t r_limbs[4];
    memcpy(r_limbs, cuzk_fr_modulus, sizeof r_limbs);
    cuzk_fp12_pow(&x, &e, r_limbs, 4);
    CHECK(cuzk_gt_is_one(&x)); /* e^r = 1 */
    /* e lies in the cyclotomic subgroup: cyclotomic_pow agrees with pow */
    cuzk_gt_pow(&y, &e, r_limbs);
    CHECK(cuzk_gt_is_one(&y));

    for (int it = 0; it < 4; it++) {
        cuzk_fr a, b, ab;
        cuzk_fr_random(&a, &rng);
        cuzk_fr_random(&b, &rng);
        cuzk_fr_mul(&ab, &a, &b);
        cuzk_g1_affine aP, abP;
        cuzk_g2_affine bQ;
        g1_mul(&aP, P, &a);
        g1_mul(&abP, P, &ab);
        g2_mul(&bQ, Q, &b);
        cuzk_gt e1, e2, e3;
        cuzk_pairing(&e1, &aP, &bQ);
        gt_pow_fr(&e2, &e, &ab);
        cuzk_pairing(&e3, &abP, Q);
        CHECK(cuzk_gt_eq(&e1, &e2));
        CHECK(cuzk_gt_eq(&e1, &e3));
        CHECK(!cuzk_gt_is_one(&e1));
        /* e(P, bQ) = e(bP, Q) */
        cuzk_g1_affine bP;
        g1_mul(&bP, P, &b);
        cuzk_pairing(&e1, P, &bQ);
        cuzk_pairing(&e2, &bP, Q);
        CHECK(cuzk_gt_eq(&e1, &e2));
        /* a wrong scalar gives a different value */
        cuzk_fr a1;
        cuzk_fr_add(&a1, &a, &cuzk_fr_one);
        cuzk_g1_affine a1P;
        g1_mul(&a1P, P, &a1);
        cuzk_pairing(&e1, &aP, &bQ);
        cuzk_pairing(&e2, &a1P, &bQ);
        CHECK(!cuzk_gt_eq(&e1, &e2));
        /* additivity in G1: e(P1 + P2, R) = e(P1, R)·e(P2, R) at random points */
        cuzk_g1_affine P1, P2, S;
        cuzk_g2_affine R;
        rand_g1(&P1);
        rand_g1(&P2);
        rand_g2(&R);
        cuzk_g1_jac j;
        cuzk_g1_jac_from_affine(&j, &P1);
        cuzk_g1_jac_add_affine(&j, &j, &P2);
        cuzk_g1_jac_to_affine(&S, &j);
        cuzk_pairing(&e1, &S, &R);
        cuzk_pairing(&e2, &P1, &R);
        cuzk_pairing(&e3, &P2, &R);
        cuzk_gt_mul(&e2, &e2, &e3);
        CHECK(cuzk_gt_eq(&e1, &e2));
        /* e(P, -Q)·e(P, Q) = 1, also as a pairing check, and e(-P, Q) = e(P, -Q) = e(P, Q)^-1 */
        cuzk_g2_affine nR;
        cuzk_g1_affine nP1;
        cuzk_g2_affine_neg(&nR, &R);
        cuzk_g1_affine_neg(&nP1, &P1);
        cuzk_pairing(&e1, &P1, &R);
        cuzk_pairing(&e2, &P1, &nR);
        cuzk_pairing(&e3, &nP1, &R);
        cuzk_gt_mul(&x, &e1, &e2);
        CHECK(cuzk_gt_is_one(&x));
        CHECK(cuzk_gt_eq(&e2, &e3));
        cuzk_gt_inv(&x, &e1);
        CHECK(cuzk_gt_eq(&x, &e2));
        cuzk_g1_affine ps[2] = {P1, P1};
        cuzk_g2_affine qs[2] = {R, nR};
        CHECK(cuzk_pairing_check(ps, qs, 2));
        qs[1] = R;
        CHECK(!cuzk_pairing_check(ps, qs, 2));
    }
}

static void test_multi(void)
{
    /* up to 35 pairs: crosses the 32-pair blocks of the Miller loop */
    enum { N = 35 };
    cuzk_g1_affine P[N];
    cuzk_g2_affine Q[N];
    cuzk_gt single[N];
    for (int i = 0; i < N; i++) {
        rand_g1(&P[i]);
        rand_g2(&Q[i]);
        cuzk_pairing(&single[i], &P[i], &Q[i]);
    }
    const int ns[] = {0, 1, 2, 7, 8, 9, 31, 32, 33, 35};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        int n = ns[t];
        cuzk_gt prod = cuzk_fp12_one, m;
        for (int i = 0; i < n; i++) cuzk_gt_mul(&prod, &prod, &single[i]);
        cuzk_pairing_multi(&m, P, Q, (size_t)n);
        CHECK_MSG(cuzk_gt_eq(&m, &prod), "multi n=%d", n);
        if (n == 0) CHECK(cuzk_gt_is_one(&m));
    }
    /* final_exp(miller_loop) == pairing */
    cuzk_fp12 f;
    cuzk_gt e;
    cuzk_pairing_miller_loop(&f, &P[0], &Q[0], 1);
    cuzk_pairing_final_exp(&e, &f);
    CHECK(cuzk_gt_eq(&e, &single[0]));
    /* infinity pairs contribute 1 wherever they are */
    cuzk_g1_affine Pi[4] = {P[0], {{{0}}, {{0}}}, P[1], P[2]};
    cuzk_g2_affine Qi[4] = {Q[0], Q[1], {{{{0}}, {{0}}}, {{{0}}, {{0}}}}, Q[2]};
    cuzk_gt prod = single[0], m;
    cuzk_gt_mul(&prod, &prod, &single[2]);
    cuzk_pairing_multi(&m, Pi, Qi, 4);
    CHECK(cuzk_gt_eq(&m, &prod));
}

/* Products of groups (a G2 point's lines shared by its G1 points) against the same products of
 * single pairings: 40 G2 points (more than one block of shared state), each with 1..4 G1 points
 * sent to random products, a G1 point repeated in a group, a G2 point in two groups, points at
 * infinity; a product no pair is sent to is 1. */
static void test_groups(size_t nprod)
{
    enum { NQ = 40 };
    static cuzk_g1_affine P[NQ][CUZK_PAIRING_GROUP_MAX];
    static cuzk_g2_affine Q[NQ];
    cuzk_pairing_group g[NQ];
    cuzk_gt want[CUZK_PAIRING_PRODS_MAX], got;
    cuzk_fp12 out[CUZK_PAIRING_PRODS_MAX];
    for (size_t k = 0; k < nprod; k++) want[k] = cuzk_fp12_one;
    for (int j = 0; j < NQ; j++) {
        if (j == 7) Q[j] = (cuzk_g2_affine){0};
        else if (j == 9) Q[j] = Q[8];
        else rand_g2(&Q[j]);
        g[j].q = &Q[j];
        g[j].n = (unsigned char)(1 + cuzk_rng_u64(&rng) % CUZK_PAIRING_GROUP_MAX);
        for (unsigned k = 0; k < g[j].n; k++) {
            if (j == 3 && k == 0) P[j][k] = (cuzk_g1_affine){0};
            else if (k == 1 && j % 5 == 0) P[j][k] = P[j][0];
            else rand_g1(&P[j][k]);
            g[j].p[k] = &P[j][k];
            g[j].prod[k] = (unsigned char)(cuzk_rng_u64(&rng) % (nprod - 1)); /* the last gets none */
            cuzk_gt e;
            cuzk_pairing(&e, &P[j][k], &Q[j]);
            cuzk_gt_mul(&want[g[j].prod[k]], &want[g[j].prod[k]], &e);
        }
    }
    cuzk_pairing_miller_loop_groups(out, nprod, g, NQ);
    for (size_t k = 0; k < nprod; k++) {
        cuzk_pairing_final_exp(&got, &out[k]);
        CHECK_MSG(cuzk_gt_eq(&got, &want[k]), "groups: product %zu of %zu", k, nprod);
    }
    CHECK(cuzk_fp12_is_one(&out[nprod - 1]));
}

static void test_infinity(void)
{
    cuzk_g1_affine P, Pinf;
    cuzk_g2_affine Q, Qinf;
    memset(&Pinf, 0, sizeof Pinf);
    memset(&Qinf, 0, sizeof Qinf);
    CHECK(cuzk_g1_affine_is_infinity(&Pinf) && cuzk_g2_affine_is_infinity(&Qinf));
    rand_g1(&P);
    rand_g2(&Q);
    cuzk_gt e;
    cuzk_pairing(&e, &Pinf, &Q);
    CHECK(cuzk_gt_is_one(&e));
    cuzk_pairing(&e, &P, &Qinf);
    CHECK(cuzk_gt_is_one(&e));
    cuzk_pairing(&e, &Pinf, &Qinf);
    CHECK(cuzk_gt_is_one(&e));
    /* r·P = infinity through the group law: e(rP, Q) = 1 */
    cuzk_g1_jac j;
    cuzk_g1_jac_from_affine(&j, &P);
    cuzk_g1_jac_mul(&j, &j, cuzk_fr_modulus);
    cuzk_g1_affine rP;
    cuzk_g1_jac_to_affine(&rP, &j);
    cuzk_pairing(&e, &rP, &Q);
    CHECK(cuzk_gt_is_one(&e));
    CHECK(cuzk_pairing_check(&Pinf, &Q, 1));
}

#ifdef CUZK_HAVE_GMP
/* final_exp(f) == f^(3(p^12-1)/r) for random f (not only Miller loop outputs). */
static void test_final_exp_exponent(void)
{
    mpz_t p, r, e;
    mpz_inits(p, r, e, NULL);
    mpz_import(p, CUZK_FP_LIMBS, -1, 8, 0, 0, cuzk_fp_modulus);
    mpz_import(r, CUZK_FR_LIMBS, -1, 8, 0, 0, cuzk_fr_modulus);
    mpz_pow_ui(e, p, 12);
    mpz_sub_ui(e, e, 1);
    CHECK(mpz_divisible_p(e, r));
    mpz_divexact(e, e, r);
    mpz_mul_ui(e, e, 3);
    uint64_t limbs[80] = {0};
    size_t n = 0;
    CHECK(mpz_sizeinbase(e, 2) <= 64 * 80);
    mpz_export(limbs, &n, -1, 8, 0, 0, e);
    for (int it = 0; it < 2; it++) {
        cuzk_fp12 f, a, b;
        cuzk_fp12_random(&f, &rng);
        cuzk_pairing_final_exp(&a, &f);
        cuzk_fp12_pow(&b, &f, limbs, n);
        CHECK(cuzk_fp12_eq(&a, &b));
    }
    /* and it is not the plain power (p^12-1)/r: the documented cube */
    mpz_divexact_ui(e, e, 3);
    memset(limbs, 0, sizeof limbs);
    mpz_export(limbs, &n, -1, 8, 0, 0, e);
    cuzk_fp12 f, a, b;
    cuzk_fp12_random(&f, &rng);
    cuzk_pairing_final_exp(&a, &f);
    cuzk_fp12_pow(&b, &f, limbs, n);
    CHECK(!cuzk_fp12_eq(&a, &b));
    cuzk_fp12 b3;
    cuzk_fp12_sqr(&b3, &b);
    cuzk_fp12_mul(&b3, &b3, &b);
    CHECK(cuzk_fp12_eq(&a, &b3));
    mpz_clears(p, r, e, NULL);
}
#endif

int main(void)
{
    tu_init(&rng, "test_pairing");
    test_bilinear();
    test_multi();
    test_groups(3);
    test_groups(CUZK_PAIRING_PRODS_MAX);
    test_infinity();
#ifdef CUZK_HAVE_GMP
    test_final_exp_exponent();
#endif
    return tu_finish("test_pairing");
}
