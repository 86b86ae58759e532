/* Fuzz the snarkjs public.json reader: any input is either rejected or gives
 * canonical values that the writer round-trips. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_fr *v = NULL, *w = NULL;
    size_t n, m;
    cuzk_circom_error e;
    if (cuzk_circom_public_read_json(&v, &n, (const char *)data, size, &e) != CUZK_OK) return 0;
    uint64_t(*l)[4] = malloc((n ? n : 1) * sizeof *l);
    for (size_t i = 0; i < n; i++) cuzk_fr_to_limbs(l[i], &v[i]);
    char *s = cuzk_circom_public_to_json((const uint64_t(*)[4])l, n);
    if (!s || cuzk_circom_public_read_json(&w, &m, s, strlen(s), &e) != CUZK_OK || m != n) abort();
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_eq(&v[i], &w[i])) abort();
    free(s), free(l), free(v), free(w);
    return 0;
}
