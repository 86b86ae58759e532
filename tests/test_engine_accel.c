/*
 * A task's SnarkPack aggregation borrowing an engine device (cuzk_job_snarkpack_accel, the
 * prover's snarkpack hook), as the aggregate-seal and NI-PoRep finishes do. A fake prover of two
 * devices (the CPU prover's prove) lends hooks that run on the CPU
 * (cuzk_pairing_miller_loop_groups, cuzk_msm_batch) with min_n 1, so every Miller loop and MSM
 * of an aggregation goes through them, and counts their calls per device; device 0's hook
 * refuses. Fresh proofs of a fresh synthetic circuit, a fresh TEST SRS, fresh transcript bytes:
 *  - two tasks at once (8 proofs v2, 4 proofs v1): both get device 1's hooks, which run (calls
 *    counted there, none on device 0), and each answer is the plain CPU aggregate byte for byte
 *    and verifies;
 *  - device 1 failed (a prove's CUZK_ERR_DEVICE): its hook is no longer asked, the finish gets
 *    CUZK_ERR_NO_DEVICE and the CPU path, the same bytes;
 *  - the CPU prover (no hook): CUZK_ERR_NO_DEVICE, the CPU path, the same bytes.
 */
#include "engine_test.h"

#define NI 3
#define NMAX 8

typedef struct fixture {
    cuzk_snarkpack_srs srs;
    cuzk_groth16_params params;
    cuzk_groth16_proof pf[NMAX];
    cuzk_fr in[NMAX * NI];
} fixture;

static cuzk_rng rng;

/* ---- the fake prover: the CPU's prove, CPU hooks that count ------------- */

typedef struct fdev {
    unsigned index;
    atomic_uint lends, miller, msm;
} fdev;

static fdev devs[2];
static cuzk_engine_prover cpu;
static atomic_bool fail_dev1; /* device 1's proves fail (CUZK_ERR_DEVICE: failed at once) */

static int f_open(void *ctx, unsigned device, unsigned workers, void **dev)
{
    (void)ctx, (void)workers;
    if (device >= 2) return CUZK_ERR_INVALID_ARG;
    devs[device].index = device;
    *dev = &devs[device];
    return CUZK_OK;
}

static int f_prove(void *ctx, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                   const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                   cuzk_engine_prove_report *rep)
{
    (void)ctx;
    if (((fdev *)dev)->index == 1 && atomic_load(&fail_dev1)) return CUZK_ERR_DEVICE;
    return cpu.prove(cpu.ctx, dev, worker, set, n, as, r, s, out, rep);
}

/* out[k]: the product of the loops sent to k, as the accelerator contract has it. */
static int f_miller(void *ctx, cuzk_fp12 *out, size_t nprod, const cuzk_pairing_group *g, size_t ng)
{
    atomic_fetch_add(&((fdev *)ctx)->miller, 1);
    cuzk_pairing_miller_loop_groups(out, nprod, g, ng);
    return CUZK_OK;
}

static int f_msm(void *ctx, const cuzk_msm_job *jobs, size_t njobs)
{
    atomic_fetch_add(&((fdev *)ctx)->msm, 1);
    return cuzk_msm_batch(jobs, njobs, 1);
}

/* Device 0 refuses (as a GPU whose stream cannot be made); device 1 lends its hooks. */
static int f_snarkpack(void *ctx, void *dev, cuzk_snarkpack_accel *acc)
{
    (void)ctx;
    fdev *d = dev;
    atomic_fetch_add(&d->lends, 1);
    if (d->index == 0) return CUZK_ERR_DEVICE;
    *acc = (cuzk_snarkpack_accel){.miller_groups = f_miller, .msm_batch = f_msm, .ctx = d, .min_n = 1};
    return CUZK_OK;
}

/* ---- the task: an aggregation of the fixture's first n proofs ----------- */

typedef struct agg_in {
    uint32_t n, version;
    uint8_t inc[32];
} agg_in;

static atomic_uint lent_ok, lent_none;

static int aggregate_bytes(const fixture *f, const agg_in *a, const cuzk_snarkpack_ctl *ctl, uint8_t **out,
                           size_t *out_len, char *err, size_t err_len)
{
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    size_t len = cuzk_snarkpack_proof_size(a->n);
    *out = malloc(len);
    if (!p || !*out) return free(p), free(*out), *out = NULL, CUZK_ERR_NO_MEMORY;
    int rc = cuzk_snarkpack_aggregate(p, &f->srs, f->pf, a->n, a->inc, sizeof a->inc,
                                      (cuzk_snarkpack_version)a->version, ctl, 1, err, err_len);
    if (!rc) rc = cuzk_snarkpack_proof_encode(*out, len, p);
    free(p);
    if (rc) free(*out), *out = NULL;
    else *out_len = len;
    return rc;
}

static int agg_finish(void *ctx, cuzk_job *job, const void *in, size_t len, const void *prepared,
                      const uint8_t *proofs, size_t plen, uint8_t **out, size_t *out_len, char *err, size_t err_len)
{
    (void)prepared, (void)proofs, (void)plen;
    agg_in a;
    if (len != sizeof a) return cuzk_errf(err, err_len, CUZK_ERR_BAD_LENGTH, "inputs: %zu bytes", len);
    memcpy(&a, in, sizeof a);
    cuzk_snarkpack_accel acc;
    int lent = cuzk_job_snarkpack_accel(job, &acc);
    if (lent == CUZK_ERR_NO_DEVICE && !acc.miller_groups && !acc.msm_batch) atomic_fetch_add(&lent_none, 1);
    else if (lent == CUZK_OK) atomic_fetch_add(&lent_ok, 1);
    else return cuzk_errf(err, err_len, CUZK_ERR_INTERNAL, "cuzk_job_snarkpack_accel: %s", cuzk_strerror(lent));
    cuzk_snarkpack_ctl ctl = {.accel = lent == CUZK_OK ? &acc : NULL};
    return aggregate_bytes(ctx, &a, &ctl, out, out_len, err, err_len);
}

static agg_in agg_inputs(uint32_t n, cuzk_snarkpack_version v)
{
    agg_in a = {.n = n, .version = (uint32_t)v};
    cuzk_rng_bytes(&rng, a.inc, sizeof a.inc);
    return a;
}

static int agg_submit(cuzk_engine *e, const char *id, const agg_in *a, cuzk_job **out)
{
    cuzk_job_request rq = {.request_id = id, .kind = "agg", .inputs = a, .inputs_len = sizeof *a};
    return cuzk_engine_submit(e, &rq, out, NULL);
}

/* The job's answer is the plain CPU aggregate's bytes, and it verifies. */
static void agg_check(const fixture *f, cuzk_job *j, const agg_in *a, const char *what)
{
    char err[512] = "";
    int rc = cuzk_job_await(j, -1);
    cuzk_job_info inf;
    cuzk_job_get_info(j, &inf);
    CHECK_MSG(rc == CUZK_OK, "%s: %s (%s)", what, cuzk_strerror(rc), inf.message);
    const uint8_t *got;
    size_t got_len;
    uint8_t *want = NULL;
    size_t want_len = 0;
    CHECK(aggregate_bytes(f, a, NULL, &want, &want_len, err, sizeof err) == CUZK_OK);
    CHECK_MSG(rc == CUZK_OK && cuzk_job_proof(j, &got, &got_len) == CUZK_OK && want && got_len == want_len &&
                  !memcmp(got, want, want_len),
              "%s: the aggregate differs from the CPU's", what);
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    cuzk_snarkpack_vk svk;
    rc = want ? cuzk_snarkpack_proof_decode(p, want, want_len, err, sizeof err) : CUZK_ERR_NO_MEMORY;
    if (!rc) rc = cuzk_snarkpack_vk_for(&svk, &f->srs, a->n, err, sizeof err);
    if (!rc)
        rc = cuzk_snarkpack_verify(p, &svk, &f->params.vk, f->in, a->n, NI, a->inc, sizeof a->inc,
                                   (cuzk_snarkpack_version)a->version, &rng, 1, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK, "%s: the aggregate does not verify: %s", what, err);
    free(p), free(want);
}

static cuzk_engine_kind agg_kind(fixture *f)
{
    return (cuzk_engine_kind){.name = "agg", .circuit_id = "agg", .default_priority = CUZK_PRIORITY_NORMAL,
                              .finish = agg_finish, .ctx = f};
}

/* Two tasks at once through device 1's hooks (device 0 refuses): counted there, same bytes. */
static void lent_to_device(cuzk_engine *e, const fixture *f)
{
    agg_in a8 = agg_inputs(8, CUZK_SNARKPACK_V2), a4 = agg_inputs(4, CUZK_SNARKPACK_V1);
    cuzk_job *j8, *j4;
    CHECK(agg_submit(e, "agg-8", &a8, &j8) == CUZK_OK && agg_submit(e, "agg-4", &a4, &j4) == CUZK_OK);
    agg_check(f, j8, &a8, "8 proofs v2 on device 1's hooks");
    agg_check(f, j4, &a4, "4 proofs v1 on device 1's hooks");
    cuzk_job_release(j8), cuzk_job_release(j4);
    unsigned m1 = atomic_load(&devs[1].miller), s1 = atomic_load(&devs[1].msm);
    CHECK_MSG(atomic_load(&lent_ok) == 2 && atomic_load(&lent_none) == 0, "lent %u, not lent %u",
              atomic_load(&lent_ok), atomic_load(&lent_none));
    CHECK_MSG(m1 > 0 && s1 > 0, "device 1's hooks ran %u Miller and %u MSM calls", m1, s1);
    CHECK_MSG(atomic_load(&devs[0].miller) == 0 && atomic_load(&devs[0].msm) == 0 &&
                  atomic_load(&devs[0].lends) == 2 && atomic_load(&devs[1].lends) == 2,
              "device 0: asked %u, ran %u + %u calls; device 1 asked %u", atomic_load(&devs[0].lends),
              atomic_load(&devs[0].miller), atomic_load(&devs[0].msm), atomic_load(&devs[1].lends));
    printf("two aggregations on device 1's hooks: %u Miller, %u MSM calls\n", m1, s1);
}

/* Device 1 failed by a prove's CUZK_ERR_DEVICE (circuit jobs until one lands there): its hook
 * is not asked any more and the task aggregates on the CPU, to the same bytes. */
static void failed_device(cuzk_engine *e, const fixture *f, tkind *k)
{
    atomic_store(&fail_dev1, true);
    for (int i = 0; i < 64 && !cuzk_engine_device_failed(e, 1, NULL, 0); i++) {
        char id[32];
        snprintf(id, sizeof id, "circ-%d", i);
        uint64_t seed = cuzk_rng_u64(&rng) >> 2;
        cuzk_job *j;
        CHECK(tk_submit(e, "circ", id, seed, CUZK_PRIORITY_DEFAULT, 0, &j) == CUZK_OK);
        CHECK(cuzk_job_await(j, -1) == CUZK_OK && tk_proof_ok(k, j, seed, 2));
        cuzk_job_release(j);
    }
    CHECK_MSG(cuzk_engine_device_failed(e, 1, NULL, 0), "device 1 never took a prove");
    unsigned asked = atomic_load(&devs[1].lends), m1 = atomic_load(&devs[1].miller);
    unsigned none = atomic_load(&lent_none);
    agg_in a = agg_inputs(4, CUZK_SNARKPACK_V2);
    cuzk_job *j;
    CHECK(agg_submit(e, "agg-failed", &a, &j) == CUZK_OK);
    agg_check(f, j, &a, "4 proofs v2, device 1 failed");
    cuzk_job_release(j);
    CHECK_MSG(atomic_load(&lent_none) == none + 1 && atomic_load(&devs[1].lends) == asked &&
                  atomic_load(&devs[1].miller) == m1,
              "device 1 failed: not lent %u (was %u), asked %u (was %u)", atomic_load(&lent_none), none,
              atomic_load(&devs[1].lends), asked);
}

/* The CPU prover has no hook: CUZK_ERR_NO_DEVICE, the CPU path, the same bytes. */
static void cpu_prover(const fixture *f)
{
    cuzk_engine *e;
    cuzk_engine_config cfg = {.synthesis_workers = 1, .log = log_capture};
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind t = agg_kind((fixture *)f);
    CHECK(cuzk_engine_register_kind(e, &t) == CUZK_OK);
    unsigned none = atomic_load(&lent_none), ok = atomic_load(&lent_ok);
    agg_in a = agg_inputs(8, CUZK_SNARKPACK_V1);
    cuzk_job *j;
    CHECK(agg_submit(e, "agg-cpu", &a, &j) == CUZK_OK);
    agg_check(f, j, &a, "8 proofs v1 on the CPU prover's engine");
    cuzk_job_release(j);
    CHECK(atomic_load(&lent_none) == none + 1 && atomic_load(&lent_ok) == ok);
    cuzk_engine_destroy(e);
}

int main(void)
{
    tu_init(&rng, "test_engine_accel");
    fixture *f = calloc(1, sizeof *f);
    uint64_t nc = 40 + cuzk_rng_u64(&rng) % 60;
    printf("synthetic circuit: %llu constraints, %d inputs, %d proofs\n", (unsigned long long)nc, NI, NMAX);
    CHECK(cuzk_snarkpack_srs_setup_test(&f->srs, NMAX, &rng, 2) == CUZK_OK);
    CHECK(tu_synthetic_proofs(&f->params, f->pf, f->in, NMAX, NI, nc, &rng) == 0);
    tkind k;
    tk_setup(&k, 64, 2, &rng);

    cuzk_engine_cpu_prover(&cpu, 1);
    cuzk_engine_prover fp = {.name = "lending", .devices = 2, .open = f_open, .prove = f_prove,
                             .snarkpack = f_snarkpack};
    cuzk_engine_config cfg = {.synthesis_workers = 2, .workers_per_device = 1, .prover = &fp,
                              .device_max_errors = 1, .log = log_capture};
    cuzk_engine *e;
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    cuzk_engine_kind t = agg_kind(f), c = tk_kind(&k, "circ", "circ-c", 2, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &t) == CUZK_OK && cuzk_engine_register_kind(e, &c) == CUZK_OK);
    lent_to_device(e, f);
    failed_device(e, f, &k);
    cuzk_engine_destroy(e);
    cpu_prover(f);

    tk_free(&k);
    cuzk_groth16_params_free(&f->params);
    cuzk_snarkpack_srs_free(&f->srs);
    free(f);
    return tu_finish("test_engine_accel");
}
