/* Fuzz the SnapDeals vanilla partition-proof parser (fil_vanilla.h). The first byte picks the
 * registered update proof (2KiB, or 8MiB: 4 partitions); the rest is the blob. Whatever parses
 * re-encodes to the same bytes, and prepare never crashes on it; the commitment decoder runs
 * on the first 40 bytes. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_vanilla.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint64_t id = data[0] & 1;
    const uint8_t *b = data + 1;
    size_t n = size - 1;
    char err[256];
    uint8_t c[32];
    (void)cuzk_fil_commitment(c, b, n < 40 ? n : 40, n & 1 ? CUZK_FIL_COMM_SEALED : CUZK_FIL_COMM_UNSEALED, "comm", err,
                              sizeof err);
    cuzk_fil_snap_vanilla v;
    if (cuzk_fil_snap_vanilla_parse(&v, id, b, n, err, sizeof err) != CUZK_OK) return 0;
    uint8_t *out;
    size_t len;
    if (cuzk_fil_snap_vanilla_encode(&out, &len, id, &v) != CUZK_OK) abort();
    if (len != n || memcmp(out, b, n) != 0) abort();
    free(out);
    uint8_t ro[32], rn[32], dn[32];
    cuzk_fr_to_le32(ro, &v.comm_c);
    cuzk_fr_to_le32(rn, &v.ch[0].r_new.root);
    cuzk_fr_to_le32(dn, &v.ch[0].d_new.root);
    cuzk_fil_snap_vanilla_free(&v);
    cuzk_fil_snap_partition j;
    if (cuzk_fil_snap_prepare(&j, id, 0, ro, rn, dn, b, n, err, sizeof err) == CUZK_OK)
        cuzk_fil_snap_partition_free(&j);
    return 0;
}
