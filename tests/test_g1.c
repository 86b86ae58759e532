/* G1 tests: group laws, encodings, rejection classes, fast vs slow subgroup check. */
#include "cuzk/ec/g1.h"

static const cuzk_fp g1_b_test = {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
                                   0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}};
#define G(x) cuzk_g1_##x
#define AFF cuzk_g1_affine
#define JAC cuzk_g1_jac
#define XYZZ cuzk_g1_xyzz
#define FE cuzk_fp
#define FE_RANDOM cuzk_fp_random
#define FE_SQR cuzk_fp_sqr
#define FE_MUL cuzk_fp_mul
#define FE_ADD cuzk_fp_add
#define FE_SQRT cuzk_fp_sqrt
#define FE_B (&g1_b_test)
#define CB 48
#define UB 96
/* Known answer: the standard generator, compressed. */
#define GEN_COMPRESSED_HEX                                                                         \
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
#include "ec_test_body.h"

static void test_cofactor(int iters)
{
    /* Cofactor clearing maps curve points into G1: h·Q with the published
     * cofactor h = 0x396c8c005555e1568c00aaab0000aaab, and (1 - x)·Q. */
    const uint64_t h[4] = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL, 0, 0};
    const uint64_t one_minus_x[4] = {0xd201000000010001ULL, 0, 0, 0};
    for (int it = 0; it < iters; it++) {
        AFF q, s;
        JAC j, t;
        rand_curve_point(&q);
        G(jac_from_affine)(&j, &q);
        G(jac_mul)(&t, &j, h);
        to_aff(&s, &t);
        CHECK(!G(affine_is_infinity)(&s) && G(affine_in_subgroup)(&s) && slow_in_subgroup(&s));
        G(jac_mul)(&t, &j, one_minus_x);
        to_aff(&s, &t);
        CHECK(!G(affine_is_infinity)(&s) && G(affine_in_subgroup)(&s) && slow_in_subgroup(&s));
    }
}

static void test_small_torsion(void)
{
    /* Points whose order is a prime l dividing the cofactor
     * h = 3 · 11^2 · 10177^2 · 859267^2 · 52437899^2 (from the l-primary part of r·Q): the GLV
     * check must reject them and their sums with subgroup points, not only the
     * large-order torsion that random points carry. */
    const unsigned __int128 h = ((unsigned __int128)0x396c8c005555e156ULL << 64) | 0x8c00aaab0000aaabULL;
    const uint64_t ls[] = {3, 11, 10177, 859267, 52437899};
    for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++) {
        CHECK(h % ls[i] == 0);
        unsigned __int128 c = h;
        while (c % ls[i] == 0) c /= ls[i]; /* (h/l^e)·r·Q: the l-primary part */
        const uint64_t kc[4] = {(uint64_t)c, (uint64_t)(c >> 64), 0, 0}, kl[4] = {ls[i], 0, 0, 0};
        JAC t, j, g;
        AFF q, ta, s;
        int tries = 0;
        do {
            rand_curve_point(&q);
            G(jac_from_affine)(&t, &q);
            G(jac_mul)(&t, &t, cuzk_fr_modulus);
            G(jac_mul)(&t, &t, kc);
        } while (G(jac_is_infinity)(&t) && ++tries < 20);
        CHECK_MSG(!G(jac_is_infinity)(&t), "l=%llu", (unsigned long long)ls[i]);
        for (JAC n;;) { /* down to order exactly l */
            G(jac_mul)(&n, &t, kl);
            if (G(jac_is_infinity)(&n)) break;
            t = n;
        }
        G(jac_mul)(&j, &t, kl);
        CHECK_MSG(G(jac_is_infinity)(&j), "order %llu", (unsigned long long)ls[i]);
        to_aff(&ta, &t);
        CHECK(G(affine_is_on_curve)(&ta) && !G(affine_in_subgroup)(&ta) && !slow_in_subgroup(&ta));
        rand_point(&g);
        G(jac_add_affine)(&g, &g, &ta);
        to_aff(&s, &g);
        CHECK(!G(affine_in_subgroup)(&s) && !slow_in_subgroup(&s));
    }
}

int main(void)
{
    tu_init(&rng, "test_g1");
    cuzk_fp four;
    cuzk_fp_set_u64(&four, 4);
    CHECK(cuzk_fp_eq(&four, &g1_b_test));
    test_generator();
    test_small_scalars();
    test_group_laws(40);
    test_batch();
    test_mul_endo(12);
    test_encodings(20);
    test_subgroup(20);
    test_cofactor(10);
    test_small_torsion();
    return tu_finish("test_g1");
}
