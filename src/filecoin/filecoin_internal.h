/* Helpers shared by the src/filecoin files. */
#ifndef CUZK_FILECOIN_INTERNAL_H
#define CUZK_FILECOIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 over n concatenated parts (zeros on an OpenSSL failure, which needs no handling:
 * the inputs are fixed-size and in memory). */
void fil_sha256_parts(uint8_t out[32], const void *const *parts, const size_t *lens, int n);


static inline uint64_t fil_rd_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#endif
