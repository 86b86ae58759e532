#include "testutil.h"

#include "cuzk/util/hex.h"

#include <string.h>

unsigned long tu_passed, tu_failed;

void tu_init(cuzk_rng *rng, const char *test_name)
{
    cuzk_rng_seed(rng, cuzk_test_seed(test_name));
}

int tu_finish(const char *test_name)
{
    fprintf(stderr, "%s: %lu checks passed, %lu failed\n", test_name, tu_passed, tu_failed);
    printf("%lu passed, %lu failed\n", tu_passed, tu_failed);
    return (tu_failed == 0 && tu_passed > 0) ? 0 : 1;
}

int tu_skip(const char *test_name, const char *why)
{
    if (tu_failed) return tu_finish(test_name);
    printf("%s: SKIPPED: %s\n", test_name, why);
    return TU_SKIP;
}

void tu_hex(char *out, const uint8_t *in, size_t len) { cuzk_hex_encode(out, in, len); }

static int nibble(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int tu_unhex(uint8_t *out, size_t len, const char *hex)
{
    if (strlen(hex) < 2 * len) return -1;
    for (size_t i = 0; i < len; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void tu_g1_mul_gen(cuzk_g1_affine *out, const cuzk_fr *k)
{
    cuzk_g1_jac j;
    cuzk_g1_jac_from_affine(&j, &cuzk_g1_generator);
    cuzk_g1_jac_mul_fr(&j, &j, k);
    cuzk_g1_jac_to_affine(out, &j);
}

void tu_g2_mul_gen(cuzk_g2_affine *out, const cuzk_fr *k)
{
    cuzk_g2_jac j;
    cuzk_g2_jac_from_affine(&j, &cuzk_g2_generator);
    cuzk_g2_jac_mul_fr(&j, &j, k);
    cuzk_g2_jac_to_affine(out, &j);
}
