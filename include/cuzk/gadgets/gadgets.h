/*
 * Circuit gadgets, constraint-exact with bellpepper (bellpepper-core
 * boolean.rs / num.rs, bellpepper uint32.rs / multieq.rs / multipack.rs /
 * sha256.rs): the same allocations, constraints and linear-combination terms
 * in the same order, so that circuits built from them match Filecoin's
 * parameters.
 *
 * Values: every gadget computes its witness values. On a constraint system that does
 * not need values (RecordingCS) callers may feed arbitrary values (e.g.
 * zeros); the values are then meaningless but the constraints are the same.
 * Gadgets push bellpepper's namespace names (used by TestCS only).
 * Errors are sticky in the cs (cuzk_cs_error).
 */
#ifndef CUZK_GADGETS_H
#define CUZK_GADGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Boolean ------------------------------------------------------------ */

/* An allocated variable constrained to 0/1. */
typedef struct cuzk_abit {
    cuzk_var var;
    bool value;
} cuzk_abit;

typedef enum cuzk_bool_kind { CUZK_BOOL_CONST = 0, CUZK_BOOL_IS = 1, CUZK_BOOL_NOT = 2 } cuzk_bool_kind;

/* Boolean: constant, an allocated bit, or the negation of one. */
typedef struct cuzk_bool {
    uint8_t kind;  /* cuzk_bool_kind */
    bool bit;      /* constant value, or the underlying bit's value */
    cuzk_var var;  /* IS / NOT only */
} cuzk_bool;

/* AllocatedBit::alloc: one "boolean constraint" (1 - a) * a = 0. */
cuzk_abit cuzk_abit_alloc(cuzk_cs *cs, bool value);
/* AllocatedBit::alloc_conditionally: (1 - must_be_false - a) * a = 0. */
cuzk_abit cuzk_abit_alloc_conditionally(cuzk_cs *cs, bool value, const cuzk_abit *must_be_false);
cuzk_abit cuzk_abit_xor(cuzk_cs *cs, const cuzk_abit *a, const cuzk_abit *b);
cuzk_abit cuzk_abit_and(cuzk_cs *cs, const cuzk_abit *a, const cuzk_abit *b);
cuzk_abit cuzk_abit_and_not(cuzk_cs *cs, const cuzk_abit *a, const cuzk_abit *b);
cuzk_abit cuzk_abit_nor(cuzk_cs *cs, const cuzk_abit *a, const cuzk_abit *b);

static inline cuzk_bool cuzk_bool_const(bool v) { return (cuzk_bool){CUZK_BOOL_CONST, v, 0}; }
static inline cuzk_bool cuzk_bool_from_abit(cuzk_abit b) { return (cuzk_bool){CUZK_BOOL_IS, b.value, b.var}; }
static inline bool cuzk_bool_value(const cuzk_bool *b) { return b->kind == CUZK_BOOL_NOT ? !b->bit : b->bit; }
static inline bool cuzk_bool_is_const(const cuzk_bool *b) { return b->kind == CUZK_BOOL_CONST; }
cuzk_bool cuzk_bool_not(const cuzk_bool *b);
/* Allocates a bit (Boolean::Is(AllocatedBit::alloc)). */
cuzk_bool cuzk_bool_alloc(cuzk_cs *cs, bool value);
/* lc += coeff * b as bellpepper's Boolean::lc (constant true -> coeff*ONE,
 * Not -> coeff*ONE - coeff*var). */
void cuzk_bool_lc_add(cuzk_lc *lc, const cuzk_bool *b, const cuzk_fr *coeff);
void cuzk_bool_lc_sub(cuzk_lc *lc, const cuzk_bool *b, const cuzk_fr *coeff);
cuzk_bool cuzk_bool_xor(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b);
cuzk_bool cuzk_bool_and(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b);
cuzk_bool cuzk_bool_or(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b);
/* Boolean::enforce_equal; two unequal constants give CUZK_ERR_UNSATISFIED. */
int cuzk_bool_enforce_equal(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b);
/* (a and b) xor ((not a) and c) / (a and b) xor (a and c) xor (b and c). */
cuzk_bool cuzk_bool_sha256_ch(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b, const cuzk_bool *c);
cuzk_bool cuzk_bool_sha256_maj(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b, const cuzk_bool *c);
/* u64_into_boolean_vec_le: 64 allocated bits, namespaces "bit i". */
void cuzk_bool_u64_into_le(cuzk_cs *cs, uint64_t value, cuzk_bool out[64]);

/* ---- AllocatedNum / Num ------------------------------------------------- */

typedef struct cuzk_num {
    cuzk_var var;
    cuzk_fr value;
} cuzk_num;

#define CUZK_FR_NUM_BITS 255
#define CUZK_FR_CAPACITY 254

cuzk_num cuzk_num_alloc(cuzk_cs *cs, const cuzk_fr *value);
cuzk_num cuzk_num_alloc_input(cuzk_cs *cs, const cuzk_fr *value);
/* New input equal to n: input * ONE = n. */
void cuzk_num_inputize(cuzk_cs *cs, const cuzk_num *n);
/* The same inside one namespace level ns, as the Filecoin circuits name them. */
cuzk_num cuzk_num_alloc_ns(cuzk_cs *cs, const char *ns, const cuzk_fr *value);
void cuzk_num_inputize_ns(cuzk_cs *cs, const char *ns, const cuzk_num *n);
/* constraint::equal (storage-proofs): a·ONE = b, one constraint named name. */
void cuzk_num_enforce_equal(cuzk_cs *cs, const char *name, const cuzk_num *a, const cuzk_num *b);
cuzk_num cuzk_num_add(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b);
cuzk_num cuzk_num_mul(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b);
cuzk_num cuzk_num_square(cuzk_cs *cs, const cuzk_num *a);
/* (b, a) if cond else (a, b): two allocations and constraints. */
void cuzk_num_conditionally_reverse(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b,
                                    const cuzk_bool *cond, cuzk_num *c, cuzk_num *d);
/* 255 little-endian bits (field_into_allocated_bits_le) + unpacking constraint. */
void cuzk_num_to_bits_le(cuzk_cs *cs, const cuzk_num *n, cuzk_bool out[CUZK_FR_NUM_BITS]);
/* Same, additionally enforcing bits <= r - 1 (to_bits_le_strict). */
void cuzk_num_to_bits_le_strict(cuzk_cs *cs, const cuzk_num *n, cuzk_bool out[CUZK_FR_NUM_BITS]);
/*
 * Selection  c = cond ? a : b  with one allocation and one constraint
 * (a - b) * cond = c - b. Not in bellpepper-core: this is the
 * AllocatedNum::conditionally_select of the sapling-crypto / franklin-crypto
 * lineage (same allocation, names and terms).
 */
cuzk_num cuzk_num_conditionally_select(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b,
                                       const cuzk_bool *cond);

/* Num: a linear combination with its value (no allocation). */
typedef struct cuzk_numlc {
    cuzk_lc lc;
    cuzk_fr value;
} cuzk_numlc;
void cuzk_numlc_init(cuzk_numlc *n); /* zero */
void cuzk_numlc_free(cuzk_numlc *n);
void cuzk_numlc_from_num(cuzk_numlc *n, const cuzk_num *a);
void cuzk_numlc_add_bool_with_coeff(cuzk_numlc *n, const cuzk_bool *bit, const cuzk_fr *coeff);
void cuzk_numlc_add(cuzk_numlc *n, const cuzk_numlc *o);
void cuzk_numlc_scale(cuzk_numlc *n, const cuzk_fr *s);

/* ---- UInt32 ------------------------------------------------------------- */

typedef struct cuzk_u32 {
    cuzk_bool bits[32]; /* least significant first */
    uint32_t value;
} cuzk_u32;

cuzk_u32 cuzk_u32_constant(uint32_t v);
cuzk_u32 cuzk_u32_alloc(cuzk_cs *cs, uint32_t v); /* "allocated bit i" */
cuzk_u32 cuzk_u32_from_bits_be(const cuzk_bool bits[32]);
void cuzk_u32_into_bits_be(const cuzk_u32 *a, cuzk_bool out[32]);
cuzk_u32 cuzk_u32_from_bits(const cuzk_bool bits[32]); /* little-endian */
cuzk_u32 cuzk_u32_rotr(const cuzk_u32 *a, unsigned by);
cuzk_u32 cuzk_u32_shr(const cuzk_u32 *a, unsigned by);
cuzk_u32 cuzk_u32_xor(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b);
cuzk_u32 cuzk_u32_sha256_ch(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c);
cuzk_u32 cuzk_u32_sha256_maj(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c);

/*
 * MultiEq: batches equalities lhs = rhs of known bit widths into single
 * constraints lhs * ONE = rhs while they fit in CAPACITY (254) bits.
 * cuzk_multieq_finish flushes (bellpepper does it on drop).
 */
typedef struct cuzk_multieq {
    cuzk_cs *cs;
    size_t ops, bits_used;
    cuzk_lc lhs, rhs;
} cuzk_multieq;
void cuzk_multieq_init(cuzk_multieq *m, cuzk_cs *cs);
void cuzk_multieq_enforce_equal(cuzk_multieq *m, size_t num_bits, const cuzk_lc *lhs, const cuzk_lc *rhs);
void cuzk_multieq_finish(cuzk_multieq *m); /* flushes and frees */

/* UInt32::addmany over 2..10 operands, modulo 2^32, through a MultiEq. */
cuzk_u32 cuzk_u32_addmany(cuzk_multieq *m, const cuzk_u32 *ops, size_t n);

/* ---- multipack ---------------------------------------------------------- */

/* Bits of bytes, most significant bit of each byte first (bytes_to_bits). */
void cuzk_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n);
void cuzk_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n);
/* Packs 254-bit chunks into field elements; returns the count (ceil(n/254)). */
size_t cuzk_compute_multipacking(cuzk_fr *out, const bool *bits, size_t n);
/* One input per 254-bit chunk, "packing constraint i": num * ONE = input. */
void cuzk_pack_into_inputs(cuzk_cs *cs, const cuzk_bool *bits, size_t n);
/* pack_bits: the first min(n, 254) bits as one allocated number ("input"),
 * "packing constraint" num * ONE = input. */
cuzk_num cuzk_pack_bits(cuzk_cs *cs, const cuzk_bool *bits, size_t n);
/* pack_bits of the first 254 bits of a 256-bit digest renumbered with the
 * bits of each byte reversed (Filecoin's digest-to-Fr, top two bits dropped). */
cuzk_num cuzk_pack_digest_le(cuzk_cs *cs, const cuzk_bool digest[256]);
/* reverse_bit_numbering of a 255-bit LE decomposition: padded with a constant
 * zero to 256 bits, then each byte's bits reversed (bytes MSB first). */
void cuzk_reverse_bit_numbering(cuzk_bool out[256], const cuzk_bool in[CUZK_FR_NUM_BITS]);

/* ---- SHA-256 ------------------------------------------------------------ */

/* Compression of one 512-bit block (big-endian bit order within words). */
void cuzk_sha256_compression(cuzk_cs *cs, const cuzk_bool in[512], const cuzk_u32 cur[8],
                             cuzk_u32 out[8]);
/* sha256_block_no_padding: one block from the IV, 256 output bits (BE). */
void cuzk_sha256_block_no_padding(cuzk_cs *cs, const cuzk_bool in[512], cuzk_bool out[256]);
/* Full SHA-256 of nbits (multiple of 8) input bits with padding; "block i". */
void cuzk_sha256(cuzk_cs *cs, const cuzk_bool *in, size_t nbits, cuzk_bool out[256]);

#ifdef __cplusplus
}
#endif
#endif
