/* Fuzz the snarkjs .zkey reader: any input is either rejected or gives a key
 * whose sizes agree with its header, with valid points and in-range
 * coefficient records. */
#include <stdlib.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_circom_zkey z;
    cuzk_circom_error e;
    if (cuzk_circom_zkey_read_mem(&z, data, size, CUZK_CIRCOM_VALIDATE, 1, &e) != CUZK_OK) return 0;
    if (z.domain_size != (1u << z.log_n) || z.n_public + 1 > z.n_vars || z.a.n > z.n_vars ||
        z.b_g1.n > z.n_vars || z.b_g2.n > z.n_vars)
        abort();
    for (size_t k = 0; k < z.n_coefs; k++)
        if (z.coefs[k].matrix > 1 || z.coefs[k].constraint >= z.domain_size || z.coefs[k].signal >= z.n_vars) abort();
    for (size_t k = 0; k < z.a.n; k++)
        if (z.a.idx[k] >= z.n_vars || (k && z.a.idx[k] <= z.a.idx[k - 1]) ||
            !cuzk_g1_affine_in_subgroup(&z.a.p[k]))
            abort();
    for (size_t k = 0; k < z.domain_size; k++)
        if (!cuzk_g1_affine_is_on_curve(&z.h[k])) abort();
    cuzk_circom_zkey_free(&z);
    return 0;
}
