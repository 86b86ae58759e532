/*
 * Groth16 parameter and verifying-key files in bellperson's formats, so that
 * Filecoin ceremony files (*.params, *.vk) load unchanged.
 *
 * Layout (facts from filecoin-project/bellperson src/groth16/verifying_key.rs
 * VerifyingKey::write/read/read_mmap and src/groth16/params.rs
 * Parameters::write/read, build_mapped_parameters):
 *   vk     = alpha_g1, beta_g1 (G1), beta_g2, gamma_g2 (G2), delta_g1 (G1),
 *            delta_g2 (G2), all UNCOMPRESSED zcash encodings (96 / 192 bytes);
 *            then a big-endian u32 count and that many uncompressed G1 (ic).
 *   params = vk, then h, l, a, b_g1 (each: BE u32 count + uncompressed G1),
 *            then b_g2 (BE u32 count + uncompressed G2). Nothing follows;
 *            bellperson ignores trailing bytes, and so does cuzk.
 * Checks, mirroring bellperson:
 *   - the six fixed vk points are always fully checked (bellperson's
 *     VerifyingKey::read uses from_uncompressed whatever the mode); they may
 *     be the point at infinity;
 *   - vk.ic, h, l, a, b_g1, b_g2 entries must not be the point at infinity
 *     (bellperson: "point at infinity"), reported as
 *     CUZK_GROTH16_FAIL_INFINITY;
 *   - VALIDATE (bellperson checked=true, from_uncompressed): canonical
 *     coordinates, flags, on curve, in the subgroup;
 *     TRUSTED (checked=false, from_uncompressed_unchecked, which in
 *     filecoin-project/blstrs src/g1.rs, g2.rs is blst_p1/p2_deserialize:
 *     canonical, flags, on curve, no subgroup check): everything except the
 *     subgroup check, for h, l, a, b_g1, b_g2 only (vk.ic is read by
 *     VerifyingKey::read, so always fully checked).
 * Unlike bellperson (which slices the mmap and panics), a short or corrupt
 * file is reported with the section, index and byte offset, and counts that
 * would run past the end of the input are rejected before allocating.
 */
#ifndef CUZK_GROTH16_PARAMS_H
#define CUZK_GROTH16_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_groth16_vk {
    cuzk_g1_affine alpha_g1, beta_g1;
    cuzk_g2_affine beta_g2, gamma_g2;
    cuzk_g1_affine delta_g1;
    cuzk_g2_affine delta_g2;
    size_t n_ic;
    cuzk_g1_affine *ic; /* malloc'd by the readers; n_ic entries */
} cuzk_groth16_vk;

typedef struct cuzk_groth16_params {
    cuzk_groth16_vk vk;
    size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    cuzk_g1_affine *h, *l, *a, *b_g1;
    cuzk_g2_affine *b_g2;
} cuzk_groth16_params;

typedef enum cuzk_groth16_read_mode {
    CUZK_GROTH16_VALIDATE = 0, /* every point: canonical, on curve, in subgroup */
    CUZK_GROTH16_TRUSTED = 1   /* list entries skip the subgroup check (see above) */
} cuzk_groth16_read_mode;

/* Why a read failed, finer than the cuzk_err code. */
typedef enum cuzk_groth16_fail {
    CUZK_GROTH16_FAIL_NONE = 0,
    CUZK_GROTH16_FAIL_IO,        /* open/read/write/rename failed, a file cut while read (CUZK_ERR_IO) */
    CUZK_GROTH16_FAIL_TRUNCATED, /* input ends inside a count or point (CUZK_ERR_FORMAT) */
    CUZK_GROTH16_FAIL_COUNT,     /* a count runs past the end of input (CUZK_ERR_FORMAT) */
    CUZK_GROTH16_FAIL_POINT,     /* a point failed to decode; code is the decoder's error */
    CUZK_GROTH16_FAIL_INFINITY,  /* a list entry is the point at infinity (CUZK_ERR_FORMAT) */
    CUZK_GROTH16_FAIL_ARG        /* bad argument, e.g. a count > 2^32-1 on write */
} cuzk_groth16_fail;

/* Filled by every function below on failure (may be NULL). msg names the
 * file (or "<memory>"), the section ("h[1234]", "vk.beta_g2", "l count"),
 * the byte offset and the reason. */
typedef struct cuzk_groth16_error {
    int code;            /* the cuzk_err returned */
    cuzk_groth16_fail fail;
    uint64_t offset;     /* byte offset of the offending item in the input */
    char section[32];    /* e.g. "h[1234]" */
    /* source (a path: at most PATH_MAX, or "<memory>") + section + offset +
     * reason (< 256): never cut */
    char msg[4096 + 32 + 320];
} cuzk_groth16_error;

/* Byte sizes of the serializations. */
size_t cuzk_groth16_vk_serialized_size(const cuzk_groth16_vk *vk);
size_t cuzk_groth16_params_serialized_size(const cuzk_groth16_params *p);

/* Serialize into buf (len >= serialized size). CUZK_ERR_BAD_LENGTH if short,
 * CUZK_ERR_INVALID_ARG if a count does not fit a u32. */
int cuzk_groth16_vk_write_mem(const cuzk_groth16_vk *vk, uint8_t *buf, size_t len, cuzk_groth16_error *err);
int cuzk_groth16_params_write_mem(const cuzk_groth16_params *p, uint8_t *buf, size_t len,
                                  cuzk_groth16_error *err);

/* Write atomically: a temporary file in the same directory (streamed in
 * bounded chunks), fsync, rename over path, fsync the directory. On failure
 * path is untouched and the temporary file removed. */
int cuzk_groth16_vk_write_file(const cuzk_groth16_vk *vk, const char *path, cuzk_groth16_error *err);
int cuzk_groth16_params_write_file(const cuzk_groth16_params *p, const char *path, cuzk_groth16_error *err);

/* Parse from memory. *out is overwritten (zeroed on failure, nothing to
 * free then). consumed (may be NULL) receives the bytes used. nthreads >= 1
 * decoders run in parallel (0 means 1); the result, and on failure the
 * reported error (the first bad entry in file order), do not depend on it. */
int cuzk_groth16_vk_read_mem(cuzk_groth16_vk *out, const uint8_t *buf, size_t len, size_t *consumed,
                             cuzk_groth16_error *err);
int cuzk_groth16_params_read_mem(cuzk_groth16_params *out, const uint8_t *buf, size_t len,
                                 cuzk_groth16_read_mode mode, unsigned nthreads, size_t *consumed,
                                 cuzk_groth16_error *err);

/* Parse a file, read with pread in pieces (at most 1 MiB per decoder
 * thread at a time), never mapped: a file cut while it is read is
 * CUZK_ERR_IO / CUZK_GROTH16_FAIL_IO naming where it ended ("the file ends
 * here, not at N bytes as when it was opened"), never a SIGBUS; bytes
 * rewritten meanwhile fail the point checks. Counts are checked against the
 * size the file had when opened. The vk file is the vk serialization alone
 * (bellperson .vk). */
int cuzk_groth16_vk_read_file(cuzk_groth16_vk *out, const char *path, cuzk_groth16_error *err);
int cuzk_groth16_params_read_file(cuzk_groth16_params *out, const char *path, cuzk_groth16_read_mode mode,
                                  unsigned nthreads, cuzk_groth16_error *err);

/* Whether a and b are the same verifying key: every fixed point and every
 * ic entry. When they differ, what (may be NULL) names the first element
 * that does, in file order: "vk.alpha_g1", ..., "vk.ic count (5, 6)",
 * "vk.ic[3]". A .params embeds its setup's key and the .vk beside it is
 * the key verifiers hold: two setups of one circuit differ from alpha_g1
 * on, a damaged .vk that still decodes at the point it hit. */
bool cuzk_groth16_vk_equal(const cuzk_groth16_vk *a, const cuzk_groth16_vk *b, char *what, size_t what_len);

/* Release what the readers allocated and zero the struct (NULL-safe). */
void cuzk_groth16_vk_free(cuzk_groth16_vk *vk);
void cuzk_groth16_params_free(cuzk_groth16_params *p);

#ifdef __cplusplus
}
#endif
#endif
