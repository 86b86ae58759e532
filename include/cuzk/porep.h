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

#include "cuzk/cs.h"
#include "cuzk/fr.h"
#include "cuzk/gadgets.h"
#include "cuzk/merkle.h"

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

#ifdef __cplusplus
}
#endif
#endif
