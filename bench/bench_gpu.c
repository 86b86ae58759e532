/* GPU benchmark table: G1 MSM (random and Filecoin-like boolean-heavy
 * scalars), G2 MSM, NTT and the full Groth16 prove of synthetic circuits.
 * "device" is the kernel region (data already on the device, scalars and
 * points resident), "call" the whole API call including host<->device copies
 * (pageable memory). Median of CUZK_BENCH_REPS (3) runs after a warm-up.
 * Limits (log2): CUZK_BENCH_G1 (26), CUZK_BENCH_G2 (24), CUZK_BENCH_NTT (27),
 * CUZK_BENCH_PROVE (24); CUZK_BENCH_MIN (20) is the smallest size.
 * MSM bases are distinct, k_i·G for random k_i from the GPU fixed-base
 * kernel (copies of a small pool let the L2 cache flatter the figures); the
 * prove uses random parameters of the right shape (timing only, proofs do
 * not verify). The G1 random rows run again with the bases resident on the
 * device and the scalars in pinned host memory, as sppark's msm_t is timed
 * (bench/sppark_side.sh runs the two side by side), each result compared
 * with the plain run's. The GPU test hooks (CUZK_GPU_MSM_C, ...) and
 * CUZK_GPU_TRACE come from the environment (tests/gpu_hooks_env.h).
 * circom: the snarkjs-style prove (cuzk_circom_prove_gpu) on synthetic zkeys
 * (tests/circom_synth.h) of domains 2^CUZK_BENCH_CIRCOM_MIN (10) ..
 * 2^CUZK_BENCH_CIRCOM (14), against the CPU prover with CUZK_BENCH_THREADS
 * (16) threads, and whether the two proofs are equal for the same r, s.
 * Miller loops: products of 2^10 .. 2^CUZK_BENCH_PAIR (17) pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/ec/pairing.h"
#include "cuzk/util/error.h"
#include "cuzk/util/handle.h"
#include "cuzk/gpu/gpu.h"

#include "../tests/circom_synth.h"
#include "../tests/gpu_hooks_env.h"
#include "bench_util.h"

static unsigned env_u(const char *n, unsigned d)
{
    const char *v = getenv(n);
    return v ? (unsigned)atoi(v) : d;
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return v[n / 2];
}

static cuzk_rng rng;
static unsigned reps;

static void scalars(cuzk_fr *k, size_t n, int boolean)
{
    uint64_t st = cuzk_rng_u64(&rng); /* the rest from bench_mix64: see bench_util.h */
    for (size_t i = 0; i < n; i++) {
        uint64_t u = boolean ? bench_mix64(&st) : 0;
        if (boolean && u % 16) cuzk_fr_set_u64(&k[i], (u >> 8) & 1);
        else bench_fr_random(&k[i], &st);
    }
}

#define POOL 4096

/* Every row's timing: CALL run reps + 1 times, the first a warm-up; each
 * later run's kernel region (the worker's) and whole call kept for row(). */
static double dv[16], cv[16];
#define TIMED(bad, w, CALL)                                                   \
    for (unsigned r_ = 0; r_ <= reps; r_++) {                                 \
        double t_ = cuzk_now();                                               \
        (bad) |= (CALL);                                                      \
        if (r_) cv[r_ - 1] = cuzk_now() - t_, dv[r_ - 1] = cuzk_gpu_worker_region_s(w); \
    }

/* one table row: the medians of the last TIMED runs */
static void row(const char *what, unsigned lg)
{
    printf("| %-22s | 2^%-2u | %10.2f | %10.2f |\n", what, lg, median(dv, (int)reps) * 1e3,
           median(cv, (int)reps) * 1e3);
    fflush(stdout);
}

static void circom_rows(cuzk_gpu_device *dev, cuzk_gpu_worker *w)
{
    const unsigned lo = env_u("CUZK_BENCH_CIRCOM_MIN", 10), hi = env_u("CUZK_BENCH_CIRCOM", 14);
    const unsigned threads = env_u("CUZK_BENCH_THREADS", 16);
    if (lo > hi) return;
    printf("\ncircom prove (synthetic zkey, 1 public input; GPU median of %u after a warm-up, CPU %u threads, 1 run)\n",
           reps, threads);
    printf("| domain | gpu prove ms | abc | ntt | msm H | C | A | B1 | B2 | cpu prove ms | equal |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (unsigned lg = lo; lg <= hi; lg++) {
        cuzk_circom_zkey z;
        cuzk_circom_wtns wt;
        synth_circom(&z, &wt, lg, 1, &rng);
        cuzk_fr r, s;
        cuzk_fr_random(&r, &rng), cuzk_fr_random(&s, &rng);
        cuzk_groth16_proof gp, cp;
        cuzk_circom_prove_timing tm, ct;
        double tv[16];
        int bad = 0;
        for (unsigned rep = 0; rep <= reps; rep++) {
            bad |= cuzk_circom_prove_gpu(w, &gp, &z, &wt, &r, &s, &tm);
            if (rep) tv[rep - 1] = tm.total_s;
        }
        if (bad) printf("circom prove error: %s\n", cuzk_gpu_worker_error(w));
        bad |= cuzk_circom_prove_rs(&cp, &z, &wt, &r, &s, CUZK_CIRCOM_CPU, threads, &ct);
        const bool eq = !bad && cuzk_g1_affine_eq(&gp.a, &cp.a) && cuzk_g2_affine_eq(&gp.b, &cp.b) &&
                        cuzk_g1_affine_eq(&gp.c, &cp.c);
        printf("| 2^%u | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %s |\n", lg,
               median(tv, (int)reps) * 1e3, tm.abc_s * 1e3, tm.ntt_s * 1e3, tm.msm_h_s * 1e3, tm.msm_c_s * 1e3,
               tm.msm_a_s * 1e3, tm.msm_b_g1_s * 1e3, tm.msm_b_g2_s * 1e3, ct.total_s * 1e3, eq ? "yes" : "NO");
        fflush(stdout);
        cuzk_gpu_device_release(dev, z.key);
        cuzk_circom_zkey_free(&z);
        cuzk_circom_wtns_free(&wt);
    }
}

/* Products of Miller loops (a SnarkPack aggregation of n proofs runs about
 * 21·n loops): 2^10 .. 2^lmax pairs of distinct points k·G1, m·G2 (the
 * fixed-base kernels), the first size also on one CPU core, the values
 * compared */
static void miller_rows(cuzk_gpu_worker *w, cuzk_fr *k, unsigned lmax)
{
    if (lmax < 10) return;
    const size_t nmax = (size_t)1 << lmax;
    cuzk_g1_affine *P = malloc(nmax * sizeof *P);
    cuzk_g2_affine *Q = malloc(nmax * sizeof *Q);
    scalars(k, nmax, 0);
    int bad = !P || !Q || cuzk_gpu_g1_fixed_base(w, P, &cuzk_g1_generator, k, nmax) ||
              cuzk_gpu_g2_fixed_base(w, Q, &cuzk_g2_generator, k, nmax);
    for (unsigned lg = 10; lg <= lmax && !bad; lg += 2) {
        cuzk_fp12 f, cf;
        TIMED(bad, w, cuzk_gpu_miller_loop(w, &f, P, Q, (size_t)1 << lg));
        row("Miller loops (product)", lg);
        if (lg == 10) {
            const double t0 = cuzk_now();
            cuzk_pairing_miller_loop(&cf, P, Q, (size_t)1 << lg);
            printf("|   the CPU, one core: %.1f ms; %s |\n", (cuzk_now() - t0) * 1e3,
                   cuzk_fp12_eq(&f, &cf) ? "the same value" : "VALUES DIFFER");
        }
    }
    if (bad) printf("Miller loop error: %s\n", cuzk_gpu_worker_error(w));
    free(P), free(Q);
}

int main(void)
{
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) {
        printf("bench_gpu: skipped: no CUDA device\n");
        return 0;
    }
    cuzk_rng_seed(&rng, 12345);
    gpu_hooks_from_env(); /* CUZK_GPU_MSM_C, CUZK_GPU_TRACE, ... (tests/gpu_hooks_env.h) */
    reps = env_u("CUZK_BENCH_REPS", 3);
    unsigned lmin = env_u("CUZK_BENCH_MIN", 20), lg1 = env_u("CUZK_BENCH_G1", 26),
             lg2 = env_u("CUZK_BENCH_G2", 24), lntt = env_u("CUZK_BENCH_NTT", 27),
             lpr = env_u("CUZK_BENCH_PROVE", 24), lpair = env_u("CUZK_BENCH_PAIR", 17);
    char msg[256];
    cuzk_gpu_device *dev;
    cuzk_gpu_worker *w;
    if (cuzk_gpu_device_open(&dev, 0, msg, sizeof msg) || cuzk_gpu_worker_create(&w, dev)) {
        fprintf(stderr, "bench_gpu: %s\n", msg);
        return 1;
    }
    printf("device: %s\n\n", cuzk_gpu_device_describe(dev));
    printf("| %-22s | size | device ms  | call ms    |\n", "operation");
    printf("|------------------------|------|------------|------------|\n");

    cuzk_g1_affine pool1[POOL / 4];
    cuzk_g2_affine pool2[POOL / 4];
    for (int i = 0; i < POOL / 4; i++) {
        cuzk_fr k;
        cuzk_fr_random(&k, &rng);
        cuzk_g1_jac j;
        cuzk_g1_jac_from_affine(&j, &cuzk_g1_generator);
        cuzk_g1_jac_mul_fr(&j, &j, &k);
        cuzk_g1_jac_to_affine(&pool1[i], &j);
        cuzk_g2_jac j2;
        cuzk_g2_jac_from_affine(&j2, &cuzk_g2_generator);
        cuzk_g2_jac_mul_fr(&j2, &j2, &k);
        cuzk_g2_jac_to_affine(&pool2[i], &j2);
    }
    /* k serves every row: as long as the largest of G1, G2, the NTT and the pairs */
    unsigned lmax = lg1 > lntt ? lg1 : lntt;
    if (lg2 > lmax) lmax = lg2;
    if (lpair > lmax) lmax = lpair;
    size_t nmax = (size_t)1 << lmax;
    cuzk_fr *k = malloc(nmax * sizeof *k);
    cuzk_g1_affine *b1 = malloc(((size_t)1 << lg1) * sizeof *b1);
    cuzk_g2_affine *b2 = malloc(((size_t)1 << lg2) * sizeof *b2);
    if (!k || !b1 || !b2) return 1;
    /* distinct bases k_i·G, made on the device */
    scalars(k, (size_t)1 << lg1, 0);
    if (cuzk_gpu_g1_fixed_base(w, b1, &cuzk_g1_generator, k, (size_t)1 << lg1)) {
        fprintf(stderr, "bench_gpu: G1 bases: %s\n", cuzk_gpu_worker_error(w));
        return 1;
    }
    scalars(k, (size_t)1 << lg2, 0);
    if (cuzk_gpu_g2_fixed_base(w, b2, &cuzk_g2_generator, k, (size_t)1 << lg2)) {
        fprintf(stderr, "bench_gpu: G2 bases: %s\n", cuzk_gpu_worker_error(w));
        return 1;
    }

    /* random, bool-heavy */
    for (int boolean = 0; boolean < 2; boolean++) {
        for (unsigned lg = lmin; lg <= lg1; lg += 2) {
            size_t n = (size_t)1 << lg;
            cuzk_rng_seed(&rng, 777 + lg + 100 * boolean); /* the resident rows redo the random rows' scalars */
            scalars(k, n, boolean);
            cuzk_g1_jac o;
            int bad = 0;
            TIMED(bad, w, cuzk_gpu_g1_msm(w, &o, b1, k, n));
            if (bad) printf("G1 MSM error: %s\n", cuzk_gpu_worker_error(w));
            row(boolean ? "G1 MSM bool-heavy" : "G1 MSM random", lg);
        }
    }
    /* As sppark's msm_t is timed: the bases resident on the device, the
     * scalars copied from pinned (registered) host memory on every call; the
     * call column is the figure to set beside sppark's whole call. */
    {
        cuzk_gpu_bases *rb = NULL;
        char pm[200];
        const int pinned = cuzk_gpu_host_register(k, nmax * sizeof *k, pm, sizeof pm) == CUZK_OK;
        if (!pinned) printf("scalars not pinned: %s\n", pm);
        if (cuzk_gpu_g1_bases_upload(w, &rb, b1, (size_t)1 << lg1) != CUZK_OK) {
            printf("resident bases: %s\n", cuzk_gpu_worker_error(w));
        } else {
            for (unsigned lg = lmin; lg <= lg1; lg += 2) {
                size_t n = (size_t)1 << lg;
                cuzk_rng_seed(&rng, 777 + lg); /* the random rows' scalars */
                scalars(k, n, 0);
                cuzk_g1_jac o, plain;
                int bad = cuzk_gpu_g1_msm(w, &plain, b1, k, n);
                TIMED(bad, w, cuzk_gpu_g1_msm_bases(w, &o, rb, k, n));
                if (bad) printf("G1 MSM (resident bases) error: %s\n", cuzk_gpu_worker_error(w));
                else if (!cuzk_g1_jac_eq(&o, &plain)) printf("G1 MSM 2^%u: the resident bases' result differs\n", lg);
                row(pinned ? "G1 MSM random, bases resident, pinned scalars" : "G1 MSM random, bases resident",
                    lg);
            }
            cuzk_gpu_bases_free(rb);
        }
        if (pinned) cuzk_gpu_host_unregister(k);
    }
    /* G2 */
    for (unsigned lg = lmin; lg <= lg2; lg += 2) {
        size_t n = (size_t)1 << lg;
        cuzk_rng_seed(&rng, 999 + lg);
        scalars(k, n, 0);
        cuzk_g2_jac o;
        int bad = 0;
        TIMED(bad, w, cuzk_gpu_g2_msm(w, &o, b2, k, n));
        if (bad) printf("G2 MSM error: %s\n", cuzk_gpu_worker_error(w));
        row("G2 MSM random", lg);
    }
    /* fixed-base multiplications of a test setup: the whole call (scalars up,
     * affine points down, pageable memory) is the kernel region here */
    unsigned lfb = env_u("CUZK_BENCH_FB", 24);
    for (int g2 = 0; g2 < 2; g2++)
        for (unsigned lg = lmin; lg <= (g2 ? (lfb > 22 ? 22 : lfb) : lfb) && lg <= lmax; lg += 2) {
            size_t n = (size_t)1 << lg;
            scalars(k, n, 0);
            void *out = malloc(n * (g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine)));
            int bad = !out;
            if (!bad) TIMED(bad, w, g2 ? cuzk_gpu_g2_fixed_base(w, out, &cuzk_g2_generator, k, n)
                          : cuzk_gpu_g1_fixed_base(w, out, &cuzk_g1_generator, k, n));
            if (bad) printf("fixed-base error: %s\n", cuzk_gpu_worker_error(w));
            free(out);
            row(g2 ? "G2 fixed-base (setup)" : "G1 fixed-base (setup)", lg);
        }
    miller_rows(w, k, lpair);
    for (unsigned lg = lmin; lg <= lntt; lg++) {
        size_t n = (size_t)1 << lg;
        scalars(k, n, 0);
        int bad = 0;
        TIMED(bad, w, cuzk_gpu_ntt(w, k, lg, CUZK_GPU_NTT_OUT_BITREV));
        if (bad) printf("NTT error: %s\n", cuzk_gpu_worker_error(w));
        row("NTT (nat->bitrev)", lg);
        /* the other direction (H's forward transforms), and both with the
         * passes as ptxas likes them, 2 blocks per SM (the hooks' ntt_minb;
         * the default holds them to 3) */
        for (int v = 0; v < 3 && lg >= 24; v++) {
            if (v) GPU_HOOK_SET(ntt_minb, 1);
            const unsigned fl = v == 1 ? CUZK_GPU_NTT_OUT_BITREV : CUZK_GPU_NTT_IN_BITREV;
            TIMED(bad, w, cuzk_gpu_ntt(w, k, lg, fl));
            GPU_HOOK_SET(ntt_minb, 0);
            if (bad) printf("NTT error: %s\n", cuzk_gpu_worker_error(w));
            row(v == 0 ? "NTT (bitrev->nat)" : v == 1 ? "NTT (nat->bitrev), minb 1" : "NTT (bitrev->nat), minb 1", lg);
        }
    }
    free(b1), free(b2);

    /* full prove on random parameters of a circuit's shape: m = 2^lg
     * constraints, 2 inputs, m aux (all in A, half in B), aux bool-heavy */
    for (unsigned lg = lmin; lg <= lpr; lg += 2) {
        size_t m = (size_t)1 << lg, na = m, ni = 2;
        cuzk_groth16_params p;
        memset(&p, 0, sizeof p);
        p.vk.alpha_g1 = p.vk.beta_g1 = p.vk.delta_g1 = pool1[0];
        p.vk.beta_g2 = p.vk.gamma_g2 = p.vk.delta_g2 = pool2[0];
        p.vk.n_ic = ni;
        p.vk.ic = pool1;
        cuzk_density da = {0}, dbi = {0}, dba = {0};
        size_t words = (na + 63) / 64;
        da.bits = calloc(words, 8), dba.bits = calloc(words, 8), dbi.bits = calloc(1, 8);
        da.len = dba.len = na, dbi.len = ni;
        for (size_t j = 0; j < na; j++) {
            da.bits[j / 64] |= 1ull << (j % 64);
            if (j & 1) dba.bits[j / 64] |= 1ull << (j % 64);
        }
        da.total = na, dba.total = na / 2, dbi.bits[0] = 3, dbi.total = 2;
        p.n_h = m - 1, p.n_l = na, p.n_a = ni + na, p.n_b_g1 = p.n_b_g2 = 2 + na / 2;
        p.h = malloc(m * sizeof *p.h), p.l = malloc(na * sizeof *p.l);
        p.a = malloc(p.n_a * sizeof *p.a), p.b_g1 = malloc(p.n_b_g1 * sizeof *p.b_g1);
        p.b_g2 = malloc(p.n_b_g2 * sizeof *p.b_g2);
        for (size_t i = 0; i < m; i++) p.h[i] = pool1[i % (POOL / 4)];
        for (size_t i = 0; i < na; i++) p.l[i] = pool1[(i * 7) % (POOL / 4)];
        for (size_t i = 0; i < p.n_a; i++) p.a[i] = pool1[(i * 13) % (POOL / 4)];
        for (size_t i = 0; i < p.n_b_g1; i++) p.b_g1[i] = pool1[(i * 5) % (POOL / 4)];
        for (size_t i = 0; i < p.n_b_g2; i++) p.b_g2[i] = pool2[i % (POOL / 4)];
        cuzk_fr *abc = malloc(3 * m * sizeof *abc), *aux = malloc(na * sizeof *aux), in[2];
        scalars(abc, 3 * m, 0);
        scalars(aux, na, 1);
        in[0] = cuzk_fr_one, cuzk_fr_random(&in[1], &rng);
        cuzk_groth16_assignment as = {m, ni, na, abc, abc + m, abc + 2 * m, in, aux, &da, &dbi, &dba, NULL, false, NULL, NULL};
        cuzk_fr r, s;
        cuzk_fr_random(&r, &rng), cuzk_fr_random(&s, &rng);
        cuzk_groth16_proof pf;
        cuzk_groth16_prove_timing tm;
        int bad = 0;
        const cuzk_gpu_set set = {cuzk_handle_new(), &p, 0, NULL};
        TIMED(bad, w, cuzk_gpu_prove(w, &pf, &set, &as, &r, &s, 1, &tm));
        if (bad) printf("prove error: %s\n", cuzk_gpu_worker_error(w));
        row("prove (synthetic)", lg);
        printf("|   last: H %.1f, MSM h %.1f l %.1f a %.1f b_g1 %.1f b_g2 %.1f ms |\n", tm.ntt_h_s * 1e3,
               tm.msm_h_s * 1e3, tm.msm_l_s * 1e3, tm.msm_a_s * 1e3, tm.msm_b_g1_s * 1e3,
               tm.msm_b_g2_s * 1e3);
        cuzk_gpu_device_release(dev, set.key);
        free(abc), free(aux), free(da.bits), free(dba.bits), free(dbi.bits);
        free(p.h), free(p.l), free(p.a), free(p.b_g1), free(p.b_g2);
    }
    circom_rows(dev, w);
    /* close frees what the device kept under the sets' handles */
    free(k);
    cuzk_gpu_worker_destroy(w);
    cuzk_gpu_device_close(dev);
    return 0;
}
