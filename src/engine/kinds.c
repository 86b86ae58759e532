/*
 * The circuit registry, full synthesis into a ProvingAssignment, the CPU
 * prover, and the built-in synthetic test kinds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "cuzk/test_circuits.h"
#include "engine/engine_internal.h"

kind_entry *kind_find(cuzk_engine *e, const char *name)
{
    for (size_t i = 0; i < e->nkinds; i++)
        if (!strcmp(e->kinds[i]->k.name, name)) return e->kinds[i];
    return NULL;
}

static void kind_entry_free(kind_entry *k)
{
    if (!k) return;
    free((char *)k->k.name);
    free((char *)k->k.circuit_id);
    free((char *)k->k.params_path);
    free(k);
}

int cuzk_engine_register_kind(cuzk_engine *e, const cuzk_engine_kind *kind)
{
    if (!e || !kind || !kind->name || !*kind->name || !kind->circuit_id || !*kind->circuit_id ||
        kind->num_partitions == 0 || !kind->synthesize || !kind->public_inputs ||
        !kind->prepare != !kind->prepared_free ||
        !kind->params_path == !kind->params || kind->default_priority < CUZK_PRIORITY_DEFAULT ||
        kind->default_priority > CUZK_PRIORITY_CRITICAL)
        return CUZK_ERR_INVALID_ARG;
    kind_entry *k = calloc(1, sizeof *k);
    if (!k) return CUZK_ERR_NO_MEMORY;
    k->k = *kind;
    k->k.name = strdup(kind->name);
    k->k.circuit_id = strdup(kind->circuit_id);
    k->k.params_path = kind->params_path ? strdup(kind->params_path) : NULL;
    k->witness_bytes = kind->witness_bytes;
    if (k->k.default_priority == CUZK_PRIORITY_DEFAULT) k->k.default_priority = CUZK_PRIORITY_NORMAL;
    if (!k->k.name || !k->k.circuit_id || (kind->params_path && !k->k.params_path)) {
        kind_entry_free(k);
        return CUZK_ERR_NO_MEMORY;
    }
    pthread_mutex_lock(&e->mu);
    int err = kind_find(e, kind->name) ? CUZK_ERR_INVALID_ARG : CUZK_OK;
    if (!err && e->nkinds == e->kinds_cap) {
        size_t cap = e->kinds_cap ? 2 * e->kinds_cap : 8;
        kind_entry **a = realloc(e->kinds, cap * sizeof *a);
        if (a) e->kinds = a, e->kinds_cap = cap;
        else err = CUZK_ERR_NO_MEMORY;
    }
    if (!err) k->srs = srs_get_or_add(e, kind->circuit_id, kind->params_path, kind->read_mode, kind->params, &err);
    if (!err) {
        e->kinds[e->nkinds++] = k;
        synth_limit_update(e);
    }
    pthread_mutex_unlock(&e->mu);
    if (err) {
        kind_entry_free(k);
        return err;
    }
    pce_load_cached(e, k);
    return CUZK_OK;
}

void kinds_free_all(cuzk_engine *e)
{
    for (size_t i = 0; i < e->nkinds; i++) {
        kind_entry *k = e->kinds[i];
        if (k->k.ctx_free) k->k.ctx_free(k->k.ctx);
        kind_entry_free(k);
    }
    free(e->kinds);
    e->kinds = NULL;
    e->nkinds = e->kinds_cap = 0;
}

/* ---- full synthesis ------------------------------------------------------ */

static void cs_release(void *owner) { cuzk_cs_free(owner); }

int witness_full(const kind_entry *k, const void *inputs, size_t len, const void *prepared, uint32_t partition,
                 cuzk_engine_witness *out)
{
    memset(out, 0, sizeof *out);
    cuzk_proving_cs *cs = cuzk_proving_cs_new();
    if (!cs) return CUZK_ERR_NO_MEMORY;
    int err = cuzk_cs_alloc_one(&cs->base);
    if (!err) err = k->k.synthesize(k->k.ctx, &cs->base, inputs, len, prepared, partition);
    if (!err) err = cuzk_cs_error(&cs->base);
    if (!err) err = cuzk_cs_finalize(&cs->base);
    if (!err) err = cuzk_groth16_assignment_from_cs(&out->as, cs);
    if (err) {
        cuzk_cs_free(&cs->base);
        memset(out, 0, sizeof *out);
        return err;
    }
    out->owner = cs;
    out->release = cs_release;
    /* what the vectors hold, growth slack included */
    out->bytes = (cs->input.cap + cs->aux.cap + cs->a.cap + cs->b.cap + cs->c.cap) * sizeof(cuzk_fr) +
                 (cs->a_aux.cap_words + cs->b_input.cap_words + cs->b_aux.cap_words) * sizeof(uint64_t);
    return CUZK_OK;
}

uint64_t witness_bytes(const cuzk_engine_witness *w)
{
    if (w->bytes) return w->bytes;
    const cuzk_groth16_assignment *a = &w->as;
    return (3 * a->num_constraints + a->num_inputs + a->num_aux) * sizeof(cuzk_fr);
}

/* ---- the CPU prover ------------------------------------------------------ */

/* Each prover worker is its own thread and asks for its timing right after
 * its prove: a thread-local keeps the CPU prover free of state. */
static _Thread_local cuzk_groth16_prove_timing cpu_last_tm;

static int cpu_prove(void *ctx, void *dev, unsigned worker, const cuzk_groth16_params *params, size_t n,
                     const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s,
                     cuzk_groth16_proof *out)
{
    unsigned threads = (unsigned)(uintptr_t)ctx;
    for (size_t i = 0; i < n; i++) {
        int err = cuzk_groth16_prove_assignment(&out[i], params, &as[i], &r[i], &s[i], threads, &cpu_last_tm);
        if (err != CUZK_OK) return err;
    }
    return CUZK_OK;
}

static void cpu_last_timing(void *ctx, void *dev, unsigned worker, cuzk_groth16_prove_timing *out)
{
    *out = cpu_last_tm;
}

void cuzk_engine_cpu_prover(cuzk_engine_prover *out, unsigned threads)
{
    memset(out, 0, sizeof *out);
    out->name = "cpu";
    out->prove = cpu_prove;
    out->last_timing = cpu_last_timing;
    out->ctx = (void *)(uintptr_t)(threads ? threads : 1);
}

/* ---- built-in synthetic kinds ------------------------------------------- */

typedef struct synth_ctx {
    uint64_t num_constraints;
    uint32_t num_inputs;
    cuzk_groth16_params params; /* in-memory source, or empty */
} synth_ctx;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static cuzk_synthetic_spec synth_spec(const synth_ctx *c, const void *inputs, uint32_t partition)
{
    const uint8_t *b = inputs;
    uint64_t seed = 0;
    for (int i = 7; i >= 0; i--) seed = seed << 8 | b[i];
    cuzk_synthetic_spec s = {c->num_constraints, c->num_inputs,
                             mix64(seed + 0x9e3779b97f4a7c15ull * ((uint64_t)partition + 1))};
    return s;
}

static int synth_check(void *ctx, const void *inputs, size_t len)
{
    return len == 8 && inputs ? CUZK_OK : CUZK_ERR_BAD_LENGTH;
}

static int synth_synthesize(void *ctx, cuzk_cs *cs, const void *inputs, size_t len, const void *prepared,
                            uint32_t partition)
{
    if (synth_check(ctx, inputs, len)) return CUZK_ERR_BAD_LENGTH;
    cuzk_synthetic_spec s = synth_spec(ctx, inputs, partition);
    return cuzk_synthetic_synthesize(cs, &s);
}

static int synth_public(void *ctx, cuzk_fr *out, const void *inputs, size_t len, const void *prepared,
                        uint32_t partition)
{
    if (synth_check(ctx, inputs, len)) return CUZK_ERR_BAD_LENGTH;
    cuzk_synthetic_spec s = synth_spec(ctx, inputs, partition);
    return cuzk_synthetic_public_inputs(out, &s);
}

static void synth_free(void *ctx)
{
    synth_ctx *c = ctx;
    cuzk_groth16_params_free(&c->params);
    free(c);
}

int cuzk_engine_register_synthetic(cuzk_engine *e, const cuzk_engine_synthetic_kind *spec,
                                   unsigned setup_threads)
{
    if (!e || !spec || !spec->name || !spec->circuit_id || spec->num_constraints < spec->num_inputs ||
        spec->num_constraints == 0)
        return CUZK_ERR_INVALID_ARG;
    synth_ctx *c = calloc(1, sizeof *c);
    if (!c) return CUZK_ERR_NO_MEMORY;
    c->num_constraints = spec->num_constraints;
    c->num_inputs = spec->num_inputs;

    /* the shape depends on the sizes only: record it once, make test params */
    cuzk_recording_cs *rec = cuzk_recording_cs_new();
    cuzk_synthetic_spec s0 = {spec->num_constraints, spec->num_inputs, 0};
    int err = rec ? cuzk_cs_alloc_one(&rec->base) : CUZK_ERR_NO_MEMORY;
    if (!err) err = cuzk_synthetic_synthesize(&rec->base, &s0);
    if (!err) err = cuzk_cs_finalize(&rec->base);
    cuzk_rng rng;
    if (!err && spec->setup_seed) cuzk_rng_seed(&rng, spec->setup_seed);
    else if (!err) err = cuzk_rng_seed_os(&rng);
    if (!err) err = cuzk_groth16_setup(&c->params, rec, &rng, setup_threads);
    if (rec) cuzk_cs_free(&rec->base);
    cuzk_engine_kind k = {
        .name = spec->name,
        .circuit_id = spec->circuit_id,
        .num_partitions = spec->num_partitions ? spec->num_partitions : 1,
        .default_priority = spec->priority,
        .num_public_inputs = spec->num_inputs,
        .read_mode = CUZK_GROTH16_TRUSTED,
        .synthesize = synth_synthesize,
        .public_inputs = synth_public,
        .check_inputs = synth_check,
        .ctx = c,
        .ctx_free = synth_free,
    };
    /* reserve exactly what a partition takes: measure one */
    if (!err) {
        kind_entry probe = {.k = k};
        cuzk_engine_witness w;
        uint8_t zero[8] = {0};
        err = witness_full(&probe, zero, sizeof zero, NULL, 0, &w);
        if (!err) {
            k.witness_bytes = witness_bytes(&w);
            w.release(w.owner);
        }
    }
    if (!err && spec->params_path) {
        cuzk_groth16_error gerr;
        err = cuzk_groth16_params_write_file(&c->params, spec->params_path, &gerr);
        cuzk_groth16_params_free(&c->params);
        k.params_path = spec->params_path;
    } else {
        k.params = &c->params;
    }
    if (!err) err = cuzk_engine_register_kind(e, &k);
    if (err) synth_free(c);
    return err;
}

int cuzk_engine_register_test_kinds(cuzk_engine *e, uint64_t porep_constraints, uint64_t post_constraints,
                                    unsigned setup_threads)
{
    const cuzk_engine_synthetic_kind kinds[3] = {
        {"test-porep", "test-porep", 10, CUZK_PRIORITY_NORMAL, porep_constraints, 4, NULL, 0},
        {"test-window", "test-window", 1, CUZK_PRIORITY_HIGH, post_constraints, 2, NULL, 0},
        {"test-winning", "test-winning", 1, CUZK_PRIORITY_CRITICAL, post_constraints, 2, NULL, 0},
    };
    for (int i = 0; i < 3; i++) {
        int err = cuzk_engine_register_synthetic(e, &kinds[i], setup_threads);
        if (err) return err;
    }
    return CUZK_OK;
}
