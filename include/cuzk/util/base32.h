/* Base32 (RFC 4648 alphabet, lowercase, no padding): multibase 'b', the form
 * in which lotus and curio print CIDs ("baga6ea4seaq...", "bagboea4b5abc...").
 * Strict in: lowercase letters and 2-7 only, no padding, and the unused bits
 * of the last character zero, so a string spells at most one byte string. */
#ifndef CUZK_BASE32_H
#define CUZK_BASE32_H
#include <stddef.h>
#include <stdint.h>
/* The bytes that the n characters of s spell (malloc'd, *out_len of them),
 * or NULL for a string that is not strict unpadded lowercase base32 (or no
 * memory). */
uint8_t *cuzk_base32_decode(const char *s, size_t n, size_t *out_len);
#endif
