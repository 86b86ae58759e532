/* One Merkle inclusion proof as Filecoin's vanilla proofs carry it (PoRep C1
 * output, PoSt and SnapDeals vanilla proofs), flattened. */
#ifndef CUZK_FIL_MPROOF_H
#define CUZK_FIL_MPROOF_H

#include <stdint.h>

#include "cuzk/ff/fr.h"

/* leaf, root, the leaf index (the concatenated per-level positions), and the
 * siblings level by level: arity - 1 per level, in the order of
 * PathElement.hashes, which is cuzk_merkle_tree_path's and
 * cuzk_merkle_path_root's order. The path is a view into the owner's store. */
typedef struct cuzk_fil_mproof {
    cuzk_fr leaf, root;
    uint64_t index;
    cuzk_fr *path;
} cuzk_fil_mproof;

#endif
