/*
 * cuzk_rng: a ChaCha20 keystream used as a random number generator.
 *
 * Seeded from a 64-bit value it is reproducible (tests print the seed so a
 * failure can be replayed); seeded from the OS (getrandom) it is suitable
 * for secrets such as the prover's r, s and test-setup toxic waste.
 */
#ifndef CUZK_RNG_H
#define CUZK_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_rng {
    uint32_t key[8];
    uint64_t counter;
    uint32_t block[16];
    unsigned used; /* bytes of block already consumed, 64 = empty */
} cuzk_rng;

/* Deterministic stream from a 64-bit seed. */
void cuzk_rng_seed(cuzk_rng *rng, uint64_t seed);
/* Stream keyed from the OS entropy source; returns 0 or CUZK_ERR_IO. */
int cuzk_rng_seed_os(cuzk_rng *rng);
uint64_t cuzk_rng_u64(cuzk_rng *rng);
void cuzk_rng_bytes(cuzk_rng *rng, void *out, size_t len);

/*
 * Seed for a test run: $CUZK_SEED if set (decimal or 0x-hex), otherwise
 * fresh from the OS. Prints "seed: <value>" to stderr so that every test run
 * can be replayed.
 */
uint64_t cuzk_test_seed(const char *test_name);

#ifdef __cplusplus
}
#endif
#endif
