/*
 * Poseidon over BLS12-381 Fr, bit-compatible with neptune 11 (the hash of
 * Filecoin's Merkle trees and column commitments), and its circuit gadget,
 * constraint-exact with neptune's circuit::poseidon_hash.
 *
 * Parameters, as neptune derives them (nothing is tabulated here):
 *  - width t = arity + 1, S-box x^5, RF = 8 full rounds, RP partial rounds
 *    from neptune's port of calc_round_numbers.py (128-bit security, 256-bit
 *    prime length, +2 RF / +7.5% RP margin): 55 for t = 2, 3, 56 t = 4..7, 57
 *    t = 8..15, 59 t = 16..25, 60 t = 37;
 *  - (RF + RP)·t round constants from the Grain LFSR (field 1, S-box 1,
 *    255-bit field, t, RF, RP), 255-bit big-endian samples, rejection > r;
 *  - Cauchy MDS M[i][j] = 1 / (i + (t + j)) over i, j < t;
 *  - neptune's "optimized static" form: round constants pushed through M^-1
 *    (RF·t + RP of them), the partial-round matrices factored into one dense
 *    pre-sparse matrix and RP sparse ones (first row, first column, identity).
 * Constants are computed on first use for each arity (thread-safe).
 *
 * The state is [domain tag, input 0, ..., input arity-1]; the digest is
 * state element 1 after the permutation. Domain tags: Merkle tree 2^arity-1,
 * constant length L·2^64, custom id·2^40 (1 <= id <= 256).
 */
#ifndef CUZK_POSEIDON_H
#define CUZK_POSEIDON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"
#include "cuzk/gadgets/gadgets.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_POSEIDON_MAX_ARITY 36
#define CUZK_POSEIDON_MD_ARITY 36 /* filecoin-hashers' PoseidonMDArity */

typedef struct cuzk_poseidon_constants {
    unsigned arity, width;        /* width = arity + 1 */
    unsigned full_rounds;         /* RF = 8 */
    unsigned partial_rounds;      /* RP */
    cuzk_fr *round_constants;     /* (RF + RP)·width, in Grain output order */
    cuzk_fr *compressed;          /* RF·width + RP, in consumption order */
    cuzk_fr *mds;                 /* width x width, row-major */
    cuzk_fr *pre_sparse;          /* width x width, row-major */
    cuzk_fr *w_hat;               /* RP x width: first column of each sparse matrix */
    cuzk_fr *v_rest;              /* RP x (width - 1): rest of its first row */
} cuzk_poseidon_constants;

/* neptune's (RF, RP) for width t = arity + 1 (standard strength). */
void cuzk_poseidon_round_numbers(unsigned arity, unsigned *rf, unsigned *rp);

/* Constants for 1 <= arity <= 36, computed once; NULL on a bad arity or no memory. */
const cuzk_poseidon_constants *cuzk_poseidon_constants_get(unsigned arity);

/*
 * Grain LFSR round constants as neptune's generate_constants(1, 1, 255, t,
 * rf, rp): writes n = (rf + rp)·t constants to out.
 */
void cuzk_poseidon_grain_constants(cuzk_fr *out, unsigned t, unsigned rf, unsigned rp);

/* Domain tags (HashType::domain_tag). */
void cuzk_poseidon_tag_merkle(cuzk_fr *out, unsigned arity);
void cuzk_poseidon_tag_constant_length(cuzk_fr *out, uint64_t length);
/* CUZK_ERR_INVALID_ARG unless 1 <= id <= 256. */
int cuzk_poseidon_tag_custom(cuzk_fr *out, uint64_t id);

/*
 * Hash of n <= arity elements with the given domain tag; positions n..arity-1
 * are zero (neptune's constant-length padding). Returns 0 or
 * CUZK_ERR_INVALID_ARG / CUZK_ERR_NO_MEMORY.
 */
int cuzk_poseidon_hash_tagged(cuzk_fr *out, unsigned arity, const cuzk_fr *tag, const cuzk_fr *in,
                              size_t n);
/* Merkle-tree hash of exactly arity elements (filecoin-hashers' Poseidon). */
int cuzk_poseidon_hash(cuzk_fr *out, unsigned arity, const cuzk_fr *in);
/*
 * Same digest by the textbook definition (raw round constants added before
 * every round, dense M everywhere): an independent check of the optimized
 * constants, slower.
 */
int cuzk_poseidon_hash_reference(cuzk_fr *out, unsigned arity, const cuzk_fr *tag, const cuzk_fr *in,
                                 size_t n);
/*
 * filecoin-hashers' hash_md: n >= 2 elements folded with arity-36 Merkle-tag
 * hashes, acc = H(acc, next 35 elements, zero padding).
 */
int cuzk_poseidon_hash_md(cuzk_fr *out, const cuzk_fr *in, size_t n);

/*
 * Circuit gadget (neptune circuit::poseidon_hash): hashes arity allocated
 * numbers under the given tag; allocations, constraints and terms in
 * neptune's order. Costs RF·t + RP - arity + 3·(RF·t + RP - 1) constraints:
 * 311 / 377 / 505 / 598 / 761 for arity 2 / 4 / 8 / 11 / 16.
 * Namespaces as neptune ("first round", "partial round i", ...).
 */
cuzk_num cuzk_poseidon_hash_circuit(cuzk_cs *cs, unsigned arity, const cuzk_fr *tag,
                                    const cuzk_num *in);
/* filecoin-hashers' hash_md_circuit (arity 36, "padding i" allocations, "hash md k"). */
cuzk_num cuzk_poseidon_hash_md_circuit(cuzk_cs *cs, const cuzk_num *in, size_t n);

#ifdef __cplusplus
}
#endif
#endif
