/* Base64 (include/cuzk/util/base64.h). */
#include "cuzk/util/base64.h"

#include <stdlib.h>
#include <string.h>

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t cuzk_base64_len(size_t n) { return (n + 2) / 3 * 4; }

void cuzk_base64_encode(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i += 3, out += 4) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n) v |= in[i + 2];
        out[0] = B64[v >> 18];
        out[1] = B64[(v >> 12) & 63];
        out[2] = i + 1 < n ? B64[(v >> 6) & 63] : '=';
        out[3] = i + 2 < n ? B64[v & 63] : '=';
    }
    *out = '\0';
}

static int b64val(int ch)
{
    const char *q = ch ? strchr(B64, ch) : NULL;
    return q ? (int)(q - B64) : -1;
}

uint8_t *cuzk_base64_decode(const char *s, size_t n, size_t *out_len)
{
    if (n % 4) return NULL;
    uint8_t *out = malloc(n / 4 * 3 + 1);
    size_t k = 0;
    for (size_t i = 0; out && i < n; i += 4) {
        int v[4], pad = 0;
        for (int j = 0; j < 4; j++) {
            if (s[i + j] == '=' && i + 4 == n && j >= 2) {
                v[j] = 0;
                pad++;
            } else if (pad || (v[j] = b64val((unsigned char)s[i + j])) < 0) {
                free(out);
                return NULL;
            }
        }
        uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[k++] = (uint8_t)(x >> 16);
        if (pad < 2) out[k++] = (uint8_t)(x >> 8);
        if (pad < 1) out[k++] = (uint8_t)x;
    }
    *out_len = k;
    return out;
}
