/*
 * bench_msm: ms per G1 / G2 MSM with random (full-width) scalars, n = 2^10
 * .. 2^max, 1 and 2 threads, with ns per point, for each method of
 * cuzk_{g1,g2}_msm_flags: ref (XYZZ buckets, 255-bit digits: the method
 * before GLV), glv, affine (batch-affine buckets), glv+affine (the default
 * of cuzk_g1_msm). c is the window the method picks.
 * ms is the best wall time of --reps runs (default 1); cpu ms the best CPU
 * time of the calling thread (all the work with 1 thread: the figure that
 * holds on a loaded box).
 * --ones sets every scalar to 1 (the scalar-1 sum alone: mixed XYZZ
 * additions for ref and glv, pairwise batch-affine rounds for the others).
 *   bench_msm [max_log2 (default 16)] [--g1] [--g2] [--threads T] [--method NAME] [--reps R]
 *             [--ones]
 * Bases are random-walk points (the MSM cost does not depend on them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cuzk/msm/msm.h"
#include "msm/msm_internal.h"


int main(int argc, char **argv)
{
    int max_log = 16;
    int g1_only = 0, g2_only = 0;
    unsigned only_threads = 0;
    const char *only_method = NULL;
    int reps = 1, ones = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--g1") == 0) g1_only = 1;
        else if (strcmp(argv[i], "--g2") == 0) g2_only = 1;
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) only_threads = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--method") == 0 && i + 1 < argc) only_method = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ones") == 0) ones = 1;
        else max_log = atoi(argv[i]);
    }
    static const struct { const char *name; unsigned flags; } methods[] = {
        {"ref", 0}, {"glv", CUZK_MSM_GLV}, {"affine", CUZK_MSM_AFFINE},
        {"glv+affine", CUZK_MSM_GLV | CUZK_MSM_AFFINE}};
    if (max_log < 10) max_log = 10;
    if (max_log > 24) max_log = 24;
    size_t nmax = (size_t)1 << max_log;
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 1);

    cuzk_g1_affine *b1 = malloc(sizeof(*b1) * nmax);
    cuzk_g2_affine *b2 = g1_only ? NULL : malloc(sizeof(*b2) * nmax);
    cuzk_g1_jac *j1 = malloc(sizeof(*j1) * nmax);
    cuzk_g2_jac *j2 = g1_only ? NULL : malloc(sizeof(*j2) * nmax);
    uint64_t(*k)[4] = malloc(32 * nmax);
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
        cuzk_fr f;
        cuzk_fr_random(&f, &rng);
        cuzk_fr_to_limbs(k[i], &f);
        if (ones) {
            memset(k[i], 0, 32);
            k[i][0] = 1;
        }
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

    printf("cuzk bench_msm (%s)\n\n", ones ? "all scalars 1" : "random Fr scalars");
    printf("| group | log2 n | method     |  c | threads |        ms |    cpu ms |  ns/point |\n");
    printf("|-------|--------|------------|----|---------|-----------|-----------|-----------|\n");
    for (int grp = g2_only ? 2 : 1; grp <= (g1_only ? 1 : 2); grp++) {
        for (int lg = 10; lg <= max_log; lg++) {
            size_t n = (size_t)1 << lg;
            for (unsigned t = 1; t <= 2; t++) {
                if (only_threads && t != only_threads) continue;
                for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
                    if (only_method && strcmp(only_method, methods[mi].name) != 0) continue;
                    unsigned f = methods[mi].flags, bits = (f & CUZK_MSM_GLV) ? 128 : 256;
                    size_t mt = (f & CUZK_MSM_GLV) ? 2 * n : n;
                    unsigned c = (f & CUZK_MSM_AFFINE) ? cuzk_msm_window_bits_affine(mt, bits)
                                                       : cuzk_msm_window_bits(mt, bits, NULL);
                    size_t min_nb = grp == 1 ? CUZK_MSM_G1_AFF_MIN_NB : CUZK_MSM_G2_AFF_MIN_NB;
                    if ((f & CUZK_MSM_AFFINE) && ((size_t)1 << (c - 1)) < min_nb)
                        c = cuzk_msm_window_bits(mt, bits, NULL); /* as msm_run_ does */
                    double dt = 1e300, dc = 0;
                    for (int r = 0; r < (reps < 1 ? 1 : reps); r++) {
                        double t0 = cuzk_now(), c0 = bench_cpu_now();
                        int err;
                        if (grp == 1) {
                            cuzk_g1_jac o;
                            err = cuzk_g1_msm_flags(&o, b1, (const uint64_t(*)[4])k, n, t, f);
                        } else {
                            cuzk_g2_jac o;
                            err = cuzk_g2_msm_flags(&o, b2, (const uint64_t(*)[4])k, n, t, f);
                        }
                        double w = (cuzk_now() - t0) * 1e3, cp = (bench_cpu_now() - c0) * 1e3;
                        if (err) return 1;
                        if (w < dt) dt = w;
                        if (r == 0 || cp < dc) dc = cp;
                    }
                    printf("| G%d    | %6d | %-10s | %2u | %7u | %9.1f | %9.1f | %9.0f |\n", grp, lg,
                           methods[mi].name, c, t, dt, dc, dt * 1e6 / n);
                    fflush(stdout);
                }
            }
        }
    }
    free(b1);
    free(b2);
    free(k);
    return 0;
}
