/*
 * Which work runs next: the CPU workers' next task (verification first,
 * then synthesis within the queue depth and the memory budget), the
 * prover workers' claim of ready partitions, and how far synthesis runs
 * ahead of the provers.
 *
 * The queues are views over partition states (engine_internal.h), scanned
 * under the scheduler lock in priority order (priority desc, then job age);
 * counters bound them: at most queue_limit partitions are synthesized or
 * being synthesized ahead of the provers. Work is seconds per partition,
 * so one lock and a scan of the active jobs costs nothing measurable.
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

/* ---- picking work ------------------------------------------------------ */

static part *first_in_state(cuzk_job *j, part_state st)
{
    for (uint32_t i = 0; i < j->nparts; i++)
        if (j->parts[i].state == st) return &j->parts[i];
    return NULL;
}

/* A reservation that keeps the circuit's own PCE (about to be used, or
 * just extracted for the next partitions) while partitions in flight will
 * free memory anyway; with none in flight it evicts it rather than wait
 * forever. */
static bool mem_try_keep_pce(cuzk_engine *e, srs_entry *s, uint64_t bytes)
{
    s->pce_refs++;
    bool ok = mem_try(e, bytes);
    s->pce_refs--;
    return ok || (e->n_inflight == 0 && mem_try(e, bytes));
}

/* A proved partition to verify (it finishes jobs and frees witnesses). */
static bool pick_verify(cuzk_engine *e, task *t)
{
    for (size_t i = 0; i < e->nactive; i++) {
        cuzk_job *j = e->active[i];
        if (job_final(j)) continue;
        part *p = first_in_state(j, P_PROVED);
        if (p) {
            p->state = P_VERIFYING;
            e->n_proved--;
            j->busy++;
            t->kind = T_VERIFY, t->job = j, t->p = p;
            return true;
        }
    }
    return false;
}

/* Synthesized-ahead partitions (synthesizing or in the prove queue) per
 * priority: the depth bound counts a partition's priority and above, so a
 * flood of NORMAL work never keeps a CRITICAL partition waiting. */
static void ahead_count(const cuzk_engine *e, unsigned ahead[CUZK_PRIORITY_CRITICAL + 1])
{
    for (size_t i = 0; i < e->nactive; i++) {
        const cuzk_job *j = e->active[i];
        for (uint32_t q = 0; q < j->nparts && !job_final(j); q++)
            ahead[j->priority] += j->parts[q].state == P_SYNTH || j->parts[q].state == P_READY;
    }
}

/* What the scan does with a job after trying to reserve for its partition. */
typedef enum take {
    TAKE_OK,       /* reserved: synthesize it */
    TAKE_SKIP,     /* not now: the next job */
    TAKE_STOP,     /* no memory while witnesses are in flight: their release wakes us */
    TAKE_TOO_BIG,  /* one partition exceeds the budget: the job fails */
    TAKE_FINISHED, /* the job failed (it may have left the active list) */
} take;

/* A job's first synthesis takes its SRS reference: parameters resident
 * need room for the partition (wb bytes) only, others their load estimate
 * as well (the load then runs before the synthesis: *load). */
static take take_srs(cuzk_engine *e, cuzk_job *j, uint64_t wb, bool *srs_blocked, bool *load)
{
    srs_entry *s = j->kind->srs;
    /* behind a job waiting for memory for its SRS, none starts */
    if (*srs_blocked || s->state == CUZK_SRS_LOADING) return TAKE_SKIP;
    if (s->state != CUZK_SRS_HOT && srs_failed(s)) {
        char when[32];
        struct tm tm;
        time_t t = (time_t)s->fail_time;
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
        job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_IO,
                   "parameters of %s failed to load at %s (fix or replace the file, or call PreloadSRS "
                   "%s to retry): %s",
                   s->circuit_id, when, s->circuit_id, s->fail_msg);
        return TAKE_FINISHED;
    }
    if (s->state != CUZK_SRS_HOT) {
        if (s->est_bytes + wb > e->budget) {
            job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_MEMORY,
                       "parameters of %s (%llu bytes) and one partition (%llu bytes) exceed "
                       "the memory budget (%llu bytes)",
                       s->circuit_id, (unsigned long long)s->est_bytes, (unsigned long long)wb,
                       (unsigned long long)e->budget);
            return TAKE_FINISHED;
        }
        if (!mem_try_keep_pce(e, s, s->est_bytes + wb)) {
            *srs_blocked = true;
            e->c.memory_waits++;
            return TAKE_SKIP;
        }
        s->state = CUZK_SRS_LOADING;
        s->bytes = s->est_bytes;
        *load = true;
    } else {
        if (wb > e->budget) return TAKE_TOO_BIG;
        s->refs++; /* held: mem_try must not evict it */
        bool ok = mem_try_keep_pce(e, s, wb);
        s->refs--;
        if (!ok) return TAKE_STOP;
        s->hits++;
        e->c.srs_hits++;
    }
    s->refs++;
    s->last_used = ++e->lru_tick;
    j->srs_held = true;
    return TAKE_OK;
}

/* The reservation for one partition's witness (wb bytes) of job j. */
static take take_room(cuzk_engine *e, cuzk_job *j, uint64_t wb, bool *srs_blocked, bool *load)
{
    take r = TAKE_OK;
    if (!j->srs_held) r = take_srs(e, j, wb, srs_blocked, load);
    else if (wb <= e->budget) r = mem_try_keep_pce(e, j->kind->srs, wb) ? TAKE_OK : TAKE_STOP;
    else r = TAKE_TOO_BIG;
    if (r == TAKE_TOO_BIG) {
        job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_MEMORY,
                   "one partition (%llu bytes) exceeds the memory budget (%llu bytes)", (unsigned long long)wb,
                   (unsigned long long)e->budget);
        return TAKE_FINISHED;
    }
    if (r == TAKE_STOP) e->c.memory_waits++;
    return r;
}

/* Partition p of job j goes to synthesis: the task, and the PCE it uses
 * (never evicted while this synthesis or its witness uses it). */
static void synth_start(cuzk_engine *e, cuzk_job *j, part *p, uint64_t wb, bool load, task *t)
{
    kind_entry *k = j->kind;
    srs_entry *s = k->srs;
    if (j->state == CUZK_JOB_QUEUED) {
        j->state = CUZK_JOB_RUNNING;
        j->t_start = cuzk_now();
    }
    p->state = P_SYNTH;
    p->inflight = true;
    e->n_inflight++;
    p->wit_reserved = wb;
    e->n_synth++;
    t->threads = e->cfg.synthesis_threads ? e->cfg.synthesis_threads : e->ncpu / e->n_synth;
    if (t->threads < 1) t->threads = 1;
    j->busy++;
    if (wb == 0) k->probing = true;
    t->kind = T_SYNTH, t->job = j, t->p = p, t->load_srs = load, t->probe = (wb == 0);
    t->pce = (s->pce_state == CUZK_PCE_RESIDENT) ? s->pce : NULL;
    if (t->pce) {
        s->pce_refs++;
        p->pce_src = s;
        p->pce_id = s->pce_id;
    }
}

/* A task kind's job (no partitions) starts: its finish runs on this CPU
 * worker in a synthesis slot, so that it shares the CPUs as a partition's
 * synthesis does. */
static void task_start(cuzk_engine *e, cuzk_job *j, task *t)
{
    j->state = CUZK_JOB_RUNNING;
    j->t_start = cuzk_now();
    j->busy++;
    e->n_synth++;
    t->kind = T_TASK, t->job = j;
}

/*
 * The next CPU task: verification first, then synthesis of the
 * highest-priority, oldest job's lowest pending partition, within the queue
 * depth (counted per priority and above) and the memory budget. A job
 * starts (takes its SRS reference) at its first synthesis; a job whose SRS
 * cannot be loaded for lack of memory keeps lower-priority jobs from
 * starting but not from finishing; a witness that does not fit stops the
 * scan while witnesses are in flight (their release will wake us).
 */
task pick_cpu(cuzk_engine *e)
{
    task t = {0};
    if (pick_verify(e, &t)) return t;
    unsigned ahead[CUZK_PRIORITY_CRITICAL + 1] = {0};
    ahead_count(e, ahead);
    bool srs_blocked = false;
    const bool no_prover = !prover_available(e);
    for (size_t i = 0; i < e->nactive && e->n_synth < e->synth_limit; i++) {
        cuzk_job *j = e->active[i];
        if (job_final(j)) continue;
        if (!j->nparts) { /* a task, in its priority's turn: no prover, witness or queue depth */
            if (j->state != CUZK_JOB_QUEUED) continue;
            task_start(e, j, &t);
            return t;
        }
        part *p = first_in_state(j, P_PENDING);
        if (!p) continue;
        if (no_prover) {
            job_fail_no_prover(e, j);
            i--; /* the job may have left the active list */
            continue;
        }
        unsigned above = 0;
        for (int q = j->priority; q <= CUZK_PRIORITY_CRITICAL; q++) above += ahead[q];
        if (above >= queue_limit(e)) break; /* later jobs have this priority or lower */
        kind_entry *k = j->kind;
        if (k->witness_bytes == 0 && k->probing) continue;
        bool load = false;
        switch (take_room(e, j, k->witness_bytes, &srs_blocked, &load)) {
        case TAKE_OK: synth_start(e, j, p, k->witness_bytes, load, &t); return t;
        case TAKE_SKIP: continue;
        case TAKE_TOO_BIG: /* take_room finished the job */
        case TAKE_FINISHED: i--; continue; /* the job may have left the active list */
        case TAKE_STOP:
            if (e->n_inflight > 0) return t;
            continue;
        }
    }
    return t;
}

/* A prover worker whose last call ran out of device memory (a card with
 * room for fewer workers than configured, or another set's points resident
 * for a while) leaves the device's work to its workers that have room:
 * beside them it would fail again, each time after uploading a partition
 * and undoing its allocations. It tries again after MEM_RETRY_S, or at
 * once when no worker of its device has room. */
bool mem_wait(const cuzk_engine *e, const worker *w, double *until)
{
    if (!w->mem_short || cuzk_now() >= w->mem_retry_at) return false;
    for (unsigned i = e->n_cpu_workers; i < e->n_cpu_workers + e->n_prove_workers; i++) { /* not the fallback's */
        const worker *o = &e->workers[i];
        if (o != w && o->device == w->device && !o->mem_short && worker_usable(e, o)) {
            *until = w->mem_retry_at;
            return true;
        }
    }
    return false;
}

/* Claims up to cap ready partitions of one SRS, highest priority first,
 * whose witnesses come through one PCE (or none): a prove call takes one
 * set and its PCE. */
size_t claim_ready(cuzk_engine *e, worker *w, part **ps, cuzk_job **js, size_t n, size_t cap,
                          srs_entry **srs)
{
    for (size_t i = 0; i < e->nactive && n < cap; i++) {
        cuzk_job *j = e->active[i];
        if (job_final(j) || !j->nparts) continue; /* a task has nothing to prove */
        if (*srs && j->kind->srs != *srs) continue;
        /* synthesis overlaps the job's SRS load; proving waits for it */
        if (j->kind->srs->state != CUZK_SRS_HOT) continue;
        for (uint32_t q = 0; q < j->nparts && n < cap; q++) {
            part *p = &j->parts[q];
            if (p->state != P_READY || !prove_eligible(e, w, p)) continue;
            if (n && p->wit.as.pce != ps[0]->wit.as.pce) continue;
            p->state = P_PROVING;
            e->n_ready--;
            j->busy++;
            ps[n] = p, js[n] = j, n++;
            *srs = j->kind->srs;
            pthread_cond_broadcast(&e->cpu_cv); /* a queue slot is free: synthesize the next */
        }
    }
    return n;
}

/* ---- how far synthesis runs ahead ----------------------------------------- */

/* Partitions synthesizing or waiting for a prover, at most. Configured: that
 * many. Default: at least 2 per prover worker, and as many as keep the
 * provers fed: while one partition synthesizes (synth_mean_s), the provers
 * finish one every prove_mean_s / workers, so that many must be in
 * synthesis at once, plus one waiting per worker. (32 GiB PoRep on one
 * H200: 6 s of synthesis against a partition every 1.4 s needs 7, where
 * 2 per worker gave 4 and left the GPU idle a fifth of the time.) Memory
 * bounds it in any case: each one reserves its witness under the budget. */
unsigned queue_limit(const cuzk_engine *e)
{
    if (e->cfg.queue_depth) return e->cfg.queue_depth;
    unsigned base = e->queue_depth; /* 2 per prover worker */
    if (e->synth_mean_s <= 0 || e->prove_mean_s <= 0 || e->n_prove_workers == 0) return base;
    const double interval = e->prove_mean_s / e->n_prove_workers;
    double need = e->synth_mean_s / interval;
    if (need > 4096) need = 4096;
    unsigned n = (unsigned)need + (need > (unsigned)need) + e->n_prove_workers;
    return n > base ? n : base;
}

