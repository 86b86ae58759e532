/* Tests of the vanilla-proof jobs (fil_vanilla.h): a prepared job's witness satisfies TestCS
 * with exactly the rebuilt public inputs; fresh Groth16 test parameters from the blank circuit
 * on RecordingCS; a proof from ProvingCS (direct) and/or from a PCE extracted from the same
 * RecordingCS (WitnessCS + PCE path), each verified against the rebuilt public inputs. */
#ifndef FIL_JOB_PROVE_H
#define FIL_JOB_PROVE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/groth16/groth16_pce.h"
#include "cuzk/groth16/groth16_verify.h"
#include "cuzk/pce/pce.h"
#include "testutil.h"

/* Synthesizes the circuit into cs (ONE allocated); blank: no witness. */
typedef int (*fj_synth)(cuzk_cs *cs, const void *ctx, bool blank);

/* TestCS satisfied, inputs equal to the rebuilt ones; returns the constraint count. */
static inline size_t fj_satisfied(fj_synth fn, const void *ctx, const cuzk_fr *inputs, size_t n, const char *what)
{
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs_alloc_one(&t->base);
    CHECK(fn(&t->base, ctx, false) == 0);
    CHECK_MSG(cuzk_test_cs_is_satisfied(t), "%s: unsatisfied at %s", what, t->first_unsat ? t->first_unsat : "?");
    CHECK_MSG(t->base.num_inputs == n + 1 && !memcmp(&t->input.v[1], inputs, n * sizeof *inputs),
              "%s: circuit inputs (%zu) differ from the rebuilt public inputs (%zu)", what, t->base.num_inputs - 1, n);
    size_t c = t->base.num_constraints;
    cuzk_cs_free(&t->base);
    return c;
}

/* TestCS not satisfied (a tampered witness). */
static inline void fj_unsatisfied(fj_synth fn, const void *ctx, const char *what)
{
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs_alloc_one(&t->base);
    fn(&t->base, ctx, false);
    CHECK_MSG(!cuzk_test_cs_is_satisfied(t), "%s: tampered witness satisfied", what);
    cuzk_cs_free(&t->base);
}

/*
 * Setup, then proofs through the direct path (direct) and the PCE path (pce), each verified
 * with inputs; *pvk and *pf (the last proof made) are left for the caller's tampering checks.
 */
static inline void fj_prove(fj_synth fn, const void *ctx, const cuzk_fr *inputs, size_t n, bool direct, bool pce,
                            cuzk_rng *rng, const char *what, cuzk_groth16_pvk *pvk, cuzk_groth16_proof *pf)
{
    cuzk_recording_cs *r = cuzk_recording_cs_new();
    cuzk_cs_alloc_one(&r->base);
    CHECK(fn(&r->base, ctx, true) == 0 && cuzk_cs_finalize(&r->base) == 0);
    cuzk_groth16_params params;
    int rc = cuzk_groth16_setup(&params, r, rng, 2);
    CHECK_MSG(rc == CUZK_OK, "%s: setup %d", what, rc);
    CHECK(cuzk_groth16_prepare_vk(pvk, &params.vk) == CUZK_OK);
    if (direct) {
        cuzk_proving_cs *p = cuzk_proving_cs_new();
        cuzk_cs_alloc_one(&p->base);
        CHECK(fn(&p->base, ctx, false) == 0 && cuzk_cs_finalize(&p->base) == 0);
        CHECK(cuzk_groth16_prove(pf, &params, p, rng, 2) == CUZK_OK);
        CHECK_MSG(cuzk_groth16_verify(pvk, pf, inputs, n) == CUZK_OK, "%s: direct proof rejected", what);
        cuzk_cs_free(&p->base);
    }
    if (pce) {
        cuzk_pce *x = NULL;
        CHECK_MSG(cuzk_pce_from_recording(&x, r, "fil", NULL, 0, 2, NULL) == CUZK_OK && x, "%s: PCE extraction", what);
        cuzk_witness_cs *w = cuzk_witness_cs_new();
        cuzk_cs_alloc_one(&w->base);
        CHECK(fn(&w->base, ctx, false) == 0);
        cuzk_fr rr, ss;
        cuzk_fr_random(&rr, rng);
        cuzk_fr_random(&ss, rng);
        cuzk_pce_error e;
        rc = x ? cuzk_groth16_prove_pce(pf, &params, x, w, &rr, &ss, 2, NULL, NULL, &e) : CUZK_ERR_INTERNAL;
        CHECK_MSG(rc == CUZK_OK, "%s: prove_pce %d %s", what, rc, rc && x ? e.msg : "");
        CHECK_MSG(cuzk_groth16_verify(pvk, pf, inputs, n) == CUZK_OK, "%s: PCE proof rejected", what);
        cuzk_cs_free(&w->base);
        cuzk_pce_free(x);
    }
    cuzk_groth16_params_free(&params);
    cuzk_cs_free(&r->base);
}

/* err contains want (the field a rejection must name). */
static inline bool fj_names(const char *err, const char *want) { return strstr(err, want) != NULL; }

#endif
