/* Filecoin's SnarkPack aggregates of PoRep proofs (fil_aggregate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_aggregate.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/util/sha256.h"

static const cuzk_fil_seal_proof *seal_proof(const cuzk_fil_agg_values *v, char *err, size_t err_len)
{
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(v->registered_proof);
    if (!sp) cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "registered_proof: %llu is not a seal proof",
                       (unsigned long long)v->registered_proof);
    return sp;
}

int cuzk_fil_agg_shape(const cuzk_fil_agg_values *v, uint32_t *partitions, size_t *num_inputs, char *err,
                       size_t err_len)
{
    const cuzk_fil_seal_proof *sp = seal_proof(v, err, err_len);
    cuzk_porep_config cfg;
    if (!sp) return CUZK_ERR_INVALID_ARG;
    if (cuzk_porep_config_for(&cfg, sp->sector_size, sp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "registered_proof: %s: no PoRep circuit", sp->name);
    *partitions = cfg.partitions;
    *num_inputs = cuzk_porep_num_inputs(&cfg) - 1;
    return CUZK_OK;
}

uint32_t cuzk_fil_agg_target(size_t proofs)
{
    uint32_t n = 2;
    while (n < proofs && n <= (1u << CUZK_SNARKPACK_MAX_LOG)) n *= 2;
    return n;
}

bool cuzk_fil_agg_is_ni(const cuzk_fil_agg_values *v)
{
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(v->registered_proof);
    return sp && sp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE;
}

int cuzk_fil_agg_transcript(uint8_t out[32], const cuzk_fil_agg_values *v)
{
    int ni = cuzk_fil_agg_is_ni(v);
    size_t k = ni ? 1 : 2, n = v->num_sectors * k;
    const void **parts = malloc((n + 1) * sizeof *parts);
    size_t *lens = malloc((n + 1) * sizeof *lens);
    int rc = parts && lens ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; !rc && i < v->num_sectors; i++) {
        if (!ni) parts[k * i] = v->sectors[i].seed, lens[k * i] = 32;
        parts[k * i + k - 1] = v->sectors[i].comm_r, lens[k * i + k - 1] = 32;
    }
    if (!rc) rc = cuzk_sha256_hash_parts(out, parts, lens, n);
    free(parts), free(lens);
    return rc;
}

static int sector_rows(cuzk_fr *out, const cuzk_fil_agg_values *v, size_t s, uint32_t parts, size_t ni, char *err,
                       size_t err_len)
{
    static const uint8_t zero[32];
    const cuzk_fil_agg_sector *x = &v->sectors[s];
    if (!memcmp(x->comm_r, zero, 32) || !memcmp(x->comm_d, zero, 32))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "sector %zu (number %llu): all-zero comm_%s", s,
                         (unsigned long long)x->sector_number, memcmp(x->comm_r, zero, 32) ? "d" : "r");
    cuzk_fil_seal_values sv = {.registered_proof = v->registered_proof, .sector_id = x->sector_number};
    memcpy(sv.prover_id, v->prover_id, 32), memcpy(sv.ticket, x->ticket, 32), memcpy(sv.seed, x->seed, 32);
    memcpy(sv.comm_d, x->comm_d, 32), memcpy(sv.comm_r, x->comm_r, 32);
    for (uint32_t k = 0; k < parts; k++) {
        int rc = cuzk_fil_porep_public_inputs(out + k * ni, &sv, k);
        if (rc) return cuzk_errf(err, err_len, rc, "sector %zu (number %llu) partition %u: %s", s,
                                 (unsigned long long)x->sector_number, k, rc == CUZK_ERR_NONCANONICAL
                                 ? "a commitment is not a field element" : cuzk_strerror(rc));
    }
    return CUZK_OK;
}

int cuzk_fil_agg_inputs(cuzk_fr **rows, size_t *num_inputs, const cuzk_fil_agg_values *v, uint32_t nproofs,
                        char *err, size_t err_len)
{
    uint32_t parts;
    *rows = NULL;
    int rc = cuzk_fil_agg_shape(v, &parts, num_inputs, err, err_len);
    if (rc) return rc;
    size_t ni = *num_inputs, have = v->num_sectors * parts;
    if (!v->num_sectors || cuzk_fil_agg_target(have) != nproofs)
        return cuzk_errf(err, err_len, CUZK_ERR_BAD_LENGTH, "%zu sector(s) of %u partition(s): %zu proofs pad to %u, "
                         "the aggregate holds %u", v->num_sectors, parts, have, cuzk_fil_agg_target(have), nproofs);
    cuzk_fr *x = malloc((size_t)nproofs * ni * sizeof *x + 1);
    if (!x) return cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "out of memory");
    for (size_t s = 0; !rc && s < v->num_sectors; s++) rc = sector_rows(x + s * parts * ni, v, s, parts, ni, err, err_len);
    for (size_t r = have; !rc && r < nproofs; r++) memcpy(x + r * ni, x + (have - 1) * ni, ni * sizeof *x);
    if (rc) return free(x), rc;
    *rows = x;
    return CUZK_OK;
}

/* Every sector's partition proofs decoded, padded by the last; *out malloc'd, *n the count. */
static int decode_c2(cuzk_groth16_proof **out, uint32_t *n, const cuzk_fil_agg_values *v, const uint8_t *const *c2,
                     const size_t *c2_len, uint32_t parts, char *err, size_t err_len)
{
    size_t have = v->num_sectors * parts;
    *n = cuzk_fil_agg_target(have);
    cuzk_groth16_proof *p = malloc(*n * sizeof *p);
    if (!p) return cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "out of memory");
    for (size_t s = 0; s < v->num_sectors; s++) {
        cuzk_groth16_proof_error pe;
        int rc = c2_len[s] != parts * (size_t)CUZK_GROTH16_PROOF_BYTES ? CUZK_ERR_BAD_LENGTH
                 : cuzk_groth16_proofs_decode(p + s * parts, parts, c2[s], c2_len[s], &pe);
        if (rc == CUZK_ERR_BAD_LENGTH)
            return free(p), cuzk_errf(err, err_len, rc, "sector %zu: %zu bytes of C2 proof, %u partitions make %u", s,
                                      c2_len[s], parts, parts * CUZK_GROTH16_PROOF_BYTES);
        if (rc)
            return free(p), cuzk_errf(err, err_len, rc, "sector %zu partition %zu: point %c: %s", s, pe.index,
                                      "?ABC"[pe.part & 3], cuzk_strerror(rc));
    }
    for (size_t i = have; i < *n; i++) p[i] = p[have - 1];
    *out = p;
    return CUZK_OK;
}

int cuzk_fil_aggregate(uint8_t **out, size_t *out_len, const cuzk_fil_agg_values *v, const uint8_t *const *c2,
                       const size_t *c2_len, const cuzk_snarkpack_srs *srs, const cuzk_snarkpack_ctl *ctl,
                       unsigned nthreads, char *err, size_t err_len)
{
    uint32_t parts, n;
    size_t ni;
    uint8_t inc[32];
    cuzk_groth16_proof *pf = NULL;
    *out = NULL;
    int rc = cuzk_fil_agg_shape(v, &parts, &ni, err, err_len);
    if (!rc && !v->num_sectors) rc = cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "no sectors to aggregate");
    if (!rc && cuzk_fil_agg_is_ni(v) && v->num_sectors > CUZK_FIL_NI_AGG_MAX_SECTORS)
        rc = cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%zu NI-PoRep sectors: FIP-0092 aggregates 1 to %d "
                       "(rust-fil-proofs FIP92_MAX_NI_POREP_AGGREGATION_PROOFS)", v->num_sectors,
                       CUZK_FIL_NI_AGG_MAX_SECTORS);
    if (!rc) rc = decode_c2(&pf, &n, v, c2, c2_len, parts, err, err_len);
    if (!rc) rc = cuzk_fil_agg_transcript(inc, v);
    cuzk_snarkpack_proof *p = rc ? NULL : malloc(sizeof *p);
    if (!rc && !p) rc = cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "out of memory");
    if (!rc) rc = cuzk_snarkpack_aggregate(p, srs, pf, n, inc, 32, v->version, ctl, nthreads, err, err_len);
    if (!rc) {
        *out_len = cuzk_snarkpack_proof_size(n);
        *out = malloc(*out_len);
        rc = *out ? cuzk_snarkpack_proof_encode(*out, *out_len, p) : CUZK_ERR_NO_MEMORY;
        if (rc) free(*out), *out = NULL, cuzk_errf(err, err_len, rc, "aggregate: %s", cuzk_strerror(rc));
    }
    free(p), free(pf);
    return rc;
}

int cuzk_fil_aggregate_verify(const cuzk_fil_agg_values *v, const cuzk_groth16_vk *vk,
                              const cuzk_snarkpack_srs *srs, const uint8_t *proof, size_t len, unsigned nthreads,
                              char *err, size_t err_len)
{
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    cuzk_snarkpack_vk svk;
    cuzk_fr *rows = NULL;
    size_t ni = 0;
    uint8_t inc[32];
    if (!p) return cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "out of memory");
    int rc = cuzk_snarkpack_proof_decode(p, proof, len, err, err_len);
    if (!rc) rc = cuzk_fil_agg_inputs(&rows, &ni, v, p->nproofs, err, err_len);
    if (!rc) rc = cuzk_snarkpack_vk_for(&svk, srs, p->nproofs, err, err_len);
    if (!rc) rc = cuzk_fil_agg_transcript(inc, v);
    if (!rc) rc = cuzk_snarkpack_verify(p, &svk, vk, rows, p->nproofs, ni, inc, 32, v->version, NULL, nthreads, err,
                                        err_len);
    free(p), free(rows);
    return rc;
}

int cuzk_fil_agg_srs_load(cuzk_snarkpack_srs *srs, cuzk_fil_srs_origin *origin, const char *dir,
                          uint32_t max_proofs, int allow_test, unsigned nthreads, char *note, size_t note_len,
                          char *err, size_t err_len)
{
    char path[4096], hex[CUZK_FIL_DIGEST_HEX + 1], e[512];
    struct stat st;
    memset(srs, 0, sizeof *srs);
    if (note && note_len) note[0] = 0;
    if (snprintf(path, sizeof path, "%s/%s", dir, CUZK_SNARKPACK_SRS_NAME) >= (int)sizeof path)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "param_cache: path too long");
    if (stat(path, &st))
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "no aggregation SRS %s (Filecoin's file, or a TEST one from "
                         "`cuzk setup --aggregation --out %s`)", path, dir);
    /* the whole file, as rust-fil-proofs' verify_production_entry hashes it: a damaged tail is
     * caught although only the first powers are read */
    int rc = cuzk_fil_param_digest(hex, path, NULL, NULL, e, sizeof e);
    if (rc) return cuzk_errf(err, err_len, rc, "%s: %s", path, e);
    size_t max_len = 2 * (size_t)(max_proofs < 2 ? 2 : max_proofs);
    if (max_len > CUZK_SNARKPACK_FIL_READ_LEN) max_len = CUZK_SNARKPACK_FIL_READ_LEN;
    rc = cuzk_snarkpack_srs_read_file(srs, path, max_len, nthreads, e, sizeof e);
    bool ceremony = !strcmp(hex, CUZK_FIL_SRS_DIGEST);
    if (rc && ceremony) return cuzk_errf(err, err_len, rc, "%s", e);
    if (ceremony) {
        *origin = CUZK_FIL_SRS_CEREMONY;
        cuzk_errf(note, note_len, 0, "%s: digest %s matches srs-inner-product.json", path, hex);
        return CUZK_OK;
    }
    if (!rc && srs->test && allow_test) {
        *origin = CUZK_FIL_SRS_TEST;
        cuzk_errf(note, note_len, 0, "%s: TEST SRS (cuzk setup --aggregation; digest %s, not the ceremony's "
                  "%s): aggregates the chain rejects", path, hex, CUZK_FIL_SRS_DIGEST);
        return CUZK_OK;
    }
    bool test = !rc && srs->test;
    cuzk_snarkpack_srs_free(srs);
    if (test)
        return cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED, "%s: a TEST SRS (cuzk setup --aggregation), refused: "
                         "TEST parameters are not allowed here (digest %s, srs-inner-product.json lists %s)",
                         path, hex, CUZK_FIL_SRS_DIGEST);
    return cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED, "%s: digest %s, srs-inner-product.json lists %s: a "
                     "damaged or foreign file (fetch it again)%s%s", path, hex, CUZK_FIL_SRS_DIGEST,
                     rc ? "; " : "", rc ? e : "");
}
