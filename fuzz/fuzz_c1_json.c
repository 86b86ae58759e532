/* Fuzz the PoRep C1 parser (SealCommitPhase1Output JSON and curio's wrapper): any input is
 * rejected or parses to a C1 whose serde_json form parses back to the same bytes; the vanilla
 * verification runs on whatever parsed and never crashes, with the same verdict and message on
 * one thread and on three; parsing on three threads (the proofs apart) gives the same outcome,
 * message and C1 as on one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/filecoin_gen/seal.h"
#include "cuzk/util/error.h"

static char *dump(const cuzk_fil_c1 *c1, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f || cuzk_fil_c1_write(c1, f) != CUZK_OK) abort();
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_fil_c1 *c1 = NULL, *c2 = NULL;
    char err[512];
    int rc = cuzk_fil_c1_parse(data, size, &c1, err, sizeof err);
    /* on three threads: the same outcome, message and C1 (a large input takes the proofs-in-parallel path) */
    cuzk_fil_c1 *c3 = NULL;
    char err3[512];
    if (cuzk_fil_c1_parse_threads(data, size, 3, &c3, err3, sizeof err3) != rc || (rc && strcmp(err, err3))) abort();
    if (!rc) {
        size_t n1, n3;
        char *d1 = dump(c1, &n1), *d3 = dump(c3, &n3);
        if (n1 != n3 || memcmp(d1, d3, n1) || c1->wrapped != c3->wrapped ||
            c1->wrap_sector_num != c3->wrap_sector_num || c1->wrap_sector_size != c3->wrap_sector_size)
            abort();
        free(d1);
        free(d3);
    }
    cuzk_fil_c1_free(c3);
    if (rc != CUZK_OK) {
        if (c1 || (rc == CUZK_ERR_FORMAT && !err[0])) abort(); /* a format refusal says why */
        return 0;
    }
    size_t n, n2;
    char *a = dump(c1, &n);
    if (cuzk_fil_c1_parse((const uint8_t *)a, n, &c2, err, sizeof err) != CUZK_OK) abort();
    char *b = dump(c2, &n2);
    if (n != n2 || memcmp(a, b, n)) abort();
    /* the threaded check: the same verdict and message as one thread */
    int rc1 = cuzk_fil_c1_check(c1, c1->registered_proof, 1000, 1, err, sizeof err);
    int rc3 = cuzk_fil_c1_check_threads(c1, c1->registered_proof, 1000, 1, 3, err3, sizeof err3);
    if (rc1 != rc3 || (rc1 && strcmp(err, err3))) abort();
    if (rc1 == CUZK_OK) {
        cuzk_fr pub[1024];
        if (cuzk_fil_c1_public_inputs(c1, 0, pub) != cuzk_porep_num_inputs(&c1->cfg) - 1) abort();
    }
    free(a);
    free(b);
    cuzk_fil_c1_free(c1);
    cuzk_fil_c1_free(c2);
    return 0;
}
