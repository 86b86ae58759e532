/* Helpers shared by the src/filecoin files. */
#ifndef CUZK_FILECOIN_INTERNAL_H
#define CUZK_FILECOIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/util/sha256.h"

/* ---- PoRep C1 output (c1*.c) ---- */

/* Columns a challenge opens (its own, the DRG and expander parents'), parents of a label. */
#define FIL_C1_NCOL (1 + CUZK_POREP_BASE_DEGREE + CUZK_POREP_EXP_DEGREE)
#define FIL_C1_NPAR CUZK_POREP_TOTAL_PARENTS
/* Tree D: binary SHA-256 over the unsealed data. */
extern const cuzk_tree_shape fil_c1_tree_d;

/* Partition k's challenges (c->challenges nodes) as the registered proof's variant derives
 * them: interactive from (replica_id, seed), NI-PoRep from (replica_id, comm_r), SyntheticPoRep
 * selected by seed from the synthetic set of (replica_id, comm_r). 0, or -1. */
int fil_porep_partition_challenges(uint64_t *out, const cuzk_fil_seal_proof *rp, const cuzk_porep_config *c,
                                   const uint8_t replica_id[32], const uint8_t comm_r[32], const uint8_t seed[32],
                                   unsigned k);

/* A little-endian u64. */
static inline uint64_t fil_rd_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#endif
