/*
 * Filecoin's SnarkPack aggregates of PoRep proofs (cuzk/snarkpack.h) as filecoin-ffi makes and
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
 */
#ifndef CUZK_FIL_AGGREGATE_H
#define CUZK_FIL_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/fr.h"
#include "cuzk/groth16_params.h"
#include "cuzk/snarkpack.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* The 32 transcript bytes. */
int cuzk_fil_agg_transcript(uint8_t out[32], const cuzk_fil_agg_values *v);
/* Every row (num_inputs each), padded to nproofs rows; *rows malloc'd. CUZK_OK, or
 * CUZK_ERR_INVALID_ARG / NONCANONICAL / BAD_LENGTH (the rows do not pad to nproofs) with err. */
int cuzk_fil_agg_inputs(cuzk_fr **rows, size_t *num_inputs, const cuzk_fil_agg_values *v, uint32_t nproofs,
                        char *err, size_t err_len);

/* Aggregates the sectors' C2 outputs (c2[i]: c2_len[i] bytes, partitions × 192) into *out
 * (malloc'd, *out_len bytes). CUZK_OK, or a bad length, a proof that does not decode, an SRS
 * too short, with err. */
int cuzk_fil_aggregate(uint8_t **out, size_t *out_len, const cuzk_fil_agg_values *v, const uint8_t *const *c2,
                       const size_t *c2_len, const cuzk_snarkpack_srs *srs, unsigned nthreads, char *err,
                       size_t err_len);
/* Verifies an aggregate. CUZK_OK, CUZK_ERR_VERIFY_FAILED (err: the relation that failed), or
 * bad input (the bytes' length, a point, counts that do not match the sectors) with err. */
int cuzk_fil_aggregate_verify(const cuzk_fil_agg_values *v, const cuzk_groth16_vk *vk,
                              const cuzk_snarkpack_srs *srs, const uint8_t *proof, size_t len, unsigned nthreads,
                              char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
