/*
 * The PCE layer behind the engine's PCE hook (cuzk_engine_pce): a cache
 * directory of "<circuit id>.pce" files (cuzk_pce_cache_get: validated,
 * single extraction across threads and processes, saved atomically), and
 * the fast path: witness-only synthesis (WitnessCS) plus cuzk_pce_eval into
 * an assignment view (cuzk_groth16_assignment_from_pce).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16_pce.h"
#include "cuzk/pce/pce.h"
#include "kinds/kinds_internal.h"

typedef struct pce_cache_ctx {
    char *dir;
    unsigned nthreads;
    bool verify_background; /* pce_verify = "background" */
    bool verify_start;      /* files found at registration: in the background whatever pce_verify says */
} pce_cache_ctx;

/* The circuit id names the topology; its fingerprint is what files carry. */
void pce_engine_fingerprint(uint8_t fp[CUZK_PCE_HASH_BYTES], const char *circuit_id)
{
    char identity[CUZK_PCE_ID_MAX + 32];
    snprintf(identity, sizeof identity, "cuzk-engine/%s", circuit_id);
    cuzk_pce_fingerprint(fp, identity);
}

static void pc_fingerprint(uint8_t fp[CUZK_PCE_HASH_BYTES], const cuzk_engine_kind *kind)
{
    pce_engine_fingerprint(fp, kind->circuit_id);
}

/* A kind's registration (a daemon's start): the cached file only. A file
 * that fails a check is reported and set aside now; with verify_start its
 * section checksums are hashed in the background, so that the start does
 * not wait for them and a mismatch is still reported at once. */
static int pc_load(void *ctx, const cuzk_engine_kind *kind, void **out, uint64_t *bytes)
{
    pce_cache_ctx *c = ctx;
    uint8_t fp[CUZK_PCE_HASH_BYTES];
    pc_fingerprint(fp, kind);
    cuzk_pce_cache_opts opts = {
        .dir = c->dir, .nthreads = c->nthreads, .verify_background = c->verify_background || c->verify_start};
    cuzk_pce *p = NULL;
    int err = cuzk_pce_cache_load(&p, &opts, kind->circuit_id, fp, NULL);
    if (err) return err; /* extraction will replace it through the cache */
    *out = p;
    *bytes = cuzk_pce_memory_bytes(p);
    return CUZK_OK;
}

typedef struct pc_synth {
    const cuzk_engine_kind *kind;
    const void *inputs;
    size_t len;
} pc_synth;

static int pc_synth_fn(cuzk_cs *cs, void *ctx)
{
    pc_synth *s = ctx;
    /* one thread, as before: a RecordingCS's children are copied into it at
     * the end, and an extraction's reservation counts the matrices once */
    cuzk_cs_set_threads(cs, 1);
    return s->kind->synthesize(s->kind->ctx, cs, s->inputs, s->len, NULL, 0); /* no prepared: the blank circuit */
}

static int pc_extract(void *ctx, const cuzk_engine_kind *kind, const void *inputs, size_t len, void **out,
                      uint64_t *bytes)
{
    pce_cache_ctx *c = ctx;
    uint8_t fp[CUZK_PCE_HASH_BYTES];
    pc_fingerprint(fp, kind);
    cuzk_pce_cache_opts opts = {
        .dir = c->dir, .nthreads = c->nthreads, .no_wait = false, .verify_background = c->verify_background};
    pc_synth s = {kind, inputs, len};
    cuzk_pce *p = NULL;
    cuzk_pce_cache_outcome oc;
    int err = cuzk_pce_cache_get(&p, &opts, kind->circuit_id, fp, pc_synth_fn, &s, &oc, NULL);
    if (err) return err;
    *out = p;
    *bytes = cuzk_pce_memory_bytes(p);
    return CUZK_OK;
}

typedef struct pc_witness {
    cuzk_witness_cs *w;
    cuzk_pce_eval_buf buf;
    cuzk_fr_packed pk; /* the aux packed (CUZK_ENGINE_WITNESS_PACK) */
} pc_witness;

static void pc_witness_free(void *owner)
{
    pc_witness *pw = owner;
    cuzk_pce_eval_buf_free(&pw->buf);
    cuzk_fr_packed_free(&pw->pk);
    if (pw->w) cuzk_cs_free(&pw->w->base);
    free(pw);
}

#define PACK_SAMPLES 65536u

static bool pack_pays(const cuzk_witness_cs *w)
{
    size_t taken;
    const size_t gen = cuzk_fr_packed_general_sample(w->aux.v, w->aux.len, false, PACK_SAMPLES, &taken);
    return 4 * gen <= 3 * taken;
}

static int pc_witness_fn(void *ctx, void *pce, const cuzk_engine_kind *kind, const void *inputs, size_t len,
                         const void *prepared, uint32_t partition, unsigned flags, unsigned threads,
                         cuzk_engine_witness *out)
{
    pce_cache_ctx *c = ctx;
    const cuzk_pce *p = pce;
    memset(out, 0, sizeof *out);
    pc_witness *pw = calloc(1, sizeof *pw);
    if (!pw) return CUZK_ERR_NO_MEMORY;
    pw->w = cuzk_witness_cs_new();
    int err = pw->w ? cuzk_cs_alloc_one(&pw->w->base) : CUZK_ERR_NO_MEMORY;
    /* the PCE knows the witness's size: one array of exactly that, filled in place */
    if (!err && p->num_inputs >= 1) err = cuzk_cs_reserve(&pw->w->base, p->num_inputs - 1, p->num_aux);
    if (!err) cuzk_cs_set_threads(&pw->w->base, threads);
    if (!err) err = kind->synthesize(kind->ctx, &pw->w->base, inputs, len, prepared, partition);
    if (!err) err = cuzk_cs_error(&pw->w->base);
    if (!err) err = cuzk_cs_finalize(&pw->w->base);
    const bool defer = flags & CUZK_ENGINE_WITNESS_DEFER_EVAL;
    if (defer) { /* the prover evaluates: only the witness is held until then */
        if (!err) err = cuzk_pce_ready(pce, NULL); /* a corrupt PCE falls back here, as below */
        if (!err) err = cuzk_pce_check_witness(pce, pw->w, NULL);
        if (!err) err = cuzk_groth16_assignment_deferred(&out->as, pce, pw->w);
        /* packed by value class once checked, and the full array given back:
         * the partition waits for its prover in 103 MB instead of 4.17 GB
         * (32 GiB PoRep). Only where it pays: a witness of which fewer than
         * a quarter are zeros and ones in an even sample stays plain (packed,
         * it would keep over 3/4 of its bytes for a pass here and an
         * expansion on the device). */
        if (!err && (flags & CUZK_ENGINE_WITNESS_PACK) && !pw->w->aux_placed && pack_pays(pw->w)) {
            err = cuzk_fr_pack_threads(&pw->pk, pw->w->aux.v, pw->w->aux.len, false, threads);
            if (!err) {
                out->as.aux = NULL, out->as.aux_packed = &pw->pk;
                free(pw->w->aux.v);
                pw->w->aux.v = NULL, pw->w->aux.cap = 0; /* len stays: the witness's shape */
            }
        }
    } else {
        /* the prover's layout: the GPU uploads it in one piece, the CPU copies it in one */
        if (!err) err = cuzk_pce_eval_buf_alloc_domain(&pw->buf, pce);
        if (!err) err = cuzk_pce_eval(pce, pw->w, &pw->buf, c->nthreads, NULL);
        if (!err) err = cuzk_groth16_assignment_from_pce(&out->as, pce, pw->w, &pw->buf);
    }
    if (err) {
        pc_witness_free(pw);
        memset(out, 0, sizeof *out);
        return err;
    }
    out->owner = pw;
    out->release = pc_witness_free;
    out->bytes = (pw->w->input.cap + pw->w->aux.cap + 3 * pw->buf.domain) * sizeof(cuzk_fr) +
                 cuzk_fr_packed_bytes(&pw->pk); /* 0 when not packed */
    return CUZK_OK;
}

static void pc_free(void *ctx, void *pce) { cuzk_pce_free(pce); }

int cuzk_engine_pce_cache(cuzk_engine_pce *out, const char *dir, unsigned nthreads)
{
    if (!out || !dir) return CUZK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pce_cache_ctx *c = calloc(1, sizeof *c);
    if (!c || !(c->dir = strdup(dir))) {
        free(c);
        return CUZK_ERR_NO_MEMORY;
    }
    c->nthreads = nthreads ? nthreads : 1;
    /* a PCE build killed between its temporary's creation and the rename
     * leaves up to a file's size (7 GB for porep-32g) that nothing else
     * would remove until that circuit is extracted again */
    cuzk_pce_cache_clean(dir);
    out->load = pc_load;
    out->extract = pc_extract;
    out->witness = pc_witness_fn;
    out->free = pc_free;
    out->ctx = c;
    return CUZK_OK;
}

int cuzk_engine_pce_cache_verify_background(cuzk_engine_pce *hooks, bool on)
{
    if (!hooks || !hooks->ctx || hooks->load != pc_load) return CUZK_ERR_INVALID_ARG;
    ((pce_cache_ctx *)hooks->ctx)->verify_background = on;
    return CUZK_OK;
}

int cuzk_engine_pce_cache_verify_at_start(cuzk_engine_pce *hooks, bool background)
{
    if (!hooks || !hooks->ctx || hooks->load != pc_load) return CUZK_ERR_INVALID_ARG;
    ((pce_cache_ctx *)hooks->ctx)->verify_start = background;
    return CUZK_OK;
}

void cuzk_engine_pce_cache_free(cuzk_engine_pce *hooks)
{
    if (!hooks || !hooks->ctx) return;
    pce_cache_ctx *c = hooks->ctx;
    free(c->dir);
    free(c);
    memset(hooks, 0, sizeof *hooks);
}
