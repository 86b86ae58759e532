/*
 * Filecoin Merkle trees and their inclusion-proof circuit (storage-proofs-core
 * gadgets/por.rs PoRCircuit), constraint-exact with rust-fil-proofs v19.
 *
 * Tree shapes are storage-proofs' MerkleTreeWrapper<H, U, V, W>: a "base"
 * arity U (2, 4 or 8) over the leaves, optionally V > 0 base trees joined by
 * one "sub" level of arity V, optionally W > 0 sub trees joined by one "top"
 * level of arity W. A leaf index (challenge) is the concatenation of the
 * per-level positions, least significant first, so the path bits of a proof
 * equal the challenge's bits.
 *
 * Hashes: Poseidon with the Merkle domain tag of the level's arity
 * (filecoin-hashers PoseidonHasher), or SHA-256 of the 32-byte little-endian
 * node encodings with the two top bits of the digest cleared (Sha256Hasher,
 * the comm_d tree; binary only in Filecoin, any arity here).
 */
#ifndef CUZK_MERKLE_H
#define CUZK_MERKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"
#include "cuzk/gadgets/gadgets.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_tree_hash { CUZK_TREE_POSEIDON = 0, CUZK_TREE_SHA256 = 1 } cuzk_tree_hash;

typedef struct cuzk_tree_shape {
    cuzk_tree_hash hash;
    unsigned base_arity; /* 2, 4, 8 or 16 */
    unsigned sub_arity;  /* 0: no sub level */
    unsigned top_arity;  /* 0: no top level (requires a sub level) */
} cuzk_tree_shape;

/* Base trees in the compound tree: max(sub,1)·max(top,1). */
size_t cuzk_tree_base_count(const cuzk_tree_shape *s);
/*
 * Levels of a proof for a tree of `leaves` leaves (base levels + sub + top),
 * or 0 when the shape does not fill that many leaves exactly.
 */
size_t cuzk_tree_levels(const cuzk_tree_shape *s, uint64_t leaves);
size_t cuzk_tree_base_levels(const cuzk_tree_shape *s, uint64_t leaves);
/* Total sibling values of one proof: sum over levels of (arity - 1). */
size_t cuzk_tree_path_len(const cuzk_tree_shape *s, uint64_t leaves);
/* Arity of level l (0 = next to the leaves). */
unsigned cuzk_tree_level_arity(const cuzk_tree_shape *s, uint64_t leaves, size_t l);

/* Node hash of n = arity children (filecoin-hashers multi_node). */
int cuzk_tree_hash_node(cuzk_fr *out, cuzk_tree_hash h, const cuzk_fr *children, unsigned n);

/* A whole tree in memory, for tests and small sectors. */
typedef struct cuzk_merkle_tree {
    cuzk_tree_shape shape;
    uint64_t leaves;
    size_t base_levels;
    size_t base_nodes;  /* nodes per base tree, all its layers */
    cuzk_fr *base;      /* base_count trees of base_nodes: layer 0 (leaves) first */
    cuzk_fr *sub_roots; /* roots of the sub trees (top_arity of them, or 1) */
    cuzk_fr root;
} cuzk_merkle_tree;

/* Builds the tree over leaves[0..n); 0, CUZK_ERR_INVALID_ARG (shape/size) or CUZK_ERR_NO_MEMORY. */
int cuzk_merkle_tree_build(cuzk_merkle_tree *t, const cuzk_tree_shape *s, const cuzk_fr *leaves, uint64_t n);
void cuzk_merkle_tree_free(cuzk_merkle_tree *t);
/* Siblings of leaf `challenge`, level by level (cuzk_tree_path_len values). */
int cuzk_merkle_tree_path(const cuzk_merkle_tree *t, uint64_t challenge, cuzk_fr *siblings);
/* Recomputes the root from a leaf and its path (the vanilla verification). */
int cuzk_merkle_path_root(cuzk_fr *root, const cuzk_tree_shape *s, uint64_t leaves, uint64_t challenge,
                          const cuzk_fr *leaf, const cuzk_fr *siblings);

/* ---- circuit ------------------------------------------------------------ */

/*
 * pick (storage-proofs insertion.rs): c = cond ? a : b with one allocation
 * "pick result" and the constraint (b - a)·cond = b - c.
 */
cuzk_num cuzk_pick(cuzk_cs *cs, const cuzk_bool *cond, const cuzk_num *a, const cuzk_num *b);
/*
 * select (insertion.rs): from[index], index given by nbits LE bits, picked
 * most significant bit first ("pick i, j"): 2^nbits - 1 picks.
 */
cuzk_num cuzk_select(cuzk_cs *cs, const cuzk_num *from, const cuzk_bool *bits, unsigned nbits);
/*
 * insert: element placed at position bits (LSB first) among n - 1 siblings,
 * out gets n = 2^nbits numbers. Hand-optimised for n = 2, 4 (8 constraints),
 * 8 (22 constraints) as storage-proofs; the general select otherwise. Bits
 * must be allocated (not constant, not negated) for n = 8.
 */
void cuzk_insert(cuzk_cs *cs, const cuzk_num *element, const cuzk_bool *bits, unsigned nbits,
                 const cuzk_num *siblings, cuzk_num *out);
/* Tree node hash in a circuit (hash_multi_leaf_circuit of the hasher). */
cuzk_num cuzk_tree_hash_circuit(cuzk_cs *cs, cuzk_tree_hash h, const cuzk_num *children, unsigned n);

/* One inclusion proof (PoRCircuit). */
typedef struct cuzk_por_io {
    cuzk_tree_shape shape;
    uint64_t leaves;         /* leaves of the whole tree */
    uint64_t challenge;      /* leaf index */
    const cuzk_fr *siblings; /* cuzk_tree_path_len values, level by level (NULL: zeros) */
    const cuzk_num *leaf;    /* already allocated, or NULL: leaf_value is allocated ("value") */
    cuzk_fr leaf_value;
    const cuzk_num *root;    /* already allocated, or NULL: root_value is allocated ("root_value") */
    cuzk_fr root_value;
    bool private_root;       /* false: the root also becomes a public input ("root") */
} cuzk_por_io;

/*
 * PoRCircuit::synthesize: per level ("base"/"sub"/"top", "merkle tree hash
 * i") log2(arity) index bits, arity - 1 sibling numbers, insert, hash; then
 * the path bits packed into one public input ("path"), the root equality
 * "enforce root is correct", and the root input unless private. Returns
 * CUZK_ERR_INVALID_ARG for a bad shape / size (also set in cs).
 */
int cuzk_por_circuit(cuzk_cs *cs, const cuzk_por_io *io);

/*
 * por_no_challenge_input (storage-proofs-core por.rs): the path of leaf in a
 * tree of `leaves` leaves with the given, already allocated, index bits (LE)
 * and siblings (cuzk_tree_path_len numbers, level by level); per level
 * "merkle proof insert (height=h)" and "merkle proof hash (height=h)", then
 * "calculated root == provided root". No inputs; leaves = 1 is the root check alone. CUZK_ERR_INVALID_ARG for a
 * bad shape / size.
 */
int cuzk_por_no_challenge_input(cuzk_cs *cs, const cuzk_tree_shape *shape, uint64_t leaves,
                                const cuzk_bool *bits, const cuzk_num *leaf, const cuzk_num *siblings,
                                const cuzk_num *root);

#ifdef __cplusplus
}
#endif
#endif
