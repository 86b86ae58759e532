/* What the PCE files share: the library version and counters, errors and
 * their names, the log, SHA-256, the content hash and the section checksums.
 * The checked view of an image: view.c; extraction from a RecordingCS:
 * extract.c; files: file.c; the cache directory: cache.c; evaluation:
 * eval.c (layout: docs/pce.md). */
#define _GNU_SOURCE
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "cuzk/util/sha256.h"
#include "cuzk/util/strf.h"
#include "pce_internal.h"

#ifndef CUZK_LIB_VERSION
#define CUZK_LIB_VERSION "unknown"
#endif

cuzk_pce_counters pce_counters;

const char *const pce_section_names[PCE_NUM_SECTIONS + 1] = {
    "", "A.row_ptr", "A.col", "A.code", "B.row_ptr", "B.col", "B.code",
    "C.row_ptr", "C.col", "C.code", "coeffs"};

const char *cuzk_pce_library_version(void) { return CUZK_LIB_VERSION; }

void cuzk_pce_counters_get(cuzk_pce_counters *out)
{
    out->evals = __atomic_load_n(&pce_counters.evals, __ATOMIC_RELAXED);
    out->eval_nnz = __atomic_load_n(&pce_counters.eval_nnz, __ATOMIC_RELAXED);
    out->extractions = __atomic_load_n(&pce_counters.extractions, __ATOMIC_RELAXED);
    out->loads = __atomic_load_n(&pce_counters.loads, __ATOMIC_RELAXED);
    out->load_failures = __atomic_load_n(&pce_counters.load_failures, __ATOMIC_RELAXED);
    out->saves = __atomic_load_n(&pce_counters.saves, __ATOMIC_RELAXED);
    out->set_aside = __atomic_load_n(&pce_counters.set_aside, __ATOMIC_RELAXED);
    out->bg_verified = __atomic_load_n(&pce_counters.bg_verified, __ATOMIC_RELAXED);
    out->bg_failed = __atomic_load_n(&pce_counters.bg_failed, __ATOMIC_RELAXED);
}

const char *cuzk_pce_fail_name(cuzk_pce_fail f)
{
    switch (f) {
    case CUZK_PCE_FAIL_NONE: return "none";
    case CUZK_PCE_FAIL_IO: return "i/o";
    case CUZK_PCE_FAIL_TRUNCATED: return "truncated";
    case CUZK_PCE_FAIL_MAGIC: return "bad magic";
    case CUZK_PCE_FAIL_VERSION: return "format version";
    case CUZK_PCE_FAIL_LIBRARY_VERSION: return "library version";
    case CUZK_PCE_FAIL_CIRCUIT_ID: return "circuit id";
    case CUZK_PCE_FAIL_FINGERPRINT: return "circuit fingerprint";
    case CUZK_PCE_FAIL_HEADER_CHECKSUM: return "header checksum";
    case CUZK_PCE_FAIL_SECTION_CHECKSUM: return "section checksum";
    case CUZK_PCE_FAIL_CONTENT_HASH: return "content hash";
    case CUZK_PCE_FAIL_STRUCTURE: return "structure";
    case CUZK_PCE_FAIL_WITNESS: return "witness size";
    case CUZK_PCE_FAIL_ARG: return "argument";
    }
    return "unknown";
}

int pce_set_err(cuzk_pce_error *e, int code, cuzk_pce_fail fail, const char *src, uint64_t off,
                const char *section, const char *fmt, ...)
{
    if (!e) return code;
    e->code = code;
    e->fail = fail;
    e->offset = off;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (section && *section)
        snprintf(e->msg, sizeof e->msg, "%s: %s at byte offset %llu: %s", src ? src : "<memory>",
                 section, (unsigned long long)off, why);
    else
        snprintf(e->msg, sizeof e->msg, "%s: %s", src ? src : "<memory>", why);
    return code;
}

/* ---- logging ---- */

static cuzk_pce_log_fn log_fn;
static void *log_ctx;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

void cuzk_pce_set_log(cuzk_pce_log_fn fn, void *ctx)
{
    pthread_mutex_lock(&log_mu);
    log_fn = fn, log_ctx = ctx;
    pthread_mutex_unlock(&log_mu);
}

void pce_logf(const char *fmt, ...)
{
    /* allocated: a message naming a long path and its reason is never cut */
    va_list ap;
    va_start(ap, fmt);
    char *line = cuzk_vstrf(fmt, ap);
    va_end(ap);
    const char *l = line ? line : fmt; /* out of memory: the format still says what happened */
    pthread_mutex_lock(&log_mu);
    if (log_fn) log_fn(l, log_ctx);
    else fprintf(stderr, "cuzk pce: %s\n", l);
    pthread_mutex_unlock(&log_mu);
    free(line);
}

/* ---- hashing ---- */

void cuzk_pce_fingerprint(uint8_t out[CUZK_PCE_HASH_BYTES], const char *identity)
{
    cuzk_sha256_hash(out, identity, identity ? strlen(identity) : 0);
}

/* The content hash: counts plus (id, element size, length, SHA-256) of every
 * section, so equal matrices in the same encoding hash equal whatever the
 * file offsets. */
void pce_content_hash(uint8_t out[32], const uint8_t *hdr)
{
    uint8_t buf[16 + 24 + PCE_NUM_SECTIONS * 48], *o = buf;
    memcpy(o, "cuzk-pce-content", 16), o += 16;
    memcpy(o, hdr + PCE_OFF_NUM_INPUTS, 24), o += 24;
    for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++) {
        const uint8_t *e = hdr + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
        memcpy(o, e, 8), o += 8;            /* id, element size */
        memcpy(o, e + 16, 8 + 32), o += 40; /* length, sha256 */
    }
    cuzk_sha256_hash(out, buf, (size_t)(o - buf));
}

/* ---- section checksums (the view checks them at load, verify.c in the background) ---- */

typedef struct sec_hash_ctx {
    const uint8_t *img, *hdr;
    const int *cancel;
    int bad[PCE_NUM_SECTIONS];
} sec_hash_ctx;

#define SEC_HASH_CHUNK ((size_t)16 << 20)

static void sec_hash_task(void *arg, unsigned worker, size_t lo, size_t hi)
{
    for (size_t s = lo; s < hi; s++) {
        sec_hash_ctx *c = arg;
        const uint8_t *e = c->hdr + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
        const uint8_t *p = c->img + pce_rd64(e + 8);
        size_t left = pce_rd64(e + 16);
        uint8_t h[32];
        unsigned hl = 32;
        /* in chunks, so that a cancelled background verification stops soon */
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        bool ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        while (ok && left) {
            if (c->cancel && __atomic_load_n(c->cancel, __ATOMIC_RELAXED)) ok = false;
            size_t n = left < SEC_HASH_CHUNK ? left : SEC_HASH_CHUNK;
            ok = ok && EVP_DigestUpdate(md, p, n);
            p += n, left -= n;
        }
        ok = ok && EVP_DigestFinal_ex(md, h, &hl);
        EVP_MD_CTX_free(md);
        c->bad[s] = !ok || memcmp(h, e + 24, 32) != 0;
    }
}

int pce_check_sections(const uint8_t *img, unsigned nthreads, const int *cancel, const char *src,
                       cuzk_pce_error *err)
{
    sec_hash_ctx hc = {.img = img, .hdr = img, .cancel = cancel};
    cuzk_parallel_for(PCE_NUM_SECTIONS, 1, nthreads ? nthreads : 1, sec_hash_task, &hc);
    if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED))
        return pce_set_err(err, CUZK_ERR_CANCELLED, CUZK_PCE_FAIL_NONE, src, 0, NULL, "verification cancelled");
    for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++)
        if (hc.bad[s]) {
            const uint8_t *e = img + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
            return pce_set_err(err, CUZK_ERR_FORMAT, CUZK_PCE_FAIL_SECTION_CHECKSUM, src, pce_rd64(e + 8),
                               pce_section_names[s + 1],
                           "SHA-256 mismatch over %llu bytes", (unsigned long long)pce_rd64(e + 16));
        }
    return CUZK_OK;
}
