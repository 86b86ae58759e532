/*
 * The engine's threads: CPU workers (synthesis, with the parameters' load
 * when a job starts, and verification) and prover workers (one group per
 * device, and the CPU fallback's), each a loop under the engine's lock that
 * takes a task, drops the lock for the work and books the result.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "engine/engine_internal.h"

static void ewma(double *m, double x) { *m = *m > 0 ? 0.8 * *m + 0.2 * x : x; }

/* ---- prove phases -------------------------------------------------------- */

const double cuzk_engine_phase_le[CUZK_PHASE_BUCKETS - 1] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                              0.5,   1,    2.5,   5,    10};
static const char *const phase_names[CUZK_PHASES] = {"upload", "eval", "ntt", "msm", "msm_h", "msm_l",
                                                     "msm_a", "msm_b_g1", "msm_b_g2", "wait", "host",
                                                     "stream_copy", "stream_wait"};
const char *cuzk_engine_phase_name(unsigned phase) { return phase < CUZK_PHASES ? phase_names[phase] : NULL; }

/* A prover's timing as phases; host is what the named ones leave of the call. */
static void prove_phases(double ph[CUZK_PHASES], const cuzk_groth16_prove_timing *tm)
{
    ph[CUZK_PHASE_UPLOAD] = tm->upload_s, ph[CUZK_PHASE_EVAL] = tm->eval_s, ph[CUZK_PHASE_NTT] = tm->ntt_h_s;
    ph[CUZK_PHASE_MSM_H] = tm->msm_h_s, ph[CUZK_PHASE_MSM_L] = tm->msm_l_s, ph[CUZK_PHASE_MSM_A] = tm->msm_a_s;
    ph[CUZK_PHASE_MSM_B_G1] = tm->msm_b_g1_s, ph[CUZK_PHASE_MSM_B_G2] = tm->msm_b_g2_s;
    ph[CUZK_PHASE_WAIT] = tm->wait_s;
    ph[CUZK_PHASE_STREAM_COPY] = tm->stream_copy_s, ph[CUZK_PHASE_STREAM_WAIT] = tm->stream_wait_s;
    /* the CPU prover times its five MSMs only together */
    const double msms = tm->msm_h_s + tm->msm_l_s + tm->msm_a_s + tm->msm_b_g1_s + tm->msm_b_g2_s;
    ph[CUZK_PHASE_MSM] = msms > 0 ? msms : tm->msm_s;
    double host = tm->total_s - tm->upload_s - tm->eval_s - tm->ntt_h_s - tm->wait_s - ph[CUZK_PHASE_MSM];
    ph[CUZK_PHASE_HOST] = host > 0 ? host : 0;
}

static void phases_count(cuzk_engine_counters *c, const double ph[CUZK_PHASES])
{
    c->phase_count++;
    for (unsigned k = 0; k < CUZK_PHASES; k++) {
        unsigned b = 0;
        while (b < CUZK_PHASE_BUCKETS - 1 && ph[k] > cuzk_engine_phase_le[b]) b++;
        c->phase_sum_s[k] += ph[k];
        c->phase_hist[k][b]++;
    }
}

/* ---- CPU worker: synthesis and verification ---------------------------- */

/* A partition's witness (no lock): through the resident PCE when the task
 * has one, else (or when the PCE failed its checksums after load:
 * *pce_bad) by a full synthesis. */
static int synth_witness(cuzk_engine *e, const task *t, cuzk_engine_witness *wit, bool *pce_bad)
{
    const cuzk_job *j = t->job;
    const kind_entry *k = j->kind;
    int err = CUZK_OK;
    if (t->pce) {
        const unsigned flags = e->prover.defer_pce_eval ? CUZK_ENGINE_WITNESS_DEFER_EVAL |
                                                              (e->prover.pack_witness ? CUZK_ENGINE_WITNESS_PACK : 0)
                                                        : 0;
        err = e->pce.witness(e->pce.ctx, t->pce, &k->k, j->inputs, j->inputs_len, j->prepared, t->p->index, flags,
                             t->threads, wit);
        *pce_bad = err == CUZK_ERR_FORMAT;
    }
    /* A full assignment's children are copied into it at the end (the
     * witness held twice, beyond its reservation): threaded only when
     * the operator says so. The PCE path's WitnessCS fills in place. */
    if (!t->pce || *pce_bad)
        err = witness_full(k, j->inputs, j->inputs_len, j->prepared, t->p->index,
                           e->cfg.synthesis_threads ? t->threads : 1, wit);
    return err;
}

/* A witness made (under e->mu): its actual size replaces the reservation,
 * the kind learns its witness size, and a PCE is extracted when none is. */
static void synth_book(cuzk_engine *e, const task *t, const cuzk_engine_witness *wit, double secs, bool pce_bad)
{
    cuzk_job *j = t->job;
    kind_entry *k = j->kind;
    part *p = t->p;
    uint64_t actual = witness_bytes(wit);
    if (actual > k->witness_bytes && !k->k.witness_bytes) {
        k->witness_bytes = actual;
        synth_limit_update(e); /* the default depends on the largest partition */
    }
    mem_force(e, (int64_t)actual - (int64_t)p->wit_reserved);
    p->wit_reserved = actual;
    j->synth_s += secs;
    ewma(&e->synth_mean_s, secs);
    e->c.partitions_synthesized++;
    if (t->pce && !pce_bad) e->c.pce_fast_path++;
    else if (j->prepared) pce_maybe_extract(e, k, NULL, 0);
    else pce_maybe_extract(e, k, j->inputs, j->inputs_len);
}

/* The parameters' load that ran before the synthesis, booked (under
 * e->mu); false when it failed, and the job with it. */
static bool synth_load_booked(cuzk_engine *e, const task *t, int lerr, double secs, char *lmsg)
{
    cuzk_job *j = t->job;
    srs_entry *s = j->kind->srs;
    srs_load_done(e, s, lerr, secs, lmsg);
    j->srs_load_s += secs;
    if (lerr == CUZK_OK) return true;
    part_drop(e, t->p); /* the witness reservation goes */
    job_finish(e, j, CUZK_JOB_FAILED, lerr, "loading parameters of %s: %s", s->circuit_id,
               lmsg ? lmsg : cuzk_strerror(lerr));
    job_maybe_retire(e, j);
    return false;
}

static void run_synth(cuzk_engine *e, worker *w, task *t)
{
    cuzk_job *j = t->job;
    kind_entry *k = j->kind;
    srs_entry *s = k->srs;
    part *p = t->p;
    int err = CUZK_OK, lerr = CUZK_OK;
    char *lmsg = NULL;
    double t0 = cuzk_now(), tl = 0;
    if (t->load_srs) {
        lerr = srs_load(e, s, &lmsg);
        tl = cuzk_now() - t0;
    }
    cuzk_engine_witness wit = {0};
    bool pce_bad = false;
    double ts = cuzk_now();
    if (lerr == CUZK_OK) {
        if (e->cfg.stage_hook) e->cfg.stage_hook(e->cfg.hook_ctx, CUZK_STAGE_SYNTHESIS, j->request_id, p->index);
        err = synth_witness(e, t, &wit, &pce_bad);
    }
    double te = cuzk_now();

    pthread_mutex_lock(&e->mu);
    w->busy_s += te - t0;
    e->c.synthesis_busy_s += te - ts;
    e->n_synth--;
    j->busy--;
    if (t->probe) k->probing = false;
    if (t->load_srs && !synth_load_booked(e, t, lerr, tl, lmsg)) {
        pthread_mutex_unlock(&e->mu);
        free(lmsg);
        return;
    }
    if (pce_bad) { /* the witness came from a full synthesis: it holds no view into the PCE */
        pce_unref(e, s);
        p->pce_src = NULL;
        pce_drop_invalid(e, s, t->pce);
    }
    p->wit = wit;
    if (err == CUZK_OK) synth_book(e, t, &wit, te - ts, pce_bad);
    if (job_final(j)) {
        part_drop(e, p);
    } else if (err != CUZK_OK) {
        part_drop(e, p);
        e->c.synthesis_errors++;
        job_finish(e, j, CUZK_JOB_FAILED, err, "partition %u: synthesis failed: %s", p->index, cuzk_strerror(err));
    } else {
        p->state = P_READY;
        e->n_ready++;
        pthread_cond_broadcast(&e->prove_cv);
    }
    job_maybe_retire(e, j);
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_mutex_unlock(&e->mu);
    free(lmsg);
}

static void run_verify(cuzk_engine *e, worker *w, task *t)
{
    cuzk_job *j = t->job;
    kind_entry *k = j->kind;
    part *p = t->p;
    double t0 = cuzk_now();
    if (e->cfg.stage_hook) e->cfg.stage_hook(e->cfg.hook_ctx, CUZK_STAGE_VERIFY, j->request_id, p->index);
    uint32_t npub = k->k.num_public_inputs;
    cuzk_fr *pub = malloc((npub ? npub : 1) * sizeof *pub);
    int err = pub ? k->k.public_inputs(k->k.ctx, pub, j->inputs, j->inputs_len, j->prepared, p->index)
                  : CUZK_ERR_NO_MEMORY;
    int verr = CUZK_ERR_INTERNAL;
    if (err == CUZK_OK) verr = cuzk_groth16_verify(&k->srs->pvk, &p->proof, pub, npub);
    free(pub);
    double t1 = cuzk_now();

    pthread_mutex_lock(&e->mu);
    w->busy_s += t1 - t0;
    e->c.verify_busy_s += t1 - t0;
    j->verify_s += t1 - t0;
    j->busy--;
    if (job_final(j)) {
        part_drop(e, p);
    } else if (err != CUZK_OK) {
        part_drop(e, p);
        job_finish(e, j, CUZK_JOB_FAILED, err, "partition %u: public inputs: %s", p->index,
                   cuzk_strerror(err));
    } else if (verr == CUZK_OK) {
        e->c.partitions_verified++;
        if (p->last_device >= 0) {
            e->dstate[p->last_device].strikes = 0;
            e->dstate[p->last_device].proved++;
        }
        device_strike(e, p->blame_device); /* the device that failed it before */
        part_release(e, p);
        p->state = P_DONE;
        if (++j->done == j->nparts) job_complete(e, j);
    } else if (verr == CUZK_ERR_VERIFY_FAILED) {
        e->c.partitions_invalid++;
        eng_log(e, 1, "job %s partition %u INVALID (device %d, worker %d, attempt %u)", j->request_id,
                p->index, p->last_device, p->last_worker, p->attempts);
        device_failure(e, p->last_device, CUZK_ERR_VERIFY_FAILED, NULL);
        p->blame_device = p->last_device;
        if (job_final(j)) { /* no prover device left */
            part_drop(e, p);
        } else if (reprove_allowed(e, p)) {
            part_requeue(e, j, p); /* the witness is still here */
        } else {
            part_drop(e, p);
            job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_VERIFY_FAILED,
                       "partition %u INVALID twice (device %d worker %d, then device %d worker %d): "
                       "no valid proof",
                       p->index, p->avoid_device, p->avoid_worker, p->last_device, p->last_worker);
        }
    } else {
        part_drop(e, p);
        job_finish(e, j, CUZK_JOB_FAILED, verr, "partition %u: verification error: %s", p->index,
                   cuzk_strerror(verr));
    }
    job_maybe_retire(e, j);
    pthread_mutex_unlock(&e->mu);
}

/* A task kind's job: its finish, job_complete dropping the lock around it. */
static void run_task(cuzk_engine *e, worker *w, task *t)
{
    cuzk_job *j = t->job;
    double t0 = cuzk_now();
    if (e->cfg.stage_hook) e->cfg.stage_hook(e->cfg.hook_ctx, CUZK_STAGE_TASK, j->request_id, 0);
    pthread_mutex_lock(&e->mu);
    if (!job_final(j)) job_complete(e, j); /* cancelled or timed out while the hook held it: not run */
    e->n_synth--;
    j->busy--;
    w->busy_s += cuzk_now() - t0;
    job_maybe_retire(e, j);
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_mutex_unlock(&e->mu);
}

void *cpu_worker_main(void *arg)
{
    worker *w = arg;
    cuzk_engine *e = w->e;
    /* Linux keeps a nice value per thread (PRIO_PROCESS 0: this one), and
     * the threads a synthesis starts inherit it; raising it needs no
     * privilege. A failure leaves the thread as it was. */
#ifdef __linux__ /* elsewhere PRIO_PROCESS 0 would be the whole daemon */
    if (e->cfg.synthesis_nice) {
        errno = 0;
        const int cur = getpriority(PRIO_PROCESS, 0);
        if (errno == 0 && setpriority(PRIO_PROCESS, 0, cur + (int)e->cfg.synthesis_nice) != 0)
            eng_log(e, 1, "CPU worker %d: its nice value stays %d: %s", w->id, cur, strerror(errno));
    }
#endif
    pthread_mutex_lock(&e->mu);
    while (!e->shutdown) {
        task t = pick_cpu(e);
        if (t.kind == T_NONE) {
            w->doing = "idle";
            pthread_cond_wait(&e->cpu_cv, &e->mu);
            continue;
        }
        w->doing = t.kind == T_VERIFY ? "verify" : t.kind == T_TASK ? "task" : t.load_srs ? "srs-load" : "synthesis";
        w->job_seq = t.job->seq;
        w->partition = t.p ? t.p->index : 0;
        w->tasks++;
        pthread_mutex_unlock(&e->mu);
        if (t.kind == T_VERIFY) run_verify(e, w, &t);
        else if (t.kind == T_TASK) run_task(e, w, &t);
        else run_synth(e, w, &t);
        pthread_mutex_lock(&e->mu);
        w->doing = "idle";
    }
    w->doing = "stopped";
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- prover workers ---------------------------------------------------- */

/* A prover worker's per-batch arrays, batch_max long, and its randomness. */
typedef struct prove_bufs {
    part **ps;
    cuzk_job **js;
    cuzk_groth16_assignment *as;
    cuzk_fr *r, *s;
    cuzk_groth16_proof *out;
    cuzk_rng rng;
} prove_bufs;

static bool prove_bufs_make(prove_bufs *b, size_t cap)
{
    b->ps = calloc(cap, sizeof *b->ps);
    b->js = calloc(cap, sizeof *b->js);
    b->as = calloc(cap, sizeof *b->as);
    b->r = calloc(cap, sizeof *b->r), b->s = calloc(cap, sizeof *b->s);
    b->out = calloc(cap, sizeof *b->out);
    return b->ps && b->js && b->as && b->r && b->s && b->out && cuzk_rng_seed_os(&b->rng) == CUZK_OK;
}

static void prove_bufs_free(prove_bufs *b) { free(b->ps), free(b->js), free(b->as), free(b->r), free(b->s), free(b->out); }

/* The next batch for w (under e->mu): up to batch_max ready partitions of
 * one SRS, waiting up to batch_wait_ms for more; 0 after a wait (standby
 * for device memory, or nothing ready), and the caller looks again. */
static size_t prove_claim(cuzk_engine *e, worker *w, prove_bufs *b, srs_entry **srs)
{
    double until;
    if (mem_wait(e, w, &until)) {
        w->doing = "standby";
        eng_cv_wait_until(&e->prove_cv, &e->mu, until);
        return 0;
    }
    const size_t cap = e->batch_max;
    size_t n = claim_ready(e, w, b->ps, b->js, 0, cap, srs);
    if (n == 0) {
        w->doing = (unsigned)w->device < e->n_devices && e->dstate[w->device].failed ? "failed"
                   : worker_usable(e, w)                                          ? "idle"
                                                                                  : "standby";
        pthread_cond_wait(&e->prove_cv, &e->mu);
        return 0;
    }
    if (n < cap && e->batch_wait_ms) {
        until = cuzk_now() + e->batch_wait_ms * 1e-3;
        while (n < cap && !e->shutdown && cuzk_now() < until) {
            eng_cv_wait_until(&e->prove_cv, &e->mu, until);
            n = claim_ready(e, w, b->ps, b->js, n, cap, srs);
        }
    }
    return n;
}

/* A proved batch's debug line: the call's time, and its phases when the prover timed them. */
static void prove_log(cuzk_engine *e, const worker *w, const prove_bufs *b, size_t n, double secs, const double *ph)
{
    const char *more = n > 1 ? " (and the rest of a batch)" : "";
    if (!ph) {
        eng_log(e, 3, "job %s partition %u%s proved on device %d worker %d in %.3f s", b->js[0]->request_id,
                b->ps[0]->index, more, w->device, w->id, secs);
        return;
    }
    eng_log(e, 3,
            "job %s partition %u%s proved on device %d worker %d in %.3f s (upload %.3f, eval %.3f, "
            "ntt %.3f, msm %.3f: h %.3f l %.3f a %.3f b_g1 %.3f b_g2 %.3f, wait %.3f, stream_copy %.3f, "
            "stream_wait %.3f, host %.3f)",
            b->js[0]->request_id, b->ps[0]->index, more, w->device, w->id, secs, ph[CUZK_PHASE_UPLOAD],
            ph[CUZK_PHASE_EVAL], ph[CUZK_PHASE_NTT], ph[CUZK_PHASE_MSM], ph[CUZK_PHASE_MSM_H], ph[CUZK_PHASE_MSM_L],
            ph[CUZK_PHASE_MSM_A], ph[CUZK_PHASE_MSM_B_G1], ph[CUZK_PHASE_MSM_B_G2], ph[CUZK_PHASE_WAIT],
            ph[CUZK_PHASE_STREAM_COPY], ph[CUZK_PHASE_STREAM_WAIT], ph[CUZK_PHASE_HOST]);
}

/* Each partition of a batch after the call (under e->mu): proved, queued
 * again away from this device, or its job failed. */
static void prove_settle(cuzk_engine *e, worker *w, const prove_bufs *b, size_t n, int err, const char *detail,
                         double secs)
{
    for (size_t i = 0; i < n; i++) {
        cuzk_job *j = b->js[i];
        part *p = b->ps[i];
        j->busy--;
        j->prove_s += secs / (double)n;
        p->attempts++;
        p->last_device = w->device;
        p->last_worker = w->id;
        if (job_final(j)) {
            part_drop(e, p);
        } else if (err != CUZK_OK && reprove_allowed(e, p)) {
            p->blame_device = w->device;
            part_requeue(e, j, p); /* the witness is still here */
        } else if (err != CUZK_OK) {
            part_drop(e, p);
            job_finish(e, j, CUZK_JOB_FAILED, err, "partition %u: prover error on device %d worker %d: %s%s%s",
                       p->index, w->device, w->id, cuzk_strerror(err), detail ? ": " : "", detail ? detail : "");
        } else {
            p->proof = b->out[i];
            p->state = P_PROVED;
            e->n_proved++;
            e->c.partitions_proved++;
        }
        job_maybe_retire(e, j);
    }
}

/* A worker whose call ran out of device memory (short) stands by for
 * MEM_RETRY_S while others of its device have room (mem_wait). */
static void prove_mem_short(cuzk_engine *e, worker *w, bool short_dev)
{
    if ((unsigned)w->device >= e->n_devices) return; /* the fallback */
    if (short_dev && !w->mem_short)
        eng_log(e, 1, "device %d worker %d: out of device memory; it leaves the device's work to its "
                "workers with room and tries again in %.0f s", w->device, w->id, MEM_RETRY_S);
    w->mem_short = short_dev;
    if (w->mem_short) e->c.prover_out_of_memory++, w->mem_retry_at = cuzk_now() + MEM_RETRY_S;
}

/* One prove call for the n partitions claimed (e->mu dropped around it). */
static void prove_batch(cuzk_engine *e, worker *w, prove_bufs *b, size_t n, srs_entry *srs)
{
    w->doing = "prove";
    w->job_seq = b->js[0]->seq;
    w->job = b->js[0];
    w->partition = b->ps[0]->index;
    w->tasks++;
    if (n > 1) e->c.batches++, e->c.batched_partitions += n;
    for (size_t i = 0; i < n; i++) b->as[i] = b->ps[i]->wit.as;
    pthread_mutex_unlock(&e->mu);

    double t0 = cuzk_now();
    if (e->cfg.stage_hook)
        for (size_t i = 0; i < n; i++)
            e->cfg.stage_hook(e->cfg.hook_ctx, CUZK_STAGE_PROVE, b->js[i]->request_id, b->ps[i]->index);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_random(&b->r[i], &b->rng);
        cuzk_fr_random(&b->s[i], &b->rng);
    }
    double t1 = cuzk_now();
    const cuzk_engine_prover *pv = (unsigned)w->device == e->n_devices ? &e->fallback : &e->prover;
    cuzk_engine_set set;
    srs_handle(srs, b->as[0].pce, b->ps[0]->pce_id, &set);
    cuzk_engine_prove_report rep;
    memset(&rep, 0, sizeof rep);
    int err = pv->prove(pv->ctx, e->devs[w->device], (unsigned)w->slot, &set, n, b->as, b->r, b->s, b->out, &rep);
    double t2 = cuzk_now();
    const char *detail = err && rep.error[0] ? rep.error : NULL;
    const bool short_dev = err == CUZK_ERR_NO_MEMORY && !rep.host_memory_short;
    double ph[CUZK_PHASES];
    const bool timed = err == CUZK_OK && rep.timed;
    if (timed) prove_phases(ph, &rep.timing);
    if (err == CUZK_OK) prove_log(e, w, b, n, t2 - t1, timed ? ph : NULL);

    pthread_mutex_lock(&e->mu);
    if (timed) phases_count(&e->c, ph);
    w->busy_s += t2 - t0;
    e->c.prove_busy_s += t2 - t1;
    if (err == CUZK_OK) ewma(&e->prove_mean_s, (t2 - t1) / (double)n);
    if (err != CUZK_OK) {
        e->c.prover_errors++;
        eng_log(e, 1, "prover error on device %d worker %d (%zu partitions): %s%s%s", w->device, w->id, n,
                cuzk_strerror(err), detail ? ": " : "", detail ? detail : "");
        device_failure(e, w->device, err, detail);
    }
    prove_settle(e, w, b, n, err, detail, t2 - t1);
    w->job = NULL; /* jobs may be retired now: not proving any */
    w->doing = worker_usable(e, w) ? "idle" : "failed";
    prove_mem_short(e, w, short_dev);
    pthread_cond_broadcast(&e->cpu_cv);
    /* a worker short of device memory that waits on this one's room */
    if (short_dev) pthread_cond_broadcast(&e->prove_cv);
    /* a set a job loaded (no preload's warm): its host copy goes once
     * its proves have put it on every device (the call drops the lock
     * for the unpinning: last, the bookkeeping above is done; srs
     * entries live as long as the engine) */
    if (err == CUZK_OK && pv == &e->prover && !srs->host_released) srs_release_host(e, srs);
}

void *prove_worker_main(void *arg)
{
    worker *w = arg;
    cuzk_engine *e = w->e;
    prove_bufs b;
    memset(&b, 0, sizeof b);
    bool ok = prove_bufs_make(&b, e->batch_max);
    pthread_mutex_lock(&e->mu);
    if (!ok) {
        e->c.prover_errors++;
        eng_log(e, 0, "prover worker %d (device %d) could not start", w->id, w->device);
    }
    while (ok && !e->shutdown) {
        srs_entry *srs = NULL;
        size_t n = prove_claim(e, w, &b, &srs);
        if (n) prove_batch(e, w, &b, n, srs);
    }
    w->doing = "stopped";
    pthread_mutex_unlock(&e->mu);
    prove_bufs_free(&b);
    return NULL;
}
