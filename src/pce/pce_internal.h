/* Shared between the pce sources (and white-box tests): the file layout
 * constants (docs/pce.md), the image view, threads, counters, errors. */
#ifndef CUZK_PCE_INTERNAL_H
#define CUZK_PCE_INTERNAL_H

#include <stdarg.h>

#include "cuzk/pce/pce.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PCE image is little-endian and used in place"
#endif

/* ---- file layout (docs/pce.md) ---- */
#define PCE_MAGIC "CUZKPCE\0"
#define PCE_HEADER_BYTES 1024u
#define PCE_ALIGN 64u
#define PCE_NUM_SECTIONS 10u
#define PCE_SECTION_ENTRY_BYTES 56u
#define PCE_OFF_VERSION 8
#define PCE_OFF_HEADER_BYTES 12
#define PCE_OFF_LIBVER 16
#define PCE_LIBVER_BYTES 32
#define PCE_OFF_ID 48
#define PCE_OFF_FINGERPRINT 112
#define PCE_OFF_CONTENT 144
#define PCE_OFF_NUM_INPUTS 176
#define PCE_OFF_NUM_AUX 184
#define PCE_OFF_NUM_CONSTRAINTS 192
#define PCE_OFF_FILE_BYTES 200
#define PCE_OFF_NUM_SECTIONS 208
#define PCE_OFF_FLAGS 212
#define PCE_OFF_SECTIONS 256
#define PCE_OFF_HEADER_SHA 992

/* Section ids, in file order: matrix k has 3k+1 row_ptr, 3k+2 col, 3k+3 code. */
enum { PCE_SEC_COEFFS = 10 };
extern const char *const pce_section_names[PCE_NUM_SECTIONS + 1];

/* Parses and checks an image (see cuzk_pce_load_file for the order of the
 * checks). trusted: built by this process, checksums not recomputed. On
 * success p references img (the caller sets ownership fields). */
int pce_view(cuzk_pce *p, const uint8_t *img, size_t len, const cuzk_pce_expect *ex, unsigned flags,
             bool trusted, unsigned nthreads, const char *src, cuzk_pce_error *err);
/* The SHA-256 of every section against the table (nthreads threads):
 * CUZK_OK or CUZK_ERR_FORMAT with the first bad section in err;
 * CUZK_ERR_CANCELLED when *cancel (may be NULL) became non-zero. */
int pce_check_sections(const uint8_t *img, unsigned nthreads, const int *cancel, const char *src,
                       cuzk_pce_error *err);

/* Background verification (verify.c): starts a thread running
 * pce_check_sections on p's image; a mismatch sets path aside (if it is
 * still the file that was read, dev/ino) as the cache would. Falls back
 * to checking now when no thread can be started. */
int pce_verify_start(cuzk_pce *p, const char *path, uint64_t dev, uint64_t ino, unsigned nthreads,
                     cuzk_pce_error *err);
void pce_verify_free(struct pce_verify *v);

/* Renames path to "<path>.rejected" under "<path>.lock" when it is still
 * the file (dev, ino) (any file when dev = ino = 0), logging why. Returns
 * true when it was set aside. (reject.c) */
bool pce_set_aside(const char *path, uint64_t dev, uint64_t ino, const cuzk_pce_error *why, bool lock);
/* flock(LOCK_EX) on fd, waiting or not; 0 or -1 with errno. (reject.c) */
int pce_lock_take(int fd, bool wait);

/* Frees what pce_view allocated and the image by its ownership. */
void pce_release(cuzk_pce *p);

/* Fills err (may be NULL) and returns code. */
int pce_set_err(cuzk_pce_error *err, int code, cuzk_pce_fail fail, const char *src, uint64_t off,
                const char *section, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* The content hash of an image's header: counts plus (id, element size,
 * length, SHA-256) of every section, so equal matrices in the same encoding
 * hash equal whatever the file offsets. */
void pce_content_hash(uint8_t out[32], const uint8_t *hdr);

/* Counters. */
extern cuzk_pce_counters pce_counters;
#define PCE_COUNT(field, n) __atomic_fetch_add(&pce_counters.field, (n), __ATOMIC_RELAXED)

/* Logging (cache). */
void pce_logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Test hook: called by cuzk_pce_save after each chunk written to the
 * temporary file (crash tests stop a writer half way). */
extern void (*pce_save_chunk_hook)(size_t written, size_t total);

static inline uint64_t pce_rd64(const uint8_t *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    return v;
}
static inline uint32_t pce_rd32(const uint8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}
static inline void pce_wr64(uint8_t *p, uint64_t v) { __builtin_memcpy(p, &v, 8); }
static inline void pce_wr32(uint8_t *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }

#endif
