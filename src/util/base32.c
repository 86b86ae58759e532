/* Base32 (include/cuzk/util/base32.h). */
#include "cuzk/util/base32.h"

#include <stdlib.h>

/* 5 bits per character; -1 outside the lowercase alphabet */
static int b32val(int ch)
{
    if (ch >= 'a' && ch <= 'z') return ch - 'a';
    if (ch >= '2' && ch <= '7') return ch - '2' + 26;
    return -1;
}

uint8_t *cuzk_base32_decode(const char *s, size_t n, size_t *out_len)
{
    /* 8 characters carry 5 bytes; a tail of 1, 3 or 6 characters spells no whole byte count */
    size_t rem = n % 8;
    if (rem == 1 || rem == 3 || rem == 6) return NULL;
    uint8_t *out = malloc(n * 5 / 8 + 1);
    if (!out) return NULL;
    size_t k = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b32val((unsigned char)s[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = acc << 5 | (uint32_t)v;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            out[k++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (acc != 0) { /* the last character's unused bits */
        free(out);
        return NULL;
    }
    *out_len = k;
    return out;
}
