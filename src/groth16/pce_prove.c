/* Groth16 from (witness, pre-compiled circuit): see groth16_pce.h. */
#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16_pce.h"

int cuzk_groth16_assignment_from_pce(cuzk_groth16_assignment *out, const cuzk_pce *pce,
                                     const cuzk_witness_cs *w, const cuzk_pce_eval_buf *buf)
{
    if (!out || !buf || cuzk_pce_check_witness(pce, w, NULL) != CUZK_OK || buf->len != pce->num_constraints)
        return CUZK_ERR_INVALID_ARG;
    *out = (cuzk_groth16_assignment){
        .num_constraints = (size_t)pce->num_constraints,
        .num_inputs = (size_t)pce->num_inputs,
        .num_aux = (size_t)pce->num_aux,
        .a = buf->a, .b = buf->b, .c = buf->c,
        .input = w->input.v, .aux = w->aux.v,
        .a_aux = &pce->a_aux, .b_input = &pce->b_input, .b_aux = &pce->b_aux,
        .abc = buf->domain ? buf->a : NULL, /* the prover's layout: no copy (see groth16.h) */
    };
    return CUZK_OK;
}

int cuzk_groth16_assignment_deferred(cuzk_groth16_assignment *out, const cuzk_pce *pce,
                                     const cuzk_witness_cs *w)
{
    if (!out || cuzk_pce_check_witness(pce, w, NULL) != CUZK_OK) return CUZK_ERR_INVALID_ARG;
    *out = (cuzk_groth16_assignment){
        .num_constraints = (size_t)pce->num_constraints,
        .num_inputs = (size_t)pce->num_inputs,
        .num_aux = (size_t)pce->num_aux,
        .input = w->input.v, .aux = w->aux.v,
        .a_aux = &pce->a_aux, .b_input = &pce->b_input, .b_aux = &pce->b_aux,
        .pce = pce,
    };
    return CUZK_OK;
}

int cuzk_groth16_prove_pce(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                           const cuzk_pce *pce, const cuzk_witness_cs *w, const cuzk_fr *r,
                           const cuzk_fr *s, unsigned nthreads, cuzk_pce_eval_buf *scratch,
                           cuzk_groth16_prove_timing *timing, cuzk_pce_error *err)
{
    int rc = cuzk_pce_check_witness(pce, w, err);
    if (rc) return rc;
    cuzk_pce_eval_buf own, *buf = scratch;
    if (!buf) {
        if ((rc = cuzk_pce_eval_buf_alloc_domain(&own, pce))) return rc;
        buf = &own;
    }
    cuzk_groth16_assignment as;
    rc = cuzk_pce_eval(pce, w, buf, nthreads, err);
    if (!rc) rc = cuzk_groth16_assignment_from_pce(&as, pce, w, buf);
    if (!rc) {
        as.abc_consumable = true; /* evaluated for this proof only */
        rc = cuzk_groth16_prove_assignment(out, params, &as, r, s, nthreads, timing);
    }
    if (!scratch) cuzk_pce_eval_buf_free(&own); /* wipes: witness-derived */
    return rc;
}
