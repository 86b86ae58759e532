/* Filecoin proofs against their statements (fil_verify.h): one Groth16 check per partition. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_verify.h"
#include "cuzk/groth16/groth16_verify.h"

/* The proof bytes hold exactly one proof per partition the statement names. */
static int check_length(const cuzk_fil_statement *st, size_t len, char *err, size_t err_len)
{
    const size_t want = (size_t)cuzk_fil_statement_proofs(st) * CUZK_GROTH16_PROOF_BYTES;
    if (len == want) return CUZK_OK;
    const char *what = len < want ? "truncated" : "padded";
    if (len % CUZK_GROTH16_PROOF_BYTES)
        return cuzk_errf(err, err_len, CUZK_ERR_BAD_LENGTH, "proof: %zu bytes, not a whole number of %d-byte proofs "
                         "(%s: a %s proof %s is %zu bytes)", len, CUZK_GROTH16_PROOF_BYTES, what,
                         cuzk_fil_stmt_kind_name(st->kind), st->given & CUZK_FIL_SV_PARTITION ? "partition" : "of "
                         "every partition", want);
    return cuzk_errf(err, err_len, CUZK_ERR_BAD_LENGTH, "proof: %zu proofs, this %s proof has %u partition%s (%s list)",
                     len / CUZK_GROTH16_PROOF_BYTES, cuzk_fil_stmt_kind_name(st->kind), cuzk_fil_statement_proofs(st),
                     cuzk_fil_statement_proofs(st) == 1 ? "" : "s", what);
}

/* Partition i's verdict: its proof decoded, then the pairing check on its public inputs. */
static int verify_one(const cuzk_fil_statement *st, const cuzk_groth16_pvk *pvk, const uint8_t *bytes, uint32_t i,
                      cuzk_fr *x, cuzk_fil_verdict *v)
{
    static const char part[] = "?ABC";
    cuzk_groth16_proof p;
    cuzk_groth16_proof_error perr;
    v->partition = cuzk_fil_statement_partition_of(st, i);
    v->valid = 0;
    int rc = cuzk_groth16_proof_decode(&p, bytes, &perr);
    if (rc) {
        snprintf(v->why, sizeof v->why, "point %c does not decode: %s", part[perr.part & 3], cuzk_strerror(rc));
        return CUZK_OK;
    }
    if ((rc = cuzk_fil_statement_inputs(st, i, x))) return rc;
    rc = cuzk_groth16_verify(pvk, &p, x, st->num_inputs);
    if (rc && rc != CUZK_ERR_VERIFY_FAILED) return rc;
    v->valid = rc == CUZK_OK;
    snprintf(v->why, sizeof v->why, "%s", v->valid ? "" : "the pairing check fails on the public inputs");
    return CUZK_OK;
}

int cuzk_fil_verify(const cuzk_fil_statement *st, const cuzk_groth16_vk *vk, const uint8_t *proof, size_t len,
                    cuzk_fil_verdict *out, char *err, size_t err_len)
{
    if (!st->finished) return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "the statement is not finished");
    if (vk->n_ic != st->num_inputs + 1)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "vk: a key for %zu public inputs, a %s proof of "
                         "registered proof %llu has %zu (another kind's or sector size's key)", vk->n_ic - 1,
                         cuzk_fil_stmt_kind_name(st->kind), (unsigned long long)st->registered_proof, st->num_inputs);
    int rc = check_length(st, len, err, err_len);
    if (rc) return rc;
    cuzk_groth16_pvk pvk;
    cuzk_fr *x = malloc(sizeof *x * st->num_inputs);
    rc = x ? cuzk_groth16_prepare_vk(&pvk, vk) : CUZK_ERR_NO_MEMORY;
    if (rc) return free(x), cuzk_errf(err, err_len, rc, "vk: %s", cuzk_strerror(rc));
    bool all = true;
    for (uint32_t i = 0; !rc && i < cuzk_fil_statement_proofs(st); i++) {
        rc = verify_one(st, &pvk, proof + (size_t)i * CUZK_GROTH16_PROOF_BYTES, i, x, &out[i]);
        all = all && out[i].valid;
    }
    if (rc) cuzk_errf(err, err_len, rc, "public inputs: %s", cuzk_strerror(rc));
    cuzk_groth16_pvk_free(&pvk);
    free(x);
    return rc ? rc : all ? CUZK_OK : CUZK_ERR_VERIFY_FAILED;
}
