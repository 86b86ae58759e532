#include "testutil.h"

#include "cuzk/util/hex.h"
#include "cuzk/circuits/test_circuits.h"
#include "cuzk/groth16/groth16.h"

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

int tu_synthetic_proofs(cuzk_groth16_params *params, cuzk_groth16_proof *pf, cuzk_fr *in, size_t n, size_t ni,
                        uint64_t nc, cuzk_rng *rng)
{
    cuzk_synthetic_spec sp = {nc, (uint32_t)ni, cuzk_rng_u64(rng)};
    cuzk_recording_cs *r = cuzk_recording_cs_new();
    cuzk_cs_alloc_one(&r->base);
    int rc = cuzk_synthetic_synthesize(&r->base, &sp) || cuzk_cs_finalize(&r->base) ||
             cuzk_groth16_setup(params, r, rng, 2);
    cuzk_cs_free(&r->base);
    for (size_t i = 0; !rc && i < n; i++) {
        sp.witness_seed = cuzk_rng_u64(rng);
        cuzk_proving_cs *p = cuzk_proving_cs_new();
        cuzk_cs_alloc_one(&p->base);
        rc = cuzk_synthetic_synthesize(&p->base, &sp) || cuzk_cs_finalize(&p->base) ||
             cuzk_groth16_prove(&pf[i], params, p, rng, 2) || cuzk_synthetic_public_inputs(&in[i * ni], &sp);
        cuzk_cs_free(&p->base);
    }
    return rc ? -1 : 0;
}
