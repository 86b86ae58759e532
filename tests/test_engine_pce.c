/* Engine with the real PCE layer behind its hook (cuzk_engine_pce_cache):
 * the first jobs synthesize fully and trigger one extraction, which is saved
 * in the cache directory; later jobs take the fast path (witness-only
 * synthesis plus the PCE's matrix-vector products); a new engine on the
 * same directory loads the cache at registration; under a budget that
 * needs its memory, the idle PCE is evicted and the next full synthesis
 * brings it back from the cache. Every job proof is checked by the test
 * against its own verifying key. */
#include "engine_test.h"
#include "pce/pce_internal.h"

static void run_jobs(cuzk_engine *e, tkind *k, const char *prefix, int n, uint64_t seed0)
{
    for (int i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof id, "%s-%d", prefix, i);
        cuzk_job *j;
        CHECK(tk_submit(e, "porep", id, seed0 + (uint64_t)i, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        int r = cuzk_job_await(j, -1);
        cuzk_job_info inf;
        cuzk_job_get_info(j, &inf);
        CHECK_MSG(r == CUZK_OK, "%s: %s (%s)", id, cuzk_strerror(r), inf.message);
        CHECK(tk_proof_ok(k, j, seed0 + (uint64_t)i, 5));
        cuzk_job_release(j);
    }
}


/* A prover that takes deferred PCE assignments (as the GPU prover does),
 * over the CPU prover: it counts the assignments whose a, b, c it was left
 * to evaluate, and the PCEs whose device copies it was told to drop; the
 * handles it is given must name what it proves with (a deferred partition
 * comes with its PCE's handle, and an evicted PCE's handle never returns). */
static cuzk_engine_prover cpu_inner;
static atomic_int deferred_seen, plain_seen, evicted_seen, packed_seen, handle_wrong;
static const void *evicted_last;
static _Atomic uint64_t evicted_pce_id, last_pce_id;
static int dp_prove(void *ctx, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                    const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                    cuzk_engine_prove_report *rep)
{
    for (size_t i = 0; i < n; i++) {
        const bool deferred = as[i].pce && !as[i].a;
        atomic_fetch_add(deferred ? &deferred_seen : &plain_seen, 1);
        if (deferred && (set->pce != as[i].pce || !set->pce_id || set->pce_id == atomic_load(&evicted_pce_id)))
            atomic_fetch_add(&handle_wrong, 1);
        if (deferred) atomic_store(&last_pce_id, set->pce_id);
        if (as[i].aux_packed && !as[i].aux) atomic_fetch_add(&packed_seen, 1);
        int err = cuzk_groth16_prove_assignment(&out[i], set->params, &as[i], &r[i], &s[i], 1, &rep->timing);
        if (err) return err;
    }
    rep->timed = true;
    return CUZK_OK;
}
static atomic_int warm_seen, warm_with_pce;
static int dp_warm(void *ctx, void *dev, const cuzk_engine_set *set, char *msg, size_t len)
{
    atomic_fetch_add(&warm_seen, 1);
    if (set->pce && set->pce_id && set->params && set->id) atomic_fetch_add(&warm_with_pce, 1);
    return CUZK_OK;
}
static int dp_evict(void *ctx, void *dev, const cuzk_engine_set *set, unsigned what)
{
    if (what & CUZK_EVICT_PCE) {
        atomic_fetch_add(&evicted_seen, 1);
        evicted_last = set->pce;
        atomic_store(&evicted_pce_id, set->pce_id);
    }
    return what & CUZK_EVICT_HOST_ARRAYS ? CUZK_ERR_NOT_READY : CUZK_OK;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_engine_pce");
    tkind k;
    tk_setup(&k, 200, 3, &rng);
    char dir[] = "/tmp/cuzk_engine_pce_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    cuzk_engine_pce hooks;
    CHECK(cuzk_engine_pce_cache(&hooks, dir, 1) == CUZK_OK);
    cuzk_engine_config cfg = {.synthesis_workers = 2, .num_devices = 1, .workers_per_device = 2, .pce = &hooks,
                              .log = log_capture};
    cuzk_engine_kind kd = tk_kind(&k, "porep", "porep-c", 5, CUZK_PRIORITY_NORMAL);

    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    cuzk_pce_state ps;
    CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_NONE); /* no cache yet */
    run_jobs(e, &k, "cold", 2, 100);
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    cuzk_engine_counters c0, c1;
    cuzk_engine_get_counters(e, &c0);
    CHECK(c0.pce_extractions == 1 && c0.pce_failures == 0);
    run_jobs(e, &k, "warm", 2, 200);
    cuzk_engine_get_counters(e, &c1);
    CHECK(c1.pce_fast_path == c0.pce_fast_path + 10); /* every partition */
    cuzk_engine_destroy(e);

    char path[512];
    snprintf(path, sizeof path, "%s/porep-c.pce", dir);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) fclose(f);

    /* a new engine finds the cache at registration */
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    run_jobs(e, &k, "again", 1, 300);
    cuzk_engine_get_counters(e, &c1);
    CHECK(c1.pce_fast_path == 5 && c1.pce_extractions == 0);
    uint64_t P = c1.pce_resident_bytes;
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    cuzk_engine_get_counters(e, &c1);
    uint64_t S = c1.memory_reserved - P; /* the parameters, once the job is gone */
    cuzk_engine_destroy(e);
    CHECK(P > 0 && S > 0);

    /* a budget one byte short of two parameter sets and the PCE: a preload
     * of a second circuit evicts the idle PCE (least recently used), the
     * next job synthesizes fully and the PCE comes back from the cache */
    cfg.synthesis_workers = 1;
    cfg.memory_budget = 2 * S + P - 1;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind ko = tk_kind(&k, "other", "other-c", 1, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &ko) == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    run_jobs(e, &k, "before-evict", 1, 400);
    CHECK(cuzk_engine_srs_preload(e, "other-c") == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_NONE);
    cuzk_engine_get_counters(e, &c0);
    CHECK(c0.pce_evictions == 1 && c0.pce_resident_bytes == 0);
    run_jobs(e, &k, "after-evict", 1, 500);
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    CHECK_MSG(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT, "%d log %s", ps, log_buf);
    cuzk_engine_get_counters(e, &c1);
    CHECK(c1.pce_extractions == 1 && c1.pce_resident_bytes == P);
    CHECK_MSG(c1.memory_peak <= cfg.memory_budget, "peak %llu of %llu", (unsigned long long)c1.memory_peak,
              (unsigned long long)cfg.memory_budget);
    run_jobs(e, &k, "fast-again", 1, 600);
    cuzk_engine_get_counters(e, &c0);
    CHECK_MSG(c0.pce_fast_path == c1.pce_fast_path + 5, "%llu fast-path partitions of 5; log %s",
              (unsigned long long)(c0.pce_fast_path - c1.pce_fast_path), log_buf);
    cuzk_engine_destroy(e);

    /* a prover that evaluates a, b, c itself (defer_pce_eval, the GPU
     * prover's mode): fast-path partitions reach it as the witness alone,
     * every proof still verifies, and an evicted PCE is announced to it
     * before it is freed */
    {
        cuzk_engine_cpu_prover(&cpu_inner, 1);
        cuzk_engine_prover dp = cpu_inner;
        dp.prove = dp_prove, dp.defer_pce_eval = true, dp.evict = dp_evict, dp.warm = dp_warm;
        cuzk_engine_config dcfg = cfg;
        dcfg.prover = &dp;
        log_clear();
        CHECK(cuzk_engine_create(&e, &dcfg) == CUZK_OK);
        CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
        CHECK(cuzk_engine_register_kind(e, &ko) == CUZK_OK);
        CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
        /* a preload hands the parameters and the resident PCE to the device */
        CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
        CHECK_MSG(atomic_load(&warm_seen) == 1 && atomic_load(&warm_with_pce) == 1, "warm %d, with PCE %d",
                  atomic_load(&warm_seen), atomic_load(&warm_with_pce));
        run_jobs(e, &k, "deferred", 2, 700);
        cuzk_engine_get_counters(e, &c1);
        CHECK_MSG(atomic_load(&deferred_seen) == 10 && atomic_load(&plain_seen) == 0 && c1.pce_fast_path == 10,
                  "deferred %d plain %d fast %llu", atomic_load(&deferred_seen), atomic_load(&plain_seen),
                  (unsigned long long)c1.pce_fast_path);
        /* the phases the prover reported: every proof counted once, the
         * evaluation it did, and each phase's histogram adding up */
        CHECK_MSG(c1.phase_count == 10 && c1.phase_sum_s[CUZK_PHASE_EVAL] > 0 && c1.phase_sum_s[CUZK_PHASE_NTT] > 0,
                  "phases: %llu proofs, eval %.4f s", (unsigned long long)c1.phase_count,
                  c1.phase_sum_s[CUZK_PHASE_EVAL]);
        for (unsigned ph = 0; ph < CUZK_PHASES; ph++) {
            uint64_t tot = 0;
            for (unsigned b = 0; b < CUZK_PHASE_BUCKETS; b++) tot += c1.phase_hist[ph][b];
            CHECK_MSG(tot == c1.phase_count, "phase %s: %llu in buckets", cuzk_engine_phase_name(ph),
                      (unsigned long long)tot);
        }
        CHECK(log_count("eval ") >= 10); /* the per-partition debug line names the phases */
        CHECK(status_has(e, "\"pack_witness\":false"));
        CHECK(cuzk_engine_srs_preload(e, "other-c") == CUZK_OK); /* evicts the idle PCE, as above */
        CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_NONE);
        CHECK_MSG(atomic_load(&evicted_seen) == 1 && evicted_last != NULL && atomic_load(&evicted_pce_id) &&
                      atomic_load(&evicted_pce_id) == atomic_load(&last_pce_id),
                  "evicted %d (handle %llu, the proofs' %llu)", atomic_load(&evicted_seen),
                  (unsigned long long)atomic_load(&evicted_pce_id), (unsigned long long)atomic_load(&last_pce_id));
        run_jobs(e, &k, "deferred-after", 1, 800); /* full synthesis, then the PCE again */
        CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
        CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
        run_jobs(e, &k, "deferred-again", 1, 850); /* through the extracted PCE: a new handle */
        CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
        CHECK_MSG(atomic_load(&handle_wrong) == 0 && atomic_load(&last_pce_id) != atomic_load(&evicted_pce_id),
                  "%d proofs with a wrong PCE handle", atomic_load(&handle_wrong));
        cuzk_engine_destroy(e);
        CHECK(atomic_load(&plain_seen) >= 1); /* the full syntheses came as plain assignments */
        CHECK(atomic_load(&packed_seen) == 0); /* packing is the prover's to ask for */
    }

    /* and one that asks for packed witnesses (pack_witness): every fast-path
     * partition reaches it with the aux packed, and the proofs verify */
    {
        cuzk_engine_prover dp = cpu_inner;
        dp.prove = dp_prove, dp.defer_pce_eval = true, dp.pack_witness = true;
        cuzk_engine_config dcfg = cfg;
        dcfg.prover = &dp;
        atomic_store(&deferred_seen, 0), atomic_store(&packed_seen, 0);
        CHECK(cuzk_engine_create(&e, &dcfg) == CUZK_OK);
        CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
        CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
        CHECK(status_has(e, "\"pack_witness\":true"));
        run_jobs(e, &k, "packed", 2, 900);
        CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
        CHECK_MSG(atomic_load(&packed_seen) == 10 && atomic_load(&deferred_seen) == 10, "packed %d of %d",
                  atomic_load(&packed_seen), atomic_load(&deferred_seen));
        cuzk_engine_destroy(e);
    }

    /* and a circuit whose witness is general values (no boolean steps):
     * packing would not pay, so with pack_witness on its fast-path
     * partitions still come plain, and the proofs verify */
    {
        tkind kg;
        tk_setup_spec(&kg, 200, 3, true, &rng);
        cuzk_engine_kind kgd = tk_kind(&kg, "porep", "general-c", 5, CUZK_PRIORITY_NORMAL);
        cuzk_engine_prover dp = cpu_inner;
        dp.prove = dp_prove, dp.defer_pce_eval = true, dp.pack_witness = true;
        cuzk_engine_config dcfg = cfg;
        dcfg.prover = &dp;
        CHECK(cuzk_engine_create(&e, &dcfg) == CUZK_OK);
        CHECK(cuzk_engine_register_kind(e, &kgd) == CUZK_OK);
        run_jobs(e, &kg, "general-extract", 1, 1000); /* full synthesis, the PCE extracted */
        CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
        CHECK(cuzk_engine_pce_state(e, "general-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
        atomic_store(&deferred_seen, 0), atomic_store(&packed_seen, 0);
        run_jobs(e, &kg, "general", 2, 1100);
        CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
        CHECK_MSG(atomic_load(&deferred_seen) == 10 && atomic_load(&packed_seen) == 0, "deferred %d, packed %d",
                  atomic_load(&deferred_seen), atomic_load(&packed_seen));
        cuzk_engine_destroy(e);
        tk_free(&kg);
    }

    /* pce_verify = "background": a flipped byte the structure checks cannot
     * see (a coefficient's low bit) is found by the verifier thread started at
     * registration; the first job still gets valid proofs (full synthesis),
     * the file is set aside and the circuit extracted again */
    {
        f = fopen(path, "r+b");
        CHECK(f != NULL);
        uint8_t hdr[PCE_HEADER_BYTES];
        CHECK(f && fread(hdr, 1, sizeof hdr, f) == sizeof hdr);
        const uint8_t *ce = hdr + PCE_OFF_SECTIONS + 9 * PCE_SECTION_ENTRY_BYTES; /* coeffs */
        const uint8_t *ac = hdr + PCE_OFF_SECTIONS + 1 * PCE_SECTION_ENTRY_BYTES; /* A.col */
        uint64_t at = pce_rd64(ce + 16) ? pce_rd64(ce + 8) : pce_rd64(ac + 8); /* low byte of the first one */
        int b = -1;
        if (f && fseek(f, (long)at, SEEK_SET) == 0) b = fgetc(f);
        CHECK(b >= 0 && fseek(f, (long)at, SEEK_SET) == 0 && fputc(b ^ 1, f) != EOF);
        if (f) fclose(f);
    }
    CHECK(cuzk_engine_pce_cache_verify_background(&hooks, true) == CUZK_OK);
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT); /* before the verdict */
    run_jobs(e, &k, "bg-bad", 1, 400); /* every proof checked valid */
    CHECK(cuzk_engine_wait_idle(e, -1) == CUZK_OK);
    cuzk_engine_get_counters(e, &c1);
    /* the first partitions fell back; once re-extracted, later ones may take the fast path */
    CHECK_MSG(c1.pce_fast_path < 5 && c1.pce_failures == 1 && c1.pce_extractions == 1,
              "fast path %llu, failures %llu, extractions %llu", (unsigned long long)c1.pce_fast_path,
              (unsigned long long)c1.pce_failures, (unsigned long long)c1.pce_extractions);
    char aside[600];
    snprintf(aside, sizeof aside, "%s.rejected", path);
    f = fopen(aside, "rb");
    CHECK(f != NULL);
    if (f) fclose(f);
    CHECK(cuzk_engine_pce_state(e, "porep-c", &ps) == CUZK_OK && ps == CUZK_PCE_RESIDENT);
    c0 = c1;
    run_jobs(e, &k, "bg-again", 1, 500);
    cuzk_engine_get_counters(e, &c1);
    CHECK(c1.pce_fast_path == c0.pce_fast_path + 5);
    cuzk_engine_destroy(e);
    /* the re-extracted file verifies in the background too */
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    run_jobs(e, &k, "bg-good", 1, 600);
    cuzk_engine_get_counters(e, &c1);
    CHECK(c1.pce_fast_path == 5 && c1.pce_failures == 0 && c1.pce_extractions == 0);
    cuzk_engine_destroy(e);
    unlink(aside);

    cuzk_engine_pce_cache_free(&hooks);
    unlink(path);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    tk_free(&k);
    CHECK(log_count("INVALID") == 0);
    return tu_finish("test_engine_pce");
}
