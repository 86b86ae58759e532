/*
 * NTT tests. Oracles: naive O(n^2) evaluation (Horner at omega^i or
 * g·omega^i), naive polynomial product and long division by x^n - 1 for the
 * Groth16 H pipeline, and GMP for the roots of unity themselves.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fr.h"
#include "cuzk/poly/ntt.h"
#include "poly/ntt_internal.h"
#include "testutil.h"

#ifdef CUZK_HAVE_GMP
#include <gmp.h>
#endif

static cuzk_rng rng;

static cuzk_fr *vec(size_t n) { return calloc(n ? n : 1, sizeof(cuzk_fr)); }

static void rand_vec(cuzk_fr *x, size_t n)
{
    for (size_t i = 0; i < n; i++) cuzk_fr_random(&x[i], &rng);
}

/* Index of the first difference, or n. */
static size_t first_diff(const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_eq(&a[i], &b[i])) return i;
    return n;
}

/* p(x) = sum c[j] x^j at x. */
static void horner(cuzk_fr *out, const cuzk_fr *c, size_t len, const cuzk_fr *x)
{
    cuzk_fr acc = cuzk_fr_zero;
    for (size_t j = len; j-- > 0;) {
        cuzk_fr_mul(&acc, &acc, x);
        cuzk_fr_add(&acc, &acc, &c[j]);
    }
    *out = acc;
}

/* out[i] = p(shift·w^i) for i < n; out must not alias c. */
static void naive_eval(cuzk_fr *out, const cuzk_fr *c, size_t n, const cuzk_fr *w, const cuzk_fr *shift)
{
    cuzk_fr p = *shift;
    for (size_t i = 0; i < n; i++) {
        horner(&out[i], c, n, &p);
        cuzk_fr_mul(&p, &p, w);
    }
}

static void pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e) { cuzk_fr_pow(r, a, &e, 1); }

/* ---- roots of unity against GMP ------------------------------------------- */

static void test_domain_constants(void)
{
    cuzk_ntt_domain d;
    CHECK(cuzk_ntt_domain_init(&d, CUZK_NTT_MAX_LOG + 1, CUZK_FR_GEN_FILECOIN, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_ntt_domain_init(&d, 4, (cuzk_fr_generator)3, 1) == CUZK_ERR_INVALID_ARG);
    const cuzk_fr_generator gens[2] = {CUZK_FR_GEN_FILECOIN, CUZK_FR_GEN_SNARKJS};
    for (int gi = 0; gi < 2; gi++) {
        for (unsigned k = 0; k <= 16; k += (k < 4 ? 1 : 4)) {
            CHECK(cuzk_ntt_domain_init(&d, k, gens[gi], 2) == CUZK_OK);
            size_t n = d.n;
            cuzk_fr t, m1;
            cuzk_fr_neg(&m1, &cuzk_fr_one);
            pow_u64(&t, &d.omega, n);
            CHECK(cuzk_fr_is_one(&t));
            if (n > 1) {
                pow_u64(&t, &d.omega, n / 2);
                CHECK_MSG(cuzk_fr_eq(&t, &m1), "omega not primitive, k=%u", k);
            }
            cuzk_fr_mul(&t, &d.omega, &d.omega_inv);
            CHECK(cuzk_fr_is_one(&t));
            cuzk_fr_mul(&t, &d.g, &d.g_inv);
            CHECK(cuzk_fr_is_one(&t));
            cuzk_fr nf;
            cuzk_fr_set_u64(&nf, n);
            cuzk_fr_mul(&t, &nf, &d.n_inv);
            CHECK(cuzk_fr_is_one(&t));
            pow_u64(&t, &d.g, n);
            cuzk_fr_sub(&t, &t, &cuzk_fr_one);
            cuzk_fr_mul(&t, &t, &d.z_inv);
            CHECK(cuzk_fr_is_one(&t));
            /* Twiddles are consecutive powers. */
            bool tw_ok = true;
            cuzk_fr w = cuzk_fr_one;
            for (size_t j = 0; j < n / 2; j++) {
                if (!cuzk_fr_eq(&w, &d.tw[j])) tw_ok = false;
                cuzk_fr_mul(&w, &w, &d.omega);
            }
            CHECK_MSG(tw_ok, "twiddle table wrong, k=%u", k);
#ifdef CUZK_HAVE_GMP
            /* omega == gen^((r-1)/2^k) mod r, computed by GMP. */
            mpz_t r, e, b, o;
            mpz_inits(r, e, b, o, NULL);
            mpz_import(r, 4, -1, 8, 0, 0, cuzk_fr_modulus);
            mpz_sub_ui(e, r, 1);
            mpz_fdiv_q_2exp(e, e, k);
            mpz_set_ui(b, (unsigned long)gens[gi]);
            mpz_powm(o, b, e, r);
            uint8_t le[32], ref[32] = {0};
            cuzk_fr_to_le32(le, &d.omega);
            size_t cnt = 0;
            mpz_export(ref, &cnt, -1, 1, 0, 0, o);
            CHECK_MSG(memcmp(le, ref, 32) == 0, "omega != GMP gen^((r-1)/2^k), gen %d k=%u", gens[gi], k);
            cuzk_fr g;
            cuzk_fr_set_u64(&g, (uint64_t)gens[gi]);
            CHECK(cuzk_fr_eq(&g, &d.g));
            mpz_clears(r, e, b, o, NULL);
#endif
            cuzk_ntt_domain_free(&d);
        }
    }
}

/* ---- transforms against naive evaluation --------------------------------- */

static void test_vs_naive(cuzk_fr_generator gen, unsigned max_k)
{
    for (unsigned k = 0; k <= max_k; k++) {
        cuzk_ntt_domain d;
        if (cuzk_ntt_domain_init(&d, k, gen, 1) != CUZK_OK) {
            CHECK(0);
            return;
        }
        size_t n = d.n;
        cuzk_fr *x = vec(n), *y = vec(n), *ref = vec(n);
        rand_vec(x, n);
        unsigned nt = 1 + (k % 3);

        memcpy(y, x, n * sizeof *x);
        cuzk_ntt_forward(&d, y, nt);
        naive_eval(ref, x, n, &d.omega, &cuzk_fr_one);
        size_t i = first_diff(y, ref, n);
        CHECK_MSG(i == n, "forward != naive DFT, gen %d k=%u at %zu", gen, k, i);

        /* inverse: (1/n)·sum x_j w^-ij */
        memcpy(y, x, n * sizeof *x);
        cuzk_ntt_inverse(&d, y, nt);
        naive_eval(ref, x, n, &d.omega_inv, &cuzk_fr_one);
        for (size_t j = 0; j < n; j++) cuzk_fr_mul(&ref[j], &ref[j], &d.n_inv);
        i = first_diff(y, ref, n);
        CHECK_MSG(i == n, "inverse != naive, gen %d k=%u at %zu", gen, k, i);

        /* coset forward: evaluations at g·w^i */
        memcpy(y, x, n * sizeof *x);
        cuzk_ntt_coset_forward(&d, y, nt);
        naive_eval(ref, x, n, &d.omega, &d.g);
        i = first_diff(y, ref, n);
        CHECK_MSG(i == n, "coset forward != naive evaluation at g·w^i, gen %d k=%u at %zu", gen, k, i);

        /* coset inverse of those evaluations gives x back */
        cuzk_ntt_coset_inverse(&d, y, nt);
        i = first_diff(y, x, n);
        CHECK_MSG(i == n, "coset inverse(coset forward) != x, gen %d k=%u at %zu", gen, k, i);

        /* divide by Z on the coset: y[i]·((g w^i)^n - 1) == x[i] */
        memcpy(y, x, n * sizeof *x);
        cuzk_ntt_divide_by_z_on_coset(&d, y, nt);
        bool zok = true;
        cuzk_fr p = d.g;
        for (size_t j = 0; j < n; j++) {
            cuzk_fr z, t;
            pow_u64(&z, &p, n);
            cuzk_fr_sub(&z, &z, &cuzk_fr_one);
            cuzk_fr_mul(&t, &y[j], &z);
            if (!cuzk_fr_eq(&t, &x[j])) zok = false;
            cuzk_fr_mul(&p, &p, &d.omega);
        }
        CHECK_MSG(zok, "divide_by_z_on_coset wrong, k=%u", k);

        free(x);
        free(y);
        free(ref);
        cuzk_ntt_domain_free(&d);
    }
}

static void test_roundtrip(unsigned max_k)
{
    for (unsigned k = 0; k <= max_k; k++) {
        cuzk_ntt_domain d;
        CHECK(cuzk_ntt_domain_init(&d, k, CUZK_FR_GEN_FILECOIN, 2) == CUZK_OK);
        size_t n = d.n;
        cuzk_fr *x = vec(n), *y = vec(n);
        rand_vec(x, n);
        unsigned nt = 1 + (k % 3);
        memcpy(y, x, n * sizeof *x);
        cuzk_ntt_forward(&d, y, nt);
        CHECK_MSG(n < 4 || first_diff(x, y, n) == 0, "forward left x unchanged, k=%u", k);
        cuzk_ntt_inverse(&d, y, nt);
        CHECK_MSG(first_diff(x, y, n) == n, "inverse(forward(x)) != x, k=%u", k);
        cuzk_ntt_inverse(&d, y, nt);
        cuzk_ntt_forward(&d, y, nt);
        CHECK_MSG(first_diff(x, y, n) == n, "forward(inverse(x)) != x, k=%u", k);
        cuzk_ntt_coset_forward(&d, y, nt);
        cuzk_ntt_coset_inverse(&d, y, nt);
        CHECK_MSG(first_diff(x, y, n) == n, "coset round trip != x, k=%u", k);
        free(x);
        free(y);
        cuzk_ntt_domain_free(&d);
    }
}

/* NTT(alpha·x + y) == alpha·NTT(x) + NTT(y), for forward and coset forward. */
static void test_linearity(unsigned k)
{
    cuzk_ntt_domain d;
    CHECK(cuzk_ntt_domain_init(&d, k, CUZK_FR_GEN_FILECOIN, 2) == CUZK_OK);
    size_t n = d.n;
    cuzk_fr *x = vec(n), *y = vec(n), *z = vec(n), alpha;
    for (int coset = 0; coset < 2; coset++) {
        rand_vec(x, n);
        rand_vec(y, n);
        cuzk_fr_random(&alpha, &rng);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr_mul(&z[i], &x[i], &alpha);
            cuzk_fr_add(&z[i], &z[i], &y[i]);
        }
        void (*f)(const cuzk_ntt_domain *, cuzk_fr *, unsigned) = coset ? cuzk_ntt_coset_forward : cuzk_ntt_forward;
        f(&d, x, 2);
        f(&d, y, 1);
        f(&d, z, 3);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr_mul(&x[i], &x[i], &alpha);
            cuzk_fr_add(&x[i], &x[i], &y[i]);
        }
        CHECK_MSG(first_diff(x, z, n) == n, "linearity fails (coset=%d)", coset);
    }
    free(x);
    free(y);
    free(z);
    cuzk_ntt_domain_free(&d);
}

/* Same bits for nthreads 1, 2, 3 (and 4): every transform and the H pipeline. */
static void test_threads(unsigned k)
{
    cuzk_ntt_domain d;
    CHECK(cuzk_ntt_domain_init(&d, k, CUZK_FR_GEN_FILECOIN, 3) == CUZK_OK);
    size_t n = d.n;
    cuzk_fr *x = vec(n), *r[4], *b = vec(n), *c = vec(n), *bb = vec(n), *cc = vec(n);
    for (int t = 0; t < 4; t++) r[t] = vec(n);
    void (*fs[4])(const cuzk_ntt_domain *, cuzk_fr *, unsigned) = {
        cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
    for (int f = 0; f < 5; f++) {
        rand_vec(x, n);
        rand_vec(b, n);
        rand_vec(c, n);
        for (unsigned t = 0; t < 4; t++) {
            memcpy(r[t], x, n * sizeof *x);
            if (f < 4) {
                fs[f](&d, r[t], t + 1);
            } else {
                memcpy(bb, b, n * sizeof *b);
                memcpy(cc, c, n * sizeof *c);
                cuzk_ntt_groth16_h(&d, r[t], bb, cc, t + 1);
            }
        }
        for (int t = 1; t < 4; t++)
            CHECK_MSG(first_diff(r[0], r[t], n) == n, "k=%u op %d: nthreads %d differs from 1", k, f, t + 1);
    }
    /* A domain built with 3 threads has the same table as one built with 1. */
    cuzk_ntt_domain d1;
    CHECK(cuzk_ntt_domain_init(&d1, k, CUZK_FR_GEN_FILECOIN, 1) == CUZK_OK);
    CHECK(first_diff(d.tw, d1.tw, n / 2) == n / 2);
    cuzk_ntt_domain_free(&d1);
    for (int t = 0; t < 4; t++) free(r[t]);
    free(x);
    free(b);
    free(c);
    free(bb);
    free(cc);
    cuzk_ntt_domain_free(&d);
}

/* Generators 5 and 7 give different domains; both round-trip. */
static void test_generators(unsigned k)
{
    cuzk_ntt_domain d7, d5;
    CHECK(cuzk_ntt_domain_init(&d7, k, CUZK_FR_GEN_FILECOIN, 1) == CUZK_OK);
    CHECK(cuzk_ntt_domain_init(&d5, k, CUZK_FR_GEN_SNARKJS, 1) == CUZK_OK);
    CHECK(!cuzk_fr_eq(&d7.omega, &d5.omega));
    CHECK(!cuzk_fr_eq(&d7.g, &d5.g));
    size_t n = d7.n;
    cuzk_fr *x = vec(n), *y7 = vec(n), *y5 = vec(n);
    rand_vec(x, n);
    memcpy(y7, x, n * sizeof *x);
    memcpy(y5, x, n * sizeof *x);
    cuzk_ntt_forward(&d7, y7, 2);
    cuzk_ntt_forward(&d5, y5, 2);
    CHECK(first_diff(y7, y5, n) < n);
    cuzk_ntt_inverse(&d7, y7, 2);
    cuzk_ntt_inverse(&d5, y5, 2);
    CHECK(first_diff(y7, x, n) == n);
    CHECK(first_diff(y5, x, n) == n);
    /* Mixing domains must not round-trip: the test can tell them apart. */
    cuzk_ntt_forward(&d7, y7, 1);
    cuzk_ntt_inverse(&d5, y7, 1);
    CHECK(first_diff(y7, x, n) < n);
    cuzk_ntt_coset_forward(&d5, y5, 2);
    cuzk_ntt_coset_inverse(&d5, y5, 2);
    CHECK(first_diff(y5, x, n) == n);
    free(x);
    free(y7);
    free(y5);
    cuzk_ntt_domain_free(&d7);
    cuzk_ntt_domain_free(&d5);
}

/* ---- Groth16 H against naive polynomial arithmetic ---------------------- */

/*
 * a, b random evaluations on the domain, c = a·b (satisfied) or c with one
 * entry changed. Naively: A, B, C = interpolations (naive inverse DFT),
 * P = A·B - C (degree <= 2n-2), P = Q·(x^n - 1) + R by long division.
 * Satisfied: R = 0 and h == Q (n-1 coefficients, h[n-1] == 0).
 * Tampered: R != 0; the pipeline evaluates P/Z on the coset, where Z is the
 * constant g^n - 1, so it returns exactly Q + R·z_inv (and differs from Q).
 */
static void test_h(cuzk_fr_generator gen, unsigned k, bool tamper)
{
    cuzk_ntt_domain d;
    CHECK(cuzk_ntt_domain_init(&d, k, gen, 1) == CUZK_OK);
    size_t n = d.n;
    cuzk_fr *a = vec(n), *b = vec(n), *c = vec(n), *A = vec(n), *B = vec(n), *C = vec(n);
    cuzk_fr *P = vec(2 * n), *Q = vec(n);
    rand_vec(a, n);
    rand_vec(b, n);
    for (size_t i = 0; i < n; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
    if (tamper) {
        size_t i = (size_t)(cuzk_rng_u64(&rng) % n);
        cuzk_fr_add(&c[i], &c[i], &cuzk_fr_one);
    }
    naive_eval(A, a, n, &d.omega_inv, &cuzk_fr_one);
    naive_eval(B, b, n, &d.omega_inv, &cuzk_fr_one);
    naive_eval(C, c, n, &d.omega_inv, &cuzk_fr_one);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_mul(&A[i], &A[i], &d.n_inv);
        cuzk_fr_mul(&B[i], &B[i], &d.n_inv);
        cuzk_fr_mul(&C[i], &C[i], &d.n_inv);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &A[i], &B[j]);
            cuzk_fr_add(&P[i + j], &P[i + j], &t);
        }
    for (size_t i = 0; i < n; i++) cuzk_fr_sub(&P[i], &P[i], &C[i]);
    /* long division by x^n - 1: x^m = x^(m-n)·(x^n - 1) + x^(m-n) */
    for (size_t m = 2 * n - 1; m-- > n;) {
        Q[m - n] = P[m];
        cuzk_fr_add(&P[m - n], &P[m - n], &P[m]);
        P[m] = cuzk_fr_zero;
    }
    bool rem_zero = true;
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_is_zero(&P[i])) rem_zero = false;
    CHECK_MSG(rem_zero == !tamper, "naive remainder %s zero (tamper=%d, k=%u)", rem_zero ? "is" : "is not",
              tamper, k);

    size_t nh = cuzk_ntt_groth16_h(&d, a, b, c, 1 + (k % 2));
    CHECK(nh == n - 1);
    if (!tamper) {
        CHECK_MSG(first_diff(a, Q, nh) == nh, "h != (AB - C)/Z, gen %d k=%u", gen, k);
        CHECK_MSG(cuzk_fr_is_zero(&a[n - 1]), "h[n-1] != 0, k=%u", k);
    } else {
        for (size_t i = 0; i < n; i++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &P[i], &d.z_inv);
            cuzk_fr_add(&Q[i], &Q[i], &t);
        }
        CHECK_MSG(first_diff(a, Q, n) == n, "tampered h != Q + R/Z(coset), gen %d k=%u", gen, k);
    }
    free(a);
    free(b);
    free(c);
    free(A);
    free(B);
    free(C);
    free(P);
    free(Q);
    cuzk_ntt_domain_free(&d);
}

/*
 * Radix-4 against the radix-2 reference network: the same bits for every
 * size (odd and even log n, below and above the cache block, where the
 * full passes and the compact block twiddles take over), both directions,
 * 1..3 threads; and, at the larger sizes, random positions against a naive
 * O(n) evaluation.
 */
static void test_vs_radix2(unsigned max_k)
{
    for (unsigned k = 0; k <= max_k; k++) {
        cuzk_ntt_domain d;
        CHECK(cuzk_ntt_domain_init(&d, k, CUZK_FR_GEN_FILECOIN, 2) == CUZK_OK);
        size_t n = d.n;
        cuzk_fr *x = vec(n), *r2 = vec(n), *r4 = vec(n);
        for (int inv = 0; inv < 2; inv++) {
            rand_vec(x, n);
            memcpy(r2, x, n * sizeof *x);
            cuzk_ntt_radix2_ref(&d, r2, inv, 1 + (unsigned)(cuzk_rng_u64(&rng) % 3));
            for (unsigned t = 1; t <= 3; t++) {
                if (k > 14 && t == 2) continue; /* keep the big sizes quick */
                memcpy(r4, x, n * sizeof *x);
                (inv ? cuzk_ntt_inverse : cuzk_ntt_forward)(&d, r4, t);
                size_t at = first_diff(r2, r4, n);
                CHECK_MSG(at == n, "k=%u %s threads=%u: radix-4 differs from radix-2 at %zu", k,
                          inv ? "inverse" : "forward", t, at);
            }
            /* naive spot checks on the forward transform */
            if (!inv && k >= 12) {
                cuzk_fr w = d.omega;
                for (int s = 0; s < 4; s++) {
                    size_t i = (size_t)(cuzk_rng_u64(&rng) % n);
                    cuzk_fr wi, want;
                    pow_u64(&wi, &w, i);
                    horner(&want, x, n, &wi);
                    CHECK_MSG(cuzk_fr_eq(&want, &r4[i]), "k=%u forward[%zu] vs Horner", k, i);
                }
            }
        }
        free(x), free(r2), free(r4);
        cuzk_ntt_domain_free(&d);
    }
}

int main(void)
{
    tu_init(&rng, "test_ntt");
    test_domain_constants();
    test_vs_naive(CUZK_FR_GEN_FILECOIN, 10);
    test_vs_naive(CUZK_FR_GEN_SNARKJS, 8);
    test_vs_radix2(17);
    test_roundtrip(16);
    test_linearity(13);
    test_threads(16);
    test_threads(13);
    test_threads(9);
    test_generators(10);
    for (unsigned k = 0; k <= 7; k++) {
        test_h(CUZK_FR_GEN_FILECOIN, k, false);
        test_h(CUZK_FR_GEN_SNARKJS, k, false);
        test_h(CUZK_FR_GEN_FILECOIN, k, true);
        test_h(CUZK_FR_GEN_SNARKJS, k, true);
    }
    return tu_finish("test_ntt");
}
