/* The PCE cache directory: "<id>.pce" files, one "<id>.pce.lock" per circuit
 * (flock: a single extraction across threads and processes), temporaries
 * "<id>.pce.tmp.*" from cuzk_pce_save, and "<id>.pce.rejected" for the
 * last file set aside. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "pce_internal.h"

#define TMP_INFIX ".pce.tmp."

static int lock_open(const char *dir, const char *id)
{
    char lp[PATH_MAX];
    if (snprintf(lp, sizeof lp, "%s/%s.pce.lock", dir, id) >= (int)sizeof lp) return -1;
    return open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

/* Removes "<id>.pce.tmp.*" (only id) or every "*.pce.tmp.*" whose id lock
 * can be taken now (id NULL). The caller holds id's lock in the first case. */
static int remove_temps(const char *dir, const char *id)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int removed = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *inf = strstr(de->d_name, TMP_INFIX);
        if (!inf || inf == de->d_name) continue;
        size_t idlen = (size_t)(inf - de->d_name);
        char tid[CUZK_PCE_ID_MAX];
        if (idlen >= sizeof tid) continue;
        memcpy(tid, de->d_name, idlen);
        tid[idlen] = 0;
        if (id && strcmp(id, tid)) continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path) continue;
        int lfd = -1;
        if (!id) { /* a live writer holds the lock: leave its temporary alone */
            lfd = lock_open(dir, tid);
            if (lfd < 0 || pce_lock_take(lfd, false) != 0) {
                if (lfd >= 0) close(lfd);
                continue;
            }
        }
        if (unlink(path) == 0) {
            removed++;
            pce_logf("%s: removed a temporary left by an interrupted write", path);
        }
        if (lfd >= 0) close(lfd); /* closing releases the lock */
    }
    closedir(d);
    return removed;
}

int cuzk_pce_cache_clean(const char *dir) { return dir ? remove_temps(dir, NULL) : -1; }

static int extract(cuzk_pce **out, const char *id, const uint8_t *fp, cuzk_pce_synth_fn synth, void *ctx,
                   unsigned nthreads, cuzk_pce_error *err)
{
    cuzk_recording_cs *r = cuzk_recording_cs_new();
    if (!r) return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, id, 0, NULL, "out of memory");
    int rc = cuzk_cs_alloc_one(&r->base);
    if (!rc) rc = synth(&r->base, ctx);
    if (!rc) rc = cuzk_cs_error(&r->base);
    if (!rc) rc = cuzk_cs_finalize(&r->base);
    if (rc) {
        pce_set_err(err, rc, CUZK_PCE_FAIL_ARG, id, 0, NULL, "synthesis for extraction failed: %s",
                    cuzk_strerror(rc));
    } else {
        rc = cuzk_pce_from_recording(out, r, id, fp, 0, nthreads, err);
    }
    cuzk_cs_free(&r->base);
    return rc;
}

/* The checks both cache entry points make; path = "<dir>/<id>.pce". */
static int cache_args(cuzk_pce **out, const cuzk_pce_cache_opts *o, const char *id, const uint8_t *fingerprint,
                      char path[PATH_MAX], cuzk_pce_error *err)
{
    if (!out || !o || !o->dir || !id || !fingerprint || strlen(id) >= CUZK_PCE_ID_MAX || strchr(id, '/') || !*id)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, id, 0, NULL, "bad cache arguments");
    *out = NULL;
    if (snprintf(path, PATH_MAX, "%s/%s.pce", o->dir, id) >= PATH_MAX - 16 /* room for ".rejected" */)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, id, 0, NULL, "path too long");
    return CUZK_OK;
}

int cuzk_pce_cache_load(cuzk_pce **out, const cuzk_pce_cache_opts *o, const char *id,
                        const uint8_t fingerprint[CUZK_PCE_HASH_BYTES], cuzk_pce_error *err)
{
    char path[PATH_MAX];
    int rc = cache_args(out, o, id, fingerprint, path, err);
    if (rc) return rc;
    struct stat st;
    if (stat(path, &st) != 0) /* none cached: nothing to say */
        return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, 0, NULL, "%s", strerror(errno));
    const cuzk_pce_expect ex = {.circuit_id = id, .fingerprint = fingerprint};
    const unsigned nt = o->nthreads ? o->nthreads : 1, flags = o->verify_background ? CUZK_PCE_LOAD_VERIFY_BACKGROUND : 0;
    cuzk_pce_error le;
    memset(&le, 0, sizeof le);
    rc = cuzk_pce_load_file(out, path, &ex, flags, nt, &le);
    if (rc != CUZK_ERR_FORMAT) {
        if (rc && err) *err = le;
        return rc;
    }
    /* judged again under the lock (a writer may have replaced it), then
     * reported and set aside now, not at the first proof */
    int lfd = lock_open(o->dir, id);
    if (lfd < 0 || pce_lock_take(lfd, true) != 0) {
        if (lfd >= 0) close(lfd);
        if (err) *err = le;
        return rc;
    }
    memset(&le, 0, sizeof le);
    rc = cuzk_pce_load_file(out, path, &ex, flags, nt, &le);
    if (rc == CUZK_ERR_FORMAT) pce_set_aside(path, 0, 0, &le, false);
    close(lfd);
    if (rc && err) *err = le;
    return rc;
}

int cuzk_pce_cache_get(cuzk_pce **out, const cuzk_pce_cache_opts *o, const char *id,
                       const uint8_t fingerprint[CUZK_PCE_HASH_BYTES], cuzk_pce_synth_fn synth, void *ctx,
                       cuzk_pce_cache_outcome *outcome, cuzk_pce_error *err)
{
    cuzk_pce_cache_outcome dummy;
    if (!outcome) outcome = &dummy;
    *outcome = 0;
    char path[PATH_MAX];
    if (!synth)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, id, 0, NULL, "bad cache arguments");
    int arc = cache_args(out, o, id, fingerprint, path, err);
    if (arc) return arc;
    const cuzk_pce_expect ex = {.circuit_id = id, .fingerprint = fingerprint};
    const unsigned nt = o->nthreads ? o->nthreads : 1;

    /* Fast path: a valid file, no lock (files appear only by rename). Its
     * failures are judged again under the lock, and logged there once. */
    if (cuzk_pce_load_file(out, path, &ex, o->verify_background ? CUZK_PCE_LOAD_VERIFY_BACKGROUND : 0, nt, NULL) ==
        CUZK_OK) {
        *outcome = CUZK_PCE_CACHE_LOADED;
        return CUZK_OK;
    }

    int lfd = lock_open(o->dir, id);
    if (lfd < 0)
        return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, 0, NULL, "lock file: %s", strerror(errno));
    if (pce_lock_take(lfd, !o->no_wait) != 0) {
        int e = errno;
        close(lfd);
        if (e == EWOULDBLOCK) {
            *outcome = CUZK_PCE_CACHE_BUSY;
            return CUZK_OK;
        }
        return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, 0, NULL, "flock: %s", strerror(e));
    }
    remove_temps(o->dir, id);

    int rc;
    struct stat st;
    if (stat(path, &st) == 0 || errno != ENOENT) {
        cuzk_pce_error le;
        memset(&le, 0, sizeof le);
        rc = cuzk_pce_load_file(out, path, &ex, 0, nt, &le);
        if (rc == CUZK_OK) { /* written by another thread or process meanwhile */
            close(lfd);
            *outcome = CUZK_PCE_CACHE_LOADED;
            return CUZK_OK;
        }
        pce_set_aside(path, 0, 0, &le, false); /* we hold the lock */
    }

    rc = extract(out, id, fingerprint, synth, ctx, nt, err);
    if (rc == CUZK_OK) {
        cuzk_pce_error se;
        if (cuzk_pce_save(*out, path, &se) != CUZK_OK) pce_logf("%s; the PCE is used from memory", se.msg);
        *outcome = CUZK_PCE_CACHE_EXTRACTED;
    }
    close(lfd);
    return rc;
}
