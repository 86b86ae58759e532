/* The ChaCha block function and rand_chacha's ChaCha8Rng stream (OpenSSL has no ChaCha8). */
#include <string.h>

#include "cuzk/filecoin/filecoin.h"

#define ROTL(v, n) ((uint32_t)((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d)                                                                             \
    a += b, d ^= a, d = ROTL(d, 16), c += d, b ^= c, b = ROTL(b, 12), a += b, d ^= a,             \
        d = ROTL(d, 8), c += d, b ^= c, b = ROTL(b, 7)

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void cuzk_fil_chacha_block(uint32_t out[16], const uint8_t key[32], uint64_t counter,
                           uint64_t stream, unsigned rounds) {
    uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++) s[4 + i] = rd32(key + 4 * i);
    s[12] = (uint32_t)counter, s[13] = (uint32_t)(counter >> 32);
    s[14] = (uint32_t)stream, s[15] = (uint32_t)(stream >> 32);
    uint32_t x[16];
    memcpy(x, s, sizeof x);
    for (unsigned r = 0; r < rounds; r += 2) {
        QR(x[0], x[4], x[8], x[12]), QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]), QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]), QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]), QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + s[i];
}

/* rand_chacha buffers four consecutive blocks (64 words) per refill. */
static void refill(cuzk_fil_chacha8_rng *r) {
    for (int b = 0; b < 4; b++) cuzk_fil_chacha_block(r->buf + 16 * b, r->key, r->counter++, 0, 8);
}

void cuzk_fil_chacha8_rng_init(cuzk_fil_chacha8_rng *r, const uint8_t seed[32]) {
    memcpy(r->key, seed, 32);
    r->counter = 0;
    r->index = 64; /* empty: the first draw generates */
}

uint32_t cuzk_fil_chacha8_next_u32(cuzk_fil_chacha8_rng *r) {
    if (r->index >= 64) refill(r), r->index = 0;
    return r->buf[r->index++];
}

/* rand_core BlockRng::next_u64: two words, low first; at index 63 the high word comes from the
 * next buffer. */
uint64_t cuzk_fil_chacha8_next_u64(cuzk_fil_chacha8_rng *r) {
    if (r->index < 63) {
        uint64_t v = (uint64_t)r->buf[r->index + 1] << 32 | r->buf[r->index];
        r->index += 2;
        return v;
    }
    if (r->index >= 64) {
        refill(r);
        r->index = 2;
        return (uint64_t)r->buf[1] << 32 | r->buf[0];
    }
    uint64_t lo = r->buf[63];
    refill(r);
    r->index = 1;
    return (uint64_t)r->buf[0] << 32 | lo;
}
