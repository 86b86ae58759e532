/* RNG: determinism under a seed, distinct streams for distinct seeds, uniform-looking bits. */
#include <string.h>

#include "cuzk/util/rng.h"
#include "testutil.h"

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_rng");
    uint64_t seed = cuzk_rng_u64(&rng);

    cuzk_rng a, b, c;
    cuzk_rng_seed(&a, seed);
    cuzk_rng_seed(&b, seed);
    cuzk_rng_seed(&c, seed ^ 1);
    uint8_t ba[1000], bb[1000], bc[1000];
    cuzk_rng_bytes(&a, ba, 3);
    cuzk_rng_bytes(&a, ba + 3, sizeof ba - 3); /* split reads equal one read */
    cuzk_rng_bytes(&b, bb, sizeof bb);
    cuzk_rng_bytes(&c, bc, sizeof bc);
    CHECK(memcmp(ba, bb, sizeof ba) == 0);
    CHECK(memcmp(ba, bc, sizeof ba) != 0);

    /* Bit balance over 2^20 bits: expect 2^19 ones, sigma = 512; allow 8 sigma. */
    long ones = 0;
    for (int i = 0; i < 16384; i++) ones += __builtin_popcountll(cuzk_rng_u64(&rng));
    CHECK_MSG(ones > 524288 - 4096 && ones < 524288 + 4096, "ones=%ld", ones);

    cuzk_rng os1, os2;
    CHECK(cuzk_rng_seed_os(&os1) == 0);
    CHECK(cuzk_rng_seed_os(&os2) == 0);
    CHECK(cuzk_rng_u64(&os1) != cuzk_rng_u64(&os2));
    return tu_finish("test_rng");
}
