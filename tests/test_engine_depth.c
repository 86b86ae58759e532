/* How far synthesis runs ahead of the provers. With the default depth
 * (queue_depth 0) the engine learns the mean synthesis time and the
 * interval at which the provers finish partitions, and keeps enough
 * partitions in flight to feed them: with synthesis far slower than proving
 * (a sleep in synthesize) it must go past 2 per prover worker, and the most
 * partitions seen synthesizing at once must exceed that too; a configured
 * depth is kept exactly. A full synthesis (no PCE) runs on one thread
 * unless synthesis_threads says how many (test_engine_faults checks the
 * PCE path's shares). Every job's proof is checked against its own
 * verifying key. */
#include "engine_test.h"

static atomic_int in_synth, max_in_synth;
static atomic_uint min_threads, max_threads; /* cs->threads the syntheses were given */

/* Synthesis far slower than proving this small circuit (ms; tens of ms under a
 * sanitizer on a loaded machine, where 120 ms of synthesis once left the
 * learned depth at its floor): 360 ms where the depth is learned, 120 ms
 * where it is configured. */
static useconds_t synth_sleep_us;
static int slow_synth(void *ctx, cuzk_cs *cs, const void *in, size_t len, const void *prepared, uint32_t part)
{
    int now = atomic_fetch_add(&in_synth, 1) + 1;
    for (int m = atomic_load(&max_in_synth); now > m && !atomic_compare_exchange_weak(&max_in_synth, &m, now);)
        ;
    for (unsigned m = atomic_load(&min_threads); cs->threads < m && !atomic_compare_exchange_weak(&min_threads, &m, cs->threads);)
        ;
    for (unsigned m = atomic_load(&max_threads); cs->threads > m && !atomic_compare_exchange_weak(&max_threads, &m, cs->threads);)
        ;
    usleep(synth_sleep_us);
    int rc = tk_synth(ctx, cs, in, len, prepared, part);
    atomic_fetch_sub(&in_synth, 1);
    return rc;
}

/* "queue_depth" of the status JSON. */
static long status_depth(cuzk_engine *e, double *synth_mean)
{
    char *js = cuzk_engine_status_json(e);
    long d = -1;
    const char *q = js ? strstr(js, "\"queue_depth\":") : NULL;
    if (q) d = strtol(q + strlen("\"queue_depth\":"), NULL, 10);
    const char *s = js ? strstr(js, "\"synthesis_mean_s\":") : NULL;
    if (s && synth_mean) *synth_mean = strtod(s + strlen("\"synthesis_mean_s\":"), NULL);
    free(js);
    return d;
}

static void run(tkind *k, unsigned depth, unsigned threads, uint64_t seed)
{
    cuzk_engine_config cfg = {.synthesis_workers = 8, .num_devices = 1, .workers_per_device = 1,
                              .queue_depth = depth, .synthesis_threads = threads, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "slow", "slow-c", 24, CUZK_PRIORITY_NORMAL);
    kd.synthesize = slow_synth;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, "slow-c") == CUZK_OK);
    atomic_store(&max_in_synth, 0);
    atomic_store(&min_threads, ~0u);
    atomic_store(&max_threads, 0);
    synth_sleep_us = depth ? 120000 : 360000;
    for (int i = 0; i < 2; i++) { /* the second job runs with the means learned on the first */
        char id[32];
        snprintf(id, sizeof id, "depth-%u-%d", depth, i);
        cuzk_job *j;
        CHECK(tk_submit(e, "slow", id, seed + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        int r = cuzk_job_await(j, -1);
        cuzk_job_info inf;
        cuzk_job_get_info(j, &inf);
        CHECK_MSG(r == CUZK_OK, "%s: %s (%s)", id, cuzk_strerror(r), inf.message);
        CHECK(tk_proof_ok(k, j, seed + (uint64_t)i, 24));
        cuzk_job_release(j);
    }
    double sm = 0;
    long d = status_depth(e, &sm);
    int most = atomic_load(&max_in_synth);
    printf("queue_depth %u: status depth %ld, synthesis mean %.4f s, at most %d synthesizing at once\n", depth, d,
           sm, most);
    if (depth) {
        CHECK_MSG(d == (long)depth && most <= (int)depth, "configured %u: status %ld, %d at once", depth, d, most);
    } else {
        /* 1 prover worker: the floor is 2; synthesis 360 ms against proofs of a few ms */
        CHECK_MSG(d > 2 && most > 2 && sm >= 0.36, "learned depth %ld, %d at once, synthesis mean %.4f", d, most, sm);
        CHECK(most <= 8); /* never more than the synthesis workers */
    }
    const unsigned lo = atomic_load(&min_threads), hi = atomic_load(&max_threads), want = threads ? threads : 1;
    printf("synthesis_threads %u: each synthesis given %u to %u threads\n", threads, lo, hi);
    CHECK_MSG(lo == want && hi == want, "synthesis_threads %u: given %u to %u", threads, lo, hi);
    cuzk_engine_destroy(e);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_engine_depth");
    tkind k;
    tk_setup(&k, 64, 2, &rng);
    uint64_t seed = cuzk_rng_u64(&rng) >> 2;
    run(&k, 0, 0, seed);
    run(&k, 2, 3, seed + 100);
    tk_free(&k);
    CHECK(log_count("INVALID") == 0);
    return tu_finish("test_engine_depth");
}
