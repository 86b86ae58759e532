/*
 * A stand-in for the PoRep circuit in aggregation tests: a circuit whose public inputs are any
 * given values (x_i public, a_i = x_i·1), set up with TEST parameters for the PoRep's number of
 * inputs, and each sector's "C2 output" made of one proof per partition of the rows
 * cuzk_fil_porep_public_inputs derives from the sector's values. An aggregate sees only the
 * Groth16 key and the rows, so it aggregates and verifies these as the real circuit's (whose
 * 2.7M constraints take minutes a proof on 2 cores).
 */
#ifndef CUZK_TESTS_FIL_AGG_STANDIN_H
#define CUZK_TESTS_FIL_AGG_STANDIN_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_aggregate.h"
#include "cuzk/groth16/groth16.h"

/* x NULL: the blank circuit (setup). */
static int standin_synth(cuzk_cs *cs, const cuzk_fr *x, size_t ni)
{
    cuzk_lc a, b, c;
    cuzk_lc_init(&a), cuzk_lc_init(&b), cuzk_lc_init(&c);
    for (size_t i = 0; i < ni; i++) {
        cuzk_var in = cuzk_cs_alloc_input(cs, "x", x ? &x[i] : &cuzk_fr_zero);
        cuzk_var aux = cuzk_cs_alloc(cs, "a", x ? &x[i] : &cuzk_fr_zero);
        cuzk_lc_clear(&a), cuzk_lc_clear(&b), cuzk_lc_clear(&c);
        cuzk_lc_add(&a, in, &cuzk_fr_one), cuzk_lc_add(&b, cuzk_var_input(0), &cuzk_fr_one);
        cuzk_lc_add(&c, aux, &cuzk_fr_one);
        cuzk_cs_enforce(cs, "x = a", &a, &b, &c);
    }
    cuzk_lc_free(&a), cuzk_lc_free(&b), cuzk_lc_free(&c);
    return cuzk_cs_error(cs);
}

/* TEST parameters of the stand-in with ni public inputs. */
static int standin_setup(cuzk_groth16_params *p, size_t ni, cuzk_rng *rng)
{
    cuzk_recording_cs *r = cuzk_recording_cs_new();
    cuzk_cs_alloc_one(&r->base);
    int rc = standin_synth(&r->base, NULL, ni);
    if (!rc) rc = cuzk_cs_finalize(&r->base);
    if (!rc) rc = cuzk_groth16_setup(p, r, rng, 2);
    cuzk_cs_free(&r->base);
    return rc;
}

/* Each sector's C2 bytes (c2[s] malloc'd, len[s]): its partitions' rows proved with the stand-in. */
static int standin_prove_sectors(uint8_t **c2, size_t *len, const cuzk_groth16_params *p,
                                 const cuzk_fil_agg_values *v, uint32_t parts, size_t ni, cuzk_rng *rng)
{
    cuzk_fr *x = malloc(ni * sizeof *x);
    int rc = x ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    for (size_t s = 0; !rc && s < v->num_sectors; s++) {
        cuzk_fil_seal_values sv = {.registered_proof = v->registered_proof, .sector_id = v->sectors[s].sector_number};
        memcpy(sv.prover_id, v->prover_id, 32), memcpy(sv.ticket, v->sectors[s].ticket, 32);
        memcpy(sv.seed, v->sectors[s].seed, 32), memcpy(sv.comm_d, v->sectors[s].comm_d, 32);
        memcpy(sv.comm_r, v->sectors[s].comm_r, 32);
        len[s] = parts * (size_t)CUZK_GROTH16_PROOF_BYTES;
        if (!(c2[s] = malloc(len[s]))) rc = CUZK_ERR_NO_MEMORY;
        for (uint32_t k = 0; !rc && k < parts; k++) {
            cuzk_groth16_proof pf;
            cuzk_proving_cs *pc = cuzk_proving_cs_new();
            cuzk_cs_alloc_one(&pc->base);
            rc = cuzk_fil_porep_public_inputs(x, &sv, k);
            if (!rc) rc = standin_synth(&pc->base, x, ni);
            if (!rc) rc = cuzk_cs_finalize(&pc->base);
            if (!rc) rc = cuzk_groth16_prove(&pf, p, pc, rng, 2);
            if (!rc) cuzk_groth16_proof_encode(c2[s] + k * CUZK_GROTH16_PROOF_BYTES, &pf);
            cuzk_cs_free(&pc->base);
        }
    }
    free(x);
    return rc;
}

#endif
