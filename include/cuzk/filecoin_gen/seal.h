/*
 * Native PoRep sealing for small sectors and C1 generation, for tests, demos
 * and benchmarks (no lotus, no Rust):
 *   data (fr32: random 32-byte nodes, top two bits cleared) -> tree D (binary
 *   SHA-256) -> comm_d -> replica_id -> SDR labels of every layer (layer 1
 *   from the DRG parents, later layers from DRG parents in the layer and
 *   expander parents in the previous one; node 0 hashes no parents) ->
 *   columns hashed with Poseidon (arity = layers) -> tree C -> replica =
 *   data + last layer's label -> tree R_last -> comm_r = Poseidon(comm_c,
 *   comm_r_last); then the vanilla proofs of the seed's challenges (C1).
 * Everything is deterministic from the params' seed. Whole layers live in
 * memory: nodes x (layers + 4) x 32 bytes plus the trees (8 MiB: ~60 MiB).
 *
 * The synthetic generator makes the C1 of a full-size sector without sealing
 * it: a committed-capacity sector (zero data, so tree D is the all-zero tree),
 * random columns for the parents, the challenged nodes' labels computed by
 * SHA-256 from them, and sparse trees C and R holding only the opened paths
 * (other subtrees are random values), so every path reaches one root. It
 * passes cuzk_fil_c1_check and satisfies the partition circuits.
 *
 * The daemon never calls these (src/layers: this layer is above it).
 */
#ifndef CUZK_SEAL_H
#define CUZK_SEAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/gadgets/merkle.h"
#include "cuzk/circuits/porep.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*cuzk_seal_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

typedef struct cuzk_seal_params {
    uint64_t registered_proof; /* porep_id and API version */
    uint64_t sector_size;      /* 0: the registered proof's; else a cuzk_porep_config_for size */
    uint64_t miner_id, sector_id;
    uint64_t seed;             /* data, ticket and the interactive seed derive from it */
    unsigned nthreads;         /* 0: all CPUs */
    cuzk_seal_progress_fn progress;
    void *progress_ctx;
} cuzk_seal_params;

typedef struct cuzk_sealed_sector {
    cuzk_seal_params p;
    const cuzk_fil_seal_proof *rp;
    cuzk_porep_config cfg;
    uint8_t prover_id[32], porep_id[32], ticket[32], seed[32]; /* seed: the interactive randomness */
    uint8_t replica_id[32], comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
    cuzk_fr replica_id_fr;
    cuzk_fil_graph graph;
    cuzk_fr *data;   /* nodes */
    cuzk_fr *labels; /* layers x nodes, layer 1 first */
    cuzk_merkle_tree d, c, r;
} cuzk_sealed_sector;

/* Seals; 0, CUZK_ERR_INVALID_ARG (unknown proof / size) or CUZK_ERR_NO_MEMORY. */
int cuzk_seal(cuzk_sealed_sector *s, const cuzk_seal_params *p);
void cuzk_sealed_sector_free(cuzk_sealed_sector *s);

/* The C1 of the sealed sector for its seed's challenges (every partition). */
int cuzk_seal_c1(const cuzk_sealed_sector *s, cuzk_fil_c1 **out);

/* Writes DIR/sector.json, data.bin, replica.bin (format: src/cli/cmd_gen.c); dir is
 * created if missing. 0 or CUZK_ERR_IO. */
int cuzk_seal_write_dir(const cuzk_sealed_sector *s, const char *dir);

/* The synthetic C1 of a registered proof's full-size sector (interactive PoRep
 * only: the challenges must not depend on comm_r). Memory ~ the opened paths. */
int cuzk_seal_synthetic_c1(const cuzk_seal_params *p, cuzk_fil_c1 **out);

/* A C1 as JSON, the inner JSON exactly as serde_json::to_vec writes
 * SealCommitPhase1Output (compact, field order of the Rust structs), the
 * layout cuzk_fil_c1_parse reads. 0 or CUZK_ERR_IO. */
int cuzk_fil_c1_write(const cuzk_fil_c1 *c1, FILE *f);
/* curio's wrapper around the inner JSON (Go json.Marshal field order). */
int cuzk_fil_c1_write_wrapped(const cuzk_fil_c1 *c1, uint64_t sector_num, FILE *f);

/* Ticket and interactive seed of a params seed (SHA-256 of a tag and the seed). */
void cuzk_seal_randomness(uint64_t seed, uint8_t ticket[32], uint8_t interactive_seed[32]);

#ifdef __cplusplus
}
#endif
#endif
