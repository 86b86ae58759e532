/*
 * SnarkPack: n Groth16 proofs of one circuit (n a power of two, 2 <= n <= 2^20) aggregated into
 * one proof of O(log n) size and checked in O(log n) pairings plus one MSM over the public
 * inputs, byte for byte as Filecoin's stack makes and checks them (ProveCommitAggregate,
 * NI-PoRep). Facts from filecoin-project/bellperson src/groth16/aggregate (srs.rs, proof.rs,
 * prove.rs, verify.rs, transcript.rs, accumulator.rs), never its code.
 *
 * SRS (GenericSRS, the file v28-fil-inner-product-v1.srs): four vectors, g_alpha and g_beta in
 * G1 then h_alpha and h_beta in G2, each a big-endian u32 count and that many compressed
 * points (48 / 96 bytes; powers a^i·g, b^i·g, a^i·h, b^i·h from i = 0). A count above 2^20 + 1
 * is refused (bellperson's MAX_SRS_SIZE). rust-fil-proofs reads only the first 2^15 + 1 points
 * of each vector (CUZK_SNARKPACK_FIL_READ_LEN) and skips the rest. For n proofs the prover
 * uses v = (h_alpha[0..n), h_beta[0..n)) and w = (g_alpha[n..2n), g_beta[n..2n)), the KZG
 * openings all of g_*[0..2n) and h_*[0..n); the verifier g = g_alpha[0], h = h_alpha[0],
 * g_alpha[1], g_beta[1], h_alpha[1], h_beta[1] (VerifierSRS).
 *
 * Proof bytes (AggregateProof::write), L = log2 n rounds, 2260 + 2976·L bytes:
 *   com_ab.T, com_ab.U, com_c.T, com_c.U, ip_ab (GT compressed, 288 each), agg_c (G1 48),
 *   nproofs (u32 little-endian), then per round comms_ab (left T, U, right T, U), all rounds;
 *   comms_c likewise; z_ab (left, right GT); z_c (left, right G1); then final_a (G1), final_b
 *   (G2), final_c (G1), final_vkey (2 G2), final_wkey (2 G1), vkey_opening (2 G2),
 *   wkey_opening (2 G1). G1/G2 compressed zcash encodings.
 *
 * Transcript: SHA-256 over "snarkpack-v1" || tag || the bincode bytes of each value (Fr 32
 * bytes little-endian, G1/G2 compressed, GT 576 bytes little-endian, a byte string as a u64
 * little-endian length and the bytes); a challenge appends a counter (from 1, u64 big-endian)
 * and takes the digest as a little-endian integer with its top bit cleared, until it is < r,
 * not 0 and not 1. Challenges: hcom ("hcom": com_ab, com_c), r ("random-r": hcom, the
 * caller's bytes `include`), the GIPA rounds ("gipa-0": hcom, ip_ab, agg_c, r; round i >= 1
 * "gipa-i": the previous one, then the round's z_ab, z_c, comms_ab, comms_c; V2 also rehashes
 * round 0 so), "gipa-extra-link" and the KZG point "random-z" (V1: last challenge and the
 * final keys; V2: the extra link, the final keys and final A, B, C).
 */
#ifndef CUZK_SNARKPACK_H
#define CUZK_SNARKPACK_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/groth16/groth16_params.h"
#include "cuzk/groth16/groth16_verify.h"
#include "cuzk/ec/pairing.h"
#include "cuzk/msm/msm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_SNARKPACK_MAX_LOG 20
#define CUZK_SNARKPACK_SRS_MAX_LEN ((1u << 20) + 1)
#define CUZK_SNARKPACK_FIL_READ_LEN ((2u << 14) + 1)
#define CUZK_SNARKPACK_SRS_NAME "v28-fil-inner-product-v1.srs"

typedef enum cuzk_snarkpack_version { CUZK_SNARKPACK_V1 = 1, CUZK_SNARKPACK_V2 = 2 } cuzk_snarkpack_version;

typedef struct cuzk_snarkpack_srs {
    size_t len[4];            /* points held: g_alpha, g_beta, h_alpha, h_beta */
    uint32_t file_len[4];     /* the counts in the file */
    int test;                 /* the file ends with cuzk's TEST trailer */
    cuzk_g1_affine *g_alpha, *g_beta;
    cuzk_g2_affine *h_alpha, *h_beta;
} cuzk_snarkpack_srs;

typedef struct cuzk_snarkpack_vk {
    uint32_t n;
    cuzk_g1_affine g, g_alpha, g_beta;
    cuzk_g2_affine h, h_alpha, h_beta;
} cuzk_snarkpack_vk;

typedef struct cuzk_snarkpack_com { cuzk_gt t, u; } cuzk_snarkpack_com;

typedef struct cuzk_snarkpack_round {
    cuzk_snarkpack_com ab_l, ab_r, c_l, c_r;
    cuzk_gt zab_l, zab_r;
    cuzk_g1_affine zc_l, zc_r;
} cuzk_snarkpack_round;

typedef struct cuzk_snarkpack_proof {
    cuzk_snarkpack_com com_ab, com_c;
    cuzk_gt ip_ab;
    cuzk_g1_affine agg_c;
    uint32_t nproofs;
    unsigned rounds; /* log2 nproofs */
    cuzk_snarkpack_round round[CUZK_SNARKPACK_MAX_LOG];
    cuzk_g1_affine final_a, final_c, final_wkey[2], wkey_opening[2];
    cuzk_g2_affine final_b, final_vkey[2], vkey_opening[2];
} cuzk_snarkpack_proof;

/* ---- SRS ---- */

/* Parses buf: each vector's first min(count, max_len) points are decoded (checked: canonical,
 * on the curve, in the subgroup) on nthreads threads, the rest skipped; max_len 0 reads all.
 * CUZK_OK, or CUZK_ERR_FORMAT (a count over 2^20 + 1, input ending inside a vector) or a
 * point decoder's code, err naming the vector, index and byte offset. *srs zeroed on failure. */
int cuzk_snarkpack_srs_read_mem(cuzk_snarkpack_srs *srs, const uint8_t *buf, size_t len, size_t max_len,
                                unsigned nthreads, char *err, size_t err_len);
int cuzk_snarkpack_srs_read_file(cuzk_snarkpack_srs *srs, const char *path, size_t max_len, unsigned nthreads,
                                 char *err, size_t err_len);
/* TEST SRS for up to max_n proofs: 2·max_n powers of a fresh random alpha and beta (the shape
 * of bellperson's setup_fake_srs), the secrets wiped after. */
int cuzk_snarkpack_srs_setup_test(cuzk_snarkpack_srs *srs, size_t max_n, cuzk_rng *rng, unsigned nthreads);
/* The file bytes; with test_trailer, cuzk's TEST trailer after the vectors (bellperson reads
 * the four vectors and ignores what follows). malloc'd, NULL when out of memory. */
uint8_t *cuzk_snarkpack_srs_serialize(const cuzk_snarkpack_srs *srs, int test_trailer, size_t *len);
void cuzk_snarkpack_srs_free(cuzk_snarkpack_srs *srs);
/* The largest power-of-two proof count the held powers serve (2n powers of g_*, n of h_*). */
uint32_t cuzk_snarkpack_srs_max_proofs(const cuzk_snarkpack_srs *srs);
/* The verifier key for n proofs. CUZK_ERR_INVALID_ARG: n not a power of two >= 2 or beyond
 * the SRS, with err. */
int cuzk_snarkpack_vk_for(cuzk_snarkpack_vk *vk, const cuzk_snarkpack_srs *srs, uint32_t n, char *err,
                          size_t err_len);

/* ---- proof bytes ---- */

size_t cuzk_snarkpack_proof_size(uint32_t nproofs);
/* Writes cuzk_snarkpack_proof_size bytes. CUZK_ERR_BAD_LENGTH when len is short,
 * CUZK_ERR_INVALID_ARG when a GT value is ±1 (no compressed form). */
int cuzk_snarkpack_proof_encode(uint8_t *out, size_t len, const cuzk_snarkpack_proof *p);
/* CUZK_OK, CUZK_ERR_BAD_LENGTH (not the length nproofs gives, or shorter than its header),
 * CUZK_ERR_FORMAT (nproofs < 2, not a power of two, over 2^20), or a point's decoder code;
 * err names the element and its byte offset. */
int cuzk_snarkpack_proof_decode(cuzk_snarkpack_proof *p, const uint8_t *in, size_t len, char *err,
                                size_t err_len);
/* nproofs from the bytes (the u32 after the header), 0 when too short. */
uint32_t cuzk_snarkpack_proof_count(const uint8_t *in, size_t len);

/* ---- aggregate and verify ---- */

/* The aggregation's stages, in the order they run: the commitments to A, B and C (with r, ip_ab
 * and agg_c), the GIPA rounds (log2 n of them), the two KZG openings. */
typedef enum cuzk_snarkpack_stage {
    CUZK_SNARKPACK_STAGE_COMMIT = 0,
    CUZK_SNARKPACK_STAGE_ROUND = 1, /* round: 0 .. log2 n - 1 */
    CUZK_SNARKPACK_STAGE_KZG = 2
} cuzk_snarkpack_stage;

/* Asked before each stage (on the aggregating thread): nonzero stops the aggregation there,
 * its memory freed, and it returns CUZK_ERR_CANCELLED. A job's cancellation or deadline reaches
 * a running aggregation so; a test counts, slows or stops stages so. */
/* Where an aggregation's bulk arithmetic may run instead of the CPU (a GPU: cuzk/gpu/gpu.h's
 * cuzk_gpu_snarkpack_accel): the Miller loops of the commitments and GIPA rounds, and the MSMs
 * (agg_c, each round's Z_C, the KZG openings). Only calls of at least min_n pairs or points go
 * to it; the rest, the final exponentiations and the folds stay on the CPU. Each hook gives the
 * CPU's values bit for bit, so the aggregate's bytes do not depend on where it ran.
 *   miller_groups: out[k] (k < nprod) = the product of the Miller loops of the pairs the groups
 *                  send to product k (cuzk/ec/pairing.h's groups), no final exponentiation;
 *   msm_batch:     the jobs as cuzk_msm_batch computes them (Montgomery scalars, .fr).
 * CUZK_OK or an error code, which the aggregation returns. */
typedef struct cuzk_snarkpack_accel {
    int (*miller_groups)(void *ctx, cuzk_fp12 *out, size_t nprod, const cuzk_pairing_group *g, size_t ng);
    int (*msm_batch)(void *ctx, const cuzk_msm_job *jobs, size_t njobs);
    void *ctx;
    size_t min_n;
} cuzk_snarkpack_accel;

typedef struct cuzk_snarkpack_ctl {
    int (*stop)(void *ctx, cuzk_snarkpack_stage stage, unsigned round);
    void *ctx;
    const cuzk_snarkpack_accel *accel; /* NULL: all of it on the CPU */
    /* Told (may be NULL) when a hook of accel failed with a device's error (CUZK_ERR_DEVICE,
     * _NO_MEMORY, _NO_DEVICE, _INTERNAL), before the aggregation runs again from its start on the
     * CPU: a device's failure costs time, never the aggregate. */
    void (*accel_failed)(void *ctx, int rc);
} cuzk_snarkpack_ctl;

/* Stages an aggregation of n proofs runs (commitments, log2 n rounds, openings). */
unsigned cuzk_snarkpack_stages(size_t n);

/* Aggregates n proofs (a power of two >= 2; the caller pads by repeating the last) with the
 * caller's transcript bytes; ctl (NULL: none) may stop it between stages. CUZK_OK,
 * CUZK_ERR_INVALID_ARG (n, an SRS too short) with err, CUZK_ERR_CANCELLED (ctl stopped it; err
 * names the stage not run), CUZK_ERR_NO_MEMORY. */
int cuzk_snarkpack_aggregate(cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs,
                             const cuzk_groth16_proof *proofs, size_t n, const uint8_t *include,
                             size_t include_len, cuzk_snarkpack_version v, const cuzk_snarkpack_ctl *ctl,
                             unsigned nthreads, char *err, size_t err_len);

/* Verifies a decoded proof against vk (Groth16), the SnarkPack key for its n, n rows of
 * n_inputs public inputs and the transcript bytes. The checks are batched with random
 * coefficients from rng (NULL: the OS); on failure each is rerun alone and err names the first
 * that fails (the TIPP/MIPP relations, a KZG opening, the aggregated Groth16 equation).
 * CUZK_OK, CUZK_ERR_VERIFY_FAILED, CUZK_ERR_INVALID_ARG (counts that do not match), _IO,
 * _NO_MEMORY. */
int cuzk_snarkpack_verify(const cuzk_snarkpack_proof *p, const cuzk_snarkpack_vk *svk, const cuzk_groth16_vk *vk,
                          const cuzk_fr *inputs, size_t n, size_t n_inputs, const uint8_t *include,
                          size_t include_len, cuzk_snarkpack_version v, cuzk_rng *rng, unsigned nthreads,
                          char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
