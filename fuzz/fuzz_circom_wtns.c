/* Fuzz the circom .wtns reader: any input is either rejected or gives values
 * that are canonical and backed by the input's bytes. */
#include <stdlib.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_circom_wtns w;
    cuzk_circom_error e;
    if (cuzk_circom_wtns_read_mem(&w, data, size, &e) != CUZK_OK) return 0;
    if (w.n * 32 > size) abort();
    for (size_t i = 0; i < w.n; i++) {
        cuzk_fr x;
        if (cuzk_fr_from_limbs(&x, w.values[i]) != CUZK_OK) abort();
    }
    cuzk_circom_wtns_free(&w);
    return 0;
}
