/* Fuzz the PoSt vanilla-proof parser (fil_vanilla.h). The first byte picks the registered
 * proof (2KiB WinningPoSt, 2KiB / 32GiB / 64GiB WindowPoSt: the Single, Sub and Top proof
 * variants); the rest is the blob. Whatever parses re-encodes to the same bytes, and prepare
 * never crashes on it, giving the same verdict and message on one thread and on three. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_vanilla.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t ids[4] = {0, 10, 13, 14};
    if (size < 1) return 0;
    uint64_t id = ids[data[0] & 3];
    const uint8_t *b = data + 1;
    size_t n = size - 1;
    cuzk_fil_post_vanilla v;
    char err[256];
    if (cuzk_fil_post_vanilla_parse(&v, id, b, n, err, sizeof err) != CUZK_OK) return 0;
    uint8_t *out;
    size_t len;
    if (cuzk_fil_post_vanilla_encode(&out, &len, id, &v) != CUZK_OK) abort();
    if (len != n || memcmp(out, b, n) != 0) abort();
    free(out);
    cuzk_fil_post_vanilla_free(&v);
    static const uint8_t rnd[32] = {1, 2, 3};
    cuzk_fil_blob blob = {b, n};
    cuzk_fil_post_partition j;
    if (cuzk_fil_post_prepare(&j, id, rnd, 0, &blob, 1, NULL, err, sizeof err) == CUZK_OK)
        cuzk_fil_post_partition_free(&j);
    /* two copies (a repeated sector, and each one's own checks) on one thread and on three:
     * the same verdict and message */
    cuzk_fil_blob two[2] = {blob, blob};
    char err3[256];
    int rc1 = cuzk_fil_post_prepare(&j, id, rnd, 0, two, 2, NULL, err, sizeof err);
    if (rc1 == CUZK_OK) cuzk_fil_post_partition_free(&j);
    int rc3 = cuzk_fil_post_prepare_threads(&j, id, rnd, 0, two, 2, NULL, 3, err3, sizeof err3);
    if (rc3 == CUZK_OK) cuzk_fil_post_partition_free(&j);
    if (rc1 != rc3 || (rc1 && strcmp(err, err3))) abort();
    return 0;
}
