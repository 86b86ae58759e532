/*
 * Shared pieces of the engine tests: a test kind whose parameters, public
 * inputs and verification the test owns (so job proofs are checked
 * independently of the engine), a stage gate (blocks a worker at a chosen
 * stage of a chosen job), a prover with injected faults, and log capture.
 */
#ifndef CUZK_ENGINE_TEST_H
#define CUZK_ENGINE_TEST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/engine/engine.h"
#include "cuzk/util/error.h"
#include "cuzk/circuits/test_circuits.h"
#include "testutil.h"

/* not every test uses every helper */
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"

/* ---- a kind the test owns ------------------------------------------------ */

#define TK_FAIL_SYNTH (1ull << 63) /* inputs seed flag: partition 1 fails synthesis */

typedef struct tkind {
    uint64_t nc;
    uint32_t ni;
    bool general; /* the synthetic circuit's general form (no boolean steps) */
    cuzk_groth16_params params;
    cuzk_groth16_pvk pvk;
} tkind;

static cuzk_synthetic_spec tk_spec(const tkind *k, const void *in, uint32_t part)
{
    uint64_t seed;
    memcpy(&seed, in, 8);
    cuzk_synthetic_spec s = {k->nc, k->ni, seed * 1000003u + part};
    return s;
}

static int tk_check(void *ctx, const void *in, size_t len) { return len == 8 ? CUZK_OK : CUZK_ERR_BAD_LENGTH; }

static int tk_synth(void *ctx, cuzk_cs *cs, const void *in, size_t len, const void *prepared, uint32_t part)
{
    uint64_t seed;
    memcpy(&seed, in, 8);
    if ((seed & TK_FAIL_SYNTH) && part == 1) return CUZK_ERR_UNSATISFIED;
    cuzk_synthetic_spec s = tk_spec(ctx, in, part);
    return cuzk_synthetic_synthesize_form(cs, &s, ((const tkind *)ctx)->general);
}

static int tk_public(void *ctx, cuzk_fr *out, const void *in, size_t len, const void *prepared, uint32_t part)
{
    cuzk_synthetic_spec s = tk_spec(ctx, in, part);
    return cuzk_synthetic_public_inputs(out, &s);
}

static void tk_setup_spec(tkind *k, uint64_t nc, uint32_t ni, bool general, cuzk_rng *rng)
{
    memset(k, 0, sizeof *k);
    k->nc = nc, k->ni = ni, k->general = general;
    cuzk_recording_cs *rec = cuzk_recording_cs_new();
    cuzk_synthetic_spec s = {nc, ni, 0};
    CHECK(cuzk_cs_alloc_one(&rec->base) == CUZK_OK);
    CHECK(cuzk_synthetic_synthesize_form(&rec->base, &s, general) == CUZK_OK);
    CHECK(cuzk_cs_finalize(&rec->base) == CUZK_OK);
    CHECK(cuzk_groth16_setup(&k->params, rec, rng, 2) == CUZK_OK);
    CHECK(cuzk_groth16_prepare_vk(&k->pvk, &k->params.vk) == CUZK_OK);
    cuzk_cs_free(&rec->base);
}

static void tk_setup(tkind *k, uint64_t nc, uint32_t ni, cuzk_rng *rng) { tk_setup_spec(k, nc, ni, false, rng); }

static void tk_free(tkind *k)
{
    cuzk_groth16_params_free(&k->params);
    cuzk_groth16_pvk_free(&k->pvk);
}

static cuzk_engine_kind tk_kind(tkind *k, const char *name, const char *circuit, uint32_t parts,
                                cuzk_priority prio)
{
    cuzk_engine_kind d = {.name = name, .circuit_id = circuit, .num_partitions = parts,
                          .default_priority = prio, .num_public_inputs = k->ni, .params = &k->params,
                          .synthesize = tk_synth, .public_inputs = tk_public, .check_inputs = tk_check,
                          .ctx = k};
    return d;
}

/* A job's proof, checked by the test: length, decoding, and every
 * partition against natively computed public inputs (batch verification). */
static bool tk_bytes_ok(tkind *k, const uint8_t *pr, size_t len, uint64_t seed, uint32_t parts)
{
    if (len != (size_t)parts * CUZK_GROTH16_PROOF_BYTES) return false;
    cuzk_groth16_proof *proofs = malloc(parts * sizeof *proofs);
    cuzk_fr *pub = malloc((size_t)parts * (k->ni ? k->ni : 1) * sizeof *pub);
    bool ok = proofs && pub && cuzk_groth16_proofs_decode(proofs, parts, pr, len, NULL) == CUZK_OK;
    for (uint32_t p = 0; ok && p < parts; p++) {
        cuzk_synthetic_spec s = tk_spec(k, &seed, p);
        ok = cuzk_synthetic_public_inputs(pub + (size_t)p * k->ni, &s) == CUZK_OK;
    }
    if (ok) ok = cuzk_groth16_verify_batch(&k->pvk, proofs, parts, pub, k->ni) == CUZK_OK;
    free(proofs);
    free(pub);
    return ok;
}

static bool tk_proof_ok(tkind *k, cuzk_job *j, uint64_t seed, uint32_t parts)
{
    const uint8_t *pr;
    size_t len;
    return cuzk_job_proof(j, &pr, &len) == CUZK_OK && tk_bytes_ok(k, pr, len, seed, parts);
}

static int tk_submit(cuzk_engine *e, const char *kind, const char *id, uint64_t seed, cuzk_priority prio,
                     uint32_t timeout_ms, cuzk_job **out)
{
    cuzk_job_request rq = {.request_id = id, .kind = kind, .inputs = &seed, .inputs_len = 8,
                           .priority = prio, .timeout_ms = timeout_ms};
    return cuzk_engine_submit(e, &rq, out, NULL);
}

/* ---- stage gate ---------------------------------------------------------- */

typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool armed;
    unsigned gen; /* bumped by each release */
    int stage;
    char id[64];
    unsigned arrived;
} gate;

static gate G = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, 0, "", 0};

/* The order in which partitions reached the prove stage (under G.mu). */
static char prove_order[256][40];
static unsigned n_prove_order;

static void gate_hook(void *ctx, cuzk_engine_stage stage, const char *id, uint32_t part)
{
    gate *g = ctx;
    pthread_mutex_lock(&g->mu);
    if (stage == CUZK_STAGE_PROVE && n_prove_order < 256)
        snprintf(prove_order[n_prove_order++], sizeof prove_order[0], "%s/%u", id, part);
    if (g->armed && (int)stage == g->stage && !strcmp(id, g->id)) {
        unsigned gen = g->gen; /* a later arm must not hold this waiter again */
        g->arrived++;
        pthread_cond_broadcast(&g->cv);
        while (g->gen == gen) pthread_cond_wait(&g->cv, &g->mu);
    }
    pthread_mutex_unlock(&g->mu);
}

static void gate_arm(gate *g, cuzk_engine_stage stage, const char *id)
{
    pthread_mutex_lock(&g->mu);
    g->armed = true, g->stage = (int)stage, g->arrived = 0;
    snprintf(g->id, sizeof g->id, "%s", id);
    pthread_mutex_unlock(&g->mu);
}

static void gate_wait(gate *g)
{
    pthread_mutex_lock(&g->mu);
    while (!g->arrived) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

static void gate_release(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->gen++, g->armed = false;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* ---- log capture --------------------------------------------------------- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_buf[1 << 16];
static size_t log_len;

static void log_capture(void *ctx, int level, const char *msg)
{
    pthread_mutex_lock(&log_mu);
    int n = snprintf(log_buf + log_len, sizeof log_buf - log_len, "%d %s\n", level, msg);
    if (n > 0 && log_len + (size_t)n < sizeof log_buf) log_len += (size_t)n;
    pthread_mutex_unlock(&log_mu);
}

static unsigned log_count(const char *needle)
{
    pthread_mutex_lock(&log_mu);
    unsigned n = 0;
    for (const char *p = log_buf; (p = strstr(p, needle)); p++) n++;
    pthread_mutex_unlock(&log_mu);
    return n;
}

static void log_clear(void)
{
    pthread_mutex_lock(&log_mu);
    log_len = 0;
    log_buf[0] = 0;
    pthread_mutex_unlock(&log_mu);
}

/* Whether the engine's status JSON holds needle (status_has: printing the
 * JSON when it does not). */
static bool status_has_quiet(cuzk_engine *e, const char *needle)
{
    char *js = cuzk_engine_status_json(e);
    bool ok = js && strstr(js, needle);
    free(js);
    return ok;
}

static bool status_has(cuzk_engine *e, const char *needle)
{
    bool ok = status_has_quiet(e, needle);
    if (!ok) {
        char *js = cuzk_engine_status_json(e);
        fprintf(stderr, "status lacks %s: %s\n", needle, js ? js : "(null)");
        free(js);
    }
    return ok;
}

/* Like WAIT_FOR, giving up after about 30 s (a liveness guard: the CHECK
 * that follows fails instead of the test hanging). */
#define WAIT_FOR_BOUNDED(e, cond, ok)                                                              \
    do {                                                                                           \
        cuzk_engine_counters c_;                                                                   \
        (ok) = false;                                                                              \
        for (int n_ = 0; n_ < 30000 && !(ok); n_++) {                                              \
            cuzk_engine_get_counters((e), &c_);                                                    \
            if (cond) (ok) = true;                                                                 \
            else usleep(1000);                                                                     \
        }                                                                                          \
    } while (0)

/* Polls a counter until cond holds (no time assertions; a hang is a failure
 * the CTest timeout reports). */
#define WAIT_FOR(e, cond)                                                                          \
    do {                                                                                           \
        cuzk_engine_counters c_;                                                                   \
        for (;;) {                                                                                 \
            cuzk_engine_get_counters((e), &c_);                                                    \
            if (cond) break;                                                                       \
            usleep(1000);                                                                          \
        }                                                                                          \
    } while (0)

#endif
