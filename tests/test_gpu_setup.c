/* GPU fixed-base multiplications and the Groth16 test setup on the GPU:
 * cuzk_gpu_g1/g2_fixed_base against the CPU's scalar multiplications for a
 * random base, fresh random scalars and the edges (0, 1, 2, r - 1), across
 * several device batches (CUZK_GPU_FB_BATCH); then a setup of a synthetic
 * circuit with the same toxic waste on the CPU and through the GPU backend:
 * the .params and .vk bytes must be identical, and a proof made with the GPU
 * parameters must verify while a tampered one must not. Without a CUDA
 * device: prints "SKIPPED: no CUDA device" (CTest: Skipped). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/circuits/test_circuits.h"
#include "gpu_hooks_env.h"
#include "testutil.h"

static cuzk_rng rng;

static void scalars(cuzk_fr *k, size_t n)
{
    cuzk_fr one, minus_one;
    cuzk_fr_set_u64(&one, 1);
    cuzk_fr_neg(&minus_one, &one);
    for (size_t i = 0; i < n; i++) cuzk_fr_random(&k[i], &rng);
    if (n >= 4) cuzk_fr_set_u64(&k[0], 0), k[1] = one, cuzk_fr_set_u64(&k[2], 2), k[n - 1] = minus_one;
}

static void test_fixed_base(cuzk_gpu_worker *w)
{
    const size_t n = 3000 + cuzk_rng_u64(&rng) % 2000;
    cuzk_fr *k = malloc(n * sizeof *k), base_k;
    cuzk_g1_affine *o1 = malloc(n * sizeof *o1), b1;
    cuzk_g2_affine *o2 = malloc(n * sizeof *o2), b2;
    scalars(k, n);
    cuzk_fr_random(&base_k, &rng);
    tu_g1_mul_gen(&b1, &base_k);
    tu_g2_mul_gen(&b2, &base_k);
    GPU_HOOK_SET(fb_batch, 1024); /* several batches, the last one partial */
    int rc1 = cuzk_gpu_g1_fixed_base(w, o1, &b1, k, n);
    int rc2 = cuzk_gpu_g2_fixed_base(w, o2, &b2, k, n);
    GPU_HOOK_SET(fb_batch, 0);
    CHECK_MSG(rc1 == CUZK_OK, "g1 fixed base: %s", cuzk_gpu_worker_error(w));
    CHECK_MSG(rc2 == CUZK_OK, "g2 fixed base: %s", cuzk_gpu_worker_error(w));
    size_t bad1 = 0, bad2 = 0;
    for (size_t i = 0; i < n; i++) {
        cuzk_g1_jac j1;
        cuzk_g1_affine e1;
        cuzk_g1_jac_from_affine(&j1, &b1);
        cuzk_g1_jac_mul_fr(&j1, &j1, &k[i]);
        cuzk_g1_jac_to_affine(&e1, &j1);
        bad1 += memcmp(&e1, &o1[i], sizeof e1) != 0;
        if (i % 4 == 0 || i < 4 || i == n - 1) { /* G2 is 3x slower on the CPU: every 4th */
            cuzk_g2_jac j2;
            cuzk_g2_affine e2;
            cuzk_g2_jac_from_affine(&j2, &b2);
            cuzk_g2_jac_mul_fr(&j2, &j2, &k[i]);
            cuzk_g2_jac_to_affine(&e2, &j2);
            bad2 += memcmp(&e2, &o2[i], sizeof e2) != 0;
        }
    }
    CHECK_MSG(bad1 == 0, "g1 fixed base: %zu of %zu differ", bad1, n);
    CHECK_MSG(bad2 == 0, "g2 fixed base: %zu differ", bad2);
    CHECK(cuzk_g1_affine_is_infinity(&o1[0]) && cuzk_g2_affine_is_infinity(&o2[0]));
    CHECK(cuzk_gpu_g1_fixed_base(w, NULL, &b1, k, 5) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_gpu_g1_fixed_base(w, o1, &b1, k, 0) == CUZK_OK);
    printf("fixed base: %zu scalars in G1 and G2, %zu G1 and all sampled G2 equal to the CPU\n", n, n - bad1);
    free(k), free(o1), free(o2);
}

static uint8_t *serialize(const cuzk_groth16_params *p, size_t *len)
{
    *len = cuzk_groth16_params_serialized_size(p);
    uint8_t *buf = malloc(*len);
    cuzk_groth16_error err;
    if (buf && cuzk_groth16_params_write_mem(p, buf, *len, &err)) free(buf), buf = NULL;
    return buf;
}

static void test_setup(cuzk_gpu_worker *w)
{
    cuzk_synthetic_spec spec = {1000 + cuzk_rng_u64(&rng) % 3000, 1 + (uint32_t)(cuzk_rng_u64(&rng) % 4),
                                cuzk_rng_u64(&rng)};
    cuzk_cs *rc = cuzk_cs_new(CUZK_CS_RECORDING), *pc = cuzk_cs_new(CUZK_CS_PROVING);
    cuzk_cs_alloc_one(rc), cuzk_cs_alloc_one(pc);
    CHECK(cuzk_synthetic_synthesize(rc, &spec) == CUZK_OK && cuzk_cs_finalize(rc) == CUZK_OK);
    CHECK(cuzk_synthetic_synthesize(pc, &spec) == CUZK_OK && cuzk_cs_finalize(pc) == CUZK_OK);
    cuzk_groth16_toxic t;
    cuzk_fr_random(&t.alpha, &rng), cuzk_fr_random(&t.beta, &rng), cuzk_fr_random(&t.gamma, &rng);
    cuzk_fr_random(&t.delta, &rng), cuzk_fr_random(&t.tau, &rng);
    cuzk_groth16_fixed_base fb;
    cuzk_gpu_setup_fixed_base(&fb, w);
    cuzk_groth16_params pc_cpu, pc_gpu;
    int r1 = cuzk_groth16_setup_toxic(&pc_cpu, (const cuzk_recording_cs *)rc, &t, 2);
    int r2 = cuzk_groth16_setup_toxic_with(&pc_gpu, (const cuzk_recording_cs *)rc, &t, 2, &fb);
    CHECK(r1 == CUZK_OK);
    CHECK_MSG(r2 == CUZK_OK, "gpu setup: %s", cuzk_gpu_worker_error(w));
    if (r1 || r2) return;
    size_t l1, l2;
    uint8_t *s1 = serialize(&pc_cpu, &l1), *s2 = serialize(&pc_gpu, &l2);
    CHECK_MSG(s1 && s2 && l1 == l2 && !memcmp(s1, s2, l1), "setup %llu constraints: CPU and GPU parameters differ",
              (unsigned long long)spec.num_constraints);
    /* the GPU parameters prove and verify; a tampered proof does not */
    cuzk_groth16_proof pr;
    CHECK(cuzk_groth16_prove(&pr, &pc_gpu, (const cuzk_proving_cs *)pc, &rng, 2) == CUZK_OK);
    cuzk_fr in[8];
    in[0] = cuzk_fr_one;
    cuzk_synthetic_public_inputs(in + 1, &spec);
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare_vk(&pvk, &pc_gpu.vk) == CUZK_OK);
    CHECK(cuzk_groth16_verify(&pvk, &pr, in + 1, spec.num_inputs) == CUZK_OK);
    cuzk_g1_affine_neg(&pr.a, &pr.a);
    CHECK(cuzk_groth16_verify(&pvk, &pr, in + 1, spec.num_inputs) != CUZK_OK);
    printf("setup: %llu constraints, %u inputs: %zu parameter bytes identical, GPU parameters prove and verify\n",
           (unsigned long long)spec.num_constraints, spec.num_inputs, l1);
    cuzk_groth16_pvk_free(&pvk);
    free(s1), free(s2);
    cuzk_groth16_params_free(&pc_cpu), cuzk_groth16_params_free(&pc_gpu);
    cuzk_cs_free(rc), cuzk_cs_free(pc);
}

int main(void)
{
    tu_init(&rng, "test_gpu_setup");
    gpu_hooks_from_env();
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) {
        return tu_skip("test_gpu_setup", "no CUDA device");
    }
    char msg[256];
    cuzk_gpu_device *dev;
    cuzk_gpu_worker *w;
    if (cuzk_gpu_device_open(&dev, 0, msg, sizeof msg) || cuzk_gpu_worker_create(&w, dev)) {
        CHECK_MSG(0, "open: %s", msg);
        return tu_finish("test_gpu_setup");
    }
    test_fixed_base(w);
    test_setup(w);
    cuzk_gpu_worker_destroy(w);
    cuzk_gpu_device_close(dev);
    return tu_finish("test_gpu_setup");
}
