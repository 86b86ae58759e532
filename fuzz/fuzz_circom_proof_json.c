/* Fuzz the snarkjs proof.json reader: any input is either rejected or gives
 * a proof that the writer turns into text that reads back to the same proof. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_groth16_proof p, q;
    cuzk_circom_error e;
    if (cuzk_circom_proof_read_json(&p, (const char *)data, size, &e) != CUZK_OK) return 0;
    char *s = cuzk_circom_proof_to_json(&p);
    if (!s || cuzk_circom_proof_read_json(&q, s, strlen(s), &e) != CUZK_OK) abort();
    if (!cuzk_g1_affine_eq(&p.a, &q.a) || !cuzk_g2_affine_eq(&p.b, &q.b) || !cuzk_g1_affine_eq(&p.c, &q.c))
        abort();
    free(s);
    return 0;
}
