/* Helpers shared by the test-input generators (src/filecoin_gen): deterministic values of a
 * seed, and the Merkle trees of sectors that are never written out whole. */
#ifndef CUZK_GEN_INTERNAL_H
#define CUZK_GEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_mproof.h"
#include "cuzk/gadgets/merkle.h"

/* ---- synthetic sectors (sparse.c) ---- */

/* SHA-256 of tag || a || b || c (little-endian u64s): deterministic bytes from a seed. */
void fil_tagged_hash(uint8_t out[32], const char *tag, uint64_t a, uint64_t b, uint64_t c);
/* A deterministic canonical element (top two bits cleared, as fr32). */
void fil_det_fr(cuzk_fr *out, const char *tag, uint64_t a, uint64_t b, uint64_t c);
/* qsort comparison of u64s; the index of x in sorted v (n entries), or -1. */
int fil_u64cmp(const void *a, const void *b);
ptrdiff_t fil_u64_find(const uint64_t *v, size_t n, uint64_t x);

/* A sparse tree over some opened leaves: per level the touched groups' children (the opened
 * nodes' values, the others filled), so every opened path reaches one root. */
typedef struct fil_sparse {
    const cuzk_tree_shape *shape;
    uint64_t nodes;
    size_t levels;
    uint64_t *gid[64]; /* sorted group ids per level */
    cuzk_fr *ch[64];   /* arity children per group */
    size_t ng[64];
    cuzk_fr root;
} fil_sparse;
/* The value of an unopened node (level, index): any deterministic filler. */
typedef void (*fil_sparse_fill)(void *ctx, size_t level, uint64_t index, cuzk_fr *out);
/* idx: sorted unique leaf indexes, val their leaves (n of them). */
int fil_sparse_build(fil_sparse *t, const cuzk_tree_shape *shape, uint64_t nodes, const uint64_t *idx,
                     const cuzk_fr *val, size_t n, fil_sparse_fill fill, void *fctx);
/* The siblings of an opened leaf's path, leaf to root (CUZK_ERR_INVALID_ARG: not opened). */
int fil_sparse_path(const fil_sparse *t, uint64_t leaf, cuzk_fr *sib);
void fil_sparse_free(fil_sparse *t);

/* A whole tree whose leaves are constant over aligned runs of 2^run_bits leaves (leaf i is
 * run_leaf[i >> run_bits]): a node whose span lies inside one run has a value that depends on
 * its run and level only, so the tree costs O(runs x levels) hashes however many leaves it has
 * (a 32 GiB sector's trees in a second), and any node can be read back. Its fil_runtree_fill
 * is a fil_sparse_fill (ctx: the run tree) whose sparse trees open real paths of it. */
typedef struct fil_runtree {
    const cuzk_tree_shape *shape;
    uint64_t nodes;
    size_t levels;
    unsigned run_bits;
    unsigned span_bits[65]; /* log2 of the leaves under a node of level l */
    cuzk_fr *v[65];         /* level l: one value per run while span <= run, then one per node */
    cuzk_fr root;
} fil_runtree;
/* nodes a power of two, 2^run_bits <= nodes, run_leaf[nodes >> run_bits]. */
int fil_runtree_build(fil_runtree *t, const cuzk_tree_shape *shape, uint64_t nodes, unsigned run_bits,
                      const cuzk_fr *run_leaf);
/* The node at (level, index), level 0 the leaves, level t->levels the root. */
void fil_runtree_node(const fil_runtree *t, size_t level, uint64_t index, cuzk_fr *out);
void fil_runtree_fill(void *ctx, size_t level, uint64_t index, cuzk_fr *out);
void fil_runtree_free(fil_runtree *t);

/* Fills p (leaf, root, index, the path in p's storage) from a built tree. */
int mproof_from_tree(cuzk_fil_mproof *p, const cuzk_merkle_tree *t, const cuzk_fr *leaves, uint64_t index);

#endif
