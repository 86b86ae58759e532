/*
 * A bellperson job (cuzk_groth16_job_init) with its queries turned into
 * index lists: each query picks the witness indices its densities select,
 * and B's G2 query gets its own copy of B's G1 list, so the back ends take
 * the other paths (gather by index, B2 scalars not shared) on a circuit whose
 * proof is known from the density path: the proofs must be the same bytes.
 */
#ifndef CUZK_TESTS_JOB_BY_INDEX_H
#define CUZK_TESTS_JOB_BY_INDEX_H

#include <stdlib.h>

#include "cuzk/groth16/groth16.h"

/* idx[3] receive the lists (free each); false when out of memory. */
static bool job_by_index(cuzk_groth16_job *j, uint32_t *idx[3])
{
    cuzk_groth16_query *q[3] = {&j->q_a, &j->q_b_g1, &j->q_b_g2};
    const size_t ni = j->num_inputs, nv = ni + j->num_aux;
    for (int k = 0; k < 3; k++) {
        size_t n = 0;
        if (!(idx[k] = malloc((q[k]->n + 1) * sizeof *idx[k]))) return false;
        for (size_t i = 0; i < nv; i++)
            if (i < ni ? !q[k]->input || cuzk_density_get(q[k]->input, i) : cuzk_density_get(q[k]->aux, i - ni))
                idx[k][n++] = (uint32_t)i;
        if (n != q[k]->n) return false;
    }
    for (int k = 0; k < 3; k++) q[k]->idx = idx[k], q[k]->input = q[k]->aux = NULL;
    return true;
}

#endif
