/*
 * Filecoin public-input derivations that cuzk computes itself (never taken from the caller):
 * registered proof ids and porep_id, parameter file names, replica_id, PoRep and PoSt
 * challenges, and the SDR parent graph (DRG bucket graph + Feistel expander), one node at a
 * time so it works for 32/64 GiB sectors. Facts and sources: docs/filecoin.md.
 */
#ifndef CUZK_FILECOIN_H
#define CUZK_FILECOIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- API versions, features, registered proofs ------------------------------------------- */

typedef enum cuzk_fil_api_version {
    CUZK_FIL_API_V1_0_0 = 0,
    CUZK_FIL_API_V1_1_0 = 1,
    CUZK_FIL_API_V1_2_0 = 2,
} cuzk_fil_api_version;

typedef enum cuzk_fil_feature {
    CUZK_FIL_FEAT_NONE = 0,
    CUZK_FIL_FEAT_SYNTHETIC = 1,      /* SyntheticPoRep (needs >= V1_2_0)             */
    CUZK_FIL_FEAT_NON_INTERACTIVE = 2 /* NonInteractivePoRep (needs >= V1_2_0)        */
} cuzk_fil_feature;

typedef enum cuzk_fil_post_kind { CUZK_FIL_POST_WINNING = 0, CUZK_FIL_POST_WINDOW = 1 } cuzk_fil_post_kind;

/* One registered seal proof (filecoin-proofs-api RegisteredSealProof, ids 0..19). */
typedef struct cuzk_fil_seal_proof {
    uint64_t id;
    const char *name; /* e.g. "StackedDrg32GiBV1_1" */
    uint64_t sector_size;
    cuzk_fil_api_version api_version;
    cuzk_fil_feature feature;
    unsigned partitions;
    unsigned layers;
    unsigned challenges_per_partition;
} cuzk_fil_seal_proof;

/* One registered PoSt proof (RegisteredPoStProof, ids 0..14). */
typedef struct cuzk_fil_post_proof {
    uint64_t id;
    const char *name;
    uint64_t sector_size;
    cuzk_fil_api_version api_version;
    cuzk_fil_post_kind kind;
    unsigned challenge_count; /* per sector, as the circuit sees it */
    unsigned sector_count;    /* sectors per partition, as the circuit sees it */
} cuzk_fil_post_proof;

/* NULL for an unknown id / name. */
const cuzk_fil_seal_proof *cuzk_fil_seal_proof_get(uint64_t id);
const cuzk_fil_seal_proof *cuzk_fil_seal_proof_by_name(const char *name);
const cuzk_fil_post_proof *cuzk_fil_post_proof_get(uint64_t id);
const cuzk_fil_post_proof *cuzk_fil_post_proof_by_name(const char *name);
/* RegisteredUpdateProof (SnapDeals) ids 0..4: sector size, or 0 for an unknown id. Their API
 * version is V1_1_0 and their porep_id uses the update id itself (0..4). */
uint64_t cuzk_fil_update_proof_sector_size(uint64_t id);

/* porep_id: registered proof id (u64 LE) || nonce (u64 LE) || 16 zero bytes. */
void cuzk_fil_porep_id(uint8_t out[32], uint64_t registered_proof_id, uint64_t nonce);
/* Whether api_version supports feature (both features need V1_2_0). */
int cuzk_fil_api_supports(cuzk_fil_api_version v, cuzk_fil_feature f);
/* "1.0.0" / "1.1.0" / "1.2.0". */
const char *cuzk_fil_api_version_str(cuzk_fil_api_version v);

/* Merkle tree shape (base arity 8, sub, top) of a sector size; 0 on unknown size. */
int cuzk_fil_tree_shape(uint64_t sector_size, unsigned *base, unsigned *sub, unsigned *top);

/* ---- parameter file names ----------------------------------------------------------------- */

#define CUZK_FIL_CACHE_ID_MAX 160
#define CUZK_FIL_IDENTIFIER_MAX 320

/* Parameter-set identifiers exactly as rust-fil-proofs formats them (the string whose SHA-256
 * names the file). Return the length, or 0 on unknown size / too small a buffer. */
size_t cuzk_fil_porep_identifier(char *out, size_t cap, uint64_t sector_size, unsigned layers,
                                 unsigned challenges_per_partition);
size_t cuzk_fil_post_identifier(char *out, size_t cap, uint64_t sector_size,
                                unsigned challenge_count, unsigned sector_count);
/* Cache ids "<prefix>-<sha256(identifier) hex>" (the file is "v28-<cache id>.params|.vk|.meta").
 * update_poseidon selects the "empty-sector-update-poseidon-" circuit. 0 on error. */
size_t cuzk_fil_porep_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], uint64_t seal_proof_id);
size_t cuzk_fil_post_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], uint64_t post_proof_id);
size_t cuzk_fil_update_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], uint64_t update_proof_id,
                                int update_poseidon);
/* "v28-<cache id><ext>", ext like ".params". 0 on overflow. */
size_t cuzk_fil_param_file_name(char *out, size_t cap, const char *cache_id, const char *ext);

/* ---- replica id and challenges ------------------------------------------------------------ */

/* prover_id of a miner actor (filecoin-ffi toProverID): its ID-address payload, the
 * unsigned LEB128 varint of miner_id, zero padded to 32 bytes. */
void cuzk_fil_prover_id(uint8_t out[32], uint64_t miner_id);
/* The actor id a prover_id encodes (its leading uvarint); 0 when it is not one. */
uint64_t cuzk_fil_prover_miner(const uint8_t prover_id[32]);

/* SHA-256(prover_id || sector_id (u64 BE) || ticket || comm_d || porep_id), top two bits of
 * byte 31 cleared (a canonical Fr in little-endian). */
void cuzk_fil_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                         const uint8_t ticket[32], const uint8_t comm_d[32],
                         const uint8_t porep_id[32]);
/* Interactive PoRep challenge number j (= partition k * challenges_per_partition + i):
 * 1 + (LE(SHA-256(replica_id || seed || j u32 LE)) mod (nodes - 1)). nodes >= 2, < 2^32. */
uint64_t cuzk_fil_porep_challenge(const uint8_t replica_id[32], const uint8_t seed[32],
                                  uint32_t j, uint64_t nodes);
/* Non-interactive variant: the seed is replaced by the tag
 * "filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r, then j. */
uint64_t cuzk_fil_porep_challenge_ni(const uint8_t replica_id[32], const uint8_t comm_r[32],
                                     uint32_t j, uint64_t nodes);
/* Fills out[0..count) with the challenges of partition k. */
void cuzk_fil_porep_challenges(uint64_t *out, unsigned count, unsigned k,
                               const uint8_t replica_id[32], const uint8_t seed[32],
                               uint64_t nodes);

/* Synthetic PoRep: a fixed set of num_synth (default min(nodes, 2^18)) challenges from
 * ChaCha20 keyed by Blake2b-256("...Synthetic|1|Generation"; replica_id || comm_r), nonce
 * "synth-porep\0", 32 keystream bytes each; a partition's challenges are selected from it by
 * u32 indexes from ChaCha20 keyed by Blake2b-256("...Synthetic|1|Selection"; replica_id || rand). */
typedef struct cuzk_fil_synth {
    uint8_t gen_key[32];
    uint8_t replica_id[32];
    uint64_t nodes, num_synth;
} cuzk_fil_synth;

/* num_synth 0 = the default. 0 on success. */
int cuzk_fil_synth_init(cuzk_fil_synth *s, const uint8_t replica_id[32], const uint8_t comm_r[32],
                        uint64_t nodes, uint64_t num_synth);
/* Synthetic challenge i (< num_synth). */
uint64_t cuzk_fil_synth_challenge(const cuzk_fil_synth *s, uint64_t i);
/* Partition k's count challenges: selected synthetic indexes and/or their challenges (either
 * output may be NULL). 0 on success. */
int cuzk_fil_synth_porep_challenges(const cuzk_fil_synth *s, const uint8_t rand[32],
                                    unsigned count, unsigned k, uint64_t *indexes,
                                    uint64_t *challenges);

/* Partition k's challenges (c->challenges nodes) as the registered proof's variant derives
 * them: interactive from (replica_id, seed), NI-PoRep from (replica_id, comm_r), SyntheticPoRep
 * selected by seed from the synthetic set of (replica_id, comm_r). 0, or -1. */
struct cuzk_porep_config;
int cuzk_fil_porep_partition_challenges(uint64_t *out, const cuzk_fil_seal_proof *rp,
                                        const struct cuzk_porep_config *c, const uint8_t replica_id[32],
                                        const uint8_t comm_r[32], const uint8_t seed[32], unsigned k);

/* PoSt: index of the leaf challenge n of the sector at sector_index in its partition;
 * V1_0_0/V1_1_0 use sector_index * challenge_count + n, V1_2_0 uses n. */
uint64_t cuzk_fil_post_challenge_index(cuzk_fil_api_version v, uint64_t sector_index,
                                       uint64_t challenge_count, uint64_t n);
/* Leaf: LE u64 of SHA-256(randomness || sector_id LE || challenge_index LE) mod nodes. */
uint64_t cuzk_fil_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t challenge_index, uint64_t sector_nodes);
/* Winning PoSt sector selection: LE u64 of SHA-256(prover_id || randomness || n u64 LE) mod len. */
uint64_t cuzk_fil_post_sector_challenge(const uint8_t randomness[32], uint64_t n,
                                        uint64_t sector_set_len, const uint8_t prover_id[32]);

/* ---- ChaCha (rand_chacha's ChaCha8Rng) ---------------------------------------------------- */

/* One ChaCha block: key words LE, 64-bit block counter (words 12-13), 64-bit stream id
 * (words 14-15), `rounds` = 8/12/20. */
void cuzk_fil_chacha_block(uint32_t out[16], const uint8_t key[32], uint64_t counter,
                           uint64_t stream, unsigned rounds);

/* ChaCha8Rng::from_seed: stream 0, counter 0, 64-word buffer (4 blocks) consumed like
 * rand_core's BlockRng (next_u64 = low word first, straddling a refill if needed). */
typedef struct cuzk_fil_chacha8_rng {
    uint8_t key[32];
    uint64_t counter;
    uint32_t buf[64];
    unsigned index;
} cuzk_fil_chacha8_rng;

void cuzk_fil_chacha8_rng_init(cuzk_fil_chacha8_rng *r, const uint8_t seed[32]);
uint32_t cuzk_fil_chacha8_next_u32(cuzk_fil_chacha8_rng *r);
uint64_t cuzk_fil_chacha8_next_u64(cuzk_fil_chacha8_rng *r);

/* ---- the SDR graph ------------------------------------------------------------------------ */

#define CUZK_FIL_DRG_DEGREE 6
#define CUZK_FIL_EXP_DEGREE 8
#define CUZK_FIL_DEGREE 14

typedef struct cuzk_fil_graph {
    uint64_t nodes;
    cuzk_fil_api_version api_version;
    uint8_t drg_seed[28];         /* SHA-256("Filecoin_DRSample" || porep_id)[0..28] */
    uint64_t feistel_keys[4];     /* SHA-256("Filecoin_Feistel" || porep_id), 4 u64 LE */
    uint64_t left_mask, right_mask, half_bits;
} cuzk_fil_graph;

/* 0 on success; -1 when nodes < 2, nodes > 2^32 - 1 or nodes * 5 > 2^54. */
int cuzk_fil_graph_init(cuzk_fil_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                        cuzk_fil_api_version v);
/* DRG (bucket) parents: V1_0_0 puts node-1 last, later versions first; nodes 0, 1 -> all 0. */
void cuzk_fil_graph_drg_parents(const cuzk_fil_graph *g, uint32_t node,
                                uint32_t out[CUZK_FIL_DRG_DEGREE]);
/* Expander parents: Feistel permutation of node*8+i over nodes*8, divided by 8 (V1_0_0
 * truncates the permuted value to u32 before dividing). */
void cuzk_fil_graph_exp_parents(const cuzk_fil_graph *g, uint32_t node,
                                uint32_t out[CUZK_FIL_EXP_DEGREE]);
/* Both, in parent-cache order (6 DRG then 8 expander). */
void cuzk_fil_graph_parents(const cuzk_fil_graph *g, uint32_t node, uint32_t out[CUZK_FIL_DEGREE]);
/* Feistel permutation of index over [0, n) (3 rounds, Blake2b-512, cycle walking) and its inverse. */
uint64_t cuzk_fil_feistel_permute(const cuzk_fil_graph *g, uint64_t n, uint64_t index);
uint64_t cuzk_fil_feistel_invert(const cuzk_fil_graph *g, uint64_t n, uint64_t index);

/* Blake2b-512 of a 16-byte message (the Feistel round function's hash). */
void cuzk_fil_blake2b512_16(uint8_t out[64], const uint8_t in[16]);

/* Parent-cache file stem "v28-sdr-parent-<hex>" for a graph with `entries` cached nodes. */
size_t cuzk_fil_parent_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], const cuzk_fil_graph *g,
                                uint32_t entries);
/* SHA-256 of the parent cache (per node 14 u32 LE) for nodes [0, g->nodes): the digest that
 * rust-fil-proofs records in parent_cache.json. Computes every node: use on small graphs. */
int cuzk_fil_parent_cache_digest(uint8_t out[32], const cuzk_fil_graph *g);

#ifdef __cplusplus
}
#endif

#endif
