/*
 * NI-PoRep kinds (ni-porep-*): the interactive PoRep's circuit and parameters
 * over the C1 of a NonInteractivePoRep registered proof (13 partitions at
 * 2 KiB, 126 at 32 GiB, as many challenges per partition as the interactive
 * ones'), every partition proved and verified by the engine, then answered
 * as rust-fil-proofs' seal_commit_phase2 answers NI-PoRep: the SnarkPack v2
 * aggregate of the partition proofs (cuzk/kinds/fil_aggregate.h: padded to a
 * power of two by the last, the transcript bytes SHA-256(comm_r)), checked
 * from the sector's public values before it is returned.
 *
 * The aggregation SRS (v28-fil-inner-product-v1.srs in the param cache) and
 * the PoRep .vk are read at the kind's first request, so that a daemon
 * without them still serves the other kinds and an NI request is refused at
 * submit, before its partitions are proved.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "kinds/kinds_internal.h"

fil_ni *fil_ni_new(const char *param_cache, int allow_test_srs)
{
    fil_ni *ni = calloc(1, sizeof *ni);
    if (!ni) return NULL;
    pthread_mutex_init(&ni->mu, NULL);
    snprintf(ni->param_cache, sizeof ni->param_cache, "%s", param_cache);
    ni->allow_test_srs = allow_test_srs;
    return ni;
}

void fil_ni_free(fil_ni *ni)
{
    if (!ni) return;
    cuzk_snarkpack_srs_free(&ni->srs);
    cuzk_groth16_vk_free(&ni->vk);
    pthread_mutex_destroy(&ni->mu);
    free(ni);
}

/* The SRS and the key, once; ni->mu held. */
static int ni_load(const fil_kind *fk, fil_ni *ni, char *err, size_t err_len)
{
    if (ni->loaded) return CUZK_OK;
    char note[4200] = "";
    uint32_t target = cuzk_fil_agg_target(fk->partitions);
    int rc = cuzk_fil_agg_srs_load(&ni->srs, &ni->origin, ni->param_cache, target, ni->allow_test_srs,
                                   cuzk_parallel_cpus(), note, sizeof note, err, err_len);
    if (rc) return rc;
    if (cuzk_snarkpack_srs_max_proofs(&ni->srs) < target) {
        cuzk_snarkpack_srs_free(&ni->srs);
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%s/%s serves up to %u proofs, %s aggregates %u",
                         ni->param_cache, CUZK_SNARKPACK_SRS_NAME, cuzk_snarkpack_srs_max_proofs(&ni->srs), fk->name,
                         target);
    }
    cuzk_groth16_error ge;
    if ((rc = cuzk_groth16_vk_read_file(&ni->vk, fk->vk_path, &ge))) {
        cuzk_snarkpack_srs_free(&ni->srs);
        return cuzk_errf(err, err_len, rc, "%s checks its aggregate against the PoRep key %s: %s", fk->name,
                         fk->vk_path, ge.msg);
    }
    ni->loaded = 1;
    return CUZK_OK;
}

int fil_ni_ready(const fil_kind *fk, char *err, size_t err_len)
{
    fil_ni *ni = fk->ni;
    if (!ni) return cuzk_errf(err, err_len, CUZK_ERR_INTERNAL, "%s has no aggregation state", fk->name);
    pthread_mutex_lock(&ni->mu);
    int rc = ni_load(fk, ni, err, err_len);
    pthread_mutex_unlock(&ni->mu);
    return rc;
}

int fil_ni_finish(void *ctx, cuzk_job *job, const void *inputs, size_t inputs_len, const void *prepared,
                  const uint8_t *proofs, size_t len, uint8_t **out, size_t *out_len, char *err, size_t err_len)
{
    (void)inputs, (void)inputs_len;
    const fil_kind *fk = ctx;
    const fil_job *j = prepared;
    *out = NULL;
    int rc = j ? fil_ni_ready(fk, err, err_len) : CUZK_ERR_INVALID_ARG;
    if (rc) return rc;
    cuzk_fil_agg_values v = {.registered_proof = j->registered_proof,
                             .version = CUZK_SNARKPACK_V2, /* seal_commit_phase2's, for NI-PoRep */
                             .sectors = &j->ni_sector,
                             .num_sectors = 1};
    memcpy(v.prover_id, j->prover_id, 32);
    const uint8_t *c2[1] = {proofs};
    size_t c2_len[1] = {len};
    unsigned nt = cuzk_parallel_cpus();
    char e[512] = "";
    /* the SRS and key are read-only once loaded: aggregates of several jobs run at once */
    cuzk_snarkpack_accel acc;
    cuzk_snarkpack_ctl ctl = fil_agg_job_ctl(job, &acc);
    rc = cuzk_fil_aggregate(out, out_len, &v, c2, c2_len, &fk->ni->srs, &ctl, nt, e, sizeof e);
    if (rc) return cuzk_errf(err, err_len, rc, "aggregating the %u verified partition proofs: %s", fk->partitions, e);
    rc = cuzk_fil_aggregate_verify(&v, &fk->ni->vk, &fk->ni->srs, *out, *out_len, nt, e, sizeof e);
    if (rc) {
        free(*out), *out = NULL;
        return cuzk_errf(err, err_len, rc == CUZK_ERR_VERIFY_FAILED ? rc : CUZK_ERR_INTERNAL,
                         "the aggregate of the %u verified partition proofs does not verify: %s", fk->partitions, e);
    }
    return CUZK_OK;
}
