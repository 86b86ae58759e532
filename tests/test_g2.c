/* G2 tests: group laws, encodings, rejection classes, fast vs slow subgroup check, psi. */
#include "cuzk/ec/g2.h"

static cuzk_fp2 g2_b_test; /* 4(u + 1), set in main */
#define G(x) cuzk_g2_##x
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
#define FE cuzk_fp2
#define FE_RANDOM cuzk_fp2_random
#define FE_SQR cuzk_fp2_sqr
#define FE_MUL cuzk_fp2_mul
#define FE_ADD cuzk_fp2_add
#define FE_SQRT cuzk_fp2_sqrt
#define FE_B (&g2_b_test)
#define CB 96
#define UB 192
/* Known answer: the standard generator, compressed (x.c1 then x.c0). */
#define GEN_COMPRESSED_HEX                                                                         \
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" \
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
#include "ec_test_body.h"

static void test_psi(int iters)
{
    /* psi on G2 is multiplication by x = -0xd201000000010000; psi^2 - t·psi + p = 0
     * is not checked here, only the eigenvalue and that psi maps to the curve. */
    for (int it = 0; it < iters; it++) {
        cuzk_g2_jac j, t, pj;
        cuzk_g2_affine p, ps, q, qs;
        rand_point(&j);
        cuzk_g2_jac_to_affine(&p, &j);
        cuzk_g2_affine_psi(&ps, &p);
        uint64_t xabs[4] = {0xd201000000010000ULL, 0, 0, 0};
        cuzk_g2_jac_mul(&t, &j, xabs);
        cuzk_g2_jac_neg(&t, &t);
        cuzk_g2_jac_from_affine(&pj, &ps);
        CHECK(cuzk_g2_jac_eq(&t, &pj));
        cuzk_g2_jac_psi(&pj, &j); /* Jacobian psi agrees with affine psi */
        cuzk_g2_jac_from_affine(&t, &ps);
        CHECK(cuzk_g2_jac_eq(&t, &pj));
        rand_curve_point(&q);
        cuzk_g2_affine_psi(&qs, &q);
        CHECK(cuzk_g2_affine_is_on_curve(&qs));
    }
}

static void test_cofactor(int iters)
{
    /* RFC 9380's effective cofactor for G2 through psi (Budroni-Pintore):
     * h_eff·P = [x^2 - x - 1]P + [x - 1]psi(P) + psi^2(2P), x = -0xd201000000010000.
     * The result must pass both subgroup checks for random curve points. */
    const unsigned __int128 xa = 0xd201000000010000ULL;
    const unsigned __int128 a = xa * xa + xa - 1; /* x^2 - x - 1 */
    const uint64_t ka[4] = {(uint64_t)a, (uint64_t)(a >> 64), 0, 0};
    const uint64_t kb[4] = {0xd201000000010001ULL, 0, 0, 0}; /* -(x - 1) */
    for (int it = 0; it < iters; it++) {
        AFF q, s;
        JAC j, t, u, w;
        rand_curve_point(&q);
        CHECK(!G(affine_in_subgroup)(&q));
        G(jac_from_affine)(&j, &q);
        G(jac_mul)(&t, &j, ka);
        G(jac_psi)(&u, &j);
        G(jac_mul)(&u, &u, kb);
        G(jac_neg)(&u, &u);
        G(jac_add)(&t, &t, &u);
        G(jac_dbl)(&w, &j);
        G(jac_psi)(&w, &w);
        G(jac_psi)(&w, &w);
        G(jac_add)(&t, &t, &w);
        to_aff(&s, &t);
        CHECK(!G(affine_is_infinity)(&s) && G(affine_in_subgroup)(&s) && slow_in_subgroup(&s));
    }
}

/* r = k·p for k < 2^448 in 7 limbs: k_lo·p + k_hi·(2^256·p). */
static void mul_448(JAC *r, const JAC *p, const uint64_t k[7])
{
    JAC lo, hi;
    const uint64_t klo[4] = {k[0], k[1], k[2], k[3]}, khi[4] = {k[4], k[5], k[6], 0};
    G(jac_mul)(&lo, p, klo);
    hi = *p;
    for (int i = 0; i < 256; i++) G(jac_dbl)(&hi, &hi);
    G(jac_mul)(&hi, &hi, khi);
    G(jac_add)(r, &lo, &hi);
}

static void test_small_torsion(void)
{
    /* The G2 cofactor is 13^2 · 23^2 · 2713 · 11953 · 262069 · L (L a 448-bit
     * prime). Check h·r·Q = O (the factorisation is right), then build points of
     * each small prime order l (the l-primary part of r·Q, times l until ord l): the psi
     * check must reject them and their sums with subgroup points. */
    static const uint64_t L[7] = {0x826d177200c0d3b1ULL, 0x77d87384d026cd73ULL, 0xfab9c0da5cf222c3ULL,
                                  0xa9d75bb98b95878aULL, 0xe0490c5afca1eeb2ULL, 0x423572788bea4d6aULL,
                                  0x8d9f503deeeb5d5cULL};
    static const uint64_t f[] = {13, 13, 23, 23, 2713, 11953, 262069};
    const int nf = (int)(sizeof f / sizeof f[0]);
    AFF q;
    JAC rq, t;
    rand_curve_point(&q);
    G(jac_from_affine)(&rq, &q);
    G(jac_mul)(&rq, &rq, cuzk_fr_modulus);
    CHECK(!G(jac_is_infinity)(&rq));
    mul_448(&t, &rq, L);
    for (int i = 0; i < nf; i++) {
        const uint64_t k[4] = {f[i], 0, 0, 0};
        G(jac_mul)(&t, &t, k);
    }
    CHECK(G(jac_is_infinity)(&t));
    for (int skip = 0; skip < nf; skip++) {
        if (skip > 0 && f[skip] == f[skip - 1]) continue;
        const uint64_t kl[4] = {f[skip], 0, 0, 0};
        JAC base = rq;
        int tries = 0;
        for (;;) {
            /* l-primary part of Q's torsion: every factor except the l's */
            mul_448(&t, &base, L);
            for (int i = 0; i < nf; i++) {
                if (f[i] == f[skip]) continue;
                const uint64_t k[4] = {f[i], 0, 0, 0};
                G(jac_mul)(&t, &t, k);
            }
            if (!G(jac_is_infinity)(&t) || ++tries >= 10) break;
            rand_curve_point(&q);
            G(jac_from_affine)(&base, &q);
            G(jac_mul)(&base, &base, cuzk_fr_modulus);
        }
        CHECK_MSG(!G(jac_is_infinity)(&t), "l=%llu", (unsigned long long)f[skip]);
        for (JAC n;;) { /* down to order exactly l */
            G(jac_mul)(&n, &t, kl);
            if (G(jac_is_infinity)(&n)) break;
            t = n;
        }
        JAC o, g;
        AFF ta, s;
        G(jac_mul)(&o, &t, kl);
        CHECK_MSG(G(jac_is_infinity)(&o), "order %llu", (unsigned long long)f[skip]);
        to_aff(&ta, &t);
        CHECK(G(affine_is_on_curve)(&ta) && !G(affine_in_subgroup)(&ta) && !slow_in_subgroup(&ta));
        rand_point(&g);
        G(jac_add_affine)(&g, &g, &ta);
        to_aff(&s, &g);
        CHECK_MSG(!G(affine_in_subgroup)(&s) && !slow_in_subgroup(&s), "l=%llu", (unsigned long long)f[skip]);
    }
}

int main(void)
{
    tu_init(&rng, "test_g2");
    cuzk_fp_set_u64(&g2_b_test.c0, 4);
    cuzk_fp_set_u64(&g2_b_test.c1, 4);
    test_generator();
    test_small_scalars();
    test_group_laws(25);
    test_batch();
    test_mul_endo(12);
    test_encodings(10);
    test_subgroup(10);
    test_psi(10);
    test_cofactor(6);
    test_small_torsion();
    return tu_finish("test_g2");
}
