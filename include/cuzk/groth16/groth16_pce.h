/*
 * Groth16 proofs from a pre-compiled circuit: (WitnessCS witness, PCE)
 * instead of a ProvingAssignment. The witness is checked against the PCE's
 * sizes first (CUZK_ERR_INVALID_ARG with a message naming both), then
 * a, b, c come from cuzk_pce_eval and the PCE's density bitmaps select the
 * query scalars; the proof is the one cuzk_groth16_prove_rs gives for the
 * same circuit, witness, r and s.
 */
#ifndef CUZK_GROTH16_PCE_H
#define CUZK_GROTH16_PCE_H

#include "cuzk/groth16/groth16.h"
#include "cuzk/pce/pce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The prover's view of (pce, w) with a, b, c in buf (filled by
 * cuzk_pce_eval); nothing is copied. With a domain-sized buf
 * (cuzk_pce_eval_buf_alloc_domain / _wrap) the view's abc is set, so the
 * prover reads the evaluation where it transforms it; abc_consumable is
 * left false (the caller may prove again from the same view).
 * CUZK_ERR_INVALID_ARG on size mismatch. */
int cuzk_groth16_assignment_from_pce(cuzk_groth16_assignment *out, const cuzk_pce *pce,
                                     const cuzk_witness_cs *w, const cuzk_pce_eval_buf *buf);
/* The view of (pce, w) with a, b, c not evaluated: the prover evaluates
 * them (the assignment's pce field, see groth16.h), so the caller holds only
 * the witness until then. CUZK_ERR_INVALID_ARG on size mismatch. */
int cuzk_groth16_assignment_deferred(cuzk_groth16_assignment *out, const cuzk_pce *pce,
                                     const cuzk_witness_cs *w);

/*
 * Evaluates and proves. scratch (may be NULL: allocated and wiped here) is
 * an evaluation buffer for this PCE that a caller proving many times keeps,
 * so its pages are not faulted in again for every proof; it holds
 * witness-derived values afterwards (cuzk_pce_eval_buf_free wipes them).
 * A domain-sized scratch (cuzk_pce_eval_buf_alloc_domain) is evaluated into
 * and transformed in place: no copy of a, b, c (its contents are garbage
 * afterwards); the one allocated here is domain-sized.
 * err (may be NULL) explains a witness mismatch.
 */
int cuzk_groth16_prove_pce(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                           const cuzk_pce *pce, const cuzk_witness_cs *w, const cuzk_fr *r,
                           const cuzk_fr *s, unsigned nthreads, cuzk_pce_eval_buf *scratch,
                           cuzk_groth16_prove_timing *timing, cuzk_pce_error *err);

#ifdef __cplusplus
}
#endif
#endif
