/* Fuzz the snarkjs verification_key.json reader: any input is either
 * rejected or gives a key that the writer round-trips. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_groth16_vk a, b;
    cuzk_circom_error e;
    if (cuzk_circom_vk_read_json(&a, (const char *)data, size, &e) != CUZK_OK) return 0;
    char *s = cuzk_circom_vk_to_json(&a);
    if (!s || cuzk_circom_vk_read_json(&b, s, strlen(s), &e) != CUZK_OK || a.n_ic != b.n_ic) abort();
    if (!cuzk_g1_affine_eq(&a.alpha_g1, &b.alpha_g1) || !cuzk_g2_affine_eq(&a.delta_g2, &b.delta_g2)) abort();
    for (size_t i = 0; i < a.n_ic; i++)
        if (!cuzk_g1_affine_eq(&a.ic[i], &b.ic[i])) abort();
    free(s);
    cuzk_groth16_vk_free(&a);
    cuzk_groth16_vk_free(&b);
    return 0;
}
