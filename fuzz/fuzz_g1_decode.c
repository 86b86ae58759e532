/* libFuzzer: every G1 decoder on arbitrary bytes; accepted input must
 * re-encode to itself and give a point on the curve (in the subgroup for
 * the checked decoders). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ec/g1.h"

static void decode_all(const uint8_t c[48], const uint8_t u[96])
{
    uint8_t e[96];
    cuzk_g1_affine p;
    for (int checked = 0; checked < 2; checked++) {
        int err = checked ? cuzk_g1_uncompress(&p, c) : cuzk_g1_uncompress_unchecked(&p, c);
        if (err == CUZK_OK) {
            if (!cuzk_g1_affine_is_on_curve(&p)) abort();
            if (checked && !cuzk_g1_affine_in_subgroup(&p)) abort();
            cuzk_g1_compress(e, &p);
            if (memcmp(e, c, 48)) abort();
        }
        err = checked ? cuzk_g1_deserialize(&p, u) : cuzk_g1_deserialize_unchecked(&p, u);
        if (err == CUZK_OK) {
            if (!cuzk_g1_affine_is_on_curve(&p)) abort();
            if (checked && !cuzk_g1_affine_in_subgroup(&p)) abort();
            cuzk_g1_serialize(e, &p);
            if (memcmp(e, u, 96)) abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t c[48] = {0}, u[96] = {0};
    if (size > 0 && data[0] == 0xa5) {
        /* Structured mode: bytes 1..32 are a scalar k; encode k·G, then flip
         * bits at (position, mask) pairs from the rest, so near-valid
         * encodings are explored too. */
        uint64_t k[4] = {0};
        for (size_t i = 1; i < size && i <= 32; i++) k[(i - 1) / 8] |= (uint64_t)data[i] << (8 * ((i - 1) % 8));
        cuzk_g1_jac j;
        cuzk_g1_affine p;
        cuzk_g1_jac_from_affine(&j, &cuzk_g1_generator);
        cuzk_g1_jac_mul(&j, &j, k);
        cuzk_g1_jac_to_affine(&p, &j);
        cuzk_g1_compress(c, &p);
        cuzk_g1_serialize(u, &p);
        for (size_t i = 33; i + 1 < size; i += 2) {
            c[data[i] % 48] ^= data[i + 1];
            u[data[i] % 96] ^= data[i + 1];
        }
        decode_all(c, u);
        return 0;
    }
    memcpy(c, data, size < 48 ? size : 48);
    memcpy(u, data, size < 96 ? size : 96);
    decode_all(c, u);
    return 0;
}
