/* Built-in test circuits: exact sizes, satisfied witnesses, natively
 * computed public inputs, the same shape on every constraint system, and proofs that
 * verify against the native public inputs (and fail against others). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/circuits/test_circuits.h"
#include "testutil.h"

typedef int (*synth_fn)(cuzk_cs *cs, const void *spec);
static int synth_synthetic(cuzk_cs *cs, const void *spec) { return cuzk_synthetic_synthesize(cs, spec); }
static int synth_general(cuzk_cs *cs, const void *spec) { return cuzk_synthetic_synthesize_form(cs, spec, true); }
static int synth_chain(cuzk_cs *cs, const void *spec) { return cuzk_sha256_chain_synthesize(cs, spec); }

static cuzk_cs *build(cuzk_cs_kind kind, synth_fn fn, const void *spec, bool finalize)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    CHECK(cs && cuzk_cs_alloc_one(cs) == CUZK_OK);
    CHECK(fn(cs, spec) == CUZK_OK);
    if (finalize) CHECK(cuzk_cs_finalize(cs) == CUZK_OK);
    return cs;
}

/* Same counts on all constraint systems; TestCS satisfied with the native inputs. */
static void check_shape(synth_fn fn, const void *spec, const cuzk_fr *pub, size_t npub,
                        uint64_t want_constraints)
{
    cuzk_cs *cs[4];
    const cuzk_cs_kind kinds[4] = {CUZK_CS_WITNESS, CUZK_CS_RECORDING, CUZK_CS_PROVING, CUZK_CS_TEST};
    for (int k = 0; k < 4; k++) cs[k] = build(kinds[k], fn, spec, false);
    for (int k = 1; k < 4; k++) {
        CHECK(cs[k]->num_inputs == cs[0]->num_inputs);
        CHECK(cs[k]->num_aux == cs[0]->num_aux);
        CHECK(cs[k]->num_constraints == cs[0]->num_constraints);
    }
    CHECK(cs[0]->num_inputs == npub + 1);
    if (want_constraints) CHECK_MSG(cs[3]->num_constraints == want_constraints, "%zu vs %llu",
                                    (size_t)cs[3]->num_constraints, (unsigned long long)want_constraints);
    cuzk_test_cs *t = (cuzk_test_cs *)cs[3];
    CHECK(cuzk_test_cs_is_satisfied(t));
    for (size_t i = 0; i < npub && i + 1 < t->input.len; i++)
        CHECK(cuzk_fr_eq(&t->input.v[i + 1], &pub[i]));
    cuzk_witness_cs *w = (cuzk_witness_cs *)cs[0];
    CHECK(w->aux.len == t->aux.len && !memcmp(w->aux.v, t->aux.v, w->aux.len * sizeof(cuzk_fr)));
    for (int k = 0; k < 4; k++) cuzk_cs_free(cs[k]);
}

/* A flipped aux value is caught by TestCS. */
static void check_tamper(synth_fn fn, const void *spec, cuzk_rng *rng)
{
    cuzk_cs *probe = build(CUZK_CS_WITNESS, fn, spec, false);
    size_t na = probe->num_aux;
    cuzk_cs_free(probe);
    cuzk_test_cs *t = cuzk_test_cs_new();
    t->tamper = true;
    t->tamper_index = (size_t)(cuzk_rng_u64(rng) % na);
    cuzk_fr_random(&t->tamper_value, rng);
    CHECK(cuzk_cs_alloc_one(&t->base) == CUZK_OK);
    fn(&t->base, spec);
    CHECK_MSG(!cuzk_test_cs_is_satisfied(t), "aux %zu tampered", t->tamper_index);
    cuzk_cs_free(&t->base);
}

/* Setup on the RecordingCS, prove two witnesses, verify against the native
 * public inputs; other inputs are rejected. */
static void check_prove(synth_fn fn, const void *spec0, const void *spec1, const cuzk_fr *pub0,
                        const cuzk_fr *pub1, size_t npub, cuzk_rng *rng)
{
    cuzk_cs *rec = build(CUZK_CS_RECORDING, fn, spec0, true);
    cuzk_groth16_params params;
    CHECK(cuzk_groth16_setup(&params, (cuzk_recording_cs *)rec, rng, 2) == CUZK_OK);
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare_vk(&pvk, &params.vk) == CUZK_OK);
    const void *specs[2] = {spec0, spec1};
    const cuzk_fr *pubs[2] = {pub0, pub1};
    for (int w = 0; w < 2; w++) {
        cuzk_cs *pa = build(CUZK_CS_PROVING, fn, specs[w], true);
        cuzk_groth16_proof proof;
        CHECK(cuzk_groth16_prove(&proof, &params, (cuzk_proving_cs *)pa, rng, 2) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&pvk, &proof, pubs[w], npub) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&pvk, &proof, pubs[1 - w], npub) == CUZK_ERR_VERIFY_FAILED);
        cuzk_cs_free(pa);
    }
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_params_free(&params);
    cuzk_cs_free(rec);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_test_circuits");

    /* synthetic: exact constraint counts, including degenerate shapes */
    const uint64_t sizes[][2] = {{1, 0}, {1, 1}, {7, 3}, {100, 0}, {1000, 5}, {5000, 17}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        cuzk_synthetic_spec spec = {sizes[i][0], (uint32_t)sizes[i][1], cuzk_rng_u64(&rng)};
        cuzk_fr pub[32];
        CHECK(cuzk_synthetic_public_inputs(pub, &spec) == CUZK_OK);
        check_shape(synth_synthetic, &spec, pub, spec.num_inputs, spec.num_constraints);
        if (spec.num_constraints > 1) check_tamper(synth_synthetic, &spec, &rng);
        /* the general form: the same counts and public inputs, satisfied, tamper-evident */
        check_shape(synth_general, &spec, pub, spec.num_inputs, spec.num_constraints);
        if (spec.num_constraints > 1) check_tamper(synth_general, &spec, &rng);
    }
    cuzk_synthetic_spec bad = {2, 3, 0};
    cuzk_cs *cs = cuzk_cs_new(CUZK_CS_WITNESS);
    cuzk_cs_alloc_one(cs);
    CHECK(cuzk_synthetic_synthesize(cs, &bad) == CUZK_ERR_INVALID_ARG);
    cuzk_cs_free(cs);

    /* The structure depends on the sizes only: two witnesses, one setup. */
    cuzk_synthetic_spec s0 = {3000, 4, cuzk_rng_u64(&rng)}, s1 = s0;
    s1.witness_seed = cuzk_rng_u64(&rng);
    cuzk_fr p0[4], p1[4];
    cuzk_synthetic_public_inputs(p0, &s0);
    cuzk_synthetic_public_inputs(p1, &s1);
    check_prove(synth_synthetic, &s0, &s1, p0, p1, 4, &rng);
    check_prove(synth_general, &s0, &s1, p0, p1, 4, &rng);

    /* SHA-256 chain */
    cuzk_sha256_chain_spec c0 = {2, cuzk_rng_u64(&rng)}, c1 = c0;
    c1.witness_seed = cuzk_rng_u64(&rng);
    cuzk_fr q0[4], q1[4];
    CHECK(cuzk_sha256_chain_public_inputs(q0, &c0) == CUZK_OK);
    CHECK(cuzk_sha256_chain_public_inputs(q1, &c1) == CUZK_OK);
    check_shape(synth_chain, &c0, q0, 4, 0);
    check_tamper(synth_chain, &c0, &rng);
    check_prove(synth_chain, &c0, &c1, q0, q1, 4, &rng);

    return tu_finish("test_test_circuits");
}
