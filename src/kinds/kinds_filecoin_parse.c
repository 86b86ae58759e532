/*
 * Parsing Filecoin requests into witnesses and public inputs
 * (kinds_filecoin.h): PoRep through the C1 reader (cuzk/filecoin/c1.h), PoSt and
 * SnapDeals through the vanilla-proof readers (cuzk/filecoin/fil_vanilla.h). Each
 * checks the vanilla proofs against public values it rebuilds itself.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/util/parallel.h"
#include "kinds/kinds_internal.h"

/* ---- PoRep --------------------------------------------------------------------- */

typedef struct porep_parsed {
    cuzk_fil_c1 *c1;
    cuzk_porep_challenge **chs; /* per partition */
    uint32_t partitions;
} porep_parsed;

static void porep_release(fil_job *j)
{
    porep_parsed *p = j->parsed;
    if (p) {
        for (uint32_t k = 0; p->chs && k < p->partitions; k++) free(p->chs[k]);
        free(p->chs);
        cuzk_fil_c1_free(p->c1);
        free(p);
    }
    free(j->w.porep);
}

static int parse_porep(const fil_kind *fk, const cuzk_fil_request *req, fil_job *j, char *err, size_t err_len)
{
    if (req->num_blobs != 1) {
        snprintf(err, err_len, "vanilla_proof: PoRep takes one C1 output, got %zu blobs", req->num_blobs);
        return CUZK_ERR_INVALID_ARG;
    }
    const cuzk_fil_seal_proof *rp = cuzk_fil_seal_proof_get(req->registered_proof);
    if (!rp || rp->sector_size != fk->sector_size) {
        snprintf(err, err_len, "registered_proof: %llu is not a seal proof of %s", (unsigned long long)req->registered_proof,
                 fk->name);
        return CUZK_ERR_INVALID_ARG;
    }
    bool ni = fk->kind == CUZK_FIL_KIND_NI_POREP;
    if ((rp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE) != ni) {
        snprintf(err, err_len, "registered_proof: %s is %san NI-PoRep proof, %s proves %s", rp->name, ni ? "not " : "",
                 fk->name, ni ? "NI-PoRep (V1_2_Feat_NonInteractivePoRep)" : "the interactive PoRep");
        return CUZK_ERR_INVALID_ARG;
    }
    porep_parsed *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ERR_NO_MEMORY;
    j->parsed = p;
    j->release = porep_release;
    char e[512] = "";
    int rc = cuzk_fil_c1_parse_threads(req->blobs[0].data, req->blobs[0].len, cuzk_parallel_cpus(), &p->c1, e,
                                       sizeof e);
    if (rc) {
        snprintf(err, err_len, "vanilla_proof (C1 output): %s", e);
        return rc;
    }
    /* at submit, ahead of the job's first partition: every CPU for its ≈ 1 core-second */
    rc = cuzk_fil_c1_check_threads(p->c1, req->registered_proof, req->miner_id, req->sector_number,
                                   cuzk_parallel_cpus(), err, err_len);
    if (rc) return rc;
    if (p->c1->cfg.partitions != fk->partitions || p->c1->cfg.challenges != fk->cfg.porep.challenges) {
        snprintf(err, err_len, "vanilla_proofs: %u partitions x %u challenges, %s proves %u x %u", p->c1->cfg.partitions,
                 p->c1->cfg.challenges, fk->name, fk->partitions, fk->cfg.porep.challenges);
        return CUZK_ERR_INVALID_ARG;
    }
    /* what the aggregate of an NI-PoRep's partitions is made and checked with */
    j->registered_proof = req->registered_proof;
    cuzk_fil_prover_id(j->prover_id, req->miner_id);
    j->ni_sector.sector_number = req->sector_number;
    memcpy(j->ni_sector.comm_r, p->c1->comm_r, 32), memcpy(j->ni_sector.comm_d, p->c1->comm_d, 32);
    memcpy(j->ni_sector.ticket, p->c1->ticket, 32), memcpy(j->ni_sector.seed, p->c1->seed, 32);
    p->partitions = fk->partitions;
    p->chs = calloc(fk->partitions, sizeof *p->chs);
    j->w.porep = calloc(fk->partitions, sizeof *j->w.porep);
    if (!p->chs || !j->w.porep) return CUZK_ERR_NO_MEMORY;
    for (uint32_t k = 0; k < fk->partitions; k++) {
        rc = cuzk_fil_c1_witness(p->c1, k, &j->w.porep[k], &p->chs[k]);
        if (rc) return rc;
        if (cuzk_fil_c1_public_inputs(p->c1, k, j->pub + (size_t)k * fk->num_inputs) != fk->num_inputs)
            return CUZK_ERR_INTERNAL;
    }
    return CUZK_OK;
}

/* ---- PoSt ------------------------------------------------------------------------ */

static void post_release(fil_job *j)
{
    cuzk_fil_post_partition *p = j->parsed;
    if (p) {
        cuzk_fil_post_partition_free(p);
        free(p);
    }
}

static int parse_post(const fil_kind *fk, const cuzk_fil_request *req, fil_job *j, char *err, size_t err_len)
{
    const cuzk_fil_post_proof *pp = cuzk_fil_post_proof_get(req->registered_proof);
    cuzk_fil_post_kind want = fk->kind == CUZK_FIL_KIND_WINNING_POST ? CUZK_FIL_POST_WINNING : CUZK_FIL_POST_WINDOW;
    if (!pp || pp->sector_size != fk->sector_size || pp->kind != want) {
        snprintf(err, err_len, "registered_proof: %llu is not a PoSt proof of %s", (unsigned long long)req->registered_proof,
                 fk->name);
        return CUZK_ERR_INVALID_ARG;
    }
    if (!(req->present & CUZK_FIL_REQ_RANDOMNESS)) {
        snprintf(err, err_len, "randomness: required (32 bytes)");
        return CUZK_ERR_INVALID_ARG;
    }
    cuzk_fil_post_partition *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ERR_NO_MEMORY;
    j->parsed = p;
    j->release = post_release;
    /* at submit: a 32 GiB WindowPoSt's 2,349 sectors (23,490 inclusion proofs) on every CPU */
    int rc = cuzk_fil_post_prepare_threads(p, req->registered_proof, req->randomness, req->partition_index,
                                           req->blobs, req->num_blobs, NULL, cuzk_parallel_cpus(), err, err_len);
    if (rc) return rc;
    if (p->num_inputs != fk->num_inputs) return CUZK_ERR_INTERNAL;
    j->w.post = &p->w;
    memcpy(j->pub, p->inputs, fk->num_inputs * sizeof *j->pub);
    return CUZK_OK;
}

/* ---- SnapDeals --------------------------------------------------------------------- */

typedef struct snap_parsed {
    cuzk_fil_snap_partition *jobs;
    uint32_t partitions;
} snap_parsed;

static void snap_release(fil_job *j)
{
    snap_parsed *p = j->parsed;
    if (p) {
        for (uint32_t k = 0; p->jobs && k < p->partitions; k++) cuzk_fil_snap_partition_free(&p->jobs[k]);
        free(p->jobs);
        free(p);
    }
    free(j->w.update);
}

/* SnapDeals partitions [lo, hi) prepared, each with its own message. */
typedef struct snap_prep {
    const cuzk_fil_request *req;
    cuzk_fil_snap_partition *jobs;
    int *rc;
    char (*msg)[384];
} snap_prep;

static void snap_range(void *arg, unsigned worker, size_t lo, size_t hi)
{
    const snap_prep *sp = arg;
    const cuzk_fil_request *req = sp->req;
    (void)worker;
    for (size_t k = lo; k < hi; k++)
        sp->rc[k] = cuzk_fil_snap_prepare(&sp->jobs[k], req->registered_proof, (uint32_t)k, req->comm_r_old,
                                          req->comm_r_new, req->comm_d_new, req->blobs[k].data, req->blobs[k].len,
                                          sp->msg[k], sizeof sp->msg[k]);
}

static int parse_snap(const fil_kind *fk, const cuzk_fil_request *req, fil_job *j, char *err, size_t err_len)
{
    if (cuzk_fil_update_proof_sector_size(req->registered_proof) != fk->sector_size) {
        snprintf(err, err_len, "registered_proof: %llu is not an update proof of %s",
                 (unsigned long long)req->registered_proof, fk->name);
        return CUZK_ERR_INVALID_ARG;
    }
    const uint32_t need = CUZK_FIL_REQ_COMM_R_OLD | CUZK_FIL_REQ_COMM_R_NEW | CUZK_FIL_REQ_COMM_D_NEW;
    if ((req->present & need) != need) {
        snprintf(err, err_len, "comm_r_old, comm_r_new and comm_d_new are required");
        return CUZK_ERR_INVALID_ARG;
    }
    if (req->num_blobs != fk->partitions) {
        snprintf(err, err_len, "vanilla_proofs: %s takes %u partition proofs, got %zu", fk->name, fk->partitions,
                 req->num_blobs);
        return CUZK_ERR_INVALID_ARG;
    }
    snap_parsed *p = calloc(1, sizeof *p);
    if (!p) return CUZK_ERR_NO_MEMORY;
    j->parsed = p;
    j->release = snap_release;
    p->jobs = calloc(fk->partitions, sizeof *p->jobs);
    j->w.update = calloc(fk->partitions, sizeof *j->w.update);
    if (!p->jobs || !j->w.update) return CUZK_ERR_NO_MEMORY;
    p->partitions = fk->partitions;
    /* the partitions are independent (16 for 32 GiB): prepared on every CPU, the first
     * failure in partition order reported */
    snap_prep sp = {req, p->jobs, calloc(fk->partitions, sizeof *sp.rc), calloc(fk->partitions, sizeof *sp.msg)};
    if (!sp.rc || !sp.msg) {
        free(sp.rc), free(sp.msg);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_parallel_for(fk->partitions, 1, cuzk_parallel_cpus(), snap_range, &sp);
    int rc = 0;
    for (uint32_t k = 0; k < fk->partitions && !rc; k++)
        if ((rc = sp.rc[k])) snprintf(err, err_len, "vanilla_proofs[%u]: %s", k, sp.msg[k]);
    free(sp.rc), free(sp.msg);
    if (rc) return rc;
    for (uint32_t k = 0; k < fk->partitions; k++) {
        j->w.update[k] = p->jobs[k].w;
        memcpy(j->pub + (size_t)k * fk->num_inputs, p->jobs[k].inputs, fk->num_inputs * sizeof *j->pub);
    }
    return CUZK_OK;
}

int fil_parse(const fil_kind *fk, const cuzk_fil_request *req, fil_job *j, char *err, size_t err_len)
{
    switch (fk->kind) {
    case CUZK_FIL_KIND_POREP:
    case CUZK_FIL_KIND_NI_POREP: return parse_porep(fk, req, j, err, err_len);
    case CUZK_FIL_KIND_WINDOW_POST:
    case CUZK_FIL_KIND_WINNING_POST: return parse_post(fk, req, j, err, err_len);
    case CUZK_FIL_KIND_SNAP: return parse_snap(fk, req, j, err, err_len);
    }
    return CUZK_ERR_INVALID_ARG;
}
