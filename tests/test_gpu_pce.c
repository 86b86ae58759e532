/* GPU proofs from a pre-compiled circuit with a, b, c left to the prover
 * (cuzk_groth16_assignment_deferred): the device evaluates A·w, B·w, C·w
 * from the PCE's resident matrices and gathers the A/B scalars itself.
 * For random circuits with every coefficient class (±1, ±small up to the
 * 2^29 boundary, general, zero terms, long rows, a SHA-256 block), u32 and
 * u64 row pointers, a PCE built in memory and one mmap'ed from a file:
 * the GPU proof is byte-identical to the CPU prover's on the
 * ProvingAssignment of the same circuit (the independent oracle for a, b,
 * c), verifies, a tampered witness value gives a rejected proof; the device
 * copy is released and re-uploaded with the same result; two workers prove
 * partitions concurrently from one resident PCE; a PCE of another circuit
 * is refused; the device-memory plan's every path at the smallest budget
 * of each plan, byte for byte against the whole card (budgets, below).
 * Without a CUDA device: "SKIPPED: no CUDA device" (CTest: Skipped). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fr_packed.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/groth16/groth16_pce.h"
#include "cuzk/pce/pce.h"
#include "cuzk/util/handle.h"
#include "gpu_hooks_env.h"
#include "test_pce_circuit.h"
#include "testutil.h"

static cuzk_rng rng;

static bool proof_eq(const cuzk_groth16_proof *a, const cuzk_groth16_proof *b)
{
    uint8_t x[CUZK_GROTH16_PROOF_BYTES], y[CUZK_GROTH16_PROOF_BYTES];
    cuzk_groth16_proof_encode(x, a);
    cuzk_groth16_proof_encode(y, b);
    return memcmp(x, y, sizeof x) == 0;
}

static int verify(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *pf, const cuzk_witness_cs *w)
{
    return cuzk_groth16_verify(pvk, pf, w->input.v + 1, w->input.len - 1);
}

#define NPART 6
typedef struct conc {
    cuzk_gpu_worker *w[2];
    const cuzk_gpu_set *set;
    cuzk_groth16_assignment as[NPART];
    cuzk_groth16_proof out[NPART];
    cuzk_fr r[NPART], s[NPART];
    int rc[NPART];
    pthread_mutex_t mu;
    int next;
} conc;
typedef struct carg {
    conc *c;
    int id;
} carg;

static void *conc_worker(void *arg)
{
    carg *a = arg;
    conc *c = a->c;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        int i = c->next++;
        pthread_mutex_unlock(&c->mu);
        if (i >= NPART) break;
        c->rc[i] = cuzk_gpu_prove(c->w[a->id], &c->out[i], c->set, &c->as[i], &c->r[i], &c->s[i], 1, NULL);
    }
    return NULL;
}

/* One circuit shape (cfg), PCE from `variant` (bit 0: u64 row pointers,
 * bit 1: saved and mmap'ed back). */
static void one_circuit(cuzk_gpu_worker *w[2], cuzk_gpu_device *dev, pc_cfg cfg, int variant, const char *dir)
{
    cuzk_recording_cs *r = (cuzk_recording_cs *)pc_build(CUZK_CS_RECORDING, &cfg);
    cuzk_proving_cs *p = (cuzk_proving_cs *)pc_build(CUZK_CS_PROVING, &cfg);
    cuzk_witness_cs *wit[NPART];
    cuzk_proving_cs *pp[NPART];
    CHECK(r && p);
    if (!r || !p) return;
    cuzk_groth16_params params;
    CHECK(cuzk_groth16_setup(&params, r, &rng, 2) == CUZK_OK);
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare_vk(&pvk, &params.vk) == CUZK_OK);
    cuzk_pce *pce = NULL, *built = NULL;
    cuzk_pce_error e;
    int rc = cuzk_pce_from_recording(&built, r, "gpu-pce", NULL, (variant & 1) ? CUZK_PCE_WIDE_ROWPTR : 0, 2, &e);
    CHECK_MSG(rc == CUZK_OK, "extraction: %s", rc ? e.msg : "");
    if (rc) return;
    pce = built;
    char path[512];
    snprintf(path, sizeof path, "%s/v%d.pce", dir, variant);
    if (variant & 2) {
        CHECK(cuzk_pce_save(built, path, &e) == CUZK_OK);
        cuzk_pce_expect ex = {.circuit_id = "gpu-pce"};
        rc = cuzk_pce_load_file(&pce, path, &ex, 0, 2, &e);
        CHECK_MSG(rc == CUZK_OK && pce->mapped, "load: %s", rc ? e.msg : "");
        if (rc) pce = built;
    }
    printf("circuit seed %#llx: %zu constraints, %zu aux, nnz %llu/%llu/%llu, %s row pointers%s\n",
           (unsigned long long)cfg.seed, r->base.num_constraints, r->base.num_aux,
           (unsigned long long)pce->m[0].nnz, (unsigned long long)pce->m[1].nnz, (unsigned long long)pce->m[2].nnz,
           pce->m[0].row_ptr64 ? "u64" : "u32", pce->mapped ? ", mmap'ed" : "");

    /* NPART partitions of one circuit (its shape and values both come from
     * the seed: the same witness each time, each proof with its own r, s) */
    conc *c = calloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    /* the set's and the PCE's handles, as the engine gives them */
    const cuzk_gpu_set ks = {cuzk_handle_new(), &params, cuzk_handle_new(), pce};
    c->w[0] = w[0], c->w[1] = w[1], c->set = &ks;
    for (int i = 0; i < NPART; i++) {
        wit[i] = (cuzk_witness_cs *)pc_build(CUZK_CS_WITNESS, &cfg);
        pp[i] = (cuzk_proving_cs *)pc_build(CUZK_CS_PROVING, &cfg);
        CHECK(wit[i] && pp[i] && cuzk_groth16_assignment_deferred(&c->as[i], pce, wit[i]) == CUZK_OK);
        cuzk_fr_random(&c->r[i], &rng), cuzk_fr_random(&c->s[i], &rng);
    }

    /* GPU from the PCE against the CPU from the ProvingAssignment */
    cuzk_groth16_assignment pa;
    CHECK(cuzk_groth16_assignment_from_cs(&pa, p) == CUZK_OK);
    cuzk_groth16_proof gp, cp;
    cuzk_groth16_prove_timing tm;
    rc = cuzk_gpu_prove(w[0], &gp, &ks, &c->as[0], &c->r[0], &c->s[0], 1, &tm);
    CHECK_MSG(rc == CUZK_OK, "gpu prove (PCE) %d: %s", rc, cuzk_gpu_worker_error(w[0]));
    CHECK(cuzk_groth16_prove_assignment(&cp, &params, &pa, &c->r[0], &c->s[0], 2, NULL) == CUZK_OK);
    CHECK_MSG(proof_eq(&gp, &cp), "GPU proof from the PCE differs from the CPU proof");
    CHECK_MSG(verify(&pvk, &gp, wit[0]) == CUZK_OK, "GPU proof from the PCE does not verify");
    CHECK(tm.eval_s > 0 && tm.upload_s > 0);
    /* the CPU prover takes the same deferred assignment (the CPU fallback) */
    cuzk_groth16_proof cd;
    CHECK(cuzk_groth16_prove_assignment(&cd, &params, &c->as[0], &c->r[0], &c->s[0], 2, NULL) == CUZK_OK);
    CHECK_MSG(proof_eq(&cd, &cp), "CPU proof from the deferred assignment differs");

    /* the aux packed by value class, expanded on the device: the same proof;
     * a general value of the packing changed: a proof that does not verify */
    {
        cuzk_groth16_job pj;
        cuzk_fr_packed pk;
        CHECK(cuzk_groth16_job_init(&pj, &params, &c->as[0]) == CUZK_OK);
        pj.key = ks.key, pj.pce_key = ks.pce_key;
        CHECK(cuzk_fr_pack(&pk, pj.aux, pj.num_aux, pj.plain) == CUZK_OK);
        pj.aux = NULL, pj.aux_packed = &pk;
        cuzk_groth16_proof pg;
        rc = cuzk_gpu_prove_job(w[0], &pg, &pj, &c->r[0], &c->s[0], NULL);
        CHECK_MSG(rc == CUZK_OK && proof_eq(&pg, &cp), "packed aux: %d %s", rc, cuzk_gpu_worker_error(w[0]));
        printf("aux packed: %zu of %zu values general, %zu bytes instead of %zu\n", pk.n_gen, pk.n,
               cuzk_fr_packed_bytes(&pk), pk.n * sizeof(cuzk_fr));
        CHECK(pk.n_gen > 0);
        if (pk.n_gen) {
            cuzk_fr_add(&pk.gen[0], &pk.gen[0], &cuzk_fr_one); /* x_0 of x_0·x_0 = s_0 */
            CHECK(cuzk_gpu_prove_job(w[0], &pg, &pj, &c->r[0], &c->s[0], NULL) == CUZK_OK);
            CHECK_MSG(verify(&pvk, &pg, wit[0]) != CUZK_OK, "tampered packed value: proof accepted");
        }
        cuzk_fr_packed_free(&pk);
    }

    /* a tampered witness value: the proof does not verify */
    {
        cuzk_groth16_assignment bad = c->as[0];
        cuzk_fr *aux = malloc(bad.num_aux * sizeof *aux);
        memcpy(aux, bad.aux, bad.num_aux * sizeof *aux);
        /* one of the first aux values: the x_i and s_i of x_i·x_i = s_i
         * (test_pce_circuit.h), so the witness no longer satisfies */
        size_t k = (size_t)(cuzk_rng_u64(&rng) % 8);
        cuzk_fr_add(&aux[k], &aux[k], &cuzk_fr_one);
        bad.aux = aux;
        cuzk_groth16_proof bp;
        CHECK(cuzk_gpu_prove(w[1], &bp, &ks, &bad, &c->r[0], &c->s[0], 1, NULL) == CUZK_OK);
        CHECK_MSG(verify(&pvk, &bp, wit[0]) != CUZK_OK, "tampered aux %zu: proof accepted", k);
        free(aux);
    }
    /* released and uploaded again: the same proof */
    cuzk_gpu_device_release(dev, ks.pce_key);
    {
        cuzk_groth16_proof again;
        CHECK(cuzk_gpu_prove(w[1], &again, &ks, &c->as[0], &c->r[0], &c->s[0], 1, NULL) == CUZK_OK);
        CHECK_MSG(proof_eq(&again, &cp), "after release: GPU proof differs");
    }
    /* inconsistent assignments are refused */
    {
        cuzk_groth16_assignment bad = c->as[0];
        cuzk_groth16_proof bp;
        bad.a = bad.input; /* a given as well as pce */
        CHECK(cuzk_gpu_prove(w[0], &bp, &ks, &bad, &c->r[0], &c->s[0], 1, NULL) == CUZK_ERR_INVALID_ARG);
        bad = c->as[0];
        bad.a_aux = &p->a_aux; /* density not the PCE's */
        CHECK(cuzk_gpu_prove(w[0], &bp, &ks, &bad, &c->r[0], &c->s[0], 1, NULL) == CUZK_ERR_INVALID_ARG);
        CHECK(cuzk_groth16_prove_assignment(&bp, &params, &bad, &c->r[0], &c->s[0], 1, NULL) == CUZK_ERR_INVALID_ARG);
    }

    /* two workers, NPART partitions, one resident PCE */
    pthread_t th[2];
    carg ca[2] = {{c, 0}, {c, 1}};
    for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, conc_worker, &ca[t]);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    unsigned bad = 0;
    for (int i = 0; i < NPART; i++) {
        cuzk_groth16_assignment ai;
        bool ok = c->rc[i] == CUZK_OK && verify(&pvk, &c->out[i], wit[i]) == CUZK_OK;
        ok = ok && cuzk_groth16_assignment_from_cs(&ai, pp[i]) == CUZK_OK &&
             cuzk_groth16_prove_assignment(&cp, &params, &ai, &c->r[i], &c->s[i], 2, NULL) == CUZK_OK &&
             proof_eq(&cp, &c->out[i]);
        bad += !ok;
    }
    CHECK_MSG(bad == 0, "concurrent: %u of %d partitions wrong", bad, NPART);
    printf("  gpu: upload %.4fs eval %.4fs H %.4fs msm %.4fs total %.4fs; concurrent %d partitions, %u wrong\n",
           tm.upload_s, tm.eval_s, tm.ntt_h_s, tm.msm_s, tm.total_s, NPART, bad);

    cuzk_gpu_device_release(dev, ks.pce_key);
    cuzk_gpu_device_release(dev, ks.key);
    for (int i = 0; i < NPART; i++) cuzk_cs_free(&wit[i]->base), cuzk_cs_free(&pp[i]->base);
    free(c);
    if (pce != built) cuzk_pce_free(pce);
    cuzk_pce_free(built);
    unlink(path);
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_params_free(&params);
    cuzk_cs_free(&r->base), cuzk_cs_free(&p->base);
}

/* Whether every array of plan at or above resident-prefix r is streamed */
static unsigned plan_resident(const cuzk_gpu_plan *p, const cuzk_gpu_plan_need *nd)
{
    unsigned r = 0;
    while (r < CUZK_GPU_PLAN_ARRAYS && (!nd->points[r] || !p->streamed[r])) r++;
    return r;
}

/* The smallest budget whose plan keeps at least r arrays resident, and
 * the PCE's matrices too when pce_resident (the plan only keeps more as the
 * budget grows: a bisection finds it). */
static uint64_t budget_for(const cuzk_gpu_plan_need *nd, unsigned r, bool pce_resident)
{
    uint64_t lo = 0, hi = (uint64_t)1 << 50;
    while (lo + 1 < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        cuzk_gpu_plan p;
        cuzk_gpu_plan_make(&p, nd, mid);
        if (p.fits && plan_resident(&p, nd) >= r && (!pce_resident || !p.pce_streamed)) hi = mid;
        else lo = mid;
    }
    return hi;
}

/*
 * The device-memory plan on the card: a circuit of CUZK_GPU_PLAN_ROWS rows
 * (2,000 by default; 1,000,000 for a 2^20 domain on the device machine),
 * its parameters made on the GPU, proved from its PCE with the whole card,
 * then on a device object capped (cuzk_gpu_device_set_memory_limit) at the
 * smallest budget of each plan in turn: every array and the PCE's matrices
 * streamed with H over two vectors and compact twiddles, then the PCE
 * resident, then h resident, h and l, and so on to the whole set. Each
 * proof (streamed chunks of CUZK_GPU_STREAM_CHUNK points, many per MSM) is
 * byte-identical to the whole card's and verifies; the stream figures come
 * back in the timing; a budget a byte under the smallest plan refuses the
 * preload, saying what the set needs.
 */
static void budgets(void)
{
    const char *rv = getenv("CUZK_GPU_PLAN_ROWS");
    /* with a SHA-256 block the aux is mostly bits, as a Filecoin witness
     * is: the smallest plan keeps it packed on the device */
    pc_cfg cfg = {.seed = cuzk_rng_u64(&rng), .rows = rv ? atoi(rv) : 2000, .long_every = 13, .satisfied = true,
                  .sha = true};
    cuzk_recording_cs *r = (cuzk_recording_cs *)pc_build(CUZK_CS_RECORDING, &cfg);
    cuzk_witness_cs *wit = (cuzk_witness_cs *)pc_build(CUZK_CS_WITNESS, &cfg);
    CHECK(r && wit);
    if (!r || !wit) return;
    char msg[640];
    cuzk_gpu_device *dev;
    CHECK(cuzk_gpu_device_open(&dev, 0, msg, sizeof msg) == CUZK_OK);
    cuzk_gpu_worker *w;
    CHECK(cuzk_gpu_worker_create(&w, dev) == CUZK_OK);
    cuzk_groth16_fixed_base fb;
    cuzk_gpu_setup_fixed_base(&fb, w);
    cuzk_groth16_params params;
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(cuzk_groth16_setup_with(&params, r, &rng, cores > 0 ? (unsigned)cores : 2, NULL, NULL, &fb) == CUZK_OK);
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare_vk(&pvk, &params.vk) == CUZK_OK);
    cuzk_pce *pce = NULL;
    cuzk_pce_error e;
    CHECK(cuzk_pce_from_recording(&pce, r, "gpu-plan", NULL, 0, 2, &e) == CUZK_OK);
    cuzk_groth16_assignment as;
    CHECK(pce && cuzk_groth16_assignment_deferred(&as, pce, wit) == CUZK_OK);
    /* the budgets prove from the aux packed, as the engine hands it over */
    cuzk_fr_packed pk;
    CHECK(cuzk_fr_pack(&pk, as.aux, as.num_aux, false) == CUZK_OK);
    cuzk_groth16_assignment asp = as;
    asp.aux = NULL, asp.aux_packed = &pk;
    const bool packable = pk.n_gen <= pk.n / 8; /* within the plan's bound */
    cuzk_fr rr, ss;
    cuzk_fr_random(&rr, &rng), cuzk_fr_random(&ss, &rng);
    cuzk_groth16_proof whole, pf;
    const cuzk_gpu_set ks = {cuzk_handle_new(), &params, cuzk_handle_new(), pce};
    int rc = cuzk_gpu_prove(w, &whole, &ks, &as, &rr, &ss, 1, NULL);
    CHECK_MSG(rc == CUZK_OK && verify(&pvk, &whole, wit) == CUZK_OK, "whole card: %d %s", rc,
              cuzk_gpu_worker_error(w));
    cuzk_gpu_worker_destroy(w);
    cuzk_gpu_device_release(dev, ks.key);
    cuzk_gpu_device_release(dev, ks.pce_key);
    cuzk_gpu_device_close(dev);

    cuzk_gpu_plan_need nd;
    cuzk_gpu_plan_need_of(&nd, &params, pce, 1);
    if (!packable) nd.witness_packed = 0; /* the smallest plan the prover can follow: the aux plain */
    printf("plan budgets: 2^%u domain, %zu constraints, aux %zu entries, %zu general (%s)\n", nd.log_n,
           r->base.num_constraints, pk.n, pk.n_gen, packable ? "packable" : "plain");
    cuzk_gpu_test_hooks keep;
    cuzk_gpu_test_hooks_get(&keep);
    GPU_HOOK_SET(stream_chunk, 1500); /* many chunks an MSM, each MSM's last one short */
    /* case 0: the smallest plan (the PCE's matrices streamed too, the aux
     * packed on the device); case 1:
     * every array streamed, the PCE resident; case 1 + r: r arrays resident */
    for (unsigned cs = 0; cs <= CUZK_GPU_PLAN_ARRAYS + 1; cs++) {
        const unsigned res = cs ? cs - 1 : 0;
        const uint64_t need = budget_for(&nd, res, cs > 0);
        cuzk_gpu_plan plan;
        cuzk_gpu_plan_make(&plan, &nd, need);
        if (res && plan_resident(&plan, &nd) > res) continue; /* an absent array: the same plan as before */
        if (cs == 0) { /* the aux packed: the last resort, where the aux allows and only when that is smaller
                        * (a chunk of L's scalars unpacked beside it outweighs a small circuit's witness) */
            cuzk_gpu_plan_need plain = nd;
            plain.witness_packed = 0;
            const uint64_t need_plain = budget_for(&plain, 0, false);
            CHECK_MSG(need <= need_plain && plan.witness_packed == (packable && need < need_plain),
                      "smallest plan %llu bytes (packed: %d), the aux plain %llu", (unsigned long long)need,
                      plan.witness_packed, (unsigned long long)need_plain);
        }
        CHECK(cuzk_gpu_device_open(&dev, 0, msg, sizeof msg) == CUZK_OK);
        CHECK(cuzk_gpu_worker_create(&w, dev) == CUZK_OK);
        uint64_t budget, used;
        CHECK(cuzk_gpu_device_budget(dev, &budget, &used) == CUZK_OK);
        if (cs == 0) { /* a byte less than the smallest plan: refused, with what it needs */
            CHECK(cuzk_gpu_device_set_memory_limit(dev, used + need - 1) == CUZK_OK);
            rc = cuzk_gpu_device_preload(dev, &ks, msg, sizeof msg);
            CHECK_MSG(rc == CUZK_ERR_NO_MEMORY && strstr(msg, "needs at least"), "under the plan: %d %s", rc, msg);
        }
        CHECK(cuzk_gpu_device_set_memory_limit(dev, used + need) == CUZK_OK);
        rc = cuzk_gpu_device_preload(dev, &ks, msg, sizeof msg);
        CHECK_MSG(rc == CUZK_OK, "preload at %llu bytes: %d %s", (unsigned long long)need, rc, msg);
        printf("  %llu bytes: %s\n", (unsigned long long)need, msg);
        cuzk_groth16_prove_timing tm;
        rc = cuzk_gpu_prove(w, &pf, &ks, &asp, &rr, &ss, 1, &tm);
        CHECK_MSG(rc == CUZK_OK, "prove, %u resident: %d %s", res, rc, cuzk_gpu_worker_error(w));
        CHECK_MSG(rc || (proof_eq(&pf, &whole) && verify(&pvk, &pf, wit) == CUZK_OK),
                  "%u resident: the proof differs from the whole card's", res);
        const bool streams = plan.chunk_bytes != 0 || keep.stream[0]; /* tests may force it */
        CHECK(streams == (tm.stream_bytes > 0) && (!streams || tm.stream_copy_s > 0));
        CHECK(cuzk_gpu_device_budget(dev, &budget, &used) == CUZK_OK && used <= budget);
        printf("    H over %u vectors%s%s, %llu bytes streamed (copy %.4f s, waited %.4f s), held %llu of %llu\n",
               plan.h_vectors, plan.witness_packed ? ", compact twiddles, the witness packed"
                               : plan.compact_tables ? ", compact twiddles" : "",
               plan.pce_streamed ? ", PCE matrices streamed" : "", (unsigned long long)tm.stream_bytes,
               tm.stream_copy_s, tm.stream_wait_s,
               (unsigned long long)used, (unsigned long long)budget);
        cuzk_gpu_worker_destroy(w);
        cuzk_gpu_device_close(dev);
    }
    cuzk_gpu_test_hooks_set(&keep);
    cuzk_fr_packed_free(&pk);
    cuzk_pce_free(pce);
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_params_free(&params);
    cuzk_cs_free(&r->base), cuzk_cs_free(&wit->base);
}

int main(void)
{
    tu_init(&rng, "test_gpu_pce");
    gpu_hooks_from_env();
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) {
        return tu_skip("test_gpu_pce", "no CUDA device");
    }
    char msg[256];
    cuzk_gpu_device *dev;
    int rc = cuzk_gpu_device_open(&dev, 0, msg, sizeof msg);
    CHECK_MSG(rc == CUZK_OK, "open: %s", msg);
    if (rc) return tu_finish("test_gpu_pce");
    cuzk_gpu_worker *w[2];
    for (int i = 0; i < 2; i++) CHECK(cuzk_gpu_worker_create(&w[i], dev) == CUZK_OK);
    char dir[] = "/tmp/cuzk_gpu_pce_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *re = getenv("CUZK_GPU_ROUNDS"), *vm = getenv("CUZK_GPU_PCE_VARIANTS");
    int rounds = re ? atoi(re) : 1;
    unsigned mask = vm ? (unsigned)strtoul(vm, NULL, 0) : 15; /* a short sanitizer run picks fewer */
    for (int round = 0; round < rounds; round++)
        for (int variant = 0; variant < 4; variant++) {
            if (!(mask >> variant & 1)) continue;
            pc_cfg cfg = {.seed = cuzk_rng_u64(&rng), .rows = 300 + 700 * (variant & 1), .long_every = 13,
                          .satisfied = true, .sha = variant >= 2};
            one_circuit(w, dev, cfg, variant, dir);
        }
    for (int i = 0; i < 2; i++) cuzk_gpu_worker_destroy(w[i]);
    cuzk_gpu_device_close(dev);
    budgets();
    rmdir(dir);
    return tu_finish("test_gpu_pce");
}
