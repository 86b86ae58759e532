/* libFuzzer: every G2 decoder on arbitrary bytes; accepted input must
 * re-encode to itself and give a point on the curve (in the subgroup for
 * the checked decoders). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ec/g2.h"

static void decode_all(const uint8_t c[96], const uint8_t u[192])
{
    uint8_t e[192];
    cuzk_g2_affine p;
    for (int checked = 0; checked < 2; checked++) {
        int err = checked ? cuzk_g2_uncompress(&p, c) : cuzk_g2_uncompress_unchecked(&p, c);
        if (err == CUZK_OK) {
            if (!cuzk_g2_affine_is_on_curve(&p)) abort();
            if (checked && !cuzk_g2_affine_in_subgroup(&p)) abort();
            cuzk_g2_compress(e, &p);
            if (memcmp(e, c, 96)) abort();
        }
        err = checked ? cuzk_g2_deserialize(&p, u) : cuzk_g2_deserialize_unchecked(&p, u);
        if (err == CUZK_OK) {
            if (!cuzk_g2_affine_is_on_curve(&p)) abort();
            if (checked && !cuzk_g2_affine_in_subgroup(&p)) abort();
            cuzk_g2_serialize(e, &p);
            if (memcmp(e, u, 192)) abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t c[96] = {0}, u[192] = {0};
    if (size > 0 && data[0] == 0xa5) {
        /* Structured mode: bytes 1..32 are a scalar k; encode k·G, then flip
         * bits at (position, mask) pairs from the rest, so near-valid
         * encodings are explored too. */
        uint64_t k[4] = {0};
        for (size_t i = 1; i < size && i <= 32; i++) k[(i - 1) / 8] |= (uint64_t)data[i] << (8 * ((i - 1) % 8));
        cuzk_g2_jac j;
        cuzk_g2_affine p;
        cuzk_g2_jac_from_affine(&j, &cuzk_g2_generator);
        cuzk_g2_jac_mul(&j, &j, k);
        cuzk_g2_jac_to_affine(&p, &j);
        cuzk_g2_compress(c, &p);
        cuzk_g2_serialize(u, &p);
        for (size_t i = 33; i + 1 < size; i += 2) {
            c[data[i] % 96] ^= data[i + 1];
            u[data[i] % 192] ^= data[i + 1];
        }
        decode_all(c, u);
        return 0;
    }
    memcpy(c, data, size < 96 ? size : 96);
    memcpy(u, data, size < 192 ? size : 192);
    decode_all(c, u);
    return 0;
}
