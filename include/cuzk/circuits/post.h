/*
 * Filecoin FallbackPoSt (WindowPoSt and WinningPoSt, rust-fil-proofs v19
 * storage-proofs-post fallback/circuit.rs): one partition proves `sectors`
 * sector slots; each slot opens its sector's comm_r =
 * Poseidon-2(comm_c, comm_r_last) and proves `challenges` leaves of tree R
 * (private root comm_r_last, one packed-path input per challenge).
 *
 * Shapes (filecoin-proofs constants.rs, parameters.rs): WindowPoSt 10
 * challenges per sector, sectors per partition 2 for the test sizes, 2349
 * for 32 GiB and 2300 for 64 GiB. WinningPoSt: 66 challenges over 1 sector,
 * set up as 66 slots of 1 challenge (winning_post_setup_params). A partition
 * with fewer sectors repeats the last one (FallbackPoStCompound::circuit).
 */
#ifndef CUZK_POST_H
#define CUZK_POST_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"
#include "cuzk/gadgets/merkle.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_post_kind { CUZK_POST_WINDOW = 0, CUZK_POST_WINNING = 1 } cuzk_post_kind;

typedef struct cuzk_post_config {
    uint64_t sector_size; /* bytes (0 for ad-hoc test shapes) */
    uint64_t nodes;       /* leaves of tree R: sector_size / 32 */
    unsigned sectors;     /* sector slots per partition */
    unsigned challenges;  /* challenges per slot */
    cuzk_tree_shape tree; /* tree R (Poseidon) */
} cuzk_post_config;

/* filecoin-proofs' parameters for a registered sector size; CUZK_ERR_INVALID_ARG otherwise. */
int cuzk_post_config_for(cuzk_post_config *out, uint64_t sector_size, cuzk_post_kind kind);
/* Public inputs per partition including ONE: 1 + sectors·(1 + challenges). */
size_t cuzk_post_num_inputs(const cuzk_post_config *cfg);

/* One sector's vanilla proof as the circuit consumes it. */
typedef struct cuzk_post_sector {
    cuzk_fr comm_r, comm_c, comm_r_last;
    const uint64_t *challenges; /* cfg->challenges leaf indices */
    const cuzk_fr *leaves;      /* the challenged leaves of tree R */
    const cuzk_fr *paths;       /* cfg->challenges paths of cuzk_tree_path_len siblings */
} cuzk_post_sector;

typedef struct cuzk_post_witness {
    const cuzk_post_sector *sectors;
    size_t num_sectors; /* 1..cfg->sectors; the last one fills the remaining slots */
} cuzk_post_witness;

/*
 * FallbackPoStCircuit::synthesize into cs (ONE allocated). Per slot
 * ("sector_i"): comm_r_last, comm_c, comm_r allocated, comm_r inputized,
 * H(comm_c, comm_r_last) = comm_r, then per challenge
 * ("challenge_inclusion_j") the PoR of the leaf under comm_r_last. w == NULL
 * synthesizes the blank circuit. nthreads 1 is synthesize_default; otherwise
 * (0: cs's own count, else all CPUs) synthesize_extendable: groups of max(sectors / nthreads, 1)
 * slots in fresh child systems on nthreads threads, extended in order. Slots
 * share no variables, so the system is identical for every nthreads.
 */
int cuzk_post_circuit(cuzk_cs *cs, const cuzk_post_config *cfg, const cuzk_post_witness *w, unsigned nthreads);
/* generate_public_inputs (without ONE): per slot comm_r, then each challenge; w required. */
size_t cuzk_post_public_inputs(cuzk_fr *out, const cuzk_post_config *cfg, const cuzk_post_witness *w);

#ifdef __cplusplus
}
#endif
#endif
