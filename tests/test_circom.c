/*
 * circom layer, parts that need no snarkjs (tests/circom.test.sh has the
 * interop): snarkjs's H (cuzk_ntt_groth16_h_odd) against a naive
 * interpolation and evaluation at the odd points of the doubled domain, and
 * JSON write -> read round trips of proofs, public signals and verification
 * keys on random values (with the edge values 0, 1, r - 1).
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"
#include "cuzk/poly/ntt.h"
#include "testutil.h"

static cuzk_rng rng;

/* coefficients of the polynomial through (omega^j, v[j]): O(n^2) */
static void naive_interpolate(cuzk_fr *coef, const cuzk_fr *v, size_t n, const cuzk_fr *omega)
{
    cuzk_fr om_inv, n_inv, nf;
    cuzk_fr_inv(&om_inv, omega);
    cuzk_fr_set_u64(&nf, n);
    cuzk_fr_inv(&n_inv, &nf);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr acc = cuzk_fr_zero, step, x = cuzk_fr_one;
        uint64_t e = i;
        cuzk_fr_pow(&step, &om_inv, &e, 1);
        for (size_t j = 0; j < n; j++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &v[j], &x);
            cuzk_fr_add(&acc, &acc, &t);
            cuzk_fr_mul(&x, &x, &step);
        }
        cuzk_fr_mul(&coef[i], &acc, &n_inv);
    }
}

static void horner(cuzk_fr *out, const cuzk_fr *coef, size_t n, const cuzk_fr *x)
{
    cuzk_fr acc = cuzk_fr_zero;
    for (size_t i = n; i-- > 0;) {
        cuzk_fr_mul(&acc, &acc, x);
        cuzk_fr_add(&acc, &acc, &coef[i]);
    }
    *out = acc;
}

static void test_h_odd(void)
{
    for (unsigned log_n = 1; log_n <= 6; log_n++) {
        const size_t n = (size_t)1 << log_n;
        cuzk_ntt_domain d;
        CHECK(cuzk_ntt_domain_init(&d, log_n, CUZK_FR_GEN_SNARKJS, 2) == CUZK_OK);
        cuzk_fr *v = malloc(6 * n * sizeof *v), *a = v + 3 * n, *b = a + n, *c = b + n;
        for (size_t i = 0; i < 3 * n; i++) cuzk_fr_random(&v[i], &rng);
        memcpy(a, v, 3 * n * sizeof *v);
        cuzk_ntt_groth16_h_odd(&d, a, b, c, 1 + (unsigned)(cuzk_rng_u64(&rng) % 3));

        /* w: w^2 = omega, w^n = -1 */
        cuzk_fr w, t, minus_one;
        CHECK(cuzk_fr_root_of_unity(&w, log_n + 1, CUZK_FR_GEN_SNARKJS) == CUZK_OK);
        cuzk_fr_sqr(&t, &w);
        CHECK(cuzk_fr_eq(&t, &d.omega));
        uint64_t e = n;
        cuzk_fr_pow(&t, &w, &e, 1);
        cuzk_fr_neg(&minus_one, &cuzk_fr_one);
        CHECK(cuzk_fr_eq(&t, &minus_one));

        cuzk_fr *ca = malloc(3 * n * sizeof *ca), *cb = ca + n, *cc = cb + n;
        naive_interpolate(ca, v, n, &d.omega);
        naive_interpolate(cb, v + n, n, &d.omega);
        naive_interpolate(cc, v + 2 * n, n, &d.omega);
        size_t bad = 0;
        cuzk_fr x = w;
        for (size_t i = 0; i < n; i++) {
            cuzk_fr ea, eb, ec;
            horner(&ea, ca, n, &x);
            horner(&eb, cb, n, &x);
            horner(&ec, cc, n, &x);
            cuzk_fr_mul(&ea, &ea, &eb);
            cuzk_fr_sub(&ea, &ea, &ec);
            if (!cuzk_fr_eq(&ea, &a[i])) bad++;
            cuzk_fr_mul(&x, &x, &d.omega);
        }
        CHECK_MSG(bad == 0, "h_odd 2^%u: %zu of %zu wrong", log_n, bad, n);
        free(ca), free(v);
        cuzk_ntt_domain_free(&d);
    }
}

static void rand_g1(cuzk_g1_affine *p)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    tu_g1_mul_gen(p, &k);
}

static void rand_g2(cuzk_g2_affine *p)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    tu_g2_mul_gen(p, &k);
}

static void test_json(void)
{
    for (int it = 0; it < 4; it++) {
        cuzk_groth16_proof p, q;
        rand_g1(&p.a), rand_g2(&p.b), rand_g1(&p.c);
        char *s = cuzk_circom_proof_to_json(&p);
        cuzk_circom_error e;
        CHECK(s && cuzk_circom_proof_read_json(&q, s, strlen(s), &e) == CUZK_OK);
        CHECK(cuzk_g1_affine_eq(&p.a, &q.a) && cuzk_g2_affine_eq(&p.b, &q.b) && cuzk_g1_affine_eq(&p.c, &q.c));
        free(s);

        /* public signals: 0, 1, r - 1 and random values */
        uint64_t v[8][4];
        memset(v, 0, sizeof v);
        v[1][0] = 1;
        memcpy(v[2], cuzk_fr_modulus, sizeof v[2]);
        v[2][0] -= 1;
        for (int i = 3; i < 8; i++) {
            cuzk_fr x;
            cuzk_fr_random(&x, &rng);
            cuzk_fr_to_limbs(v[i], &x);
        }
        size_t n = (size_t)(cuzk_rng_u64(&rng) % 9);
        s = cuzk_circom_public_to_json((const uint64_t(*)[4])v, n);
        cuzk_fr *got = NULL;
        size_t m = 99;
        CHECK(s && cuzk_circom_public_read_json(&got, &m, s, strlen(s), &e) == CUZK_OK && m == n);
        for (size_t i = 0; i < n && i < m; i++) {
            uint64_t l[4];
            cuzk_fr_to_limbs(l, &got[i]);
            CHECK(!memcmp(l, v[i], sizeof l));
        }
        free(got), free(s);

        /* verification key, ic with an infinity entry sometimes */
        cuzk_groth16_vk vk, back;
        memset(&vk, 0, sizeof vk);
        rand_g1(&vk.alpha_g1), rand_g2(&vk.beta_g2), rand_g2(&vk.gamma_g2), rand_g2(&vk.delta_g2);
        vk.n_ic = 1 + (size_t)(cuzk_rng_u64(&rng) % 4);
        vk.ic = calloc(vk.n_ic, sizeof *vk.ic);
        for (size_t i = 0; i < vk.n_ic; i++)
            if (i != 1) rand_g1(&vk.ic[i]);
        s = cuzk_circom_vk_to_json(&vk);
        CHECK(s && cuzk_circom_vk_read_json(&back, s, strlen(s), &e) == CUZK_OK);
        CHECK(back.n_ic == vk.n_ic && cuzk_g1_affine_eq(&back.alpha_g1, &vk.alpha_g1) &&
              cuzk_g2_affine_eq(&back.beta_g2, &vk.beta_g2) && cuzk_g2_affine_eq(&back.gamma_g2, &vk.gamma_g2) &&
              cuzk_g2_affine_eq(&back.delta_g2, &vk.delta_g2));
        for (size_t i = 0; i < vk.n_ic && i < back.n_ic; i++) CHECK(cuzk_g1_affine_eq(&back.ic[i], &vk.ic[i]));
        /* the same text with another alpha: the stored e(alpha, beta) no longer matches */
        cuzk_groth16_vk other = vk;
        rand_g1(&other.alpha_g1);
        char *s2 = cuzk_circom_vk_to_json(&other);
        char *ab1 = strstr(s, "vk_alphabeta_12"), *ab2 = strstr(s2, "vk_alphabeta_12");
        char *ic2 = strstr(s2, "\"IC\"");
        size_t head = (size_t)(ab2 - s2), mid = (size_t)(strstr(s, "\"IC\"") - ab1);
        char *mix = malloc(strlen(s) + strlen(s2) + 1);
        memcpy(mix, s2, head);           /* other's alpha ... */
        memcpy(mix + head, ab1, mid);    /* ... with vk's e(alpha, beta) */
        strcpy(mix + head + mid, ic2);
        cuzk_groth16_vk bad;
        CHECK(cuzk_circom_vk_read_json(&bad, mix, strlen(mix), &e) == CUZK_ERR_FORMAT);
        free(mix), free(s2), free(s);
        cuzk_groth16_vk_free(&back);
        free(vk.ic);
    }
}

int main(void)
{
    tu_init(&rng, "test_circom");
    test_h_odd();
    test_json();
    return tu_finish("test_circom");
}
