/* G1 tests: group laws, encodings, rejection classes, fast vs slow subgroup check. */
#include "cuzk/g1.h"

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
    test_encodings(20);
    test_subgroup(20);
    return tu_finish("test_g1");
}
