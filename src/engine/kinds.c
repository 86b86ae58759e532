/*
 * The circuit registry, and full synthesis into a ProvingAssignment.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
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
    free((char *)k->k.vk_path);
    free(k);
}

/* A circuit: synthesis, public inputs and exactly one parameter source. */
static bool kind_circuit_valid(const cuzk_engine_kind *kind)
{
    return kind->synthesize && kind->public_inputs && !kind->params_path != !kind->params &&
           (!kind->vk_path || kind->params_path) && (!kind->vk_is_ceremony || kind->vk_path);
}

/* A task (no partitions): its finish is the whole job, with no circuit or parameters. */
static bool kind_task_valid(const cuzk_engine_kind *kind)
{
    return kind->finish && !kind->synthesize && !kind->public_inputs && !kind->params_path && !kind->params &&
           !kind->vk_path && !kind->vk_is_ceremony;
}

int cuzk_engine_register_kind(cuzk_engine *e, const cuzk_engine_kind *kind)
{
    if (!e || !kind || !kind->name || !*kind->name || !kind->circuit_id || !*kind->circuit_id ||
        !(kind->num_partitions ? kind_circuit_valid(kind) : kind_task_valid(kind)) ||
        !kind->prepare != !kind->prepared_free || kind->default_priority < CUZK_PRIORITY_DEFAULT ||
        kind->default_priority > CUZK_PRIORITY_CRITICAL)
        return CUZK_ERR_INVALID_ARG;
    kind_entry *k = calloc(1, sizeof *k);
    if (!k) return CUZK_ERR_NO_MEMORY;
    k->k = *kind;
    k->k.name = strdup(kind->name);
    k->k.circuit_id = strdup(kind->circuit_id);
    k->k.params_path = kind->params_path ? strdup(kind->params_path) : NULL;
    k->k.vk_path = kind->vk_path ? strdup(kind->vk_path) : NULL;
    k->witness_bytes = kind->witness_bytes;
    if (k->k.default_priority == CUZK_PRIORITY_DEFAULT) k->k.default_priority = CUZK_PRIORITY_NORMAL;
    if (!k->k.name || !k->k.circuit_id || (kind->params_path && !k->k.params_path) ||
        (kind->vk_path && !k->k.vk_path)) {
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
    if (!err && kind->num_partitions) k->srs = srs_get_or_add(e, kind, &err); /* a task has none */
    if (!err) {
        e->kinds[e->nkinds++] = k;
        synth_limit_update(e);
    }
    pthread_mutex_unlock(&e->mu);
    if (err) {
        kind_entry_free(k);
        return err;
    }
    if (k->srs) pce_load_cached(e, k);
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
                 unsigned threads, cuzk_engine_witness *out)
{
    memset(out, 0, sizeof *out);
    cuzk_proving_cs *cs = cuzk_proving_cs_new();
    if (!cs) return CUZK_ERR_NO_MEMORY;
    cuzk_cs_set_threads(&cs->base, threads);
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

int cuzk_engine_kind_witness_bytes(const cuzk_engine_kind *kind, const void *inputs, size_t inputs_len,
                                   const void *prepared, uint32_t partition, uint64_t *bytes)
{
    if (!kind || !kind->synthesize || !bytes) return CUZK_ERR_INVALID_ARG;
    kind_entry probe = {.k = *kind};
    cuzk_engine_witness w;
    int err = witness_full(&probe, inputs, inputs_len, prepared, partition, 1, &w);
    if (err) return err;
    *bytes = witness_bytes(&w);
    w.release(w.owner);
    return CUZK_OK;
}
