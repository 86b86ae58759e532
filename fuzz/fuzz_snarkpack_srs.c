/* Fuzz the SnarkPack SRS reader (cuzk/groth16/snarkpack.h): the first byte picks how many powers to
 * read (0: all), the rest is the file. Any input is read or refused with a message; a whole read
 * serializes back to the bytes it read; never a crash. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/snarkpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t max_len = data[0] % 8;
    cuzk_snarkpack_srs srs;
    char err[512] = "";
    int rc = cuzk_snarkpack_srs_read_mem(&srs, data + 1, size - 1, max_len, 1, err, sizeof err);
    if (rc != CUZK_OK) {
        if (!err[0]) abort();
        return 0;
    }
    for (int v = 0; v < 4; v++)
        if (srs.len[v] > srs.file_len[v] || (max_len && srs.len[v] > max_len)) abort();
    int whole = 1;
    for (int v = 0; v < 4; v++) whole &= srs.len[v] == srs.file_len[v];
    size_t len;
    uint8_t *b = whole ? cuzk_snarkpack_srs_serialize(&srs, 0, &len) : NULL;
    if (b && (len > size - 1 || memcmp(b, data + 1, len))) abort();
    free(b);
    cuzk_snarkpack_srs_free(&srs);
    return 0;
}
