/* ChaCha20 (RFC 8439 block function) as a keystream generator. */
#include "cuzk/util/rng.h"
#include "cuzk/util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static inline uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

#define QR(a, b, c, d)                                                                             \
    do {                                                                                           \
        a += b; d ^= a; d = rotl32(d, 16);                                                         \
        c += d; b ^= c; b = rotl32(b, 12);                                                         \
        a += b; d ^= a; d = rotl32(d, 8);                                                          \
        c += d; b ^= c; b = rotl32(b, 7);                                                          \
    } while (0)

static void chacha20_refill(cuzk_rng *rng)
{
    uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    memcpy(in + 4, rng->key, 32);
    in[12] = (uint32_t)rng->counter;
    in[13] = (uint32_t)(rng->counter >> 32);
    in[14] = in[15] = 0;
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (int i = 0; i < 10; i++) {
        QR(x[0], x[4], x[8], x[12]); QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]); QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]); QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]); QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) rng->block[i] = x[i] + in[i];
    rng->counter++;
    rng->used = 0;
}

static void rng_init_key(cuzk_rng *rng, const uint8_t key[32])
{
    memcpy(rng->key, key, 32);
    rng->counter = 0;
    rng->used = 64;
}

void cuzk_rng_seed(cuzk_rng *rng, uint64_t seed)
{
    uint8_t key[32] = {0};
    for (int i = 0; i < 8; i++) key[i] = (uint8_t)(seed >> (8 * i));
    key[31] = 0xc5; /* domain tag: seeded (test) stream */
    rng_init_key(rng, key);
}

int cuzk_rng_seed_os(cuzk_rng *rng)
{
    uint8_t key[32];
    size_t got = 0;
    while (got < sizeof key) {
        ssize_t n = getrandom(key + got, sizeof key - got, 0);
        if (n <= 0) return CUZK_ERR_IO;
        got += (size_t)n;
    }
    rng_init_key(rng, key);
    memset(key, 0, sizeof key);
    return CUZK_OK;
}

void cuzk_rng_bytes(cuzk_rng *rng, void *out, size_t len)
{
    uint8_t *o = out;
    while (len) {
        if (rng->used == 64) chacha20_refill(rng);
        size_t take = 64 - rng->used;
        if (take > len) take = len;
        memcpy(o, (const uint8_t *)rng->block + rng->used, take);
        rng->used += (unsigned)take;
        o += take;
        len -= take;
    }
}

uint64_t cuzk_rng_u64(cuzk_rng *rng)
{
    uint64_t v;
    cuzk_rng_bytes(rng, &v, sizeof v);
    return v;
}

uint64_t cuzk_test_seed(const char *test_name)
{
    uint64_t seed;
    const char *env = getenv("CUZK_SEED");
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else {
        cuzk_rng os;
        if (cuzk_rng_seed_os(&os) != CUZK_OK) {
            fprintf(stderr, "cannot read OS entropy\n");
            abort();
        }
        seed = cuzk_rng_u64(&os);
    }
    fprintf(stderr, "%s: seed: 0x%016llx (replay with CUZK_SEED=0x%016llx)\n",
            test_name ? test_name : "test", (unsigned long long)seed, (unsigned long long)seed);
    return seed;
}
