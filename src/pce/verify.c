/* Background verification of a loaded PCE's section checksums
 * (CUZK_PCE_LOAD_VERIFY_BACKGROUND): hashing a multi-GB file takes seconds,
 * which a daemon can overlap with its start; the PCE stays unusable
 * (cuzk_pce_ready) until the result is in, so no proof ever uses a file
 * whose checksums have not passed. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "pce_internal.h"

struct pce_verify {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int cancel; /* set by pce_verify_free: the PCE is going away, its verdict is not needed */
    int rc;
    cuzk_pce_error err;
    const uint8_t *img;
    unsigned nthreads;
    uint64_t dev, ino;
    char path[PATH_MAX];
};

static void *verify_main(void *arg)
{
    struct pce_verify *v = arg;
    cuzk_pce_error e;
    memset(&e, 0, sizeof e);
    int rc = pce_check_sections(v->img, v->nthreads, &v->cancel, v->path, &e);
    if (rc == CUZK_ERR_FORMAT) {
        PCE_COUNT(bg_failed, 1);
        /* as the cache's locked path would: set the file aside so the next
         * lookup re-extracts (only if it is still the file we read) */
        pce_set_aside(v->path, v->dev, v->ino, &e, true);
    } else if (rc == CUZK_OK) {
        PCE_COUNT(bg_verified, 1);
    }
    pthread_mutex_lock(&v->mu);
    v->rc = rc;
    v->err = e;
    v->done = true;
    pthread_cond_broadcast(&v->cv);
    pthread_mutex_unlock(&v->mu);
    return NULL;
}

int pce_verify_start(cuzk_pce *p, const char *path, uint64_t dev, uint64_t ino, unsigned nthreads,
                     cuzk_pce_error *err)
{
    struct pce_verify *v = calloc(1, sizeof *v);
    if (!v || snprintf(v->path, sizeof v->path, "%s", path) >= (int)sizeof v->path) {
        free(v);
        return pce_check_sections(p->image, nthreads, NULL, path, err); /* verify now instead */
    }
    v->img = p->image, v->nthreads = nthreads ? nthreads : 1, v->dev = dev, v->ino = ino;
    pthread_mutex_init(&v->mu, NULL);
    pthread_cond_init(&v->cv, NULL);
    if (pthread_create(&v->th, NULL, verify_main, v) != 0) {
        pthread_mutex_destroy(&v->mu);
        pthread_cond_destroy(&v->cv);
        free(v);
        return pce_check_sections(p->image, nthreads, NULL, path, err);
    }
    p->verify = v;
    return CUZK_OK;
}

void pce_verify_free(struct pce_verify *v)
{
    if (!v) return;
    /* freeing must not wait for gigabytes of hashing (an engine evicts under its lock) */
    __atomic_store_n(&v->cancel, 1, __ATOMIC_RELAXED);
    pthread_join(v->th, NULL);
    pthread_mutex_destroy(&v->mu);
    pthread_cond_destroy(&v->cv);
    free(v);
}

int cuzk_pce_ready(const cuzk_pce *p, cuzk_pce_error *err)
{
    if (!p) return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, NULL, 0, NULL, "no PCE");
    struct pce_verify *v = p->verify;
    if (!v) return CUZK_OK;
    pthread_mutex_lock(&v->mu);
    while (!v->done) pthread_cond_wait(&v->cv, &v->mu);
    int rc = v->rc;
    if (rc && err) *err = v->err;
    pthread_mutex_unlock(&v->mu);
    return rc;
}
