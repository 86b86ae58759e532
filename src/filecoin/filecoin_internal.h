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

/* A little-endian u64. */
static inline uint64_t fil_rd_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#endif
