/*
 * The job table and the job API: jobs by request id (a hash table), the
 * active list in priority order, the retention ring of finished jobs, a
 * job's end (its one log line, its proof), and submit, find, await,
 * cancel and info for the daemon.
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


void part_release(cuzk_engine *e, part *p)
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

/* Partition p leaves the work for good: released, then dropped. */
void part_drop(cuzk_engine *e, part *p)
{
    part_release(e, p);
    p->state = P_DROPPED;
}

/* A finished job leaves the active list once no thread works on it. */
void job_maybe_retire(cuzk_engine *e, cuzk_job *j)
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

void job_finish(cuzk_engine *e, cuzk_job *j, cuzk_job_state st, int err, const char *fmt, ...)
{
    if (job_final(j)) return;
    j->state = st;
    atomic_store(&j->stopped, true);
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
            part_drop(e, p);
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

void job_complete(cuzk_engine *e, cuzk_job *j)
{
    j->proof_len = (size_t)j->nparts * CUZK_GROTH16_PROOF_BYTES;
    j->proof = malloc(j->proof_len ? j->proof_len : 1); /* a task's finish gets no proofs */
    if (!j->proof) {
        job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_MEMORY, "no memory for the proof");
        return;
    }
    for (uint32_t i = 0; i < j->nparts; i++)
        cuzk_groth16_proof_encode(j->proof + (size_t)i * CUZK_GROTH16_PROOF_BYTES, &j->parts[i].proof);
    if (!j->kind->k.finish || j->one_partition) {
        job_finish(e, j, CUZK_JOB_DONE, CUZK_OK, NULL);
        return;
    }
    const cuzk_engine_kind *k = &j->kind->k;
    uint8_t *out = NULL;
    size_t out_len = 0;
    char err[512] = "";
    j->busy++;
    pthread_mutex_unlock(&e->mu);
    double t0 = cuzk_now();
    int rc = k->finish(k->ctx, j, j->inputs, j->inputs_len, j->prepared, j->proof, j->proof_len, &out, &out_len,
                       err, sizeof err);
    double t1 = cuzk_now();
    pthread_mutex_lock(&e->mu);
    j->busy--;
    j->verify_s += t1 - t0;
    free(j->proof);
    j->proof = rc ? NULL : out;
    j->proof_len = rc ? 0 : out_len;
    if (rc) free(out);
    if (rc && job_final(j)) /* stopped early for its cancellation or deadline: where, for the log */
        eng_log(e, 2, "job %s: its %s finish stopped: %s", j->request_id, k->name, err[0] ? err : cuzk_strerror(rc));
    if (rc) job_finish(e, j, CUZK_JOB_FAILED, rc, "%s", err[0] ? err : cuzk_strerror(rc));
    else job_finish(e, j, CUZK_JOB_DONE, CUZK_OK, NULL); /* no-op when cancelled meanwhile */
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

/* A new job for req of kind k (prepared: its parsed inputs, owned by the
 * job from here), not yet in the table; NULL when out of memory. */
static cuzk_job *job_new(cuzk_engine *e, kind_entry *k, const cuzk_job_request *req, void *prepared)
{
    cuzk_job *j = calloc(1, sizeof *j);
    if (!j) {
        if (prepared) k->k.prepared_free(k->k.ctx, prepared);
        return NULL;
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
        return NULL;
    }
    if (req->inputs_len) memcpy(j->inputs, req->inputs, req->inputs_len);
    j->inputs_len = req->inputs_len;
    j->e = e;
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
    return j;
}

/* The id's job already in the table (under e->mu), for j's request: the
 * same request is that job (*out referenced, true); a failed, cancelled or
 * timed-out one leaves its id to j (a retry; it stays in the retention
 * ring until it rotates out); anything else is refused (*err). False: j
 * goes in. */
static bool job_known(cuzk_engine *e, const cuzk_job *j, const cuzk_job_request *req, cuzk_job **out, int *err)
{
    cuzk_job *old = map_get(e, req->request_id);
    if (!old) return false;
    if (job_final(old) && old->state != CUZK_JOB_DONE) {
        eng_log(e, 2, "job %s: new attempt (the previous one %s)", req->request_id, cuzk_job_state_name(old->state));
        map_del(e, old);
        return false;
    }
    const bool same = !old->inputs_dropped && old->kind == j->kind && old->inputs_len == j->inputs_len &&
                      !memcmp(old->inputs, j->inputs, j->inputs_len) && old->one_partition == j->one_partition &&
                      old->parts[0].index == j->parts[0].index;
    *err = same ? CUZK_OK : CUZK_ERR_INVALID_ARG;
    if (same) {
        atomic_fetch_add(&old->refs, 1);
        e->c.jobs_duplicate++;
        eng_log(e, 2, "job %s: submitted again%s%s: the same job (%s)", req->request_id, req->origin ? " by " : "",
                req->origin ? req->origin : "", cuzk_job_state_name(old->state));
        *out = old;
    }
    return true;
}

/* j into the table and the active list, after the jobs of its priority
 * and above (under e->mu). */
static int job_admit(cuzk_engine *e, cuzk_job *j, const cuzk_job_request *req)
{
    if (e->shutdown) return CUZK_ERR_INVALID_ARG;
    if (e->nactive == e->active_cap) {
        size_t cap = e->active_cap ? 2 * e->active_cap : 64;
        cuzk_job **a = realloc(e->active, cap * sizeof *a);
        if (!a) return CUZK_ERR_NO_MEMORY;
        e->active = a, e->active_cap = cap;
    }
    if (!map_put(e, j)) return CUZK_ERR_NO_MEMORY;
    j->seq = ++e->next_seq;
    if (e->cfg.job_event) e->cfg.job_event(e->cfg.job_event_ctx, j->request_id, CUZK_JOB_QUEUED);
    atomic_init(&j->refs, 3); /* the table, the active list, the caller */
    size_t pos = e->nactive;
    while (pos > 0 && e->active[pos - 1]->priority < j->priority) pos--;
    memmove(&e->active[pos + 1], &e->active[pos], (e->nactive - pos) * sizeof *e->active);
    e->active[pos] = j;
    e->nactive++;
    e->c.jobs_submitted++;
    eng_log(e, 2, "job %s: %s submitted%s%s (%u partition%s, priority %s)", j->request_id, j->kind->k.name,
            req->origin ? " by " : "", req->origin ? req->origin : "", j->nparts, j->nparts == 1 ? "" : "s",
            cuzk_priority_name(j->priority));
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_cond_broadcast(&e->timer_cv);
    return CUZK_OK;
}

int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, cuzk_job **out, bool *duplicate)
{
    if (out) *out = NULL;
    if (duplicate) *duplicate = false;
    if (!out) return CUZK_ERR_INVALID_ARG;
    kind_entry *k = NULL;
    void *prepared = NULL;
    cuzk_job *known = NULL;
    int err = request_check(e, req, &k, &prepared, &known);
    if (err != CUZK_OK) return err;
    if (known) { /* the same request again: its job, without parsing the inputs anew */
        *out = known;
        if (duplicate) *duplicate = true;
        return CUZK_OK;
    }
    cuzk_job *j = job_new(e, k, req, prepared);
    if (!j) return CUZK_ERR_NO_MEMORY;
    pthread_mutex_lock(&e->mu);
    if (job_known(e, j, req, out, &err)) {
        pthread_mutex_unlock(&e->mu);
        job_free(j);
        if (err == CUZK_OK && duplicate) *duplicate = true;
        return err;
    }
    err = job_admit(e, j, req);
    pthread_mutex_unlock(&e->mu);
    if (err != CUZK_OK) {
        job_free(j);
        return err;
    }
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
        eng_cv_wait_until(&e->done_cv, &e->mu, until);
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
    *len = j->proof_len;
    return CUZK_OK;
}


/* The table's references, once every thread is gone (cuzk_engine_destroy):
 * jobs still listed had a thread on them; the ring's and the table's go. */
void jobs_free_all(cuzk_engine *e)
{
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
}

bool cuzk_job_stopped(const cuzk_job *j)
{
    return j && atomic_load(&j->stopped);
}

void cuzk_job_logf(cuzk_job *j, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = cuzk_vstrf(fmt, ap);
    va_end(ap);
    eng_log(j->e, level, "job %s: %s", j->request_id, msg ? msg : fmt);
    free(msg);
}
