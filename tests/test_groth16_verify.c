/* Groth16 verifier: proofs built from known toxic waste (no prover needed:
 * c = (a·b - alpha·beta - s·gamma)/delta makes the pairing equation hold),
 * tampering of every part, wrong inputs / vk / input counts, proof byte
 * round trips and malformed encodings (flags, non-canonical, off curve,
 * outside the subgroup, infinity), and batch verification. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fp2.h"
#include "cuzk/groth16/groth16_verify.h"
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

static void rand_g1(cuzk_g1_affine *out)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    tu_g1_mul_gen(out, &k);
}

static void rand_g2(cuzk_g2_affine *out)
{
    cuzk_fr k;
    cuzk_fr_random(&k, &rng);
    tu_g2_mul_gen(out, &k);
}

static void make_setup(setup *s)
{
    cuzk_fr_random(&s->alpha, &rng);
    cuzk_fr_random(&s->beta, &rng);
    cuzk_fr_random(&s->gamma, &rng);
    cuzk_fr_random(&s->delta, &rng);
    tu_g1_mul_gen(&s->vk.alpha_g1, &s->alpha);
    tu_g1_mul_gen(&s->vk.beta_g1, &s->beta);
    tu_g2_mul_gen(&s->vk.beta_g2, &s->beta);
    tu_g2_mul_gen(&s->vk.gamma_g2, &s->gamma);
    tu_g1_mul_gen(&s->vk.delta_g1, &s->delta);
    tu_g2_mul_gen(&s->vk.delta_g2, &s->delta);
    for (int j = 0; j <= N_IN; j++) {
        cuzk_fr_random(&s->k[j], &rng);
        tu_g1_mul_gen(&s->ic[j], &s->k[j]);
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
    tu_g1_mul_gen(&p->a, &a);
    tu_g2_mul_gen(&p->b, &b);
    tu_g1_mul_gen(&p->c, &c);
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

/* Known answers: bellman (zcash, BLS12-381) proofs with their verifying keys
 * and inputs, published as test vectors by esuwu/groth16-verifier-bls12381
 * and reused by Consensys/gnark (internal/backend/bls381/groth16/
 * bellman_test.go). Layout there: vk = alpha_g1 (48) || beta_g2 (96) ||
 * gamma_g2 (96) || delta_g2 (96) || ic (48 each), all compressed; proof =
 * the 192-byte bellman encoding; inputs = 32-byte big-endian each.
 * The verdicts (1 = valid) are the published ones. */
static const struct {
    const char *vk, *proof, *inputs;
    int ok;
} known[] = {
    {"87093cf37814953282c97600e975996bc1fdff1288619689d3112cd0ce6140e331886a71a1cb97ffc99a48399e0a4ddba3956268305d3bb641c4084b49ee64ff94c54321792efeca376b4b2a7c20a1632a075e8e2fc59d6de3c8c130ae3ed24d0052a84d9ca52c36d27f4da472431c6500cf17d88687e242f7d3e2a3be2f0e9c13123531e6d43df60350c3150bb73b6ca8346c3e712f2af2e6b311edf0b4150641019b63c124563e3977f530d5b4db5be20c1a51d74997e1643acebb062f92f4198e1cc1fe2d95b87e39b8adf8b9cdfd24139d111ff1f3e974a675b1afee8b7a468bc94c4fa8a8e03ed48e5c31d9174290117e8ac7cc7fbec70841ac640370d214ab3b6146835e12976eb12c022885d696f0eee011a6a0f09755019dce54b7790dfd4d919044afbe775dbf16c1a5ec26313bab1c0834bd4a76a038f848985b879d6fbf9af5b6c178e3ed6faed9c6616a8324cd4bfe286f16a17b33648e4d34cadb30b04360fff11ee9d581259c8b1fe406b1a5368cefd6e16bd1c9986628a3dd8a93a18b3e1196b7765d882c7c7b1f59fe6fe063932fed77641db8756d7f9b7f67db0a09fafebce9f5db356f395cffeb",
     "96f40b53f2aa80586c2e4b7fe42fec72ab3b9d647e798b723dd5a22d506ec7d19b953e0084760c74283041f48972e76fb2057a7d7a0af8351246027ef8daadf96bdbec6958947a710b2b10873dba4d3bbc372a3bce99953c7f76f946266ef6d0092bd7d81856b6f91f1e6a83563992210e1150c7debde0352996d27fdf7d344e2a28af03a3ef285dc9933382d9566875ae5caace721d1573cdef1de90f813481bebfcbaf71b5630286ff7ae7814c834e5b01db9e2adf6e0380447006e991d1c5",
     "2dc313dce3a59072f32412822a38f3cd5320fabf85560779d8b96164f0784458", 1},
    {"87093cf37814953282c97600e975996bc1fdff1288619689d3112cd0ce6140e331886a71a1cb97ffc99a48399e0a4ddba3956268305d3bb641c4084b49ee64ff94c54321792efeca376b4b2a7c20a1632a075e8e2fc59d6de3c8c130ae3ed24d0052a84d9ca52c36d27f4da472431c6500cf17d88687e242f7d3e2a3be2f0e9c13123531e6d43df60350c3150bb73b6ca8346c3e712f2af2e6b311edf0b4150641019b63c124563e3977f530d5b4db5be20c1a51d74997e1643acebb062f92f4198e1cc1fe2d95b87e39b8adf8b9cdfd24139d111ff1f3e974a675b1afee8b7a468bc94c4fa8a8e03ed48e5c31d9174290117e8ac7cc7fbec70841ac640370d214ab3b6146835e12976eb12c022885d696f0eee011a6a0f09755019dce54b7790dfd4d919044afbe775dbf16c1a5ec26313bab1c0834bd4a76a038f848985b879d6fbf9af5b6c178e3ed6faed9c6616a8324cd4bfe286f16a17b33648e4d34cadb30b04360fff11ee9d581259c8b1fe406b1a5368cefd6e16bd1c9986628a3dd8a93a18b3e1196b7765d882c7c7b1f59fe6fe063932fed77641db8756d7f9b7f67db0a09fafebce9f5db356f395cffeb",
     "96f40b53f2aa80586c2e4b7fe42fec72ab3b9d647e798b723dd5a22d506ec7d19b953e0084760c74283041f48972e76fb2057a7d7a0af8351246027ef8daadf96bdbec6958947a710b2b10873dba4d3bbc372a3bce99953c7f76f946266ef6d0092bd7d81856b6f91f1e6a83563992210e1150c7debde0352996d27fdf7d344e2a28af03a3ef285dc9933382d9566875ae5caace721d1573cdef1de90f813481bebfcbaf71b5630286ff7ae7814c834e5b01db9e2adf6e0380447006e991d1c5",
     "726cd509c4559dc930dd050f8661b8064a697a0e0ae74a0343043d107f85ab5b", 0},
    {"918602012f2f3364fdf46782af8b6843e890cef9797c8f3d98fae7718ab1dc2d5def90506c593c2ccb5c9cb5b09ed77a9279334b072c89a95c85e83af5e6583caf04cca45523916b4472a2f2b801f91e63c8f57bd1e8e6604c759de4e67d828e0d198046bfe577aa594f30566037eb0a4892d5007edeadccd3c39081870bcecfef8d6e1ea5eb430a69342b508419c59d87bc8bcddaabec71d034ea5923c99d8ffee5474201a81f73bd17f24ebfa0b941b6da4668e32d8a20d0e9dbbdb11a094a11e4e0953c720d4ae2649345ffe4fa17cc3bd0c47fad5f9f96fba8e84274f8703e03666705b4e338897dc238ac055fb48e095de28029a403b3bd0edea08c76b5bbae29549d6c99bae4a0f197f4fe6e86989e3466de899d1136276119371c086b01e5a979f5fe74cfe4ecfadc85e2279f11d4ca3cd2cea94dd37c588e0dbc91d75af45649695b102aa74427f4adf62bd7969efe74f0c839f9bbee1692167bebdf7570607fca6c86a57ce24f46f04bcea9470fc071ba735e6ccafa1abe92faefa7",
     "b12b552ddcb1a889e6bfbea268d9d1141e3ae251aae3c8957aa6164a2da58a713d0d24f47d3361c529ef4970283e9b7cb45b1a9e3e6f3da7c2fa28ff161f7c74e52531b3b8d9b7f6f34a4e678966fb3afadc0594a4e388ba0493f92ea9abdcde074387a76358f17166ae23842a1c5e69b86e57cf658ea0838e585705e359c0ce73b62e3383cf4777c4db29cc38ea302c8c825ed928b0dd387b10b410291e6e717e747f41884a69ce49c79e3cf76f8db189f1f4853a74a64a9f1d2bbbb27a1ad4",
     "", 1},
    {"998fff84421308109950950dff0b0e970d6251248e1122fa3c549b37569b18af34b798cf34808d94fb92a2b8a8e26996a5ffb8b8ecafde03d97b9e12606338a5f86d7aa269c05431765a705d6c98c4c4cd6922c38fc56d4a7fc425a4aef8fea71665ac75ade64d850f60c673584e2132aa438053dc261c37a6b02b3138433db4771f1ec4e8d440011d0ba9caddb6c6c3aaed93d2db68d6ba671482ddbc72f83ea1147d3985da690cf832a3ee52b0bef6546ee92a0702eb9e76dd7f2a9926bcb31803086b626f304318b331ac63288f5d9bd8c7a2ee939e2858e94eaf010aac263834c3f0721e836c5aba2a99cd490c0ea604580b3ef0a63939ed7f8d1899a8f39b5829cf9335ad6b4f8fc3c46f6fe921e4a579a63de1e1cc8216f0c39d9058f1079a3a427f056b473a4ede9baf683392b1abd5e2b9ffe462220133561711aea758fe9ecf2e6297a9ac2b12f22ff506778a3cad3cdc229e50bc5dd44b3bf62f3f7dcf8dc23d59231c1d5e8f38ff4a3cca35ae781a20f31e80a800bd3128b8d14aa78bf7c005d15d7e71123c17026339c3207f48039a3cf08afde9a5b3d92aa251ec6a3ee7b934dbaef495f1bab3530cd0",
     "839dcdf1e728aef1b6b0380dbfc0fbaae56128c208a5d3fd06a93ff20995e5c27946193d80abdbe05d2597c27f659255a9adbb3b2722270c7a9729ba42954af6ad404abaa2a3bac3e4f38c0c69bae086b2fe2c575e7fbffc5fae2a00d70038fd0324ab8b62758f7a8492aa9ede4c4ab61c3de03cc07d404f9dc1df4cf6b356d138f007f3075296640ed57ffc7fde9858b3872470fed9add55588954b6d4805cb9e3776929f107d8c0f7d192cb611870f126ad442c8826e4d970c965b84286f9d",
     "699f2daab39e1092ade0032a89117f5898482930c2d077834e088954b67c384b", 1},
};

static void test_known(void)
{
    for (size_t t = 0; t < sizeof known / sizeof known[0]; t++) {
        uint8_t vkb[2048], pb[CUZK_GROTH16_PROOF_BYTES], ib[16 * 32], enc[CUZK_GROTH16_PROOF_BYTES];
        size_t vlen = strlen(known[t].vk) / 2, ilen = strlen(known[t].inputs) / 2;
        size_t n_ic = (vlen - 336) / 48, n_in = ilen / 32;
        CHECK(vlen <= sizeof vkb && ilen <= sizeof ib && n_ic == n_in + 1 && n_ic <= 8);
        CHECK(tu_unhex(vkb, vlen, known[t].vk) == 0);
        CHECK(tu_unhex(pb, sizeof pb, known[t].proof) == 0);
        CHECK(ilen == 0 || tu_unhex(ib, ilen, known[t].inputs) == 0);
        cuzk_g1_affine ic[8];
        cuzk_groth16_vk vk;
        memset(&vk, 0, sizeof vk);
        CHECK(cuzk_g1_uncompress(&vk.alpha_g1, vkb) == CUZK_OK);
        CHECK(cuzk_g2_uncompress(&vk.beta_g2, vkb + 48) == CUZK_OK);
        CHECK(cuzk_g2_uncompress(&vk.gamma_g2, vkb + 144) == CUZK_OK);
        CHECK(cuzk_g2_uncompress(&vk.delta_g2, vkb + 240) == CUZK_OK);
        for (size_t j = 0; j < n_ic && j < 8; j++) CHECK(cuzk_g1_uncompress(&ic[j], vkb + 336 + 48 * j) == CUZK_OK);
        vk.n_ic = n_ic;
        vk.ic = ic;
        cuzk_fr x[8];
        for (size_t j = 0; j < n_in && j < 8; j++) CHECK(cuzk_fr_from_be32(&x[j], ib + 32 * j) == CUZK_OK);
        cuzk_groth16_proof p;
        cuzk_groth16_pvk pvk;
        CHECK(cuzk_groth16_proof_decode(&p, pb, NULL) == CUZK_OK);
        cuzk_groth16_proof_encode(enc, &p);
        CHECK(memcmp(enc, pb, sizeof enc) == 0);
        CHECK(cuzk_groth16_prepare_vk(&pvk, &vk) == CUZK_OK);
        int want = known[t].ok ? CUZK_OK : CUZK_ERR_VERIFY_FAILED;
        CHECK_MSG(cuzk_groth16_verify(&pvk, &p, x, n_in) == want, "known vector %zu", t);
        CHECK(cuzk_groth16_verify_batch(&pvk, &p, 1, x, n_in) == want);
        if (known[t].ok) {
            cuzk_groth16_proof two[2] = {p, p};
            cuzk_fr x2[16];
            memcpy(x2, x, n_in * sizeof *x);
            memcpy(x2 + n_in, x, n_in * sizeof *x);
            CHECK(cuzk_groth16_verify_batch(&pvk, two, 2, x2, n_in) == CUZK_OK);
            if (n_in) {
                cuzk_fr_add(&x[0], &x[0], &cuzk_fr_one);
                CHECK(cuzk_groth16_verify(&pvk, &p, x, n_in) == CUZK_ERR_VERIFY_FAILED);
            }
            rand_g1(&p.c);
            CHECK(cuzk_groth16_verify(&pvk, &p, x, n_in) == CUZK_ERR_VERIFY_FAILED);
        }
        cuzk_groth16_pvk_free(&pvk);
    }
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
    test_known();
    cuzk_groth16_pvk_free(&s.pvk);
    cuzk_groth16_pvk_free(&other.pvk);
    return tu_finish("groth16_verify");
}
