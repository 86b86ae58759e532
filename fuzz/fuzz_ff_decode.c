/* Fuzz the field-element decoders: arbitrary bytes either decode to a
 * canonical element that re-encodes to the same bytes, or are rejected. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fp.h"
#include "cuzk/ff/fr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t out[48];
    if (size >= 48) {
        cuzk_fp a;
        int err = cuzk_fp_from_be48(&a, data);
        if (err == CUZK_OK) {
            cuzk_fp_to_be48(out, &a);
            if (memcmp(out, data, 48) != 0) abort();
        } else if (err != CUZK_ERR_NONCANONICAL) {
            abort();
        }
    }
    if (size >= 32) {
        cuzk_fr b;
        if (cuzk_fr_from_le32(&b, data) == CUZK_OK) {
            cuzk_fr_to_le32(out, &b);
            if (memcmp(out, data, 32) != 0) abort();
        }
        if (cuzk_fr_from_be32(&b, data) == CUZK_OK) {
            cuzk_fr_to_be32(out, &b);
            if (memcmp(out, data, 32) != 0) abort();
        }
    }
    return 0;
}
