/*
 * SHA-256 of bytes for every user (OpenSSL's, one call each; cuzk_sha256 in
 * cuzk/gadgets/gadgets.h is the circuit): Filecoin's replica ids,
 * challenges, cache identifiers, labels and SHA-256 trees, the PCE files'
 * checksums and fingerprints, the cluster's payload names. Streams longer
 * than memory (a PCE section verified in cancellable chunks, the parent
 * cache) keep OpenSSL's streaming API where they are.
 */
#ifndef CUZK_SHA256_H
#define CUZK_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out = SHA-256(data[0, len)); data may be NULL when len is 0. CUZK_OK, or
 * CUZK_ERR_NO_MEMORY when OpenSSL fails (out is then all zero). */
int cuzk_sha256_hash(uint8_t out[32], const void *data, size_t len);
/* out = SHA-256 of the n strings parts[i] (lens[i] bytes each) one after
 * the other, as one message; the same results as cuzk_sha256_hash. */
int cuzk_sha256_hash_parts(uint8_t out[32], const void *const *parts, const size_t *lens, size_t n);

#ifdef __cplusplus
}
#endif

#endif
