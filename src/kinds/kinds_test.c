/*
 * Synthetic test kinds (cuzk/kinds/kinds.h): the synthetic circuit of
 * cuzk/circuits/test_circuits.h with test parameters made at registration, so that
 * the engine and the daemon can be exercised at any size without Filecoin
 * parameters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/util/error.h"
#include "cuzk/circuits/test_circuits.h"

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
    uint8_t zero[8] = {0};
    if (!err) err = cuzk_engine_kind_witness_bytes(&k, zero, sizeof zero, NULL, 0, &k.witness_bytes);
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
