/*
 * bench_ntt: ms per forward NTT and coset NTT for 2^10 .. 2^max (default 20),
 * 1 and 2 threads, beside the floor M(n)·t_mul / threads with
 * M(n) = (n/2)·log2 n - (n - 1) (see src/poly/ntt.c) and t_mul the Fr
 * multiplication time measured here (independent multiplications, i.e. the
 * throughput a butterfly network can reach). The coset floor adds 2n.
 *   bench_ntt [max_log] [max_threads]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuzk/fr.h"
#include "cuzk/ntt.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ns per Fr multiplication over a vector, as the butterflies use it. */
static double fr_mul_ns(void)
{
    enum { N = 4096, REP = 200 };
    static cuzk_fr x[N], y[N];
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 7);
    for (int i = 0; i < N; i++) {
        cuzk_fr_random(&x[i], &rng);
        cuzk_fr_random(&y[i], &rng);
    }
    double t0 = now_s();
    for (int r = 0; r < REP; r++)
        for (int i = 0; i < N; i++) cuzk_fr_mul(&x[i], &x[i], &y[i]);
    return (now_s() - t0) * 1e9 / ((double)N * REP);
}

static double time_ms(void (*f)(const cuzk_ntt_domain *, cuzk_fr *, unsigned), const cuzk_ntt_domain *d,
                      cuzk_fr *x, unsigned nt)
{
    int reps = 0;
    double t0 = now_s(), t;
    do {
        f(d, x, nt);
        reps++;
        t = now_s() - t0;
    } while (t < 0.15 && reps < 1000);
    return t * 1e3 / reps;
}

int main(int argc, char **argv)
{
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    unsigned max_nt = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
    if (max_log < 10) max_log = 10;
    if (max_log > CUZK_NTT_MAX_LOG) max_log = CUZK_NTT_MAX_LOG;
    if (max_nt < 1) max_nt = 1;
    double tm = fr_mul_ns();
    printf("cuzk bench_ntt: Fr mul %.1f ns; floor = M(n)·t_mul/threads, M(n) = (n/2)log2 n - (n-1)\n\n", tm);
    printf("| log n | thr | forward ms | floor ms | fwd/floor | coset ms | floor ms | coset/floor |\n");
    printf("|-------|-----|------------|----------|-----------|----------|----------|-------------|\n");
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 1);
    for (unsigned k = 10; k <= max_log; k++) {
        cuzk_ntt_domain d;
        if (cuzk_ntt_domain_init(&d, k, CUZK_FR_GEN_FILECOIN, max_nt) != 0) {
            fprintf(stderr, "domain 2^%u failed\n", k);
            return 1;
        }
        size_t n = d.n;
        cuzk_fr *x = malloc(n * sizeof *x);
        if (!x) return 1;
        for (size_t i = 0; i < n; i++) cuzk_fr_random(&x[i], &rng);
        double m = (double)n / 2 * k - (double)(n - 1);
        for (unsigned nt = 1; nt <= max_nt; nt *= 2) {
            double f = time_ms(cuzk_ntt_forward, &d, x, nt);
            double c = time_ms(cuzk_ntt_coset_forward, &d, x, nt);
            double ff = m * tm * 1e-6 / nt, cf = (m + 2.0 * n) * tm * 1e-6 / nt;
            printf("| %5u | %3u | %10.2f | %8.2f | %9.2f | %8.2f | %8.2f | %11.2f |\n", k, nt, f, ff, f / ff, c,
                   cf, c / cf);
            fflush(stdout);
        }
        free(x);
        cuzk_ntt_domain_free(&d);
    }
    return 0;
}
