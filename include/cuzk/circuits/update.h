/*
 * Filecoin EmptySectorUpdate (SnapDeals) partition circuit, rust-fil-proofs
 * v19 storage-proofs-update circuit.rs / gadgets.rs / constants.rs.
 *
 * Per partition k of a sector: public inputs k_and_h_select (k in the low
 * partition bits, a one-hot selection of h among hs above them), comm_r_old,
 * comm_d_new, comm_r_new. phi = H_gen(comm_d_new, comm_r_old); the
 * challenges come in-circuit from H_gen(comm_r_new, digest index), each
 * proving leaf_r_old in tree R old, leaf_r_new = leaf_r_old + leaf_d_new·rho
 * (rho = H_gen(phi, the challenge's top h bits)) in tree R new and leaf_d_new
 * in tree D under the partition's apex leaves, whose SHA-256 apex tree root
 * opens comm_d_new. H_gen is Poseidon arity 2 with the custom domain tag 1.
 */
#ifndef CUZK_UPDATE_H
#define CUZK_UPDATE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/gadgets/merkle.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_UPDATE_NUM_HS 6

typedef struct cuzk_update_config {
    uint64_t sector_size, nodes;
    unsigned partitions, partition_bits;
    unsigned challenges;     /* per partition */
    unsigned challenge_bits; /* log2(nodes) */
    unsigned apex_leaves, apex_bits;
    unsigned apex_height;    /* tree D level of the apex leaves: challenge_bits - partition_bits - apex_bits */
    unsigned hs[CUZK_UPDATE_NUM_HS];
    cuzk_tree_shape tree; /* tree R (Poseidon); tree D is binary SHA-256 */
} cuzk_update_config;

/*
 * constants.rs for the allowed sizes (1, 2, 4, 8, 16, 32 KiB, 8, 16, 512 MiB,
 * 32, 64 GiB); CUZK_ERR_INVALID_ARG otherwise.
 */
int cuzk_update_config_for(cuzk_update_config *out, uint64_t sector_size);

/* gen_challenge_bits natively: the partition's challenges (node indices). */
int cuzk_update_challenges(uint64_t *out, const cuzk_update_config *cfg, const cuzk_fr *comm_r_new, unsigned k);
/* phi = H_gen(comm_d_new, comm_r_old); rho(c) = H_gen(phi, c >> (challenge_bits - h)). */
void cuzk_update_phi(cuzk_fr *phi, const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_old);
void cuzk_update_rho(cuzk_fr *rho, const cuzk_update_config *cfg, const cuzk_fr *phi, uint64_t node, unsigned h);

/* One challenge's vanilla proof. */
typedef struct cuzk_update_challenge {
    cuzk_fr leaf_r_old, leaf_d_new;
    const cuzk_fr *path_r_old; /* tree R siblings (cuzk_tree_path_len) */
    const cuzk_fr *path_r_new;
    const cuzk_fr *path_d_new; /* challenge_bits siblings in tree D */
} cuzk_update_challenge;

typedef struct cuzk_update_witness {
    unsigned k, h;
    cuzk_fr comm_r_old, comm_d_new, comm_r_new, comm_c, root_r_old, root_r_new;
    const cuzk_fr *apex_leaves;                /* cfg->apex_leaves */
    const cuzk_update_challenge *challenges;   /* cfg->challenges */
} cuzk_update_witness;

/* k_and_h_select = k | h_select << partition_bits; CUZK_ERR_INVALID_ARG for h not in hs. */
int cuzk_update_k_and_h_select(cuzk_fr *out, const cuzk_update_config *cfg, unsigned k, unsigned h);

/*
 * EmptySectorUpdateCircuit::synthesize into cs (ONE allocated); w == NULL
 * for the blank circuit. 5 inputs with ONE.
 */
int cuzk_update_circuit(cuzk_cs *cs, const cuzk_update_config *cfg, const cuzk_update_witness *w);

/*
 * The Poseidon variant (storage-proofs-update poseidon/circuit.rs): one
 * partition with challenges·partitions challenges of challenge_bits bits,
 * public inputs h_select, comm_r_old, comm_d_new, comm_r_new; tree D has
 * tree R's shape and Poseidon, each challenge's leaf_d_new proven in it
 * under comm_d_new (no apex tree). w->k is ignored, w->challenges holds
 * challenges·partitions proofs with path_d_new of cuzk_tree_path_len values.
 */
int cuzk_update_poseidon_circuit(cuzk_cs *cs, const cuzk_update_config *cfg, const cuzk_update_witness *w);

/* The gadgets, exposed for their own counts (gadgets.rs tests). */
/* allocated_num_to_allocated_bits: 255 bits ("bit i"), Σ 2^i·bit · ONE = num ("binary decomp"). */
void cuzk_update_num_to_bits(cuzk_cs *cs, const cuzk_num *num, cuzk_bool out[CUZK_FR_NUM_BITS]);
/* gen_challenge_bits: challenges × bits_per_challenge allocated bits into out. */
void cuzk_update_gen_challenge_bits(cuzk_cs *cs, const cuzk_num *comm_r_new, const cuzk_num *partition,
                                    unsigned challenges, unsigned bits_per_challenge, cuzk_bool *out);
/* apex_por: the SHA-256 tree over n apex leaves, its root opened in comm_d along the partition path. */
void cuzk_update_apex_por(cuzk_cs *cs, const cuzk_num *apex_leaves, unsigned n, const cuzk_bool *partition_bits,
                          unsigned partition_bit_len, const cuzk_num *partition_path, const cuzk_num *comm_d);

#ifdef __cplusplus
}
#endif
#endif
