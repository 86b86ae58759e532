/*
 * Pre-compiled circuits (PCE): the R1CS matrices of one circuit topology,
 * recorded once, so that each later proof costs a witness pass (WitnessCS)
 * plus three sparse matrix-vector products instead of a full synthesis.
 *
 *   extraction   finalized RecordingCS -> cuzk_pce (cuzk_pce_from_recording)
 *   evaluation   a = A·w, b = B·w, c = C·w  (cuzk_pce_eval), bit-identical
 *                to a ProvingAssignment of the same circuit and witness
 *   file         versioned, checksummed, written atomically, read into the
 *                process's own memory and checked there (cuzk_pce_save /
 *                cuzk_pce_load_file; byte layout in docs/pce.md): the file
 *                may be cut, rewritten or replaced under a loaded PCE
 *   cache        a directory of PCE files that cannot poison a run: stale,
 *                foreign, truncated or corrupt files are set aside and
 *                re-extracted, one extraction per circuit across threads and
 *                processes (cuzk_pce_cache_get)
 *
 * Representation: A, B, C in CSR over the unified column index (input i ->
 * i, aux j -> num_inputs + j). Each entry carries a 32-bit coefficient code
 * whose top two bits give its class, so evaluation multiplies only where it
 * must:
 *   CUZK_PCE_ONE      +1                       (payload 0)
 *   CUZK_PCE_NEG_ONE  -1                       (payload 0)
 *   CUZK_PCE_SMALL    ±k, 0 <= k < 2^29        (bit 29 sign, bits 0..28 k);
 *                     k = 0 is a zero coefficient: a matrix entry (as in
 *                     bellperson) that adds nothing and is outside density
 *   CUZK_PCE_GENERAL  coeffs[payload]          (payload < num_coeffs)
 * Row pointers are u32 when a matrix has fewer than 2^32 entries, u64
 * otherwise (exactly one of row_ptr32 / row_ptr64 is set).
 *
 * Density bitmaps (bellperson's: aux in A, inputs in B, aux in B; a column
 * counts where one of its coefficients is non-zero) are derived from the
 * matrices whenever a PCE is built or loaded, so they cannot disagree.
 *
 * All sizes are checked when a PCE is built or loaded (row pointers
 * monotone, columns in range, general indices in range, coefficients
 * canonical); evaluation then needs no bounds checks beyond the witness
 * sizes, which cuzk_pce_check_witness compares with a clear error.
 */
#ifndef CUZK_PCE_H
#define CUZK_PCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_PCE_FORMAT_VERSION 1u
#define CUZK_PCE_ID_MAX 64 /* circuit id bytes including the terminating NUL */
#define CUZK_PCE_HASH_BYTES 32

/* ---- coefficient codes -------------------------------------------------- */

enum {
    CUZK_PCE_ONE = 0,
    CUZK_PCE_NEG_ONE = 1,
    CUZK_PCE_SMALL = 2,
    CUZK_PCE_GENERAL = 3
};
#define CUZK_PCE_CLASS_SHIFT 30
#define CUZK_PCE_SMALL_NEG 0x20000000u
#define CUZK_PCE_SMALL_MAX 0x1fffffffu
#define CUZK_PCE_PAYLOAD_MASK 0x3fffffffu
static inline unsigned cuzk_pce_code_class(uint32_t code) { return code >> CUZK_PCE_CLASS_SHIFT; }

/* Histogram slots: the four classes, plus zero coefficients (SMALL with k=0,
 * counted here instead of under SMALL). */
enum { CUZK_PCE_HIST_ZERO = 4, CUZK_PCE_HIST_N = 5 };

/* ---- the pre-compiled circuit ------------------------------------------- */

typedef struct cuzk_pce_matrix {
    uint64_t nnz;
    const uint32_t *row_ptr32; /* num_constraints + 1 entries when nnz < 2^32 */
    const uint64_t *row_ptr64; /* otherwise */
    const uint32_t *col;       /* nnz unified column indices */
    const uint32_t *code;      /* nnz coefficient codes */
    uint64_t hist[CUZK_PCE_HIST_N]; /* entries per class (see above) */
} cuzk_pce_matrix;

static inline uint64_t cuzk_pce_row_start(const cuzk_pce_matrix *m, uint64_t row)
{
    return m->row_ptr32 ? m->row_ptr32[row] : m->row_ptr64[row];
}

/*
 * Immutable once built; share it between threads freely. The arrays live
 * in one image (anonymous memory holding a file's bytes, or one heap block)
 * owned by the struct; never a mapping of the file.
 */
typedef struct cuzk_pce {
    uint64_t num_inputs, num_aux, num_constraints;
    cuzk_pce_matrix m[3];           /* A, B, C */
    uint64_t num_coeffs;            /* general-class side table */
    const cuzk_fr *coeffs;          /* Montgomery form, canonical */
    cuzk_density a_aux, b_input, b_aux; /* derived; bits owned by the struct */
    char circuit_id[CUZK_PCE_ID_MAX];
    uint8_t fingerprint[CUZK_PCE_HASH_BYTES];
    uint8_t content_hash[CUZK_PCE_HASH_BYTES]; /* see docs/pce.md */
    uint32_t format_version;
    char library_version[32];
    /* storage */
    const uint8_t *image;
    size_t image_len;
    bool mapped; /* image is an anonymous mmap (a file's bytes read in), else heap */
    struct pce_verify *verify; /* background checksum verification, or NULL (see cuzk_pce_ready) */
} cuzk_pce;

/* Why an operation failed, finer than the returned cuzk_err code. */
typedef enum cuzk_pce_fail {
    CUZK_PCE_FAIL_NONE = 0,
    CUZK_PCE_FAIL_IO,              /* open/read/write/rename, a file cut while read (CUZK_ERR_IO) */
    CUZK_PCE_FAIL_TRUNCATED,       /* shorter than its header says (CUZK_ERR_FORMAT) */
    CUZK_PCE_FAIL_MAGIC,           /* not a PCE file */
    CUZK_PCE_FAIL_VERSION,         /* other format version */
    CUZK_PCE_FAIL_LIBRARY_VERSION, /* written by another library version */
    CUZK_PCE_FAIL_CIRCUIT_ID,      /* other circuit id than expected */
    CUZK_PCE_FAIL_FINGERPRINT,     /* other circuit fingerprint than expected */
    CUZK_PCE_FAIL_HEADER_CHECKSUM, /* header bytes corrupt */
    CUZK_PCE_FAIL_SECTION_CHECKSUM,/* a section's SHA-256 does not match */
    CUZK_PCE_FAIL_CONTENT_HASH,    /* content hash does not match the section table */
    CUZK_PCE_FAIL_STRUCTURE,       /* sizes, offsets, row pointers, columns, codes */
    CUZK_PCE_FAIL_WITNESS,         /* witness sizes differ from the PCE's (INVALID_ARG) */
    CUZK_PCE_FAIL_ARG              /* bad argument or unsupported circuit */
} cuzk_pce_fail;

typedef struct cuzk_pce_error {
    int code;
    cuzk_pce_fail fail;
    uint64_t offset;  /* byte offset in the file where it applies, else 0 */
    char msg[384];    /* "<file>: <section> at byte offset N: <reason>" */
} cuzk_pce_error;

/* Short name of a failure class ("section checksum", ...). */
const char *cuzk_pce_fail_name(cuzk_pce_fail f);

/* The library version recorded in files this build writes. */
const char *cuzk_pce_library_version(void);

/* SHA-256 of a circuit identity string: e.g. "porep;sector=32GiB;
 * partitions=10;sha256-gadget=1". Anything that changes the matrices must
 * change the identity. */
void cuzk_pce_fingerprint(uint8_t out[CUZK_PCE_HASH_BYTES], const char *identity);

/* ---- extraction --------------------------------------------------------- */

enum {
    CUZK_PCE_WIDE_ROWPTR = 1u /* u64 row pointers even where u32 fit (tests) */
};

/*
 * A PCE of a finalized RecordingCS, labelled with circuit_id (< 64 bytes,
 * printable, no '/') and fingerprint (may be NULL: zeros). nthreads 0 = 1.
 * Returns CUZK_OK, CUZK_ERR_INVALID_ARG (not finalized, sticky error, bad
 * id), CUZK_ERR_UNSUPPORTED (more than 2^30 distinct general coefficients),
 * CUZK_ERR_NO_MEMORY. Free with cuzk_pce_free.
 */
int cuzk_pce_from_recording(cuzk_pce **out, const cuzk_recording_cs *cs, const char *circuit_id,
                            const uint8_t *fingerprint, unsigned flags, unsigned nthreads,
                            cuzk_pce_error *err);
void cuzk_pce_free(cuzk_pce *pce);

/* Bytes the PCE occupies (its image plus the derived density bitmaps). */
size_t cuzk_pce_memory_bytes(const cuzk_pce *pce);

/* ---- files -------------------------------------------------------------- */

/*
 * Writes the PCE to path atomically: a unique temporary "<path>.tmp.XXXXXX"
 * in the same directory, fsync, rename over path, fsync of the directory.
 * Readers see the old file or the new one, never a part.
 */
int cuzk_pce_save(const cuzk_pce *pce, const char *path, cuzk_pce_error *err);

/* Load checks: what the caller expects (NULL: not checked). */
typedef struct cuzk_pce_expect {
    const char *circuit_id;
    const uint8_t *fingerprint; /* CUZK_PCE_HASH_BYTES */
} cuzk_pce_expect;

enum {
    CUZK_PCE_LOAD_NO_CHECKSUMS = 1u,  /* skip every SHA-256 (fuzzing the structure checks) */
    CUZK_PCE_LOAD_ANY_LIBRARY = 2u,   /* accept files from other library versions (inspection) */
    /* Section SHA-256s on a background thread (cuzk_pce_load_file only;
     * every other check, the header and content hashes included, runs
     * before the PCE is returned). The PCE is returned at once but is not
     * usable until the sections are verified: cuzk_pce_eval/_eval_raw and
     * cuzk_pce_save wait for the result (cuzk_pce_ready) and fail with
     * CUZK_ERR_FORMAT on a mismatch, so a corrupt file never reaches a
     * proof. On a mismatch the file is also set aside as "<path>.rejected"
     * (under "<path>.lock", if it is still the file that was loaded) and
     * logged, as cuzk_pce_cache_get does, so the next cache lookup
     * re-extracts. cuzk_pce_free cancels the verification and joins the
 * thread (it does not wait for the hashing to finish). */
    CUZK_PCE_LOAD_VERIFY_BACKGROUND = 4u
};

/*
 * CUZK_OK when every check of pce has passed: at once for a PCE built in
 * memory or loaded synchronously; for a CUZK_PCE_LOAD_VERIFY_BACKGROUND
 * load, waits for the background verification and returns its result
 * (CUZK_ERR_FORMAT, err naming the section, when it failed). Thread-safe.
 */
int cuzk_pce_ready(const cuzk_pce *pce, cuzk_pce_error *err);

/*
 * Reads path into anonymous memory of the process's own (nthreads threads,
 * huge pages where the kernel has them; never a mapping of the file, so a
 * file cut, rewritten in place or replaced afterwards leaves the PCE
 * unchanged) and checks, in order: magic, format version, header
 * checksum, library version, expected id and fingerprint, section table,
 * section checksums (hashed on nthreads threads), content hash, structure.
 * The PCE is usable only when CUZK_OK is returned. Errors: CUZK_ERR_IO
 * (also a file that ends before the size it had when opened: cut while it
 * was read), CUZK_ERR_FORMAT (err->fail says which check),
 * CUZK_ERR_NO_MEMORY.
 */
int cuzk_pce_load_file(cuzk_pce **out, const char *path, const cuzk_pce_expect *expect,
                       unsigned flags, unsigned nthreads, cuzk_pce_error *err);
/* The same from memory (copied into an aligned buffer owned by the PCE). */
int cuzk_pce_load_mem(cuzk_pce **out, const void *buf, size_t len, const cuzk_pce_expect *expect,
                      unsigned flags, unsigned nthreads, cuzk_pce_error *err);

/* ---- evaluation --------------------------------------------------------- */

/*
 * Output of an evaluation: num_constraints (len) values each. With domain
 * set (cuzk_pce_eval_buf_alloc_domain / _wrap), a, b, c are the three
 * consecutive thirds of one block of 3·domain values, domain the prover's
 * evaluation domain (the power of two >= len): exactly the layout of the
 * prover's NTT input, so the evaluation writes where the prover transforms
 * and nothing is copied. Rows [len, domain) are zeroed by every evaluation.
 */
typedef struct cuzk_pce_eval_buf {
    cuzk_fr *a, *b, *c;
    size_t len;
    size_t domain;  /* 0: three separate arrays of len */
    bool caller_owned; /* memory from cuzk_pce_eval_buf_wrap: free only wipes */
} cuzk_pce_eval_buf;

/* Allocates a, b, c for pce (CUZK_ERR_NO_MEMORY); free wipes (witness data). */
int cuzk_pce_eval_buf_alloc(cuzk_pce_eval_buf *buf, const cuzk_pce *pce);
/* The domain-sized layout (see above) on the heap. */
int cuzk_pce_eval_buf_alloc_domain(cuzk_pce_eval_buf *buf, const cuzk_pce *pce);
/* Smallest power of two >= the PCE's constraints: the domain size. */
size_t cuzk_pce_domain_size(const cuzk_pce *pce);
/*
 * The domain-sized layout over caller memory abc (at least
 * 3·cuzk_pce_domain_size(pce) values, e.g. page-locked host memory a GPU
 * uploads from by DMA). CUZK_ERR_INVALID_ARG if cap is short.
 * cuzk_pce_eval_buf_free then wipes but does not free it.
 */
int cuzk_pce_eval_buf_wrap(cuzk_pce_eval_buf *buf, const cuzk_pce *pce, cuzk_fr *abc, size_t cap);
void cuzk_pce_eval_buf_free(cuzk_pce_eval_buf *buf);

/*
 * CUZK_OK when w is a usable witness for pce: no sticky error, num_inputs
 * and num_aux (and value counts) equal to the PCE's. Otherwise
 * CUZK_ERR_INVALID_ARG with fail CUZK_PCE_FAIL_WITNESS and both sizes in msg.
 */
int cuzk_pce_check_witness(const cuzk_pce *pce, const cuzk_witness_cs *w, cuzk_pce_error *err);

/*
 * a = A·w, b = B·w, c = C·w for w = (input, aux), on nthreads threads
 * (0 = 1) over blocks of rows; out->len must be num_constraints. Identical
 * bits to a ProvingAssignment's a, b, c. Checks the witness first.
 */
int cuzk_pce_eval(const cuzk_pce *pce, const cuzk_witness_cs *w, cuzk_pce_eval_buf *out,
                  unsigned nthreads, cuzk_pce_error *err);
/* The same over raw assignments (num_inputs and num_aux values). */
int cuzk_pce_eval_raw(const cuzk_pce *pce, const cuzk_fr *input, const cuzk_fr *aux,
                      cuzk_pce_eval_buf *out, unsigned nthreads);

/* ---- counters (process-wide, monotonic; for tests and metrics) ---------- */

typedef struct cuzk_pce_counters {
    uint64_t evals;          /* completed cuzk_pce_eval / _raw calls */
    uint64_t eval_nnz;       /* matrix entries they processed */
    uint64_t extractions;    /* cuzk_pce_from_recording calls that succeeded */
    uint64_t loads;          /* successful loads */
    uint64_t load_failures;  /* loads rejected */
    uint64_t saves;          /* successful saves */
    uint64_t set_aside;      /* cache files set aside */
    uint64_t bg_verified;    /* background verifications that passed */
    uint64_t bg_failed;      /* background verifications that found a mismatch */
} cuzk_pce_counters;
void cuzk_pce_counters_get(cuzk_pce_counters *out);

/* ---- the cache ---------------------------------------------------------- */

/* Synthesizes the circuit into cs (a RecordingCS with ONE allocated); the
 * cache finalizes it. Returns 0 or an error code. */
typedef int (*cuzk_pce_synth_fn)(cuzk_cs *cs, void *ctx);

typedef struct cuzk_pce_cache_opts {
    const char *dir;     /* existing directory holding "<id>.pce" files */
    unsigned nthreads;   /* for loading and extraction (0 = 1) */
    bool no_wait;        /* another extraction of the same id in progress:
                            return CUZK_PCE_CACHE_BUSY instead of waiting */
    bool verify_background; /* a valid-looking file is returned before its section
                               checksums are verified (CUZK_PCE_LOAD_VERIFY_BACKGROUND) */
} cuzk_pce_cache_opts;

typedef enum cuzk_pce_cache_outcome {
    CUZK_PCE_CACHE_LOADED = 1,    /* a valid file was found */
    CUZK_PCE_CACHE_EXTRACTED = 2, /* this call extracted (and saved) it */
    CUZK_PCE_CACHE_BUSY = 3       /* no_wait and someone else is extracting: *out is NULL,
                                     prove on the slow path */
} cuzk_pce_cache_outcome;

/*
 * The PCE for (circuit_id, fingerprint): "<dir>/<id>.pce" if it is valid;
 * otherwise, under an exclusive lock on "<dir>/<id>.pce.lock" (flock: one
 * holder across threads and processes), temporaries left by dead writers
 * are removed, an invalid file is logged once and renamed to
 * "<id>.pce.rejected", and the circuit is extracted with synth and saved.
 * A failure to save is logged and the extracted PCE still returned.
 */
int cuzk_pce_cache_get(cuzk_pce **out, const cuzk_pce_cache_opts *opts, const char *circuit_id,
                       const uint8_t fingerprint[CUZK_PCE_HASH_BYTES], cuzk_pce_synth_fn synth,
                       void *ctx, cuzk_pce_cache_outcome *outcome, cuzk_pce_error *err);

/*
 * The cached "<dir>/<id>.pce" alone, never extracting (a daemon's start):
 * CUZK_OK with *out when it is valid (with verify_background its section
 * checksums are then hashed on a thread, and a mismatch is logged and the
 * file set aside as soon as it is found, not at its first use); a file that
 * fails a check is logged and set aside now (under its lock) and
 * CUZK_ERR_FORMAT returned; CUZK_ERR_IO, nothing logged, when there is none.
 */
int cuzk_pce_cache_load(cuzk_pce **out, const cuzk_pce_cache_opts *opts, const char *circuit_id,
                        const uint8_t fingerprint[CUZK_PCE_HASH_BYTES], cuzk_pce_error *err);

/* Removes temporaries "<id>.pce.tmp.*" in dir whose writer is gone (its id
 * lock is free); call at start. Returns the number removed, or -1. */
int cuzk_pce_cache_clean(const char *dir);

/* Where cache messages go (one line each, no newline); NULL restores stderr. */
typedef void (*cuzk_pce_log_fn)(const char *line, void *ctx);
void cuzk_pce_set_log(cuzk_pce_log_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
