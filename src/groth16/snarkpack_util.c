/* SnarkPack's parallel pieces over the library's pool: inner pairing products, MSMs and the
 * folds of point vectors that every GIPA round makes. */
#include <stdlib.h>

#include "cuzk/util/error.h"
#include "cuzk/msm/msm.h"
#include "cuzk/util/parallel.h"
#include "snarkpack_internal.h"

typedef struct {
    const cuzk_g1_affine *P;
    const cuzk_g2_affine *Q;
    size_t n, chunk;
    cuzk_fp12 *slot;
} ml_ctx;

static void ml_chunk(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    ml_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++) {
        size_t a = i * c->chunk, b = a + c->chunk < c->n ? a + c->chunk : c->n;
        cuzk_pairing_miller_loop(&c->slot[i], c->P + a, c->Q + a, b - a);
    }
}

int sp_pairing_product(cuzk_gt *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n, unsigned nthreads)
{
    size_t chunk = 16, nchunks = (n + chunk - 1) / chunk;
    ml_ctx c = {P, Q, n, chunk, calloc(nchunks ? nchunks : 1, sizeof(cuzk_fp12))};
    if (!c.slot) return CUZK_ERR_NO_MEMORY;
    cuzk_parallel_for(nchunks, 1, nthreads, ml_chunk, &c);
    cuzk_fp12 f = cuzk_fp12_one;
    for (size_t i = 0; i < nchunks; i++) cuzk_fp12_mul(&f, &f, &c.slot[i]);
    cuzk_pairing_final_exp(out, &f);
    free(c.slot);
    return CUZK_OK;
}

int sp_g1_msm(cuzk_g1_affine *out, const cuzk_g1_affine *P, const cuzk_fr *k, size_t n, unsigned nthreads)
{
    cuzk_g1_jac j;
    int rc = cuzk_g1_msm(&j, P, k, n, nthreads ? nthreads : 1);
    if (!rc) cuzk_g1_jac_to_affine(out, &j);
    return rc;
}

int sp_g2_msm(cuzk_g2_affine *out, const cuzk_g2_affine *P, const cuzk_fr *k, size_t n, unsigned nthreads)
{
    cuzk_g2_jac j;
    int rc = cuzk_g2_msm(&j, P, k, n, nthreads ? nthreads : 1);
    if (!rc) cuzk_g2_jac_to_affine(out, &j);
    return rc;
}

typedef struct {
    void *a;
    size_t half;
    const cuzk_fr *s, *k;
} fold_ctx;

static void g1_fold_chunk(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    fold_ctx *c = vctx;
    cuzk_g1_affine *a = c->a;
    for (size_t i = lo; i < hi; i++) {
        cuzk_g1_jac j;
        cuzk_g1_jac_from_affine(&j, c->s ? &a[i + c->half] : &a[i]);
        cuzk_g1_jac_mul_fr(&j, &j, c->s ? c->s : &c->k[i]);
        if (c->s) cuzk_g1_jac_add_affine(&j, &j, &a[i]);
        cuzk_g1_jac_to_affine(&a[i], &j);
    }
}

static void g2_fold_chunk(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    fold_ctx *c = vctx;
    cuzk_g2_affine *a = c->a;
    for (size_t i = lo; i < hi; i++) {
        cuzk_g2_jac j;
        cuzk_g2_jac_from_affine(&j, c->s ? &a[i + c->half] : &a[i]);
        cuzk_g2_jac_mul_fr(&j, &j, c->s ? c->s : &c->k[i]);
        if (c->s) cuzk_g2_jac_add_affine(&j, &j, &a[i]);
        cuzk_g2_jac_to_affine(&a[i], &j);
    }
}

void sp_g1_fold(cuzk_g1_affine *a, size_t half, const cuzk_fr *s, const cuzk_fr *k, unsigned nthreads)
{
    fold_ctx c = {a, half, s, k};
    cuzk_parallel_for(half, 0, nthreads, g1_fold_chunk, &c);
}

void sp_g2_fold(cuzk_g2_affine *a, size_t half, const cuzk_fr *s, const cuzk_fr *k, unsigned nthreads)
{
    fold_ctx c = {a, half, s, k};
    cuzk_parallel_for(half, 0, nthreads, g2_fold_chunk, &c);
}
