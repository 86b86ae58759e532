/*
 * bench_msm: ms per G1 / G2 MSM with random (full-width) scalars, n = 2^10
 * .. 2^max, 1 and 2 threads, with ns per point, the chosen window c and the
 * model's point-addition count nwin·(n + 2^c).
 *   bench_msm [max_log2 (default 16)] [--g1]
 * Bases are random-walk points (the MSM cost does not depend on them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/msm.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int max_log = 16;
    int g1_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--g1") == 0) g1_only = 1;
        else max_log = atoi(argv[i]);
    }
    if (max_log < 10) max_log = 10;
    if (max_log > 24) max_log = 24;
    size_t nmax = (size_t)1 << max_log;
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 1);

    cuzk_g1_affine *b1 = malloc(sizeof(*b1) * nmax);
    cuzk_g2_affine *b2 = g1_only ? NULL : malloc(sizeof(*b2) * nmax);
    cuzk_g1_jac *j1 = malloc(sizeof(*j1) * nmax);
    cuzk_g2_jac *j2 = g1_only ? NULL : malloc(sizeof(*j2) * nmax);
    cuzk_fr *k = malloc(sizeof(*k) * nmax);
    if (!b1 || !j1 || !k || (!g1_only && (!b2 || !j2))) return 1;
    cuzk_g1_jac c1, g1;
    cuzk_g2_jac c2, g2;
    cuzk_g1_jac_from_affine(&g1, &cuzk_g1_generator);
    cuzk_g1_jac_dbl(&c1, &g1);
    if (!g1_only) {
        cuzk_g2_jac_from_affine(&g2, &cuzk_g2_generator);
        cuzk_g2_jac_dbl(&c2, &g2);
    }
    for (size_t i = 0; i < nmax; i++) {
        cuzk_fr_random(&k[i], &rng);
        cuzk_g1_jac_add(&c1, &c1, &g1);
        cuzk_g1_jac_dbl(&g1, &g1);
        j1[i] = c1;
        if (!g1_only) {
            cuzk_g2_jac_add(&c2, &c2, &g2);
            cuzk_g2_jac_dbl(&g2, &g2);
            j2[i] = c2;
        }
    }
    cuzk_g1_jac_batch_to_affine(b1, j1, nmax);
    if (!g1_only) cuzk_g2_jac_batch_to_affine(b2, j2, nmax);
    free(j1);
    free(j2);

    printf("cuzk bench_msm (random Fr scalars)\n\n");
    printf("| group | log2 n |  c | additions (model) | threads |        ms |  ns/point |\n");
    printf("|-------|--------|----|-------------------|---------|-----------|-----------|\n");
    for (int grp = 1; grp <= (g1_only ? 1 : 2); grp++) {
        for (int lg = 10; lg <= max_log; lg++) {
            size_t n = (size_t)1 << lg;
            uint64_t cost;
            unsigned c = cuzk_msm_window_bits(n, 255, &cost);
            for (unsigned t = 1; t <= 2; t++) {
                double t0 = now_ms();
                int err;
                if (grp == 1) {
                    cuzk_g1_jac o;
                    err = cuzk_g1_msm(&o, b1, k, n, t);
                } else {
                    cuzk_g2_jac o;
                    err = cuzk_g2_msm(&o, b2, k, n, t);
                }
                double dt = now_ms() - t0;
                if (err) return 1;
                printf("| G%d    | %6d | %2u | %17llu | %7u | %9.1f | %9.0f |\n", grp, lg, c,
                       (unsigned long long)cost, t, dt, dt * 1e6 / n);
                fflush(stdout);
            }
        }
    }
    free(b1);
    free(b2);
    free(k);
    return 0;
}
