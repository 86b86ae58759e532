/*
 * A Filecoin proof checked as the chain's verifiers check it (filecoin-ffi verify_seal,
 * verify_window_post, verify_winning_post, verify_empty_sector_update_proof): its statement
 * (cuzk/filecoin/fil_statement.h) gives every partition's public inputs, the proof bytes one 192-byte
 * compressed Groth16 proof per partition in partition order (what the daemon returns), and
 * each partition is verified on its own against the circuit's verifying key, so that a
 * verdict names the partitions that fail and why.
 *
 * SnarkPack aggregates (NI-PoRep, aggregated seals) are checked beside this one
 * (cuzk/kinds/fil_aggregate.h): the same rows per sector, one aggregate proof and its SRS instead of a
 * Groth16 proof per partition.
 */
#ifndef CUZK_FIL_VERIFY_H
#define CUZK_FIL_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_statement.h"
#include "cuzk/groth16/groth16_params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_fil_verdict {
    uint32_t partition;
    int valid;
    char why[160]; /* an invalid partition: a point that does not decode, or the pairing check */
} cuzk_fil_verdict;

/*
 * Verifies len bytes of proof against a finished statement and vk; out gets
 * cuzk_fil_statement_proofs(st) verdicts. CUZK_OK: every partition valid.
 * CUZK_ERR_VERIFY_FAILED: at least one is not (see out). Any other code is bad input, with err:
 * the statement not finished, a vk whose public input count is not the circuit's (another
 * kind's or size's key), a length that is not one proof per partition (truncated or padded).
 */
int cuzk_fil_verify(const cuzk_fil_statement *st, const cuzk_groth16_vk *vk, const uint8_t *proof, size_t len,
                    cuzk_fil_verdict *out, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
