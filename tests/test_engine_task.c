/*
 * Task kinds (cuzk/engine/engine.h: no partitions, the finish the whole job), as the aggregate-seal kind
 * uses them: registration refuses a task with a circuit, parameters or no finish; a task's
 * answer is its finish's bytes (recomputed here from fresh inputs); prepare refuses bad inputs
 * at submit with its message; with one synthesis slot, tasks run in priority order (HIGH before
 * an older LOW) while a gate holds the slot; a queued task cancelled never runs; one cancelled
 * while its finish is about to run stays cancelled, its finish not called; a finish error fails
 * the job with its message and the same id then retries; the same id and inputs are the same
 * job; a circuit kind's jobs prove beside tasks (a prover worker's scan passes over them); a
 * task is counted in the job counters; no prover device is needed. A finish already running
 * learns of its job's cancellation and of its deadline (cuzk_job_stopped, polled between its
 * stages as the SnarkPack finishes do): it stops after its first stage of STAGE_MAX, the job
 * ends CANCELLED or TIMED_OUT, the log says where it stopped, and a task after it completes.
 */
#include "engine_test.h"
#include "cuzk/util/sha256.h"

static atomic_uint finish_calls;
static char finish_order[16][32];
static unsigned n_finish_order;
static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;

/* The task's answer: SHA-256 of its inputs, or an error when the first byte is 0xee. */
static int task_finish(void *ctx, cuzk_job *job, const void *in, size_t len, const void *prepared,
                       const uint8_t *proofs, size_t plen, uint8_t **out, size_t *out_len, char *err, size_t err_len)
{
    (void)ctx, (void)job, (void)proofs;
    atomic_fetch_add(&finish_calls, 1);
    pthread_mutex_lock(&order_mu);
    if (n_finish_order < 16)
        snprintf(finish_order[n_finish_order++], sizeof finish_order[0], "%s", (const char *)prepared);
    pthread_mutex_unlock(&order_mu);
    if (plen != 0) return cuzk_errf(err, err_len, CUZK_ERR_INTERNAL, "a task got %zu bytes of proofs", plen);
    if (((const uint8_t *)in)[0] == 0xee) return cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED, "finish refused it");
    *out = malloc(32);
    if (!*out) return CUZK_ERR_NO_MEMORY;
    *out_len = 32;
    return cuzk_sha256_hash(*out, in, len);
}

/* Inputs: a NUL-terminated tag (prepared is a copy of it, for the finish's order). */
static int task_prepare(void *ctx, const void *in, size_t len, void **prepared, char *err, size_t err_len)
{
    (void)ctx;
    if (!len || ((const char *)in)[len - 1] || len > 30)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "task inputs: a tag of 1-29 bytes, got %zu", len);
    *prepared = strdup(in);
    return *prepared ? CUZK_OK : CUZK_ERR_NO_MEMORY;
}

static void task_prepared_free(void *ctx, void *prepared) { (void)ctx, free(prepared); }

static void await_state(cuzk_job *j, int want_rc, cuzk_job_state want, const char *what)
{
    int rc = cuzk_job_await(j, -1);
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(rc == want_rc && inf.state == want, "%s: %s, state %s (%s)", what, cuzk_strerror(rc),
              cuzk_job_state_name(inf.state), inf.message);
}

/* A task of STAGE_MAX stages asking cuzk_job_stopped before each. After its first it waits for
 * its job to end (at most STAGE_WAIT_MS): only the engine's cancellation or deadline stops it
 * there; without them it runs every stage. */
#define STAGE_MAX 64
#define STAGE_WAIT_MS 20000
static atomic_uint stages_run;
static atomic_bool stage_first_done;

static int stage_finish(void *ctx, cuzk_job *job, const void *in, size_t len, const void *prepared,
                        const uint8_t *proofs, size_t plen, uint8_t **out, size_t *out_len, char *err, size_t err_len)
{
    (void)ctx, (void)in, (void)len, (void)prepared, (void)proofs, (void)plen;
    for (unsigned s = 0; s < STAGE_MAX; s++) {
        if (cuzk_job_stopped(job))
            return cuzk_errf(err, err_len, CUZK_ERR_CANCELLED, "stopped before stage %u of %u", s + 1, STAGE_MAX);
        atomic_fetch_add(&stages_run, 1);
        if (s > 0) continue;
        atomic_store(&stage_first_done, true);
        for (int i = 0; i < STAGE_WAIT_MS && !cuzk_job_stopped(job); i++) usleep(1000);
    }
    *out = malloc(1), *out_len = 1;
    return *out ? CUZK_OK : CUZK_ERR_NO_MEMORY;
}

/* A stage task submitted (timeout_ms 0: none) and stopped after its first stage: by a cancel,
 * or by its deadline; the job's end state, the stages run and the engine's log line. */
static void stage_stopped(cuzk_engine *e, const char *id, uint32_t timeout_ms)
{
    atomic_store(&stages_run, 0), atomic_store(&stage_first_done, false);
    log_clear();
    cuzk_job *j;
    cuzk_job_request rq = {.request_id = id, .kind = "stages", .inputs = "s", .inputs_len = 2,
                           .timeout_ms = timeout_ms};
    CHECK(cuzk_engine_submit(e, &rq, &j, NULL) == CUZK_OK);
    while (!atomic_load(&stage_first_done)) usleep(1000);
    if (!timeout_ms) CHECK(cuzk_job_cancel_why(j, "by the test") == CUZK_OK);
    await_state(j, timeout_ms ? CUZK_ERR_TIMEOUT : CUZK_ERR_CANCELLED,
                timeout_ms ? CUZK_JOB_TIMED_OUT : CUZK_JOB_CANCELLED, "a running stage task stopped");
    CHECK(cuzk_engine_wait_idle(e, 60000) == CUZK_OK);
    unsigned ran = atomic_load(&stages_run);
    CHECK_MSG(ran == 1, "%s: %u of %u stages ran; the finish should stop after the first", id, ran, STAGE_MAX);
    CHECK_MSG(log_count("its stages finish stopped: stopped before stage 2 of 64") == 1, "%s: log: %s", id, log_buf);
    printf("%s: %s after %u of %u stages\n", id, timeout_ms ? "timed out" : "cancelled", ran, STAGE_MAX);
    cuzk_job_release(j);
}

static cuzk_engine_kind task_kind(void)
{
    cuzk_engine_kind k = {.name = "task", .circuit_id = "task", .default_priority = CUZK_PRIORITY_NORMAL,
                          .prepare = task_prepare, .prepared_free = task_prepared_free, .finish = task_finish};
    return k;
}

static int task_submit(cuzk_engine *e, const char *id, const char *tag, cuzk_priority prio, cuzk_job **out,
                       bool *dup, char *why, size_t why_len)
{
    cuzk_job_request rq = {.request_id = id, .kind = "task", .inputs = tag, .inputs_len = strlen(tag) + 1,
                           .priority = prio, .error = why, .error_len = why_len};
    return cuzk_engine_submit(e, &rq, out, dup);
}

/* The job's answer is SHA-256 of tag's bytes (NUL included). */
static bool task_answer_ok(cuzk_job *j, const char *tag)
{
    const uint8_t *p;
    size_t len;
    uint8_t want[32];
    cuzk_sha256_hash(want, tag, strlen(tag) + 1);
    return cuzk_job_proof(j, &p, &len) == CUZK_OK && len == 32 && !memcmp(p, want, 32);
}

static void registration(tkind *k)
{
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, NULL) == CUZK_OK);
    cuzk_engine_kind t = task_kind();
    t.params = &k->params;
    CHECK(cuzk_engine_register_kind(e, &t) == CUZK_ERR_INVALID_ARG); /* a task with parameters */
    t = task_kind(), t.synthesize = tk_synth;
    CHECK(cuzk_engine_register_kind(e, &t) == CUZK_ERR_INVALID_ARG); /* with a circuit */
    t = task_kind(), t.finish = NULL;
    CHECK(cuzk_engine_register_kind(e, &t) == CUZK_ERR_INVALID_ARG); /* nothing to run */
    t = task_kind();
    CHECK(cuzk_engine_register_kind(e, &t) == CUZK_OK);
    uint32_t parts = 9;
    CHECK(cuzk_engine_kind_info(e, "task", &parts, NULL) == CUZK_OK && parts == 0);
    cuzk_engine_destroy(e);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_engine_task");
    tkind k;
    tk_setup(&k, 64, 2, &rng);
    registration(&k);

    /* one synthesis slot, the CPU prover: a circuit kind beside the task kind */
    cuzk_engine_config cfg = {.synthesis_workers = 1, .num_devices = 1, .workers_per_device = 1,
                              .stage_hook = gate_hook, .hook_ctx = &G, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind t = task_kind(), c = tk_kind(&k, "circ", "circ-c", 3, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &t) == CUZK_OK && cuzk_engine_register_kind(e, &c) == CUZK_OK);
    char tag[5][24], why[256];
    for (int i = 0; i < 5; i++)
        snprintf(tag[i], sizeof tag[i], "t%d-%08llx", i, (unsigned long long)(cuzk_rng_u64(&rng) >> 32));
    cuzk_job *j, *lo, *hi, *q;
    bool dup = true;

    CHECK(task_submit(e, "plain", tag[0], CUZK_PRIORITY_DEFAULT, &j, &dup, why, sizeof why) == CUZK_OK && !dup);
    await_state(j, CUZK_OK, CUZK_JOB_DONE, "a task");
    CHECK(task_answer_ok(j, tag[0]));
    cuzk_job *again;
    CHECK(task_submit(e, "plain", tag[0], CUZK_PRIORITY_DEFAULT, &again, &dup, why, sizeof why) == CUZK_OK);
    CHECK(dup && again == j);
    cuzk_job_release(again), cuzk_job_release(j);
    why[0] = 0;
    cuzk_job_request bad = {.request_id = "bad", .kind = "task", .inputs = "no-nul", .inputs_len = 6,
                            .error = why, .error_len = sizeof why};
    CHECK(cuzk_engine_submit(e, &bad, &j, NULL) == CUZK_ERR_INVALID_ARG && strstr(why, "a tag of 1-29 bytes"));

    /* a gate holds a task's finish (the one slot): LOW then HIGH queue behind it, one more is cancelled */
    gate_arm(&G, CUZK_STAGE_TASK, "hold");
    CHECK(task_submit(e, "hold", tag[1], CUZK_PRIORITY_DEFAULT, &j, NULL, why, sizeof why) == CUZK_OK);
    gate_wait(&G);
    uint64_t seed = cuzk_rng_u64(&rng) >> 2;
    cuzk_job *cj;
    CHECK(tk_submit(e, "circ", "circ-1", seed, CUZK_PRIORITY_DEFAULT, 0, &cj) == CUZK_OK);
    CHECK(task_submit(e, "low", tag[2], CUZK_PRIORITY_LOW, &lo, NULL, why, sizeof why) == CUZK_OK);
    CHECK(task_submit(e, "high", tag[3], CUZK_PRIORITY_HIGH, &hi, NULL, why, sizeof why) == CUZK_OK);
    CHECK(task_submit(e, "gone", tag[4], CUZK_PRIORITY_CRITICAL, &q, NULL, why, sizeof why) == CUZK_OK);
    unsigned calls = atomic_load(&finish_calls);
    CHECK(cuzk_job_cancel(q) == CUZK_OK);
    await_state(q, CUZK_ERR_CANCELLED, CUZK_JOB_CANCELLED, "a queued task cancelled");
    gate_release(&G);
    await_state(j, CUZK_OK, CUZK_JOB_DONE, "the held task");
    await_state(hi, CUZK_OK, CUZK_JOB_DONE, "HIGH");
    await_state(lo, CUZK_OK, CUZK_JOB_DONE, "LOW");
    await_state(cj, CUZK_OK, CUZK_JOB_DONE, "a circuit job beside the tasks");
    CHECK(tk_proof_ok(&k, cj, seed, 3));
    CHECK(task_answer_ok(hi, tag[3]) && task_answer_ok(lo, tag[2]) && task_answer_ok(j, tag[1]));
    pthread_mutex_lock(&order_mu);
    int pos_hi = -1, pos_lo = -1, pos_q = -1;
    for (unsigned i = 0; i < n_finish_order; i++) {
        if (!strcmp(finish_order[i], tag[3])) pos_hi = (int)i;
        if (!strcmp(finish_order[i], tag[2])) pos_lo = (int)i;
        if (!strcmp(finish_order[i], tag[4])) pos_q = (int)i;
    }
    pthread_mutex_unlock(&order_mu);
    CHECK_MSG(pos_hi >= 0 && pos_lo > pos_hi && pos_q < 0, "finish order: HIGH %d, LOW %d, cancelled %d", pos_hi,
              pos_lo, pos_q);
    CHECK(atomic_load(&finish_calls) == calls + 3);
    cuzk_job_release(j), cuzk_job_release(lo), cuzk_job_release(hi), cuzk_job_release(q), cuzk_job_release(cj);

    /* cancelled at the finish's stage: it stays cancelled and the finish does not run */
    gate_arm(&G, CUZK_STAGE_TASK, "late");
    CHECK(task_submit(e, "late", tag[0], CUZK_PRIORITY_DEFAULT, &j, NULL, why, sizeof why) == CUZK_OK);
    gate_wait(&G);
    calls = atomic_load(&finish_calls);
    CHECK(cuzk_job_cancel(j) == CUZK_OK);
    gate_release(&G);
    await_state(j, CUZK_ERR_CANCELLED, CUZK_JOB_CANCELLED, "a task cancelled as it starts");
    CHECK(cuzk_engine_wait_idle(e, 30000) == CUZK_OK && atomic_load(&finish_calls) == calls);
    cuzk_job_release(j);

    /* a finish error fails the job with its message; the id then retries */
    char fail_tag[] = "\xee-fail";
    CHECK(task_submit(e, "retry", fail_tag, CUZK_PRIORITY_DEFAULT, &j, NULL, why, sizeof why) == CUZK_OK);
    await_state(j, CUZK_ERR_VERIFY_FAILED, CUZK_JOB_FAILED, "a finish error");
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(strstr(inf.message, "finish refused it") && inf.num_partitions == 0, "%s", inf.message);
    cuzk_job_release(j);
    CHECK(task_submit(e, "retry", tag[2], CUZK_PRIORITY_DEFAULT, &j, &dup, why, sizeof why) == CUZK_OK && !dup);
    await_state(j, CUZK_OK, CUZK_JOB_DONE, "the failed id retried");
    CHECK(task_answer_ok(j, tag[2]));
    cuzk_job_release(j);

    /* a finish already running stops at its next stage once cancelled, or past its deadline */
    cuzk_engine_kind st = {.name = "stages", .circuit_id = "stages", .default_priority = CUZK_PRIORITY_NORMAL,
                           .finish = stage_finish};
    CHECK(cuzk_engine_register_kind(e, &st) == CUZK_OK);
    stage_stopped(e, "stage-cancel", 0);
    stage_stopped(e, "stage-deadline", 50);
    CHECK(task_submit(e, "after-stages", tag[1], CUZK_PRIORITY_DEFAULT, &j, NULL, why, sizeof why) == CUZK_OK);
    await_state(j, CUZK_OK, CUZK_JOB_DONE, "a task after the stopped ones");
    CHECK(task_answer_ok(j, tag[1]));
    cuzk_job_release(j);

    cuzk_engine_counters ct;
    cuzk_engine_get_counters(e, &ct);
    CHECK_MSG(ct.jobs_done == 7 && ct.jobs_failed == 1 && ct.jobs_cancelled == 3 && ct.jobs_timed_out == 1 &&
              ct.jobs_duplicate == 1, "done %llu failed %llu cancelled %llu timed out %llu duplicate %llu",
              (unsigned long long)ct.jobs_done, (unsigned long long)ct.jobs_failed,
              (unsigned long long)ct.jobs_cancelled, (unsigned long long)ct.jobs_timed_out,
              (unsigned long long)ct.jobs_duplicate);
    cuzk_engine_destroy(e);
    tk_free(&k);
    return tu_finish("test_engine_task");
}
