/*
 * Fr: the 255-bit scalar field of BLS12-381 (the group order),
 *   r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
 *
 * Montgomery form (a·2^256 mod r) in four little-endian 64-bit limbs, always
 * fully reduced. No function allocates. Outputs may alias inputs unless
 * stated otherwise.
 *
 * r - 1 = 2^32 · t with t odd: NTT domains up to 2^32 exist. The primitive
 * 2^32-th root of unity depends on the multiplicative generator chosen, and
 * parameter files are tied to their domain: Filecoin's stack (bls12_381 /
 * blstrs) uses generator 7, snarkjs (ffjavascript) uses 5.
 */
#ifndef CUZK_FR_H
#define CUZK_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/util/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_FR_LIMBS 4
#define CUZK_FR_BYTES 32
#define CUZK_FR_TWO_ADICITY 32

typedef struct cuzk_fr { uint64_t l[CUZK_FR_LIMBS]; } cuzk_fr;

extern const cuzk_fr cuzk_fr_zero;
extern const cuzk_fr cuzk_fr_one;
extern const uint64_t cuzk_fr_modulus[CUZK_FR_LIMBS];

void cuzk_fr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_dbl(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sqr(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a); /* inv(0) = 0 */
void cuzk_fr_batch_inv(cuzk_fr *out, const cuzk_fr *in, size_t n); /* out must not alias in */
void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t *e, size_t e_limbs);
bool cuzk_fr_sqrt(cuzk_fr *r, const cuzk_fr *a);
int cuzk_fr_legendre(const cuzk_fr *a);

bool cuzk_fr_is_zero(const cuzk_fr *a);
bool cuzk_fr_is_one(const cuzk_fr *a);
bool cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b);

void cuzk_fr_set_u64(cuzk_fr *r, uint64_t v);
int cuzk_fr_from_limbs(cuzk_fr *r, const uint64_t a[CUZK_FR_LIMBS]);
void cuzk_fr_to_limbs(uint64_t out[CUZK_FR_LIMBS], const cuzk_fr *a);
/* 32-byte encodings: little-endian is Filecoin's Fr repr. >= r is CUZK_ERR_NONCANONICAL. */
int cuzk_fr_from_le32(cuzk_fr *r, const uint8_t in[CUZK_FR_BYTES]);
void cuzk_fr_to_le32(uint8_t out[CUZK_FR_BYTES], const cuzk_fr *a);
int cuzk_fr_from_be32(cuzk_fr *r, const uint8_t in[CUZK_FR_BYTES]);
void cuzk_fr_to_be32(uint8_t out[CUZK_FR_BYTES], const cuzk_fr *a);
void cuzk_fr_random(cuzk_fr *r, cuzk_rng *rng);

/* Multiplicative generators whose 2-adic roots define NTT domains. */
typedef enum cuzk_fr_generator {
    CUZK_FR_GEN_FILECOIN = 7, /* bls12_381 / blstrs / bellperson */
    CUZK_FR_GEN_SNARKJS = 5   /* ffjavascript / snarkjs */
} cuzk_fr_generator;

/* The generator itself as a field element. */
void cuzk_fr_generator_get(cuzk_fr *out, cuzk_fr_generator g);
/*
 * Primitive 2^log_n-th root of unity g^((r-1)/2^log_n) for log_n <= 32;
 * returns CUZK_ERR_INVALID_ARG otherwise. For CUZK_FR_GEN_FILECOIN and
 * log_n = 32 this is bls12_381's ROOT_OF_UNITY.
 */
int cuzk_fr_root_of_unity(cuzk_fr *out, unsigned log_n, cuzk_fr_generator g);

#ifdef __cplusplus
}
#endif
#endif
