/* GPU NTT and MSM against the CPU implementations (independent code paths:
 * radix-2 blocked NTT and pthread Pippenger on the CPU), on fresh random
 * inputs: every NTT flag combination for sizes 2^0..2^14 (bit-identical
 * limbs), Groth16's H (bit-identical), G1/G2 MSMs for many sizes including
 * non-powers of two, all-zero, all-one, boolean-heavy and small scalars,
 * repeated bases and points at infinity. Without a CUDA device: prints
 * "SKIPPED: no CUDA device" (CTest: Skipped). CUZK_GPU_BIG=1 adds larger sizes. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/msm/msm.h"
#include "cuzk/poly/ntt.h"
#include "gpu_hooks_env.h"
#include "testutil.h"

static cuzk_rng rng;

static void bitrev_perm(cuzk_fr *x, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        for (unsigned b = 0; b < log_n; b++) j |= ((i >> b) & 1) << (log_n - 1 - b);
        if (i < j) {
            cuzk_fr t = x[i];
            x[i] = x[j], x[j] = t;
        }
    }
}

static void test_ntt_range(cuzk_gpu_worker *w, unsigned min_log, unsigned max_log)
{
    for (unsigned log_n = min_log; log_n <= max_log; log_n++) {
        size_t n = (size_t)1 << log_n;
        cuzk_ntt_domain d;
        CHECK(cuzk_ntt_domain_init(&d, log_n, CUZK_FR_GEN_FILECOIN, 2) == CUZK_OK);
        cuzk_fr *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
        for (unsigned flags = 0; flags < 16; flags++) {
            for (size_t i = 0; i < n; i++) cuzk_fr_random(&x[i], &rng);
            memcpy(ref, x, n * sizeof *x);
            /* reference: natural in, natural out */
            if (flags & CUZK_GPU_NTT_IN_BITREV) bitrev_perm(ref, log_n);
            bool inv = flags & CUZK_GPU_NTT_INVERSE, coset = flags & CUZK_GPU_NTT_COSET;
            if (!inv && !coset) cuzk_ntt_forward(&d, ref, 2);
            if (inv && !coset) cuzk_ntt_inverse(&d, ref, 2);
            if (!inv && coset) cuzk_ntt_coset_forward(&d, ref, 2);
            if (inv && coset) cuzk_ntt_coset_inverse(&d, ref, 2);
            if (flags & CUZK_GPU_NTT_OUT_BITREV) bitrev_perm(ref, log_n);
            int rc = cuzk_gpu_ntt(w, x, log_n, flags);
            CHECK_MSG(rc == CUZK_OK, "ntt rc %d: %s", rc, cuzk_gpu_worker_error(w));
            CHECK_MSG(memcmp(x, ref, n * sizeof *x) == 0, "ntt log_n %u flags %u differs", log_n, flags);
        }
        /* Groth16 H: random a, b, c (not a satisfied system: H is still a
         * well-defined function of them), the first m rows nonzero */
        cuzk_fr *a = malloc(3 * n * sizeof *a), *a2 = malloc(3 * n * sizeof *a);
        size_t m = n - (n > 1 ? cuzk_rng_u64(&rng) % (n / 2) : 0);
        for (size_t i = 0; i < 3 * n; i++) {
            if (i % n < m) cuzk_fr_random(&a[i], &rng);
            else a[i] = cuzk_fr_zero;
        }
        memcpy(a2, a, 3 * n * sizeof *a);
        size_t nh = cuzk_ntt_groth16_h(&d, a, a + n, a + 2 * n, 2);
        CHECK(nh == n - 1);
        int rc = cuzk_gpu_groth16_h(w, a2, a2 + n, a2 + 2 * n, log_n);
        CHECK_MSG(rc == CUZK_OK, "H rc %d: %s", rc, cuzk_gpu_worker_error(w));
        CHECK_MSG(memcmp(a, a2, n * sizeof *a) == 0, "groth16 H log_n %u differs", log_n);
        free(a), free(a2), free(x), free(ref);
        cuzk_ntt_domain_free(&d);
    }
}

static void test_ntt(cuzk_gpu_worker *w, unsigned max_log)
{
    test_ntt_range(w, 0, max_log);
    /* a wrong transform must be caught by the comparison: forward vs inverse */
    cuzk_ntt_domain d;
    cuzk_ntt_domain_init(&d, 6, CUZK_FR_GEN_FILECOIN, 1);
    cuzk_fr x[64], y[64];
    for (int i = 0; i < 64; i++) cuzk_fr_random(&x[i], &rng);
    memcpy(y, x, sizeof x);
    cuzk_ntt_forward(&d, x, 1);
    cuzk_gpu_ntt(w, y, 6, CUZK_GPU_NTT_INVERSE);
    CHECK(memcmp(x, y, sizeof x) != 0);
    cuzk_ntt_domain_free(&d);
}

enum { SC_RANDOM, SC_ZERO, SC_ONE, SC_BOOL, SC_SMALL, SC_MIXED, SC_KINDS };
static const char *sc_name[] = {"random", "zero", "one", "bool-heavy", "small", "mixed"};

static void gen_scalars(cuzk_fr *k, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u = cuzk_rng_u64(&rng);
        switch (kind) {
        case SC_RANDOM: cuzk_fr_random(&k[i], &rng); break;
        case SC_ZERO: cuzk_fr_set_u64(&k[i], 0); break;
        case SC_ONE: cuzk_fr_set_u64(&k[i], 1); break;
        case SC_BOOL: /* Filecoin witnesses: mostly bits, a few field elements */
            if (u % 16 == 0) cuzk_fr_random(&k[i], &rng);
            else cuzk_fr_set_u64(&k[i], (u >> 8) & 1);
            break;
        case SC_SMALL: cuzk_fr_set_u64(&k[i], (u >> 8) % 5); break; /* skewed buckets */
        default: /* r - 1, r - 2, 2^k: the top digits and sign handling */
            if (u % 4 == 0) {
                cuzk_fr_set_u64(&k[i], 1 + (u >> 8) % 3);
                cuzk_fr_neg(&k[i], &k[i]);
            } else if (u % 4 == 1) {
                uint64_t e[4] = {0};
                unsigned b = (u >> 8) % 255;
                e[b / 64] = 1ull << (b % 64);
                cuzk_fr_from_limbs(&k[i], e);
            } else {
                cuzk_fr_random(&k[i], &rng);
            }
        }
    }
}

static cuzk_gpu_device *test_dev; /* the device of main's worker */

static void test_msm(cuzk_gpu_worker *w, bool big)
{
    static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 100, 255, 1000, 1024, 4097, 20000};
    /* a pool of random points; bases are drawn from it (repeats included) */
    const size_t pool = 512;
    cuzk_g1_affine *p1 = malloc(pool * sizeof *p1);
    cuzk_g2_affine *p2 = malloc(pool * sizeof *p2);
    for (size_t i = 0; i < pool; i++) {
        cuzk_fr k;
        cuzk_fr_random(&k, &rng);
        tu_g1_mul_gen(&p1[i], &k);
        tu_g2_mul_gen(&p2[i], &k);
    }
    size_t nmax = big ? (1u << 18) + 3 : 20000;
    cuzk_g1_affine *b1 = malloc(nmax * sizeof *b1);
    cuzk_g2_affine *b2 = malloc(nmax * sizeof *b2);
    cuzk_fr *k = malloc(nmax * sizeof *k);
    size_t nsz = sizeof sizes / sizeof *sizes;
    for (size_t si = 0; si <= nsz; si++) {
        size_t n = si < nsz ? sizes[si] : nmax;
        if (si == nsz && !big) break;
        for (int kind = 0; kind < SC_KINDS; kind++) {
            for (size_t i = 0; i < n; i++) {
                uint64_t u = cuzk_rng_u64(&rng);
                b1[i] = p1[u % pool], b2[i] = p2[u % pool];
                if (u % 13 == 0) memset(&b1[i], 0, sizeof b1[i]); /* infinity */
                if (u % 11 == 0) memset(&b2[i], 0, sizeof b2[i]);
            }
            gen_scalars(k, n, kind);
            cuzk_g1_jac r1, g1;
            cuzk_g2_jac r2, g2;
            CHECK(cuzk_g1_msm(&r1, b1, k, n, 2) == CUZK_OK);
            int rc = cuzk_gpu_g1_msm(w, &g1, b1, k, n);
            CHECK_MSG(rc == CUZK_OK, "g1 msm rc %d: %s", rc, cuzk_gpu_worker_error(w));
            CHECK_MSG(cuzk_g1_jac_eq(&r1, &g1), "G1 MSM n=%zu %s differs", n, sc_name[kind]);
            /* G2 on the smaller sizes (the CPU reference dominates the time) */
            if (n <= 4097 || kind == SC_RANDOM) {
                CHECK(cuzk_g2_msm(&r2, b2, k, n, 2) == CUZK_OK);
                rc = cuzk_gpu_g2_msm(w, &g2, b2, k, n);
                CHECK_MSG(rc == CUZK_OK, "g2 msm rc %d: %s", rc, cuzk_gpu_worker_error(w));
                CHECK_MSG(cuzk_g2_jac_eq(&r2, &g2), "G2 MSM n=%zu %s differs", n, sc_name[kind]);
            }
        }
    }
    /* resident bases (uploaded once): the same sums over prefixes of them,
     * two workers of the device sharing them, a changed scalar seen */
    {
        const size_t n = nmax < 4097 ? nmax : 4097;
        for (size_t i = 0; i < n; i++) {
            uint64_t u = cuzk_rng_u64(&rng);
            b1[i] = p1[u % pool], b2[i] = p2[u % pool];
        }
        cuzk_gpu_bases *rb1 = NULL, *rb2 = NULL;
        CHECK(cuzk_gpu_g1_bases_upload(w, &rb1, b1, n) == CUZK_OK && rb1);
        CHECK(cuzk_gpu_g2_bases_upload(w, &rb2, b2, n) == CUZK_OK && rb2);
        cuzk_gpu_worker *w2 = NULL;
        CHECK(cuzk_gpu_worker_create(&w2, test_dev) == CUZK_OK);
        const size_t prefix[] = {0, 1, 100, n - 1, n};
        for (size_t pi = 0; rb1 && rb2 && w2 && pi < sizeof prefix / sizeof *prefix; pi++) {
            const size_t m = prefix[pi];
            gen_scalars(k, m, (int)(pi % SC_KINDS));
            cuzk_g1_jac r1, g1;
            cuzk_g2_jac r2, g2;
            CHECK(cuzk_g1_msm(&r1, b1, k, m, 2) == CUZK_OK);
            int rc = cuzk_gpu_g1_msm_bases(pi & 1 ? w2 : w, &g1, rb1, k, m);
            CHECK_MSG(rc == CUZK_OK && cuzk_g1_jac_eq(&r1, &g1), "resident G1 MSM n=%zu (rc %d)", m, rc);
            CHECK(cuzk_g2_msm(&r2, b2, k, m, 2) == CUZK_OK);
            rc = cuzk_gpu_g2_msm_bases(pi & 1 ? w : w2, &g2, rb2, k, m);
            CHECK_MSG(rc == CUZK_OK && cuzk_g2_jac_eq(&r2, &g2), "resident G2 MSM n=%zu (rc %d)", m, rc);
            if (m) {
                cuzk_fr_add(&k[m / 2], &k[m / 2], &cuzk_fr_one);
                CHECK(cuzk_gpu_g1_msm_bases(w, &g1, rb1, k, m) == CUZK_OK && !cuzk_g1_jac_eq(&r1, &g1));
            }
        }
        /* refused: more scalars than bases, the other group's bases */
        cuzk_g1_jac g1;
        cuzk_g2_jac g2;
        CHECK(cuzk_gpu_g1_msm_bases(w, &g1, rb1, k, n + 1) == CUZK_ERR_INVALID_ARG);
        CHECK(strstr(cuzk_gpu_worker_error(w), "more scalars") != NULL);
        CHECK(cuzk_gpu_g2_msm_bases(w, &g2, rb1, k, 1) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_gpu_g1_msm_bases(w, &g1, NULL, k, 1) == CUZK_ERR_INVALID_ARG);
        cuzk_gpu_worker_destroy(w2);
        cuzk_gpu_bases_free(rb1);
        cuzk_gpu_bases_free(rb2);
    }
    /* random scalars need the window batches' keys: without room for them
     * (injected, on every retry), out of memory, said */
    {
        const size_t n = nmax < 5000 ? nmax : 5000;
        gen_scalars(k, n, SC_RANDOM);
        for (size_t i = 0; i < n; i++) b1[i] = p1[cuzk_rng_u64(&rng) % pool];
        cuzk_g1_jac g1;
        GPU_HOOK_SET_STR(fail_alloc, "msm keys");
        int rc = cuzk_gpu_g1_msm(w, &g1, b1, k, n);
        GPU_HOOK_SET_STR(fail_alloc, "");
        CHECK_MSG(rc == CUZK_ERR_NO_MEMORY && strstr(cuzk_gpu_worker_error(w), "msm keys"), "rc %d (%s)", rc,
                  cuzk_gpu_worker_error(w));
    }
    /* a changed scalar must change the result */
    gen_scalars(k, 100, SC_RANDOM);
    for (size_t i = 0; i < 100; i++) b1[i] = p1[i];
    cuzk_g1_jac r1, g1;
    cuzk_g1_msm(&r1, b1, k, 100, 1);
    cuzk_fr_add(&k[57], &k[57], &cuzk_fr_one);
    cuzk_gpu_g1_msm(w, &g1, b1, k, 100);
    CHECK(!cuzk_g1_jac_eq(&r1, &g1));
    free(p1), free(p2), free(b1), free(b2), free(k);
}

static void test_errors(cuzk_gpu_device *dev, cuzk_gpu_worker *w)
{
    char msg[256] = "";
    cuzk_gpu_device *d2 = NULL;
    CHECK(cuzk_gpu_device_open(&d2, 4096, msg, sizeof msg) == CUZK_ERR_NO_DEVICE && !d2);
    CHECK(strstr(msg, "4096") != NULL);
    cuzk_fr x[2];
    CHECK(cuzk_gpu_ntt(w, x, CUZK_NTT_MAX_LOG + 1, 0) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_gpu_ntt(NULL, x, 1, 0) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_gpu_g1_msm(w, NULL, NULL, NULL, 0) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_gpu_g1_msm(w, NULL, NULL, NULL, (size_t)1 << 31) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_gpu_worker_create(NULL, dev) == CUZK_ERR_INVALID_ARG);
}

int main(void)
{
    tu_init(&rng, "test_gpu_kernels");
    gpu_hooks_from_env();
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) {
        return tu_skip("test_gpu_kernels", "no CUDA device");
    }
    char msg[256];
    cuzk_gpu_device *dev;
    cuzk_gpu_worker *w;
    int rc = cuzk_gpu_device_open(&dev, 0, msg, sizeof msg);
    CHECK_MSG(rc == CUZK_OK, "open: %s", msg);
    if (rc) return tu_finish("test_gpu_kernels");
    printf("device: %s\n", cuzk_gpu_device_describe(dev));
    test_dev = dev;
    CHECK(cuzk_gpu_worker_create(&w, dev) == CUZK_OK);
    const char *big = getenv("CUZK_GPU_BIG");
    bool b = big && *big == '1';
    const char *only = getenv("CUZK_GPU_ONLY");
    if (!only || strcmp(only, "msm")) {
        test_ntt(w, b ? 20 : 14);
        /* the passes as ptxas likes them, 2 blocks per SM (the default
         * holds them to 3: another register allocation) */
        GPU_HOOK_SET(ntt_minb, 1);
        test_ntt(w, 12);
        /* and at the sizes whose passes use the full tile (9 levels, 4
         * columns, as at 2^27), both register allocations */
        test_ntt_range(w, 17, 18);
        GPU_HOOK_SET(ntt_minb, 0);
        test_ntt_range(w, 17, 18);
        /* the tables' growth failing half way (the inverse table's allocation
         * out of memory): refused, and the next smaller transforms rebuild
         * their tables instead of reading the half-made ones */
        {
            const unsigned lg = (b ? 20 : 18) + 1; /* above every table built so far: a growth */
            cuzk_fr *x = calloc((size_t)1 << lg, sizeof *x);
            GPU_HOOK_SET_STR(fail_alloc, "inverse twiddles");
            rc = x ? cuzk_gpu_ntt(w, x, lg, CUZK_GPU_NTT_INVERSE) : CUZK_ERR_NO_MEMORY;
            GPU_HOOK_SET_STR(fail_alloc, "");
            CHECK_MSG(rc == CUZK_ERR_NO_MEMORY && strstr(cuzk_gpu_worker_error(w), "inverse twiddles"),
                      "injected table failure: rc %d (%s)", rc, cuzk_gpu_worker_error(w));
            free(x);
            test_ntt(w, 10);
        }
    }
    if (!only || strcmp(only, "ntt")) {
        test_msm(w, b);
        /* narrow windows: long runs of one bucket across many accumulation
         * chunks and several partial levels (this found a real bug) */
        GPU_HOOK_SET(msm_c, 2);
        test_msm(w, false);
        /* many window batches (a batch of 4,096 sorted entries: one window
         * or less each): the sort's two buffers taking turns across batches */
        GPU_HOOK_SET(msm_batch, 4096);
        test_msm(w, false);
        GPU_HOOK_SET(msm_batch, 0);
        /* a card with no room to spare (the hooks' msm_free, a stand-in for the
         * driver's free figure): each batch narrowed to one window before
         * anything is allocated; at C = 2, 128 windows in 128 batches */
        GPU_HOOK_SET(msm_free, 1);
        test_msm(w, false);
        GPU_HOOK_SET(msm_free, 0);
        GPU_HOOK_SET(msm_c, 0);
    }
    test_errors(dev, w);
    cuzk_gpu_worker_destroy(w);
    cuzk_gpu_device_close(dev);
    return tu_finish("test_gpu_kernels");
}
