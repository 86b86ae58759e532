/*
 * Filecoin's SnarkPack aggregates of PoRep proofs (cuzk/groth16/snarkpack.h) as filecoin-ffi makes and
 * checks them (aggregate_seal_proofs / verify_aggregate_seal_proof over rust-fil-proofs
 * aggregate_seal_commit_proofs / verify_aggregate_seal_commit_proofs):
 *  - the proofs are every sector's C2 output (one 192-byte Groth16 proof per partition, in
 *    partition order) one sector after the other, padded to the next power of two (2 for one
 *    proof) by repeating the last proof;
 *  - the public inputs are each sector's partitions' rows (cuzk_fil_porep_public_inputs, as
 *    get_seal_inputs derives them), padded the same way; all-zero comm_r or comm_d is refused;
 *  - the transcript bytes are SHA-256 over seed || comm_r of each sector in order (comm_r alone
 *    for NI-PoRep, whose challenges take no seed), 32 bytes;
 *  - the version is the registered aggregation proof's: SnarkPackV1 = 1, SnarkPackV2 = 2.
 * The Groth16 key is the PoRep circuit's (.vk) and the SRS v28-fil-inner-product-v1.srs.
 * NI-PoRep sectors aggregate the same way (FIP-0092, rust-fil-proofs aggregate_seal_commit_proofs):
 * each sector's proof is its partitions' Groth16 proofs (seal_commit_phase2_circuit_proofs), not
 * its NI C2 output, which is an aggregate already; 1 to CUZK_FIL_NI_AGG_MAX_SECTORS sectors; the
 * seeds are in neither the rows nor the transcript.
 */
#ifndef CUZK_FIL_AGGREGATE_H
#define CUZK_FIL_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"
#include "cuzk/groth16/groth16_params.h"
#include "cuzk/groth16/snarkpack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NI-PoRep sectors one aggregate holds at most (FIP-0092; rust-fil-proofs
 * FIP92_MAX_NI_POREP_AGGREGATION_PROOFS): 65 × 126 partitions of 32 GiB pad to 8,192 proofs. */
#define CUZK_FIL_NI_AGG_MAX_SECTORS 65

typedef struct cuzk_fil_agg_sector {
    uint64_t sector_number;
    uint8_t comm_r[32], comm_d[32], ticket[32], seed[32];
} cuzk_fil_agg_sector;

typedef struct cuzk_fil_agg_values {
    uint64_t registered_proof; /* a seal proof (interactive or NI-PoRep) */
    uint8_t prover_id[32];
    cuzk_snarkpack_version version;
    const cuzk_fil_agg_sector *sectors;
    size_t num_sectors;
} cuzk_fil_agg_values;

/* Proofs (partitions) each sector's C2 output holds, and public inputs per proof; CUZK_OK or
 * CUZK_ERR_INVALID_ARG (not a seal proof) with err. */
int cuzk_fil_agg_shape(const cuzk_fil_agg_values *v, uint32_t *partitions, size_t *num_inputs, char *err,
                       size_t err_len);
/* The proof count an aggregate of `proofs` proofs holds: 2 for 1, else the next power of two. */
uint32_t cuzk_fil_agg_target(size_t proofs);
/* Whether the registered proof is an NI-PoRep one. */
bool cuzk_fil_agg_is_ni(const cuzk_fil_agg_values *v);
/* The 32 transcript bytes. */
int cuzk_fil_agg_transcript(uint8_t out[32], const cuzk_fil_agg_values *v);
/* Every row (num_inputs each), padded to nproofs rows; *rows malloc'd. CUZK_OK, or
 * CUZK_ERR_INVALID_ARG / NONCANONICAL / BAD_LENGTH (the rows do not pad to nproofs) with err. */
int cuzk_fil_agg_inputs(cuzk_fr **rows, size_t *num_inputs, const cuzk_fil_agg_values *v, uint32_t nproofs,
                        char *err, size_t err_len);

/* Aggregates the sectors' C2 outputs (c2[i]: c2_len[i] bytes, partitions × 192) into *out
 * (malloc'd, *out_len bytes); ctl (NULL: none) may stop it between stages (cuzk/groth16/snarkpack.h).
 * CUZK_OK, CUZK_ERR_CANCELLED (stopped, err naming the stage), or a bad length, a proof that
 * does not decode, an SRS too short, more NI-PoRep sectors than FIP-0092 allows, with err. */
int cuzk_fil_aggregate(uint8_t **out, size_t *out_len, const cuzk_fil_agg_values *v, const uint8_t *const *c2,
                       const size_t *c2_len, const cuzk_snarkpack_srs *srs, const cuzk_snarkpack_ctl *ctl,
                       unsigned nthreads, char *err, size_t err_len);
/* Verifies an aggregate. CUZK_OK, CUZK_ERR_VERIFY_FAILED (err: the relation that failed), or
 * bad input (the bytes' length, a point, counts that do not match the sectors) with err. */
int cuzk_fil_aggregate_verify(const cuzk_fil_agg_values *v, const cuzk_groth16_vk *vk,
                              const cuzk_snarkpack_srs *srs, const uint8_t *proof, size_t len, unsigned nthreads,
                              char *err, size_t err_len);

/* ---- an aggregation request: the aggregate-seal kind's job inputs ---- */

/*
 * A request to aggregate sectors' C2 outputs, flattened (a job's inputs are bytes: copied,
 * compared for idempotency), little-endian:
 *   "CZAG" | u32 format (1) | u64 registered_proof | u32 version | prover_id (32 bytes) |
 *   u32 sectors | per sector: u64 sector_number | comm_r | comm_d | ticket | seed (32 bytes
 *   each) | u64 proof length | the proof (its C2 output, partitions x 192 bytes).
 */
typedef struct cuzk_fil_agg_request {
    cuzk_fil_agg_values v;          /* decode: v.sectors malloc'd */
    const uint8_t *const *proofs;   /* v.num_sectors C2 outputs (decode: into the buffer) */
    const size_t *proof_len;
} cuzk_fil_agg_request;

/* Bytes cuzk_fil_agg_request_encode writes. */
size_t cuzk_fil_agg_request_size(const cuzk_fil_agg_request *r);
void cuzk_fil_agg_request_encode(const cuzk_fil_agg_request *r, uint8_t *out);
/* Parses buf into *r (its proofs point into buf; free with cuzk_fil_agg_request_clear).
 * CUZK_OK, or CUZK_ERR_FORMAT / NO_MEMORY with err. */
int cuzk_fil_agg_request_decode(cuzk_fil_agg_request *r, const uint8_t *buf, size_t len, char *err, size_t err_len);
void cuzk_fil_agg_request_clear(cuzk_fil_agg_request *r);
/*
 * What a request must be before it is aggregated, each failure CUZK_ERR_INVALID_ARG with err
 * naming the field: registered_proof a seal proof, version SnarkPack v1 or v2, at least one
 * sector and at most max_sectors (0: no limit) and, for NI-PoRep, CUZK_FIL_NI_AGG_MAX_SECTORS,
 * no sector number twice, comm_r and comm_d not zero and field elements, every proof
 * partitions x 192 bytes of valid points ("aggregate_sectors[2].proof: partition 1: point B:
 * ..."; an NI-PoRep C2 output, an aggregate, is named as such).
 */
int cuzk_fil_agg_request_check(const cuzk_fil_agg_request *r, size_t max_sectors, char *err, size_t err_len);
/* The most sectors of registered_proof an aggregate over srs holds (0: not a seal proof). */
size_t cuzk_fil_agg_max_sectors(uint64_t registered_proof, const cuzk_snarkpack_srs *srs);

/* ---- the aggregation SRS in a parameter cache ---- */

/* rust-fil-proofs' srs-inner-product.json: the one file's parameters.json digest (Blake2b-512
 * of the whole file, its first 16 bytes in hex, as verify_production_entry computes it). */
#define CUZK_FIL_SRS_DIGEST "ae20310138f5ba81451d723f858e3797"

typedef enum cuzk_fil_srs_origin {
    CUZK_FIL_SRS_CEREMONY = 1, /* the file's digest is srs-inner-product.json's */
    CUZK_FIL_SRS_TEST = 2,     /* cuzk setup --aggregation's TEST SRS: aggregates the chain rejects */
} cuzk_fil_srs_origin;

/*
 * The aggregation SRS of parameter cache dir (dir/v28-fil-inner-product-v1.srs), enough of it
 * for aggregates of up to max_proofs proofs (2·max_proofs powers of each vector read, never
 * more than rust-fil-proofs reads). The file's digest is computed first: the ceremony's file
 * when it is CUZK_FIL_SRS_DIGEST. Any other file is taken only when it is a TEST SRS (cuzk's
 * trailer) and allow_test; otherwise CUZK_ERR_VERIFY_FAILED ("digest D, srs-inner-product.json
 * lists E": a damaged download, or a TEST SRS refused). A missing file is CUZK_ERR_IO naming
 * the path and `cuzk setup --aggregation`. note (may be NULL) gets what was compared, for a
 * log line; *origin which file it is.
 */
int cuzk_fil_agg_srs_load(cuzk_snarkpack_srs *srs, cuzk_fil_srs_origin *origin, const char *dir,
                          uint32_t max_proofs, int allow_test, unsigned nthreads, char *note, size_t note_len,
                          char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
