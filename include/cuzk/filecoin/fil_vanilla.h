/*
 * Filecoin PoSt and SnapDeals vanilla proofs as a storage provider's stack hands them over,
 * their validation, and the witnesses and public inputs cuzk builds from them. The byte
 * formats are bincode 1.x (little-endian fixed-width integers, u64 lengths, u32 enum tags,
 * 32-byte field elements in their little-endian repr) of rust-fil-proofs' structures; the
 * facts and their sources are in docs/filecoin.md ("Vanilla proofs").
 *
 *   PoSt (one blob per sector; filecoin-proofs-api generate_single_vanilla_proof):
 *     FallbackPoStSectorProof { sector_id u64, comm_r, vanilla_proof: Proof { sectors:
 *     Vec<SectorProof { inclusion_proofs: Vec<MerkleProof>, comm_c, comm_r_last }> } }
 *   SnapDeals (one blob per partition; filecoin-proofs-api generate_partition_proofs):
 *     PartitionProof { comm_c, apex_leafs: Vec<Domain>, challenge_proofs: Vec<ChallengeProof {
 *     proof_r_old, proof_d_new, proof_r_new: MerkleProof }> }
 *   MerkleProof = enum ProofData { 0 Single { root, leaf, path }, 1 Sub { base_proof,
 *     sub_proof, root, leaf }, 2 Top { base_proof, sub_proof, top_proof, root, leaf } },
 *     path = Vec<PathElement { hashes: Vec<Domain> (arity - 1 siblings), index: u64 }>.
 *
 * Parsers check every shape against the registered proof (proof count, challenge count,
 * ProofData variant, levels, siblings per level, position < arity, canonical field elements,
 * no trailing bytes) before anything is allocated from a length, and name the offending field
 * in err. The prepare functions then rebuild every public input themselves (challenges from
 * randomness / comm_r_new, never the caller's) and check that the vanilla proofs open exactly
 * those leaves and hash to the committed roots, so a job that prepares is one the circuit
 * satisfies.
 */
#ifndef CUZK_FIL_VANILLA_H
#define CUZK_FIL_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_mproof.h"
#include "cuzk/filecoin/fil_request.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/ff/fr.h"
#include "cuzk/gadgets/merkle.h"
#include "cuzk/circuits/post.h"
#include "cuzk/circuits/update.h"

#ifdef __cplusplus
extern "C" {
#endif


/* ---- PoSt ---------------------------------------------------------------------------------- */

typedef struct cuzk_fil_post_vanilla {
    uint64_t sector_id;
    cuzk_fr comm_r, comm_c, comm_r_last;
    unsigned num_proofs;      /* inclusion proofs: 10 (WindowPoSt) or 66 (WinningPoSt) */
    cuzk_fil_mproof *proofs;
    cuzk_fr *store;           /* the paths */
} cuzk_fil_post_vanilla;

/* Inclusion proofs one sector's vanilla proof carries for a registered PoSt proof. */
unsigned cuzk_fil_post_vanilla_challenges(const cuzk_fil_post_proof *p);
/* Parses one FallbackPoStSectorProof; 0 or CUZK_ERR_FORMAT / NONCANONICAL / NO_MEMORY. */
int cuzk_fil_post_vanilla_parse(cuzk_fil_post_vanilla *out, uint64_t post_proof_id, const uint8_t *buf,
                                size_t len, char *err, size_t err_len);
/* Serialises v (shapes as the registered proof's); *out malloc'd. 0 or CUZK_ERR_*. */
int cuzk_fil_post_vanilla_encode(uint8_t **out, size_t *len, uint64_t post_proof_id,
                                 const cuzk_fil_post_vanilla *v);
void cuzk_fil_post_vanilla_free(cuzk_fil_post_vanilla *v);
/* A sector's vanilla proof of a registered PoSt proof to fill in: its inclusion proofs, each
 * with room for a tree R path, the values zero. 0 or CUZK_ERR_INVALID_ARG / NO_MEMORY (then
 * nothing is held). */
int cuzk_fil_post_vanilla_alloc(cuzk_fil_post_vanilla *v, uint64_t post_proof_id);

/* The leaves sector sector_id must open: sector_index is its position in the whole PoSt
 * (partition_index · sectors per partition + i; only API 1.0/1.1 use it). out gets
 * cuzk_fil_post_vanilla_challenges(p) values. */
void cuzk_fil_post_sector_challenges(uint64_t *out, const cuzk_fil_post_proof *p, const uint8_t randomness[32],
                                     uint64_t sector_id, uint64_t sector_index);

/* Public inputs of one partition (without ONE, cuzk_post_num_inputs - 1 values) from what a
 * verifier knows: per sector its id and comm_r (n <= sectors per partition; WinningPoSt n = 1),
 * randomness and the partition index. Short partitions repeat the last sector (compound.rs). */
int cuzk_fil_post_public_inputs(cuzk_fr *out, uint64_t post_proof_id, const uint8_t randomness[32],
                                uint32_t partition_index, const uint64_t *sector_ids, const cuzk_fr *comm_rs,
                                size_t n);

/* A PoSt partition ready for synthesis. */
typedef struct cuzk_fil_post_partition {
    const cuzk_fil_post_proof *proof;
    cuzk_post_config cfg;
    cuzk_post_witness w;
    cuzk_fr *inputs; /* rebuilt public inputs without ONE */
    size_t num_inputs;
    /* storage */
    cuzk_fil_post_vanilla *v;
    size_t nv;
    cuzk_post_sector *slots;
    uint64_t *challenges;
    cuzk_fr *leaves;
    uint64_t *sector_ids;
    cuzk_fr *comm_rs;
} cuzk_fil_post_partition;

/*
 * The request's vanilla_proofs (one per sector, in partition order; WinningPoSt exactly one,
 * the selected sector), registered_proof, randomness (32 bytes, a canonical Fr) and
 * partition_index. comm_r per sector comes from each vanilla proof (as filecoin-proofs takes
 * it) and must equal H(comm_c, comm_r_last); expected_comm_r (NULL or one per blob) pins it to
 * what the caller's chain state says. Every inclusion proof must open cuzk's own challenge and
 * hash to comm_r_last. 0, or CUZK_ERR_FORMAT / NONCANONICAL / INVALID_ARG / VERIFY_FAILED with
 * err naming the field.
 */
int cuzk_fil_post_prepare(cuzk_fil_post_partition *job, uint64_t post_proof_id, const uint8_t randomness[32],
                          uint32_t partition_index, const cuzk_fil_blob *blobs, size_t n,
                          const cuzk_fr *expected_comm_r, char *err, size_t err_len);
/* The same with the sectors parsed and checked on nthreads threads (0 or 1: the caller's); the
 * result and any error and its message (the first a sequential pass meets) do not depend on it. */
int cuzk_fil_post_prepare_threads(cuzk_fil_post_partition *job, uint64_t post_proof_id, const uint8_t randomness[32],
                                  uint32_t partition_index, const cuzk_fil_blob *blobs, size_t n,
                                  const cuzk_fr *expected_comm_r, unsigned nthreads, char *err, size_t err_len);
void cuzk_fil_post_partition_free(cuzk_fil_post_partition *job);
/* The same from a decoded request (fil_request.h): kind WINDOW_POST / WINNING_POST, randomness
 * present, its blobs the vanilla proofs. */
int cuzk_fil_post_prepare_request(cuzk_fil_post_partition *job, const cuzk_fil_request *r, char *err,
                                  size_t err_len);

/* WinningPoSt: the index (< sector_set_len) of the sector a miner must prove. */
uint64_t cuzk_fil_winning_sector_index(const uint8_t randomness[32], uint64_t miner_id, uint64_t sector_set_len);

/* ---- SnapDeals ----------------------------------------------------------------------------- */

typedef struct cuzk_fil_snap_challenge {
    cuzk_fil_mproof r_old, d_new, r_new;
} cuzk_fil_snap_challenge;

typedef struct cuzk_fil_snap_vanilla {
    cuzk_fr comm_c;
    unsigned num_apex;
    cuzk_fr *apex_leaves;
    unsigned num_challenges;
    cuzk_fil_snap_challenge *ch;
    cuzk_fr *store;
} cuzk_fil_snap_vanilla;

int cuzk_fil_snap_vanilla_parse(cuzk_fil_snap_vanilla *out, uint64_t update_proof_id, const uint8_t *buf,
                                size_t len, char *err, size_t err_len);
int cuzk_fil_snap_vanilla_encode(uint8_t **out, size_t *len, uint64_t update_proof_id,
                                 const cuzk_fil_snap_vanilla *v);
void cuzk_fil_snap_vanilla_free(cuzk_fil_snap_vanilla *v);
/* A partition's vanilla proof of a registered update proof to fill in: its apex leaves and
 * challenge proofs, each with room for its path. As cuzk_fil_post_vanilla_alloc. */
int cuzk_fil_snap_vanilla_alloc(cuzk_fil_snap_vanilla *v, uint64_t update_proof_id);

/* h that filecoin-proofs uses (SectorUpdateConfig h = h_default = hs(nodes)[3]); its h_select is
 * 1 << (first index of h in hs), so 1 for the sizes below 64 KiB where hs is [1; 6]. */
unsigned cuzk_fil_snap_default_h(const cuzk_update_config *cfg);
/* Partition k's public inputs [k_and_h_select, comm_r_old, comm_d_new, comm_r_new], h default. */
int cuzk_fil_snap_public_inputs(cuzk_fr out[4], uint64_t update_proof_id, uint32_t k, const cuzk_fr *comm_r_old,
                                const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new);

/* A SnapDeals partition ready for synthesis. */
typedef struct cuzk_fil_snap_partition {
    cuzk_update_config cfg;
    cuzk_update_witness w;
    cuzk_fr inputs[4]; /* rebuilt public inputs without ONE */
    cuzk_update_challenge *ch;
    cuzk_fil_snap_vanilla v;
} cuzk_fil_snap_partition;

/*
 * Partition k (the request's partition_index, < partitions; vanilla_proofs[k] is blob) of a
 * SnapDeals proof for registered update proof update_proof_id, with the request's
 * commitments (32 bytes each, see cuzk_fil_commitment). Checks comm_r_old/new =
 * H(comm_c, root), comm_d_new = tree D root, each challenge proof at cuzk's challenge, the
 * encoding leaf_r_new = leaf_r_old + leaf_d_new·rho and the apex leaves on every tree D path.
 */
int cuzk_fil_snap_prepare(cuzk_fil_snap_partition *job, uint64_t update_proof_id, uint32_t k,
                          const uint8_t comm_r_old[32], const uint8_t comm_r_new[32], const uint8_t comm_d_new[32],
                          const uint8_t *blob, size_t len, char *err, size_t err_len);
void cuzk_fil_snap_partition_free(cuzk_fil_snap_partition *job);
/* Partition k of a decoded SNAP request: the three commitments present, one blob per partition
 * (a SnapDeals proof covers every partition: the caller prepares k = 0 .. partitions - 1). */
int cuzk_fil_snap_prepare_request(cuzk_fil_snap_partition *job, const cuzk_fil_request *r, uint32_t k, char *err,
                                  size_t err_len);
/* Partitions of a registered update proof, 0 if unknown. */
unsigned cuzk_fil_snap_partitions(uint64_t update_proof_id);

/* RegisteredUpdateProof id of a sector size, or -1. */
int64_t cuzk_fil_update_proof_for_size(uint64_t sector_size);

/* Tree R of a sector size (Poseidon, the arities of cuzk_fil_tree_shape). 0 or
 * CUZK_ERR_INVALID_ARG for a size that is not Filecoin's. */
int cuzk_fil_tree_r(cuzk_tree_shape *out, uint64_t sector_size);
/* comm_r = H(comm_c, comm_r_last): Poseidon arity 2 with the Merkle tag, as the circuits'
 * "H_comm_c_comm_r_last". */
void cuzk_fil_comm_r(cuzk_fr *out, const cuzk_fr *comm_c, const cuzk_fr *comm_r_last);

/* Which commitment a field holds: a replica's (CommR: comm_r, comm_r_old,
 * comm_r_new) or its data's (CommD: comm_d_new). */
typedef enum cuzk_fil_comm_kind {
    CUZK_FIL_COMM_SEALED = 0,
    CUZK_FIL_COMM_UNSEALED = 1
} cuzk_fil_comm_kind;

/*
 * A commitment field as requests carry it: 32 raw bytes (Fr repr), or the CID bytes curio
 * sends: CIDv1, 32-byte digest, and the codec and multihash of the commitment `kind` names
 * (sealed: fil-commitment-sealed 0xf102 with poseidon-bls12_381-a2-fc1 0xb401; unsealed:
 * fil-commitment-unsealed 0xf101 with sha2-256-trunc254-padded 0x1012). A CID of the other
 * kind, or with a codec and multihash that do not pair, is refused naming what it is.
 * 0 or CUZK_ERR_FORMAT / NONCANONICAL with err naming `name`.
 */
int cuzk_fil_commitment(uint8_t out[32], const uint8_t *in, size_t len, cuzk_fil_comm_kind kind, const char *name,
                        char *err, size_t err_len);
/*
 * The same from the text an operator has: 64 hex digits of the 32 bytes (an optional "0x"), or
 * the CID string lotus and curio print (multibase base32, "bagboea4b5abc..." for a sealed and
 * "baga6ea4seaq..." for an unsealed commitment). A CID must be of the kind `sealed` says
 * (comm_r: fil-commitment-sealed with Poseidon; comm_d: unsealed with SHA-256-trunc254), as
 * lotus's CIDToReplicaCommitmentV1 / CIDToDataCommitmentV1 require.
 */
int cuzk_fil_commitment_text(uint8_t out[32], const char *s, int sealed, const char *name, char *err,
                             size_t err_len);

#ifdef __cplusplus
}
#endif
#endif
