/*
 * Test inputs for PoSt and SnapDeals without lotus or Rust, for tests, demos and benchmarks
 * (`cuzk gen-vanilla`): sealed-sector directories, stand-in sectors, and the vanilla proofs
 * a storage provider's stack would hand over, in the formats fil_vanilla.h parses. The
 * daemon never calls them (src/layers: this layer is above it).
 */
#ifndef CUZK_FIL_GEN_H
#define CUZK_FIL_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/ff/fr.h"
#include "cuzk/util/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* These hold whole sectors and build whole trees in memory: sizes up to a few hundred MiB. */

/* A sealed sector (the directory format of `cuzk gen-vanilla`, src/cli/cmd_gen.c). */
typedef struct cuzk_fil_sector {
    uint64_t sector_size, registered_proof, sector_id, nodes;
    uint8_t prover_id[32], ticket[32], comm_d[32], comm_r[32], comm_c[32], comm_r_last[32], replica_id[32];
    cuzk_fr *data;    /* nodes, or NULL when data.bin is absent */
    cuzk_fr *replica; /* nodes: tree R leaves */
} cuzk_fil_sector;

/* Reads DIR/sector.json and DIR/replica.bin (DIR/data.bin if present), checks comm_r_last
 * against tree R and comm_r = H(comm_c, comm_r_last). 0 or CUZK_ERR_* with err. */
int cuzk_fil_sector_read(cuzk_fil_sector *s, const char *dir, char *err, size_t err_len);
/* Writes sector.json, data.bin (when s->data) and replica.bin into dir (created if missing). */
int cuzk_fil_sector_write(const cuzk_fil_sector *s, const char *dir);
/* A stand-in sealed sector: random replica leaves, data and comm_c, consistent commitments
 * (comm_d over data; not a real PoRep encoding, which PoSt and SnapDeals never see). */
int cuzk_fil_sector_random(cuzk_fil_sector *s, uint64_t seal_proof_id, uint64_t sector_id, uint64_t miner_id,
                           cuzk_rng *rng);
void cuzk_fil_sector_free(cuzk_fil_sector *s);

/* Vanilla proof of one sector at position sector_index of a PoSt (as filecoin-proofs'
 * generate_single_vanilla_proof with generate_fallback_sector_challenges). *out malloc'd. */
int cuzk_fil_post_vanilla_generate(uint8_t **out, size_t *len, uint64_t post_proof_id, const cuzk_fil_sector *s,
                                   const uint8_t randomness[32], uint64_t sector_index);
/* The same without a sector on disk, for sizes that take hours to seal (32 GiB): the
 * challenged leaves and every unopened node are deterministic values of (seed, sector_id)
 * in a sparse tree R over the opened leaves only, comm_c likewise, comm_r = H(comm_c,
 * comm_r_last). Consistent: it prepares and satisfies the circuit as a real sector's does
 * (the PoSt circuit sees only the openings). *comm_r (may be NULL) receives comm_r. */
int cuzk_fil_post_vanilla_synthetic(uint8_t **out, size_t *len, uint64_t post_proof_id, uint64_t sector_id,
                                    const uint8_t randomness[32], uint64_t sector_index, uint64_t seed,
                                    uint8_t comm_r[32]);

/*
 * SnapDeals encoding of old with random new data from rng: tree D (binary SHA-256) over the
 * data gives comm_d_new; replica_new = replica_old + data·rho(h default); comm_r_new =
 * H(comm_c, root of tree R new). *out_new is the new sector (data, replica, commitments);
 * blobs[k] (malloc'd, *n = partitions) are the partition vanilla proofs. progress (may be
 * NULL) is called after each partition.
 */
int cuzk_fil_snap_generate(cuzk_fil_sector *out_new, uint8_t ***blobs, size_t **lens, size_t *n,
                           const cuzk_fil_sector *old, cuzk_rng *rng,
                           void (*progress)(void *ctx, unsigned done, unsigned total), void *ctx);
/*
 * The same request without a sector, for sizes whose sectors take hours to seal and minutes
 * to encode (32 GiB): registered update proof update_proof_id, everything from (seed,
 * sector_id). The old replica and the new data are constant over 4096 aligned runs of
 * leaves (each run's value drawn from the seed; every leaf its own below 4096 nodes), so
 * the new replica old + data·rho is too (a run lies inside one rho group) and the three
 * trees cost O(runs x levels) hashes (fil_runtree); the roots come first, then the
 * challenges from comm_r_new, whose paths are read off the trees. Consistent as
 * cuzk_fil_snap_generate's output: prepare accepts it and the witness satisfies the
 * circuit. blobs[k] (malloc'd, *n = partitions) are the partition vanilla proofs; the
 * request's commitments come back as 32 bytes each.
 */
int cuzk_fil_snap_synthetic(uint8_t ***blobs, size_t **lens, size_t *n, uint64_t update_proof_id,
                            uint64_t sector_id, uint64_t seed, uint8_t comm_r_old[32], uint8_t comm_d_new[32],
                            uint8_t comm_r_new[32]);

#ifdef __cplusplus
}
#endif
#endif
