/*
 * The aggregate-seal kind: SnarkPack aggregates of sectors' PoRep C2 outputs, as filecoin-ffi's
 * aggregate_seal_proofs makes them (cuzk/kinds/fil_aggregate.h), through the engine as a task kind
 * (cuzk/engine/engine.h: no partitions, its finish the whole job) so that an aggregation is queued,
 * prioritized, cancelled, timed out, retried under its request id and counted as every proof
 * is. Its inputs are a cuzk_fil_agg_request's encoding, checked at submit (prepare) with the
 * field named; the aggregate is verified from the sectors' public values before it is returned,
 * and when it does not verify each sector's proofs are checked to name the one at fault.
 *
 * The aggregation SRS (param_cache/v28-fil-inner-product-v1.srs: every power rust-fil-proofs
 * reads, its digest checked) and each sector size's PoRep .vk are read at the first request
 * that needs them, so that a daemon without them serves every other kind and an aggregation is
 * refused at submit saying which file is missing.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_kinds.h"
#include "cuzk/groth16/groth16_verify.h"
#include "cuzk/util/parallel.h"
#include "kinds/kinds_internal.h"

#define AGG_VKS 16 /* PoRep keys held: one per sector size and porep cache id */

typedef struct agg_vk {
    char path[4096];
    cuzk_groth16_vk vk;
    cuzk_groth16_pvk pvk;
} agg_vk;

typedef struct fil_agg {
    pthread_mutex_t mu;
    char param_cache[4096];
    int allow_test_srs;
    int srs_loaded; /* srs holds; else the next request tries again */
    cuzk_snarkpack_srs srs;
    agg_vk vks[AGG_VKS];
    size_t n_vks;
} fil_agg;

static void agg_free(void *ctx)
{
    fil_agg *a = ctx;
    if (!a) return;
    cuzk_snarkpack_srs_free(&a->srs);
    for (size_t i = 0; i < a->n_vks; i++) cuzk_groth16_pvk_free(&a->vks[i].pvk), cuzk_groth16_vk_free(&a->vks[i].vk);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

/* The SRS, once (a->mu held): all rust-fil-proofs reads of it, so that the request's size is
 * checked against what the file serves. */
static int agg_srs(fil_agg *a, char *err, size_t err_len)
{
    if (a->srs_loaded) return CUZK_OK;
    cuzk_fil_srs_origin origin;
    char note[4200];
    int rc = cuzk_fil_agg_srs_load(&a->srs, &origin, a->param_cache, CUZK_SNARKPACK_FIL_READ_LEN / 2,
                                   a->allow_test_srs, cuzk_parallel_cpus(), note, sizeof note, err, err_len);
    a->srs_loaded = rc == CUZK_OK;
    return rc;
}

/* The PoRep key of registered proof rp, read once (a->mu held); *out valid while a lives. */
static int agg_vk_get(fil_agg *a, uint64_t rp, const agg_vk **out, char *err, size_t err_len)
{
    char cache_id[CUZK_FIL_CACHE_ID_MAX], file[CUZK_FIL_CACHE_ID_MAX + 16], path[4096];
    if (!cuzk_fil_porep_cache_id(cache_id, rp) || !cuzk_fil_param_file_name(file, sizeof file, cache_id, ".vk") ||
        snprintf(path, sizeof path, "%s/%s", a->param_cache, file) >= (int)sizeof path)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "registered_proof %llu: no PoRep key file name",
                         (unsigned long long)rp);
    for (size_t i = 0; i < a->n_vks; i++)
        if (!strcmp(a->vks[i].path, path)) return *out = &a->vks[i], CUZK_OK;
    if (a->n_vks == AGG_VKS) return cuzk_errf(err, err_len, CUZK_ERR_INTERNAL, "more PoRep keys than %d", AGG_VKS);
    agg_vk *k = &a->vks[a->n_vks];
    cuzk_groth16_error ge;
    int rc = cuzk_groth16_vk_read_file(&k->vk, path, &ge);
    if (rc) return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "the aggregate is verified against the PoRep key "
                             "%s: %s", path, ge.msg);
    if ((rc = cuzk_groth16_prepare_vk(&k->pvk, &k->vk))) {
        cuzk_groth16_vk_free(&k->vk);
        return cuzk_errf(err, err_len, rc, "%s: %s", path, cuzk_strerror(rc));
    }
    snprintf(k->path, sizeof k->path, "%s", path);
    *out = &a->vks[a->n_vks++];
    return CUZK_OK;
}

/* Submit: the request decoded and checked against what the SRS serves, the PoRep key of its
 * registered proof loaded; prepared is that key. */
static int agg_prepare(void *ctx, const void *inputs, size_t len, void **prepared, char *err, size_t err_len)
{
    fil_agg *a = ctx;
    cuzk_fil_agg_request r;
    int rc = cuzk_fil_agg_request_decode(&r, inputs, len, err, err_len);
    if (rc) return rc;
    const agg_vk *k = NULL;
    pthread_mutex_lock(&a->mu);
    rc = agg_srs(a, err, err_len);
    pthread_mutex_unlock(&a->mu);
    /* the points of every proof checked without the lock: the SRS is read-only once loaded */
    if (!rc) rc = cuzk_fil_agg_request_check(&r, cuzk_fil_agg_max_sectors(r.v.registered_proof, &a->srs), err,
                                             err_len);
    pthread_mutex_lock(&a->mu);
    if (!rc) rc = agg_vk_get(a, r.v.registered_proof, &k, err, err_len);
    pthread_mutex_unlock(&a->mu);
    cuzk_fil_agg_request_clear(&r);
    if (!rc) *prepared = (void *)k;
    return rc;
}

static void agg_prepared_free(void *ctx, void *prepared) { (void)ctx, (void)prepared; /* the kind's key */ }

/* The first partition proof that does not verify with its sector's values: CUZK_ERR_VERIFY_FAILED
 * naming it, else CUZK_OK (every proof verifies). */
static int agg_blame(const cuzk_fil_agg_request *r, const agg_vk *k, char *err, size_t err_len)
{
    uint32_t parts;
    size_t ni;
    char e[256];
    int rc = cuzk_fil_agg_shape(&r->v, &parts, &ni, e, sizeof e);
    cuzk_fr *pub = rc ? NULL : malloc((ni ? ni : 1) * sizeof *pub);
    if (!rc && !pub) rc = CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; !rc && i < r->v.num_sectors; i++) {
        const cuzk_fil_agg_sector *x = &r->v.sectors[i];
        cuzk_fil_seal_values sv = {.registered_proof = r->v.registered_proof, .sector_id = x->sector_number};
        memcpy(sv.prover_id, r->v.prover_id, 32), memcpy(sv.ticket, x->ticket, 32), memcpy(sv.seed, x->seed, 32);
        memcpy(sv.comm_d, x->comm_d, 32), memcpy(sv.comm_r, x->comm_r, 32);
        for (uint32_t p = 0; !rc && p < parts; p++) {
            cuzk_groth16_proof pf;
            cuzk_groth16_proof_error pe;
            rc = cuzk_fil_porep_public_inputs(pub, &sv, p);
            if (!rc) rc = cuzk_groth16_proof_decode(&pf, r->proofs[i] + (size_t)p * CUZK_GROTH16_PROOF_BYTES, &pe);
            if (!rc) rc = cuzk_groth16_verify(&k->pvk, &pf, pub, ni);
            if (rc == CUZK_ERR_VERIFY_FAILED)
                rc = cuzk_errf(err, err_len, rc, "aggregate_sectors[%zu] (sector %llu) partition %u: its proof does "
                               "not verify with the sector's values (comm_r, comm_d, ticket, seed, prover): a damaged "
                               "proof, or values of another sector", i, (unsigned long long)x->sector_number, p);
            else if (rc)
                rc = cuzk_errf(err, err_len, rc, "aggregate_sectors[%zu] partition %u: %s", i, p, cuzk_strerror(rc));
        }
    }
    free(pub);
    return rc;
}

/* The aggregate checked from the sectors' values; when it fails, why (the sector at fault). */
static int agg_check(const cuzk_fil_agg_request *r, const agg_vk *k, const cuzk_snarkpack_srs *srs,
                     const uint8_t *agg, size_t len, char *err, size_t err_len)
{
    char e[512] = "";
    int rc = cuzk_fil_aggregate_verify(&r->v, &k->vk, srs, agg, len, cuzk_parallel_cpus(), e, sizeof e);
    if (rc == CUZK_OK) return CUZK_OK;
    char who[512] = "";
    int blame = agg_blame(r, k, who, sizeof who);
    if (blame) return cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED, "the aggregate does not verify (%s): %s", e, who);
    return cuzk_errf(err, err_len, rc == CUZK_ERR_VERIFY_FAILED ? CUZK_ERR_INTERNAL : rc, "the aggregate does not "
                     "verify although every proof does: %s", e);
}

static int agg_job_stop(void *job, cuzk_snarkpack_stage stage, unsigned round)
{
    (void)stage, (void)round;
    return cuzk_job_stopped(job);
}

static void agg_job_accel_failed(void *job, int rc)
{
    cuzk_job_logf(job, 1, "aggregating on the device failed (%s); again on the CPU", cuzk_strerror(rc));
}

cuzk_snarkpack_ctl fil_agg_job_ctl(cuzk_job *job, cuzk_snarkpack_accel *acc)
{
    cuzk_snarkpack_ctl c = {.stop = agg_job_stop, .ctx = job, .accel_failed = agg_job_accel_failed};
    if (cuzk_job_snarkpack_accel(job, acc) == CUZK_OK) c.accel = acc;
    return c;
}

static int agg_finish(void *ctx, cuzk_job *job, const void *inputs, size_t inputs_len, const void *prepared,
                      const uint8_t *proofs, size_t len, uint8_t **out, size_t *out_len, char *err, size_t err_len)
{
    (void)proofs, (void)len;
    const fil_agg *a = ctx;
    const agg_vk *k = prepared;
    cuzk_fil_agg_request r;
    char e[512] = "";
    *out = NULL;
    int rc = cuzk_fil_agg_request_decode(&r, inputs, inputs_len, err, err_len);
    if (rc) return rc;
    /* the SRS and keys are read-only once loaded: several aggregations run at once */
    cuzk_snarkpack_accel acc;
    cuzk_snarkpack_ctl ctl = fil_agg_job_ctl(job, &acc);
    rc = cuzk_fil_aggregate(out, out_len, &r.v, r.proofs, r.proof_len, &a->srs, &ctl, cuzk_parallel_cpus(), e,
                            sizeof e);
    if (rc) cuzk_errf(err, err_len, rc, "aggregating %zu sectors: %s", r.v.num_sectors, e);
    if (!rc && cuzk_job_stopped(job)) { /* ended during the last stage: its verification is not wanted either */
        free(*out), *out = NULL;
        rc = cuzk_errf(err, err_len, CUZK_ERR_CANCELLED, "aggregating %zu sectors: stopped before verifying the "
                       "aggregate", r.v.num_sectors);
    }
    if (!rc && (rc = agg_check(&r, k, &a->srs, *out, *out_len, err, err_len))) free(*out), *out = NULL;
    cuzk_fil_agg_request_clear(&r);
    return rc;
}

int fil_agg_register(cuzk_engine *e, const cuzk_engine_filecoin_opts *o,
                     void (*on_kind)(void *ud, const char *name, const char *circuit_id), void *ud)
{
    fil_agg *a = calloc(1, sizeof *a);
    if (!a) return CUZK_ERR_NO_MEMORY;
    pthread_mutex_init(&a->mu, NULL);
    snprintf(a->param_cache, sizeof a->param_cache, "%s", o->param_cache);
    a->allow_test_srs = !o->refuse_test_srs;
    cuzk_engine_kind k = {
        .name = CUZK_FIL_AGG_KIND,
        .circuit_id = CUZK_FIL_AGG_KIND, /* no circuit: a task kind */
        .default_priority = CUZK_PRIORITY_NORMAL,
        .prepare = agg_prepare,
        .prepared_free = agg_prepared_free,
        .finish = agg_finish,
        .ctx = a,
        .ctx_free = agg_free,
    };
    int rc = cuzk_engine_register_kind(e, &k);
    if (rc) agg_free(a);
    else if (on_kind) on_kind(ud, CUZK_FIL_AGG_KIND, CUZK_FIL_AGG_KIND);
    return rc;
}
