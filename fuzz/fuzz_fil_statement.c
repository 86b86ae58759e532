/* libFuzzer: a Filecoin proof's statement (cuzk/filecoin/fil_statement.h) from a JSON file of values
 * (`cuzk verify --values`), and each value's text parser alone: any bytes give a statement or
 * a clear error, never a crash or a leak; a statement that finishes yields every proof's rows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_statement.h"

static const char *const fields[] = {"kind", "registered_proof", "sector_size", "miner", "prover_id",
                                     "sector_number", "comm_r", "comm_d", "ticket", "seed", "randomness",
                                     "comm_r_old", "comm_r_new", "comm_d_new", "sector", "partition"};

/* The first byte picks a value, the rest is its text. */
static void one_value(const uint8_t *data, size_t size)
{
    char *s = malloc(size);
    if (!s) return;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    cuzk_fil_statement st;
    char err[512];
    cuzk_fil_statement_init(&st);
    (void)cuzk_fil_statement_set(&st, fields[data[0] % (sizeof fields / sizeof fields[0])], s, err, sizeof err);
    cuzk_fil_statement_free(&st);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 0) one_value(data, size);
    cuzk_fil_statement st;
    char err[512];
    cuzk_fil_statement_init(&st);
    if (!cuzk_fil_statement_set_json(&st, (const char *)data, size, err, sizeof err) &&
        !cuzk_fil_statement_finish(&st, err, sizeof err) && st.num_inputs <= 4096) {
        cuzk_fr *x = malloc(sizeof *x * st.num_inputs);
        for (uint32_t i = 0; x && i < cuzk_fil_statement_proofs(&st) && i < 4; i++)
            if (cuzk_fil_statement_inputs(&st, i, x) != CUZK_OK) abort(); /* a finished statement has rows */
        free(x);
    }
    cuzk_fil_statement_free(&st);
    return 0;
}
