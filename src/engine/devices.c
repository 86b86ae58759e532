/*
 * Prover devices' health: which worker may take a partition, re-proving
 * away from the device that failed it, the strikes that fail a device,
 * and the jobs that fail when no prover is left.
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

/* Some prover can still take work: a device not failed, or the fallback. */
bool prover_available(const cuzk_engine *e) { return e->n_healthy > 0 || e->n_fb_workers > 0; }

void job_fail_no_prover(cuzk_engine *e, cuzk_job *j)
{
    char why[256] = "";
    for (unsigned d = 0; d < e->n_devices && !why[0]; d++)
        if (e->dstate[d].failed) snprintf(why, sizeof why, " (device %u: %s)", d, e->dstate[d].reason);
    job_finish(e, j, CUZK_JOB_FAILED, CUZK_ERR_NO_DEVICE, "no working prover device: all %u failed%s",
               e->n_devices, why);
}

/* Does worker w's device take work: a device not failed, or the fallback
 * while every device is failed. */
bool worker_usable(const cuzk_engine *e, const worker *w)
{
    if ((unsigned)w->device == e->n_devices) return e->n_healthy == 0;
    return !e->dstate[w->device].failed;
}


/* Can prover worker w take partition p? A re-prove avoids the last device
 * when another usable one exists, else the last worker when its device has
 * others. */
bool prove_eligible(cuzk_engine *e, const worker *w, const part *p)
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
bool reprove_allowed(const cuzk_engine *e, const part *p)
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
            if (i < e->nactive && !job_final(e->active[i]) && e->active[i]->nparts) /* a task proves nothing */
                job_fail_no_prover(e, e->active[i]);
    eng_wake_all(e);
}

/* A failed prove call (err: the prover's error) or an invalid proof
 * (CUZK_ERR_VERIFY_FAILED) on device d, once per call. CUZK_ERR_DEVICE (the
 * GPU layer's "this device is unusable") fails the device at once; other
 * failures count only once the partition proves valid elsewhere
 * (device_strike), so a bad input, which fails everywhere, fails no device. */
void device_failure(cuzk_engine *e, int d, int err, const char *detail)
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
void device_strike(cuzk_engine *e, int d)
{
    if (d < 0 || (unsigned)d >= e->n_devices) return;
    device_state *ds = &e->dstate[d];
    if (ds->failed) return;
    if (++ds->strikes >= e->max_strikes)
        device_fail(e, (unsigned)d, "%u failures in a row that other devices proved valid (last: %s)",
                    ds->strikes, ds->last_err);
}

/* Queues p for another prove attempt, away from where it was last proved. */
void part_requeue(cuzk_engine *e, cuzk_job *j, part *p)
{
    p->avoid_device = p->last_device;
    p->avoid_worker = p->last_worker;
    p->state = P_READY;
    e->n_ready++;
    e->c.partitions_reproved++;
    j->reproved++;
    pthread_cond_broadcast(&e->prove_cv);
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

/* The devices' open contexts are written before the workers start and freed
 * after they are joined, so a finish (run by a worker) reads them unlocked;
 * only the health needs the lock. The hook runs outside it: a device's
 * first lend may create a stream and take a while, and every worker's
 * scheduling waits on that lock. */
int cuzk_job_snarkpack_accel(cuzk_job *job, cuzk_snarkpack_accel *acc)
{
    if (!job || !acc) return CUZK_ERR_INVALID_ARG;
    cuzk_engine *e = job->e;
    memset(acc, 0, sizeof *acc);
    for (unsigned d = 0; e->prover.snarkpack && d < e->n_devices; d++) {
        pthread_mutex_lock(&e->mu);
        bool usable = e->devs[d] && !e->dstate[d].failed;
        pthread_mutex_unlock(&e->mu);
        if (usable && e->prover.snarkpack(e->prover.ctx, e->devs[d], acc) == CUZK_OK) return CUZK_OK;
        memset(acc, 0, sizeof *acc);
    }
    return CUZK_ERR_NO_DEVICE;
}
