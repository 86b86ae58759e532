/*
 * BLAKE2b (RFC 7693): 1..64-byte digests, optional key up to 64 bytes,
 * streaming. One implementation for every user: Filecoin's Feistel round
 * function (Blake2b-512 of 16 bytes, millions of calls: the one-shot path
 * for short messages does no buffering), the synthetic-PoRep keyed hashes,
 * and the digests of parameter files (first 128 bits of Blake2b-512, as
 * filecoin-proofs' paramfetch checks them), streamed over multi-GB files.
 */
#ifndef CUZK_BLAKE2B_H
#define CUZK_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_BLAKE2B_BLOCK 128
#define CUZK_BLAKE2B_OUT_MAX 64
#define CUZK_BLAKE2B_KEY_MAX 64

typedef struct cuzk_blake2b {
    uint64_t h[8];
    uint64_t t[2]; /* bytes compressed so far (128-bit counter) */
    uint8_t buf[CUZK_BLAKE2B_BLOCK];
    size_t buflen; /* bytes in buf, 0..128: the last block is held back for the final flag */
    size_t outlen;
} cuzk_blake2b_state;

/* outlen 1..64, keylen 0..64 (key may be NULL when keylen is 0). -1 on a bad length, else 0. */
int cuzk_blake2b_init(cuzk_blake2b_state *s, size_t outlen, const void *key, size_t keylen);
void cuzk_blake2b_update(cuzk_blake2b_state *s, const void *in, size_t len);
/* Writes s->outlen bytes and wipes the state. */
void cuzk_blake2b_final(cuzk_blake2b_state *s, uint8_t *out);

/* One shot. -1 on a bad length, else 0. */
int cuzk_blake2b(uint8_t *out, size_t outlen, const void *in, size_t len, const void *key, size_t keylen);

#ifdef __cplusplus
}
#endif
#endif
