/*
 * What a Filecoin proof claims, from the values its verifier holds: filecoin-ffi's
 * verify_seal (registered proof, comm_r, comm_d, prover id, sector number, ticket, seed),
 * verify_window_post / verify_winning_post (registered proof, randomness, the challenged
 * sectors' numbers and comm_r) and verify_empty_sector_update_proof (registered update proof,
 * comm_r_old, comm_r_new, comm_d_new). From them the public inputs of every partition are
 * derived as rust-fil-proofs derives them (cuzk_fil_porep_public_inputs,
 * cuzk_fil_post_public_inputs, cuzk_fil_snap_public_inputs: the functions proving uses), never
 * taken from the prover. The proof's check against a verifying key is one layer up
 * (cuzk/kinds/fil_verify.h); SnarkPack aggregates (NI-PoRep, aggregated seals) derive their rows with
 * cuzk_fil_porep_public_inputs in cuzk/kinds/fil_aggregate.h.
 *
 * Values come as text, in the forms operators have them (cuzk_fil_statement_set, the same for
 * the command line and a JSON file):
 *   kind              porep | window-post | winning-post | snap
 *   registered_proof  a number, or a seal / PoSt proof name ("StackedDrg2KiBV1_1",
 *                     "StackedDrgWindow32GiBV1_2"); sector_size alone picks the current one
 *   sector_size       "2KiB", "32GiB" or bytes
 *   miner / prover_id an ID address ("f01000", "t01000", "1000"), or the 32-byte prover id in hex
 *   sector_number     decimal
 *   comm_r comm_d comm_r_old comm_r_new comm_d_new
 *                     64 hex digits of the 32 bytes, or the CID lotus prints ("bagboea4b5abc...",
 *                     "baga6ea4seaq..."; a sealed one for comm_r*, an unsealed one for comm_d*)
 *   ticket seed randomness
 *                     32 bytes: 64 hex digits ("0x" or "\x" before them allowed), or base64 (how
 *                     lotus's JSON carries bytes); randomness gets its top two bits cleared as
 *                     lotus's verifier clears them (randomness[31] &= 0x3f)
 *   sector            a PoSt's challenged sector, "NUMBER:COMM_R" (repeated, any order: sorted by
 *                     number as filecoin-ffi's BTreeMap sorts them)
 *   partition         the proof holds this one partition only (a daemon's per-partition answer)
 * JSON: {"kind": "porep", "comm_r": "bagboea...", "sector_number": 7, ...,
 *        "sectors": [{"sector_number": 7, "comm_r": "..."}, "8:bagboea..."]}; numbers may be
 * JSON integers, a CID may be {"/": "bagboea..."}; an unknown or repeated key is refused.
 */
#ifndef CUZK_FIL_STATEMENT_H
#define CUZK_FIL_STATEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_params.h"
#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_fil_stmt_kind {
    CUZK_FIL_STMT_NONE = 0,
    CUZK_FIL_STMT_POREP,        /* "porep": interactive and SyntheticPoRep seals */
    CUZK_FIL_STMT_WINDOW_POST,  /* "window-post" */
    CUZK_FIL_STMT_WINNING_POST, /* "winning-post" */
    CUZK_FIL_STMT_SNAP,         /* "snap": SnapDeals (EmptySectorUpdate) */
} cuzk_fil_stmt_kind;

/* The values, one bit each in `given`. */
enum {
    CUZK_FIL_SV_KIND = 1u << 0,
    CUZK_FIL_SV_PROOF = 1u << 1,
    CUZK_FIL_SV_SIZE = 1u << 2,
    CUZK_FIL_SV_PROVER = 1u << 3,
    CUZK_FIL_SV_SECTOR_NUMBER = 1u << 4,
    CUZK_FIL_SV_COMM_R = 1u << 5,
    CUZK_FIL_SV_COMM_D = 1u << 6,
    CUZK_FIL_SV_TICKET = 1u << 7,
    CUZK_FIL_SV_SEED = 1u << 8,
    CUZK_FIL_SV_RANDOMNESS = 1u << 9,
    CUZK_FIL_SV_COMM_R_OLD = 1u << 10,
    CUZK_FIL_SV_COMM_R_NEW = 1u << 11,
    CUZK_FIL_SV_COMM_D_NEW = 1u << 12,
    CUZK_FIL_SV_SECTORS = 1u << 13,
    CUZK_FIL_SV_PARTITION = 1u << 14,
};

#define CUZK_FIL_STMT_MAX_SECTORS (1u << 20)

typedef struct cuzk_fil_stmt_sector {
    uint64_t number;
    uint8_t comm_r[32];
} cuzk_fil_stmt_sector;

typedef struct cuzk_fil_statement {
    cuzk_fil_stmt_kind kind;
    uint32_t given;               /* CUZK_FIL_SV_* */
    uint64_t registered_proof;    /* after finish: resolved (a name or sector_size alone) */
    char proof_name[48];          /* registered_proof given as a name, resolved by finish */
    uint64_t sector_size;
    uint8_t prover_id[32];
    uint64_t sector_number;
    uint8_t comm_r[32], comm_d[32], ticket[32], seed[32], randomness[32];
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
    cuzk_fil_stmt_sector *sectors; /* finish sorts them by number */
    size_t num_sectors, cap_sectors;
    uint32_t partition;
    /* set by finish */
    int finished;
    cuzk_fil_circuit circuit;      /* whose verifying key checks it */
    uint32_t partitions;           /* partitions of the whole proof */
    size_t num_inputs;             /* per partition, without ONE */
} cuzk_fil_statement;

/* "porep", "window-post", ... or NULL. */
const char *cuzk_fil_stmt_kind_name(cuzk_fil_stmt_kind k);

void cuzk_fil_statement_init(cuzk_fil_statement *st);
void cuzk_fil_statement_free(cuzk_fil_statement *st);

/*
 * Sets the value `field` (the names above; "miner" and "prover_id" are one value) from its
 * text. CUZK_OK, or CUZK_ERR_FORMAT / NONCANONICAL / INVALID_ARG (an unknown field, a value
 * given twice, too many sectors) / NO_MEMORY with err naming the field and what was expected.
 */
int cuzk_fil_statement_set(cuzk_fil_statement *st, const char *field, const char *value, char *err,
                           size_t err_len);
/* Sets the values of a JSON object (the format above). As cuzk_fil_statement_set; a JSON error
 * names its line and column. */
int cuzk_fil_statement_set_json(cuzk_fil_statement *st, const char *json, size_t len, char *err, size_t err_len);

/*
 * Checks that the values make one statement of the kind and resolves them: the registered
 * proof (by number, name or sector size) of that kind, every value the kind needs given and
 * none it does not take, no all-zero comm_r / comm_d (verify_seal refuses them), a PoSt's
 * sectors (WinningPoSt: exactly its one challenged sector; no number twice), the partition in
 * range; the randomness's top two bits cleared. Sets circuit, partitions, num_inputs.
 * CUZK_OK, or CUZK_ERR_INVALID_ARG / UNSUPPORTED (NI-PoRep: a SnarkPack aggregate) with err.
 */
int cuzk_fil_statement_finish(cuzk_fil_statement *st, char *err, size_t err_len);

/* Proofs the proof bytes must hold: every partition, or 1 with a partition given. */
uint32_t cuzk_fil_statement_proofs(const cuzk_fil_statement *st);
/* The partition the i-th proof is of. */
uint32_t cuzk_fil_statement_partition_of(const cuzk_fil_statement *st, uint32_t i);
/* The public inputs (num_inputs, without ONE) of the i-th proof. CUZK_OK, CUZK_ERR_INVALID_ARG
 * (not finished, i out of range), CUZK_ERR_NO_MEMORY. */
int cuzk_fil_statement_inputs(const cuzk_fil_statement *st, uint32_t i, cuzk_fr *out);

#ifdef __cplusplus
}
#endif
#endif
