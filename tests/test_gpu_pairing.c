/* Products of Miller loops on the device (cuzk_gpu_miller_loop, _loops) against the
 * CPU's (cuzk_pairing_miller_loop), bit for bit: fresh random pairs (random
 * multiples of the generators), products of 1 to a few thousand pairs with
 * points at infinity among them (skipped by both), each finished by the
 * final exponentiation to the CPU's pairing product; other pairs give
 * another value. Skips without a device. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/ec/pairing.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/util/error.h"
#include "gpu_hooks_env.h"
#include "testutil.h"

static cuzk_rng rng;

/* n pairs k_i·G1, m_i·G2 (a few distinct bases, multiplied again) */
static void random_pairs(cuzk_g1_affine *P, cuzk_g2_affine *Q, size_t n)
{
    cuzk_g1_jac pj;
    cuzk_g2_jac qj;
    cuzk_fr k;
    cuzk_g1_jac_from_affine(&pj, &cuzk_g1_generator);
    cuzk_g2_jac_from_affine(&qj, &cuzk_g2_generator);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_random(&k, &rng);
        cuzk_g1_jac_mul_fr(&pj, &pj, &k);
        cuzk_g1_jac_to_affine(&P[i], &pj);
        cuzk_fr_random(&k, &rng);
        cuzk_g2_jac_mul_fr(&qj, &qj, &k);
        cuzk_g2_jac_to_affine(&Q[i], &qj);
    }
}

int main(void)
{
    tu_init(&rng, "test_gpu_pairing");
    gpu_hooks_from_env();
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) return tu_skip("test_gpu_pairing", "no CUDA device");
    char msg[256];
    cuzk_gpu_device *dev;
    int rc = cuzk_gpu_device_open(&dev, 0, msg, sizeof msg);
    CHECK_MSG(rc == CUZK_OK, "open: %s", msg);
    if (rc) return tu_finish("test_gpu_pairing");
    cuzk_gpu_worker *w;
    CHECK(cuzk_gpu_worker_create(&w, dev) == CUZK_OK);
    enum { NMAX = 3000 };
    cuzk_g1_affine *P = malloc(NMAX * sizeof *P);
    cuzk_g2_affine *Q = malloc(NMAX * sizeof *Q);
    random_pairs(P, Q, NMAX);
    memset(&P[5], 0, sizeof P[5]), memset(&Q[700], 0, sizeof Q[700]); /* at infinity */
    const size_t sizes[] = {0, 1, 2, 3, 6, 17, 64, 701, NMAX};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s];
        cuzk_fp12 want, got;
        cuzk_pairing_miller_loop(&want, P, Q, n);
        rc = cuzk_gpu_miller_loop(w, &got, P, Q, n);
        CHECK_MSG(rc == CUZK_OK, "%zu pairs: %d %s", n, rc, cuzk_gpu_worker_error(w));
        CHECK_MSG(!rc && cuzk_fp12_eq(&got, &want), "%zu pairs: the device's Miller loop differs from the CPU's", n);
        cuzk_gt gw, gg;
        cuzk_pairing_final_exp(&gw, &want), cuzk_pairing_final_exp(&gg, &got);
        CHECK(cuzk_gt_eq(&gg, &gw));
        printf("  %zu pairs: equal\n", n);
    }
    { /* other pairs, another value */
        cuzk_fp12 want, got;
        cuzk_pairing_miller_loop(&want, P, Q, 3);
        CHECK(cuzk_gpu_miller_loop(w, &got, P + 1, Q + 1, 3) == CUZK_OK && !cuzk_fp12_eq(&got, &want));
    }
    { /* several products in one call, of random lengths (one of them empty), each against the
       * CPU's loop over its own pairs */
        enum { NPROD = 10 };
        size_t off[NPROD + 1] = {0};
        for (size_t k = 0; k < NPROD; k++) {
            size_t len = k == 3 ? 0 : 1 + cuzk_rng_u64(&rng) % (NMAX / NPROD);
            off[k + 1] = off[k] + len;
        }
        cuzk_fp12 got[NPROD];
        rc = cuzk_gpu_miller_loops(w, got, NPROD, P, Q, off);
        CHECK_MSG(rc == CUZK_OK, "%d products: %d %s", NPROD, rc, cuzk_gpu_worker_error(w));
        for (size_t k = 0; !rc && k < NPROD; k++) {
            cuzk_fp12 want;
            cuzk_pairing_miller_loop(&want, P + off[k], Q + off[k], off[k + 1] - off[k]);
            CHECK_MSG(cuzk_fp12_eq(&got[k], &want), "product %zu of %d (%zu pairs) differs from the CPU's", k,
                      NPROD, off[k + 1] - off[k]);
        }
        printf("  %d products of %zu pairs in one call: equal\n", NPROD, off[NPROD]);
        size_t bad[3] = {0, 5, 4}; /* decreasing offsets */
        CHECK(cuzk_gpu_miller_loops(w, got, 2, P, Q, bad) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_gpu_miller_loops(w, got, CUZK_PAIRING_PRODS_MAX + 1, P, Q, off) == CUZK_ERR_INVALID_ARG);
    }
    CHECK(cuzk_gpu_miller_loop(w, NULL, P, Q, 1) == CUZK_ERR_INVALID_ARG);
    free(P), free(Q);
    cuzk_gpu_worker_destroy(w);
    cuzk_gpu_device_close(dev);
    return tu_finish("test_gpu_pairing");
}
