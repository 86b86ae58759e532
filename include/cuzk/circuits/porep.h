/*
 * Filecoin PoRep (StackedDrg, rust-fil-proofs v19 storage-proofs-porep):
 * the labeling and encoding gadgets and the partition circuit, allocating
 * and enforcing in rust-fil-proofs' order so that the ceremony parameters
 * apply.
 *
 * Labels: label(layer, node) = SHA-256(replica_id || layer (u32 BE) ||
 * node (u64 BE) || 20 zero bytes || 37 parent labels), with the two top
 * bits of the last byte cleared, as a little-endian Fr. Layer 1 hashes the 6
 * DRG parents six times and the first once more; later layers hash the 6 DRG
 * parents (this layer) and 8 expander parents (previous layer), twice, and
 * the first 9 once more.
 */
#ifndef CUZK_POREP_H
#define CUZK_POREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/gadgets/merkle.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_POREP_BASE_DEGREE 6
#define CUZK_POREP_EXP_DEGREE 8
#define CUZK_POREP_TOTAL_PARENTS 37

/* ---- labels and encoding ------------------------------------------------ */

/* Native label from the 37 hashed parent labels (already expanded). */
int cuzk_porep_label(cuzk_fr *out, const cuzk_fr *replica_id, uint32_t layer, uint64_t node,
                     const cuzk_fr parents[CUZK_POREP_TOTAL_PARENTS]);
/*
 * The 37 hashed parents of a node from its DRG parents' labels (this layer)
 * and, for layer > 1, its expander parents' labels (previous layer).
 */
void cuzk_porep_expand_parents(cuzk_fr out[CUZK_POREP_TOTAL_PARENTS], uint32_t layer,
                               const cuzk_fr drg[CUZK_POREP_BASE_DEGREE],
                               const cuzk_fr exp[CUZK_POREP_EXP_DEGREE]);

/*
 * create_label_circuit: SHA-256 over replica_id (256 bits, byte order of its
 * LE encoding, each byte MSB first), the constant layer, node (64 allocated
 * or constant bits, least significant first, as UInt64), zero padding and 37
 * parents of 256 bits each; the first 254 bits of the digest (byte-reversed
 * numbering) packed into one number ("hash", "result_num").
 */
cuzk_num cuzk_porep_label_circuit(cuzk_cs *cs, const cuzk_bool replica_id[256],
                                  const cuzk_bool *const parents[CUZK_POREP_TOTAL_PARENTS], uint32_t layer,
                                  const cuzk_bool node_le[64]);
/* encode: key + value with one allocation and one constraint ("encode_add"). */
cuzk_num cuzk_porep_encode_circuit(cuzk_cs *cs, const cuzk_num *key, const cuzk_num *value);

/* ---- the partition circuit ---------------------------------------------- */

/*
 * comm_r = H(comm_c, comm_r_last): Poseidon arity 2 ("H_comm_c_comm_r_last")
 * and comm_r·ONE = H named name (PoRep and PoSt name it differently).
 */
void cuzk_comm_r_circuit(cuzk_cs *cs, const char *name, const cuzk_num *comm_r, const cuzk_num *comm_c,
                         const cuzk_num *comm_r_last);

/* Public parameters of one PoRep shape. */
typedef struct cuzk_porep_config {
    uint64_t sector_size;  /* bytes (0 for ad-hoc test shapes) */
    uint64_t nodes;        /* 32-byte nodes: sector_size / 32 */
    unsigned layers;       /* 2, or 11 for 32 and 64 GiB */
    unsigned partitions;
    unsigned challenges;   /* per partition: ceil(minimum challenges / partitions) */
    cuzk_tree_shape tree;  /* trees R and C (Poseidon); tree D is binary SHA-256 */
} cuzk_porep_config;

/*
 * filecoin-proofs' interactive PoRep parameters for a registered sector size
 * (2KiB, 4KiB, 16KiB, 32KiB, 8MiB, 16MiB, 512MiB, 1GiB, 32GiB, 64GiB); with
 * non_interactive, NI-PoRep's (26 / 2253 minimum challenges over 13 / 126
 * partitions). CUZK_ERR_INVALID_ARG for any other size.
 */
int cuzk_porep_config_for(cuzk_porep_config *out, uint64_t sector_size, bool non_interactive);
/* Public inputs per partition including ONE: 4 + 18·challenges. */
size_t cuzk_porep_num_inputs(const cuzk_porep_config *cfg);

/* A parent's column: its node index (public, as its tree C path bits), its labels, its tree C path. */
typedef struct cuzk_porep_column {
    uint64_t node;
    const cuzk_fr *rows;  /* layers labels, layer 1 first */
    const cuzk_fr *path;  /* cuzk_tree_path_len(tree, nodes) siblings in tree C */
} cuzk_porep_column;

/* The vanilla proof of one challenge, as the circuit consumes it. */
typedef struct cuzk_porep_challenge {
    uint64_t node;                   /* challenged node */
    cuzk_fr data_leaf;               /* its unsealed data */
    const cuzk_fr *comm_d_path;      /* log2(nodes) siblings in tree D */
    cuzk_porep_column drg[CUZK_POREP_BASE_DEGREE];
    cuzk_porep_column exp[CUZK_POREP_EXP_DEGREE];
    const cuzk_fr *comm_r_last_path; /* siblings in tree R */
    const cuzk_fr *comm_c_path;      /* siblings in tree C (column of the challenge) */
} cuzk_porep_challenge;

typedef struct cuzk_porep_witness {
    cuzk_fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
    const cuzk_porep_challenge *challenges; /* cfg->challenges of them */
} cuzk_porep_witness;

/*
 * StackedCircuit::synthesize into cs (ONE already allocated): replica_id,
 * comm_d, comm_r as inputs, comm_r = H(comm_c, comm_r_last), then per
 * challenge ("challenge_i"): data leaf in tree D, 6 DRG and 8 expander
 * parent columns (hash + inclusion in tree C), the challenge as a 64-bit
 * input, the labels of every layer, encoding, inclusion in tree R, the
 * column hash and its inclusion in tree C. w == NULL synthesizes the blank
 * circuit (zero values), e.g. for RecordingCS or counting.
 */
int cuzk_porep_circuit(cuzk_cs *cs, const cuzk_porep_config *cfg, const cuzk_porep_witness *w);
/*
 * Same system, the challenges synthesized on up to nthreads threads (0: cs's
 * own count, cuzk_cs_set_threads, else all CPUs), each on a fork of cs and
 * extended in order (a WitnessCS in place after the first partition of a
 * config: cuzk_cs_synthesize_parallel_keyed); 1 is cuzk_porep_circuit.
 */
int cuzk_porep_circuit_threads(cuzk_cs *cs, const cuzk_porep_config *cfg, const cuzk_porep_witness *w,
                               unsigned nthreads);
/* generate_public_inputs (without ONE): 3 + 18·challenges values into out. */
size_t cuzk_porep_public_inputs(cuzk_fr *out, const cuzk_porep_config *cfg, const cuzk_porep_witness *w);

#ifdef __cplusplus
}
#endif
#endif
