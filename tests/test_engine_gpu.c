/*
 * Engine on the GPU prover: the field scenario (10-partition jobs, 6
 * synthesis workers, 2 GPU workers per device, many jobs back to back,
 * every partition verified by the engine and each job's proof re-verified
 * here), once on GPU 0 and once on two device contexts of GPU 0 (devices =
 * [0, 0]), with both contexts seen proving. Jobs and constraints per
 * partition: $CUZK_ENGINE_GPU_JOBS (default 12), $CUZK_ENGINE_GPU_NC
 * (default 16384). Without a CUDA device the GPU prover must refuse with
 * CUZK_ERR_NO_DEVICE (the daemon then falls back to the CPU prover) and the
 * test prints "SKIPPED: no CUDA device" (CTest: Skipped).
 */
#include "cuzk/util/clock.h"
#include "cuzk/gpu/gpu.h"
#include "gpu_hooks_env.h"
#include "engine_test.h"

#include <time.h>

#define NI 4
#define MAXDEV 4

/* Wraps the GPU prover to count proofs per engine device. */
typedef struct wrap {
    cuzk_engine_prover in;
    atomic_uint proved[MAXDEV];
    atomic_uint unpinned; /* prove calls whose parameters CUDA did not know as page-locked */
    bool release;         /* warm and the host arrays' eviction pass through: the host's points go */
} wrap;
typedef struct wdev {
    void *in;
    unsigned idx;
} wdev;

static int w_open(void *ctx, unsigned d, unsigned workers, void **out)
{
    wrap *w = ctx;
    wdev *x = calloc(1, sizeof *x);
    if (!x) return CUZK_ERR_NO_MEMORY;
    x->idx = d;
    int err = w->in.open(w->in.ctx, d, workers, &x->in);
    if (err != CUZK_OK) free(x);
    else *out = x;
    return err;
}
static void w_close(void *ctx, void *dev)
{
    wrap *w = ctx;
    w->in.close(w->in.ctx, ((wdev *)dev)->in);
    free(dev);
}
static int w_prove(void *ctx, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                   const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                   cuzk_engine_prove_report *rep)
{
    wrap *w = ctx;
    wdev *x = dev;
    /* the engine registered the HOT parameters: uploads are direct DMA
     * (released, they are neither registered nor uploaded again) */
    if (!w->release && !cuzk_gpu_host_is_registered(set->params->h)) atomic_fetch_add(&w->unpinned, 1);
    int err = w->in.prove(w->in.ctx, x->in, worker, set, n, as, r, s, out, rep);
    if (err == CUZK_OK && x->idx < MAXDEV) atomic_fetch_add(&w->proved[x->idx], (unsigned)n);
    return err;
}
/* without release the host's arrays stay: the device never says its copy stands in */
static int w_evict(void *ctx, void *dev, const cuzk_engine_set *set, unsigned what)
{
    wrap *w = ctx;
    if (!w->release && (what & CUZK_EVICT_HOST_ARRAYS)) return CUZK_ERR_NOT_READY;
    return w->in.evict(w->in.ctx, ((wdev *)dev)->in, set, what);
}
static int w_describe(void *ctx, void *dev, const char **name, cuzk_engine_device_mem *mem)
{
    wrap *w = ctx;
    return w->in.describe(w->in.ctx, ((wdev *)dev)->in, name, mem);
}
static int w_warm(void *ctx, void *dev, const cuzk_engine_set *set, char *msg, size_t msg_len)
{
    wrap *w = ctx;
    return w->in.warm(w->in.ctx, ((wdev *)dev)->in, set, msg, msg_len);
}
/* Pinning passes through: the engine page-locks HOT parameters the prover's way. */
static cuzk_engine_pin_how w_pin(void *ctx, void *ptr, size_t len, cuzk_engine_pin_how undo, char *msg,
                                 size_t msg_len)
{
    wrap *w = ctx;
    return w->in.pin(w->in.ctx, ptr, len, undo, msg, msg_len);
}

/* njobs jobs of 10 partitions on the device contexts ord. With release,
 * the preload uploads the parameters to every context and the host's
 * points go back to the kernel: the jobs prove from the device copies. */
static void field_scenario(tkind *k, cuzk_rng *rng, const unsigned *ord, unsigned n_ord, int njobs, bool release)
{
    wrap w;
    memset(&w, 0, sizeof w);
    w.release = release;
    CHECK(cuzk_engine_gpu_prover(&w.in, ord, n_ord) == CUZK_OK);
    CHECK(!strcmp(w.in.name, "gpu") && w.in.devices == n_ord);
    CHECK(w.in.pin && w.in.evict && w.in.describe && w.in.snarkpack);
    cuzk_engine_prover p = {.name = "gpu", .devices = n_ord, .open = w_open, .close = w_close, .prove = w_prove,
                            .evict = w_evict, .describe = w_describe, .pin = w_pin, .ctx = &w};
    if (release) p.warm = w_warm;
    cuzk_engine_config cfg = {.synthesis_workers = 6, .workers_per_device = 2, .prover = &p,
                              .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    CHECK(cuzk_engine_num_devices(e) == n_ord);
    for (unsigned d = 0; d < n_ord; d++) {
        const char *name = cuzk_engine_device_name(e, d);
        CHECK_MSG(strstr(name, "device 0") != NULL, "device %u: \"%s\"", d, name);
        fprintf(stderr, "engine device %u: %s\n", d, name);
    }
    cuzk_engine_kind kd = tk_kind(k, "porep", "porep-c", 10, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &kd) == CUZK_OK);
    cuzk_engine_counters cp;
    cuzk_engine_get_counters(e, &cp);
    const uint64_t r0 = cp.memory_reserved;
    CHECK(cuzk_engine_srs_preload(e, "porep-c") == CUZK_OK);
    cuzk_engine_get_counters(e, &cp);
    const uint64_t pts = (k->params.n_h + k->params.n_l + k->params.n_a + k->params.n_b_g1) * sizeof(cuzk_g1_affine) +
                         k->params.n_b_g2 * sizeof(cuzk_g2_affine);
    if (release) {
        /* every context took the set at the preload: the host's points went */
        CHECK_MSG(cp.srs_host_released == 1 && cp.memory_pinned == 0 && cp.memory_reserved - r0 < pts / 100,
                  "released %llu, pinned %llu, reserved %llu of %llu point bytes; log %s",
                  (unsigned long long)cp.srs_host_released, (unsigned long long)cp.memory_pinned,
                  (unsigned long long)(cp.memory_reserved - r0), (unsigned long long)pts, log_buf);
    } else {
        CHECK_MSG(cp.memory_pinned >= k->params.n_h * sizeof(cuzk_g1_affine), "pinned %llu bytes",
                  (unsigned long long)cp.memory_pinned);
        CHECK(cp.srs_host_released == 0 && cp.memory_reserved - r0 >= pts);
    }

    cuzk_job **jobs = calloc((size_t)njobs, sizeof *jobs);
    uint64_t *seeds = calloc((size_t)njobs, sizeof *seeds);
    CHECK(jobs && seeds);
    cuzk_engine_counters c0, c1;
    cuzk_engine_get_counters(e, &c0);
    double t0 = cuzk_now();
    char id[32];
    for (int i = 0; i < njobs; i++) {
        seeds[i] = cuzk_rng_u64(rng) >> 1;
        snprintf(id, sizeof id, "gpu-%u-%d", n_ord, i);
        CHECK(tk_submit(e, "porep", id, seeds[i], CUZK_PRIORITY_DEFAULT, 0, &jobs[i]) == CUZK_OK);
    }
    unsigned ok = 0;
    for (int i = 0; i < njobs; i++) {
        int r = cuzk_job_await(jobs[i], -1);
        cuzk_job_info inf;
        cuzk_job_get_info(jobs[i], &inf);
        CHECK_MSG(r == CUZK_OK && inf.state == CUZK_JOB_DONE, "job %d: %s (%s)", i, cuzk_strerror(r), inf.message);
        CHECK(inf.partitions_done == 10 && inf.partitions_reproved == 0);
        bool good = r == CUZK_OK && tk_proof_ok(k, jobs[i], seeds[i], 10);
        CHECK_MSG(good, "job %d proof rejected by the test's own verification", i);
        ok += good;
        if (i == 0 && njobs > 1) CHECK(!tk_proof_ok(k, jobs[i], seeds[1], 10)); /* the check can fail */
    }
    double wall = cuzk_now() - t0;
    cuzk_engine_get_counters(e, &c1);
    uint64_t parts = c1.partitions_proved - c0.partitions_proved;
    CHECK(parts == (uint64_t)njobs * 10);
    CHECK(c1.partitions_invalid == 0 && c1.prover_errors == 0 && log_count("INVALID") == 0);
    unsigned total = 0;
    for (unsigned d = 0; d < n_ord && d < MAXDEV; d++) {
        unsigned got = atomic_load(&w.proved[d]);
        CHECK_MSG(got > 0, "device context %u proved nothing", d);
        fprintf(stderr, "  device %u proved %u partitions\n", d, got);
        total += got;
    }
    CHECK(total == parts);
    char *js = cuzk_engine_status_json(e);
    CHECK(js && strstr(js, "\"backend\":\"gpu\"") && strstr(js, "device 0"));
    /* "device": registered with CUDA; "mlock" when a small array shared a page CUDA had registered for another */
    CHECK_MSG(js && (strstr(js, "\"pinning\":\"device\"") || strstr(js, "\"pinning\":\"mlock\"")), "%s",
              js ? js : "");
    CHECK(js && (strstr(js, "\"host_released\":true") != NULL) == release);
    free(js);
    CHECK_MSG(atomic_load(&w.unpinned) == 0, "%u prove calls with unregistered parameters",
              atomic_load(&w.unpinned));
    fprintf(stderr,
            "GPU field scenario, %u device context(s): %u/%d jobs, %u/%d partitions valid; "
            "%.1f s, %.1f proofs/min (10-partition), %.1f partitions/s, prove %.4f s per partition per worker\n",
            n_ord, ok, njobs, ok * 10, njobs * 10, wall, njobs / wall * 60, (double)parts / wall,
            (c1.prove_busy_s - c0.prove_busy_s) / (double)parts);
    for (int i = 0; i < njobs; i++) cuzk_job_release(jobs[i]);
    free(jobs), free(seeds);
    CHECK(cuzk_engine_srs_evict(e, "porep-c") == CUZK_OK); /* drops the device copies */
    cuzk_engine_destroy(e);
    cuzk_engine_gpu_prover_free(&w.in);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_engine_gpu");
    gpu_hooks_from_env();
    cuzk_engine_prover p;
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count <= 0) {
        /* what the daemon's CPU fallback relies on */
        unsigned zero = 0;
        CHECK(cuzk_engine_gpu_prover(&p, NULL, 0) == CUZK_ERR_NO_DEVICE);
        CHECK(cuzk_engine_gpu_prover(&p, &zero, 1) == CUZK_ERR_NO_DEVICE);
        return tu_skip("test_engine_gpu", "no CUDA device (the CPU fallback's refusals were checked)");
    }
    unsigned bad = (unsigned)count; /* an ordinal that does not exist */
    CHECK(cuzk_engine_gpu_prover(&p, &bad, 1) == CUZK_ERR_NO_DEVICE);
    const char *ej = getenv("CUZK_ENGINE_GPU_JOBS"), *en = getenv("CUZK_ENGINE_GPU_NC");
    int njobs = ej && atoi(ej) > 0 ? atoi(ej) : 12;
    uint64_t nc = en && strtoull(en, NULL, 0) > 0 ? strtoull(en, NULL, 0) : 16384;
    fprintf(stderr, "%d jobs x 10 partitions, %llu constraints per partition\n", njobs, (unsigned long long)nc);
    tkind k;
    tk_setup(&k, nc, NI, &rng);
    const unsigned one[1] = {0}, same[2] = {0, 0};
    field_scenario(&k, &rng, one, 1, njobs, false);
    field_scenario(&k, &rng, same, 2, njobs, false);
    field_scenario(&k, &rng, same, 2, njobs, true);
    tk_free(&k);
    return tu_finish("test_engine_gpu");
}
