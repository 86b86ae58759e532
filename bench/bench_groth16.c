/*
 * bench_groth16: the CPU prover phase by phase, and its two kernels alone.
 *
 *  1. Prove: synthetic circuits (include/cuzk/circuits/test_circuits.h) filling a
 *     domain of 2^k exactly (2^k - 5 constraints + 5 input constraints, 4
 *     public inputs) for k = 16, 18, 20: setup once (2 threads, timed), then
 *     one proof on 1 and 2 threads with the time of NTT(H) and each MSM, the
 *     scalar mix of each MSM (zeros and ones leave the buckets) and the
 *     Pippenger model's point additions; each proof is verified.
 *  2. NTT alone, 2^16 .. 2^22: radix-4 forward and the radix-2 reference.
 *  3. MSM alone, random 255-bit scalars: G1 2^16 .. 2^22, G2 2^16 .. 2^20.
 * Wall-clock seconds / milliseconds, and the process CPU time beside them
 * (on a shared machine the 1-thread CPU time is the steadier figure: it
 * leaves out the time other processes held the core). Single runs (the
 * sizes are large). Say how loaded the machine was when recording figures.
 *   bench_groth16 [--prove-max K] [--ntt-max K] [--msm-max K] [--g2-max K]
 *                 [--only prove|ntt|msm]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/msm/msm.h"
#include "cuzk/poly/ntt.h"
#include "cuzk/circuits/test_circuits.h"
#include "poly/ntt_internal.h"

#include "bench_util.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static cuzk_cs *build(cuzk_cs_kind kind, const cuzk_synthetic_spec *spec)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    if (!cs || cuzk_cs_alloc_one(cs) || cuzk_synthetic_synthesize(cs, spec) || cuzk_cs_finalize(cs)) {
        fprintf(stderr, "synthesis failed\n");
        exit(1);
    }
    return cs;
}

/* Scalar mix of an MSM input: zeros, ones, general; model additions for the general ones. */
typedef struct {
    size_t zero, one, gen;
    unsigned c;
    uint64_t adds;
} mix;

static mix mix_of(const cuzk_fr *k, size_t n)
{
    mix m = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if (cuzk_fr_is_zero(&k[i])) m.zero++;
        else if (cuzk_fr_eq(&k[i], &cuzk_fr_one)) m.one++;
        else m.gen++;
    }
    m.c = cuzk_msm_window_bits(m.gen, 255, &m.adds);
    m.adds += m.one; /* the ones: one mixed addition each */
    return m;
}

static void bench_prove(unsigned max_k)
{
    printf("## Prove (synthetic circuit, 4 public inputs, domain 2^k filled)\n\n");
    for (unsigned k = 16; k <= max_k; k += 2) {
        cuzk_synthetic_spec spec = {((uint64_t)1 << k) - 5, 4, 1};
        double t0 = cuzk_now();
        cuzk_cs *rec = build(CUZK_CS_RECORDING, &spec);
        double t1 = cuzk_now();
        cuzk_groth16_params p;
        cuzk_rng rng;
        cuzk_rng_seed(&rng, k);
        if (cuzk_groth16_setup(&p, (cuzk_recording_cs *)rec, &rng, 2)) {
            fprintf(stderr, "setup failed\n");
            exit(1);
        }
        double t2 = cuzk_now();
        cuzk_cs_free(rec);
        cuzk_cs *cs = build(CUZK_CS_PROVING, &spec);
        double t3 = cuzk_now();
        const cuzk_proving_cs *pc = (const cuzk_proving_cs *)cs;
        printf("2^%u: %zu constraints, %zu aux; record %.2f s, setup (2 threads) %.1f s, witness %.2f s\n", k,
               cs->num_constraints, cs->num_aux, t1 - t0, t2 - t1, t3 - t2);

        /* scalar mixes: L = aux, A/B gathered by density, H: n - 1 general */
        cuzk_groth16_assignment as;
        cuzk_groth16_job job;
        cuzk_groth16_assignment_from_cs(&as, pc);
        cuzk_groth16_job_init(&job, &p, &as);
        cuzk_fr *sa = malloc(p.n_a * sizeof *sa), *sb = malloc(p.n_b_g1 * sizeof *sb);
        cuzk_groth16_gather(sa, &job, &job.q_a);
        cuzk_groth16_gather(sb, &job, &job.q_b_g1);
        mix ml = mix_of(pc->aux.v, cs->num_aux), ma = mix_of(sa, p.n_a), mb = mix_of(sb, p.n_b_g1);
        mix mh = {0, 0, p.n_h, 0, 0};
        mh.c = cuzk_msm_window_bits(p.n_h, 255, &mh.adds);
        free(sa), free(sb);
        printf("\n| MSM | points | zeros | ones | general | c | model additions |\n");
        printf("|-----|--------|-------|------|---------|---|-----------------|\n");
        const char *names[4] = {"H", "L", "A", "B (G1, G2)"};
        const mix *ms[4] = {&mh, &ml, &ma, &mb};
        const size_t pts[4] = {p.n_h, p.n_l, p.n_a, p.n_b_g1};
        for (int i = 0; i < 4; i++)
            printf("| %s | %zu | %zu | %zu | %zu | %u | %llu |\n", names[i], pts[i], ms[i]->zero, ms[i]->one,
                   ms[i]->gen, ms[i]->c, (unsigned long long)ms[i]->adds);

        /* the five MSMs run as one task list (cuzk_msm_batch): one time */
        printf("\n| threads | NTT(H) s | MSMs s | total s | CPU s |\n");
        printf("|---------|----------|--------|---------|-------|\n");
        cuzk_groth16_pvk pvk;
        cuzk_groth16_prepare_vk(&pvk, &p.vk);
        cuzk_fr pub[4];
        cuzk_synthetic_public_inputs(pub, &spec);
        for (unsigned t = 1; t <= 2; t++) {
            cuzk_fr r, s;
            cuzk_fr_random(&r, &rng);
            cuzk_fr_random(&s, &rng);
            cuzk_groth16_proof pf;
            cuzk_groth16_prove_timing tm;
            double c0 = cpu_s();
            int rc = cuzk_groth16_prove_timed(&pf, &p, pc, &r, &s, t, &tm);
            double cpu = cpu_s() - c0;
            if (rc) {
                fprintf(stderr, "prove failed\n");
                exit(1);
            }
            int ok = cuzk_groth16_verify(&pvk, &pf, pub, 4) == CUZK_OK;
            printf("| %7u | %8.3f | %6.3f | %7.3f | %5.2f |%s\n", t, tm.ntt_h_s, tm.msm_s, tm.total_s, cpu,
                   ok ? "" : " PROOF DOES NOT VERIFY");
            fflush(stdout);
            if (!ok) exit(1);
        }
        printf("\n");
        cuzk_groth16_pvk_free(&pvk);
        cuzk_groth16_params_free(&p);
        cuzk_cs_free(cs);
    }
}

static void radix2_forward(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nt) { cuzk_ntt_radix2_ref(d, x, false, nt); }

static void bench_ntt(unsigned max_k)
{
    printf("## NTT alone (forward, ms; radix-2 = the reference network)\n\n");
    printf("| log n | threads | radix-4 ms | radix-2 ms | radix-4 CPU ms | radix-2 CPU ms |\n");
    printf("|-------|---------|------------|------------|----------------|----------------|\n");
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 2);
    for (unsigned k = 16; k <= max_k; k++) {
        cuzk_ntt_domain d;
        if (cuzk_ntt_domain_init(&d, k, CUZK_FR_GEN_FILECOIN, 2)) exit(1);
        cuzk_fr *x = malloc(d.n * sizeof *x);
        for (size_t i = 0; i < d.n; i++) cuzk_fr_random(&x[i], &rng);
        for (unsigned t = 1; t <= 2; t++) {
            void (*fs[2])(const cuzk_ntt_domain *, cuzk_fr *, unsigned) = {cuzk_ntt_forward, radix2_forward};
            double ms[2], cms[2];
            for (int f = 0; f < 2; f++) {
                double t0 = cuzk_now(), c0 = cpu_s();
                fs[f](&d, x, t);
                ms[f] = (cuzk_now() - t0) * 1e3;
                cms[f] = (cpu_s() - c0) * 1e3;
            }
            printf("| %5u | %7u | %10.1f | %10.1f | %14.1f | %14.1f |\n", k, t, ms[0], ms[1], cms[0], cms[1]);
            fflush(stdout);
        }
        free(x);
        cuzk_ntt_domain_free(&d);
    }
    printf("\n");
}

static void bench_msm(unsigned max_g1, unsigned max_g2)
{
    printf("## MSM alone (random 255-bit scalars, ms)\n\n");
    printf("| group | log n | c | model additions | threads | ms | ns/point | CPU ms |\n");
    printf("|-------|-------|---|-----------------|---------|----|----------|--------|\n");
    unsigned max_k = max_g1 > max_g2 ? max_g1 : max_g2;
    size_t nmax = (size_t)1 << max_k;
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 3);
    cuzk_fr *k = malloc(nmax * sizeof *k);
    for (size_t i = 0; i < nmax; i++) cuzk_fr_random(&k[i], &rng);
    for (int grp = 1; grp <= 2; grp++) {
        unsigned gmax = grp == 1 ? max_g1 : max_g2;
        if (gmax < 16) continue;
        size_t n = (size_t)1 << gmax;
        /* random-walk bases (the cost does not depend on them) */
        cuzk_g1_affine *b1 = NULL;
        cuzk_g2_affine *b2 = NULL;
        if (grp == 1) {
            cuzk_g1_jac *j = malloc(n * sizeof *j), c, g;
            b1 = malloc(n * sizeof *b1);
            cuzk_g1_jac_from_affine(&g, &cuzk_g1_generator);
            cuzk_g1_jac_dbl(&c, &g);
            for (size_t i = 0; i < n; i++) {
                cuzk_g1_jac_add(&c, &c, &g);
                cuzk_g1_jac_dbl(&g, &g);
                j[i] = c;
            }
            cuzk_g1_jac_batch_to_affine(b1, j, n);
            free(j);
        } else {
            cuzk_g2_jac *j = malloc(n * sizeof *j), c, g;
            b2 = malloc(n * sizeof *b2);
            cuzk_g2_jac_from_affine(&g, &cuzk_g2_generator);
            cuzk_g2_jac_dbl(&c, &g);
            for (size_t i = 0; i < n; i++) {
                cuzk_g2_jac_add(&c, &c, &g);
                cuzk_g2_jac_dbl(&g, &g);
                j[i] = c;
            }
            cuzk_g2_jac_batch_to_affine(b2, j, n);
            free(j);
        }
        for (unsigned lg = 16; lg <= gmax; lg++) {
            size_t m = (size_t)1 << lg;
            uint64_t cost;
            unsigned c = cuzk_msm_window_bits(m, 255, &cost);
            for (unsigned t = 1; t <= 2; t++) {
                double t0 = cuzk_now(), c0 = cpu_s();
                int err;
                if (grp == 1) {
                    cuzk_g1_jac o;
                    err = cuzk_g1_msm(&o, b1, k, m, t);
                } else {
                    cuzk_g2_jac o;
                    err = cuzk_g2_msm(&o, b2, k, m, t);
                }
                double ms = (cuzk_now() - t0) * 1e3, cms = (cpu_s() - c0) * 1e3;
                if (err) exit(1);
                printf("| G%d | %u | %u | %llu | %u | %.0f | %.0f | %.0f |\n", grp, lg, c, (unsigned long long)cost, t,
                       ms, ms * 1e6 / (double)m, cms);
                fflush(stdout);
            }
        }
        free(b1), free(b2);
    }
    free(k);
    printf("\n");
}

int main(int argc, char **argv)
{
    unsigned prove_max = 20, ntt_max = 22, msm_max = 22, g2_max = 20;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        unsigned v = (unsigned)atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--prove-max")) prove_max = v;
        else if (!strcmp(argv[i], "--ntt-max")) ntt_max = v > CUZK_NTT_MAX_LOG ? CUZK_NTT_MAX_LOG : v;
        else if (!strcmp(argv[i], "--msm-max")) msm_max = v > 26 ? 26 : v;
        else if (!strcmp(argv[i], "--g2-max")) g2_max = v > 24 ? 24 : v;
        else if (!strcmp(argv[i], "--only")) only = argv[i + 1];
        else {
            fprintf(stderr, "usage: bench_groth16 [--prove-max K] [--ntt-max K] [--msm-max K] [--g2-max K] "
                            "[--only prove|ntt|msm]\n");
            return 2;
        }
    }
    printf("cuzk bench_groth16 (wall clock, single runs)\n\n");
    if (!only || !strcmp(only, "prove")) bench_prove(prove_max);
    if (!only || !strcmp(only, "ntt")) bench_ntt(ntt_max);
    if (!only || !strcmp(only, "msm")) bench_msm(msm_max, g2_max);
    return 0;
}
