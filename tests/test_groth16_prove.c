/* Groth16 setup + prover: random circuits (multiplication chains, booleans,
 * 1-3 public inputs, one SHA-256 block) are set up, proved and checked by
 * the independent verifier (cuzk_groth16_verify); the parameters of a small
 * circuit are recomputed from known toxic waste by a different route
 * (closed-form Lagrange basis, variable-base scalar multiplication); bad
 * proofs, wrong inputs, foreign keys and unsatisfied witnesses must fail. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/groth16/groth16.h"
#include "job_by_index.h"
#include "testutil.h"

static cuzk_rng rng;

typedef struct circ_cfg {
    uint64_t seed;
    int n_pub;   /* public inputs besides ONE (>= 1; the last is the result) */
    int n_mul;   /* multiplication constraints in the chain */
    int n_bool;  /* allocated booleans, folded by xor/and */
    bool sha;    /* one SHA-256 block on allocated bits, 8 output bits packed as inputs */
    int cheat;   /* >= 0: the product of step `cheat` is off by one */
    bool unconstrained; /* allocate an aux variable used by no constraint */
} circ_cfg;

static void lc1(cuzk_lc *lc, cuzk_var v)
{
    cuzk_lc_clear(lc);
    cuzk_lc_add_var(lc, v);
}

/* Synthesizes the circuit (ONE allocated); *result gets the chain's value. */
static void synth(cuzk_cs *cs, const circ_cfg *cfg, cuzk_fr *result)
{
    cuzk_rng r;
    cuzk_rng_seed(&r, cfg->seed);
    cuzk_lc la, lb, lcc;
    cuzk_lc_init(&la), cuzk_lc_init(&lb), cuzk_lc_init(&lcc);
    cuzk_fr one;
    cuzk_fr_set_u64(&one, 1);

    cuzk_var xin[3];
    cuzk_fr xv[3];
    int nx = cfg->n_pub - 1;
    for (int i = 0; i < nx; i++) {
        cuzk_fr_random(&xv[i], &r);
        xin[i] = cuzk_cs_alloc_input(cs, "x", &xv[i]);
    }
    cuzk_fr cv;
    cuzk_fr_random(&cv, &r);
    cuzk_var cur = cuzk_cs_alloc(cs, "start", &cv);
    if (cfg->unconstrained) {
        cuzk_fr z;
        cuzk_fr_random(&z, &r);
        cuzk_cs_alloc(cs, "unused", &z);
    }
    for (int k = 0; k < cfg->n_mul; k++) {
        /* (cur + x_i) * y = z, or cur * y = z */
        cuzk_fr yv, zv, lhs = cv;
        cuzk_fr_random(&yv, &r);
        cuzk_var y = cuzk_cs_alloc(cs, "y", &yv);
        lc1(&la, cur);
        int xi = nx ? (int)(cuzk_rng_u64(&r) % (uint64_t)(nx + 1)) - 1 : -1;
        if (xi >= 0) {
            cuzk_lc_add_var(&la, xin[xi]);
            cuzk_fr_add(&lhs, &lhs, &xv[xi]);
        }
        if (k == 0) { /* y in A with a zero coefficient: a matrix entry, yet outside A's density */
            cuzk_lc_add_var(&la, y);
            cuzk_lc_sub_var(&la, y);
        }
        cuzk_fr_mul(&zv, &lhs, &yv);
        if (k == cfg->cheat) cuzk_fr_add(&zv, &zv, &one);
        cuzk_var z = cuzk_cs_alloc(cs, "z", &zv);
        lc1(&lb, y);
        lc1(&lcc, z);
        cuzk_cs_enforce(cs, "mul", &la, &lb, &lcc);
        cur = z;
        cv = zv; /* later steps build on the stored value: only step `cheat` fails */
    }
    if (cfg->n_bool > 0) {
        cuzk_bool acc = cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
        for (int k = 1; k < cfg->n_bool; k++) {
            cuzk_bool b = cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
            acc = (k & 1) ? cuzk_bool_xor(cs, &acc, &b) : cuzk_bool_and(cs, &acc, &b);
        }
        /* cur * (1 + acc) = z */
        cuzk_fr f = one, zv;
        if (cuzk_bool_value(&acc)) cuzk_fr_add(&f, &f, &one);
        cuzk_fr_mul(&zv, &cv, &f);
        cuzk_var z = cuzk_cs_alloc(cs, "fold", &zv);
        lc1(&la, cur);
        cuzk_lc_clear(&lb);
        cuzk_lc_add_var(&lb, CUZK_CS_ONE);
        cuzk_bool_lc_add(&lb, &acc, &one);
        lc1(&lcc, z);
        cuzk_cs_enforce(cs, "fold", &la, &lb, &lcc);
        cur = z, cv = zv;
    }
    if (cfg->sha) {
        cuzk_bool in[512], out[256];
        for (int i = 0; i < 512; i++) in[i] = cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
        cuzk_sha256_block_no_padding(cs, in, out);
        cuzk_pack_into_inputs(cs, out, 8);
    }
    cuzk_num res = {cur, cv};
    cuzk_num_inputize(cs, &res);
    *result = cv;
    cuzk_lc_free(&la), cuzk_lc_free(&lb), cuzk_lc_free(&lcc);
}

static cuzk_cs *build(cuzk_cs_kind kind, const circ_cfg *cfg, cuzk_fr *result)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    cuzk_fr dummy;
    if (!cs) return NULL;
    cuzk_cs_alloc_one(cs);
    synth(cs, cfg, result ? result : &dummy);
    if (cuzk_cs_finalize(cs) != CUZK_OK) {
        cuzk_cs_free(cs);
        return NULL;
    }
    return cs;
}

/* Public inputs of a proving system (without ONE). */
static const cuzk_fr *pub_of(const cuzk_proving_cs *p, size_t *n)
{
    *n = p->input.len - 1;
    return p->input.v + 1;
}

static int verify(const cuzk_groth16_vk *vk, const cuzk_groth16_proof *pf, const cuzk_fr *in, size_t n)
{
    cuzk_groth16_pvk pvk;
    int rc = cuzk_groth16_prepare_vk(&pvk, vk);
    if (rc) return rc;
    /* proofs go through the byte encoding, as a verifier receives them */
    uint8_t buf[CUZK_GROTH16_PROOF_BYTES];
    cuzk_groth16_proof dec;
    cuzk_groth16_proof_encode(buf, pf);
    rc = cuzk_groth16_proof_decode(&dec, buf, NULL);
    if (!rc) rc = cuzk_groth16_verify(&pvk, &dec, in, n);
    cuzk_groth16_pvk_free(&pvk);
    return rc;
}

static bool proof_eq(const cuzk_groth16_proof *a, const cuzk_groth16_proof *b)
{
    return cuzk_g1_affine_eq(&a->a, &b->a) && cuzk_g2_affine_eq(&a->b, &b->b) &&
           cuzk_g1_affine_eq(&a->c, &b->c);
}

/* Recompute every parameter of a small circuit from the toxic waste:
 * L_i(tau) = Z(tau)/n · w^i / (tau - w^i) (closed form, no NTT). */
static void test_known_toxic(void)
{
    circ_cfg cfg = {.seed = cuzk_rng_u64(&rng), .n_pub = 2, .n_mul = 5, .n_bool = 3, .cheat = -1};
    cuzk_recording_cs *rc = (cuzk_recording_cs *)build(CUZK_CS_RECORDING, &cfg, NULL);
    CHECK(rc != NULL);
    if (!rc) return;
    cuzk_groth16_toxic t;
    cuzk_fr_random(&t.alpha, &rng), cuzk_fr_random(&t.beta, &rng), cuzk_fr_random(&t.gamma, &rng);
    cuzk_fr_random(&t.delta, &rng), cuzk_fr_random(&t.tau, &rng);
    cuzk_groth16_params p;
    CHECK(cuzk_groth16_setup_toxic(&p, rc, &t, 2) == CUZK_OK);

    size_t m = rc->base.num_constraints, ni = rc->base.num_inputs, na = rc->base.num_aux, nv = ni + na;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < m) log_n++;
    size_t n = (size_t)1 << log_n;
    CHECK(n >= m && (n == 1 || n / 2 < m));
    cuzk_fr w, wi, one, zt, ninv, lag[64], x, y;
    CHECK(n <= 64);
    cuzk_fr_root_of_unity(&w, log_n, CUZK_FR_GEN_FILECOIN);
    cuzk_fr_set_u64(&one, 1);
    uint64_t e = n;
    cuzk_fr_pow(&zt, &t.tau, &e, 1);
    cuzk_fr_sub(&zt, &zt, &one);
    cuzk_fr_set_u64(&ninv, n);
    cuzk_fr_inv(&ninv, &ninv);
    wi = one;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_sub(&x, &t.tau, &wi);
        cuzk_fr_inv(&x, &x);
        cuzk_fr_mul(&x, &x, &wi);
        cuzk_fr_mul(&x, &x, &zt);
        cuzk_fr_mul(&lag[i], &x, &ninv);
        cuzk_fr_mul(&wi, &wi, &w);
    }
    cuzk_fr *uvw = calloc(3 * nv, sizeof *uvw);
    for (int k = 0; k < 3; k++)
        for (size_t row = 0; row < m; row++)
            for (uint64_t i = rc->m[k].row_ptr[row]; i < rc->m[k].row_ptr[row + 1]; i++) {
                cuzk_fr_mul(&x, &lag[row], cuzk_recording_cs_val(rc, k, i));
                cuzk_fr_add(&uvw[k * nv + rc->m[k].col[i]], &uvw[k * nv + rc->m[k].col[i]], &x);
            }
    size_t zero_terms = 0;
    for (size_t i = 0; i < rc->m[0].row_ptr[m]; i++) zero_terms += cuzk_fr_is_zero(cuzk_recording_cs_val(rc, 0, i));
    CHECK(zero_terms >= 1); /* the circuit has a zero-coefficient entry in A (filtered out of a) */
    cuzk_g1_affine g1;
    cuzk_g2_affine g2;
    tu_g1_mul_gen(&g1, &t.alpha);
    CHECK(cuzk_g1_affine_eq(&g1, &p.vk.alpha_g1));
    tu_g1_mul_gen(&g1, &t.beta);
    CHECK(cuzk_g1_affine_eq(&g1, &p.vk.beta_g1));
    tu_g2_mul_gen(&g2, &t.beta);
    CHECK(cuzk_g2_affine_eq(&g2, &p.vk.beta_g2));
    tu_g2_mul_gen(&g2, &t.gamma);
    CHECK(cuzk_g2_affine_eq(&g2, &p.vk.gamma_g2));
    tu_g1_mul_gen(&g1, &t.delta);
    CHECK(cuzk_g1_affine_eq(&g1, &p.vk.delta_g1));
    tu_g2_mul_gen(&g2, &t.delta);
    CHECK(cuzk_g2_affine_eq(&g2, &p.vk.delta_g2));
    /* h[i] = tau^i Z(tau) / delta */
    CHECK(p.n_h == n - 1);
    cuzk_fr dinv, ginv, tp = one;
    cuzk_fr_inv(&dinv, &t.delta);
    cuzk_fr_inv(&ginv, &t.gamma);
    for (size_t i = 0; i + 1 < n && p.n_h == n - 1; i++) {
        cuzk_fr_mul(&x, &tp, &zt);
        cuzk_fr_mul(&x, &x, &dinv);
        tu_g1_mul_gen(&g1, &x);
        CHECK_MSG(cuzk_g1_affine_eq(&g1, &p.h[i]), "h[%zu]", i);
        cuzk_fr_mul(&tp, &tp, &t.tau);
    }
    /* ic, l; a, b filtered */
    CHECK(p.vk.n_ic == ni && p.n_l == na);
    size_t ka = 0, kb = 0;
    for (size_t j = 0; j < nv; j++) {
        const cuzk_fr *u = &uvw[j], *v = &uvw[nv + j], *ww = &uvw[2 * nv + j];
        cuzk_fr_mul(&x, u, &t.beta);
        cuzk_fr_mul(&y, v, &t.alpha);
        cuzk_fr_add(&x, &x, &y);
        cuzk_fr_add(&x, &x, ww);
        cuzk_fr_mul(&x, &x, j < ni ? &ginv : &dinv);
        tu_g1_mul_gen(&g1, &x);
        if (j < ni) CHECK_MSG(p.vk.n_ic == ni && cuzk_g1_affine_eq(&g1, &p.vk.ic[j]), "ic[%zu]", j);
        else CHECK_MSG(p.n_l == na && cuzk_g1_affine_eq(&g1, &p.l[j - ni]), "l[%zu]", j - ni);
        if (!cuzk_fr_is_zero(u)) {
            tu_g1_mul_gen(&g1, u);
            CHECK_MSG(ka < p.n_a && cuzk_g1_affine_eq(&g1, &p.a[ka]), "a[%zu]", ka);
            ka++;
        }
        if (!cuzk_fr_is_zero(v)) {
            tu_g1_mul_gen(&g1, v);
            tu_g2_mul_gen(&g2, v);
            CHECK_MSG(kb < p.n_b_g1 && cuzk_g1_affine_eq(&g1, &p.b_g1[kb]), "b_g1[%zu]", kb);
            CHECK_MSG(kb < p.n_b_g2 && cuzk_g2_affine_eq(&g2, &p.b_g2[kb]), "b_g2[%zu]", kb);
            kb++;
        }
    }
    CHECK(ka == p.n_a && kb == p.n_b_g1 && kb == p.n_b_g2);
    CHECK(ka < nv && kb < nv); /* the filter removed something (unused-in-A/B variables exist) */

    /* bad toxic waste */
    cuzk_groth16_toxic bad = t;
    cuzk_fr_set_u64(&bad.delta, 0);
    cuzk_groth16_params q;
    CHECK(cuzk_groth16_setup_toxic(&q, rc, &bad, 1) == CUZK_ERR_INVALID_ARG);
    bad = t;
    bad.tau = w; /* a root of unity of the domain: Z(tau) = 0 */
    CHECK(cuzk_groth16_setup_toxic(&q, rc, &bad, 1) == CUZK_ERR_INVALID_ARG);
    free(uvw);
    cuzk_groth16_params_free(&p);
    cuzk_cs_free(&rc->base);
}

/* Setup, prove and verify one circuit, with the negative cases. */
static void test_roundtrip(const circ_cfg *cfg0, bool full, bool timed)
{
    circ_cfg cfg = *cfg0;
    double t0 = cuzk_now();
    cuzk_recording_cs *rc = (cuzk_recording_cs *)build(CUZK_CS_RECORDING, &cfg, NULL);
    double t1 = cuzk_now();
    cuzk_fr result;
    cuzk_proving_cs *pc = (cuzk_proving_cs *)build(CUZK_CS_PROVING, &cfg, &result);
    double t2 = cuzk_now();
    CHECK(rc && pc);
    if (!rc || !pc) return;
    cuzk_groth16_params p;
    int r = cuzk_groth16_setup(&p, rc, &rng, 2);
    double t3 = cuzk_now();
    CHECK_MSG(r == CUZK_OK, "setup %d", r);
    if (r) return;
    CHECK(p.n_a == pc->base.num_inputs + pc->a_aux.total);
    CHECK(p.n_b_g1 == pc->b_input.total + pc->b_aux.total);
    size_t npub;
    const cuzk_fr *pub = pub_of(pc, &npub);
    CHECK(npub == (size_t)cfg.n_pub + (cfg.sha ? 1 : 0));
    CHECK(cuzk_fr_eq(&pub[npub - 1], &result)); /* the chain's value, computed by the test */

    cuzk_groth16_proof pf, pf2;
    cuzk_groth16_prove_timing tm;
    cuzk_fr r0, s0;
    cuzk_fr_random(&r0, &rng), cuzk_fr_random(&s0, &rng);
    r = cuzk_groth16_prove_timed(&pf, &p, pc, &r0, &s0, 2, &tm);
    double t4 = cuzk_now();
    CHECK_MSG(r == CUZK_OK, "prove %d", r);
    r = verify(&p.vk, &pf, pub, npub);
    double t5 = cuzk_now();
    CHECK_MSG(r == CUZK_OK, "verify %d (constraints %zu, inputs %zu, aux %zu)", r,
              rc->base.num_constraints, rc->base.num_inputs, rc->base.num_aux);
    if (timed)
        fprintf(stderr,
                "circuit: %zu constraints, %zu inputs, %zu aux; synth record %.2fs, synth prove %.2fs, "
                "setup %.2fs, prove %.2fs, verify %.2fs (2 threads)\n",
                rc->base.num_constraints, rc->base.num_inputs, rc->base.num_aux, t1 - t0, t2 - t1,
                t3 - t2, t4 - t3, t5 - t4);
    if (timed)
        fprintf(stderr,
                "prove phases: H NTTs %.3fs, MSMs %.3fs, total %.3fs\n", tm.ntt_h_s, tm.msm_s, tm.total_s);

    if (full) {
        /* randomised: a second proof differs and verifies */
        CHECK(cuzk_groth16_prove(&pf2, &p, pc, &rng, 1) == CUZK_OK);
        CHECK(!proof_eq(&pf, &pf2));
        CHECK(verify(&p.vk, &pf2, pub, npub) == CUZK_OK);
        /* batch verification of both */
        cuzk_groth16_pvk pvk;
        CHECK(cuzk_groth16_prepare_vk(&pvk, &p.vk) == CUZK_OK);
        cuzk_groth16_proof two[2] = {pf, pf2};
        cuzk_fr *ins = malloc(2 * npub * sizeof *ins);
        memcpy(ins, pub, npub * sizeof *ins);
        memcpy(ins + npub, pub, npub * sizeof *ins);
        CHECK(cuzk_groth16_verify_batch_rng(&pvk, two, 2, ins, npub, &rng) == CUZK_OK);
        free(ins);
        cuzk_groth16_pvk_free(&pvk);
        /* fixed r, s: deterministic and independent of nthreads */
        cuzk_fr rr, ss;
        cuzk_fr_random(&rr, &rng), cuzk_fr_random(&ss, &rng);
        CHECK(cuzk_groth16_prove_rs(&pf, &p, pc, &rr, &ss, 1) == CUZK_OK);
        CHECK(cuzk_groth16_prove_rs(&pf2, &p, pc, &rr, &ss, 3) == CUZK_OK);
        CHECK(proof_eq(&pf, &pf2));
        CHECK(verify(&p.vk, &pf, pub, npub) == CUZK_OK);
        /* the same job with its queries by index, B2's list not B1's: the
         * same proof; a job whose queries mix index and density is refused */
        cuzk_groth16_assignment as;
        cuzk_groth16_job job;
        uint32_t *idx[3] = {NULL, NULL, NULL};
        CHECK(cuzk_groth16_assignment_from_cs(&as, pc) == CUZK_OK && cuzk_groth16_job_init(&job, &p, &as) == CUZK_OK);
        CHECK(job_by_index(&job, idx) && !cuzk_groth16_job_b_shared(&job));
        CHECK(cuzk_groth16_prove_job(&pf2, &job, &rr, &ss, 2, NULL) == CUZK_OK && proof_eq(&pf, &pf2));
        job.q_b_g2 = (cuzk_groth16_query){job.q_b_g2.n, NULL, as.b_input, as.b_aux};
        CHECK(cuzk_groth16_prove_job(&pf2, &job, &rr, &ss, 1, NULL) == CUZK_ERR_INVALID_ARG);
        for (int k = 0; k < 3; k++) free(idx[k]);
        /* the aux packed by value class: the same proof; a job with both
         * forms, or a packing of another length or form, is refused */
        {
            cuzk_groth16_job pj;
            cuzk_fr_packed pk, pk_plain;
            CHECK(cuzk_groth16_job_init(&pj, &p, &as) == CUZK_OK);
            CHECK(cuzk_fr_pack(&pk, as.aux, as.num_aux, false) == CUZK_OK);
            CHECK(cuzk_fr_pack(&pk_plain, as.aux, as.num_aux, true) == CUZK_OK);
            pj.aux_packed = &pk;
            CHECK(cuzk_groth16_prove_job(&pf2, &pj, &rr, &ss, 2, NULL) == CUZK_ERR_INVALID_ARG); /* both */
            pj.aux = NULL;
            cuzk_groth16_prove_timing tm;
            CHECK(cuzk_groth16_prove_job(&pf2, &pj, &rr, &ss, 2, &tm) == CUZK_OK && proof_eq(&pf, &pf2));
            CHECK(tm.total_s > 0);
            pj.aux_packed = &pk_plain; /* plain packing of a Montgomery witness */
            CHECK(cuzk_groth16_prove_job(&pf2, &pj, &rr, &ss, 2, NULL) == CUZK_ERR_INVALID_ARG);
            pk.n--;
            pj.aux_packed = &pk;
            CHECK(cuzk_groth16_prove_job(&pf2, &pj, &rr, &ss, 2, NULL) == CUZK_ERR_INVALID_ARG);
            pk.n++;
            cuzk_fr_packed_free(&pk), cuzk_fr_packed_free(&pk_plain);
        }

        /* tampered proofs */
        cuzk_groth16_proof bad = pf;
        cuzk_g1_jac j;
        cuzk_g1_jac_from_affine(&j, &bad.c);
        cuzk_g1_jac_add_affine(&j, &j, &cuzk_g1_generator);
        cuzk_g1_jac_to_affine(&bad.c, &j);
        CHECK(verify(&p.vk, &bad, pub, npub) == CUZK_ERR_VERIFY_FAILED);
        bad = pf;
        cuzk_g1_affine_neg(&bad.a, &bad.a);
        CHECK(verify(&p.vk, &bad, pub, npub) == CUZK_ERR_VERIFY_FAILED);
        bad = pf;
        CHECK(cuzk_groth16_prove(&pf2, &p, pc, &rng, 1) == CUZK_OK);
        bad.b = pf2.b;
        CHECK(verify(&p.vk, &bad, pub, npub) == CUZK_ERR_VERIFY_FAILED);
        /* wrong public input, each position */
        cuzk_fr *wrong = malloc(npub * sizeof *wrong);
        for (size_t i = 0; i < npub; i++) {
            memcpy(wrong, pub, npub * sizeof *wrong);
            cuzk_fr one;
            cuzk_fr_set_u64(&one, 1);
            cuzk_fr_add(&wrong[i], &wrong[i], &one);
            CHECK_MSG(verify(&p.vk, &pf, wrong, npub) == CUZK_ERR_VERIFY_FAILED, "input %zu", i);
        }
        free(wrong);
        CHECK(verify(&p.vk, &pf, pub, npub - 1) == CUZK_ERR_INVALID_ARG);
        /* the vk of another setup of the same circuit */
        cuzk_groth16_params p2;
        CHECK(cuzk_groth16_setup(&p2, rc, &rng, 2) == CUZK_OK);
        CHECK(verify(&p2.vk, &pf, pub, npub) == CUZK_ERR_VERIFY_FAILED);
        CHECK(cuzk_groth16_prove(&pf2, &p2, pc, &rng, 2) == CUZK_OK);
        CHECK(verify(&p2.vk, &pf2, pub, npub) == CUZK_OK);
        CHECK(verify(&p.vk, &pf2, pub, npub) == CUZK_ERR_VERIFY_FAILED);
        cuzk_groth16_params_free(&p2);

        /* params write -> read (validated) -> prove -> verify with the original vk */
        size_t len = cuzk_groth16_params_serialized_size(&p);
        uint8_t *buf = malloc(len);
        cuzk_groth16_params rp;
        size_t used = 0;
        CHECK(cuzk_groth16_params_write_mem(&p, buf, len, NULL) == CUZK_OK);
        CHECK(cuzk_groth16_params_read_mem(&rp, buf, len, CUZK_GROTH16_VALIDATE, 2, &used, NULL) ==
              CUZK_OK);
        CHECK(used == len);
        CHECK(rp.n_h == p.n_h && rp.n_l == p.n_l && rp.n_a == p.n_a && rp.n_b_g2 == p.n_b_g2);
        CHECK(cuzk_groth16_prove(&pf2, &rp, pc, &rng, 2) == CUZK_OK);
        CHECK(verify(&p.vk, &pf2, pub, npub) == CUZK_OK);
        cuzk_groth16_params_free(&rp);
        free(buf);

        /* params of a different circuit are refused */
        circ_cfg other = cfg;
        other.n_mul += 1;
        cuzk_proving_cs *po = (cuzk_proving_cs *)build(CUZK_CS_PROVING, &other, NULL);
        CHECK(po && cuzk_groth16_prove(&pf2, &p, po, &rng, 1) == CUZK_ERR_INVALID_ARG);

        /* several circuits against one parameter set */
        cuzk_groth16_proof many[3];
        const cuzk_proving_cs *list[3] = {pc, pc, pc};
        CHECK(cuzk_groth16_prove_many(many, &p, list, 3, &rng, 2) == CUZK_OK);
        for (int i = 0; i < 3; i++) CHECK(verify(&p.vk, &many[i], pub, npub) == CUZK_OK);
        CHECK(!proof_eq(&many[0], &many[1]) && !proof_eq(&many[1], &many[2]));
        list[1] = po;
        CHECK(po && cuzk_groth16_prove_many(many, &p, list, 3, &rng, 2) == CUZK_ERR_INVALID_ARG);
        if (po) cuzk_cs_free(&po->base);

        /* an unsatisfied witness proves (as bellperson) but does not verify */
        circ_cfg ch = cfg;
        ch.cheat = (int)(cuzk_rng_u64(&rng) % (uint64_t)cfg.n_mul);
        cuzk_proving_cs *pch = (cuzk_proving_cs *)build(CUZK_CS_PROVING, &ch, NULL);
        CHECK(pch != NULL);
        if (pch) {
            size_t nch;
            const cuzk_fr *pubch = pub_of(pch, &nch);
            CHECK(cuzk_groth16_prove(&pf2, &p, pch, &rng, 2) == CUZK_OK);
            CHECK(verify(&p.vk, &pf2, pubch, nch) == CUZK_ERR_VERIFY_FAILED);
            /* and with the honest public inputs */
            CHECK(verify(&p.vk, &pf2, pub, npub) == CUZK_ERR_VERIFY_FAILED);
            cuzk_cs_free(&pch->base);
        }
        /* flip one aux value after synthesis (assignment no longer matches the
         * evaluations of A, B, C) */
        size_t flip = cuzk_rng_u64(&rng) % pc->aux.len;
        cuzk_fr saved = pc->aux.v[flip], one;
        cuzk_fr_set_u64(&one, 1);
        cuzk_fr_add(&pc->aux.v[flip], &pc->aux.v[flip], &one);
        CHECK(cuzk_groth16_prove(&pf2, &p, pc, &rng, 2) == CUZK_OK);
        CHECK_MSG(verify(&p.vk, &pf2, pub, npub) == CUZK_ERR_VERIFY_FAILED, "flipped aux %zu", flip);
        pc->aux.v[flip] = saved;
    }
    cuzk_groth16_params_free(&p);
    cuzk_cs_free(&rc->base);
    cuzk_cs_free(&pc->base);
}

static void test_bad_args(void)
{
    circ_cfg cfg = {.seed = cuzk_rng_u64(&rng), .n_pub = 1, .n_mul = 2, .cheat = -1};
    cuzk_groth16_params p;
    cuzk_groth16_proof pf;
    /* not finalized */
    cuzk_cs *cs = cuzk_cs_new(CUZK_CS_RECORDING);
    cuzk_fr dummy;
    cuzk_cs_alloc_one(cs);
    synth(cs, &cfg, &dummy);
    CHECK(cuzk_groth16_setup(&p, (cuzk_recording_cs *)cs, &rng, 1) == CUZK_ERR_INVALID_ARG);
    cuzk_cs_free(cs);
    CHECK(cuzk_groth16_setup(NULL, NULL, &rng, 1) == CUZK_ERR_INVALID_ARG);
    /* an aux variable in no constraint (bellperson UnconstrainedVariable) */
    cfg.unconstrained = true;
    cuzk_recording_cs *rc = (cuzk_recording_cs *)build(CUZK_CS_RECORDING, &cfg, NULL);
    CHECK(rc && cuzk_groth16_setup(&p, rc, &rng, 1) == CUZK_ERR_INVALID_ARG);
    if (rc) cuzk_cs_free(&rc->base);
    /* proving system not finalized */
    cfg.unconstrained = false;
    rc = (cuzk_recording_cs *)build(CUZK_CS_RECORDING, &cfg, NULL);
    CHECK(rc && cuzk_groth16_setup(&p, rc, &rng, 1) == CUZK_OK);
    cs = cuzk_cs_new(CUZK_CS_PROVING);
    cuzk_cs_alloc_one(cs);
    synth(cs, &cfg, &dummy);
    CHECK(cuzk_groth16_prove(&pf, &p, (cuzk_proving_cs *)cs, &rng, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_cs_finalize(cs) == CUZK_OK);
    CHECK(cuzk_groth16_prove(&pf, &p, (cuzk_proving_cs *)cs, &rng, 1) == CUZK_OK);
    CHECK(cuzk_groth16_prove(&pf, &p, (cuzk_proving_cs *)cs, NULL, 1) == CUZK_ERR_INVALID_ARG);
    /* a recording system is not a proving one */
    CHECK(cuzk_groth16_prove(&pf, &p, (const cuzk_proving_cs *)rc, &rng, 1) == CUZK_ERR_INVALID_ARG);
    cuzk_cs_free(cs);
    cuzk_groth16_params_free(&p);
    if (rc) cuzk_cs_free(&rc->base);
}

int main(void)
{
    tu_init(&rng, "groth16_prove");
    test_known_toxic();
    test_bad_args();
    /* smallest: one input constraint + one multiplication etc. */
    for (int it = 0; it < 6; it++) {
        circ_cfg cfg = {.seed = cuzk_rng_u64(&rng),
                        .n_pub = 1 + (int)(cuzk_rng_u64(&rng) % 3),
                        .n_mul = 1 + (int)(cuzk_rng_u64(&rng) % (it < 3 ? 8 : 300)),
                        .n_bool = (int)(cuzk_rng_u64(&rng) % 20),
                        .cheat = -1};
        test_roundtrip(&cfg, it % 2 == 0, false);
    }
    /* biggest: one SHA-256 block (~27k constraints) */
    circ_cfg sha = {.seed = cuzk_rng_u64(&rng), .n_pub = 2, .n_mul = 50, .n_bool = 10, .sha = true,
                    .cheat = -1};
    test_roundtrip(&sha, true, true);
    return tu_finish("groth16_prove");
}
