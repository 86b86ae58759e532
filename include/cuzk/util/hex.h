/* Hex strings of byte arrays: lowercase out, strict in. */
#ifndef CUZK_HEX_H
#define CUZK_HEX_H

#include <stddef.h>
#include <stdint.h>

/* out (2n + 1 chars) = the n bytes of in as lowercase hex, NUL-terminated. */
void cuzk_hex_encode(char *out, const uint8_t *in, size_t n);
/* out = the n bytes that s spells: exactly 2n hex digits (either case), nothing else
 * (no prefix, sign or spaces). 0, or -1 leaving out unspecified. */
int cuzk_hex_decode(uint8_t *out, size_t n, const char *s);

#endif
