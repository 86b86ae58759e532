/*
 * Filecoin parameter files: which files a circuit needs, where they live,
 * and what they must hash to.
 *
 *   names     "v28-<cache id>.params|.vk|.meta" as rust-fil-proofs builds them
 *             (cache ids: include/cuzk/filecoin/filecoin.h), so a param_cache full of
 *             ceremony files is found by name
 *   location  param_cache = $FIL_PROOFS_PARAMETER_CACHE, else
 *             /var/tmp/filecoin-proof-parameters (storage-proofs-core settings)
 *   digests   filecoin-proofs' parameters.json: per file name its IPFS cid, a
 *             digest (the first 128 bits of Blake2b-512 of the file, as 32
 *             lowercase hex characters, as paramfetch and
 *             verify_production_entry check it) and the sector size; the
 *             v28 facts are embedded (src/filecoin/parameters.json)
 *   .meta     CacheEntryMetadata as serde_json writes it: {"sector_size":N}
 *
 * Facts and sources: docs/filecoin.md.
 */
#ifndef CUZK_FIL_PARAMS_H
#define CUZK_FIL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/filecoin/filecoin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Filecoin circuits that have parameter files. */
typedef enum cuzk_fil_circuit {
    CUZK_FIL_CIRCUIT_POREP = 0,      /* "porep": SDR PoRep (interactive and NI share files) */
    CUZK_FIL_CIRCUIT_WINDOW_POST,    /* "window-post" */
    CUZK_FIL_CIRCUIT_WINNING_POST,   /* "winning-post" */
    CUZK_FIL_CIRCUIT_SNAP,           /* "snap": SnapDeals EmptySectorUpdate */
    CUZK_FIL_CIRCUIT_SNAP_POSEIDON,  /* "snap-poseidon": its Poseidon variant */
    CUZK_FIL_CIRCUIT_COUNT
} cuzk_fil_circuit;

/* "porep", "window-post", "winning-post", "snap", "snap-poseidon". */
const char *cuzk_fil_circuit_name(cuzk_fil_circuit c);
/* 0 and *out, or -1 for an unknown name. */
int cuzk_fil_circuit_parse(const char *name, cuzk_fil_circuit *out);

/*
 * Registered proof ids are per circuit family: seal ids (0..19) for porep,
 * PoSt ids (0..14: Winning 0-4, Window 5-14) for the PoSts, update ids
 * (0..4) for both snap circuits. The sector size of id as a proof of c, or
 * 0 when id is not one (e.g. a Winning id given for window-post).
 */
uint64_t cuzk_fil_circuit_proof_sector_size(cuzk_fil_circuit c, uint64_t id);
/* The id used when only a sector size is given: StackedDrg*V1_1 seal proofs,
 * Window V1_2, Winning V1, the update id of the size. 0 and *id, or -1. */
int cuzk_fil_circuit_default_proof(cuzk_fil_circuit c, uint64_t sector_size, uint64_t *id);
/* The cache id of (c, id): 0 when id is not a proof of c. */
size_t cuzk_fil_circuit_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], cuzk_fil_circuit c, uint64_t id);

/*
 * The blank circuit (w == NULL) of c for a sector size into cs (ONE already
 * allocated), the system whose setup gives c's parameters: one partition
 * (one PoSt partition; the Poseidon update circuit's single partition).
 * nthreads for the circuits that synthesize in parallel (0: all CPUs).
 * CUZK_ERR_INVALID_ARG for a size c has no parameters for.
 */
int cuzk_fil_circuit_blank(cuzk_cs *cs, cuzk_fil_circuit c, uint64_t sector_size, unsigned nthreads);

/* ---- where the files are ------------------------------------------------ */

/* Where the Filecoin stack (rust-fil-proofs, lotus, curio) keeps the files:
 * the variable when set and not empty, else the default. The library reads
 * no environment: the command line resolves the two into a directory
 * (--param-cache's default, the daemon's srs.param_cache) and passes it. */
#define CUZK_FIL_PARAM_CACHE_ENV "FIL_PROOFS_PARAMETER_CACHE"
#define CUZK_FIL_PARAM_CACHE_DEFAULT "/var/tmp/filecoin-proof-parameters"
#define CUZK_FIL_PATH_MAX 4096

typedef struct cuzk_fil_param_files {
    char cache_id[CUZK_FIL_CACHE_ID_MAX];
    uint64_t sector_size;
    char params[CUZK_FIL_PATH_MAX], vk[CUZK_FIL_PATH_MAX], meta[CUZK_FIL_PATH_MAX];
} cuzk_fil_param_files;

/*
 * The paths of (c, proof id)'s files in dir. Nothing is opened. CUZK_OK, or
 * CUZK_ERR_INVALID_ARG (dir NULL, id not a proof of c, path too long).
 */
int cuzk_fil_param_files_for(cuzk_fil_param_files *out, cuzk_fil_circuit c, uint64_t proof_id,
                             const char *dir);

/* ---- .meta -------------------------------------------------------------- */

/* {"sector_size":N}, byte for byte what rust-fil-proofs writes; 0 if cap is short. */
size_t cuzk_fil_param_meta_json(char *out, size_t cap, uint64_t sector_size);
/* A .meta file's content: an object with a non-negative integer "sector_size"
 * (other fields ignored, as serde does). 0, or -1 with the reason in err. */
int cuzk_fil_param_meta_parse(const char *json, size_t len, uint64_t *sector_size, char *err, size_t errlen);

/* ---- parameters.json ---------------------------------------------------- */

#define CUZK_FIL_DIGEST_HEX 32 /* 128 bits */

typedef struct cuzk_fil_manifest_entry {
    char *name;     /* a plain file name: "v28-...params" */
    char *cid;
    char digest[CUZK_FIL_DIGEST_HEX + 1]; /* lowercase hex */
    uint64_t sector_size;
} cuzk_fil_manifest_entry;

typedef struct cuzk_fil_manifest {
    cuzk_fil_manifest_entry *e; /* sorted by name */
    size_t n;
} cuzk_fil_manifest;

/*
 * Parses a parameters.json: an object mapping file names (no '/', not
 * empty, no control characters, < 256 bytes) to objects with "cid" (a
 * non-empty printable string), "digest" (32 hex characters; stored
 * lowercase) and "sector_size" (a non-negative integer); other fields are
 * ignored. Every error names the entry and the field. 0, or -1 with err.
 */
int cuzk_fil_manifest_parse(cuzk_fil_manifest *out, const char *json, size_t len, char *err, size_t errlen);
/* The same from a file. */
int cuzk_fil_manifest_load(cuzk_fil_manifest *out, const char *path, char *err, size_t errlen);
/* The embedded v28 parameters.json of filecoin-proofs. */
int cuzk_fil_manifest_builtin(cuzk_fil_manifest *out, char *err, size_t errlen);
const cuzk_fil_manifest_entry *cuzk_fil_manifest_find(const cuzk_fil_manifest *m, const char *name);
void cuzk_fil_manifest_free(cuzk_fil_manifest *m);

/* ---- digests ------------------------------------------------------------ */

/* Called every few MiB and at the end with bytes hashed so far. */
typedef void (*cuzk_fil_digest_progress)(void *ctx, uint64_t done, uint64_t total);

/*
 * The parameters.json digest of a file: Blake2b-512 streamed over it, the
 * first 16 bytes as 32 lowercase hex characters. 0, or -1 with err (open,
 * read).
 */
int cuzk_fil_param_digest(char hex[CUZK_FIL_DIGEST_HEX + 1], const char *path, cuzk_fil_digest_progress fn,
                          void *ctx, char *err, size_t errlen);

/* The same digest of bytes in memory (a .vk file is kilobytes). */
void cuzk_fil_param_digest_mem(char hex[CUZK_FIL_DIGEST_HEX + 1], const void *buf, size_t len);

/*
 * Whether buf holds the file `name` that m (NULL: the embedded v28
 * parameters.json) lists: true when its digest is the listed one. A .vk
 * whose digest is listed is the ceremony's key, the one the chain's
 * verifiers hold; any other (a TEST setup's, a damaged download) is not.
 * note (may be NULL) gets what was compared, for a log line: "digest D
 * matches parameters.json", "digest D, parameters.json lists E", or
 * "digest D; NAME is not in parameters.json".
 */
bool cuzk_fil_param_listed(const cuzk_fil_manifest *m, const char *name, const void *buf, size_t len, char *note,
                           size_t note_len);

#ifdef __cplusplus
}
#endif
#endif
