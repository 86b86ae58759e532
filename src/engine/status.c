/*
 * The JSON status snapshot, written with a small emitter: a growable
 * buffer, automatic commas, RFC 8259 string escaping. Numbers are integers
 * or finite doubles (non-finite values are written as null).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "engine/engine_internal.h"

typedef struct jw {
    char *buf;
    size_t len, cap;
    bool oom;
    bool first[32]; /* per nesting level: nothing written yet */
    int depth;
} jw;

static void jw_raw(jw *w, const char *s, size_t n)
{
    if (w->oom) return;
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 1024;
        while (cap < w->len + n + 1) cap *= 2;
        char *b = realloc(w->buf, cap);
        if (!b) {
            w->oom = true;
            return;
        }
        w->buf = b, w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}

static void jw_fmt(jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jw_fmt(jw *w, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) jw_raw(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void jw_str(jw *w, const char *s)
{
    jw_raw(w, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            jw_raw(w, esc, 2);
        } else if (*p < 0x20) {
            jw_fmt(w, "\\u%04x", *p);
        } else {
            jw_raw(w, (const char *)p, 1);
        }
    }
    jw_raw(w, "\"", 1);
}

/* a comma unless first at this level */
static void jw_sep(jw *w)
{
    if (!w->first[w->depth]) jw_raw(w, ",", 1);
    w->first[w->depth] = false;
}

static void jw_key(jw *w, const char *k)
{
    jw_sep(w);
    jw_str(w, k);
    jw_raw(w, ":", 1);
}

static void jw_open(jw *w, const char *key, char c)
{
    if (key) jw_key(w, key);
    else jw_sep(w);
    jw_raw(w, &c, 1);
    if (w->depth + 1 < (int)(sizeof w->first / sizeof w->first[0])) w->depth++;
    w->first[w->depth] = true;
}

static void jw_close(jw *w, char c)
{
    jw_raw(w, &c, 1);
    if (w->depth > 0) w->depth--;
}

static void kv_u64(jw *w, const char *k, uint64_t v)
{
    jw_key(w, k);
    jw_fmt(w, "%llu", (unsigned long long)v);
}

static void kv_dbl(jw *w, const char *k, double v)
{
    jw_key(w, k);
    if (isfinite(v)) jw_fmt(w, "%.6f", v);
    else jw_raw(w, "null", 4);
}

static void kv_str(jw *w, const char *k, const char *v)
{
    jw_key(w, k);
    jw_str(w, v);
}

static void kv_bool(jw *w, const char *k, bool v)
{
    jw_key(w, k);
    jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

const char *srs_state_name(cuzk_srs_state s)
{
    static const char *n[] = {"cold", "warm", "loading", "hot"};
    return (unsigned)s < 4 ? n[s] : "unknown";
}

const char *pce_state_name(cuzk_pce_state s)
{
    static const char *n[] = {"none", "extracting", "resident", "failed"};
    return (unsigned)s < 4 ? n[s] : "unknown";
}

static const char *pin_how_name(cuzk_engine_pin_how how)
{
    static const char *n[] = {"none", "device", "mlock"};
    return (unsigned)how < 3 ? n[how] : "unknown";
}

/* The engine's settings as it runs them (defaults resolved). */
static void status_config(jw *w, cuzk_engine *e)
{
    jw_open(w, "config", '{');
    kv_u64(w, "synthesis_workers", e->n_cpu_workers);
    kv_u64(w, "synthesis_limit", e->synth_limit);
    kv_bool(w, "synthesis_workers_configured", e->synth_fixed);
    kv_u64(w, "synthesis_threads", e->cfg.synthesis_threads); /* per partition; 0: a share of the CPUs */
    kv_u64(w, "synthesis_nice", e->cfg.synthesis_nice);
    kv_u64(w, "device_max_errors", e->max_strikes);
    kv_bool(w, "cpu_fallback", e->n_fb_workers > 0);
    kv_u64(w, "devices", e->n_devices);
    kv_u64(w, "workers_per_device", e->per_device);
    kv_str(w, "prover", e->prover.name);
    kv_u64(w, "queue_depth", queue_limit(e));
    kv_dbl(w, "synthesis_mean_s", e->synth_mean_s);
    kv_dbl(w, "prove_mean_s", e->prove_mean_s);
    kv_u64(w, "max_batch_size", e->batch_max);
    kv_u64(w, "max_batch_wait_ms", e->batch_wait_ms);
    kv_bool(w, "pce", e->have_pce);
    kv_bool(w, "pack_witness", e->prover.pack_witness); /* with PCE: witnesses held packed */
    jw_close(w, '}');
}

/* The host memory budget, its reservations and page-locking. */
static void status_memory(jw *w, cuzk_engine *e, const cuzk_engine_counters *c)
{
    jw_open(w, "memory", '{');
    kv_u64(w, "budget", e->budget);
    kv_u64(w, "reserved", e->reserved);
    kv_u64(w, "peak", e->peak);
    kv_u64(w, "rss_anon", c->memory_rss_anon);
    kv_u64(w, "pinned_memory_bytes", e->pinned);
    kv_u64(w, "pinned_memory_limit_bytes", e->pin_off ? 0 : e->pin_limit);
    kv_u64(w, "pinned_peak", e->pinned_peak);
    /* how HOT parameters are page-locked: off, or the last pin's method
     * ("cuda"; "mlock" is the best-effort fallback without CUDA) */
    kv_str(w, "pinning", e->pin_off ? "off" : pin_how_name(e->pin_last));
    kv_str(w, "pinning_note", e->pin_note);
    kv_u64(w, "pce_resident", c->pce_resident_bytes);
    jw_close(w, '}');
}

/* Jobs and partitions waiting at each stage. */
static void status_queues(jw *w, cuzk_engine *e, const cuzk_engine_counters *c)
{
    jw_open(w, "queues", '{');
    kv_u64(w, "jobs_active", c->jobs_active);
    kv_u64(w, "synthesis_pending", c->queued_synthesis);
    kv_u64(w, "synthesizing", e->n_synth);
    kv_u64(w, "prove", e->n_ready);
    kv_u64(w, "verify", e->n_proved);
    jw_close(w, '}');
}

/* The counters since start. */
static void status_counters(jw *w, cuzk_engine *e, const cuzk_engine_counters *c)
{
    jw_open(w, "counters", '{');
#define U(f) kv_u64(w, #f, c->f)
    U(jobs_submitted), U(jobs_duplicate), U(jobs_done), U(jobs_failed), U(jobs_cancelled);
    U(jobs_timed_out), U(partitions_synthesized), U(partitions_proved), U(partitions_verified);
    U(partitions_invalid), U(partitions_reproved), U(synthesis_errors), U(prover_errors),
        U(prover_out_of_memory);
    U(pce_fast_path), U(pce_extractions), U(pce_failures), U(srs_hits), U(srs_loads);
    U(srs_evictions), U(srs_host_released), U(batches), U(batched_partitions), U(memory_waits), U(pce_evictions);
    U(devices_failed), U(pin_over_limit);
#undef U
    kv_dbl(w, "synthesis_busy_s", c->synthesis_busy_s);
    kv_dbl(w, "prove_busy_s", c->prove_busy_s);
    kv_dbl(w, "verify_busy_s", c->verify_busy_s);
    kv_dbl(w, "srs_load_busy_s", c->srs_load_busy_s);
    jw_close(w, '}');
}

/* Each thread: its kind, device and what it does now. */
static void status_workers(jw *w, cuzk_engine *e)
{
    jw_open(w, "workers", '[');
    for (unsigned i = 0; i < e->n_cpu_workers + e->n_prove_workers + e->n_fb_workers; i++) {
        worker *wk = &e->workers[i];
        jw_open(w, NULL, '{');
        kv_str(w, "kind", wk->kind == W_CPU ? "cpu" : "prover");
        kv_u64(w, "id", (uint64_t)wk->id);
        if (wk->kind == W_PROVE && (unsigned)wk->device == e->n_devices) kv_str(w, "device", "cpu-fallback");
        else if (wk->kind == W_PROVE) kv_u64(w, "device", (uint64_t)wk->device);
        kv_str(w, "doing", wk->doing);
        kv_u64(w, "tasks", wk->tasks);
        kv_dbl(w, "busy_s", wk->busy_s);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

/* Each prover device (and the CPU fallback): health and device memory. */
static void status_devices(jw *w, cuzk_engine *e)
{
    jw_open(w, "devices", '[');
    for (unsigned d = 0; d < e->n_devices; d++) {
        jw_open(w, NULL, '{');
        kv_u64(w, "index", d);
        kv_str(w, "backend", e->prover.name);
        kv_str(w, "name", cuzk_engine_device_name(e, d));
        kv_u64(w, "workers", e->per_device);
        device_state *ds = &e->dstate[d];
        kv_str(w, "state", ds->failed ? "failed" : "ok");
        kv_bool(w, "failed", ds->failed);
        kv_str(w, "reason", ds->reason);
        kv_str(w, "last_error", ds->last_err);
        kv_u64(w, "errors", ds->errors);
        kv_u64(w, "invalid", ds->invalid);
        kv_u64(w, "proved", ds->proved);
        kv_u64(w, "strikes", ds->strikes);
        cuzk_engine_device_mem mem;
        if (cuzk_engine_device_memory(e, d, &mem) == CUZK_OK) {
            kv_u64(w, "memory_total_bytes", mem.total);
            kv_u64(w, "memory_free_bytes", mem.free_bytes);
            kv_u64(w, "memory_budget_bytes", mem.budget);
            kv_u64(w, "memory_held_bytes", mem.held);
            kv_str(w, "memory_plan", mem.plan);
        }
        jw_close(w, '}');
    }
    if (e->n_fb_workers) {
        device_state *ds = &e->dstate[e->n_devices];
        jw_open(w, NULL, '{');
        kv_u64(w, "index", e->n_devices);
        kv_bool(w, "fallback", true);
        kv_str(w, "backend", e->fallback.name);
        kv_str(w, "name", "CPU prover (fallback when every device has failed)");
        kv_u64(w, "workers", e->n_fb_workers);
        kv_str(w, "state", e->n_healthy ? "standby" : "active");
        kv_bool(w, "failed", false);
        kv_u64(w, "proved", ds->proved);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

/* Each parameter set: its residency, keys and PCE. */
static void status_circuits(jw *w, cuzk_engine *e)
{
    jw_open(w, "circuits", '[');
    for (size_t i = 0; i < e->nsrs; i++) {
        srs_entry *s = e->srs[i];
        jw_open(w, NULL, '{');
        kv_str(w, "circuit_id", s->circuit_id);
        kv_str(w, "source", s->path ? s->path : "<memory>");
        if (s->vk_path) kv_str(w, "vk", s->vk_path);
        /* whose keys its proofs carry, from the last successful load */
        kv_str(w, "keys", cuzk_engine_keys_name(s->keys));
        if (s->keys_note) kv_str(w, "keys_note", s->keys_note);
        bool failed = s->state != CUZK_SRS_HOT && s->state != CUZK_SRS_LOADING && srs_failed(s);
        kv_str(w, "srs", failed ? "failed" : srs_state_name(s->state));
        if (failed) {
            kv_str(w, "srs_error", s->fail_msg);
            kv_u64(w, "srs_failed_at", (uint64_t)s->fail_time);
        }
        kv_u64(w, "srs_bytes", s->bytes);
        kv_u64(w, "refs", s->refs);
        kv_u64(w, "loads", s->loads);
        kv_u64(w, "hits", s->hits);
        kv_dbl(w, "load_s", s->load_s);
        kv_str(w, "pinned", pin_how_name(s->pin_how));
        kv_u64(w, "pinned_bytes", s->pinned_bytes);
        kv_bool(w, "host_released", s->host_released);
        kv_str(w, "pce", pce_state_name(s->pce_state));
        kv_u64(w, "pce_bytes", s->pce_bytes);
        kv_u64(w, "pce_refs", s->pce_refs);
        kv_u64(w, "pce_evictions", s->pce_evictions);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

/* The active jobs. */
static void status_jobs(jw *w, cuzk_engine *e)
{
    jw_open(w, "jobs", '[');
    for (size_t i = 0; i < e->nactive; i++) {
        cuzk_job *j = e->active[i];
        jw_open(w, NULL, '{');
        kv_str(w, "request_id", j->request_id);
        kv_str(w, "kind", j->kind->k.name);
        kv_str(w, "state", cuzk_job_state_name(j->state));
        kv_str(w, "priority", cuzk_priority_name(j->priority));
        kv_u64(w, "partitions", j->nparts);
        if (j->one_partition) kv_u64(w, "partition", j->parts[0].index);
        kv_u64(w, "done", j->done);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

char *cuzk_engine_status_json(cuzk_engine *e)
{
    if (!e) return NULL;
    cuzk_engine_counters c;
    cuzk_engine_get_counters(e, &c);
    jw w = {0};
    w.first[0] = true;
    pthread_mutex_lock(&e->mu);
    jw_open(&w, NULL, '{');
    status_config(&w, e);
    status_memory(&w, e, &c);
    status_queues(&w, e, &c);
    status_counters(&w, e, &c);
    status_workers(&w, e);
    status_devices(&w, e);
    status_circuits(&w, e);
    status_jobs(&w, e);
    jw_close(&w, '}');
    pthread_mutex_unlock(&e->mu);
    if (w.oom) {
        free(w.buf);
        return NULL;
    }
    return w.buf;
}

unsigned cuzk_engine_num_devices(cuzk_engine *e) { return e ? e->n_devices : 0; }

int cuzk_engine_device_memory(cuzk_engine *e, unsigned d, cuzk_engine_device_mem *out)
{
    memset(out, 0, sizeof *out);
    if (!e || d >= e->n_devices || !e->devs[d] || !e->prover.describe) return CUZK_ERR_NO_DEVICE;
    const char *name = NULL;
    return e->prover.describe(e->prover.ctx, e->devs[d], &name, out);
}

size_t cuzk_engine_prover_workers(cuzk_engine *e, cuzk_engine_prover_worker *out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&e->mu);
    for (unsigned i = 0; i < e->n_cpu_workers + e->n_prove_workers + e->n_fb_workers && n < max; i++) {
        const worker *wk = &e->workers[i];
        if (wk->kind != W_PROVE) continue;
        cuzk_engine_prover_worker *o = &out[n++];
        memset(o, 0, sizeof *o);
        o->device = (unsigned)wk->device;
        o->slot = (unsigned)wk->slot;
        snprintf(o->doing, sizeof o->doing, "%s", wk->doing);
        /* set with doing = "prove" and cleared when the prove is over, both
         * under this lock: the job is alive while it is here */
        if (wk->job) {
            snprintf(o->job_id, sizeof o->job_id, "%s", wk->job->request_id);
            snprintf(o->kind, sizeof o->kind, "%s", wk->job->kind->k.name);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return n;
}

/* devs and the backend are fixed between create and destroy: no lock. */
