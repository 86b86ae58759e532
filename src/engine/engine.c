/*
 * The engine: job table, scheduling of partitions by priority, the CPU
 * workers (synthesis and verification), the prover workers (one group per
 * device), verify-and-retry, cancellation and deadlines.
 *
 * The queues are views over partition states (engine_internal.h), scanned
 * under the scheduler lock in priority order (priority desc, then job age);
 * counters bound them: at most queue_depth partitions are synthesized or
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

#include "cuzk/clock.h"
#include "cuzk/error.h"
#include "cuzk/parallel.h"
#include "engine/engine_internal.h"

static void abs_deadline(struct timespec *ts, double t)
{
    ts->tv_sec = (time_t)t;
    ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
    if (ts->tv_nsec >= 1000000000L) ts->tv_sec++, ts->tv_nsec -= 1000000000L;
    if (ts->tv_nsec < 0) ts->tv_nsec = 0;
}

/* Waits on cv until woken or the monotonic time t (t <= 0: no limit). */
static void cv_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double t)
{
    if (t <= 0) {
        pthread_cond_wait(cv, mu);
        return;
    }
    struct timespec ts;
    abs_deadline(&ts, t);
    pthread_cond_timedwait(cv, mu, &ts);
}

const char *cuzk_job_state_name(cuzk_job_state s)
{
    static const char *n[] = {"queued", "running", "done", "failed", "cancelled", "timed-out"};
    return (unsigned)s < 6 ? n[s] : "unknown";
}

const char *cuzk_priority_name(cuzk_priority p)
{
    static const char *n[] = {"default", "low", "normal", "high", "critical"};
    return (unsigned)p < 5 ? n[p] : "unknown";
}

/* ---- the job table ---------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static cuzk_job *map_get(cuzk_engine *e, const char *id)
{
    for (cuzk_job *j = e->buckets[hash_str(id) & (e->nbuckets - 1)]; j; j = j->hnext)
        if (!strcmp(j->request_id, id)) return j;
    return NULL;
}

static bool map_put(cuzk_engine *e, cuzk_job *j)
{
    if (e->njobs + 1 > e->nbuckets) {
        size_t nb = e->nbuckets * 2;
        cuzk_job **b = calloc(nb, sizeof *b);
        if (!b) return false;
        for (size_t i = 0; i < e->nbuckets; i++)
            for (cuzk_job *x = e->buckets[i], *nx; x; x = nx) {
                nx = x->hnext;
                size_t h = hash_str(x->request_id) & (nb - 1);
                x->hnext = b[h];
                b[h] = x;
            }
        free(e->buckets);
        e->buckets = b;
        e->nbuckets = nb;
    }
    size_t h = hash_str(j->request_id) & (e->nbuckets - 1);
    j->hnext = e->buckets[h];
    e->buckets[h] = j;
    e->njobs++;
    return true;
}

static void map_del(cuzk_engine *e, cuzk_job *j)
{
    cuzk_job **pp = &e->buckets[hash_str(j->request_id) & (e->nbuckets - 1)];
    for (; *pp; pp = &(*pp)->hnext)
        if (*pp == j) {
            *pp = j->hnext;
            e->njobs--;
            return;
        }
}

static void job_free(cuzk_job *j)
{
    if (j->prepared) j->kind->k.prepared_free(j->kind->k.ctx, j->prepared);
    free(j->request_id);
    free(j->inputs);
    free(j->parts);
    free(j->proof);
    free(j->message);
    free(j);
}

void cuzk_job_release(cuzk_job *j)
{
    if (j && atomic_fetch_sub(&j->refs, 1) == 1) job_free(j);
}

static bool job_final(const cuzk_job *j) { return j->state >= CUZK_JOB_DONE; }

static void part_release(cuzk_engine *e, part *p)
{
    if (p->wit.release) p->wit.release(p->wit.owner);
    memset(&p->wit, 0, sizeof p->wit);
    if (p->pce_src) pce_unref(e, p->pce_src); /* the witness was a view into it */
    p->pce_src = NULL;
    if (p->wit_reserved) mem_release(e, p->wit_reserved);
    p->wit_reserved = 0;
    if (p->inflight) e->n_inflight--;
    p->inflight = false;
}

/* A finished job leaves the active list once no thread works on it. */
static void job_maybe_retire(cuzk_engine *e, cuzk_job *j)
{
    if (!job_final(j) || j->busy || j->retired) return;
    j->retired = true;
    if (j->one_partition) {
        /* a cluster makes one such job per partition, each with a copy of the
         * request (a 50 MB C1): the retention ring keeps none of them */
        if (j->prepared) j->kind->k.prepared_free(j->kind->k.ctx, j->prepared);
        free(j->inputs);
        j->prepared = NULL, j->inputs = NULL, j->inputs_len = 0;
        j->inputs_dropped = true;
    }
    if (j->srs_held) srs_unref(e, j->kind->srs);
    j->srs_held = false;
    for (size_t i = 0; i < e->nactive; i++)
        if (e->active[i] == j) {
            memmove(&e->active[i], &e->active[i + 1], (e->nactive - i - 1) * sizeof *e->active);
            e->nactive--;
            break;
        }
    eng_wake_all(e);
    cuzk_job_release(j); /* the active list's reference */
}

/* A job's times as cuzk_job_get_info reports them (e->mu held). */
static void job_times(const cuzk_job *j, cuzk_job_info *o)
{
    double now = cuzk_now();
    o->queue_wait_s = (j->t_start ? j->t_start : now) - j->t_submit;
    o->srs_load_s = j->srs_load_s;
    o->synthesis_s = j->synth_s;
    o->prove_s = j->prove_s;
    o->verify_s = j->verify_s;
    o->total_s = (j->t_end ? j->t_end : now) - j->t_submit;
}

static unsigned long long ms_of(double s) { return s > 0 ? (unsigned long long)(s * 1000.0 + 0.5) : 0; }

/* One line per finished job, whatever the outcome, with what an operator
 * asks first: which kind, how far it got, where the time went, and (last,
 * whole) why it did not complete. Logged under e->mu, as the submit line
 * is: a job's lines are in the order its events happened. */
static void job_log_end(cuzk_engine *e, const cuzk_job *j)
{
    cuzk_job_info t;
    job_times(j, &t);
    bool done = j->state == CUZK_JOB_DONE;
    eng_log(e, j->state == CUZK_JOB_FAILED ? 0 : 2,
            "job %s %s: kind=%s partitions=%u proved=%u queue_ms=%llu srs_ms=%llu synthesis_ms=%llu prove_ms=%llu "
            "verify_ms=%llu total_ms=%llu%s%s",
            j->request_id, cuzk_job_state_name(j->state), j->kind->k.name, j->nparts, j->done,
            ms_of(t.queue_wait_s), ms_of(t.srs_load_s), ms_of(t.synthesis_s), ms_of(t.prove_s),
            ms_of(t.verify_s), ms_of(t.total_s), done ? "" : ": ",
            done ? "" : j->message ? j->message : cuzk_strerror(j->error));
}

static void job_finish(cuzk_engine *e, cuzk_job *j, cuzk_job_state st, int err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void job_finish(cuzk_engine *e, cuzk_job *j, cuzk_job_state st, int err, const char *fmt, ...)
{
    if (job_final(j)) return;
    j->state = st;
    j->error = err;
    if (fmt) { /* whole, however long (a path and a parser's reason); set once */
        va_list ap;
        va_start(ap, fmt);
        j->message = cuzk_vstrf(fmt, ap);
        va_end(ap);
    }
    j->t_end = cuzk_now();
    if (j->t_start == 0) j->t_start = j->t_end;
    j->finish_seq = ++e->next_finish;
    if (e->cfg.job_event) e->cfg.job_event(e->cfg.job_event_ctx, j->request_id, st);
    /* drop what no thread holds: queued witnesses free their memory now */
    for (uint32_t i = 0; i < j->nparts; i++) {
        part *p = &j->parts[i];
        if (p->state == P_READY) e->n_ready--;
        if (p->state == P_PROVED) e->n_proved--;
        if (p->state == P_PENDING || p->state == P_READY || p->state == P_PROVED) {
            part_release(e, p);
            p->state = P_DROPPED;
        }
    }
    switch (st) {
    case CUZK_JOB_DONE: e->c.jobs_done++; break;
    case CUZK_JOB_CANCELLED: e->c.jobs_cancelled++; break;
    case CUZK_JOB_TIMED_OUT: e->c.jobs_timed_out++; break;
    default: e->c.jobs_failed++; break;
    }
    job_log_end(e, j);
    /* retention: the table keeps the newest finished jobs for duplicate ids */
    if (e->fin_len == e->fin_cap) {
        cuzk_job *old = e->finished[e->fin_head];
        e->fin_head = (e->fin_head + 1) % e->fin_cap;
        e->fin_len--;
        map_del(e, old);
        cuzk_job_release(old);
    }
    e->finished[(e->fin_head + e->fin_len++) % e->fin_cap] = j;
    job_maybe_retire(e, j);
    eng_wake_all(e);
}

static void job_complete(cuzk_engine *e, cuzk_job *j)
{
    j->proof = malloc((size_t)j->nparts * CUZK_GROTH16_PROOF_BYTES);
    if (!j->proof) {
        job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_MEMORY, "no memory for the proof");
        return;
    }
    for (uint32_t i = 0; i < j->nparts; i++)
        cuzk_groth16_proof_encode(j->proof + (size_t)i * CUZK_GROTH16_PROOF_BYTES, &j->parts[i].proof);
    job_finish(e, j, CUZK_JOB_DONE, CUZK_OK, NULL);
}

/* ---- picking work ------------------------------------------------------ */

typedef enum task_kind { T_NONE = 0, T_SYNTH, T_VERIFY } task_kind;

typedef struct task {
    task_kind kind;
    cuzk_job *job;
    part *p;
    bool load_srs;   /* load the SRS before synthesizing */
    void *pce;       /* PCE fast path, or NULL */
    bool probe;      /* witness size unknown: learn it */
    unsigned threads; /* the synthesis's share of the CPUs */
} task;

static part *first_in_state(cuzk_job *j, part_state st)
{
    for (uint32_t i = 0; i < j->nparts; i++)
        if (j->parts[i].state == st) return &j->parts[i];
    return NULL;
}

/* Some prover can still take work: a device not failed, or the fallback. */
static bool prover_available(const cuzk_engine *e) { return e->n_healthy > 0 || e->n_fb_workers > 0; }

static void job_fail_no_prover(cuzk_engine *e, cuzk_job *j)
{
    char why[256] = "";
    for (unsigned d = 0; d < e->n_devices && !why[0]; d++)
        if (e->dstate[d].failed) snprintf(why, sizeof why, " (device %u: %s)", d, e->dstate[d].reason);
    job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_DEVICE, "no working prover device: all %u failed%s",
               e->n_devices, why);
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

/*
 * The next CPU task: verification first (it finishes jobs and frees
 * witnesses), then synthesis of the highest-priority, oldest job's lowest
 * pending partition, within the queue depth (counted per priority and
 * above) and the memory budget. A job
 * starts (takes its SRS reference) at its first synthesis; a job whose SRS
 * cannot be loaded for lack of memory keeps lower-priority jobs from
 * starting but not from finishing; a witness that does not fit stops the
 * scan while witnesses are in flight (their release will wake us).
 */
static task pick_cpu(cuzk_engine *e)
{
    task t = {0};
    for (size_t i = 0; i < e->nactive; i++) {
        cuzk_job *j = e->active[i];
        if (job_final(j)) continue;
        part *p = first_in_state(j, P_PROVED);
        if (p) {
            p->state = P_VERIFYING;
            e->n_proved--;
            j->busy++;
            t.kind = T_VERIFY, t.job = j, t.p = p;
            return t;
        }
    }
    /* synthesized-ahead partitions (synthesizing or in the prove queue) per
     * priority: the depth bound counts a partition's priority and above, so
     * a flood of NORMAL work never keeps a CRITICAL partition waiting */
    unsigned ahead[CUZK_PRIORITY_CRITICAL + 1] = {0};
    for (size_t i = 0; i < e->nactive; i++) {
        cuzk_job *j = e->active[i];
        for (uint32_t q = 0; q < j->nparts && !job_final(j); q++)
            ahead[j->priority] += j->parts[q].state == P_SYNTH || j->parts[q].state == P_READY;
    }
    bool srs_blocked = false;
    bool no_prover = !prover_available(e);
    for (size_t i = 0; i < e->nactive && e->n_synth < e->synth_limit; i++) {
        cuzk_job *j = e->active[i];
        if (job_final(j)) continue;
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
        srs_entry *s = k->srs;
        if (k->witness_bytes == 0 && k->probing) continue;
        uint64_t wb = k->witness_bytes;
        bool load = false;
        if (!j->srs_held) {
            /* behind a job waiting for memory for its SRS, none starts */
            if (srs_blocked || s->state == CUZK_SRS_LOADING) continue;
            if (s->state != CUZK_SRS_HOT && srs_failed(s)) {
                char when[32];
                struct tm tm;
                time_t t = (time_t)s->fail_time;
                strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
                job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_IO,
                           "parameters of %s failed to load at %s (fix or replace the file, or call PreloadSRS "
                           "%s to retry): %s",
                           s->circuit_id, when, s->circuit_id, s->fail_msg);
                i--; /* the job may have left the active list */
                continue;
            }
            if (s->state != CUZK_SRS_HOT) {
                if (s->est_bytes + wb > e->budget) {
                    job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_MEMORY,
                               "parameters of %s (%llu bytes) and one partition (%llu bytes) exceed "
                               "the memory budget (%llu bytes)",
                               s->circuit_id, (unsigned long long)s->est_bytes,
                               (unsigned long long)wb, (unsigned long long)e->budget);
                    i--; /* the job may have left the active list */
                    continue;
                }
                if (!mem_try_keep_pce(e, s, s->est_bytes + wb)) {
                    srs_blocked = true;
                    e->c.memory_waits++;
                    continue;
                }
                s->state = CUZK_SRS_LOADING;
                s->bytes = s->est_bytes;
                load = true;
            } else {
                if (wb > e->budget) goto too_big;
                s->refs++; /* held: mem_try must not evict it */
                if (!mem_try_keep_pce(e, s, wb)) {
                    s->refs--;
                    goto no_mem;
                }
                s->refs--;
                s->hits++;
                e->c.srs_hits++;
            }
            s->refs++;
            s->last_used = ++e->lru_tick;
            j->srs_held = true;
        } else {
            if (wb > e->budget) goto too_big;
            if (!mem_try_keep_pce(e, s, wb)) goto no_mem;
        }
        if (j->state == CUZK_JOB_QUEUED) {
            j->state = CUZK_JOB_RUNNING;
            j->t_start = cuzk_now();
        }
        p->state = P_SYNTH;
        p->inflight = true;
        e->n_inflight++;
        p->wit_reserved = wb;
        e->n_synth++;
        t.threads = e->cfg.synthesis_threads ? e->cfg.synthesis_threads : e->ncpu / e->n_synth;
        if (t.threads < 1) t.threads = 1;
        j->busy++;
        if (wb == 0) k->probing = true;
        t.kind = T_SYNTH, t.job = j, t.p = p, t.load_srs = load, t.probe = (wb == 0);
        t.pce = (s->pce_state == CUZK_PCE_RESIDENT) ? s->pce : NULL;
        if (t.pce) { /* never evicted while this synthesis or its witness uses it */
            s->pce_refs++;
            p->pce_src = s;
            p->pce_id = s->pce_id;
        }
        return t;
    too_big:
        job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_MEMORY,
                   "one partition (%llu bytes) exceeds the memory budget (%llu bytes)",
                   (unsigned long long)wb, (unsigned long long)e->budget);
        i--;
        continue;
    no_mem:
        e->c.memory_waits++;
        if (e->n_inflight > 0) break;
    }
    return t;
}

/* Does worker w's device take work: a device not failed, or the fallback
 * while every device is failed. */
static bool worker_usable(const cuzk_engine *e, const worker *w)
{
    if ((unsigned)w->device == e->n_devices) return e->n_healthy == 0;
    return !e->dstate[w->device].failed;
}

/* A prover worker whose last call ran out of device memory (a card with
 * room for fewer workers than configured, or another set's points resident
 * for a while) leaves the device's work to its workers that have room:
 * beside them it would fail again, each time after uploading a partition
 * and undoing its allocations. It tries again after MEM_RETRY_S, or at
 * once when no worker of its device has room. */
#define MEM_RETRY_S 30.0
static bool mem_wait(const cuzk_engine *e, const worker *w, double *until)
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

/* Can prover worker w take partition p? A re-prove avoids the last device
 * when another usable one exists, else the last worker when its device has
 * others. */
static bool prove_eligible(cuzk_engine *e, const worker *w, const part *p)
{
    if (!worker_usable(e, w)) return false;
    if (p->avoid_device < 0) return true;
    unsigned usable = e->n_healthy ? e->n_healthy : 1; /* the fallback */
    bool avoid_usable = (unsigned)p->avoid_device == e->n_devices ? e->n_healthy == 0
                                                                  : !e->dstate[p->avoid_device].failed;
    if (usable - (avoid_usable ? 1 : 0) > 0) return w->device != p->avoid_device;
    unsigned on_dev = (unsigned)w->device == e->n_devices ? e->n_fb_workers : e->per_device;
    if (on_dev > 1) return w->id != p->avoid_worker;
    return true;
}

/* May partition p (whose last attempt failed or was invalid) be proved
 * again? Once more elsewhere; again while the device to blame has since
 * been marked failed (bounded: one attempt per device and one more). */
static bool reprove_allowed(const cuzk_engine *e, const part *p)
{
    if (!prover_available(e) || p->attempts > e->n_devices + 1) return false;
    if (p->attempts < 2) return true;
    return (unsigned)p->last_device < e->n_devices && e->dstate[p->last_device].failed;
}

/* Marks device d failed: its workers stop taking work, its queued work
 * goes to the other devices (or the fallback); with no prover left every
 * running job fails. */
static void device_fail(cuzk_engine *e, unsigned d, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void device_fail(cuzk_engine *e, unsigned d, const char *fmt, ...)
{
    device_state *ds = &e->dstate[d];
    if (ds->failed) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ds->reason, sizeof ds->reason, fmt, ap);
    va_end(ap);
    ds->failed = true;
    e->n_healthy--;
    e->c.devices_failed++;
    eng_log(e, 0, "prover device %u (%s) marked failed: %s; %s", d, cuzk_engine_device_name(e, d), ds->reason,
            e->n_healthy ? "its work goes to the other devices"
            : e->n_fb_workers ? "proving on the CPU fallback from now on"
                              : "no prover device left");
    if (!prover_available(e))
        for (size_t i = e->nactive; i-- > 0;)
            if (i < e->nactive && !job_final(e->active[i])) job_fail_no_prover(e, e->active[i]);
    eng_wake_all(e);
}

/* A failed prove call (err: the prover's error) or an invalid proof
 * (CUZK_ERR_VERIFY_FAILED) on device d, once per call. CUZK_ERR_DEVICE (the
 * GPU layer's "this device is unusable") fails the device at once; other
 * failures count only once the partition proves valid elsewhere
 * (device_strike), so a bad input, which fails everywhere, fails no device. */
static void device_failure(cuzk_engine *e, int d, int err, const char *detail)
{
    if (d < 0) return;
    device_state *ds = &e->dstate[d];
    if (err == CUZK_ERR_VERIFY_FAILED) ds->invalid++;
    else ds->errors++;
    snprintf(ds->last_err, sizeof ds->last_err, "%s%s%s",
             err == CUZK_ERR_VERIFY_FAILED ? "invalid proof" : cuzk_strerror(err), detail && *detail ? ": " : "",
             detail ? detail : "");
    if (err == CUZK_ERR_DEVICE && (unsigned)d < e->n_devices)
        device_fail(e, (unsigned)d, "device error: %s", detail && *detail ? detail : cuzk_strerror(err));
}

/* A partition that failed on device d proved valid elsewhere: one strike
 * against d; device_max_errors in a row (no valid proof of d's own in
 * between) fail it. The fallback is never failed. */
static void device_strike(cuzk_engine *e, int d)
{
    if (d < 0 || (unsigned)d >= e->n_devices) return;
    device_state *ds = &e->dstate[d];
    if (ds->failed) return;
    if (++ds->strikes >= e->max_strikes)
        device_fail(e, (unsigned)d, "%u failures in a row that other devices proved valid (last: %s)",
                    ds->strikes, ds->last_err);
}

/* Queues p for another prove attempt, away from where it was last proved. */
static void part_requeue(cuzk_engine *e, cuzk_job *j, part *p)
{
    p->avoid_device = p->last_device;
    p->avoid_worker = p->last_worker;
    p->state = P_READY;
    e->n_ready++;
    e->c.partitions_reproved++;
    j->reproved++;
    pthread_cond_broadcast(&e->prove_cv);
}

/* Claims up to cap ready partitions of one SRS, highest priority first. */
static size_t claim_ready(cuzk_engine *e, worker *w, part **ps, cuzk_job **js, size_t n, size_t cap,
                          srs_entry **srs)
{
    for (size_t i = 0; i < e->nactive && n < cap; i++) {
        cuzk_job *j = e->active[i];
        if (job_final(j)) continue;
        if (*srs && j->kind->srs != *srs) continue;
        /* synthesis overlaps the job's SRS load; proving waits for it */
        if (j->kind->srs->state != CUZK_SRS_HOT) continue;
        for (uint32_t q = 0; q < j->nparts && n < cap; q++) {
            part *p = &j->parts[q];
            if (p->state != P_READY || !prove_eligible(e, w, p)) continue;
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

static void ewma(double *m, double x) { *m = *m > 0 ? 0.8 * *m + 0.2 * x : x; }

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
        if (e->cfg.stage_hook)
            e->cfg.stage_hook(e->cfg.hook_ctx, CUZK_STAGE_SYNTHESIS, j->request_id, p->index);
        if (t->pce)
            err = e->pce.witness(e->pce.ctx, t->pce, &k->k, j->inputs, j->inputs_len, j->prepared, p->index,
                                 e->prover.defer_pce_eval
                                     ? CUZK_ENGINE_WITNESS_DEFER_EVAL | (e->prover.pack_witness ? CUZK_ENGINE_WITNESS_PACK : 0)
                                     : 0,
                                 t->threads, &wit);
        if (t->pce && err == CUZK_ERR_FORMAT) pce_bad = true; /* failed its checksums after load */
        /* A full assignment's children are copied into it at the end (the
         * witness held twice, beyond its reservation): threaded only when
         * the operator says so. The PCE path's WitnessCS fills in place. */
        if (!t->pce || pce_bad)
            err = witness_full(k, j->inputs, j->inputs_len, j->prepared, p->index,
                               e->cfg.synthesis_threads ? t->threads : 1, &wit);
    }
    double te = cuzk_now();

    pthread_mutex_lock(&e->mu);
    w->busy_s += te - t0;
    e->c.synthesis_busy_s += te - ts;
    e->n_synth--;
    j->busy--;
    if (t->probe) k->probing = false;
    if (t->load_srs) {
        srs_load_done(e, s, lerr, tl, lmsg);
        j->srs_load_s += tl;
        if (lerr != CUZK_OK) {
            part_release(e, p); /* the witness reservation */
            p->state = P_DROPPED;
            job_finish(e, j, CUZK_JOB_FAILED, lerr, "loading parameters of %s: %s", s->circuit_id,
                       lmsg ? lmsg : cuzk_strerror(lerr));
            job_maybe_retire(e, j);
            pthread_mutex_unlock(&e->mu);
            free(lmsg);
            return;
        }
    }
    if (pce_bad) { /* the witness came from a full synthesis: it holds no view into the PCE */
        pce_unref(e, s);
        p->pce_src = NULL;
        pce_drop_invalid(e, s, t->pce);
    }
    p->wit = wit;
    if (err == CUZK_OK) {
        uint64_t actual = witness_bytes(&wit);
        if (actual > k->witness_bytes && !k->k.witness_bytes) {
            k->witness_bytes = actual;
            synth_limit_update(e); /* the default depends on the largest partition */
        }
        mem_force(e, (int64_t)actual - (int64_t)p->wit_reserved);
        p->wit_reserved = actual;
        j->synth_s += te - ts;
        ewma(&e->synth_mean_s, te - ts);
        e->c.partitions_synthesized++;
        if (t->pce && !pce_bad) e->c.pce_fast_path++;
        else if (j->prepared) pce_maybe_extract(e, k, NULL, 0);
        else pce_maybe_extract(e, k, j->inputs, j->inputs_len);
    }
    if (job_final(j)) {
        part_release(e, p);
        p->state = P_DROPPED;
    } else if (err != CUZK_OK) {
        part_release(e, p);
        p->state = P_DROPPED;
        e->c.synthesis_errors++;
        job_finish(e, j, CUZK_JOB_FAILED, err, "partition %u: synthesis failed: %s", p->index,
                   cuzk_strerror(err));
    } else {
        p->state = P_READY;
        e->n_ready++;
        pthread_cond_broadcast(&e->prove_cv);
    }
    job_maybe_retire(e, j);
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_mutex_unlock(&e->mu);
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
        part_release(e, p);
        p->state = P_DROPPED;
    } else if (err != CUZK_OK) {
        part_release(e, p);
        p->state = P_DROPPED;
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
            part_release(e, p);
            p->state = P_DROPPED;
        } else if (reprove_allowed(e, p)) {
            part_requeue(e, j, p); /* the witness is still here */
        } else {
            part_release(e, p);
            p->state = P_DROPPED;
            job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_VERIFY_FAILED,
                       "partition %u INVALID twice (device %d worker %d, then device %d worker %d): "
                       "no valid proof",
                       p->index, p->avoid_device, p->avoid_worker, p->last_device, p->last_worker);
        }
    } else {
        part_release(e, p);
        p->state = P_DROPPED;
        job_finish(e, j, CUZK_JOB_FAILED, verr, "partition %u: verification error: %s", p->index,
                   cuzk_strerror(verr));
    }
    job_maybe_retire(e, j);
    pthread_mutex_unlock(&e->mu);
}

static void *cpu_worker_main(void *arg)
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
        w->doing = t.kind == T_VERIFY ? "verify" : t.load_srs ? "srs-load" : "synthesis";
        w->job_seq = t.job->seq;
        w->partition = t.p->index;
        w->tasks++;
        pthread_mutex_unlock(&e->mu);
        if (t.kind == T_VERIFY) run_verify(e, w, &t);
        else run_synth(e, w, &t);
        pthread_mutex_lock(&e->mu);
        w->doing = "idle";
    }
    w->doing = "stopped";
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- prover workers ---------------------------------------------------- */

static void *prove_worker_main(void *arg)
{
    worker *w = arg;
    cuzk_engine *e = w->e;
    size_t cap = e->batch_max;
    part **ps = calloc(cap, sizeof *ps);
    cuzk_job **js = calloc(cap, sizeof *js);
    cuzk_groth16_assignment *as = calloc(cap, sizeof *as);
    cuzk_fr *r = calloc(cap, sizeof *r), *s = calloc(cap, sizeof *s);
    cuzk_groth16_proof *out = calloc(cap, sizeof *out);
    cuzk_rng rng;
    bool ok = ps && js && as && r && s && out && cuzk_rng_seed_os(&rng) == CUZK_OK;
    pthread_mutex_lock(&e->mu);
    if (!ok) {
        e->c.prover_errors++;
        eng_log(e, 0, "prover worker %d (device %d) could not start", w->id, w->device);
    }
    while (ok && !e->shutdown) {
        srs_entry *srs = NULL;
        double until;
        if (mem_wait(e, w, &until)) {
            w->doing = "standby";
            cv_wait_until(&e->prove_cv, &e->mu, until);
            continue;
        }
        size_t n = claim_ready(e, w, ps, js, 0, cap, &srs);
        if (n == 0) {
            w->doing = (unsigned)w->device < e->n_devices && e->dstate[w->device].failed ? "failed"
                       : worker_usable(e, w)                                          ? "idle"
                                                                                      : "standby";
            pthread_cond_wait(&e->prove_cv, &e->mu);
            continue;
        }
        if (n < cap && e->batch_wait_ms) {
            double until = cuzk_now() + e->batch_wait_ms * 1e-3;
            while (n < cap && !e->shutdown && cuzk_now() < until) {
                cv_wait_until(&e->prove_cv, &e->mu, until);
                n = claim_ready(e, w, ps, js, n, cap, &srs);
            }
        }
        w->doing = "prove";
        w->job_seq = js[0]->seq;
        w->job = js[0];
        w->partition = ps[0]->index;
        w->tasks++;
        if (n > 1) e->c.batches++, e->c.batched_partitions += n;
        for (size_t i = 0; i < n; i++) as[i] = ps[i]->wit.as;
        pthread_mutex_unlock(&e->mu);

        double t0 = cuzk_now();
        if (e->cfg.stage_hook)
            for (size_t i = 0; i < n; i++)
                e->cfg.stage_hook(e->cfg.hook_ctx, CUZK_STAGE_PROVE, js[i]->request_id, ps[i]->index);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr_random(&r[i], &rng);
            cuzk_fr_random(&s[i], &rng);
        }
        double t1 = cuzk_now();
        const cuzk_engine_prover *pv = (unsigned)w->device == e->n_devices ? &e->fallback : &e->prover;
        cuzk_engine_set set;
        srs_handle(srs, as[0].pce, ps[0]->pce_id, &set);
        cuzk_engine_prove_report rep;
        memset(&rep, 0, sizeof rep);
        int err = pv->prove(pv->ctx, e->devs[w->device], (unsigned)w->slot, &set, n, as, r, s, out, &rep);
        double t2 = cuzk_now();
        const char *detail = err && rep.error[0] ? rep.error : NULL;
        const bool short_dev = err == CUZK_ERR_NO_MEMORY && !rep.host_memory_short;

        double ph[CUZK_PHASES];
        const bool timed = err == CUZK_OK && rep.timed;
        if (timed) {
            prove_phases(ph, &rep.timing);
            eng_log(e, 3,
                    "job %s partition %u%s proved on device %d worker %d in %.3f s (upload %.3f, eval %.3f, "
                    "ntt %.3f, msm %.3f: h %.3f l %.3f a %.3f b_g1 %.3f b_g2 %.3f, wait %.3f, stream_copy %.3f, "
                    "stream_wait %.3f, host %.3f)",
                    js[0]->request_id, ps[0]->index, n > 1 ? " (and the rest of a batch)" : "", w->device, w->id,
                    t2 - t1, ph[CUZK_PHASE_UPLOAD], ph[CUZK_PHASE_EVAL], ph[CUZK_PHASE_NTT], ph[CUZK_PHASE_MSM],
                    ph[CUZK_PHASE_MSM_H],
                    ph[CUZK_PHASE_MSM_L], ph[CUZK_PHASE_MSM_A], ph[CUZK_PHASE_MSM_B_G1], ph[CUZK_PHASE_MSM_B_G2],
                    ph[CUZK_PHASE_WAIT], ph[CUZK_PHASE_STREAM_COPY], ph[CUZK_PHASE_STREAM_WAIT], ph[CUZK_PHASE_HOST]);
        } else if (err == CUZK_OK) {
            eng_log(e, 3, "job %s partition %u%s proved on device %d worker %d in %.3f s", js[0]->request_id,
                    ps[0]->index, n > 1 ? " (and the rest of a batch)" : "", w->device, w->id, t2 - t1);
        }
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
        for (size_t i = 0; i < n; i++) {
            cuzk_job *j = js[i];
            part *p = ps[i];
            j->busy--;
            j->prove_s += (t2 - t1) / (double)n;
            p->attempts++;
            p->last_device = w->device;
            p->last_worker = w->id;
            if (job_final(j)) {
                part_release(e, p);
                p->state = P_DROPPED;
            } else if (err != CUZK_OK && reprove_allowed(e, p)) {
                p->blame_device = w->device;
                part_requeue(e, j, p); /* the witness is still here */
            } else if (err != CUZK_OK) {
                part_release(e, p);
                p->state = P_DROPPED;
                job_finish(e, j, CUZK_JOB_FAILED, err, "partition %u: prover error on device %d worker %d: %s%s%s",
                           p->index, w->device, w->id, cuzk_strerror(err), detail ? ": " : "",
                           detail ? detail : "");
            } else {
                p->proof = out[i];
                p->state = P_PROVED;
                e->n_proved++;
                e->c.partitions_proved++;
            }
            job_maybe_retire(e, j);
        }
        w->job = NULL; /* jobs may be retired now: not proving any */
        w->doing = worker_usable(e, w) ? "idle" : "failed";
        if ((unsigned)w->device < e->n_devices) {
            if (short_dev && !w->mem_short)
                eng_log(e, 1, "device %d worker %d: out of device memory; it leaves the device's work to its "
                        "workers with room and tries again in %.0f s", w->device, w->id, MEM_RETRY_S);
            w->mem_short = short_dev;
            if (w->mem_short) e->c.prover_out_of_memory++, w->mem_retry_at = cuzk_now() + MEM_RETRY_S;
        }
        pthread_cond_broadcast(&e->cpu_cv);
        /* a worker short of device memory that waits on this one's room */
        if (short_dev) pthread_cond_broadcast(&e->prove_cv);
        /* a set a job loaded (no preload's warm): its host copy goes once
         * its proves have put it on every device (the call drops the lock
         * for the unpinning: last, the bookkeeping above is done; srs
         * entries live as long as the engine) */
        if (err == CUZK_OK && pv == &e->prover && !srs->host_released) srs_release_host(e, srs);
    }
    w->doing = "stopped";
    pthread_mutex_unlock(&e->mu);
    free(ps), free(js), free(as), free(r), free(s), free(out);
    return NULL;
}

/* ---- deadlines ---------------------------------------------------------- */

static void *timer_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->shutdown) {
        double now = cuzk_now(), next = 0;
        for (size_t i = 0; i < e->nactive; i++) {
            cuzk_job *j = e->active[i];
            if (job_final(j) || j->deadline == 0) continue;
            if (j->deadline <= now) {
                job_finish(e, j, CUZK_JOB_TIMED_OUT, CUZK_ERR_TIMEOUT, "timed out after %.3f s",
                           now - j->t_submit);
                i = (size_t)-1; /* the list may have changed */
                continue;
            }
            if (next == 0 || j->deadline < next) next = j->deadline;
        }
        cv_wait_until(&e->timer_cv, &e->mu, next);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------- */

/* CPU workers, prover workers and the fallback's workers. */
static unsigned n_threads(const cuzk_engine *e) { return e->n_cpu_workers + e->n_prove_workers + e->n_fb_workers; }

static uint64_t auto_budget(void)
{
    uint64_t limit = cuzk_engine_memory_limit(NULL, NULL, 0);
    return limit ? cuzk_engine_memory_budget_default(limit, (uint64_t)1 << 30) : (uint64_t)4 << 30;
}

int cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg)
{
    if (!out) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    if (cfg && cfg->synthesis_nice > 19) return CUZK_ERR_INVALID_ARG;
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) return CUZK_ERR_NO_MEMORY;
    if (cfg) e->cfg = *cfg;
    e->ncpu = cuzk_parallel_cpus();
    /* threads: the configured count, else one per CPU (they also verify);
     * how many synthesize at once follows the kinds (synth_limit_update) */
    e->synth_fixed = e->cfg.synthesis_workers != 0;
    e->n_cpu_workers = e->cfg.synthesis_workers ? e->cfg.synthesis_workers : e->ncpu;
    e->synth_limit = e->n_cpu_workers;
    if (e->cfg.prover) e->prover = *e->cfg.prover;
    e->n_devices = e->cfg.num_devices ? e->cfg.num_devices : e->cfg.prover ? e->prover.devices : 1;
    if (e->n_devices == 0 || (e->cfg.prover && !e->prover.prove)) {
        int err = e->n_devices == 0 ? CUZK_ERR_NO_DEVICE : CUZK_ERR_INVALID_ARG;
        free(e);
        return err;
    }
    e->per_device = e->cfg.workers_per_device ? e->cfg.workers_per_device : 2;
    e->n_prove_workers = e->n_devices * e->per_device;
    e->queue_depth = e->cfg.queue_depth ? e->cfg.queue_depth : 2 * e->n_prove_workers;
    e->batch_max = e->cfg.max_batch_size > 1 ? e->cfg.max_batch_size : 1;
    e->batch_wait_ms = e->batch_max > 1 ? e->cfg.max_batch_wait_ms : 0;
    e->retention = e->cfg.job_retention ? e->cfg.job_retention : 4096;
    e->budget = e->cfg.memory_budget ? e->cfg.memory_budget : auto_budget();
    e->c.memory_budget = e->budget;
    /* HOT parameters are page-locked for the uploads of a prover backend */
    e->pin_off = e->cfg.pin == CUZK_PIN_OFF || (e->cfg.pin == CUZK_PIN_AUTO && !e->cfg.prover);
    e->pin_limit = e->cfg.pinned_limit ? e->cfg.pinned_limit : e->budget;
    e->max_strikes = e->cfg.device_max_errors ? e->cfg.device_max_errors : 3;
    if (!e->cfg.prover) {
        unsigned th = e->cfg.prover_threads ? e->cfg.prover_threads : e->ncpu / e->n_prove_workers;
        cuzk_engine_cpu_prover(&e->prover, th ? th : 1);
    } else if (e->cfg.cpu_fallback) {
        /* the CPU prover behind the devices, as many workers as a device has */
        e->n_fb_workers = e->per_device;
        unsigned th = e->cfg.prover_threads ? e->cfg.prover_threads : e->ncpu / e->n_fb_workers;
        cuzk_engine_cpu_prover(&e->fallback, th ? th : 1);
    }
    e->n_healthy = e->n_devices;
    if (e->cfg.pce) {
        e->pce = *e->cfg.pce;
        e->have_pce = e->pce.witness != NULL;
    }
    e->nbuckets = 64;
    e->buckets = calloc(e->nbuckets, sizeof *e->buckets);
    e->fin_cap = e->retention;
    e->finished = calloc(e->fin_cap, sizeof *e->finished);
    e->devs = calloc(e->n_devices + 1, sizeof *e->devs);
    e->dstate = calloc(e->n_devices + 1, sizeof *e->dstate);
    e->workers = calloc(n_threads(e), sizeof *e->workers);
    if (!e->buckets || !e->finished || !e->devs || !e->dstate || !e->workers) {
        free(e->buckets), free(e->finished), free(e->devs), free(e->dstate), free(e->workers), free(e);
        return CUZK_ERR_NO_MEMORY;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->cpu_cv, &ca);
    pthread_cond_init(&e->prove_cv, &ca);
    pthread_cond_init(&e->done_cv, &ca);
    pthread_cond_init(&e->timer_cv, &ca);
    pthread_condattr_destroy(&ca);

    unsigned opened = 0;
    int err = CUZK_OK;
    for (; opened < e->n_devices; opened++) {
        if (!e->prover.open) continue;
        err = e->prover.open(e->prover.ctx, opened, e->per_device, &e->devs[opened]);
        if (err != CUZK_OK) break;
    }
    unsigned started = 0;
    if (err == CUZK_OK) {
        for (unsigned i = 0; i < n_threads(e); i++) {
            worker *w = &e->workers[i];
            w->e = e;
            w->doing = "idle";
            w->kind = i < e->n_cpu_workers ? W_CPU : W_PROVE;
            w->id = w->kind == W_CPU ? (int)i : (int)(i - e->n_cpu_workers);
            w->device = w->kind == W_CPU ? -1 : w->id / (int)e->per_device;
            w->slot = w->kind == W_CPU ? -1 : w->id % (int)e->per_device;
            if (w->kind == W_PROVE && (unsigned)w->id >= e->n_prove_workers) { /* the fallback */
                w->device = (int)e->n_devices;
                w->slot = w->id - (int)e->n_prove_workers;
            }
            if (pthread_create(&w->thread, NULL, w->kind == W_CPU ? cpu_worker_main : prove_worker_main, w)) {
                err = CUZK_ERR_NO_MEMORY;
                break;
            }
            started++;
        }
        if (err == CUZK_OK) {
            if (pthread_create(&e->timer, NULL, timer_main, e)) err = CUZK_ERR_NO_MEMORY;
            else e->timer_live = true;
        }
    }
    if (err != CUZK_OK) {
        pthread_mutex_lock(&e->mu);
        e->shutdown = true;
        eng_wake_all(e);
        pthread_mutex_unlock(&e->mu);
        for (unsigned i = 0; i < started; i++) pthread_join(e->workers[i].thread, NULL);
        if (e->prover.close)
            for (unsigned d = 0; d < opened; d++) e->prover.close(e->prover.ctx, e->devs[d]);
        e->n_devices = 0;
        e->n_cpu_workers = e->n_prove_workers = e->n_fb_workers = 0;
        cuzk_engine_destroy(e);
        return err;
    }
    if (e->synth_fixed)
        eng_log(e, 2, "synthesis workers: %u (configured)", e->n_cpu_workers);
    else
        eng_log(e, 2, "synthesis workers: %u (one per core; capped by memory budget / largest partition "
                      "once kinds are registered)", e->n_cpu_workers);
    *out = e;
    return CUZK_OK;
}

void cuzk_engine_shutdown(cuzk_engine *e, const char *why)
{
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    for (size_t i = e->nactive; i-- > 0;)
        if (i < e->nactive && !job_final(e->active[i])) {
            if (why)
                job_finish(e, e->active[i], CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, "cancelled: %s", why);
            else
                job_finish(e, e->active[i], CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, "engine shut down");
        }
    e->shutdown = true; /* workers, extractions and preloads start nothing new */
    eng_wake_all(e);
    pthread_cond_broadcast(&e->timer_cv);
    pthread_mutex_unlock(&e->mu);
}

void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!e) return;
    cuzk_engine_shutdown(e, NULL);
    for (unsigned i = 0; i < n_threads(e); i++) pthread_join(e->workers[i].thread, NULL);
    if (e->timer_live) pthread_join(e->timer, NULL);
    pce_join_all(e);
    /* jobs still listed had a thread on them; all threads are gone now */
    pthread_mutex_lock(&e->mu);
    while (e->nactive) {
        cuzk_job *j = e->active[0];
        j->busy = 0;
        for (uint32_t i = 0; i < j->nparts; i++) part_release(e, &j->parts[i]);
        job_maybe_retire(e, j);
    }
    for (size_t i = 0; i < e->fin_len; i++) {
        cuzk_job *j = e->finished[(e->fin_head + i) % e->fin_cap];
        map_del(e, j);
        cuzk_job_release(j);
    }
    e->fin_len = 0;
    for (size_t b = 0; b < e->nbuckets; b++)
        while (e->buckets[b]) {
            cuzk_job *j = e->buckets[b];
            map_del(e, j);
            cuzk_job_release(j);
        }
    srs_free_all(e);
    pthread_mutex_unlock(&e->mu);
    kinds_free_all(e);
    if (e->prover.close)
        for (unsigned d = 0; d < e->n_devices; d++) e->prover.close(e->prover.ctx, e->devs[d]);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cpu_cv);
    pthread_cond_destroy(&e->prove_cv);
    pthread_cond_destroy(&e->done_cv);
    pthread_cond_destroy(&e->timer_cv);
    free(e->active);
    free(e->buckets);
    free(e->finished);
    free(e->devs);
    free(e->dstate);
    free(e->workers);
    free(e);
}

/* ---- the job API ------------------------------------------------------- */

/* A request id the table already holds for a job still running or done: the
 * same kind, bytes and partition are that job (CUZK_OK, *out referenced),
 * anything else is refused (CUZK_ERR_INVALID_ARG; a finished one-partition
 * job keeps no inputs to compare, so its id is refused too). Decided before
 * the inputs are checked, parsed and copied (a 50 MB C1 is parsed in
 * seconds); -1 when the id is new or its job failed, was cancelled or timed
 * out (a retry). The check under the lock in cuzk_engine_submit stays for ids
 * that arrive meanwhile. Called with e->mu held. */
static int submit_known_id(cuzk_engine *e, const kind_entry *k, const cuzk_job_request *req, cuzk_job **out)
{
    cuzk_job *old = map_get(e, req->request_id);
    if (!old || (job_final(old) && old->state != CUZK_JOB_DONE)) return -1;
    if (old->inputs_dropped || old->kind != k || old->inputs_len != req->inputs_len ||
        (req->inputs_len && memcmp(old->inputs, req->inputs, req->inputs_len)) ||
        old->one_partition != req->one_partition || (req->one_partition && old->parts[0].index != req->partition))
        return CUZK_ERR_INVALID_ARG;
    atomic_fetch_add(&old->refs, 1);
    e->c.jobs_duplicate++;
    *out = old;
    return CUZK_OK;
}

/* The checks every submit makes: arguments, kind, partition, the kind's
 * check_inputs and prepare (on success *prepared is the parsed inputs, or
 * NULL when the kind has no prepare: the caller frees it). With known, an id
 * that names a running or completed job is answered first (submit_known_id):
 * *known is then that job and nothing else is checked. */
static int request_check(cuzk_engine *e, const cuzk_job_request *req, kind_entry **kind, void **prepared,
                         cuzk_job **known)
{
    *prepared = NULL;
    if (known) *known = NULL;
    if (!e || !req || !req->request_id || !*req->request_id || !req->kind ||
        (!req->inputs && req->inputs_len) || req->priority < CUZK_PRIORITY_DEFAULT ||
        req->priority > CUZK_PRIORITY_CRITICAL)
        return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    kind_entry *k = kind_find(e, req->kind);
    int dup = k && known ? submit_known_id(e, k, req, known) : -1;
    pthread_mutex_unlock(&e->mu);
    if (!k) return CUZK_ERR_INVALID_ARG;
    if (dup >= 0) return dup; /* *known set when CUZK_OK */
    if (req->one_partition && req->partition >= k->k.num_partitions) {
        if (req->error && req->error_len)
            snprintf(req->error, req->error_len, "%s: partition %u of %u", req->kind, req->partition,
                     k->k.num_partitions);
        return CUZK_ERR_INVALID_ARG;
    }
    if (k->k.check_inputs) {
        int err = k->k.check_inputs(k->k.ctx, req->inputs, req->inputs_len);
        if (err != CUZK_OK) {
            if (req->error && req->error_len)
                snprintf(req->error, req->error_len, "%s: malformed inputs (%s)", req->kind, cuzk_strerror(err));
            return err;
        }
    }
    if (k->k.prepare) {
        char msg[512] = "";
        int err = k->k.prepare(k->k.ctx, req->inputs, req->inputs_len, prepared, msg, sizeof msg);
        if (err != CUZK_OK) {
            if (req->error && req->error_len)
                snprintf(req->error, req->error_len, "%s", msg[0] ? msg : cuzk_strerror(err));
            return err;
        }
    }
    *kind = k;
    return CUZK_OK;
}

int cuzk_engine_check_request(cuzk_engine *e, const cuzk_job_request *req)
{
    kind_entry *k = NULL;
    void *prepared = NULL;
    int err = request_check(e, req, &k, &prepared, NULL);
    if (prepared) k->k.prepared_free(k->k.ctx, prepared);
    return err;
}

int cuzk_engine_kind_info(cuzk_engine *e, const char *kind, uint32_t *num_partitions, cuzk_priority *priority)
{
    if (!e || !kind) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    kind_entry *k = kind_find(e, kind);
    if (k && num_partitions) *num_partitions = k->k.num_partitions;
    if (k && priority) *priority = k->k.default_priority;
    pthread_mutex_unlock(&e->mu);
    return k ? CUZK_OK : CUZK_ERR_INVALID_ARG;
}

int cuzk_engine_kind_fits(cuzk_engine *e, const char *kind, bool *fits)
{
    if (!e || !kind || !fits) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    kind_entry *k = kind_find(e, kind);
    /* pick_cpu's test: resident parameters need room for
     * the partition only; others their load estimate as well */
    if (k) {
        const srs_entry *s = k->srs;
        uint64_t srs = !s || s->state == CUZK_SRS_HOT ? 0 : s->est_bytes;
        *fits = srs + k->witness_bytes <= e->budget;
    }
    pthread_mutex_unlock(&e->mu);
    return k ? CUZK_OK : CUZK_ERR_INVALID_ARG;
}

int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, cuzk_job **out, bool *duplicate)
{
    if (out) *out = NULL;
    if (duplicate) *duplicate = false;
    if (!out) return CUZK_ERR_INVALID_ARG;
    kind_entry *k = NULL;
    void *prepared = NULL;
    cuzk_job *known = NULL;
    int cerr = request_check(e, req, &k, &prepared, &known);
    if (cerr != CUZK_OK) return cerr;
    if (known) { /* the same request again: its job, without parsing the inputs anew */
        *out = known;
        if (duplicate) *duplicate = true;
        return CUZK_OK;
    }
    cuzk_job *j = calloc(1, sizeof *j);
    if (!j) {
        if (prepared) k->k.prepared_free(k->k.ctx, prepared);
        return CUZK_ERR_NO_MEMORY;
    }
    j->kind = k;
    j->prepared = prepared;
    j->request_id = strdup(req->request_id);
    j->inputs = malloc(req->inputs_len ? req->inputs_len : 1);
    j->nparts = req->one_partition ? 1 : k->k.num_partitions;
    j->one_partition = req->one_partition;
    j->parts = calloc(j->nparts, sizeof *j->parts);
    if (!j->request_id || !j->inputs || !j->parts) {
        job_free(j);
        return CUZK_ERR_NO_MEMORY;
    }
    if (req->inputs_len) memcpy(j->inputs, req->inputs, req->inputs_len);
    j->inputs_len = req->inputs_len;
    j->e = e;
    j->kind = k;
    j->priority = req->priority == CUZK_PRIORITY_DEFAULT ? k->k.default_priority : req->priority;
    for (uint32_t i = 0; i < j->nparts; i++) {
        j->parts[i].index = req->one_partition ? req->partition : i;
        j->parts[i].last_device = j->parts[i].last_worker = -1;
        j->parts[i].avoid_device = j->parts[i].avoid_worker = -1;
        j->parts[i].blame_device = -1;
    }
    j->t_submit = cuzk_now();
    uint32_t to = req->timeout_ms ? req->timeout_ms : e->cfg.default_timeout_ms;
    if (to) j->deadline = j->t_submit + to * 1e-3;

    pthread_mutex_lock(&e->mu);
    cuzk_job *old = map_get(e, req->request_id);
    bool same = old && !old->inputs_dropped && old->kind == k && old->inputs_len == req->inputs_len &&
                !memcmp(old->inputs, j->inputs, req->inputs_len) && old->one_partition == j->one_partition &&
                old->parts[0].index == j->parts[0].index;
    if (old && job_final(old) && old->state != CUZK_JOB_DONE) {
        /* a retry: a job that failed, was cancelled or timed out leaves its
         * id to a new attempt (inputs may differ); the old job stays in the
         * retention ring until it rotates out */
        eng_log(e, 2, "job %s: new attempt (the previous one %s)", req->request_id,
                cuzk_job_state_name(old->state));
        map_del(e, old);
        old = NULL;
    }
    if (old) {
        /* the same request again: the same job; anything else is refused */
        if (same) {
            atomic_fetch_add(&old->refs, 1);
            e->c.jobs_duplicate++;
            eng_log(e, 2, "job %s: submitted again%s%s: the same job (%s)", req->request_id,
                    req->origin ? " by " : "", req->origin ? req->origin : "", cuzk_job_state_name(old->state));
            *out = old;
            if (duplicate) *duplicate = true;
        }
        pthread_mutex_unlock(&e->mu);
        job_free(j);
        return same ? CUZK_OK : CUZK_ERR_INVALID_ARG;
    }
    int err = e->shutdown ? CUZK_ERR_INVALID_ARG : CUZK_OK;
    if (!err && e->nactive == e->active_cap) {
        size_t cap = e->active_cap ? 2 * e->active_cap : 64;
        cuzk_job **a = realloc(e->active, cap * sizeof *a);
        if (a) e->active = a, e->active_cap = cap;
        else err = CUZK_ERR_NO_MEMORY;
    }
    if (!err && !map_put(e, j)) err = CUZK_ERR_NO_MEMORY;
    if (err) {
        pthread_mutex_unlock(&e->mu);
        job_free(j);
        return err;
    }
    j->seq = ++e->next_seq;
    if (e->cfg.job_event) e->cfg.job_event(e->cfg.job_event_ctx, j->request_id, CUZK_JOB_QUEUED);
    atomic_init(&j->refs, 3); /* the table, the active list, the caller */
    size_t pos = e->nactive;
    while (pos > 0 && e->active[pos - 1]->priority < j->priority) pos--;
    memmove(&e->active[pos + 1], &e->active[pos], (e->nactive - pos) * sizeof *e->active);
    e->active[pos] = j;
    e->nactive++;
    e->c.jobs_submitted++;
    eng_log(e, 2, "job %s: %s submitted%s%s (%u partition%s, priority %s)", j->request_id, k->k.name,
            req->origin ? " by " : "", req->origin ? req->origin : "", j->nparts, j->nparts == 1 ? "" : "s",
            cuzk_priority_name(j->priority));
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_cond_broadcast(&e->timer_cv);
    pthread_mutex_unlock(&e->mu);
    *out = j;
    return CUZK_OK;
}

cuzk_job *cuzk_engine_find(cuzk_engine *e, const char *request_id)
{
    if (!e || !request_id) return NULL;
    pthread_mutex_lock(&e->mu);
    cuzk_job *j = map_get(e, request_id);
    if (j) atomic_fetch_add(&j->refs, 1);
    pthread_mutex_unlock(&e->mu);
    return j;
}

int cuzk_job_await(cuzk_job *j, int64_t timeout_ms)
{
    if (!j) return CUZK_ERR_INVALID_ARG;
    cuzk_engine *e = j->e;
    double until = timeout_ms < 0 ? 0 : cuzk_now() + (double)timeout_ms * 1e-3;
    pthread_mutex_lock(&e->mu);
    while (!job_final(j)) {
        if (until != 0 && cuzk_now() >= until) break;
        cv_wait_until(&e->done_cv, &e->mu, until);
    }
    int r = job_final(j) ? j->error : CUZK_ERR_NOT_READY;
    pthread_mutex_unlock(&e->mu);
    return r;
}

int cuzk_job_cancel(cuzk_job *j) { return cuzk_job_cancel_why(j, NULL); }

int cuzk_job_cancel_why(cuzk_job *j, const char *why)
{
    if (!j) return CUZK_ERR_INVALID_ARG;
    cuzk_engine *e = j->e;
    pthread_mutex_lock(&e->mu);
    int r = CUZK_ERR_INVALID_ARG;
    if (!job_final(j)) {
        job_finish(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, "cancelled%s%s", why ? ": " : "", why ? why : "");
        r = CUZK_OK;
    }
    pthread_mutex_unlock(&e->mu);
    return r;
}

void cuzk_job_get_info(cuzk_job *j, cuzk_job_info *o)
{
    memset(o, 0, sizeof *o);
    if (!j) return;
    cuzk_engine *e = j->e;
    pthread_mutex_lock(&e->mu);
    o->state = j->state;
    o->error = j->error;
    o->message = j->message ? j->message : ""; /* set once, freed with the job */
    o->priority = j->priority;
    o->num_partitions = j->nparts;
    o->partitions_done = j->done;
    o->partitions_reproved = j->reproved;
    o->finish_seq = j->finish_seq;
    job_times(j, o);
    pthread_mutex_unlock(&e->mu);
}

const char *cuzk_job_request_id(const cuzk_job *j) { return j ? j->request_id : NULL; }

int cuzk_job_proof(cuzk_job *j, const uint8_t **proof, size_t *len)
{
    if (!j || !proof || !len) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&j->e->mu);
    bool done = j->state == CUZK_JOB_DONE;
    pthread_mutex_unlock(&j->e->mu);
    if (!done) return CUZK_ERR_INVALID_ARG;
    *proof = j->proof; /* immutable once DONE */
    *len = (size_t)j->nparts * CUZK_GROTH16_PROOF_BYTES;
    return CUZK_OK;
}

int cuzk_engine_wait_idle(cuzk_engine *e, int64_t timeout_ms)
{
    if (!e) return CUZK_ERR_INVALID_ARG;
    double until = timeout_ms < 0 ? 0 : cuzk_now() + (double)timeout_ms * 1e-3;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        bool busy = e->nactive > 0;
        for (size_t i = 0; i < e->nsrs && !busy; i++)
            busy = e->srs[i]->state == CUZK_SRS_LOADING || e->srs[i]->pce_state == CUZK_PCE_EXTRACTING;
        if (!busy) break;
        if (until != 0 && cuzk_now() >= until) {
            pthread_mutex_unlock(&e->mu);
            return CUZK_ERR_NOT_READY;
        }
        cv_wait_until(&e->done_cv, &e->mu, until);
    }
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

void cuzk_engine_get_counters(cuzk_engine *e, cuzk_engine_counters *out)
{
    pthread_mutex_lock(&e->mu);
    *out = e->c;
    out->memory_budget = e->budget;
    out->memory_reserved = e->reserved;
    out->memory_peak = e->peak;
    out->jobs_active = 0;
    out->queued_synthesis = 0;
    for (size_t i = 0; i < e->nactive; i++) {
        cuzk_job *j = e->active[i];
        if (job_final(j)) continue;
        out->jobs_active++;
        for (uint32_t q = 0; q < j->nparts; q++) out->queued_synthesis += j->parts[q].state == P_PENDING;
    }
    out->queued_prove = e->n_ready;
    out->queued_verify = e->n_proved;
    out->devices_healthy = e->n_healthy;
    out->synthesis_limit = e->synth_limit;
    out->memory_pinned = e->pinned;
    out->memory_pinned_limit = e->pin_off ? 0 : e->pin_limit;
    out->memory_pinned_peak = e->pinned_peak;
    out->pce_resident_bytes = 0;
    for (size_t i = 0; i < e->nsrs; i++)
        if (e->srs[i]->pce_state == CUZK_PCE_RESIDENT) out->pce_resident_bytes += e->srs[i]->pce_bytes;
    pthread_mutex_unlock(&e->mu);
    out->memory_rss_anon = cuzk_engine_rss_anon(); /* what the reservations stand for, measured */
}

const char *cuzk_engine_device_name(cuzk_engine *e, unsigned d)
{
    if (!e || d >= e->n_devices) return "";
    const char *n = NULL;
    if (e->prover.describe && e->devs[d]) e->prover.describe(e->prover.ctx, e->devs[d], &n, NULL);
    return n ? n : e->prover.name ? e->prover.name : "";
}

bool cuzk_engine_device_failed(cuzk_engine *e, unsigned d, char *reason, size_t reason_len)
{
    if (!e || d >= e->n_devices) return false;
    pthread_mutex_lock(&e->mu);
    bool f = e->dstate[d].failed;
    if (reason && reason_len) snprintf(reason, reason_len, "%s", f ? e->dstate[d].reason : "");
    pthread_mutex_unlock(&e->mu);
    return f;
}
