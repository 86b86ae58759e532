/*
 * The Filecoin proof kinds: PoRep C2 (porep-*), NI-PoRep C2 (ni-porep-*,
 * the PoRep circuit; its aggregate: kinds_filecoin_ni.c), SnapDeals
 * (snap-*), WindowPoSt (wpost-*) and WinningPoSt (winning-*), one kind per
 * sector size whose parameters are in the param cache under Filecoin's names.
 *
 * A request (include/cuzk/filecoin/fil_request.h) is parsed once at submit (prepare):
 * the vanilla proofs are read and checked, every public input is rebuilt by
 * cuzk, and the per-partition witnesses are kept for the synthesis workers.
 * Background PCE extraction synthesizes the blank circuit (inputs NULL).
 * Which kinds exist is the table of kinds_filecoin_table.c (cuzk/kinds/fil_kinds.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_kinds.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/filecoin/fil_request.h"
#include "cuzk/pce/pce.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/circuits/post.h"
#include "cuzk/circuits/update.h"
#include "kinds/kinds_internal.h"

static void fil_kind_free(void *ctx)
{
    fil_kind *fk = ctx;
    if (fk) fil_ni_free(fk->ni);
    free(fk);
}

/* ---- prepared jobs --------------------------------------------------------- */

static void fil_job_free(void *ctx, void *prepared)
{
    (void)ctx;
    fil_job *j = prepared;
    if (!j) return;
    if (j->release) j->release(j);
    free(j->pub);
    free(j);
}

static int fil_prepare(void *ctx, const void *inputs, size_t len, void **prepared, char *err, size_t err_len)
{
    const fil_kind *fk = ctx;
    cuzk_fil_request req;
    int rc = cuzk_fil_request_decode(&req, inputs, len, err, err_len);
    if (rc) return rc;
    fil_job *j = calloc(1, sizeof *j);
    if (!j) {
        cuzk_fil_request_clear(&req);
        return CUZK_ERR_NO_MEMORY;
    }
    j->fk = fk;
    if (req.kind != fk->kind) {
        snprintf(err, err_len, "proof_kind %d does not match kind %s", (int)req.kind, fk->name);
        rc = CUZK_ERR_INVALID_ARG;
    } else if (req.sector_size != fk->sector_size) {
        snprintf(err, err_len, "sector_size %llu does not match kind %s", (unsigned long long)req.sector_size, fk->name);
        rc = CUZK_ERR_INVALID_ARG;
    } else {
        /* NI-PoRep: the aggregation's SRS and key first, so that a request that could not be
         * answered is refused now rather than after its partitions are proved */
        rc = fk->ni ? fil_ni_ready(fk, err, err_len) : CUZK_OK;
        j->pub = calloc((size_t)fk->partitions * (fk->num_inputs ? fk->num_inputs : 1), sizeof *j->pub);
        if (!rc) rc = j->pub ? fil_parse(fk, &req, j, err, err_len) : CUZK_ERR_NO_MEMORY;
    }
    cuzk_fil_request_clear(&req);
    if (rc) {
        fil_job_free(ctx, j);
        return rc;
    }
    *prepared = j;
    return CUZK_OK;
}

/* ---- synthesis and public inputs --------------------------------------------- */

static int fil_synthesize(void *ctx, cuzk_cs *cs, const void *inputs, size_t len, const void *prepared,
                          uint32_t partition)
{
    const fil_kind *fk = ctx;
    const fil_job *j = prepared; /* NULL: the blank circuit */
    if (j && partition >= fk->partitions) return CUZK_ERR_INVALID_ARG;
    switch (fk->kind) {
    case CUZK_FIL_KIND_POREP:
    case CUZK_FIL_KIND_NI_POREP:
        return cuzk_porep_circuit_threads(cs, &fk->cfg.porep, j ? &j->w.porep[partition] : NULL, fk->synth_threads);
    case CUZK_FIL_KIND_WINDOW_POST:
    case CUZK_FIL_KIND_WINNING_POST:
        return cuzk_post_circuit(cs, &fk->cfg.post, j ? &j->w.post[partition] : NULL, fk->synth_threads);
    case CUZK_FIL_KIND_SNAP:
        return cuzk_update_circuit(cs, &fk->cfg.update, j ? &j->w.update[partition] : NULL);
    }
    return CUZK_ERR_INVALID_ARG;
}

static int fil_public_inputs(void *ctx, cuzk_fr *out, const void *inputs, size_t len, const void *prepared,
                             uint32_t partition)
{
    const fil_kind *fk = ctx;
    const fil_job *j = prepared;
    if (!j || partition >= fk->partitions) return CUZK_ERR_INVALID_ARG;
    memcpy(out, j->pub + (size_t)partition * fk->num_inputs, fk->num_inputs * sizeof *out);
    return CUZK_OK;
}

/* ---- registration ------------------------------------------------------------ */

/* The ceremony's .vk is the one parameters.json lists by name and digest;
 * cuzk setup's (TEST parameters) and a damaged download's are not. */
static bool fil_vk_is_ceremony(void *ctx, const uint8_t *vk, size_t len, char *note, size_t note_len)
{
    const fil_kind *fk = ctx;
    char file[CUZK_FIL_CACHE_ID_MAX + 16], why[256] = "";
    if (!cuzk_fil_param_file_name(file, sizeof file, fk->cache_id, ".vk")) return false;
    bool listed = cuzk_fil_param_listed(NULL, file, vk, len, why, sizeof why);
    snprintf(note, note_len, listed ? "%s" : "%s: TEST parameters, or a damaged download", why);
    return listed;
}

/* The paths of fk's .params and .vk in dir; false when the .params is not
 * there (no such kind here). */
static bool kind_files(fil_kind *fk, const char *dir)
{
    char file[CUZK_FIL_CACHE_ID_MAX + 16], vk[CUZK_FIL_CACHE_ID_MAX + 16];
    struct stat st;
    return cuzk_fil_param_file_name(file, sizeof file, fk->cache_id, ".params") &&
           cuzk_fil_param_file_name(vk, sizeof vk, fk->cache_id, ".vk") &&
           snprintf(fk->params_path, sizeof fk->params_path, "%s/%s", dir, file) < (int)sizeof fk->params_path &&
           snprintf(fk->vk_path, sizeof fk->vk_path, "%s/%s", dir, vk) < (int)sizeof fk->vk_path &&
           stat(fk->params_path, &st) == 0;
}

/* Whether fk's .vk is in the cache (kind_files named it) */
static bool kind_key_present(const fil_kind *fk)
{
    struct stat st;
    return fk->vk_path[0] && stat(fk->vk_path, &st) == 0;
}

static int kind_shape(fil_kind *fk)
{
    switch (fk->kind) {
    case CUZK_FIL_KIND_POREP:
    case CUZK_FIL_KIND_NI_POREP:
        /* NI-PoRep: more partitions of the same circuit (the challenges per partition equal) */
        if (cuzk_porep_config_for(&fk->cfg.porep, fk->sector_size, fk->kind == CUZK_FIL_KIND_NI_POREP)) return -1;
        fk->partitions = fk->cfg.porep.partitions;
        fk->num_inputs = (uint32_t)cuzk_porep_num_inputs(&fk->cfg.porep) - 1;
        fk->priority = CUZK_PRIORITY_NORMAL;
        return cuzk_fil_porep_cache_id(fk->cache_id, fk->proof_id) ? 0 : -1;
    case CUZK_FIL_KIND_WINDOW_POST:
    case CUZK_FIL_KIND_WINNING_POST: {
        bool win = fk->kind == CUZK_FIL_KIND_WINNING_POST;
        if (cuzk_post_config_for(&fk->cfg.post, fk->sector_size, win ? CUZK_POST_WINNING : CUZK_POST_WINDOW)) return -1;
        fk->partitions = 1;
        fk->num_inputs = (uint32_t)cuzk_post_num_inputs(&fk->cfg.post) - 1;
        fk->priority = win ? CUZK_PRIORITY_CRITICAL : CUZK_PRIORITY_HIGH;
        return cuzk_fil_post_cache_id(fk->cache_id, fk->proof_id) ? 0 : -1;
    }
    case CUZK_FIL_KIND_SNAP:
        if (cuzk_update_config_for(&fk->cfg.update, fk->sector_size)) return -1;
        fk->partitions = fk->cfg.update.partitions;
        fk->num_inputs = 4;
        fk->priority = CUZK_PRIORITY_NORMAL;
        return cuzk_fil_update_cache_id(fk->cache_id, fk->proof_id, 0) ? 0 : -1;
    }
    return -1;
}

/* fk for a table entry (name, proof id, shape); -1 when its circuit has no shape. */
static int kind_init(fil_kind *fk, const cuzk_fil_kind_entry *ke, unsigned synth_threads)
{
    memset(fk, 0, sizeof *fk);
    fk->kind = ke->kind;
    fk->sector_size = ke->sector_size;
    fk->proof_id = ke->proof_id;
    fk->synth_threads = synth_threads; /* 0: the system's own, which the engine sets */
    snprintf(fk->name, sizeof fk->name, "%s", ke->name);
    snprintf(fk->circuit_id, sizeof fk->circuit_id, "%s", ke->circuit_id);
    return kind_shape(fk);
}

static int pce_synth_blank(cuzk_cs *cs, void *ctx) { return fil_synthesize(ctx, cs, NULL, 0, NULL, 0); }

/* fk for a circuit id ("porep-32g"); -1 with a message when there is none. */
static int kind_by_name(fil_kind *fk, const char *circuit_id, unsigned synth_threads, char *err, size_t err_len)
{
    cuzk_fil_kind_entry ke;
    if (!cuzk_fil_kind_by_name(&ke, circuit_id) && !kind_init(fk, &ke, synth_threads)) return 0;
    snprintf(err, err_len, "%s: not a Filecoin circuit id (porep-, snap-, wpost-, winning- x 2k, 8m, 512m, 32g, 64g)",
             circuit_id);
    return -1;
}

int cuzk_engine_filecoin_pce(const char *dir, const char *circuit_id, unsigned nthreads, cuzk_pce **out,
                             cuzk_pce_cache_outcome *outcome, char *err, size_t err_len)
{
    fil_kind fk;
    if (kind_by_name(&fk, circuit_id, nthreads, err, err_len)) return CUZK_ERR_INVALID_ARG;
    uint8_t fp[CUZK_PCE_HASH_BYTES];
    pce_engine_fingerprint(fp, fk.name);
    cuzk_pce_cache_opts opts = {.dir = dir, .nthreads = nthreads ? nthreads : 1};
    cuzk_pce_error pe;
    pe.msg[0] = 0;
    int rc = cuzk_pce_cache_get(out, &opts, fk.name, fp, pce_synth_blank, &fk, outcome, &pe);
    if (rc) snprintf(err, err_len, "%s: %s", fk.name, pe.msg[0] ? pe.msg : cuzk_strerror(rc));
    return rc;
}

int cuzk_engine_filecoin_pce_check(const cuzk_pce *pce, const char *circuit_id, const void *request, size_t len,
                                   uint32_t partition, unsigned nthreads, cuzk_engine_pce_check *out, char *err,
                                   size_t err_len)
{
    memset(out, 0, sizeof *out);
    fil_kind fk;
    if (kind_by_name(&fk, circuit_id, nthreads, err, err_len)) return CUZK_ERR_INVALID_ARG;
    if (partition >= fk.partitions) {
        snprintf(err, err_len, "partition %u: %s has %u", partition, fk.name, fk.partitions);
        return CUZK_ERR_INVALID_ARG;
    }
    double t = cuzk_now();
    void *job = NULL;
    int rc = fil_prepare(&fk, request, len, &job, err, err_len);
    out->parse_s = cuzk_now() - t;
    if (rc) return rc;
    cuzk_witness_cs *w = cuzk_witness_cs_new();
    cuzk_pce_eval_buf buf = {0};
    cuzk_fr *pub = calloc(fk.num_inputs ? fk.num_inputs : 1, sizeof *pub);
    rc = w && pub ? cuzk_cs_alloc_one(&w->base) : CUZK_ERR_NO_MEMORY;
    t = cuzk_now();
    if (!rc) rc = fil_synthesize(&fk, &w->base, request, len, job, partition);
    if (!rc) rc = cuzk_cs_error(&w->base);
    if (!rc) rc = cuzk_cs_finalize(&w->base);
    out->witness_s = cuzk_now() - t;
    if (rc) snprintf(err, err_len, "witness synthesis of partition %u: %s", partition, cuzk_strerror(rc));
    if (!rc && (rc = cuzk_pce_eval_buf_alloc(&buf, pce))) snprintf(err, err_len, "no memory for a, b, c");
    t = cuzk_now();
    if (!rc && (rc = cuzk_pce_eval(pce, w, &buf, nthreads, NULL)))
        snprintf(err, err_len, "PCE evaluation: %s (witness %zu inputs, %zu aux; PCE %llu, %llu)", cuzk_strerror(rc),
                 w->input.len, w->aux.len, (unsigned long long)pce->num_inputs, (unsigned long long)pce->num_aux);
    out->eval_s = cuzk_now() - t;
    /* the witness's public inputs (after ONE) are the ones cuzk rebuilt */
    if (!rc && (rc = fil_public_inputs(&fk, pub, request, len, job, partition)) == CUZK_OK) {
        for (uint32_t i = 0; i < fk.num_inputs && !rc; i++)
            if (!cuzk_fr_eq(&pub[i], &w->input.v[1 + i])) {
                snprintf(err, err_len, "public input %u: the witness's differs from the rebuilt one", i);
                rc = CUZK_ERR_VERIFY_FAILED;
            }
    }
    t = cuzk_now();
    for (size_t i = 0; !rc && i < buf.len; i++) {
        cuzk_fr ab;
        cuzk_fr_mul(&ab, &buf.a[i], &buf.b[i]);
        if (!cuzk_fr_eq(&ab, &buf.c[i])) {
            snprintf(err, err_len, "constraint %zu: a*b != c", i);
            rc = CUZK_ERR_VERIFY_FAILED;
        }
    }
    out->check_s = cuzk_now() - t;
    out->constraints = buf.len;
    out->aux = w ? w->aux.len : 0;
    cuzk_pce_eval_buf_free(&buf);
    if (w) cuzk_cs_free(&w->base);
    free(pub);
    fil_job_free(&fk, job);
    return rc;
}

int cuzk_engine_register_filecoin(cuzk_engine *e, const cuzk_engine_filecoin_opts *o,
                                  void (*on_kind)(void *ud, const char *name, const char *circuit_id), void *ud,
                                  unsigned *registered, char *err, size_t err_len)
{
    if (registered) *registered = 0;
    if (!e || !o || !o->param_cache) return CUZK_ERR_INVALID_ARG;
    unsigned porep_keys = 0;
    for (size_t i = 0; i < CUZK_FIL_KINDS; i++) {
        cuzk_fil_kind_entry ke;
        cuzk_fil_kind_at(&ke, i);
        fil_kind *fk = calloc(1, sizeof *fk);
        if (!fk) return CUZK_ERR_NO_MEMORY;
        const bool init = kind_init(fk, &ke, o->synth_threads) == 0, files = init && kind_files(fk, o->param_cache);
        porep_keys += init && fk->kind == CUZK_FIL_KIND_POREP && kind_key_present(fk);
        if (!files) {
            free(fk); /* no parameters for this kind here */
            continue;
        }
        if (fk->kind == CUZK_FIL_KIND_NI_POREP && !(fk->ni = fil_ni_new(o->param_cache, !o->refuse_test_srs))) {
            free(fk);
            return CUZK_ERR_NO_MEMORY;
        }
        cuzk_engine_kind k = {
            .name = fk->name,
            .circuit_id = fk->circuit_id,
            .num_partitions = fk->partitions,
            .default_priority = fk->priority,
            .num_public_inputs = fk->num_inputs,
            .params_path = fk->params_path,
            .read_mode = o->read_mode,
            .vk_path = fk->vk_path,
            .vk_is_ceremony = fil_vk_is_ceremony,
            .synthesize = fil_synthesize,
            .public_inputs = fil_public_inputs,
            .prepare = fil_prepare,
            .prepared_free = fil_job_free,
            .finish = fk->ni ? fil_ni_finish : NULL,
            .ctx = fk,
            .ctx_free = fil_kind_free,
        };
        int rc = cuzk_engine_register_kind(e, &k);
        if (rc) {
            if (err && err_len)
                snprintf(err, err_len, "kind %s (%s): %s", fk->name, fk->params_path, cuzk_strerror(rc));
            fil_kind_free(fk);
            return rc;
        }
        if (registered) (*registered)++;
        if (on_kind) on_kind(ud, fk->name, fk->circuit_id);
    }
    /* the PoRep proofs' aggregation, where a PoRep key is (it checks aggregates against the .vk
     * and the SRS; a verifying host need not hold the .params) */
    int rc = porep_keys ? fil_agg_register(e, o, on_kind, ud) : CUZK_OK;
    if (rc && err && err_len) snprintf(err, err_len, "kind %s: %s", CUZK_FIL_AGG_KIND, cuzk_strerror(rc));
    if (!rc && porep_keys && registered) (*registered)++;
    return rc;
}
