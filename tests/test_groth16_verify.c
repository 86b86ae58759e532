/* Groth16 verifier: proofs built from known toxic waste (no prover needed:
 * c = (a·b - alpha·beta - s·gamma)/delta makes the pairing equation hold),
 * tampering of every part, wrong inputs / vk / input counts, proof byte
 * round trips and malformed encodings (flags, non-canonical, off curve,
 * outside the subgroup, infinity), and batch verification. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "cuzk/fp2.h"
#include "cuzk/groth16_verify.h"
#include "testutil.h"

static cuzk_rng rng;

#define N_IN 3 /* public inputs; n_ic = N_IN + 1 */

/* Toxic waste and the vk made from it. */
typedef struct setup {
    cuzk_fr alpha, beta, gamma, delta, k[N_IN + 1];
    cuzk_g1_affine ic[N_IN + 1];
    cuzk_groth16_vk vk;
    cuzk_groth16_pvk pvk;
} setup;

static void g1_mul(cuzk_g1_affine *out, const cuzk_fr *k)
{
    cuzk_g1_jac j;
    cuzk_g1_jac_from_affine(&j, &cuzk_g1_generator);
    cuzk_g1_jac_mul_fr(&j, &j, k);
    cuzk_g1_jac_to_affine(out, &j);
}

static void g2_mul(cuzk_g2_affine *out, const cuzk_fr *k)
{
    cuzk_g2_jac j;
    cuzk_g2_jac_from_affine(&j, &cuzk_g2_generator);
    cuzk_g2_jac_mul_fr(&j, &j, k);
    cuzk_g2_jac_to_affine(out, &j);
}

static void rand_g1(cuzk_g1_affine *out)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    g1_mul(out, &k);
}

static void rand_g2(cuzk_g2_affine *out)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    g2_mul(out, &k);
}

static void make_setup(setup *s)
{
    cuzk_fr_random(&s->alpha, &rng);
    cuzk_fr_random(&s->beta, &rng);
    cuzk_fr_random(&s->gamma, &rng);
    cuzk_fr_random(&s->delta, &rng);
    g1_mul(&s->vk.alpha_g1, &s->alpha);
    g1_mul(&s->vk.beta_g1, &s->beta);
    g2_mul(&s->vk.beta_g2, &s->beta);
    g2_mul(&s->vk.gamma_g2, &s->gamma);
    g1_mul(&s->vk.delta_g1, &s->delta);
    g2_mul(&s->vk.delta_g2, &s->delta);
    for (int j = 0; j <= N_IN; j++) {
        cuzk_fr_random(&s->k[j], &rng);
        g1_mul(&s->ic[j], &s->k[j]);
    }
    s->vk.n_ic = N_IN + 1;
    s->vk.ic = s->ic;
    CHECK(cuzk_groth16_prepare_vk(&s->pvk, &s->vk) == CUZK_OK);
}

static void rand_inputs(cuzk_fr *x, size_t n)
{
    for (size_t i = 0; i < n; i++) cuzk_fr_random(&x[i], &rng);
}

/* A valid proof for inputs x under s. */
static void make_proof(cuzk_groth16_proof *p, const setup *s, const cuzk_fr *x)
{
    cuzk_fr a, b, c, acc = s->k[0], t, u;
    for (int i = 0; i < N_IN; i++) {
        cuzk_fr_mul(&t, &x[i], &s->k[i + 1]);
        cuzk_fr_add(&acc, &acc, &t);
    }
    cuzk_fr_random(&a, &rng);
    cuzk_fr_random(&b, &rng);
    cuzk_fr_mul(&c, &a, &b);
    cuzk_fr_mul(&t, &s->alpha, &s->beta);
    cuzk_fr_sub(&c, &c, &t);
    cuzk_fr_mul(&t, &acc, &s->gamma);
    cuzk_fr_sub(&c, &c, &t);
    cuzk_fr_inv(&u, &s->delta);
    cuzk_fr_mul(&c, &c, &u);
    g1_mul(&p->a, &a);
    g2_mul(&p->b, &b);
    g1_mul(&p->c, &c);
}

/* A G1 point on the curve but (with overwhelming probability) outside G1. */
static void g1_off_subgroup(cuzk_g1_affine *p)
{
    cuzk_fp four, rhs;
    cuzk_fp_set_u64(&four, 4);
    for (;;) {
        cuzk_fp_random(&p->x, &rng);
        cuzk_fp_sqr(&rhs, &p->x);
        cuzk_fp_mul(&rhs, &rhs, &p->x);
        cuzk_fp_add(&rhs, &rhs, &four);
        if (cuzk_fp_sqrt(&p->y, &rhs)) break;
    }
}

static void g2_off_subgroup(cuzk_g2_affine *p)
{
    cuzk_fp2 b4, rhs;
    cuzk_fp_set_u64(&b4.c0, 4);
    cuzk_fp_set_u64(&b4.c1, 4);
    for (;;) {
        cuzk_fp2_random(&p->x, &rng);
        cuzk_fp2_sqr(&rhs, &p->x);
        cuzk_fp2_mul(&rhs, &rhs, &p->x);
        cuzk_fp2_add(&rhs, &rhs, &b4);
        if (cuzk_fp2_sqrt(&p->y, &rhs)) break;
    }
}

/* An x (as 48 bytes) with x^3 + 4 not a square in Fp. */
static void g1_bad_x(uint8_t out[48])
{
    cuzk_fp x, rhs, y, four;
    cuzk_fp_set_u64(&four, 4);
    do {
        cuzk_fp_random(&x, &rng);
        cuzk_fp_sqr(&rhs, &x);
        cuzk_fp_mul(&rhs, &rhs, &x);
        cuzk_fp_add(&rhs, &rhs, &four);
    } while (cuzk_fp_sqrt(&y, &rhs));
    cuzk_fp_to_be48(out, &x);
}

static void test_single(const setup *s, const setup *other)
{
    cuzk_fr x[N_IN + 1];
    cuzk_groth16_proof p, q;
    for (int rep = 0; rep < 3; rep++) {
        rand_inputs(x, N_IN);
        make_proof(&p, s, x);
        CHECK(cuzk_groth16_verify(&s->pvk, &p, x, N_IN) == CUZK_OK);

        q = p;
        rand_g1(&q.a);
        CHECK(cuzk_groth16_verify(&s->pvk, &q, x, N_IN) == CUZK_ERR_VERIFY_FAILED);
        q = p;
        rand_g2(&q.b);
        CHECK(cuzk_groth16_verify(&s->pvk, &q, x, N_IN) == CUZK_ERR_VERIFY_FAILED);
        q = p;
        rand_g1(&q.c);
        CHECK(cuzk_groth16_verify(&s->pvk, &q, x, N_IN) == CUZK_ERR_VERIFY_FAILED);
        q = p; /* -A, -B together still verify (e(-A,-B) = e(A,B)); -A alone must not */
        cuzk_g1_affine_neg(&q.a, &q.a);
        CHECK(cuzk_groth16_verify(&s->pvk, &q, x, N_IN) == CUZK_ERR_VERIFY_FAILED);
        cuzk_g2_affine_neg(&q.b, &q.b);
        CHECK(cuzk_groth16_verify(&s->pvk, &q, x, N_IN) == CUZK_OK);

        /* each input changed */
        for (int i = 0; i < N_IN; i++) {
            cuzk_fr y[N_IN];
            memcpy(y, x, sizeof y);
            cuzk_fr_add(&y[i], &y[i], &cuzk_fr_one);
            CHECK(cuzk_groth16_verify(&s->pvk, &p, y, N_IN) == CUZK_ERR_VERIFY_FAILED);
        }
        /* wrong vk */
        CHECK(cuzk_groth16_verify(&other->pvk, &p, x, N_IN) == CUZK_ERR_VERIFY_FAILED);
        /* gamma and delta swapped */
        cuzk_groth16_pvk sw = s->pvk;
        sw.neg_gamma_g2 = s->pvk.neg_delta_g2;
        sw.neg_delta_g2 = s->pvk.neg_gamma_g2;
        CHECK(cuzk_groth16_verify(&sw, &p, x, N_IN) == CUZK_ERR_VERIFY_FAILED);
        /* ic entries swapped */
        cuzk_g1_affine ic2[N_IN + 1];
        memcpy(ic2, s->ic, sizeof ic2);
        ic2[1] = s->ic[2];
        ic2[2] = s->ic[1];
        sw = s->pvk;
        sw.ic = ic2;
        CHECK(cuzk_groth16_verify(&sw, &p, x, N_IN) == CUZK_ERR_VERIFY_FAILED);
        /* wrong number of inputs */
        CHECK(cuzk_groth16_verify(&s->pvk, &p, x, N_IN - 1) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_groth16_verify(&s->pvk, &p, x, N_IN + 1) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_groth16_verify(&s->pvk, &p, x, 0) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_groth16_verify(NULL, &p, x, N_IN) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_groth16_verify(&s->pvk, NULL, x, N_IN) == CUZK_ERR_INVALID_ARG);
    }

    /* prepared key: e(alpha, beta) and the negations */
    cuzk_gt e;
    cuzk_pairing(&e, &s->vk.alpha_g1, &s->vk.beta_g2);
    CHECK(cuzk_gt_eq(&e, &s->pvk.alpha_beta));
    cuzk_g2_affine t;
    cuzk_g2_affine_neg(&t, &s->pvk.neg_gamma_g2);
    CHECK(cuzk_g2_affine_eq(&t, &s->vk.gamma_g2));
    cuzk_g2_affine_neg(&t, &s->pvk.neg_delta_g2);
    CHECK(cuzk_g2_affine_eq(&t, &s->vk.delta_g2));
    CHECK(s->pvk.n_ic == N_IN + 1 && s->pvk.ic != s->ic && memcmp(s->pvk.ic, s->ic, sizeof s->ic) == 0);
    cuzk_groth16_pvk bad;
    cuzk_groth16_vk vk0 = s->vk;
    vk0.n_ic = 0;
    CHECK(cuzk_groth16_prepare_vk(&bad, &vk0) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_groth16_prepare_vk(&bad, NULL) == CUZK_ERR_INVALID_ARG);

    /* a circuit without public inputs: n_ic = 1 */
    setup z = *s;
    z.vk.n_ic = 1;
    cuzk_fr x0[N_IN];
    memset(x0, 0, sizeof x0); /* acc = ic[0] as with all-zero inputs */
    make_proof(&p, &z, x0);
    CHECK(cuzk_groth16_prepare_vk(&z.pvk, &z.vk) == CUZK_OK);
    CHECK(cuzk_groth16_verify(&z.pvk, &p, NULL, 0) == CUZK_OK);
    CHECK(cuzk_groth16_verify(&z.pvk, &p, x0, 1) == CUZK_ERR_INVALID_ARG);
    rand_g1(&p.c);
    CHECK(cuzk_groth16_verify(&z.pvk, &p, NULL, 0) == CUZK_ERR_VERIFY_FAILED);
    cuzk_groth16_pvk_free(&z.pvk);
    CHECK(z.pvk.ic == NULL && z.pvk.n_ic == 0);
    cuzk_groth16_pvk_free(NULL);
}

static void expect_decode(const uint8_t *buf, int code, cuzk_groth16_proof_part part, const char *what)
{
    cuzk_groth16_proof q;
    cuzk_groth16_proof_error err;
    int rc = cuzk_groth16_proof_decode(&q, buf, &err);
    CHECK_MSG(rc == code && err.code == code && err.part == part, "%s: rc %d part %d, want %d part %d", what,
              rc, (int)err.part, code, (int)part);
}

static void test_encoding(const setup *s)
{
    cuzk_fr x[N_IN];
    cuzk_groth16_proof p, q;
    cuzk_groth16_proof_error err;
    uint8_t buf[CUZK_GROTH16_PROOF_BYTES], buf2[CUZK_GROTH16_PROOF_BYTES], t[96];
    rand_inputs(x, N_IN);
    make_proof(&p, s, x);
    cuzk_groth16_proof_encode(buf, &p);
    /* layout: A || B || C compressed */
    cuzk_g1_compress(t, &p.a);
    CHECK(memcmp(buf, t, 48) == 0);
    cuzk_g2_compress(t, &p.b);
    CHECK(memcmp(buf + 48, t, 96) == 0);
    cuzk_g1_compress(t, &p.c);
    CHECK(memcmp(buf + 144, t, 48) == 0);
    CHECK((buf[0] & 0xc0) == 0x80 && (buf[48] & 0xc0) == 0x80 && (buf[144] & 0xc0) == 0x80);
    CHECK(cuzk_groth16_proof_decode(&q, buf, &err) == CUZK_OK && err.code == CUZK_OK);
    CHECK(cuzk_g1_affine_eq(&q.a, &p.a) && cuzk_g2_affine_eq(&q.b, &p.b) && cuzk_g1_affine_eq(&q.c, &p.c));
    cuzk_groth16_proof_encode(buf2, &q);
    CHECK(memcmp(buf, buf2, sizeof buf) == 0);
    CHECK(cuzk_groth16_verify(&s->pvk, &q, x, N_IN) == CUZK_OK);

    /* malformed parts; offsets of A, B, C */
    static const size_t off[3] = {0, 48, 144};
    static const size_t len[3] = {48, 96, 48};
    for (int k = 0; k < 3; k++) {
        cuzk_groth16_proof_part part = (cuzk_groth16_proof_part)(CUZK_GROTH16_PART_A + k);
        uint8_t m[CUZK_GROTH16_PROOF_BYTES];
        /* compression bit cleared */
        memcpy(m, buf, sizeof m);
        m[off[k]] &= 0x7f;
        expect_decode(m, CUZK_ERR_BAD_FLAGS, part, "no compression bit");
        /* infinity flag with nonzero body */
        memcpy(m, buf, sizeof m);
        m[off[k]] |= 0x40;
        expect_decode(m, CUZK_ERR_BAD_FLAGS, part, "infinity with body");
        /* the point at infinity itself: valid encoding, rejected as in bellperson */
        memcpy(m, buf, sizeof m);
        memset(m + off[k], 0, len[k]);
        m[off[k]] = 0xc0;
        expect_decode(m, CUZK_ERR_FORMAT, part, "infinity");
        /* x = p (non-canonical): the modulus in big-endian, flags kept */
        memcpy(m, buf, sizeof m);
        {
            uint8_t pb[48];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 8; j++) pb[47 - 8 * i - j] = (uint8_t)(cuzk_fp_modulus[i] >> (8 * j));
            memcpy(m + off[k], pb, 48); /* for B this is x.c1 */
            m[off[k]] |= 0x80;
        }
        expect_decode(m, CUZK_ERR_NONCANONICAL, part, "x = p");
    }
    /* off curve: x^3 + b not a square */
    {
        uint8_t m[CUZK_GROTH16_PROOF_BYTES];
        memcpy(m, buf, sizeof m);
        g1_bad_x(m);
        m[0] |= 0x80;
        expect_decode(m, CUZK_ERR_NOT_A_SQUARE, CUZK_GROTH16_PART_A, "A off curve");
        memcpy(m, buf, sizeof m);
        g1_bad_x(m + 144);
        m[144] |= 0x80;
        expect_decode(m, CUZK_ERR_NOT_A_SQUARE, CUZK_GROTH16_PART_C, "C off curve");
    }
    /* on the curve, outside the subgroup */
    {
        uint8_t m[CUZK_GROTH16_PROOF_BYTES];
        cuzk_g1_affine w;
        cuzk_g2_affine w2;
        g1_off_subgroup(&w);
        CHECK(cuzk_g1_affine_is_on_curve(&w) && !cuzk_g1_affine_in_subgroup(&w));
        memcpy(m, buf, sizeof m);
        cuzk_g1_compress(m, &w);
        expect_decode(m, CUZK_ERR_NOT_IN_SUBGROUP, CUZK_GROTH16_PART_A, "A outside G1");
        CHECK(cuzk_g1_uncompress_unchecked(&q.a, m) == CUZK_OK); /* the encoding itself is fine */
        memcpy(m, buf, sizeof m);
        cuzk_g1_compress(m + 144, &w);
        expect_decode(m, CUZK_ERR_NOT_IN_SUBGROUP, CUZK_GROTH16_PART_C, "C outside G1");
        g2_off_subgroup(&w2);
        CHECK(cuzk_g2_affine_is_on_curve(&w2) && !cuzk_g2_affine_in_subgroup(&w2));
        memcpy(m, buf, sizeof m);
        cuzk_g2_compress(m + 48, &w2);
        expect_decode(m, CUZK_ERR_NOT_IN_SUBGROUP, CUZK_GROTH16_PART_B, "B outside G2");
    }

    /* several proofs concatenated */
    enum { NP = 4 };
    cuzk_groth16_proof ps[NP], qs[NP];
    cuzk_fr xs[NP][N_IN];
    uint8_t many[NP * CUZK_GROTH16_PROOF_BYTES];
    for (int i = 0; i < NP; i++) {
        rand_inputs(xs[i], N_IN);
        make_proof(&ps[i], s, xs[i]);
        cuzk_groth16_proof_encode(many + i * CUZK_GROTH16_PROOF_BYTES, &ps[i]);
    }
    CHECK(cuzk_groth16_proofs_decode(qs, NP, many, sizeof many, &err) == CUZK_OK);
    for (int i = 0; i < NP; i++) {
        CHECK(cuzk_g1_affine_eq(&qs[i].a, &ps[i].a) && cuzk_g2_affine_eq(&qs[i].b, &ps[i].b) &&
              cuzk_g1_affine_eq(&qs[i].c, &ps[i].c));
        CHECK(cuzk_groth16_verify(&s->pvk, &qs[i], xs[i], N_IN) == CUZK_OK);
    }
    CHECK(cuzk_groth16_proofs_decode(qs, NP, many, sizeof many - 1, &err) == CUZK_ERR_BAD_LENGTH);
    CHECK(cuzk_groth16_proofs_decode(qs, NP - 1, many, sizeof many, &err) == CUZK_ERR_BAD_LENGTH);
    CHECK(cuzk_groth16_proofs_decode(qs, 0, many, 0, &err) == CUZK_OK);
    size_t bad = 1 + (size_t)(cuzk_rng_u64(&rng) % (NP - 1));
    many[bad * CUZK_GROTH16_PROOF_BYTES + 144] &= 0x7f;
    CHECK(cuzk_groth16_proofs_decode(qs, NP, many, sizeof many, &err) == CUZK_ERR_BAD_FLAGS);
    CHECK(err.index == bad && err.part == CUZK_GROTH16_PART_C && err.code == CUZK_ERR_BAD_FLAGS);
}

static void test_batch(const setup *s, const setup *other)
{
    enum { NMAX = 8 };
    cuzk_groth16_proof ps[NMAX], qs[NMAX];
    cuzk_fr xs[NMAX][N_IN];
    for (int i = 0; i < NMAX; i++) {
        rand_inputs(xs[i], N_IN);
        make_proof(&ps[i], s, xs[i]);
    }
    for (size_t n = 1; n <= NMAX; n++) {
        CHECK_MSG(cuzk_groth16_verify_batch(&s->pvk, ps, n, &xs[0][0], N_IN) == CUZK_OK, "n = %zu", n);
        CHECK(cuzk_groth16_verify_batch_rng(&s->pvk, ps, n, &xs[0][0], N_IN, &rng) == CUZK_OK);
        CHECK(cuzk_groth16_verify_batch(&other->pvk, ps, n, &xs[0][0], N_IN) == CUZK_ERR_VERIFY_FAILED);
    }
    /* one bad proof among many, in each of its parts and its inputs */
    for (int kind = 0; kind < 4; kind++) {
        size_t n = 2 + (size_t)(cuzk_rng_u64(&rng) % (NMAX - 1));
        size_t bad = (size_t)(cuzk_rng_u64(&rng) % n);
        cuzk_fr ys[NMAX][N_IN];
        memcpy(qs, ps, sizeof qs);
        memcpy(ys, xs, sizeof ys);
        switch (kind) {
        case 0: rand_g1(&qs[bad].a); break;
        case 1: rand_g2(&qs[bad].b); break;
        case 2: rand_g1(&qs[bad].c); break;
        default: cuzk_fr_add(&ys[bad][kind % N_IN], &ys[bad][kind % N_IN], &cuzk_fr_one); break;
        }
        CHECK_MSG(cuzk_groth16_verify_batch(&s->pvk, qs, n, &ys[0][0], N_IN) == CUZK_ERR_VERIFY_FAILED,
                  "kind %d n %zu bad %zu", kind, n, bad);
        CHECK(cuzk_groth16_verify(&s->pvk, &qs[bad], ys[bad], N_IN) == CUZK_ERR_VERIFY_FAILED);
    }
    /* two bad proofs whose errors cancel in the plain sum (C_0 + T, C_1 - T):
     * only the random weights catch it */
    {
        cuzk_g1_affine T;
        cuzk_g1_jac j, tj;
        rand_g1(&T);
        memcpy(qs, ps, sizeof qs);
        cuzk_g1_jac_from_affine(&tj, &T);
        cuzk_g1_jac_from_affine(&j, &qs[0].c);
        cuzk_g1_jac_add(&j, &j, &tj);
        cuzk_g1_jac_to_affine(&qs[0].c, &j);
        cuzk_g1_jac_neg(&tj, &tj);
        cuzk_g1_jac_from_affine(&j, &qs[1].c);
        cuzk_g1_jac_add(&j, &j, &tj);
        cuzk_g1_jac_to_affine(&qs[1].c, &j);
        CHECK(cuzk_groth16_verify_batch(&s->pvk, qs, 3, &xs[0][0], N_IN) == CUZK_ERR_VERIFY_FAILED);
        /* sanity of the construction: the unweighted check would pass */
        cuzk_g1_affine P[3 * 3];
        cuzk_g2_affine Q[3 * 3];
        for (int i = 0; i < 3; i++) {
            cuzk_g1_jac acc;
            cuzk_g1_jac_from_affine(&acc, &s->ic[0]);
            for (int k = 0; k < N_IN; k++) {
                cuzk_g1_jac_from_affine(&j, &s->ic[k + 1]);
                cuzk_g1_jac_mul_fr(&j, &j, &xs[i][k]);
                cuzk_g1_jac_add(&acc, &acc, &j);
            }
            P[3 * i] = qs[i].a;
            Q[3 * i] = qs[i].b;
            cuzk_g1_jac_to_affine(&P[3 * i + 1], &acc);
            Q[3 * i + 1] = s->pvk.neg_gamma_g2;
            P[3 * i + 2] = qs[i].c;
            Q[3 * i + 2] = s->pvk.neg_delta_g2;
        }
        cuzk_gt g, ab3;
        cuzk_pairing_multi(&g, P, Q, 9);
        uint64_t three[4] = {3, 0, 0, 0};
        cuzk_gt_pow(&ab3, &s->pvk.alpha_beta, three);
        CHECK(cuzk_gt_eq(&g, &ab3));
    }
    /* n = 0: the empty batch is accepted (documented) */
    CHECK(cuzk_groth16_verify_batch(&s->pvk, NULL, 0, NULL, N_IN) == CUZK_OK);
    /* argument errors */
    CHECK(cuzk_groth16_verify_batch(&s->pvk, ps, 2, &xs[0][0], N_IN - 1) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_groth16_verify_batch(&s->pvk, ps, 2, &xs[0][0], N_IN + 1) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_groth16_verify_batch(NULL, ps, 2, &xs[0][0], N_IN) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_groth16_verify_batch(&s->pvk, NULL, 2, &xs[0][0], N_IN) == CUZK_ERR_INVALID_ARG);
}

int main(void)
{
    static setup s, other;
    tu_init(&rng, "groth16_verify");
    make_setup(&s);
    make_setup(&other);
    test_single(&s, &other);
    test_encoding(&s);
    test_batch(&s, &other);
    cuzk_groth16_pvk_free(&s.pvk);
    cuzk_groth16_pvk_free(&other.pvk);
    return tu_finish("groth16_verify");
}
