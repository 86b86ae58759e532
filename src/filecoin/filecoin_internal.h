/* Helpers shared by the src/filecoin files. */
#ifndef CUZK_FILECOIN_INTERNAL_H
#define CUZK_FILECOIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 over n concatenated parts (zeros on an OpenSSL failure, which needs no handling:
 * the inputs are fixed-size and in memory). */
void fil_sha256_parts(uint8_t out[32], const void *const *parts, const size_t *lens, int n);

/* prover_id of a miner (filecoin-ffi toProverID): its ID address payload, the unsigned LEB128
 * varint of the actor id, zero padded to 32 bytes (c1.c). */
void fil_prover_id(uint8_t out[32], uint64_t miner_id);

static inline uint64_t fil_rd_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#endif
