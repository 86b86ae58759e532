/*
 * SnarkPack with its Miller loops and MSMs on the device (cuzk/gpu/snarkpack_gpu.h) against the
 * CPU's aggregation: proofs of a fresh synthetic circuit (fresh setup, fresh witnesses) and a
 * fresh TEST SRS, aggregated (v2, then v1) for n = 2 .. 64 with every call on the device
 * (min_n 1) and at n = 64 with the default threshold (the first rounds on the device, the last
 * on the CPU): the encoded bytes equal the CPU's, the aggregate verifies, and with a flipped
 * byte it does not. Skips without a device.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/circuits/test_circuits.h"
#include "cuzk/gpu/snarkpack_gpu.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/util/error.h"
#include "gpu_hooks_env.h"
#include "testutil.h"

#define NI 2
#define NREAL 8
#define NMAX 64

static cuzk_rng rng;

/* The aggregate's bytes (malloc'd), acc NULL on the CPU. */
static uint8_t *aggregate(const cuzk_snarkpack_srs *srs, const cuzk_groth16_proof *pf, size_t n, const uint8_t *inc,
                          cuzk_snarkpack_version v, const cuzk_snarkpack_accel *acc)
{
    cuzk_snarkpack_ctl ctl = {.accel = acc};
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    size_t len = cuzk_snarkpack_proof_size((uint32_t)n);
    uint8_t *b = malloc(len);
    char err[256] = "";
    int rc = cuzk_snarkpack_aggregate(p, srs, pf, n, inc, 32, v, &ctl, 2, err, sizeof err);
    if (!rc) rc = cuzk_snarkpack_proof_encode(b, len, p);
    CHECK_MSG(rc == CUZK_OK, "aggregate n=%zu v%d on the %s: %d %s", n, (int)v, acc ? "device" : "CPU", rc, err);
    free(p);
    if (rc) free(b), b = NULL;
    return b;
}

static int verify_bytes(const uint8_t *b, size_t n, const cuzk_snarkpack_srs *srs, const cuzk_groth16_vk *vk,
                        const cuzk_fr *in, const uint8_t *inc, cuzk_snarkpack_version v, char *err, size_t err_len)
{
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    cuzk_snarkpack_vk svk;
    int rc = cuzk_snarkpack_proof_decode(p, b, cuzk_snarkpack_proof_size((uint32_t)n), err, err_len);
    if (!rc) rc = cuzk_snarkpack_vk_for(&svk, srs, (uint32_t)n, err, err_len);
    if (!rc) rc = cuzk_snarkpack_verify(p, &svk, vk, in, n, NI, inc, 32, v, &rng, 2, err, err_len);
    free(p);
    return rc;
}

static void t_same(const cuzk_snarkpack_srs *srs, const cuzk_groth16_params *params, const cuzk_groth16_proof *pf8,
                   const cuzk_fr *in8, size_t n, cuzk_snarkpack_version v, const cuzk_snarkpack_accel *acc)
{
    cuzk_groth16_proof *pf = malloc(n * sizeof *pf);
    cuzk_fr *in = malloc(n * NI * sizeof *in);
    uint8_t inc[32];
    cuzk_rng_bytes(&rng, inc, sizeof inc);
    for (size_t i = 0; i < n; i++) {
        size_t k = cuzk_rng_u64(&rng) % NREAL;
        pf[i] = pf8[k], memcpy(&in[i * NI], &in8[k * NI], NI * sizeof *in);
    }
    uint8_t *cpu = aggregate(srs, pf, n, inc, v, NULL), *dev = aggregate(srs, pf, n, inc, v, acc);
    size_t len = cuzk_snarkpack_proof_size((uint32_t)n);
    char err[512] = "";
    if (cpu && dev) {
        CHECK_MSG(!memcmp(cpu, dev, len), "n=%zu v%d min_n %zu: the device's aggregate differs from the CPU's", n,
                  (int)v, acc->min_n);
        int rc = verify_bytes(dev, n, srs, &params->vk, in, inc, v, err, sizeof err);
        CHECK_MSG(rc == CUZK_OK, "n=%zu v%d: the device's aggregate does not verify: %d %s", n, (int)v, rc, err);
        size_t at = cuzk_rng_u64(&rng) % len;
        dev[at] ^= (uint8_t)(1 + cuzk_rng_u64(&rng) % 255);
        CHECK_MSG(verify_bytes(dev, n, srs, &params->vk, in, inc, v, err, sizeof err) != CUZK_OK,
                  "n=%zu: byte %zu flipped accepted", n, at);
        printf("  n=%zu v%d min_n %zu: the CPU's bytes; verified; byte %zu flipped refused\n", n, (int)v, acc->min_n,
               at);
    }
    free(cpu), free(dev), free(pf), free(in);
}

int main(void)
{
    tu_init(&rng, "test_gpu_snarkpack");
    gpu_hooks_from_env();
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) return tu_skip("test_gpu_snarkpack", "no CUDA device");
    char msg[256];
    cuzk_gpu_device *dev;
    int rc = cuzk_gpu_device_open(&dev, 0, msg, sizeof msg);
    CHECK_MSG(rc == CUZK_OK, "open: %s", msg);
    if (rc) return tu_finish("test_gpu_snarkpack");
    cuzk_gpu_worker *w;
    CHECK(cuzk_gpu_worker_create(&w, dev) == CUZK_OK);
    cuzk_groth16_params params;
    cuzk_groth16_proof pf[NREAL];
    cuzk_fr in[NREAL * NI];
    cuzk_snarkpack_srs srs;
    CHECK(tu_synthetic_proofs(&params, pf, in, NREAL, NI, 30 + cuzk_rng_u64(&rng) % 60, &rng) == 0);
    CHECK(cuzk_snarkpack_srs_setup_test(&srs, NMAX, &rng, 2) == CUZK_OK);
    cuzk_snarkpack_accel all, dflt;
    cuzk_gpu_snarkpack_accel(&all, w, 1);
    cuzk_gpu_snarkpack_accel(&dflt, w, 0);
    CHECK(dflt.min_n == CUZK_GPU_SNARKPACK_MIN_N && all.min_n == 1);
    for (size_t n = 2; n <= NMAX; n *= 4) t_same(&srs, &params, pf, in, n, CUZK_SNARKPACK_V2, &all);
    t_same(&srs, &params, pf, in, NMAX, CUZK_SNARKPACK_V1, &all);
    t_same(&srs, &params, pf, in, NMAX, CUZK_SNARKPACK_V2, &dflt);
    cuzk_snarkpack_srs_free(&srs);
    cuzk_groth16_params_free(&params);
    cuzk_gpu_worker_destroy(w);
    cuzk_gpu_device_close(dev);
    return tu_finish("test_gpu_snarkpack");
}
