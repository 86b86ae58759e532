/*
 * Filecoin PoRep C1 output (SealCommitPhase1Output): the vanilla proofs a
 * storage provider's sealing stack hands to the SNARK prover, in
 * filecoin-proofs' own serde_json form, read and written without Rust.
 *
 * Two encodings are accepted by cuzk_fil_c1_parse:
 *   - the inner JSON, filecoin-proofs-api SealCommitPhase1Output:
 *     {"registered_proof":"StackedDrg2KiBV1_1",
 *      "vanilla_proofs":{"StackedDrg2KiBV1":[[PROOF, ...], ...]},
 *      "comm_r":[32 ints],"comm_d":[..],"replica_id":[..],"seed":[..],"ticket":[..]}
 *     with partitions x challenges PROOFs (layout: docs/filecoin.md);
 *   - curio's wrapper {"SectorNum":n,"Phase1Out":"<base64 of the inner JSON>",
 *     "SectorSize":n}, detected by its Phase1Out field.
 * Parsing validates the structure against the registered proof: size class,
 * partition and challenge counts, Merkle proof variant (Single/Sub/Top),
 * path levels, hashes per level (arity - 1), position < arity, layers, 37
 * labeling parents, every 32-byte value a canonical field element. Errors
 * name the JSON path of the offending field.
 *
 * Nothing in a C1 is trusted: cuzk_fil_c1_check rebuilds replica_id (from
 * the miner id, sector number, ticket, comm_d and porep_id), the challenges
 * (from replica_id and seed), every parent index (from the SDR graph), and
 * verifies every path, label, encoding and comm_r = H(comm_c, comm_r_last)
 * (the vanilla verification). Only a checked C1 yields witnesses and public
 * inputs, and its public inputs are built from the rebuilt values.
 */
#ifndef CUZK_C1_H
#define CUZK_C1_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/filecoin.h"
#include "cuzk/ff/fr.h"
#include "cuzk/filecoin/fil_mproof.h"
#include "cuzk/circuits/porep.h"

#ifdef __cplusplus
extern "C" {
#endif


/* ColumnProof: column {index, rows (one label per layer)} and its tree C proof. */
typedef struct cuzk_fil_column {
    uint32_t index;
    cuzk_fr *rows;
    cuzk_fil_mproof proof;
} cuzk_fil_column;

/* One challenge's vanilla proof (storage-proofs-porep stacked Proof). */
typedef struct cuzk_fil_vproof {
    cuzk_fil_mproof comm_d;      /* comm_d_proofs: tree D (binary SHA-256) */
    cuzk_fil_mproof comm_r_last; /* comm_r_last_proof: tree R */
    cuzk_fil_column c_x, drg[CUZK_POREP_BASE_DEGREE], exp[CUZK_POREP_EXP_DEGREE];
    cuzk_fr *lab_parents;        /* layers x 37: labeling_proofs[l].parents */
    uint64_t node;               /* labeling_proofs[*].node == encoding_proof.node */
    cuzk_fr *enc_parents;        /* 37: encoding_proof.parents (layer_index = layers) */
} cuzk_fil_vproof;

typedef struct cuzk_fil_c1 {
    uint64_t registered_proof; /* RegisteredSealProof id */
    const cuzk_fil_seal_proof *rp;
    cuzk_porep_config cfg;     /* interactive or NI config of rp */
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    cuzk_fil_vproof *proofs;   /* cfg.partitions x cfg.challenges, partition-major */
    /* curio wrapper fields (wrapped = 1 when the input was the wrapper) */
    int wrapped;
    uint64_t wrap_sector_num, wrap_sector_size;
    /* set by cuzk_fil_c1_check */
    int checked;
    cuzk_fr replica_id_fr, comm_d_fr, comm_r_fr, comm_c_fr, comm_r_last_fr;
    /* storage */
    cuzk_fr *arena;
    size_t arena_len;
} cuzk_fil_c1;

/* Allocates an empty C1 for a registered proof (all Fr zero), with storage for every
 * proof. sector_size 0 is the proof's; another registered size (4KiB, 16KiB, ...: test
 * shapes sealed with this proof's porep_id) gives a C1 that checks but has no JSON form.
 * CUZK_ERR_INVALID_ARG for an unknown id or size, CUZK_ERR_NO_MEMORY. */
int cuzk_fil_c1_alloc(cuzk_fil_c1 **out, uint64_t registered_proof, uint64_t sector_size);
void cuzk_fil_c1_free(cuzk_fil_c1 *c1);

/* Parses either encoding (see above). 0 on success; on error *out is NULL, a
 * CUZK_ERR_* code is returned and err holds a message naming the field. */
int cuzk_fil_c1_parse(const uint8_t *buf, size_t len, cuzk_fil_c1 **out, char *err, size_t errcap);
/* The same, a large C1's proofs parsed on nthreads threads (0 or 1: the
 * caller's); the result, and any error and its message, do not depend on
 * it (anything unexpected is left to the one-thread parse). */
int cuzk_fil_c1_parse_threads(const uint8_t *buf, size_t len, unsigned nthreads, cuzk_fil_c1 **out, char *err,
                              size_t errcap);

/*
 * The vanilla verification with every public value rebuilt by cuzk (prover_id: the
 * miner's ID-address payload, uvarint of miner_id zero padded, as filecoin-ffi toProverID):
 * registered_proof must equal the C1's (and the wrapper's SectorSize/SectorNum
 * must agree when present), replica_id = cuzk_fil_replica_id(prover_id(miner_id),
 * sector_id, ticket, comm_d, porep_id), challenges from (replica_id, seed) (or
 * comm_r for NI-PoRep, synthetic selection for SyntheticPoRep), parents from
 * the SDR graph, all paths open to comm_d / comm_c / comm_r_last with
 * comm_r = Poseidon(comm_c, comm_r_last), labels recomputed from the parent
 * columns, replica leaf = last label + data. The sector size follows from the
 * registered proof (c1->cfg.sector_size; a request's own sector_size field is the
 * caller's to compare). 0 on success, CUZK_ERR_VERIFY_FAILED (err says what and
 * where), CUZK_ERR_INVALID_ARG or CUZK_ERR_NO_MEMORY. Resets c1->checked first.
 */
int cuzk_fil_c1_check(cuzk_fil_c1 *c1, uint64_t registered_proof, uint64_t miner_id, uint64_t sector_id,
                      char *err, size_t errcap);
/* The same with the challenges checked on nthreads threads (0 or 1: the
 * caller's); the result and the message (the first failure in file order)
 * do not depend on it. */
int cuzk_fil_c1_check_threads(cuzk_fil_c1 *c1, uint64_t registered_proof, uint64_t miner_id, uint64_t sector_id,
                              unsigned nthreads, char *err, size_t errcap);

/*
 * Partition k's circuit witness (checked C1 only). The challenge array
 * (cfg.challenges entries) is allocated into *chs (free it); w points into
 * c1, which must outlive it. 0, CUZK_ERR_INVALID_ARG or CUZK_ERR_NO_MEMORY.
 */
int cuzk_fil_c1_witness(const cuzk_fil_c1 *c1, unsigned k, cuzk_porep_witness *w,
                        cuzk_porep_challenge **chs);
/* Partition k's public inputs without ONE (cuzk_porep_num_inputs - 1 values) from
 * the rebuilt values; returns the count, 0 if c1 is unchecked or k out of range. */
size_t cuzk_fil_c1_public_inputs(const cuzk_fil_c1 *c1, unsigned k, cuzk_fr *out);

/* What a verifier of a seal knows (filecoin-proofs verify_seal's arguments besides the proof). */
typedef struct cuzk_fil_seal_values {
    uint64_t registered_proof;
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32], seed[32]; /* seed: the interactive randomness */
    uint8_t comm_d[32], comm_r[32];
} cuzk_fil_seal_values;
/*
 * Partition k's public inputs without ONE (cuzk_porep_num_inputs - 1 values) from those values
 * alone: replica_id, the challenges and their graph parents rebuilt as cuzk_fil_c1_check rebuilds
 * them, so that for a checked C1 of the same sector they are cuzk_fil_c1_public_inputs'. 0,
 * CUZK_ERR_INVALID_ARG (unknown proof, k out of range), CUZK_ERR_NONCANONICAL (a commitment is
 * not a field element), CUZK_ERR_NO_MEMORY.
 */
int cuzk_fil_porep_public_inputs(cuzk_fr *out, const cuzk_fil_seal_values *v, unsigned k);
/* Size name of the VanillaSealProof variant ("StackedDrg2KiBV1"), NULL for an unknown size. */
const char *cuzk_fil_c1_size_key(uint64_t sector_size);
/* Sibling count of one tree D / tree R,C path of the config. */
size_t cuzk_fil_c1_path_d(const cuzk_porep_config *cfg);
size_t cuzk_fil_c1_path_r(const cuzk_porep_config *cfg);

#ifdef __cplusplus
}
#endif
#endif
