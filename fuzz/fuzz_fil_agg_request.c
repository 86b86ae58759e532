/* Fuzz the aggregation request's decoding (the aggregate-seal kind's inputs): any byte string
 * decodes to a request that re-encodes to the same bytes, or is rejected; the checks then
 * accept or refuse it with a message; never a crash. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_aggregate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_fil_agg_request r;
    char err[256];
    if (cuzk_fil_agg_request_decode(&r, data, size, err, sizeof err) != CUZK_OK) return 0;
    size_t n = cuzk_fil_agg_request_size(&r);
    uint8_t *out = malloc(n ? n : 1);
    if (!out) abort();
    cuzk_fil_agg_request_encode(&r, out);
    if (n != size || memcmp(out, data, n) != 0) abort();
    err[0] = 0;
    if (cuzk_fil_agg_request_check(&r, 8, err, sizeof err) != CUZK_OK && !err[0]) abort();
    free(out);
    cuzk_fil_agg_request_clear(&r);
    return 0;
}
