/* Standard padded base64 (RFC 4648, Go's base64.StdEncoding, how Go's
 * encoding/json writes a []byte): curio's C1 wrapper and its vanilla-proof
 * files. Strict in: no whitespace, no missing or misplaced padding. */
#ifndef CUZK_BASE64_H
#define CUZK_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* The length of the encoding of n bytes (without a NUL). */
size_t cuzk_base64_len(size_t n);
/* out (cuzk_base64_len(n) + 1 chars) = in encoded, NUL-terminated. */
void cuzk_base64_encode(char *out, const uint8_t *in, size_t n);
/* The bytes that the n characters of s spell (malloc'd, *out_len of them),
 * or NULL for a string that is not strict padded base64 (or no memory). */
uint8_t *cuzk_base64_decode(const char *s, size_t n, size_t *out_len);

#endif
