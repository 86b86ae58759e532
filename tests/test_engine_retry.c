/*
 * Engine: retries under a reused request id (curio reuses porep-M-N /
 * snap-M-N when it retries a sector). A job that failed, was cancelled or
 * timed out leaves its id to a new attempt, which is proved and checked by
 * the test; a job in flight, or a completed one with the same inputs, is
 * still returned as the same job, and other inputs for them are refused.
 */
#include "engine_test.h"

#define NC 128
#define NI 3
#define PARTS 3

static void expect_done(tkind *k, cuzk_job *j, uint64_t seed, const char *what)
{
    int r = cuzk_job_await(j, -1);
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(r == CUZK_OK && inf.state == CUZK_JOB_DONE, "%s: %s (%s)", what, cuzk_strerror(r), inf.message);
    CHECK_MSG(tk_proof_ok(k, j, seed, PARTS), "%s: proof rejected by the test's own verification", what);
}

static void retries(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 1,
                              .prover_threads = 1, .log = log_capture, .stage_hook = gate_hook, .hook_ctx = &G};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", PARTS, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    uint64_t good = cuzk_rng_u64(rng) >> 2, other = good ^ 1;
    bool dup = true;

    /* 1. FAILED (partition 1 fails synthesis), then a retry under the same id */
    const char *id = "porep-1000-7";
    cuzk_job *a = NULL, *b = NULL, *x = NULL;
    CHECK(tk_submit(e, "porep", id, good | TK_FAIL_SYNTH, CUZK_PRIORITY_DEFAULT, 0, &a) == CUZK_OK);
    CHECK(cuzk_job_await(a, -1) != CUZK_OK);
    cuzk_job_info inf;
    cuzk_job_get_info(a, &inf);
    CHECK_MSG(inf.state == CUZK_JOB_FAILED, "first attempt: %s", cuzk_job_state_name(inf.state));
    cuzk_job_request rq = {.request_id = id, .kind = "porep", .inputs = &good, .inputs_len = 8};
    CHECK(cuzk_engine_submit(e, &rq, &b, &dup) == CUZK_OK);
    CHECK_MSG(b && b != a && !dup, "a failed id starts a new job (dup %d)", dup);
    expect_done(k, b, good, "retry of a failed id");
    /* the id now names the new job, and the completed job is idempotent again */
    x = cuzk_engine_find(e, id);
    CHECK(x == b);
    cuzk_job_release(x);
    CHECK(cuzk_engine_submit(e, &rq, &x, &dup) == CUZK_OK && x == b && dup);
    cuzk_job_release(x);
    rq.inputs = &other;
    x = NULL;
    CHECK(cuzk_engine_submit(e, &rq, &x, &dup) == CUZK_ERR_INVALID_ARG && !x);
    CHECK(log_count("job porep-1000-7: new attempt (the previous one failed)") == 1);
    cuzk_job_release(a);
    cuzk_job_release(b);

    /* 2. CANCELLED while held in synthesis; the same id again (other inputs allowed) */
    id = "snap-1000-9";
    gate_arm(&G, CUZK_STAGE_SYNTHESIS, id);
    CHECK(tk_submit(e, "porep", id, good, CUZK_PRIORITY_DEFAULT, 0, &a) == CUZK_OK);
    gate_wait(&G);
    /* in flight: the same inputs are the same job, other inputs are refused */
    rq = (cuzk_job_request){.request_id = id, .kind = "porep", .inputs = &good, .inputs_len = 8};
    CHECK(cuzk_engine_submit(e, &rq, &x, &dup) == CUZK_OK && x == a && dup);
    cuzk_job_release(x);
    rq.inputs = &other;
    x = NULL;
    CHECK(cuzk_engine_submit(e, &rq, &x, &dup) == CUZK_ERR_INVALID_ARG && !x);
    CHECK(cuzk_job_cancel(a) == CUZK_OK);
    gate_release(&G);
    CHECK(cuzk_job_await(a, -1) == CUZK_ERR_CANCELLED);
    CHECK(cuzk_engine_submit(e, &rq, &b, &dup) == CUZK_OK && b != a && !dup);
    expect_done(k, b, other, "resubmit of a cancelled id");
    cuzk_job_release(a);
    cuzk_job_release(b);

    /* 3. TIMED_OUT (a 1 ms deadline, passed in the queue or while synthesis is
     * held at the gate: not waiting for the gate, which a job that times out
     * before synthesis never reaches), then the same id again */
    id = "wdpost-1000-0-[1 2 3 4 5 6 7 8]";
    gate_arm(&G, CUZK_STAGE_SYNTHESIS, id);
    CHECK(tk_submit(e, "porep", id, good, CUZK_PRIORITY_DEFAULT, 1, &a) == CUZK_OK);
    cuzk_job_get_info(a, &inf);
    for (int n = 0; n < 30000 && inf.state != CUZK_JOB_TIMED_OUT; n++) {
        usleep(1000);
        cuzk_job_get_info(a, &inf);
    }
    gate_release(&G);
    CHECK(cuzk_job_await(a, -1) == CUZK_ERR_TIMEOUT);
    CHECK(tk_submit(e, "porep", id, good, CUZK_PRIORITY_DEFAULT, 0, &b) == CUZK_OK && b != a);
    expect_done(k, b, good, "resubmit of a timed-out id");
    cuzk_job_release(a);
    cuzk_job_release(b);

    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK_MSG(c.jobs_submitted == 6 && c.jobs_done == 3 && c.jobs_failed == 1 && c.jobs_cancelled == 1 &&
                  c.jobs_timed_out == 1,
              "submitted %llu done %llu failed %llu cancelled %llu timed out %llu",
              (unsigned long long)c.jobs_submitted, (unsigned long long)c.jobs_done,
              (unsigned long long)c.jobs_failed, (unsigned long long)c.jobs_cancelled,
              (unsigned long long)c.jobs_timed_out);
    cuzk_engine_destroy(e);
}

/* The retention ring still holds the replaced jobs: they are freed with the
 * engine (ASan runs check nothing leaks), and a ring rotating past them
 * never drops the id's current job. */
static void retention(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_config cfg = {.synthesis_workers = 1, .num_devices = 1, .workers_per_device = 1,
                              .prover_threads = 1, .log = log_capture, .job_retention = 4};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", PARTS, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    uint64_t seed = cuzk_rng_u64(rng) >> 2;
    cuzk_job *j = NULL;
    for (int i = 0; i < 3; i++) { /* two failures, then a success, all under one id */
        CHECK(tk_submit(e, "porep", "ring", i < 2 ? seed | TK_FAIL_SYNTH : seed, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        cuzk_job_await(j, -1);
        if (i < 2) cuzk_job_release(j);
    }
    expect_done(k, j, seed, "third attempt");
    /* other ids push the failed attempts out of the ring (4 jobs: r1 r2 r3
     * then r3 o0 o1 o2): dropping them leaves the id to the third attempt */
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "other-%d", i);
        cuzk_job *o = NULL;
        CHECK(tk_submit(e, "porep", id, seed + 1 + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &o) == CUZK_OK);
        cuzk_job_await(o, -1);
        cuzk_job_release(o);
    }
    cuzk_job *f = cuzk_engine_find(e, "ring");
    CHECK(f == j);
    cuzk_job_release(f);
    cuzk_job_release(j);
    cuzk_engine_destroy(e);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_engine_retry");
    tkind k;
    tk_setup(&k, NC, NI, &rng);
    retries(&k, &rng);
    retention(&k, &rng);
    tk_free(&k);
    return tu_finish("test_engine_retry");
}
