/* SnarkPack's parallel pieces over the library's pool: inner pairing products, MSMs and the
 * folds of point vectors that every GIPA round makes. */
#include <stdlib.h>

#include "cuzk/util/error.h"
#include "cuzk/msm/msm.h"
#include "cuzk/util/parallel.h"
#include "snarkpack_internal.h"

typedef struct {
    const cuzk_pairing_group *g;
    size_t ng, chunk, nprod, nchunks;
    cuzk_fp12 *slot; /* nchunks x nprod Miller loop values */
    cuzk_gt *out;
} pg_ctx;

static void pg_miller_chunk(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    pg_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++) {
        size_t a = i * c->chunk, b = a + c->chunk < c->ng ? a + c->chunk : c->ng;
        cuzk_pairing_miller_loop_groups(&c->slot[i * c->nprod], c->nprod, c->g + a, b - a);
    }
}

static void pg_final_chunk(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    pg_ctx *c = vctx;
    for (size_t k = lo; k < hi; k++) {
        cuzk_fp12 f = c->slot[k];
        for (size_t i = 1; i < c->nchunks; i++) cuzk_fp12_mul(&f, &f, &c->slot[i * c->nprod + k]);
        cuzk_pairing_final_exp(&c->out[k], &f);
    }
}

/* The groups' pairs: whether an accelerator takes them. */
static size_t pg_pairs(const cuzk_pairing_group *g, size_t ng)
{
    size_t n = 0;
    for (size_t i = 0; i < ng; i++) n += g[i].n;
    return n;
}

int sp_pairing_groups(cuzk_gt *out, size_t nprod, const cuzk_pairing_group *g, size_t ng, unsigned nthreads,
                      const cuzk_snarkpack_accel *acc)
{
    /* about three chunks a thread, each of up to one block of shared G2 state: a chunk squares
     * the products its groups go to 63 times, so fewer and longer chunks square less */
    size_t chunk = ng / (3 * (size_t)(nthreads ? nthreads : 1));
    chunk = chunk < 6 ? 6 : chunk > 32 ? 32 : chunk;
    pg_ctx c = {g, ng, chunk, nprod, ng ? (ng + chunk - 1) / chunk : 1, NULL, out};
    if (nprod > CUZK_PAIRING_PRODS_MAX) return CUZK_ERR_INVALID_ARG;
    int accel = acc && acc->miller_groups && ng && pg_pairs(g, ng) >= acc->min_n;
    if (accel) c.nchunks = 1;
    c.slot = malloc(c.nchunks * nprod * sizeof *c.slot);
    if (!c.slot) return CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; i < c.nchunks * nprod; i++) c.slot[i] = cuzk_fp12_one;
    int rc = CUZK_OK;
    if (accel) rc = acc->miller_groups(acc->ctx, c.slot, nprod, g, ng);
    else cuzk_parallel_for(ng ? c.nchunks : 0, 1, nthreads, pg_miller_chunk, &c);
    if (!rc) cuzk_parallel_for(nprod, 1, nthreads, pg_final_chunk, &c);
    free(c.slot);
    return rc;
}

int sp_msm_batch(const cuzk_msm_job *jobs, size_t nj, unsigned nthreads, const cuzk_snarkpack_accel *acc)
{
    size_t longest = 0;
    for (size_t i = 0; i < nj; i++) longest = jobs[i].n > longest ? jobs[i].n : longest;
    if (acc && acc->msm_batch && longest && longest >= acc->min_n) return acc->msm_batch(acc->ctx, jobs, nj);
    return cuzk_msm_batch(jobs, nj, nthreads ? nthreads : 1);
}

int sp_g1_msm(cuzk_g1_affine *out, const cuzk_g1_affine *P, const cuzk_fr *k, size_t n, unsigned nthreads,
              const cuzk_snarkpack_accel *acc)
{
    cuzk_g1_jac j;
    cuzk_msm_job job = {.g1_out = &j, .g1_bases = P, .fr = k, .n = n};
    int rc = sp_msm_batch(&job, 1, nthreads, acc);
    if (!rc) cuzk_g1_jac_to_affine(out, &j);
    return rc;
}

/* Points a fold task converts to affine together (one inversion). */
#define FOLD_CHUNK 16

typedef struct {
    const sp_fold_job *job;
    size_t nj, half, per_job; /* per_job: tasks of up to FOLD_CHUNK indices a job */
    cuzk_g1_endo_scalar *e1;  /* nj recoded shared scalars (unused where a job has k) */
    cuzk_g2_endo_scalar *e2;
} fold_ctx;

/* out[i - lo] = a[i + half]·s + a[i] (k NULL) or k[i]·a[i], Jacobian, for i in [lo, hi). */
static void fold_g1(cuzk_g1_jac *out, const sp_fold_job *j, const cuzk_g1_endo_scalar *e, size_t half,
                    size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        cuzk_g1_endo_scalar ek;
        if (j->k) cuzk_g1_endo_scalar_init(&ek, &j->k[i]);
        cuzk_g1_affine_mul_endo(&out[i - lo], j->k ? &j->g1[i] : &j->g1[i + half], j->k ? &ek : e);
        if (!j->k) cuzk_g1_jac_add_affine(&out[i - lo], &out[i - lo], &j->g1[i]);
    }
}

static void fold_g2(cuzk_g2_jac *out, const sp_fold_job *j, const cuzk_g2_endo_scalar *e, size_t half,
                    size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        cuzk_g2_endo_scalar ek;
        if (j->k) cuzk_g2_endo_scalar_init(&ek, &j->k[i]);
        cuzk_g2_affine_mul_endo(&out[i - lo], j->k ? &j->g2[i] : &j->g2[i + half], j->k ? &ek : e);
        if (!j->k) cuzk_g2_jac_add_affine(&out[i - lo], &out[i - lo], &j->g2[i]);
    }
}

static void fold_task(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    fold_ctx *c = vctx;
    for (size_t t = lo; t < hi; t++) {
        size_t jn = t / c->per_job, a = (t % c->per_job) * FOLD_CHUNK;
        size_t b = a + FOLD_CHUNK < c->half ? a + FOLD_CHUNK : c->half;
        const sp_fold_job *j = &c->job[jn];
        if (j->g1) {
            cuzk_g1_jac r[FOLD_CHUNK];
            fold_g1(r, j, &c->e1[jn], c->half, a, b);
            cuzk_g1_jac_batch_to_affine(&j->g1[a], r, b - a);
        } else {
            cuzk_g2_jac r[FOLD_CHUNK];
            fold_g2(r, j, &c->e2[jn], c->half, a, b);
            cuzk_g2_jac_batch_to_affine(&j->g2[a], r, b - a);
        }
    }
}

int sp_fold(const sp_fold_job *jobs, size_t nj, size_t half, unsigned nthreads)
{
    fold_ctx c = {jobs, nj, half, (half + FOLD_CHUNK - 1) / FOLD_CHUNK, calloc(nj ? nj : 1, sizeof *c.e1),
                  calloc(nj ? nj : 1, sizeof *c.e2)};
    int rc = c.e1 && c.e2 ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    for (size_t j = 0; !rc && j < nj; j++)
        if (!jobs[j].k && jobs[j].g1) cuzk_g1_endo_scalar_init(&c.e1[j], jobs[j].s);
        else if (!jobs[j].k) cuzk_g2_endo_scalar_init(&c.e2[j], jobs[j].s);
    if (!rc) cuzk_parallel_for(nj * c.per_job, 1, nthreads, fold_task, &c);
    free(c.e1), free(c.e2);
    return rc;
}
