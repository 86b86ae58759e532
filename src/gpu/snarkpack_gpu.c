/* SnarkPack's Miller loops and MSMs on a GPU worker (cuzk/gpu/snarkpack_gpu.h). Plain C over
 * the GPU API, so it builds (and reports no device) without CUDA as well. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gpu/snarkpack_gpu.h"

/* The groups' pairs laid out by product: P, Q and the products' offsets (nprod + 1). */
typedef struct {
    cuzk_g1_affine *P;
    cuzk_g2_affine *Q;
    size_t off[CUZK_PAIRING_PRODS_MAX + 1];
} pair_lists;

static int pair_lists_make(pair_lists *l, size_t nprod, const cuzk_pairing_group *g, size_t ng)
{
    size_t fill[CUZK_PAIRING_PRODS_MAX] = {0}, count[CUZK_PAIRING_PRODS_MAX] = {0};
    for (size_t i = 0; i < ng; i++)
        for (unsigned j = 0; j < g[i].n; j++) {
            if (g[i].prod[j] >= nprod) return CUZK_ERR_INVALID_ARG;
            count[g[i].prod[j]]++;
        }
    l->off[0] = 0;
    for (size_t k = 0; k < nprod; k++) l->off[k + 1] = l->off[k] + count[k], fill[k] = l->off[k];
    l->P = malloc((l->off[nprod] ? l->off[nprod] : 1) * sizeof *l->P);
    l->Q = malloc((l->off[nprod] ? l->off[nprod] : 1) * sizeof *l->Q);
    if (!l->P || !l->Q) return free(l->P), free(l->Q), CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; i < ng; i++)
        for (unsigned j = 0; j < g[i].n; j++) {
            size_t at = fill[g[i].prod[j]]++;
            l->P[at] = *g[i].p[j], l->Q[at] = *g[i].q;
        }
    return CUZK_OK;
}

static int gpu_miller_groups(void *ctx, cuzk_fp12 *out, size_t nprod, const cuzk_pairing_group *g, size_t ng)
{
    if (nprod == 0 || nprod > CUZK_PAIRING_PRODS_MAX) return CUZK_ERR_INVALID_ARG;
    pair_lists l;
    int rc = pair_lists_make(&l, nprod, g, ng);
    if (rc) return rc;
    rc = cuzk_gpu_miller_loops(ctx, out, nprod, l.P, l.Q, l.off);
    free(l.P), free(l.Q);
    return rc;
}

static int gpu_msm_batch(void *ctx, const cuzk_msm_job *jobs, size_t nj)
{
    int rc = CUZK_OK;
    for (size_t i = 0; !rc && i < nj; i++) {
        const cuzk_msm_job *j = &jobs[i];
        if (!j->fr || (j->g1_out != NULL) == (j->g2_out != NULL)) rc = CUZK_ERR_INVALID_ARG;
        else if (j->g1_out) rc = cuzk_gpu_g1_msm(ctx, j->g1_out, j->g1_bases, j->fr, j->n);
        else rc = cuzk_gpu_g2_msm(ctx, j->g2_out, j->g2_bases, j->fr, j->n);
    }
    return rc;
}

void cuzk_gpu_snarkpack_accel(cuzk_snarkpack_accel *acc, cuzk_gpu_worker *w, size_t min_n)
{
    acc->miller_groups = gpu_miller_groups;
    acc->msm_batch = gpu_msm_batch;
    acc->ctx = w;
    acc->min_n = min_n ? min_n : CUZK_GPU_SNARKPACK_MIN_N;
}
