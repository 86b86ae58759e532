/*
 * An aggregation request (cuzk/kinds/fil_aggregate.h): its flat encoding, the aggregate-seal kind's
 * job inputs, and the checks a request passes before any aggregation work: each failure names
 * the field, as a client sent it, so that an operator can find the sector.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_aggregate.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/circuits/porep.h"

#define AGG_MAGIC "CZAG"
#define AGG_FORMAT 1u
#define AGG_HEAD (4 + 4 + 8 + 4 + 32 + 4)
#define AGG_SECTOR (8 + 4 * 32 + 8)

/* A little-endian writer and a bounds-checked reader over the flat bytes. */
typedef struct agg_cursor {
    const uint8_t *p, *end;
    int short_read;
} agg_cursor;

static uint8_t *agg_put(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
    return p + bytes;
}

static uint64_t agg_get(agg_cursor *c, unsigned bytes)
{
    uint64_t v = 0;
    if ((size_t)(c->end - c->p) < bytes) return c->short_read = 1, 0;
    for (unsigned i = 0; i < bytes; i++) v |= (uint64_t)c->p[i] << (8 * i);
    c->p += bytes;
    return v;
}

static const uint8_t *agg_take(agg_cursor *c, size_t n)
{
    if ((size_t)(c->end - c->p) < n) return c->short_read = 1, NULL;
    const uint8_t *at = c->p;
    c->p += n;
    return at;
}

size_t cuzk_fil_agg_request_size(const cuzk_fil_agg_request *r)
{
    size_t n = AGG_HEAD;
    for (size_t i = 0; i < r->v.num_sectors; i++) n += AGG_SECTOR + r->proof_len[i];
    return n;
}

void cuzk_fil_agg_request_encode(const cuzk_fil_agg_request *r, uint8_t *out)
{
    const cuzk_fil_agg_values *v = &r->v;
    memcpy(out, AGG_MAGIC, 4);
    uint8_t *p = agg_put(out + 4, AGG_FORMAT, 4);
    p = agg_put(p, v->registered_proof, 8);
    p = agg_put(p, (uint32_t)v->version, 4);
    memcpy(p, v->prover_id, 32), p += 32;
    p = agg_put(p, v->num_sectors, 4);
    for (size_t i = 0; i < v->num_sectors; i++) {
        const cuzk_fil_agg_sector *x = &v->sectors[i];
        p = agg_put(p, x->sector_number, 8);
        const uint8_t *f[4] = {x->comm_r, x->comm_d, x->ticket, x->seed};
        for (int k = 0; k < 4; k++) memcpy(p, f[k], 32), p += 32;
        p = agg_put(p, r->proof_len[i], 8);
        if (r->proof_len[i]) memcpy(p, r->proofs[i], r->proof_len[i]);
        p += r->proof_len[i];
    }
}

void cuzk_fil_agg_request_clear(cuzk_fil_agg_request *r)
{
    free((void *)r->v.sectors), free((void *)r->proofs), free((void *)r->proof_len);
    memset(r, 0, sizeof *r);
}

/* Sector i's values and proof from c into r's arrays. */
static void agg_sector_read(agg_cursor *c, cuzk_fil_agg_sector *x, const uint8_t **proof, size_t *len)
{
    x->sector_number = agg_get(c, 8);
    uint8_t *f[4] = {x->comm_r, x->comm_d, x->ticket, x->seed};
    for (int k = 0; k < 4; k++) {
        const uint8_t *at = agg_take(c, 32);
        if (at) memcpy(f[k], at, 32);
    }
    uint64_t n = agg_get(c, 8);
    *len = (size_t)n;
    *proof = n <= (uint64_t)(c->end - c->p) ? agg_take(c, (size_t)n) : (c->short_read = 1, NULL);
}

int cuzk_fil_agg_request_decode(cuzk_fil_agg_request *r, const uint8_t *buf, size_t len, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    agg_cursor c = {buf, buf + len, 0};
    const uint8_t *magic = agg_take(&c, 4);
    if (!magic || memcmp(magic, AGG_MAGIC, 4) || agg_get(&c, 4) != AGG_FORMAT)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "not an aggregation request (format %u)", AGG_FORMAT);
    r->v.registered_proof = agg_get(&c, 8);
    r->v.version = (cuzk_snarkpack_version)agg_get(&c, 4);
    const uint8_t *prover = agg_take(&c, 32);
    if (prover) memcpy(r->v.prover_id, prover, 32);
    size_t n = (size_t)agg_get(&c, 4);
    if (c.short_read || n > (size_t)(c.end - c.p) / AGG_SECTOR)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "aggregation request: %zu bytes hold no %zu sectors", len, n);
    cuzk_fil_agg_sector *x = calloc(n ? n : 1, sizeof *x);
    const uint8_t **proofs = calloc(n ? n : 1, sizeof *proofs);
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    r->v.sectors = x, r->proofs = proofs, r->proof_len = lens, r->v.num_sectors = n;
    if (!x || !proofs || !lens) return cuzk_fil_agg_request_clear(r), CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; i < n && !c.short_read; i++) agg_sector_read(&c, &x[i], &proofs[i], &lens[i]);
    if (c.short_read || c.p != c.end) {
        cuzk_fil_agg_request_clear(r);
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "aggregation request: %zu bytes, not what its %zu sectors "
                         "take", len, n);
    }
    return CUZK_OK;
}

/* comm (aggregate_sectors[i].<name>) is not zero and is a field element. */
static int agg_comm_check(const uint8_t comm[32], size_t i, const char *name, char *err, size_t err_len)
{
    static const uint8_t zero[32];
    cuzk_fr f;
    if (!memcmp(comm, zero, 32))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors[%zu].%s is zero", i, name);
    if (cuzk_fr_from_le32(&f, comm))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors[%zu].%s is not a field element "
                         "(32 bytes, little-endian, below the BLS12-381 scalar modulus)", i, name);
    return CUZK_OK;
}

/* Sector i's proof: parts x 192 bytes, every point valid. */
static int agg_proof_check(const cuzk_fil_agg_request *r, size_t i, uint32_t parts, char *err, size_t err_len)
{
    size_t want = (size_t)parts * CUZK_GROTH16_PROOF_BYTES;
    if (cuzk_fil_agg_is_ni(&r->v) && r->proof_len[i] == cuzk_snarkpack_proof_size(cuzk_fil_agg_target(parts)))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors[%zu].proof is %zu bytes: an NI-PoRep "
                         "C2 output (the SnarkPack aggregate of its partitions); an aggregate of NI-PoRep sectors "
                         "takes each sector's %u partition proofs (%zu bytes, seal_commit_phase2_circuit_proofs)", i,
                         r->proof_len[i], parts, want);
    if (r->proof_len[i] != want)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors[%zu].proof is %zu bytes; a C2 output "
                         "of this registered proof is %u partition(s) x %u = %zu bytes", i, r->proof_len[i], parts,
                         CUZK_GROTH16_PROOF_BYTES, want);
    for (uint32_t k = 0; k < parts; k++) {
        cuzk_groth16_proof p;
        cuzk_groth16_proof_error pe;
        int rc = cuzk_groth16_proof_decode(&p, r->proofs[i] + (size_t)k * CUZK_GROTH16_PROOF_BYTES, &pe);
        if (rc)
            return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors[%zu].proof: partition %u: point %c: "
                             "%s", i, k, "?ABC"[pe.part & 3], cuzk_strerror(rc));
    }
    return CUZK_OK;
}

/* The request's shape: the registered proof, the version and the sector count. */
static int agg_shape_check(const cuzk_fil_agg_request *r, size_t max_sectors, uint32_t *parts, char *err,
                           size_t err_len)
{
    const cuzk_fil_agg_values *v = &r->v;
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(v->registered_proof);
    size_t ni;
    if (cuzk_fil_agg_shape(v, parts, &ni, err, err_len)) return CUZK_ERR_INVALID_ARG;
    if (v->version != CUZK_SNARKPACK_V1 && v->version != CUZK_SNARKPACK_V2)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_version: %d is not SnarkPack v1 (1) or v2 (2)",
                         (int)v->version);
    if (v->num_sectors == 0) return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors is empty");
    if (cuzk_fil_agg_is_ni(v) && v->num_sectors > CUZK_FIL_NI_AGG_MAX_SECTORS)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors: %zu NI-PoRep sectors; FIP-0092 "
                         "aggregates 1 to %d (rust-fil-proofs FIP92_MAX_NI_POREP_AGGREGATION_PROOFS)",
                         v->num_sectors, CUZK_FIL_NI_AGG_MAX_SECTORS);
    if (max_sectors && v->num_sectors > max_sectors)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors: %zu sectors of %s, the aggregation "
                         "SRS serves at most %zu", v->num_sectors, sp->name, max_sectors);
    return CUZK_OK;
}

int cuzk_fil_agg_request_check(const cuzk_fil_agg_request *r, size_t max_sectors, char *err, size_t err_len)
{
    uint32_t parts = 0;
    int rc = agg_shape_check(r, max_sectors, &parts, err, err_len);
    for (size_t i = 0; !rc && i < r->v.num_sectors; i++) {
        const cuzk_fil_agg_sector *x = &r->v.sectors[i];
        for (size_t j = 0; j < i && !rc; j++)
            if (r->v.sectors[j].sector_number == x->sector_number)
                rc = cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate_sectors[%zu].sector_number %llu is "
                               "aggregate_sectors[%zu]'s too", i, (unsigned long long)x->sector_number, j);
        if (!rc) rc = agg_comm_check(x->comm_r, i, "comm_r", err, err_len);
        if (!rc) rc = agg_comm_check(x->comm_d, i, "comm_d", err, err_len);
        if (!rc) rc = agg_proof_check(r, i, parts, err, err_len);
    }
    return rc;
}

size_t cuzk_fil_agg_max_sectors(uint64_t registered_proof, const cuzk_snarkpack_srs *srs)
{
    cuzk_fil_agg_values v = {.registered_proof = registered_proof};
    uint32_t parts;
    size_t ni;
    char e[160];
    if (cuzk_fil_agg_shape(&v, &parts, &ni, e, sizeof e) || !parts) return 0;
    /* sectors x parts proofs pad to the next power of two (2 at least): it must not pass the SRS's */
    return cuzk_snarkpack_srs_max_proofs(srs) / parts;
}
