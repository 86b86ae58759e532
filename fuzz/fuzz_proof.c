/* Fuzz Groth16 proof decoding: any byte string either decodes to proofs that
 * re-encode to the same bytes or is rejected; never a crash. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAX_PROOFS = 4 };
    cuzk_groth16_proof proofs[MAX_PROOFS];
    cuzk_groth16_proof_error err;
    size_t n = size / CUZK_GROTH16_PROOF_BYTES;
    if (n > MAX_PROOFS) n = MAX_PROOFS;
    int rc = cuzk_groth16_proofs_decode(proofs, n, data, size, &err);
    if (size != n * CUZK_GROTH16_PROOF_BYTES) {
        if (rc != CUZK_ERR_BAD_LENGTH) abort();
        return 0;
    }
    if (rc != CUZK_OK) return 0;
    uint8_t out[CUZK_GROTH16_PROOF_BYTES];
    for (size_t i = 0; i < n; i++) {
        cuzk_groth16_proof_encode(out, &proofs[i]);
        if (memcmp(out, data + i * CUZK_GROTH16_PROOF_BYTES, sizeof out) != 0) abort();
    }
    return 0;
}
