/* GPU Groth16 prover: proofs verify (independent verifier), equal the CPU
 * prover's bytes for the same r, s, several circuits per call, also as a job
 * with queries by index, a tampered witness gives a rejected proof, a worker
 * out of device memory (injected) lets go of its buffers and proves again;
 * and the concurrency case: 2 workers on one device proving 20 partitions of one
 * circuit concurrently for $CUZK_GPU_ROUNDS rounds (default 3; the device
 * script runs 50), every partition checked. Without a CUDA device: "SKIPPED: no CUDA device" (CTest: Skipped). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/util/handle.h"
#include "cuzk/util/mem.h"
#include "gpu_hooks_env.h"
#include "job_by_index.h"
#include "testutil.h"

static cuzk_rng rng;

/* A multiplication chain with booleans (bit-heavy witness like Filecoin's),
 * 2 public inputs; witness values from seed. */
static cuzk_cs *build(cuzk_cs_kind kind, uint64_t seed, int n_mul, int n_bool)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    if (!cs) return NULL;
    cuzk_cs_alloc_one(cs);
    cuzk_rng r;
    cuzk_rng_seed(&r, seed);
    cuzk_lc la, lb, lc;
    cuzk_lc_init(&la), cuzk_lc_init(&lb), cuzk_lc_init(&lc);
    cuzk_fr xv, cv;
    cuzk_fr_random(&xv, &r);
    cuzk_var x = cuzk_cs_alloc_input(cs, "x", &xv);
    cuzk_fr_random(&cv, &r);
    cuzk_var cur = cuzk_cs_alloc(cs, "start", &cv);
    for (int k = 0; k < n_mul; k++) {
        cuzk_fr yv, zv, lhs;
        cuzk_fr_random(&yv, &r);
        cuzk_var y = cuzk_cs_alloc(cs, "y", &yv);
        cuzk_fr_add(&lhs, &cv, &xv);
        cuzk_fr_mul(&zv, &lhs, &yv);
        cuzk_var z = cuzk_cs_alloc(cs, "z", &zv);
        cuzk_lc_clear(&la), cuzk_lc_add_var(&la, cur), cuzk_lc_add_var(&la, x);
        cuzk_lc_clear(&lb), cuzk_lc_add_var(&lb, y);
        cuzk_lc_clear(&lc), cuzk_lc_add_var(&lc, z);
        cuzk_cs_enforce(cs, "mul", &la, &lb, &lc);
        cur = z, cv = zv; /* the shape must not depend on the witness */
    }
    for (int k = 0; k < n_bool; k++) cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
    cuzk_num res = {cur, cv};
    cuzk_num_inputize(cs, &res);
    cuzk_lc_free(&la), cuzk_lc_free(&lb), cuzk_lc_free(&lc);
    if (cuzk_cs_finalize(cs) != CUZK_OK) {
        cuzk_cs_free(cs);
        return NULL;
    }
    return cs;
}

static int verify(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *pf, const cuzk_proving_cs *pc)
{
    uint8_t buf[CUZK_GROTH16_PROOF_BYTES];
    cuzk_groth16_proof dec;
    cuzk_groth16_proof_encode(buf, pf);
    int rc = cuzk_groth16_proof_decode(&dec, buf, NULL);
    if (!rc) rc = cuzk_groth16_verify(pvk, &dec, pc->input.v + 1, pc->input.len - 1);
    return rc;
}

static bool proof_eq(const cuzk_groth16_proof *a, const cuzk_groth16_proof *b)
{
    uint8_t x[CUZK_GROTH16_PROOF_BYTES], y[CUZK_GROTH16_PROOF_BYTES];
    cuzk_groth16_proof_encode(x, a);
    cuzk_groth16_proof_encode(y, b);
    return memcmp(x, y, sizeof x) == 0;
}

/* a, b, c of as in the prover's NTT layout (one block, each padded with
 * zeros to the domain, as a PCE evaluation buffer gives them): *lay is as
 * pointing into it, *bytes its size; the caller frees the block */
static cuzk_fr *abc_layout(cuzk_groth16_assignment *lay, const cuzk_groth16_assignment *as, size_t *bytes)
{
    *lay = *as;
    const size_t m = as->num_constraints;
    size_t n = 1;
    while (n < m) n <<= 1;
    cuzk_fr *abc = calloc(3 * n, sizeof *abc);
    memcpy(abc, as->a, m * sizeof *abc);
    memcpy(abc + n, as->b, m * sizeof *abc);
    memcpy(abc + 2 * n, as->c, m * sizeof *abc);
    lay->abc = abc, lay->a = abc, lay->b = abc + n, lay->c = abc + 2 * n;
    *bytes = 3 * n * sizeof *abc;
    return abc;
}

/* One proof of as through the job with its queries by index (the device
 * gathers A's and B's scalars), under a key of its own, released after;
 * with pk, the aux from that packing (expanded on the device) */
static int prove_by_index_packed(cuzk_gpu_worker *w, cuzk_gpu_device *dev, cuzk_groth16_proof *out,
                                 const cuzk_groth16_params *p, const cuzk_groth16_assignment *as,
                                 const cuzk_fr *r, const cuzk_fr *s, const cuzk_fr_packed *pk)
{
    cuzk_groth16_job job;
    uint32_t *idx[3] = {NULL, NULL, NULL};
    int rc = cuzk_groth16_job_init(&job, p, as);
    if (!rc && !job_by_index(&job, idx)) rc = CUZK_ERR_NO_MEMORY;
    if (!rc && pk) job.aux = NULL, job.aux_packed = pk;
    if (!rc) {
        job.key = cuzk_handle_new(); /* the index lists go with the points */
        rc = cuzk_gpu_prove_job(w, out, &job, r, s, NULL);
        cuzk_gpu_device_release(dev, job.key);
    }
    for (int k = 0; k < 3; k++) free(idx[k]);
    return rc;
}
static int prove_by_index(cuzk_gpu_worker *w, cuzk_gpu_device *dev, cuzk_groth16_proof *out,
                          const cuzk_groth16_params *p, const cuzk_groth16_assignment *as, const cuzk_fr *r,
                          const cuzk_fr *s)
{
    return prove_by_index_packed(w, dev, out, p, as, r, s, NULL);
}

/* The cases after the first proofs, by name: CUZK_GPU_PROVE_CASES=a,b runs
 * those alone (a sanitizer's run split in shards that each end within a
 * call's time); unset, all of them. */
static bool want_case(const char *name)
{
    const char *list = getenv("CUZK_GPU_PROVE_CASES");
    if (!list || !*list) return true;
    const size_t n = strlen(name);
    for (const char *q = list; (q = strstr(q, name)); q += n)
        if ((q == list || q[-1] == ',') && (q[n] == 0 || q[n] == ',')) return true;
    return false;
}

#define NPART 20
typedef struct shared {
    cuzk_gpu_worker *w[2];
    const cuzk_gpu_set *set;
    cuzk_groth16_assignment as[NPART];
    cuzk_groth16_proof out[NPART];
    int rc[NPART];
    cuzk_fr r[NPART], s[NPART];
    pthread_mutex_t mu;
    int next, n; /* n: the partitions of a concurrency round */
} shared;
typedef struct warg {
    shared *sh;
    int id;
} warg;

static void *worker(void *arg)
{
    warg *a = arg;
    shared *sh = a->sh;
    for (;;) {
        pthread_mutex_lock(&sh->mu);
        int i = sh->next++;
        pthread_mutex_unlock(&sh->mu);
        if (i >= sh->n) break;
        sh->rc[i] = cuzk_gpu_prove(sh->w[a->id], &sh->out[i], sh->set, &sh->as[i], &sh->r[i], &sh->s[i], 1,
                                   NULL);
        if (sh->rc[i]) fprintf(stderr, "worker %d: %s\n", a->id, cuzk_gpu_worker_error(sh->w[a->id]));
    }
    return NULL;
}

int main(void)
{
    tu_init(&rng, "test_gpu_prove");
    gpu_hooks_from_env();
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) {
        return tu_skip("test_gpu_prove", "no CUDA device");
    }
    const char *re = getenv("CUZK_GPU_ROUNDS");
    int rounds = re ? atoi(re) : 3;
    const char *se = getenv("CUZK_GPU_PROVE_MUL");
    int n_mul = se ? atoi(se) : 3000;
    char msg[256];
    cuzk_gpu_device *dev;
    int rc = cuzk_gpu_device_open(&dev, 0, msg, sizeof msg);
    CHECK_MSG(rc == CUZK_OK, "open: %s", msg);
    if (rc) return tu_finish("test_gpu_prove");
    shared *sh = calloc(1, sizeof *sh);
    pthread_mutex_init(&sh->mu, NULL);
    for (int i = 0; i < 2; i++) CHECK(cuzk_gpu_worker_create(&sh->w[i], dev) == CUZK_OK);

    uint64_t base_seed = cuzk_rng_u64(&rng);
    cuzk_recording_cs *rcs = (cuzk_recording_cs *)build(CUZK_CS_RECORDING, base_seed, n_mul, 500);
    cuzk_groth16_params p;
    CHECK(rcs && cuzk_groth16_setup(&p, rcs, &rng, 2) == CUZK_OK);
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare_vk(&pvk, &p.vk) == CUZK_OK);
    const cuzk_gpu_set ks = {cuzk_handle_new(), &p, 0, NULL}; /* p's points on the device */
    sh->set = &ks;
    cuzk_proving_cs *pc[NPART];
    for (int i = 0; i < NPART; i++) {
        pc[i] = (cuzk_proving_cs *)build(CUZK_CS_PROVING, base_seed + 1 + i, n_mul, 500);
        CHECK(pc[i] && cuzk_groth16_assignment_from_cs(&sh->as[i], pc[i]) == CUZK_OK);
    }
    printf("circuit: %zu constraints, %zu aux; device %s\n", rcs->base.num_constraints,
           rcs->base.num_aux, cuzk_gpu_device_describe(dev));

    /* CPU and GPU agree byte for byte; several circuits per call */
    for (int i = 0; i < 3; i++) cuzk_fr_random(&sh->r[i], &rng), cuzk_fr_random(&sh->s[i], &rng);
    cuzk_groth16_proof gp[3], cp;
    cuzk_groth16_prove_timing tm;
    rc = cuzk_gpu_prove(sh->w[0], gp, &ks, sh->as, sh->r, sh->s, 3, &tm);
    CHECK_MSG(rc == CUZK_OK, "gpu prove %d: %s", rc, cuzk_gpu_worker_error(sh->w[0]));
    for (int i = 0; i < 3; i++) {
        CHECK(cuzk_groth16_prove_assignment(&cp, &p, &sh->as[i], &sh->r[i], &sh->s[i], 2, NULL) == CUZK_OK);
        CHECK_MSG(proof_eq(&cp, &gp[i]), "GPU proof %d differs from the CPU proof", i);
        CHECK_MSG(verify(&pvk, &gp[i], pc[i]) == CUZK_OK, "GPU proof %d does not verify", i);
    }
    printf("gpu prove: H %.4fs, msm h %.4fs l %.4fs a %.4fs b_g1 %.4fs b_g2 %.4fs, total %.4fs\n",
           tm.ntt_h_s, tm.msm_h_s, tm.msm_l_s, tm.msm_a_s, tm.msm_b_g1_s, tm.msm_b_g2_s, tm.total_s);
    /* a proof for partition 0 does not verify against partition 1's inputs */
    CHECK(verify(&pvk, &gp[0], pc[1]) != CUZK_OK);
    /* the other worker, the same proof (and buffers of its own, which the
     * cases below measure, whichever of them run) */
    rc = cuzk_gpu_prove(sh->w[1], &cp, &ks, &sh->as[2], &sh->r[2], &sh->s[2], 1, NULL);
    CHECK_MSG(rc == CUZK_OK && proof_eq(&cp, &gp[2]), "worker 1: %d %s", rc, cuzk_gpu_worker_error(sh->w[1]));
    /* the aux packed by value class: unpacked on the host for the job whose
     * scalars the host gathers, expanded on the device for the job by index;
     * the same proofs */
    if (want_case("packed")) {
        cuzk_fr_packed pk;
        CHECK(cuzk_fr_pack(&pk, sh->as[1].aux, sh->as[1].num_aux, false) == CUZK_OK);
        CHECK(pk.n_gen < pk.n); /* the circuit's booleans */
        cuzk_groth16_job pj;
        cuzk_groth16_proof pp;
        CHECK(cuzk_groth16_job_init(&pj, &p, &sh->as[1]) == CUZK_OK);
        pj.aux = NULL, pj.aux_packed = &pk;
        pj.key = cuzk_handle_new(); /* a job's copy of p of its own, as prove_by_index_packed's */
        rc = cuzk_gpu_prove_job(sh->w[0], &pp, &pj, &sh->r[1], &sh->s[1], NULL);
        cuzk_gpu_device_release(dev, pj.key);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&pp, &gp[1]), "packed aux, host gather: %d %s", rc,
                  cuzk_gpu_worker_error(sh->w[0]));
        rc = prove_by_index_packed(sh->w[0], dev, &pp, &p, &sh->as[1], &sh->r[1], &sh->s[1], &pk);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&pp, &gp[1]), "packed aux, device gather: %d %s", rc,
                  cuzk_gpu_worker_error(sh->w[0]));
        cuzk_fr_packed_free(&pk);
    }
    /* the device's copy stands in for the host's points (an engine frees
     * them after a preload): with the arrays NULL the same proof; a set the
     * device does not hold, or other arrays under the copy's key, refused */
    if (want_case("released")) {
        cuzk_groth16_params q = p;
        const cuzk_gpu_set kq = {cuzk_handle_new(), &q, 0, NULL}; /* another key: nothing resident under it */
        CHECK(cuzk_gpu_device_params_host_released(dev, kq.key) == CUZK_ERR_NOT_READY);
        CHECK(cuzk_gpu_device_params_host_released(dev, ks.key) == CUZK_OK);
        cuzk_g1_affine *h = p.h, *l = p.l, *a = p.a, *b1 = p.b_g1;
        cuzk_g2_affine *b2 = p.b_g2;
        p.h = NULL, p.l = NULL, p.a = NULL, p.b_g1 = NULL, p.b_g2 = NULL;
        cuzk_groth16_proof bp;
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&bp, &gp[0]), "released: %d %s", rc, cuzk_gpu_worker_error(sh->w[1]));
        CHECK_MSG(cuzk_gpu_device_preload(dev, &ks, msg, sizeof msg) == CUZK_OK, "preload released: %s", msg);
        q.h = NULL, q.l = NULL, q.a = NULL, q.b_g1 = NULL, q.b_g2 = NULL;
        rc = cuzk_gpu_prove(sh->w[1], &bp, &kq, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        CHECK_MSG(rc == CUZK_ERR_INVALID_ARG && strstr(cuzk_gpu_worker_error(sh->w[1]), "released"),
                  "not resident: %d %s", rc, cuzk_gpu_worker_error(sh->w[1]));
        cuzk_g1_affine *other = malloc(p.n_h * sizeof *other);
        memcpy(other, h, p.n_h * sizeof *other);
        p.h = other; /* not what was uploaded */
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        CHECK_MSG(rc == CUZK_ERR_INVALID_ARG, "other arrays under the key: %d", rc);
        free(other);
        p.h = h, p.l = l, p.a = a, p.b_g1 = b1, p.b_g2 = b2; /* those uploaded: accepted again */
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &sh->as[1], &sh->r[1], &sh->s[1], 1, NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&bp, &gp[1]), "restored: %d %s", rc, cuzk_gpu_worker_error(sh->w[1]));
        /* as the engine releases: the arrays kept, their pages given back
         * (zeros from then on), the same proof from the device's copy */
        cuzk_groth16_params z = p;
        z.h = malloc(p.n_h * sizeof *z.h), z.l = malloc(p.n_l * sizeof *z.l), z.a = malloc(p.n_a * sizeof *z.a);
        z.b_g1 = malloc(p.n_b_g1 * sizeof *z.b_g1), z.b_g2 = malloc(p.n_b_g2 * sizeof *z.b_g2);
        memcpy(z.h, h, p.n_h * sizeof *z.h), memcpy(z.l, l, p.n_l * sizeof *z.l), memcpy(z.a, a, p.n_a * sizeof *z.a);
        memcpy(z.b_g1, b1, p.n_b_g1 * sizeof *z.b_g1), memcpy(z.b_g2, b2, p.n_b_g2 * sizeof *z.b_g2);
        const cuzk_gpu_set kz = {cuzk_handle_new(), &z, 0, NULL};
        CHECK_MSG(cuzk_gpu_device_preload(dev, &kz, msg, sizeof msg) == CUZK_OK, "preload z: %s", msg);
        CHECK(cuzk_gpu_device_params_host_released(dev, kz.key) == CUZK_OK);
        const size_t gone = cuzk_mem_discard(z.h, p.n_h * sizeof *z.h) + cuzk_mem_discard(z.l, p.n_l * sizeof *z.l);
        CHECK_MSG(gone > 0, "nothing discarded of %zu bytes of h", p.n_h * sizeof *z.h);
        rc = cuzk_gpu_prove(sh->w[0], &bp, &kz, &sh->as[2], &sh->r[2], &sh->s[2], 1, NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&bp, &gp[2]), "discarded: %d %s", rc, cuzk_gpu_worker_error(sh->w[0]));
        cuzk_gpu_device_release(dev, kz.key);
        free(z.h), free(z.l), free(z.a), free(z.b_g1), free(z.b_g2);
    }
    /* a tampered witness (one aux value) gives a proof that fails */
    if (want_case("tampered")) {
        cuzk_groth16_assignment bad = sh->as[0];
        cuzk_fr *aux = malloc(bad.num_aux * sizeof *aux);
        memcpy(aux, bad.aux, bad.num_aux * sizeof *aux);
        cuzk_fr_add(&aux[bad.num_aux / 2], &aux[bad.num_aux / 2], &cuzk_fr_one);
        bad.aux = aux;
        cuzk_groth16_proof bp;
        CHECK(cuzk_gpu_prove(sh->w[1], &bp, &ks, &bad, &sh->r[0], &sh->s[0], 1, NULL) == CUZK_OK);
        CHECK(verify(&pvk, &bp, pc[0]) != CUZK_OK);
        free(aux);
    }
    /* a, b, c handed over in the prover's NTT layout (as a PCE evaluation
     * buffer gives them, here page-locked when engine pinning exists): one
     * upload, the same proof, host block untouched */
    if (want_case("layout")) {
        cuzk_groth16_assignment lay;
        size_t nb;
        cuzk_fr *abc = abc_layout(&lay, &sh->as[0], &nb);
        cuzk_fr *copy = malloc(nb);
        memcpy(copy, abc, nb);
        cuzk_groth16_proof bp;
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &lay, &sh->r[0], &sh->s[0], 1, NULL);
        CHECK_MSG(rc == CUZK_OK, "abc layout: %s", cuzk_gpu_worker_error(sh->w[1]));
        CHECK_MSG(proof_eq(&bp, &gp[0]), "abc layout: GPU proof differs");
        CHECK(memcmp(copy, abc, nb) == 0);
        lay.b = abc + 1; /* not the layout: refused */
        CHECK(cuzk_gpu_prove(sh->w[1], &bp, &ks, &lay, &sh->r[0], &sh->s[0], 1, NULL) == CUZK_ERR_INVALID_ARG);
        free(abc), free(copy);
    }
    /* uploads from pageable memory through the worker's pinned staging
     * (slots of 1 KiB here: a witness goes through both slots many times,
     * three partitions in one call back to back; the a, b, c layout and the
     * device-gathered job too), and with staging off (the driver's copies):
     * the same proofs */
    for (int off = 0; off < 2 && want_case("staged"); off++) {
        cuzk_gpu_test_hooks keep;
        cuzk_gpu_test_hooks_get(&keep);
        GPU_HOOK_SET(stage_kib, 1);
        if (off) GPU_HOOK_SET(stage_threads, 0);
        cuzk_gpu_worker *sw = NULL;
        rc = cuzk_gpu_worker_create(&sw, dev);
        cuzk_gpu_test_hooks_set(&keep);
        CHECK(rc == CUZK_OK);
        if (rc) break;
        cuzk_groth16_proof sp[3];
        rc = cuzk_gpu_prove(sw, sp, &ks, sh->as, sh->r, sh->s, 3, NULL);
        CHECK_MSG(rc == CUZK_OK, "staged (%s): %s", off ? "off" : "1 KiB", cuzk_gpu_worker_error(sw));
        for (int i = 0; i < 3 && !rc; i++)
            CHECK_MSG(proof_eq(&sp[i], &gp[i]), "staged (%s): proof %d differs", off ? "off" : "1 KiB", i);
        cuzk_groth16_assignment lay;
        size_t nb;
        cuzk_fr *abc = abc_layout(&lay, &sh->as[1], &nb);
        rc = cuzk_gpu_prove(sw, sp, &ks, &lay, &sh->r[1], &sh->s[1], 1, NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&sp[0], &gp[1]), "staged a, b, c (%s): %d %s", off ? "off" : "1 KiB", rc,
                  cuzk_gpu_worker_error(sw));
        free(abc);
        rc = prove_by_index(sw, dev, sp, &p, &sh->as[2], &sh->r[2], &sh->s[2]);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&sp[0], &gp[2]), "staged job by index (%s): %d %s", off ? "off" : "1 KiB",
                  rc, cuzk_gpu_worker_error(sw));
        cuzk_gpu_worker_destroy(sw);
    }
    /* points streamed from the host, as for a set too large for the card
     * (forced here for every array, in chunks of a sixth of the aux: each
     * array takes several chunks and a short last one, without the
     * hundreds of MSM launches that racecheck would crawl through): the
     * same proofs, the device-gathered job too; the host copy cannot be
     * released while the device streams from it. And at a preload where
     * one worker's MSM scratch never fits (injected), the arrays are
     * streamed one by one and then the preload says that nothing more can
     * be streamed. */
    if (want_case("streamed")) {
        cuzk_gpu_worker *tw = NULL; /* its own: the other workers' buffers are measured below */
        CHECK(cuzk_gpu_worker_create(&tw, dev) == CUZK_OK);
        GPU_HOOK_SET_STR(stream, "h,l,a,b_g1,b_g2");
        GPU_HOOK_SET(stream_chunk, rcs->base.num_aux / 6 + 1);
        const cuzk_gpu_set kps = {cuzk_handle_new(), &p, 0, NULL}; /* another key: a set of its own on the device */
        cuzk_groth16_proof sp[3];
        rc = cuzk_gpu_prove(tw, sp, &kps, sh->as, sh->r, sh->s, 3, NULL);
        CHECK_MSG(rc == CUZK_OK, "streamed: %s", cuzk_gpu_worker_error(tw));
        for (int i = 0; i < 3 && !rc; i++) CHECK_MSG(proof_eq(&sp[i], &gp[i]), "streamed: proof %d differs", i);
        CHECK(cuzk_gpu_device_params_host_released(dev, kps.key) == CUZK_ERR_NOT_READY);
        rc = prove_by_index(tw, dev, sp, &p, &sh->as[1], &sh->r[1], &sh->s[1]);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&sp[0], &gp[1]), "streamed job by index: %d %s", rc,
                  cuzk_gpu_worker_error(tw));
        GPU_HOOK_SET_STR(stream, "");
        cuzk_gpu_device_release(dev, kps.key);

        const cuzk_gpu_set kpf = {cuzk_handle_new(), &p, 0, NULL};
        uint64_t budget, used; /* a budget a byte over what is held: no plan fits */
        CHECK(cuzk_gpu_device_budget(dev, &budget, &used) == CUZK_OK);
        CHECK(cuzk_gpu_device_set_memory_limit(dev, used + 1) == CUZK_OK);
        rc = cuzk_gpu_device_preload(dev, &kpf, msg, sizeof msg);
        CHECK(cuzk_gpu_device_set_memory_limit(dev, 0) == CUZK_OK);
        CHECK_MSG(rc == CUZK_ERR_NO_MEMORY && strstr(msg, "every point streamed") && strstr(msg, "needs at least"),
                  "preload, never fits: %d %s", rc, msg);
        GPU_HOOK_SET_STR(stream, "h,l,a,b_g1,b_g2"); /* the set a job uploads: every array streamed */
        rc = cuzk_gpu_prove(tw, sp, &kpf, &sh->as[2], &sh->r[2], &sh->s[2], 1, NULL); /* every array streamed */
        CHECK_MSG(rc == CUZK_OK && proof_eq(&sp[0], &gp[2]), "after the preload: %d %s", rc,
                  cuzk_gpu_worker_error(tw));
        CHECK(cuzk_gpu_device_params_host_released(dev, kpf.key) == CUZK_ERR_NOT_READY);
        GPU_HOOK_SET_STR(stream, "");
        GPU_HOOK_SET(stream_chunk, 0);
        cuzk_gpu_device_release(dev, kpf.key);
        cuzk_gpu_worker_destroy(tw);
    }
    /* the job with its queries by index (gathered on the device, B2 from its
     * own list): the proof of the density path; under a key of its own, as
     * the index lists go with the points */
    if (want_case("index")) {
        cuzk_groth16_job job;
        uint32_t *idx[3] = {NULL, NULL, NULL};
        CHECK(cuzk_groth16_job_init(&job, &p, &sh->as[0]) == CUZK_OK && job_by_index(&job, idx));
        job.key = cuzk_handle_new();
        cuzk_groth16_proof bp;
        /* gathered on the device, A's and B's scalars take the two of a, b, c
         * that H leaves dead: the worker's arrays for them (from the host
         * gathers above) go, and its witness grows by the inputs only */
        const uint64_t held0 = cuzk_gpu_worker_held_bytes(sh->w[1]);
        rc = cuzk_gpu_prove_job(sh->w[1], &bp, &job, &sh->r[0], &sh->s[0], NULL);
        CHECK_MSG(rc == CUZK_OK, "job by index: %s", cuzk_gpu_worker_error(sh->w[1]));
        CHECK_MSG(proof_eq(&bp, &gp[0]), "job by index: GPU proof differs");
        const uint64_t held1 = cuzk_gpu_worker_held_bytes(sh->w[1]);
        /* (B2's own list, job_by_index's copy, not shared: it goes to tmp) */
        CHECK_MSG(held1 + (job.q_a.n + job.q_b_g1.n) * sizeof(cuzk_fr) <=
                      held0 + (job.num_inputs + job.q_b_g2.n) * sizeof(cuzk_fr),
                  "job by index: the worker holds %llu bytes, %llu before", (unsigned long long)held1,
                  (unsigned long long)held0);
        /* again on the same buffers (the MSMs left their plain scalars over them) */
        rc = cuzk_gpu_prove_job(sh->w[1], &bp, &job, &sh->r[1], &sh->s[1], NULL);
        CHECK_MSG(rc == CUZK_OK, "job by index, again: %s", cuzk_gpu_worker_error(sh->w[1]));
        cuzk_groth16_proof cpb;
        CHECK(cuzk_groth16_prove_assignment(&cpb, &p, &sh->as[0], &sh->r[1], &sh->s[1], 2, NULL) == CUZK_OK);
        CHECK_MSG(proof_eq(&bp, &cpb), "job by index, again: GPU proof differs from the CPU's");
        cuzk_gpu_device_release(dev, job.key);
        for (int k = 0; k < 3; k++) free(idx[k]);
    }
    /* out of device memory (injected at the witness's reservation): the call
     * fails with CUZK_ERR_NO_MEMORY, says so, and the worker lets go of its
     * buffers; the device is not failed and the next call proves the same */
    if (want_case("oom")) {
        cuzk_groth16_proof bp;
        const uint64_t held = cuzk_gpu_worker_held_bytes(sh->w[1]);
        CHECK_MSG(held > 0, "worker 1 holds no buffers after its proofs");
        GPU_HOOK_SET_STR(fail_alloc, "witness");
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        GPU_HOOK_SET_STR(fail_alloc, "");
        const char *em = cuzk_gpu_worker_error(sh->w[1]);
        CHECK_MSG(rc == CUZK_ERR_NO_MEMORY, "injected out of memory: rc %d (%s)", rc, em);
        CHECK_MSG(strstr(em, "witness") && strstr(em, "buffers released"), "the message: %s", em);
        CHECK_MSG(cuzk_gpu_worker_held_bytes(sh->w[1]) == 0, "worker 1 still holds %llu of %llu bytes",
                  (unsigned long long)cuzk_gpu_worker_held_bytes(sh->w[1]), (unsigned long long)held);
        CHECK(cuzk_gpu_worker_held_bytes(sh->w[0]) > 0); /* the other worker keeps its own */
        uint64_t tot = 0, fr = 0;
        CHECK(cuzk_gpu_device_memory(dev, &tot, &fr) == CUZK_OK); /* not marked failed */
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&bp, &gp[0]), "after the out of memory: rc %d (%s)", rc,
                  cuzk_gpu_worker_error(sh->w[1]));
        printf("out of device memory: the worker let go of %llu bytes, then proved again\n",
               (unsigned long long)held);
        /* inside the kernel region (the MSM's segments): the same, the device
         * lock released (the other worker proves), the device not failed */
        GPU_HOOK_SET_STR(fail_alloc, "msm segments");
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        GPU_HOOK_SET_STR(fail_alloc, "");
        CHECK_MSG(rc == CUZK_ERR_NO_MEMORY && cuzk_gpu_worker_held_bytes(sh->w[1]) == 0, "in the region: rc %d (%s)",
                  rc, cuzk_gpu_worker_error(sh->w[1]));
        rc = cuzk_gpu_prove(sh->w[0], &bp, &ks, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&bp, &gp[0]), "the other worker after it: rc %d (%s)", rc,
                  cuzk_gpu_worker_error(sh->w[0]));
        rc = cuzk_gpu_prove(sh->w[1], &bp, &ks, &sh->as[0], &sh->r[0], &sh->s[0], 1, NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&bp, &gp[0]), "worker 1 again: rc %d (%s)", rc,
                  cuzk_gpu_worker_error(sh->w[1]));
    }
    /* a size mismatch is refused with a message */
    {
        cuzk_groth16_assignment bad = sh->as[0];
        bad.num_aux--;
        cuzk_groth16_proof bp;
        CHECK(cuzk_gpu_prove(sh->w[1], &bp, &ks, &bad, &sh->r[0], &sh->s[0], 1, NULL) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_gpu_worker_error(sh->w[1])[0] != 0);
    }

    /* concurrency: 2 workers, 20 partitions, every partition valid */
    unsigned bad_total = 0;
    const char *ne = getenv("CUZK_GPU_PROVE_PARTS");
    sh->n = ne && atoi(ne) >= 2 && atoi(ne) <= NPART ? atoi(ne) : NPART;
    if (!want_case("concurrency")) rounds = 0;
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < sh->n; i++) {
            cuzk_fr_random(&sh->r[i], &rng), cuzk_fr_random(&sh->s[i], &rng);
            memset(&sh->out[i], 0xa5, sizeof sh->out[i]);
            sh->rc[i] = -1;
        }
        sh->next = 0;
        pthread_t th[2];
        warg wa[2] = {{sh, 0}, {sh, 1}};
        for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, worker, &wa[t]);
        for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
        unsigned bad = 0;
        for (int i = 0; i < sh->n; i++) {
            bool ok = sh->rc[i] == CUZK_OK && verify(&pvk, &sh->out[i], pc[i]) == CUZK_OK;
            /* the first round is also checked against the CPU prover */
            if (ok && round == 0) {
                cuzk_groth16_prove_assignment(&cp, &p, &sh->as[i], &sh->r[i], &sh->s[i], 2, NULL);
                ok = proof_eq(&cp, &sh->out[i]);
            }
            if (!ok) bad++;
        }
        CHECK_MSG(bad == 0, "round %d: %u of %d partitions invalid", round, bad, sh->n);
        bad_total += bad;
    }
    printf("concurrency: %d rounds x %d partitions on 2 workers, %u invalid\n", rounds, sh->n, bad_total);

    for (int i = 0; i < NPART; i++) cuzk_cs_free((cuzk_cs *)pc[i]);
    cuzk_cs_free((cuzk_cs *)rcs);
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_params_free(&p);
    for (int i = 0; i < 2; i++) cuzk_gpu_worker_destroy(sh->w[i]);
    cuzk_gpu_device_close(dev);
    free(sh);
    return tu_finish("test_gpu_prove");
}
