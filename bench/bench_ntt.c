/*
 * bench_ntt: ms per forward NTT (radix-4, and the radix-2 reference network
 * it replaced, interleaved and the minimum of several rounds so that a
 * shared machine's noise hits both alike) and coset NTT for 2^10 .. 2^max
 * (default 20), 1 and 2 threads, beside the floor M(n)·t_mul / threads with
 * M(n) = (n/2)·log2 n - (n - 1) (see src/poly/ntt.c) and t_mul the Fr
 * multiplication time measured here (independent multiplications, i.e. the
 * throughput a butterfly network can reach). The coset floor adds 2n.
 *   bench_ntt [max_log] [max_threads]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuzk/ff/fr.h"
#include "cuzk/poly/ntt.h"
#include "poly/ntt_internal.h"

#include "bench_util.h"

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
    double t0 = cuzk_now();
    for (int r = 0; r < REP; r++)
        for (int i = 0; i < N; i++) cuzk_fr_mul(&x[i], &x[i], &y[i]);
    return (cuzk_now() - t0) * 1e9 / ((double)N * REP);
}

static void radix2_forward(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nt) { cuzk_ntt_radix2_ref(d, x, false, nt); }

/* ms per call: the mean over >= 0.05 s of calls. */
static double time_ms(void (*f)(const cuzk_ntt_domain *, cuzk_fr *, unsigned), const cuzk_ntt_domain *d,
                      cuzk_fr *x, unsigned nt)
{
    int reps = 0;
    double t0 = cuzk_now(), t;
    do {
        f(d, x, nt);
        reps++;
        t = cuzk_now() - t0;
    } while (t < 0.05 && reps < 1000);
    return t * 1e3 / reps;
}

#define ROUNDS 5
static double min_d(double a, double b) { return a < b ? a : b; }

int main(int argc, char **argv)
{
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    unsigned max_nt = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
    if (max_log < 10) max_log = 10;
    if (max_log > CUZK_NTT_MAX_LOG) max_log = CUZK_NTT_MAX_LOG;
    if (max_nt < 1) max_nt = 1;
    double tm = fr_mul_ns();
    printf("cuzk bench_ntt: Fr mul %.1f ns; floor = M(n)·t_mul/threads, M(n) = (n/2)log2 n - (n-1)\n\n", tm);
    printf("| log n | thr | forward ms | radix-2 ms | r2/r4 | floor ms | fwd/floor | coset ms | floor ms | coset/floor |\n");
    printf("|-------|-----|------------|------------|-------|----------|-----------|----------|----------|-------------|\n");
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
            double f = 1e300, r2 = 1e300, c = 1e300;
            for (int r = 0; r < ROUNDS; r++) {
                f = min_d(f, time_ms(cuzk_ntt_forward, &d, x, nt));
                r2 = min_d(r2, time_ms(radix2_forward, &d, x, nt));
                c = min_d(c, time_ms(cuzk_ntt_coset_forward, &d, x, nt));
            }
            double ff = m * tm * 1e-6 / nt, cf = (m + 2.0 * n) * tm * 1e-6 / nt;
            printf("| %5u | %3u | %10.2f | %10.2f | %5.2f | %8.2f | %9.2f | %8.2f | %8.2f | %11.2f |\n", k, nt, f,
                   r2, r2 / f, ff, f / ff, c, cf, c / cf);
            fflush(stdout);
        }
        free(x);
        cuzk_ntt_domain_free(&d);
    }
    return 0;
}
