/* BLAKE2b after RFC 7693 (constants and the G function from the RFC). */
#include "cuzk/util/blake2b.h"

#include <string.h>

static const uint64_t iv[8] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
                               0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
                               0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

static const uint8_t sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

#define ROTR64(x, n) ((x) >> (n) | (x) << (64 - (n)))
#define G(a, b, c, d, x, y)                                                                                  \
    do {                                                                                                     \
        a += b + (x), d = ROTR64(d ^ a, 32), c += d, b = ROTR64(b ^ c, 24);                                  \
        a += b + (y), d = ROTR64(d ^ a, 16), c += d, b = ROTR64(b ^ c, 63);                                  \
    } while (0)

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* F: one 128-byte block, t the byte count including it, last the final-block flag. */
static void compress(uint64_t h[8], const uint8_t block[CUZK_BLAKE2B_BLOCK], uint64_t t0, uint64_t t1, int last)
{
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++) m[i] = load64(block + 8 * i);
    memcpy(v, h, 64);
    memcpy(v + 8, iv, 64);
    v[12] ^= t0, v[13] ^= t1;
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = sigma[r];
        G(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
        G(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
        G(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
        G(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
        G(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
        G(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
        G(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
        G(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

static void add_count(cuzk_blake2b_state *s, size_t n)
{
    s->t[0] += n;
    if (s->t[0] < n) s->t[1]++;
}

int cuzk_blake2b_init(cuzk_blake2b_state *s, size_t outlen, const void *key, size_t keylen)
{
    if (outlen == 0 || outlen > CUZK_BLAKE2B_OUT_MAX || keylen > CUZK_BLAKE2B_KEY_MAX || (keylen && !key)) return -1;
    memset(s, 0, sizeof *s);
    memcpy(s->h, iv, sizeof iv);
    /* parameter block: digest length, key length, fanout 1, depth 1 */
    s->h[0] ^= 0x01010000ull ^ ((uint64_t)keylen << 8) ^ outlen;
    s->outlen = outlen;
    if (keylen) { /* the key is the first block, zero-padded */
        memcpy(s->buf, key, keylen);
        s->buflen = CUZK_BLAKE2B_BLOCK;
    }
    return 0;
}

void cuzk_blake2b_update(cuzk_blake2b_state *s, const void *in, size_t len)
{
    const uint8_t *p = in;
    while (len) {
        if (s->buflen == CUZK_BLAKE2B_BLOCK) { /* more input follows: this block is not the last */
            add_count(s, CUZK_BLAKE2B_BLOCK);
            compress(s->h, s->buf, s->t[0], s->t[1], 0);
            s->buflen = 0;
        }
        if (s->buflen == 0) { /* whole blocks straight from the input, keeping the last back */
            while (len > CUZK_BLAKE2B_BLOCK) {
                add_count(s, CUZK_BLAKE2B_BLOCK);
                compress(s->h, p, s->t[0], s->t[1], 0);
                p += CUZK_BLAKE2B_BLOCK, len -= CUZK_BLAKE2B_BLOCK;
            }
        }
        size_t n = CUZK_BLAKE2B_BLOCK - s->buflen;
        if (n > len) n = len;
        memcpy(s->buf + s->buflen, p, n);
        s->buflen += n, p += n, len -= n;
    }
}

void cuzk_blake2b_final(cuzk_blake2b_state *s, uint8_t *out)
{
    add_count(s, s->buflen);
    memset(s->buf + s->buflen, 0, CUZK_BLAKE2B_BLOCK - s->buflen);
    compress(s->h, s->buf, s->t[0], s->t[1], 1);
    for (size_t i = 0; i < s->outlen; i++) out[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
    volatile uint8_t *v = (volatile uint8_t *)s;
    for (size_t i = 0; i < sizeof *s; i++) v[i] = 0;
}

int cuzk_blake2b(uint8_t *out, size_t outlen, const void *in, size_t len, const void *key, size_t keylen)
{
    cuzk_blake2b_state s;
    if (cuzk_blake2b_init(&s, outlen, key, keylen) || (len && !in)) return -1;
    if (!keylen && len <= CUZK_BLAKE2B_BLOCK) { /* one block: no buffering (the Feistel hot path) */
        uint8_t blk[CUZK_BLAKE2B_BLOCK] = {0};
        if (len) memcpy(blk, in, len);
        compress(s.h, blk, len, 0, 1);
        for (size_t i = 0; i < outlen; i++) out[i] = (uint8_t)(s.h[i / 8] >> (8 * (i % 8)));
        return 0;
    }
    cuzk_blake2b_update(&s, in, len);
    cuzk_blake2b_final(&s, out);
    return 0;
}
