/* Filecoin circuit tests: PCE extraction from a finalized RecordingCS, a
 * Groth16 proof through the PCE path with fresh random parameters, its
 * verification, and the rejection of a changed public input. */
#ifndef PCE_PROVE_H
#define PCE_PROVE_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/groth16/groth16_pce.h"
#include "cuzk/groth16/groth16_verify.h"
#include "cuzk/pce/pce.h"
#include "testutil.h"

static inline void pce_prove_verify(const cuzk_recording_cs *r, const cuzk_witness_cs *w, cuzk_rng *rng,
                                    const char *what)
{
    cuzk_groth16_params params;
    int rc = cuzk_groth16_setup(&params, r, rng, 2);
    CHECK_MSG(rc == CUZK_OK, "%s: setup %d", what, rc);
    cuzk_pce *pce = NULL;
    CHECK_MSG(cuzk_pce_from_recording(&pce, r, "fil", NULL, 0, 2, NULL) == CUZK_OK, "%s: PCE", what);
    if (rc || !pce) return;
    cuzk_fr rr, ss;
    cuzk_fr_random(&rr, rng);
    cuzk_fr_random(&ss, rng);
    cuzk_groth16_proof pf;
    cuzk_pce_error e;
    rc = cuzk_groth16_prove_pce(&pf, &params, pce, w, &rr, &ss, 2, NULL, NULL, &e);
    CHECK_MSG(rc == CUZK_OK, "%s: prove_pce %d %s", what, rc, rc ? e.msg : "");
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare_vk(&pvk, &params.vk) == CUZK_OK);
    size_t n = w->input.len - 1;
    CHECK_MSG(cuzk_groth16_verify(&pvk, &pf, w->input.v + 1, n) == CUZK_OK, "%s: proof rejected", what);
    cuzk_fr *bad = malloc(n * sizeof *bad);
    memcpy(bad, w->input.v + 1, n * sizeof *bad);
    cuzk_fr_add(&bad[n - 1], &bad[n - 1], &cuzk_fr_one);
    CHECK_MSG(cuzk_groth16_verify(&pvk, &pf, bad, n) == CUZK_ERR_VERIFY_FAILED, "%s: wrong input accepted", what);
    free(bad);
    cuzk_groth16_pvk_free(&pvk);
    cuzk_pce_free(pce);
    cuzk_groth16_params_free(&params);
}

#endif
