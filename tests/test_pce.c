/* PCE extraction and evaluation: for random circuits (every coefficient
 * class, long rows, zero terms), the gadget circuits of test_cs_circuit.h
 * and SHA-256 blocks, a = A·w, b = B·w, c = C·w from (WitnessCS, PCE) are
 * bit-identical to a ProvingAssignment's (the independent oracle), with
 * equal density bitmaps, for u32 and u64 row pointers, 1-3 threads, and
 * after a save/load round trip. Proofs from the PCE path equal the
 * ProvingAssignment proofs for the same r, s, verify, and the counters show
 * the PCE path ran; a witness of another circuit is refused clearly. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16_pce.h"
#include "cuzk/pce/pce.h"
#include "cuzk/circuits/test_circuits.h"
#include "test_cs_circuit.h"
#include "test_pce_circuit.h"
#include "testutil.h"

static cuzk_rng rng;
static char tmpdir[256];

static bool dens_eq(const cuzk_density *a, const cuzk_density *b)
{
    if (a->len != b->len || a->total != b->total) return false;
    for (size_t i = 0; i < a->len; i++)
        if (cuzk_density_get(a, i) != cuzk_density_get(b, i)) return false;
    return true;
}

/* Evaluates pce with w on nthreads and compares with p bit for bit. */
static bool eval_matches(const cuzk_pce *pce, const cuzk_witness_cs *w, const cuzk_proving_cs *p, unsigned nthreads)
{
    cuzk_pce_eval_buf buf;
    if (cuzk_pce_eval_buf_alloc(&buf, pce)) return false;
    cuzk_pce_error e;
    bool ok = cuzk_pce_eval(pce, w, &buf, nthreads, &e) == CUZK_OK;
    size_t m = p->base.num_constraints;
    ok = ok && buf.len == m && !memcmp(buf.a, p->a.v, m * sizeof(cuzk_fr)) &&
         !memcmp(buf.b, p->b.v, m * sizeof(cuzk_fr)) && !memcmp(buf.c, p->c.v, m * sizeof(cuzk_fr));
    cuzk_pce_eval_buf_free(&buf);
    /* into the prover's layout, over caller memory full of garbage: the same
     * rows, and the tail up to the domain size zeroed */
    const size_t n = cuzk_pce_domain_size(pce);
    cuzk_fr *abc = malloc(3 * n * sizeof *abc);
    if (!abc) return false;
    memset(abc, 0xab, 3 * n * sizeof *abc);
    ok = ok && n >= m && n < 2 * m + 2 && cuzk_pce_eval_buf_wrap(&buf, pce, abc, 3 * n - 1) == CUZK_ERR_INVALID_ARG;
    ok = ok && cuzk_pce_eval_buf_wrap(&buf, pce, abc, 3 * n) == CUZK_OK && buf.domain == n;
    ok = ok && cuzk_pce_eval(pce, w, &buf, nthreads, &e) == CUZK_OK;
    ok = ok && !memcmp(abc, p->a.v, m * sizeof(cuzk_fr)) && !memcmp(abc + n, p->b.v, m * sizeof(cuzk_fr)) &&
         !memcmp(abc + 2 * n, p->c.v, m * sizeof(cuzk_fr));
    for (int k = 0; k < 3 && ok; k++)
        for (size_t i = m; i < n; i++) ok = ok && cuzk_fr_is_zero(&abc[k * n + i]);
    cuzk_pce_eval_buf_free(&buf); /* wipes, does not free caller memory */
    for (size_t i = 0; i < 3 * n && ok; i++) ok = cuzk_fr_is_zero(&abc[i]);
    free(abc);
    return ok;
}

/* Histogram against a count made directly on the RecordingCS values. */
static void check_hist(const cuzk_pce *pce, const cuzk_recording_cs *r)
{
    for (int k = 0; k < 3; k++) {
        uint64_t ones = 0, zeros = 0, sum = 0;
        cuzk_fr neg;
        uint64_t negones = 0;
        for (size_t i = 0; i < r->m[k].nnz; i++) {
            const cuzk_fr *v = cuzk_recording_cs_val(r, k, i);
            cuzk_fr_neg(&neg, v);
            ones += cuzk_fr_is_one(v), zeros += cuzk_fr_is_zero(v), negones += cuzk_fr_is_one(&neg);
        }
        for (int c = 0; c < CUZK_PCE_HIST_N; c++) sum += pce->m[k].hist[c];
        CHECK(sum == r->m[k].nnz && pce->m[k].nnz == r->m[k].nnz);
        CHECK(pce->m[k].hist[CUZK_PCE_ONE] == ones && pce->m[k].hist[CUZK_PCE_NEG_ONE] == negones &&
              pce->m[k].hist[CUZK_PCE_HIST_ZERO] == zeros);
    }
}

/* A saved file of len bytes damaged as a copy over it would (cut, then
 * random bytes written from a random offset, in place); says how. */
static const char *damage_file(const char *path, size_t len)
{
    static char how[96];
    const size_t cut = cuzk_rng_u64(&rng) % len, at = cuzk_rng_u64(&rng) % len, n = 1 + cuzk_rng_u64(&rng) % 4096;
    uint8_t junk[4096];
    cuzk_rng_bytes(&rng, junk, n);
    CHECK(truncate(path, (off_t)cut) == 0);
    FILE *f = fopen(path, "r+b");
    CHECK(f && fseek(f, (long)at, SEEK_SET) == 0 && fwrite(junk, 1, n, f) == n);
    if (f) fclose(f);
    snprintf(how, sizeof how, "cut to %zu of %zu bytes, %zu bytes written at %zu", cut, len, n, at);
    return how;
}

/* Every check for one circuit, built by fn into the three constraint systems. */
typedef void (*synth_fn)(cuzk_cs *cs, const void *arg);

static cuzk_cs *build_with(cuzk_cs_kind kind, synth_fn fn, const void *arg)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    cuzk_cs_alloc_one(cs);
    fn(cs, arg);
    if (cuzk_cs_finalize(cs)) {
        cuzk_cs_free(cs);
        return NULL;
    }
    return cs;
}

static void parity(const char *what, synth_fn fn, const void *arg)
{
    cuzk_recording_cs *r = (cuzk_recording_cs *)build_with(CUZK_CS_RECORDING, fn, arg);
    cuzk_proving_cs *p = (cuzk_proving_cs *)build_with(CUZK_CS_PROVING, fn, arg);
    cuzk_witness_cs *w = (cuzk_witness_cs *)build_with(CUZK_CS_WITNESS, fn, arg);
    CHECK_MSG(r && p && w, "%s: build", what);
    if (!r || !p || !w) goto out;
    uint8_t fp[32];
    cuzk_pce_fingerprint(fp, what);
    for (int variant = 0; variant < 4; variant++) {
        unsigned flags = (variant & 1) ? CUZK_PCE_WIDE_ROWPTR : 0, nt = 1 + (variant >> 1);
        cuzk_pce *pce = NULL;
        cuzk_pce_error e;
        int rc = cuzk_pce_from_recording(&pce, r, "test-circuit", fp, flags, nt, &e);
        CHECK_MSG(rc == CUZK_OK, "%s: extraction: %s", what, rc ? e.msg : "");
        if (rc) continue;
        CHECK(pce->num_inputs == p->base.num_inputs && pce->num_aux == p->base.num_aux &&
              pce->num_constraints == p->base.num_constraints);
        CHECK((pce->m[0].row_ptr64 != NULL) == (variant & 1) && (pce->m[0].row_ptr32 != NULL) == !(variant & 1));
        CHECK_MSG(dens_eq(&pce->a_aux, &p->a_aux) && dens_eq(&pce->b_input, &p->b_input) &&
                      dens_eq(&pce->b_aux, &p->b_aux),
                  "%s: density bitmaps", what);
        check_hist(pce, r);
        for (unsigned t = 1; t <= 3; t++) CHECK_MSG(eval_matches(pce, w, p, t), "%s variant %d, %u threads", what, variant, t);

        /* save, load (file and memory): same content, same evaluations */
        char path[300];
        snprintf(path, sizeof path, "%s/v%d.pce", tmpdir, variant);
        CHECK(cuzk_pce_save(pce, path, &e) == CUZK_OK);
        cuzk_pce *l = NULL;
        cuzk_pce_expect ex = {.circuit_id = "test-circuit", .fingerprint = fp};
        rc = cuzk_pce_load_file(&l, path, &ex, 0, 2, &e);
        CHECK_MSG(rc == CUZK_OK, "%s: load: %s", what, rc ? e.msg : "");
        if (!rc) {
            CHECK(l->mapped && !memcmp(l->content_hash, pce->content_hash, 32));
            CHECK(dens_eq(&l->a_aux, &p->a_aux) && dens_eq(&l->b_input, &p->b_input) && dens_eq(&l->b_aux, &p->b_aux));
            CHECK(!memcmp(l->m[2].hist, pce->m[2].hist, sizeof l->m[2].hist));
            CHECK(eval_matches(l, w, p, 2));
            /* the file cut and rewritten under the loaded PCE: the PCE keeps
             * the bytes it checked (a mapping of the file would fault with
             * SIGBUS at this evaluation) */
            const char *how = damage_file(path, l->image_len);
            CHECK_MSG(!memcmp(l->image, pce->image, pce->image_len) && eval_matches(l, w, p, 2),
                      "%s: after the file was %s", what, how);
            cuzk_pce *mm = NULL;
            CHECK(cuzk_pce_load_mem(&mm, l->image, l->image_len, &ex, 0, 1, &e) == CUZK_OK);
            if (mm) CHECK(eval_matches(mm, w, p, 1));
            cuzk_pce_free(mm);
        }
        cuzk_pce_free(l);
        unlink(path);
        cuzk_pce_free(pce);
    }
out:
    cuzk_cs_free(&r->base), cuzk_cs_free(&p->base), cuzk_cs_free(&w->base);
}

static void synth_pc(cuzk_cs *cs, const void *arg) { pc_circuit(cs, arg); }

typedef struct rc_arg {
    uint64_t seed;
    int steps;
    bool sha;
} rc_arg;
static void synth_rc(cuzk_cs *cs, const void *arg)
{
    const rc_arg *a = arg;
    rc_circuit(cs, a->seed, a->steps, a->sha);
}

/* SHA-256 blocks on allocated message bits (the bulk of Filecoin's circuits). */
static void synth_sha(cuzk_cs *cs, const void *arg)
{
    const uint64_t *seed = arg;
    cuzk_rng r;
    cuzk_rng_seed(&r, *seed);
    cuzk_bool in[512], out[256];
    for (int b = 0; b < 2; b++) {
        for (int i = 0; i < 512; i++) in[i] = b && i < 256 ? out[i] : cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
        cuzk_sha256_block_no_padding(cs, in, out);
    }
    cuzk_pack_into_inputs(cs, out, 256);
}

/* The built-in circuits (src/circuits): a Filecoin-shaped synthetic mix and a SHA-256 chain. */
static void synth_synthetic(cuzk_cs *cs, const void *arg) { cuzk_synthetic_synthesize(cs, arg); }
static void synth_chain(cuzk_cs *cs, const void *arg) { cuzk_sha256_chain_synthesize(cs, arg); }

static int verify(const cuzk_groth16_vk *vk, const cuzk_groth16_proof *pf, const cuzk_fr *in, size_t n)
{
    cuzk_groth16_pvk pvk;
    int rc = cuzk_groth16_prepare_vk(&pvk, vk);
    if (rc) return rc;
    rc = cuzk_groth16_verify(&pvk, pf, in, n);
    cuzk_groth16_pvk_free(&pvk);
    return rc;
}

static void test_prove(bool sha)
{
    pc_cfg cfg = {.seed = cuzk_rng_u64(&rng), .rows = sha ? 200 : 120, .long_every = 17, .satisfied = true, .sha = sha};
    cuzk_recording_cs *r = (cuzk_recording_cs *)pc_build(CUZK_CS_RECORDING, &cfg);
    cuzk_proving_cs *p = (cuzk_proving_cs *)pc_build(CUZK_CS_PROVING, &cfg);
    cuzk_witness_cs *w = (cuzk_witness_cs *)pc_build(CUZK_CS_WITNESS, &cfg);
    cuzk_test_cs *t = (cuzk_test_cs *)pc_build(CUZK_CS_TEST, &cfg);
    CHECK(r && p && w && t);
    if (!r || !p || !w || !t) return;
    CHECK_MSG(cuzk_test_cs_is_satisfied(t), "proof circuit unsatisfied at %s", t->first_unsat ? t->first_unsat : "?");
    cuzk_groth16_params params;
    int rc = cuzk_groth16_setup(&params, r, &rng, 2);
    CHECK_MSG(rc == CUZK_OK, "setup %d", rc);
    cuzk_pce *pce = NULL;
    CHECK(cuzk_pce_from_recording(&pce, r, "proof", NULL, 0, 2, NULL) == CUZK_OK);
    if (rc || !pce) return;

    cuzk_fr rr, ss;
    cuzk_fr_random(&rr, &rng), cuzk_fr_random(&ss, &rng);
    cuzk_pce_counters c0, c1;
    cuzk_pce_counters_get(&c0);
    cuzk_groth16_proof via_pce, via_pa;
    cuzk_pce_error e;
    rc = cuzk_groth16_prove_pce(&via_pce, &params, pce, w, &rr, &ss, 2, NULL, NULL, &e);
    CHECK_MSG(rc == CUZK_OK, "prove_pce: %d %s", rc, rc ? e.msg : "");
    cuzk_pce_counters_get(&c1);
    /* the PCE path ran: one evaluation over every matrix entry */
    CHECK(c1.evals == c0.evals + 1 &&
          c1.eval_nnz == c0.eval_nnz + pce->m[0].nnz + pce->m[1].nnz + pce->m[2].nnz);
    CHECK(cuzk_groth16_prove_rs(&via_pa, &params, p, &rr, &ss, 2) == CUZK_OK);
    CHECK(cuzk_g1_affine_eq(&via_pce.a, &via_pa.a) && cuzk_g2_affine_eq(&via_pce.b, &via_pa.b) &&
          cuzk_g1_affine_eq(&via_pce.c, &via_pa.c));
    /* with a caller-kept scratch buffer (plain, then in the prover's layout,
     * transformed in place), twice each: the same proof */
    for (int dom = 0; dom < 2; dom++) {
        cuzk_pce_eval_buf scratch;
        CHECK((dom ? cuzk_pce_eval_buf_alloc_domain(&scratch, pce) : cuzk_pce_eval_buf_alloc(&scratch, pce)) ==
              CUZK_OK);
        for (int i = 0; i < 2; i++) {
            cuzk_groth16_proof again;
            CHECK(cuzk_groth16_prove_pce(&again, &params, pce, w, &rr, &ss, 1, &scratch, NULL, NULL) == CUZK_OK);
            CHECK_MSG(cuzk_g1_affine_eq(&again.a, &via_pa.a) && cuzk_g2_affine_eq(&again.b, &via_pa.b) &&
                          cuzk_g1_affine_eq(&again.c, &via_pa.c),
                      "scratch %s, proof %d differs", dom ? "domain" : "plain", i);
        }
        if (dom) /* in place: the NTT overwrote the evaluation (no copy was made) */
            CHECK(memcmp(scratch.a, p->a.v, p->a.len * sizeof(cuzk_fr)) != 0);
        cuzk_pce_eval_buf_free(&scratch);
    }
    /* the assignment view of a domain-sized evaluation: abc set and not
     * consumed, so proving twice from one view gives the same proof */
    {
        cuzk_pce_eval_buf db;
        cuzk_groth16_assignment as;
        cuzk_groth16_proof again_d;
        CHECK(cuzk_pce_eval_buf_alloc_domain(&db, pce) == CUZK_OK);
        CHECK(cuzk_pce_eval(pce, w, &db, 2, NULL) == CUZK_OK);
        CHECK(cuzk_groth16_assignment_from_pce(&as, pce, w, &db) == CUZK_OK);
        CHECK(as.abc == db.a && !as.abc_consumable);
        for (int i = 0; i < 2; i++) {
            cuzk_groth16_proof again;
            CHECK(cuzk_groth16_prove_assignment(&again, &params, &as, &rr, &ss, 2, NULL) == CUZK_OK);
            CHECK(cuzk_g1_affine_eq(&again.a, &via_pa.a) && cuzk_g2_affine_eq(&again.b, &via_pa.b) &&
                  cuzk_g1_affine_eq(&again.c, &via_pa.c));
        }
        /* a, b, c left to the prover (the GPU prover's input; the CPU
         * evaluates them itself): the same proof, refused when the view and
         * the PCE disagree */
        cuzk_groth16_assignment dv;
        CHECK(cuzk_groth16_assignment_deferred(&dv, pce, w) == CUZK_OK);
        CHECK(dv.pce == pce && !dv.a && !dv.abc);
        cuzk_groth16_prove_timing dtm;
        cuzk_pce_counters_get(&c0);
        CHECK(cuzk_groth16_prove_assignment(&again_d, &params, &dv, &rr, &ss, 2, &dtm) == CUZK_OK);
        cuzk_pce_counters_get(&c1);
        CHECK(c1.evals == c0.evals + 1);
        CHECK_MSG(cuzk_g1_affine_eq(&again_d.a, &via_pa.a) && cuzk_g2_affine_eq(&again_d.b, &via_pa.b) &&
                      cuzk_g1_affine_eq(&again_d.c, &via_pa.c),
                  "deferred assignment: proof differs");
        cuzk_groth16_assignment dbad = dv;
        dbad.b_aux = &p->b_aux;
        CHECK(cuzk_groth16_prove_assignment(&again_d, &params, &dbad, &rr, &ss, 1, NULL) == CUZK_ERR_INVALID_ARG);
        dbad = dv;
        dbad.num_constraints++;
        CHECK(cuzk_groth16_prove_assignment(&again_d, &params, &dbad, &rr, &ss, 1, NULL) == CUZK_ERR_INVALID_ARG);
        dbad = dv;
        dbad.abc = db.a;
        CHECK(cuzk_groth16_prove_assignment(&again_d, &params, &dbad, &rr, &ss, 1, NULL) == CUZK_ERR_INVALID_ARG);
        /* a block that is not a | b | c of the domain layout is refused */
        cuzk_groth16_assignment bad_as = as;
        bad_as.b = as.abc + 1;
        cuzk_groth16_proof tmp;
        CHECK(cuzk_groth16_prove_assignment(&tmp, &params, &bad_as, &rr, &ss, 1, NULL) == CUZK_ERR_INVALID_ARG);
        cuzk_pce_eval_buf_free(&db);
    }
    size_t npub = w->input.len - 1;
    CHECK(verify(&params.vk, &via_pce, w->input.v + 1, npub) == CUZK_OK);
    cuzk_fr *bad = malloc(npub * sizeof *bad);
    memcpy(bad, w->input.v + 1, npub * sizeof *bad);
    cuzk_fr_add(&bad[npub / 2], &bad[npub / 2], &cuzk_fr_one);
    CHECK(verify(&params.vk, &via_pce, bad, npub) == CUZK_ERR_VERIFY_FAILED);
    free(bad);

    /* a witness of another circuit: refused before any evaluation, clearly */
    pc_cfg other = cfg;
    other.rows += 1;
    cuzk_witness_cs *w2 = (cuzk_witness_cs *)pc_build(CUZK_CS_WITNESS, &other);
    cuzk_pce_counters_get(&c0);
    memset(&e, 0, sizeof e);
    rc = cuzk_groth16_prove_pce(&via_pce, &params, pce, w2, &rr, &ss, 1, NULL, NULL, &e);
    cuzk_pce_counters_get(&c1);
    CHECK(rc == CUZK_ERR_INVALID_ARG && e.fail == CUZK_PCE_FAIL_WITNESS && c1.evals == c0.evals);
    char want[64];
    snprintf(want, sizeof want, "%zu aux", w2->base.num_aux);
    CHECK_MSG(strstr(e.msg, want) != NULL, "message: %s", e.msg);
    cuzk_groth16_assignment as;
    cuzk_pce_eval_buf buf;
    CHECK(cuzk_pce_eval_buf_alloc(&buf, pce) == CUZK_OK);
    CHECK(cuzk_groth16_assignment_from_pce(&as, pce, w2, &buf) == CUZK_ERR_INVALID_ARG);
    cuzk_pce_eval_buf_free(&buf);
    cuzk_cs_free(&w2->base);

    cuzk_pce_free(pce);
    cuzk_groth16_params_free(&params);
    cuzk_cs_free(&r->base), cuzk_cs_free(&p->base), cuzk_cs_free(&w->base), cuzk_cs_free(&t->base);
}

/* A SHA-256 chain proved from (witness, PCE), checked against public inputs
 * computed natively (not taken from the prover's witness). */
static void test_prove_chain(void)
{
    cuzk_sha256_chain_spec spec = {.length = 1, .witness_seed = cuzk_rng_u64(&rng)};
    cuzk_recording_cs *r = (cuzk_recording_cs *)build_with(CUZK_CS_RECORDING, synth_chain, &spec);
    cuzk_witness_cs *w = (cuzk_witness_cs *)build_with(CUZK_CS_WITNESS, synth_chain, &spec);
    CHECK(r && w);
    if (!r || !w) return;
    cuzk_groth16_params params;
    cuzk_pce *pce = NULL;
    CHECK(cuzk_groth16_setup(&params, r, &rng, 2) == CUZK_OK);
    CHECK(cuzk_pce_from_recording(&pce, r, "sha256-chain-1", NULL, 0, 2, NULL) == CUZK_OK);
    cuzk_fr rr, ss, pub[CUZK_SHA256_CHAIN_NUM_INPUTS];
    cuzk_fr_random(&rr, &rng), cuzk_fr_random(&ss, &rng);
    CHECK(cuzk_sha256_chain_public_inputs(pub, &spec) == CUZK_OK);
    cuzk_groth16_proof pf;
    CHECK(pce && cuzk_groth16_prove_pce(&pf, &params, pce, w, &rr, &ss, 2, NULL, NULL, NULL) == CUZK_OK);
    CHECK(verify(&params.vk, &pf, pub, CUZK_SHA256_CHAIN_NUM_INPUTS) == CUZK_OK);
    /* another chain's public inputs do not verify */
    cuzk_sha256_chain_spec other = spec;
    other.witness_seed ^= 1;
    CHECK(cuzk_sha256_chain_public_inputs(pub, &other) == CUZK_OK);
    CHECK(verify(&params.vk, &pf, pub, CUZK_SHA256_CHAIN_NUM_INPUTS) == CUZK_ERR_VERIFY_FAILED);
    cuzk_pce_free(pce);
    cuzk_groth16_params_free(&params);
    cuzk_cs_free(&r->base), cuzk_cs_free(&w->base);
}

static void test_bad_args(void)
{
    cuzk_recording_cs *r = cuzk_recording_cs_new();
    cuzk_cs_alloc_one(&r->base);
    cuzk_pce *pce = (cuzk_pce *)1;
    cuzk_pce_error e;
    CHECK(cuzk_pce_from_recording(&pce, r, "x", NULL, 0, 1, &e) == CUZK_ERR_INVALID_ARG && !pce); /* not finalized */
    cuzk_cs_finalize(&r->base);
    CHECK(cuzk_pce_from_recording(&pce, r, "a/b", NULL, 0, 1, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_pce_from_recording(&pce, r, "", NULL, 0, 1, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_pce_from_recording(&pce, r, "ok", NULL, 0, 1, &e) == CUZK_OK);
    if (pce) CHECK(pce->num_constraints == 1 && pce->num_inputs == 1 && pce->m[0].nnz == 1);
    /* no aux at all: the witness's aux vector may be NULL */
    cuzk_witness_cs *w = cuzk_witness_cs_new();
    cuzk_proving_cs *p = cuzk_proving_cs_new();
    cuzk_cs_alloc_one(&w->base), cuzk_cs_alloc_one(&p->base);
    cuzk_cs_finalize(&w->base), cuzk_cs_finalize(&p->base);
    if (pce) CHECK(eval_matches(pce, w, p, 2));
    cuzk_cs_free(&w->base), cuzk_cs_free(&p->base);
    cuzk_pce_free(pce);
    cuzk_cs_free(&r->base);
}

int main(void)
{
    tu_init(&rng, "test_pce");
    snprintf(tmpdir, sizeof tmpdir, "%s/cuzk_test_pce.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return 1;

    test_bad_args();
    for (int i = 0; i < 6; i++) {
        pc_cfg cfg = {.seed = cuzk_rng_u64(&rng), .rows = 50 + (int)(cuzk_rng_u64(&rng) % 3000),
                      .long_every = i % 2 ? 0 : 1 + i, .satisfied = i % 3 == 0, .sha = false};
        parity("random coefficients", synth_pc, &cfg);
    }
    for (int i = 0; i < 3; i++) {
        rc_arg a = {cuzk_rng_u64(&rng), 200 + (int)(cuzk_rng_u64(&rng) % 400), i == 2};
        parity("gadget circuit", synth_rc, &a);
    }
    uint64_t seed = cuzk_rng_u64(&rng);
    parity("two SHA-256 blocks", synth_sha, &seed);
    cuzk_synthetic_spec syn = {.num_constraints = 2000 + cuzk_rng_u64(&rng) % 6000,
                               .num_inputs = 1 + (uint32_t)(cuzk_rng_u64(&rng) % 4), .witness_seed = cuzk_rng_u64(&rng)};
    parity("synthetic circuit", synth_synthetic, &syn);
    cuzk_sha256_chain_spec chain = {.length = 2, .witness_seed = cuzk_rng_u64(&rng)};
    parity("SHA-256 chain", synth_chain, &chain);
    test_prove_chain();
    test_prove(false);
    test_prove(true);
    rmdir(tmpdir);
    return tu_finish("test_pce");
}
