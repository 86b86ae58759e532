/* Writes the PCE of a random test circuit (tests/test_pce_circuit.h) and
 * prints its counts as the RecordingCS has them (not through the PCE), for
 * the CLI round trip. Usage: tool_pce_write FILE ROWS [wide] (CUZK_SEED). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/pce/pce.h"
#include "test_pce_circuit.h"
#include "testutil.h"

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    cuzk_rng rng;
    tu_init(&rng, "tool_pce_write");
    pc_cfg cfg = {.seed = cuzk_rng_u64(&rng), .rows = atoi(argv[2]), .long_every = 11};
    cuzk_recording_cs *r = (cuzk_recording_cs *)pc_build(CUZK_CS_RECORDING, &cfg);
    cuzk_pce *p = NULL;
    cuzk_pce_error e;
    unsigned flags = argc > 3 && !strcmp(argv[3], "wide") ? CUZK_PCE_WIDE_ROWPTR : 0;
    if (!r || cuzk_pce_from_recording(&p, r, "cli-test", NULL, flags, 1, &e) || cuzk_pce_save(p, argv[1], &e)) {
        fprintf(stderr, "tool_pce_write: %s\n", e.msg);
        return 1;
    }
    printf("inputs: %zu, aux: %zu, constraints: %zu, A: {nnz: %zu, B: {nnz: %zu, C: {nnz: %zu\n", r->base.num_inputs,
           r->base.num_aux, r->base.num_constraints, r->m[0].nnz, r->m[1].nnz, r->m[2].nnz);
    cuzk_pce_free(p);
    cuzk_cs_free(&r->base);
    return 0;
}
