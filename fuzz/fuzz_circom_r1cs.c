/* Fuzz the circom .r1cs reader: any input is either rejected or gives a
 * system whose combinations lie inside the arrays and name existing wires. */
#include <stdlib.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_circom_r1cs r;
    cuzk_circom_error e;
    if (cuzk_circom_r1cs_read_mem(&r, data, size, &e) != CUZK_OK) return 0;
    if (r.start[0] != 0 || r.start[3 * (size_t)r.n_constraints] != r.n_terms || r.n_terms * 36 > size) abort();
    for (size_t k = 0; k < 3 * (size_t)r.n_constraints; k++)
        if (r.start[k] > r.start[k + 1]) abort();
    for (size_t t = 0; t < r.n_terms; t++)
        if (r.wire[t] >= r.n_wires) abort();
    cuzk_circom_r1cs_free(&r);
    return 0;
}
