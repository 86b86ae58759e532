/*
 * The engine's lifecycle: create (workers, devices, the deadline timer),
 * shutdown and destroy; the deadline timer; the counters and the wait for
 * idle. The job table is jobs.c, the scheduling schedule.c, device health
 * devices.c, the threads' loops workers.c, memory and parameters
 * residency.c.
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
        eng_cv_wait_until(&e->timer_cv, &e->mu, next);
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

static unsigned workers_per_device(const cuzk_engine_config *cfg)
{
    return cfg->workers_per_device ? cfg->workers_per_device : 2;
}

unsigned cuzk_engine_prove_threads(const cuzk_engine_config *cfg, unsigned devices)
{
    unsigned th = cfg->prover_threads ? cfg->prover_threads
                                      : cuzk_parallel_cpus() / ((devices ? devices : 1) * workers_per_device(cfg));
    return th ? th : 1;
}

/* The engine's settings from its config: workers, devices, depth, batch,
 * budgets, the prover and the fallback behind its devices (their tables
 * copied: the caller's may go). */
static int engine_configure(cuzk_engine *e)
{
    e->ncpu = cuzk_parallel_cpus();
    /* threads: the configured count, else one per CPU (they also verify);
     * how many synthesize at once follows the kinds (synth_limit_update) */
    e->synth_fixed = e->cfg.synthesis_workers != 0;
    e->n_cpu_workers = e->cfg.synthesis_workers ? e->cfg.synthesis_workers : e->ncpu;
    e->synth_limit = e->n_cpu_workers;
    if (!e->cfg.prover || (e->cfg.fallback && !e->cfg.fallback->prove)) return CUZK_ERR_INVALID_ARG;
    e->prover = *e->cfg.prover;
    e->n_devices = e->cfg.num_devices ? e->cfg.num_devices : e->prover.devices;
    if (e->n_devices == 0) return CUZK_ERR_NO_DEVICE;
    if (!e->prover.prove) return CUZK_ERR_INVALID_ARG;
    e->per_device = workers_per_device(&e->cfg);
    e->n_prove_workers = e->n_devices * e->per_device;
    e->queue_depth = e->cfg.queue_depth ? e->cfg.queue_depth : 2 * e->n_prove_workers;
    e->batch_max = e->cfg.max_batch_size > 1 ? e->cfg.max_batch_size : 1;
    e->batch_wait_ms = e->batch_max > 1 ? e->cfg.max_batch_wait_ms : 0;
    e->retention = e->cfg.job_retention ? e->cfg.job_retention : 4096;
    e->budget = e->cfg.memory_budget ? e->cfg.memory_budget : auto_budget();
    e->c.memory_budget = e->budget;
    /* HOT parameters are page-locked for the prover's uploads */
    e->pin_off = e->cfg.pin == CUZK_PIN_OFF;
    e->pin_limit = e->cfg.pinned_limit ? e->cfg.pinned_limit : e->budget;
    e->max_strikes = e->cfg.device_max_errors ? e->cfg.device_max_errors : 3;
    if (e->cfg.fallback) {
        /* behind the devices, as many workers as a device has */
        e->n_fb_workers = e->per_device;
        e->fallback = *e->cfg.fallback;
    }
    e->cfg.prover = &e->prover;
    e->cfg.fallback = e->n_fb_workers ? &e->fallback : NULL;
    e->n_healthy = e->n_devices;
    if (e->cfg.pce) {
        e->pce = *e->cfg.pce;
        e->have_pce = e->pce.witness != NULL;
    }
    return CUZK_OK;
}

/* The job table, the device and worker arrays, the lock and its conditions. */
static int engine_alloc(cuzk_engine *e)
{
    e->nbuckets = 64;
    e->buckets = calloc(e->nbuckets, sizeof *e->buckets);
    e->fin_cap = e->retention;
    e->finished = calloc(e->fin_cap, sizeof *e->finished);
    e->devs = calloc(e->n_devices + 1, sizeof *e->devs);
    e->dstate = calloc(e->n_devices + 1, sizeof *e->dstate);
    e->workers = calloc(n_threads(e), sizeof *e->workers);
    if (!e->buckets || !e->finished || !e->devs || !e->dstate || !e->workers) {
        free(e->buckets), free(e->finished), free(e->devs), free(e->dstate), free(e->workers);
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
    return CUZK_OK;
}

/* Worker i: CPU workers first, then each device's prover workers, then the
 * CPU fallback's (device n_devices). */
static void worker_init(cuzk_engine *e, unsigned i)
{
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
}

/* Opens the devices and starts the threads; on failure undoes what it
 * started and destroys e. */
static int engine_start(cuzk_engine *e)
{
    unsigned opened = 0, started = 0;
    int err = CUZK_OK;
    for (; opened < e->n_devices && e->prover.open; opened++) {
        err = e->prover.open(e->prover.ctx, opened, e->per_device, &e->devs[opened]);
        if (err != CUZK_OK) break;
    }
    for (unsigned i = 0; err == CUZK_OK && i < n_threads(e); i++) {
        worker_init(e, i);
        worker *w = &e->workers[i];
        if (pthread_create(&w->thread, NULL, w->kind == W_CPU ? cpu_worker_main : prove_worker_main, w))
            err = CUZK_ERR_NO_MEMORY;
        else started++;
    }
    if (err == CUZK_OK) {
        if (pthread_create(&e->timer, NULL, timer_main, e)) err = CUZK_ERR_NO_MEMORY;
        else e->timer_live = true;
    }
    if (err == CUZK_OK) return CUZK_OK;
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

int cuzk_engine_start(cuzk_engine **out, const cuzk_engine_config *cfg)
{
    if (!out) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    if (!cfg || cfg->synthesis_nice > 19) return CUZK_ERR_INVALID_ARG;
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) return CUZK_ERR_NO_MEMORY;
    e->cfg = *cfg;
    int err = engine_configure(e);
    if (err == CUZK_OK) err = engine_alloc(e);
    if (err != CUZK_OK) {
        free(e);
        return err;
    }
    err = engine_start(e);
    if (err != CUZK_OK) return err;
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
    pthread_mutex_lock(&e->mu);
    jobs_free_all(e);
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
        eng_cv_wait_until(&e->done_cv, &e->mu, until);
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

