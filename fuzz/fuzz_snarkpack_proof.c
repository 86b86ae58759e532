/* Fuzz SnarkPack proof decoding (cuzk/groth16/snarkpack.h): any byte string either decodes to a proof
 * that encodes back to the same bytes, or is refused with a length, count or point error;
 * never a crash. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/snarkpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cuzk_snarkpack_proof p;
    static uint8_t out[1 << 16];
    char err[256];
    int rc = cuzk_snarkpack_proof_decode(&p, data, size, err, sizeof err);
    uint32_t n = cuzk_snarkpack_proof_count(data, size);
    if (rc == CUZK_OK) {
        if (size != cuzk_snarkpack_proof_size(n) || size > sizeof out) abort();
        if (cuzk_snarkpack_proof_encode(out, size, &p) != CUZK_OK || memcmp(out, data, size)) abort();
    } else if (!err[0]) {
        abort(); /* every refusal says why */
    }
    return 0;
}
