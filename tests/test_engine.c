/*
 * Engine: the field scenario on the CPU prover (10-partition jobs, 6
 * synthesis workers, 2 CPU "devices" x 2 prover workers, jobs back to back,
 * every partition checked by the test itself), duplicate request ids,
 * priorities, the synthesis threads' nice value, file-backed SRS residency,
 * batching, the built-in kinds and the status snapshot.
 */
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "engine_test.h"

#define NC 128 /* constraints per partition: small, CI runs on 2 cores */
#define NI 3

static void check_reserved_drains(cuzk_engine *e, const char *const *circuits, size_t n)
{
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    for (size_t i = 0; i < n; i++) CHECK(cuzk_engine_srs_evict(e, circuits[i]) == CUZK_OK);
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK_MSG(c.memory_reserved == 0, "%llu bytes still reserved", (unsigned long long)c.memory_reserved);
    CHECK(c.memory_peak <= c.memory_budget);
}

/* prepare of the field scenario's kind: counts the parses (a duplicate id is
 * answered before its inputs are parsed) and prepares nothing. */
static atomic_uint field_prepares;
static int count_prepare(void *ctx, const void *inputs, size_t len, void **prepared, char *err, size_t err_len)
{
    atomic_fetch_add(&field_prepares, 1);
    *prepared = NULL;
    return CUZK_OK;
}
static void no_free(void *ctx, void *prepared) {}

static void field_scenario(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_config cfg = {.synthesis_workers = 6, .num_devices = 2, .workers_per_device = 2,
                              .prover_threads = 1, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 10, CUZK_PRIORITY_NORMAL);
    kd.prepare = count_prepare, kd.prepared_free = no_free;
    atomic_store(&field_prepares, 0);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_ERR_INVALID_ARG); /* duplicate name */

    enum { NJOBS = 16 };
    cuzk_job *jobs[NJOBS];
    uint64_t seeds[NJOBS];
    char id[32];
    for (int i = 0; i < NJOBS; i++) {
        seeds[i] = cuzk_rng_u64(rng) >> 1;
        snprintf(id, sizeof id, "field-%d", i);
        CHECK(tk_submit(e, "porep", id, seeds[i], CUZK_PRIORITY_DEFAULT, 0, &jobs[i]) == CUZK_OK);
    }
    /* duplicates: the same job back, never a second one; other inputs refused */
    for (int i = 0; i < NJOBS; i += 5) {
        snprintf(id, sizeof id, "field-%d", i);
        cuzk_job *dup = NULL;
        bool was_dup = false;
        cuzk_job_request rq = {.request_id = id, .kind = "porep", .inputs = &seeds[i], .inputs_len = 8,
                               .priority = CUZK_PRIORITY_DEFAULT};
        CHECK(cuzk_engine_submit(e, &rq, &dup, &was_dup) == CUZK_OK);
        CHECK(dup == jobs[i] && was_dup);
        cuzk_job_release(dup);
        uint64_t other = seeds[i] ^ 1;
        rq.inputs = &other;
        CHECK(cuzk_engine_submit(e, &rq, &dup, &was_dup) == CUZK_ERR_INVALID_ARG && dup == NULL);
    }
    /* neither the duplicates nor the refused ones were parsed */
    CHECK_MSG(atomic_load(&field_prepares) == NJOBS, "%u parses for %d jobs", atomic_load(&field_prepares), NJOBS);
    unsigned ok = 0;
    for (int i = 0; i < NJOBS; i++) {
        int r = cuzk_job_await(jobs[i], -1);
        cuzk_job_info inf;
        cuzk_job_get_info(jobs[i], &inf);
        CHECK_MSG(r == CUZK_OK && inf.state == CUZK_JOB_DONE, "job %d: %s (%s)", i, cuzk_strerror(r), inf.message);
        CHECK(inf.partitions_done == 10 && inf.num_partitions == 10);
        bool good = tk_proof_ok(k, jobs[i], seeds[i], 10);
        CHECK_MSG(good, "job %d proof rejected by the test's own verification", i);
        ok += good;
        /* and the check can fail: another job's inputs */
        if (i == 0) CHECK(!tk_proof_ok(k, jobs[i], seeds[1], 10));
    }
    fprintf(stderr, "field scenario: %u/%d jobs, %u/%d partitions valid\n", ok, NJOBS, ok * 10, NJOBS * 10);
    /* a finished job is still found by id, and a resubmit returns it (no new work) */
    cuzk_job *again = NULL;
    snprintf(id, sizeof id, "field-%d", 3);
    CHECK(tk_submit(e, "porep", id, seeds[3], CUZK_PRIORITY_DEFAULT, 0, &again) == CUZK_OK && again == jobs[3]);
    cuzk_job_release(again);
    cuzk_job *found = cuzk_engine_find(e, id);
    CHECK(found == jobs[3]);
    cuzk_job_release(found);
    CHECK(cuzk_engine_find(e, "no-such-id") == NULL);
    CHECK(cuzk_job_cancel(jobs[0]) == CUZK_ERR_INVALID_ARG); /* finished */

    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.jobs_done == NJOBS && c.jobs_submitted == NJOBS);
    CHECK(c.partitions_verified == NJOBS * 10 && c.partitions_proved == NJOBS * 10);
    CHECK(c.partitions_synthesized == NJOBS * 10);
    CHECK(c.partitions_invalid == 0 && c.partitions_reproved == 0);
    CHECK(c.jobs_duplicate == 5);
    CHECK(c.srs_loads == 1);
    /* bad submissions */
    cuzk_job *bad = NULL;
    CHECK(tk_submit(e, "nope", "x", 1, CUZK_PRIORITY_DEFAULT, 0, &bad) == CUZK_ERR_INVALID_ARG);
    cuzk_job_request rq = {.request_id = "short", .kind = "porep", .inputs = "abc", .inputs_len = 3};
    CHECK(cuzk_engine_submit(e, &rq, &bad, NULL) == CUZK_ERR_BAD_LENGTH && !bad);
    rq.request_id = "";
    CHECK(cuzk_engine_submit(e, &rq, &bad, NULL) == CUZK_ERR_INVALID_ARG);

    /* status snapshot: the sections are there and the brackets balance */
    char *js = cuzk_engine_status_json(e);
    CHECK(js != NULL);
    if (js) {
        const char *keys[] = {"\"config\"", "\"memory\"", "\"queues\"", "\"counters\"", "\"workers\"",
                              "\"devices\"", "\"circuits\"", "\"jobs\"", "\"porep-c\"", "\"hot\""};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) CHECK_MSG(strstr(js, keys[i]), "%s", keys[i]);
        int depth = 0, bad_depth = 0;
        bool in_str = false;
        for (const char *p = js; *p; p++) {
            if (in_str) {
                if (*p == '\\') p++;
                else if (*p == '"') in_str = false;
            } else if (*p == '"') in_str = true;
            else if (*p == '{' || *p == '[') depth++;
            else if (*p == '}' || *p == ']') bad_depth |= --depth < 0;
        }
        CHECK(depth == 0 && !bad_depth && !in_str);
        free(js);
    }
    for (int i = 0; i < NJOBS; i++) cuzk_job_release(jobs[i]);
    const char *circ[] = {"porep-c"};
    check_reserved_drains(e, circ, 1);
    cuzk_engine_destroy(e);
}

/* synthesis_nice: the CPU workers' threads (and so every synthesis) run
 * that much nicer than the engine's caller, who is left as it was; the
 * proofs still verify; more than 19 is refused */
static _Atomic int nice_seen = -100;
static int nice_synth(void *ctx, cuzk_cs *cs, const void *in, size_t len, const void *prepared, uint32_t part)
{
    errno = 0;
    const int n = getpriority(PRIO_PROCESS, 0);
    nice_seen = errno ? -99 : n;
    return tk_synth(ctx, cs, in, len, prepared, part);
}

static void synthesis_nice(tkind *k, cuzk_rng *rng)
{
    errno = 0;
    const int base = getpriority(PRIO_PROCESS, 0);
    CHECK(errno == 0);
    cuzk_engine *e = NULL;
    cuzk_engine_config bad = {.synthesis_nice = 20};
    CHECK(cuzk_engine_create(&e, &bad) == CUZK_ERR_INVALID_ARG && !e);
    for (unsigned add = 0; add <= 3; add += 3) {
        cuzk_engine_config cfg = {.synthesis_workers = 1, .synthesis_nice = add, .num_devices = 1,
                                  .workers_per_device = 1, .prover_threads = 1, .log = log_capture};
        CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
        cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 2, CUZK_PRIORITY_NORMAL);
        kd.synthesize = nice_synth;
        CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
        uint64_t seed = cuzk_rng_u64(rng) >> 1;
        nice_seen = -100;
        cuzk_job_request rq = {.request_id = "nice", .kind = "porep", .inputs = &seed, .inputs_len = 8};
        cuzk_job *j;
        CHECK(cuzk_engine_submit(e, &rq, &j, NULL) == CUZK_OK);
        CHECK(cuzk_job_await(j, -1) == CUZK_OK);
        const uint8_t *pr;
        size_t len;
        CHECK(cuzk_job_proof(j, &pr, &len) == CUZK_OK && tk_bytes_ok(k, pr, len, seed, 2));
        const int want = base + (int)add > 19 ? 19 : base + (int)add;
        CHECK_MSG(nice_seen == want, "synthesis_nice %u: synthesis ran at nice %d, want %d", add, (int)nice_seen,
                  want);
        CHECK(getpriority(PRIO_PROCESS, 0) == base); /* the caller's own */
        cuzk_job_release(j);
        cuzk_engine_destroy(e);
    }
}

/* A cluster's share of a request: jobs of one partition each, in a random
 * order, whose 192-byte proofs assemble (in partition order) into a proof of
 * the whole request that the test verifies itself; a partition's proof does
 * not pass for another's; the same id with another partition is refused, a
 * partition out of range is refused with a message; kind_info and
 * check_request answer as submit would. */
static void one_partition(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 2,
                              .prover_threads = 1, .log = log_capture, .stage_hook = gate_hook, .hook_ctx = &G};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    enum { NP = 6 };
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", NP, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    uint32_t np = 0;
    cuzk_priority prio = CUZK_PRIORITY_DEFAULT;
    CHECK(cuzk_engine_kind_info(e, "porep", &np, &prio) == CUZK_OK && np == NP && prio == CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_kind_info(e, "nope", &np, NULL) == CUZK_ERR_INVALID_ARG);
    uint64_t seed = cuzk_rng_u64(rng) >> 1;
    uint32_t order[NP];
    for (uint32_t i = 0; i < NP; i++) order[i] = i;
    for (uint32_t i = NP - 1; i > 0; i--) { /* Fisher-Yates */
        uint32_t j = (uint32_t)(cuzk_rng_u64(rng) % (i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    cuzk_job *jobs[NP];
    char id[48], why[160];
    for (uint32_t i = 0; i < NP; i++) {
        snprintf(id, sizeof id, "share/%u", order[i]);
        cuzk_job_request rq = {.request_id = id, .kind = "porep", .inputs = &seed, .inputs_len = 8,
                               .one_partition = true, .partition = order[i]};
        CHECK(cuzk_engine_check_request(e, &rq) == CUZK_OK);
        CHECK(cuzk_engine_submit(e, &rq, &jobs[order[i]], NULL) == CUZK_OK);
    }
    uint8_t whole[NP * CUZK_GROTH16_PROOF_BYTES];
    for (uint32_t p = 0; p < NP; p++) {
        cuzk_job_info inf;
        CHECK(cuzk_job_await(jobs[p], -1) == CUZK_OK);
        cuzk_job_get_info(jobs[p], &inf);
        CHECK(inf.num_partitions == 1 && inf.partitions_done == 1);
        const uint8_t *pr;
        size_t len;
        CHECK(cuzk_job_proof(jobs[p], &pr, &len) == CUZK_OK && len == CUZK_GROTH16_PROOF_BYTES);
        memcpy(whole + p * CUZK_GROTH16_PROOF_BYTES, pr, CUZK_GROTH16_PROOF_BYTES);
    }
    /* the assembled proof, verified by the test as a whole job's */
    cuzk_groth16_proof proofs[NP];
    cuzk_fr pub[NP * 8];
    CHECK(k->ni <= 8);
    CHECK(cuzk_groth16_proofs_decode(proofs, NP, whole, sizeof whole, NULL) == CUZK_OK);
    for (uint32_t p = 0; p < NP; p++) {
        cuzk_synthetic_spec sp = tk_spec(k, &seed, p);
        CHECK(cuzk_synthetic_public_inputs(pub + p * k->ni, &sp) == CUZK_OK);
    }
    CHECK_MSG(cuzk_groth16_verify_batch(&k->pvk, proofs, NP, pub, k->ni) == CUZK_OK,
              "partition proofs assembled in order do not verify");
    /* and the check can fail: partition 0's proof against partition 1's inputs */
    CHECK(cuzk_groth16_verify(&k->pvk, &proofs[0], pub + k->ni, k->ni) != CUZK_OK);
    /* while it runs, the same id names the same partition */
    cuzk_job *held = NULL, *dup = NULL;
    bool was_dup = false;
    cuzk_job_request hq = {.request_id = "share/held", .kind = "porep", .inputs = &seed, .inputs_len = 8,
                           .one_partition = true, .partition = 4};
    gate_arm(&G, CUZK_STAGE_PROVE, "share/held");
    CHECK(cuzk_engine_submit(e, &hq, &held, NULL) == CUZK_OK);
    gate_wait(&G);
    CHECK(cuzk_engine_submit(e, &hq, &dup, &was_dup) == CUZK_OK && dup == held && was_dup);
    cuzk_job_release(dup);
    hq.partition = 5;
    CHECK(cuzk_engine_submit(e, &hq, &dup, &was_dup) == CUZK_ERR_INVALID_ARG && !dup);
    gate_release(&G);
    CHECK(cuzk_job_await(held, -1) == CUZK_OK);
    cuzk_job_release(held);
    cuzk_job_request rq = {.request_id = "share/2", .kind = "porep", .inputs = &seed, .inputs_len = 8,
                           .one_partition = true, .partition = 2};
    /* finished, it keeps no inputs: the same id is refused, and the job still answers */
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    CHECK(cuzk_engine_submit(e, &rq, &dup, &was_dup) == CUZK_ERR_INVALID_ARG && !dup);
    dup = cuzk_engine_find(e, "share/2");
    const uint8_t *again;
    size_t again_len;
    CHECK(dup == jobs[2] && cuzk_job_proof(dup, &again, &again_len) == CUZK_OK &&
          !memcmp(again, whole + 2 * CUZK_GROTH16_PROOF_BYTES, CUZK_GROTH16_PROOF_BYTES));
    cuzk_job_release(dup);
    rq.partition = 3;
    CHECK(cuzk_engine_submit(e, &rq, &dup, &was_dup) == CUZK_ERR_INVALID_ARG && !dup);
    rq.request_id = "share/out", rq.partition = NP, rq.error = why, rq.error_len = sizeof why;
    why[0] = 0;
    CHECK(cuzk_engine_check_request(e, &rq) == CUZK_ERR_INVALID_ARG);
    CHECK_MSG(strstr(why, "partition 6 of 6"), "%s", why);
    CHECK(cuzk_engine_submit(e, &rq, &dup, NULL) == CUZK_ERR_INVALID_ARG && !dup);
    rq.partition = 0, rq.inputs_len = 3;
    CHECK(cuzk_engine_check_request(e, &rq) == CUZK_ERR_BAD_LENGTH);
    CHECK(cuzk_engine_find(e, "share/out") == NULL); /* checks queue nothing */
    for (uint32_t p = 0; p < NP; p++) cuzk_job_release(jobs[p]);
    cuzk_engine_destroy(e);
}

/* A kind's finish: called once per whole job with its verified partition
 * proofs in order, its bytes become the job's proof (here the proofs
 * reversed, a tag ahead), an error fails the job with its message, a job
 * cancelled while it runs stays cancelled; one_partition jobs skip it. */
static struct {
    atomic_int calls, fail;
    atomic_bool hold, holding;
    uint8_t seen[8 * CUZK_GROTH16_PROOF_BYTES];
    size_t seen_len;
} F;

static int tag_finish(void *ctx, cuzk_job *job, const void *in, size_t in_len, const void *prepared,
                      const uint8_t *proofs, size_t len, uint8_t **out, size_t *out_len, char *err, size_t err_len)
{
    (void)ctx, (void)job, (void)in, (void)in_len, (void)prepared;
    atomic_fetch_add(&F.calls, 1);
    atomic_store(&F.holding, true);
    while (atomic_load(&F.hold)) usleep(1000);
    atomic_store(&F.holding, false);
    if (atomic_load(&F.fail)) return cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED, "finish says no (%zu bytes)", len);
    if (len <= sizeof F.seen) memcpy(F.seen, proofs, len), F.seen_len = len;
    *out_len = len + 4;
    if (!(*out = malloc(*out_len))) return CUZK_ERR_NO_MEMORY;
    memcpy(*out, "AGG:", 4);
    for (size_t i = 0; i < len; i++) (*out)[4 + i] = proofs[len - 1 - i];
    return CUZK_OK;
}

static void finish_hook(tkind *k, cuzk_rng *rng)
{
    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 1,
                              .prover_threads = 1, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    enum { NP = 5 };
    cuzk_engine_kind kd = tk_kind(k, "ni", "ni-c", NP, CUZK_PRIORITY_NORMAL);
    kd.finish = tag_finish;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    uint64_t seed = cuzk_rng_u64(rng) >> 1;
    cuzk_job *j = NULL;
    cuzk_job_request rq = {.request_id = "fin/1", .kind = "ni", .inputs = &seed, .inputs_len = 8};
    CHECK(cuzk_engine_submit(e, &rq, &j, NULL) == CUZK_OK && cuzk_job_await(j, -1) == CUZK_OK);
    const uint8_t *pr = NULL;
    size_t len = 0;
    CHECK(cuzk_job_proof(j, &pr, &len) == CUZK_OK && len == 4 + NP * CUZK_GROTH16_PROOF_BYTES &&
          F.seen_len == NP * CUZK_GROTH16_PROOF_BYTES && atomic_load(&F.calls) == 1);
    /* what finish got: the partitions' proofs in order, each valid for its inputs */
    cuzk_groth16_proof proofs[NP];
    cuzk_fr pub[NP * 8];
    CHECK(k->ni <= 8 && cuzk_groth16_proofs_decode(proofs, NP, F.seen, F.seen_len, NULL) == CUZK_OK);
    for (uint32_t p = 0; p < NP; p++) {
        cuzk_synthetic_spec sp = tk_spec(k, &seed, p);
        CHECK(cuzk_synthetic_public_inputs(pub + p * k->ni, &sp) == CUZK_OK);
    }
    CHECK_MSG(cuzk_groth16_verify_batch(&k->pvk, proofs, NP, pub, k->ni) == CUZK_OK, "finish got no valid proofs");
    bool same = len > 4 && !memcmp(pr, "AGG:", 4);
    for (size_t i = 0; same && i < F.seen_len; i++) same = pr[4 + i] == F.seen[F.seen_len - 1 - i];
    CHECK_MSG(same, "the job's proof is not what finish made");
    cuzk_job_release(j);
    /* an error fails the job with finish's message */
    atomic_store(&F.fail, 1);
    rq.request_id = "fin/2";
    CHECK(cuzk_engine_submit(e, &rq, &j, NULL) == CUZK_OK && cuzk_job_await(j, -1) == CUZK_ERR_VERIFY_FAILED);
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(strstr(inf.message, "finish says no") && cuzk_job_proof(j, &pr, &len) != CUZK_OK, "%s", inf.message);
    cuzk_job_release(j);
    atomic_store(&F.fail, 0);
    /* cancelled while finish runs: stays cancelled, finish's bytes dropped */
    atomic_store(&F.hold, true);
    rq.request_id = "fin/3";
    CHECK(cuzk_engine_submit(e, &rq, &j, NULL) == CUZK_OK);
    while (!atomic_load(&F.holding) && cuzk_job_await(j, 1) == CUZK_ERR_NOT_READY) continue;
    CHECK(atomic_load(&F.holding) && cuzk_job_cancel(j) == CUZK_OK);
    atomic_store(&F.hold, false);
    CHECK(cuzk_job_await(j, -1) == CUZK_ERR_CANCELLED && cuzk_job_proof(j, &pr, &len) != CUZK_OK);
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    cuzk_job_release(j);
    /* a cluster's one-partition share: its 192 bytes, finish not called */
    int before = atomic_load(&F.calls);
    cuzk_job_request one = {.request_id = "fin/one", .kind = "ni", .inputs = &seed, .inputs_len = 8,
                            .one_partition = true, .partition = 3};
    CHECK(cuzk_engine_submit(e, &one, &j, NULL) == CUZK_OK && cuzk_job_await(j, -1) == CUZK_OK);
    CHECK(cuzk_job_proof(j, &pr, &len) == CUZK_OK && len == CUZK_GROTH16_PROOF_BYTES &&
          atomic_load(&F.calls) == before);
    cuzk_job_release(j);
    cuzk_engine_destroy(e);
}

/* A CRITICAL job submitted behind many NORMAL ones finishes first; a LOW job
 * submitted first finishes last. One worker per stage makes the order exact. */
static void priority_order(tkind *k, tkind *k1)
{
    cuzk_engine_config cfg = {.synthesis_workers = 1, .num_devices = 1, .workers_per_device = 1,
                              .prover_threads = 2, .log = log_capture, .stage_hook = gate_hook, .hook_ctx = &G};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 10, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind kw = tk_kind(k1, "winning", "winning-c", 1, CUZK_PRIORITY_CRITICAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kw) == CUZK_OK);
    enum { N = 5 };
    cuzk_job *low, *normal[N], *crit;
    gate_arm(&G, CUZK_STAGE_SYNTHESIS, "first");
    cuzk_job *first;
    CHECK(tk_submit(e, "porep", "first", 7, CUZK_PRIORITY_DEFAULT, 0, &first) == CUZK_OK);
    gate_wait(&G); /* the only synthesis worker holds partition 0 of "first" */
    CHECK(tk_submit(e, "porep", "low", 8, CUZK_PRIORITY_LOW, 0, &low) == CUZK_OK);
    char id[32];
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "normal-%d", i);
        CHECK(tk_submit(e, "porep", id, 100 + i, CUZK_PRIORITY_DEFAULT, 0, &normal[i]) == CUZK_OK);
    }
    CHECK(tk_submit(e, "winning", "critical", 9, CUZK_PRIORITY_DEFAULT, 0, &crit) == CUZK_OK);
    gate_release(&G);
    CHECK(cuzk_job_await(crit, -1) == CUZK_OK);
    CHECK(cuzk_job_await(low, -1) == CUZK_OK);
    cuzk_job_info ic, il, inf;
    cuzk_job_get_info(crit, &ic);
    cuzk_job_get_info(low, &il);
    CHECK_MSG(ic.finish_seq == 1, "critical finished as number %llu", (unsigned long long)ic.finish_seq);
    CHECK(ic.priority == CUZK_PRIORITY_CRITICAL && il.priority == CUZK_PRIORITY_LOW);
    CHECK(tk_proof_ok(k1, crit, 9, 1));
    CHECK(tk_proof_ok(k, low, 8, 10));
    uint64_t prev = ic.finish_seq;
    CHECK(cuzk_job_await(first, -1) == CUZK_OK);
    for (int i = 0; i < N; i++) {
        CHECK(cuzk_job_await(normal[i], -1) == CUZK_OK);
        cuzk_job_get_info(normal[i], &inf);
        CHECK_MSG(inf.finish_seq > prev && inf.finish_seq < il.finish_seq, "normal-%d finished %llu", i,
                  (unsigned long long)inf.finish_seq);
        prev = inf.finish_seq;
        cuzk_job_release(normal[i]);
    }
    cuzk_job_release(first);
    cuzk_job_release(low);
    cuzk_job_release(crit);
    cuzk_engine_destroy(e);
}

/* A CRITICAL partition is synthesized even when the prove queue is full of
 * NORMAL ones, and is the next one proved. */
static void critical_jumps_full_queue(tkind *k, tkind *k1)
{
    cuzk_engine_config cfg = {.synthesis_workers = 1, .num_devices = 1, .workers_per_device = 1,
                              .queue_depth = 2, .log = log_capture, .stage_hook = gate_hook, .hook_ctx = &G};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 10, CUZK_PRIORITY_NORMAL);
    cuzk_engine_kind kw = tk_kind(k1, "winning", "winning-c", 1, CUZK_PRIORITY_CRITICAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kw) == CUZK_OK);
    CHECK(cuzk_engine_srs_preload(e, "winning-c") == CUZK_OK);
    cuzk_job *n, *c;
    pthread_mutex_lock(&G.mu);
    n_prove_order = 0;
    pthread_mutex_unlock(&G.mu);
    gate_arm(&G, CUZK_STAGE_PROVE, "bulk");
    CHECK(tk_submit(e, "porep", "bulk", 21, CUZK_PRIORITY_DEFAULT, 0, &n) == CUZK_OK);
    gate_wait(&G);
    bool ok;
    WAIT_FOR_BOUNDED(e, c_.queued_prove == 2, ok); /* the queue is full */
    CHECK(ok);
    CHECK(tk_submit(e, "winning", "urgent", 22, CUZK_PRIORITY_DEFAULT, 0, &c) == CUZK_OK);
    WAIT_FOR_BOUNDED(e, c_.queued_prove == 3, ok);
    CHECK_MSG(ok, "the CRITICAL partition was not synthesized past a full queue");
    gate_release(&G);
    CHECK(cuzk_job_await(c, -1) == CUZK_OK && tk_proof_ok(k1, c, 22, 1));
    CHECK(cuzk_job_await(n, -1) == CUZK_OK && tk_proof_ok(k, n, 21, 10));
    pthread_mutex_lock(&G.mu);
    CHECK(n_prove_order == 11 && !strcmp(prove_order[0], "bulk/0") && !strcmp(prove_order[1], "urgent/0"));
    pthread_mutex_unlock(&G.mu);
    cuzk_job_release(n);
    cuzk_job_release(c);
    cuzk_engine_destroy(e);
}

/* File-backed parameters: cold -> (preload) hot -> (evict) cold -> a job
 * loads them -> hot; a corrupt file fails its job, then the next ones at
 * once with the same reason, until the file is fixed. */
static void file_srs(tkind *k)
{
    char dir[] = "/tmp/cuzk_engine_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char good[256], bad[256];
    snprintf(good, sizeof good, "%s/good.params", dir);
    snprintf(bad, sizeof bad, "%s/bad.params", dir);
    cuzk_groth16_error gerr;
    CHECK(cuzk_groth16_params_write_file(&k->params, good, &gerr) == CUZK_OK);
    FILE *in = fopen(good, "rb"), *out = fopen(bad, "wb");
    char buf[4096];
    size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;
    if (out) fwrite(buf, 1, n / 2, out); /* truncated */
    if (in) fclose(in);
    if (out) fclose(out);

    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 2, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kf = tk_kind(k, "filekind", "file-c", 3, CUZK_PRIORITY_NORMAL);
    kf.params = NULL;
    kf.params_path = good;
    kf.read_mode = CUZK_GROTH16_VALIDATE;
    CHECK(cuzk_engine_register_kind(e, &kf) == CUZK_OK);
    cuzk_engine_kind kb = kf;
    kb.name = "badkind", kb.circuit_id = "bad-c", kb.params_path = bad;
    CHECK(cuzk_engine_register_kind(e, &kb) == CUZK_OK);
    cuzk_engine_kind kc = kf;
    kc.name = "clash"; /* same circuit id, other parameters */
    kc.params_path = bad;
    CHECK(cuzk_engine_register_kind(e, &kc) == CUZK_ERR_INVALID_ARG);
    kc.name = "missing", kc.circuit_id = "missing-c", kc.params_path = "/nonexistent/x.params";
    CHECK(cuzk_engine_register_kind(e, &kc) == CUZK_ERR_IO);

    cuzk_srs_state st;
    CHECK(cuzk_engine_srs_state(e, "file-c", &st) == CUZK_OK && st == CUZK_SRS_COLD);
    CHECK(cuzk_engine_srs_preload(e, "file-c") == CUZK_OK);
    CHECK(cuzk_engine_srs_state(e, "file-c", &st) == CUZK_OK && st == CUZK_SRS_HOT);
    CHECK(cuzk_engine_srs_evict(e, "file-c") == CUZK_OK);
    CHECK(cuzk_engine_srs_state(e, "file-c", &st) == CUZK_OK && st == CUZK_SRS_COLD);
    CHECK(cuzk_engine_srs_preload(e, "nope") == CUZK_ERR_INVALID_ARG);

    cuzk_job *j, *jb;
    CHECK(tk_submit(e, "badkind", "bad-1", 5, CUZK_PRIORITY_DEFAULT, 0, &jb) == CUZK_OK);
    CHECK(tk_submit(e, "filekind", "file-1", 6, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    CHECK(cuzk_job_await(j, -1) == CUZK_OK);
    CHECK(tk_proof_ok(k, j, 6, 3));
    int r = cuzk_job_await(jb, -1);
    cuzk_job_info inf;
    cuzk_job_get_info(jb, &inf);
    CHECK_MSG(r == CUZK_ERR_FORMAT && inf.state == CUZK_JOB_FAILED && strstr(inf.message, "bad.params"),
              "%s: %s", cuzk_strerror(r), inf.message);
    CHECK(cuzk_engine_srs_state(e, "file-c", &st) == CUZK_OK && st == CUZK_SRS_HOT);
    CHECK(cuzk_engine_srs_state(e, "bad-c", &st) == CUZK_OK && st == CUZK_SRS_COLD); /* unmapped: reopened next time */
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.srs_loads == 2 && c.jobs_failed == 1 && c.jobs_done == 1);
    cuzk_job_release(j);
    cuzk_job_release(jb);
    /* the failure is kept with its reason: the next job fails at once with
     * it, a preload retries and says the same, until the file changes */
    char *why = NULL, *why2 = NULL;
    int64_t when = 0;
    CHECK(cuzk_engine_srs_failure(e, "bad-c", &why, &when) == CUZK_OK && why && when > 0);
    CHECK_MSG(why && strstr(why, "bad.params") && strstr(inf.message, why), "%s", why ? why : "(none)");
    CHECK(cuzk_engine_srs_failure(e, "file-c", &why2, NULL) == CUZK_OK && !why2);
    CHECK(tk_submit(e, "badkind", "bad-2", 7, CUZK_PRIORITY_DEFAULT, 0, &jb) == CUZK_OK);
    r = cuzk_job_await(jb, -1);
    cuzk_job_get_info(jb, &inf);
    CHECK_MSG(r != CUZK_OK && strstr(inf.message, "failed to load at") && why && strstr(inf.message, why), "%s",
              inf.message);
    cuzk_job_release(jb);
    CHECK(cuzk_engine_srs_preload(e, "bad-c") == CUZK_ERR_FORMAT);
    free(why);
    why = NULL;
    CHECK(cuzk_engine_srs_failure(e, "bad-c", &why, NULL) == CUZK_OK && why);
    free(why);
    why = NULL;
    in = fopen(good, "rb"), out = fopen(bad, "wb"); /* fixed: a copy of the whole file */
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    if (in) fclose(in);
    if (out) fclose(out);
    CHECK(cuzk_engine_srs_failure(e, "bad-c", &why, NULL) == CUZK_OK && !why); /* changed: no longer failed */
    CHECK(tk_submit(e, "badkind", "bad-3", 8, CUZK_PRIORITY_DEFAULT, 0, &jb) == CUZK_OK);
    CHECK(cuzk_job_await(jb, -1) == CUZK_OK && tk_proof_ok(k, jb, 8, 3));
    cuzk_job_release(jb);
    const char *circ[] = {"file-c", "bad-c"};
    check_reserved_drains(e, circ, 2);
    cuzk_engine_destroy(e);
    unlink(good);
    unlink(bad);
    rmdir(dir);
}

/* The .vk the kind's judge calls the ceremony's (vk_is_ceremony below). */
static uint8_t *g_ceremony_vk;
static size_t g_ceremony_len;

static bool judge_vk(void *ctx, const uint8_t *vk, size_t len, char *note, size_t note_len)
{
    bool yes = g_ceremony_vk && len == g_ceremony_len && !memcmp(vk, g_ceremony_vk, len);
    snprintf(note, note_len, yes ? "the test's ceremony key" : "not the test's ceremony key");
    return yes;
}

static uint8_t *vk_bytes(const cuzk_groth16_vk *vk, size_t *len)
{
    *len = cuzk_groth16_vk_serialized_size(vk);
    uint8_t *b = malloc(*len);
    CHECK(b && cuzk_groth16_vk_write_mem(vk, b, *len, NULL) == CUZK_OK);
    return b;
}

/* The .vk file written whole (a new inode: the engine sees the file changed). */
static void write_vk(const char *path, const uint8_t *b, size_t len)
{
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    CHECK(f && fwrite(b, 1, len, f) == len);
    if (f) fclose(f);
    CHECK(rename(tmp, path) == 0);
}

static void keys_are(cuzk_engine *e, cuzk_engine_keys want, const char *note_has)
{
    cuzk_engine_keys got;
    char *note = NULL;
    CHECK(cuzk_engine_srs_keys(e, "vk-c", &got, &note) == CUZK_OK);
    CHECK_MSG(got == want && (!note_has || (note && strstr(note, note_has))), "keys %s (%s), want %s with %s",
              cuzk_engine_keys_name(got), note ? note : "no note", cuzk_engine_keys_name(want),
              note_has ? note_has : "-");
    free(note);
}

/* A job of vk-c: its error (CUZK_OK and a proof valid for k) and message. */
static int vk_job(cuzk_engine *e, tkind *k, const char *id, uint64_t seed, char *msg, size_t msg_len)
{
    cuzk_job *j;
    CHECK(tk_submit(e, "vkkind", id, seed, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
    int r = cuzk_job_await(j, -1);
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    snprintf(msg, msg_len, "%s", inf.message);
    if (r == CUZK_OK) CHECK(tk_proof_ok(k, j, seed, 2));
    else CHECK(inf.state == CUZK_JOB_FAILED);
    cuzk_job_release(j);
    return r;
}

/* The .vk beside a .params: another setup's (of the same circuit) refuses
 * the load naming both files and fails the jobs, as does one with a single
 * point replaced (named); the .params' own .vk loads, and its keys are the
 * ceremony's or not as the kind judges (warned at each load); no .vk loads
 * and is said once. */
static void vk_file(tkind *k, cuzk_rng *rng)
{
    log_clear();
    tkind k2;
    tk_setup(&k2, NC, NI, rng); /* the same circuit, another setup */
    char dir[] = "/tmp/cuzk_engine_vk_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char params[256], vk[256], msg[4096], *why = NULL;
    snprintf(params, sizeof params, "%s/c.params", dir);
    snprintf(vk, sizeof vk, "%s/c.vk", dir);
    cuzk_groth16_error gerr;
    CHECK(cuzk_groth16_params_write_file(&k->params, params, &gerr) == CUZK_OK);
    size_t own_len, other_len;
    uint8_t *own = vk_bytes(&k->params.vk, &own_len), *other = vk_bytes(&k2.params.vk, &other_len);
    write_vk(vk, other, other_len);
    g_ceremony_vk = other, g_ceremony_len = other_len; /* the .vk is right, the .params is not */

    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 1, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "vkkind", "vk-c", 2, CUZK_PRIORITY_NORMAL);
    kd.params = NULL, kd.params_path = params, kd.read_mode = CUZK_GROTH16_VALIDATE;
    cuzk_engine_kind bad = kd;
    bad.vk_is_ceremony = judge_vk; /* a judge without a .vk */
    CHECK(cuzk_engine_register_kind(e, &bad) == CUZK_ERR_INVALID_ARG);
    kd.vk_path = vk, kd.vk_is_ceremony = judge_vk;
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    bad = kd, bad.name = "vk-other", bad.vk_path = params; /* the same circuit id, another .vk */
    CHECK(cuzk_engine_register_kind(e, &bad) == CUZK_ERR_INVALID_ARG);
    keys_are(e, CUZK_KEYS_UNCHECKED, NULL);

    /* another setup's .vk: refused at load, both files named, the .params blamed */
    CHECK(cuzk_engine_srs_preload(e, "vk-c") == CUZK_ERR_FORMAT);
    CHECK(cuzk_engine_srs_failure(e, "vk-c", &why, NULL) == CUZK_OK && why);
    char refusal[600];
    snprintf(refusal, sizeof refusal, "%s does not go with %s: the verifying key inside the .params is not the .vk's",
             params, vk);
    CHECK_MSG(why && strstr(why, refusal) && strstr(why, "differ at vk.alpha_g1") &&
                  strstr(why, "the .params is the file to replace"),
              "%s", why ? why : "(no failure)");
    cuzk_srs_state st;
    CHECK(cuzk_engine_srs_state(e, "vk-c", &st) == CUZK_OK && st == CUZK_SRS_COLD);
    CHECK_MSG(vk_job(e, k, "vk-1", 11, msg, sizeof msg) != CUZK_OK && strstr(msg, refusal), "%s", msg);
    keys_are(e, CUZK_KEYS_UNCHECKED, NULL);
    free(why);

    /* the .params' own key with one point replaced by another valid point */
    cuzk_groth16_vk t;
    CHECK(cuzk_groth16_vk_read_mem(&t, own, own_len, NULL, NULL) == CUZK_OK);
    size_t at = (size_t)(cuzk_rng_u64(rng) % t.n_ic);
    t.ic[at] = k2.params.vk.ic[at];
    size_t tl;
    uint8_t *tb = vk_bytes(&t, &tl);
    write_vk(vk, tb, tl);
    char place[32];
    snprintf(place, sizeof place, "differ at vk.ic[%zu]", at);
    CHECK_MSG(vk_job(e, k, "vk-2", 12, msg, sizeof msg) != CUZK_OK && strstr(msg, refusal) && strstr(msg, place) &&
                  strstr(msg, "the .vk is not the ceremony's either"),
              "%s: %s", place, msg);
    free(tb);
    cuzk_groth16_vk_free(&t);

    /* its own .vk, the ceremony's: the failure ends with the file's change */
    write_vk(vk, own, own_len);
    g_ceremony_vk = own, g_ceremony_len = own_len;
    CHECK(vk_job(e, k, "vk-3", 13, msg, sizeof msg) == CUZK_OK);
    keys_are(e, CUZK_KEYS_CEREMONY, "the test's ceremony key");
    CHECK(log_count("2 parameters of vk-c: the ceremony's keys (") == 1 && log_count("NOT the ceremony's") == 0);
    /* the same files, judged otherwise: warned at each load */
    g_ceremony_vk = other, g_ceremony_len = other_len;
    for (int i = 0; i < 2; i++) {
        CHECK(cuzk_engine_srs_evict(e, "vk-c") == CUZK_OK && cuzk_engine_srs_preload(e, "vk-c") == CUZK_OK);
        keys_are(e, CUZK_KEYS_NOT_CEREMONY, "not the test's ceremony key");
    }
    /* a warning (level 1, the captured line's first field) at each load */
    CHECK_MSG(log_count("1 parameters of vk-c: NOT the ceremony's keys (") == 2, "%u",
              log_count("NOT the ceremony's keys"));
    CHECK(vk_job(e, k, "vk-4", 14, msg, sizeof msg) == CUZK_OK);

    /* no .vk: loads, said once, the .params' own key verifies */
    CHECK(unlink(vk) == 0);
    for (int i = 0; i < 2; i++) {
        CHECK(cuzk_engine_srs_evict(e, "vk-c") == CUZK_OK && cuzk_engine_srs_preload(e, "vk-c") == CUZK_OK);
        keys_are(e, CUZK_KEYS_NO_VK, "proofs are checked against the key inside");
    }
    CHECK_MSG(log_count("1 parameters of vk-c: no ") == 1, "%u", log_count("parameters of vk-c: no "));
    CHECK(vk_job(e, k, "vk-5", 15, msg, sizeof msg) == CUZK_OK);
    char *status = cuzk_engine_status_json(e);
    CHECK_MSG(status && strstr(status, "\"keys\":\"no-vk\"") && strstr(status, vk), "%s", status ? status : "");
    free(status);

    /* a .vk cut short: refused naming it; the keys are unchecked again */
    write_vk(vk, own, own_len / 2);
    CHECK(cuzk_engine_srs_evict(e, "vk-c") == CUZK_OK && cuzk_engine_srs_preload(e, "vk-c") == CUZK_ERR_FORMAT);
    CHECK(cuzk_engine_srs_failure(e, "vk-c", &why, NULL) == CUZK_OK && why);
    snprintf(refusal, sizeof refusal, "%s (the verifying key of %s): ", vk, params);
    CHECK_MSG(why && strstr(why, refusal) == why && strstr(why, "truncated") && !strstr(why, "<memory>"), "%s",
              why ? why : "(no failure)");
    free(why);
    keys_are(e, CUZK_KEYS_UNCHECKED, NULL);
    const char *circ[] = {"vk-c"};
    check_reserved_drains(e, circ, 1);
    cuzk_engine_destroy(e);
    g_ceremony_vk = NULL;
    free(own);
    free(other);
    tk_free(&k2);
    unlink(params);
    rmdir(dir);
}

/* Both files replaced while the parameters are WARM (evicted for memory,
 * the old .params still mapped): the next load reads the new pair, not the
 * old mapping against the new .vk (which would refuse two good files). */
static void vk_file_replaced_warm(tkind *k, cuzk_rng *rng)
{
    tkind k2;
    tk_setup(&k2, NC, NI, rng); /* the same circuit, another setup */
    char dir[] = "/tmp/cuzk_engine_vkw_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char params[256], vk[256], msg[4096];
    snprintf(params, sizeof params, "%s/c.params", dir);
    snprintf(vk, sizeof vk, "%s/c.vk", dir);
    cuzk_groth16_error gerr;
    CHECK(cuzk_groth16_params_write_file(&k->params, params, &gerr) == CUZK_OK);
    CHECK(cuzk_groth16_vk_write_file(&k->params.vk, vk, &gerr) == CUZK_OK);
    struct stat st;
    CHECK(stat(params, &st) == 0);
    /* room for one set of parameters (a load reserves the file's size and a
     * sixteenth) and a partition, not for two sets */
    uint64_t budget = (uint64_t)st.st_size * 3 / 2;
    cuzk_engine_config cfg = {.synthesis_workers = 1, .num_devices = 1, .workers_per_device = 1,
                              .memory_budget = budget, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "vkkind", "vk-c", 2, CUZK_PRIORITY_NORMAL);
    kd.params = NULL, kd.params_path = params, kd.read_mode = CUZK_GROTH16_VALIDATE, kd.vk_path = vk;
    cuzk_engine_kind km = tk_kind(&k2, "memkind", "mem-c", 1, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK && cuzk_engine_register_kind(e, &km) == CUZK_OK);
    cuzk_srs_state sv;
    CHECK(cuzk_engine_srs_preload(e, "vk-c") == CUZK_OK && cuzk_engine_srs_preload(e, "mem-c") == CUZK_OK);
    CHECK_MSG(cuzk_engine_srs_state(e, "vk-c", &sv) == CUZK_OK && sv == CUZK_SRS_WARM, "vk-c in state %d, not warm",
              (int)sv);
    CHECK(cuzk_groth16_params_write_file(&k2.params, params, &gerr) == CUZK_OK);
    CHECK(cuzk_groth16_vk_write_file(&k2.params.vk, vk, &gerr) == CUZK_OK);
    CHECK_MSG(vk_job(e, &k2, "vkw-1", 21, msg, sizeof msg) == CUZK_OK, "the replaced pair: %s", msg);
    keys_are(e, CUZK_KEYS_VK, vk); /* no judge: checked against the .vk, whose not said */
    cuzk_engine_destroy(e);
    tk_free(&k2);
    unlink(params), unlink(vk);
    rmdir(dir);
}

/* Batching: same-circuit partitions of several jobs proved in one call. */
static void batching(tkind *k)
{
    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 1,
                              .max_batch_size = 4, .max_batch_wait_ms = 20, .queue_depth = 8, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 4, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    cuzk_job *j[3];
    for (int i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "b%d", i);
        CHECK(tk_submit(e, "porep", id, 50 + i, CUZK_PRIORITY_DEFAULT, 0, &j[i]) == CUZK_OK);
    }
    for (int i = 0; i < 3; i++) {
        CHECK(cuzk_job_await(j[i], -1) == CUZK_OK);
        CHECK(tk_proof_ok(k, j[i], 50 + i, 4));
        cuzk_job_release(j[i]);
    }
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK_MSG(c.batches > 0 && c.batched_partitions >= 2 * c.batches, "%llu batches",
              (unsigned long long)c.batches);
    CHECK(c.partitions_verified == 12);
    cuzk_engine_destroy(e);
}

/* The built-in kinds: made, registered and proved through the engine's
 * own verification. */
static void builtin_kinds(void)
{
    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 2, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    CHECK(cuzk_engine_register_test_kinds(e, 200, 100, 2) == CUZK_OK);
    CHECK(cuzk_engine_register_test_kinds(e, 200, 100, 2) == CUZK_ERR_INVALID_ARG);
    const char *kinds[] = {"test-porep", "test-window", "test-winning"};
    const uint32_t parts[] = {10, 1, 1};
    cuzk_job *j[3];
    for (int i = 0; i < 3; i++)
        CHECK(tk_submit(e, kinds[i], kinds[i], 11 + i, CUZK_PRIORITY_DEFAULT, 0, &j[i]) == CUZK_OK);
    for (int i = 0; i < 3; i++) {
        CHECK(cuzk_job_await(j[i], -1) == CUZK_OK);
        const uint8_t *pr;
        size_t len;
        CHECK(cuzk_job_proof(j[i], &pr, &len) == CUZK_OK && len == parts[i] * CUZK_GROTH16_PROOF_BYTES);
        cuzk_job_release(j[i]);
    }
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.partitions_verified == 12 && c.srs_loads == 3);
    cuzk_engine_destroy(e);
}

/* Clients on several threads: the same ids submitted concurrently give one
 * job each, status snapshots and counters are read meanwhile. */
enum { NCLIENT = 4, NIDS = 6 };
typedef struct client { /* CHECK is not thread-safe: results checked in main */
    cuzk_engine *e;
    int order;
    cuzk_job *got[NIDS];
    int dups, submit_errors, await_errors;
} client;
static atomic_bool clients_done;

static void *client_main(void *arg)
{
    client *c = arg;
    for (int n = 0; n < NIDS; n++) {
        int r = (n + c->order) % NIDS; /* a different order per client */
        int i = c->order & 1 ? NIDS - 1 - r : r;
        char id[16];
        snprintf(id, sizeof id, "cc-%d", i);
        uint64_t seed = 900 + (uint64_t)i;
        cuzk_job_request rq = {.request_id = id, .kind = "porep", .inputs = &seed, .inputs_len = 8};
        bool dup = false;
        c->submit_errors += cuzk_engine_submit(c->e, &rq, &c->got[i], &dup) != CUZK_OK;
        c->dups += dup;
    }
    for (int i = 0; i < NIDS; i++) c->await_errors += cuzk_job_await(c->got[i], -1) != CUZK_OK;
    return NULL;
}

static atomic_int status_errors, status_reads;

static void *status_main(void *arg)
{
    cuzk_engine *e = arg;
    while (!atomic_load(&clients_done)) {
        char *js = cuzk_engine_status_json(e);
        if (!js || js[0] != '{') atomic_fetch_add(&status_errors, 1);
        free(js);
        cuzk_engine_counters c;
        cuzk_engine_get_counters(e, &c);
        if (c.memory_reserved > c.memory_budget) atomic_fetch_add(&status_errors, 1);
        atomic_fetch_add(&status_reads, 1);
        usleep(2000);
    }
    return NULL;
}

static void concurrent_clients(tkind *k)
{
    cuzk_engine_config cfg = {.synthesis_workers = 3, .num_devices = 1, .workers_per_device = 2, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 2, CUZK_PRIORITY_DEFAULT);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    client cl[NCLIENT];
    pthread_t th[NCLIENT], st;
    atomic_store(&clients_done, false);
    CHECK(pthread_create(&st, NULL, status_main, e) == 0);
    for (int c = 0; c < NCLIENT; c++) {
        memset(&cl[c], 0, sizeof cl[c]);
        cl[c].e = e, cl[c].order = c;
        CHECK(pthread_create(&th[c], NULL, client_main, &cl[c]) == 0);
    }
    int dups = 0;
    for (int c = 0; c < NCLIENT; c++) {
        pthread_join(th[c], NULL);
        dups += cl[c].dups;
        CHECK(cl[c].submit_errors == 0 && cl[c].await_errors == 0);
    }
    atomic_store(&clients_done, true);
    pthread_join(st, NULL);
    CHECK(atomic_load(&status_errors) == 0 && atomic_load(&status_reads) > 0);
    for (int i = 0; i < NIDS; i++) {
        for (int c = 1; c < NCLIENT; c++) CHECK(cl[c].got[i] == cl[0].got[i]);
        CHECK(tk_proof_ok(k, cl[0].got[i], 900 + (uint64_t)i, 2));
        cuzk_job_info inf;
        cuzk_job_get_info(cl[0].got[i], &inf);
        CHECK(inf.priority == CUZK_PRIORITY_NORMAL); /* zeroed request, kind default NORMAL */
    }
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    CHECK(c.jobs_submitted == NIDS && c.jobs_duplicate == (NCLIENT - 1) * NIDS && dups == (NCLIENT - 1) * NIDS);
    CHECK(c.partitions_verified == 2 * NIDS);
    for (int cc = 0; cc < NCLIENT; cc++)
        for (int i = 0; i < NIDS; i++) cuzk_job_release(cl[cc].got[i]);
    cuzk_engine_destroy(e);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_engine");
    tkind k, k1;
    tk_setup(&k, NC, NI, &rng);
    tk_setup(&k1, NC / 2, 2, &rng);
    field_scenario(&k, &rng);
    one_partition(&k, &rng);
    finish_hook(&k, &rng);
    synthesis_nice(&k, &rng);
    priority_order(&k, &k1);
    critical_jumps_full_queue(&k, &k1);
    file_srs(&k);
    batching(&k);
    concurrent_clients(&k);
    builtin_kinds();
    CHECK(log_count("INVALID") == 0);
    vk_file(&k, &rng);
    vk_file_replaced_warm(&k, &rng);
    tk_free(&k);
    tk_free(&k1);
    return tu_finish("test_engine");
}
