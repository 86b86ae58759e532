/*
 * AGGREGATE_SEAL requests: SubmitProofRequest's aggregation fields (registered_proof, the
 * prover, aggregate_version, aggregate_sectors) as the aggregate-seal kind takes them
 * (cuzk_fil_agg_request's encoding, cuzk/kinds/fil_aggregate.h). What the wire alone decides is
 * checked here, naming the field as the client sent it; the kind checks the rest at submit
 * (proof lengths and points, commitments, the SRS's limit).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_aggregate.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/v1/proving.pb-c.h"
#include "server/grpc_adapter.h"
#include "server/service.h"

/* The prover: prover_id's 32 bytes, or miner_id's (filecoin-ffi's toProverID); both must agree. */
static int agg_prover(const Cuzk__V1__SubmitProofRequest *q, uint8_t out[32], char *why, size_t whylen)
{
    if (!q->prover_id.len) {
        cuzk_fil_prover_id(out, q->miner_id);
        return RPC_OK;
    }
    if (q->prover_id.len != 32)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "prover_id is %zu bytes, not 32", q->prover_id.len);
    memcpy(out, q->prover_id.data, 32);
    uint64_t m = cuzk_fil_prover_miner(out);
    if (q->miner_id && m != q->miner_id)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "prover_id is miner %llu's, miner_id says %llu",
                         (unsigned long long)m, (unsigned long long)q->miner_id);
    return RPC_OK;
}

/* One 32-byte value of sectors[i] (ticket, seed). */
static int agg_value32(uint8_t out[32], const ProtobufCBinaryData *b, size_t i, const char *name, char *why,
                       size_t whylen)
{
    if (b->len != 32)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "aggregate_sectors[%zu].%s is %zu bytes, not 32", i, name,
                         b->len);
    memcpy(out, b->data, 32);
    return RPC_OK;
}

/* sectors[i]'s values into x (its proof stays in q). */
static int agg_sector(const Cuzk__V1__SubmitProofRequest *q, size_t i, cuzk_fil_agg_sector *x, char *why,
                      size_t whylen)
{
    const Cuzk__V1__AggregateSector *s = q->aggregate_sectors[i];
    char name[48], e[256];
    if (s->registered_proof && s->registered_proof != q->registered_proof)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "aggregate_sectors[%zu].registered_proof %llu differs from "
                         "the request's %llu: one aggregate holds sectors of one seal proof", i,
                         (unsigned long long)s->registered_proof, (unsigned long long)q->registered_proof);
    x->sector_number = s->sector_number;
    snprintf(name, sizeof name, "aggregate_sectors[%zu].comm_r", i);
    if (cuzk_fil_commitment(x->comm_r, s->comm_r.data, s->comm_r.len, CUZK_FIL_COMM_SEALED, name, e, sizeof e))
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "%s", e);
    snprintf(name, sizeof name, "aggregate_sectors[%zu].comm_d", i);
    if (cuzk_fil_commitment(x->comm_d, s->comm_d.data, s->comm_d.len, CUZK_FIL_COMM_UNSEALED, name, e, sizeof e))
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "%s", e);
    int code = agg_value32(x->ticket, &s->ticket, i, "ticket", why, whylen);
    if (code == RPC_OK) code = agg_value32(x->seed, &s->seed, i, "seed", why, whylen);
    if (code == RPC_OK && !s->proof.len)
        code = cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "aggregate_sectors[%zu].proof is empty (the sector's C2 "
                         "output)", i);
    return code;
}

/* The request-wide fields: version, no vanilla proofs, a sector size that is the proof's. */
static int agg_head(const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_agg_values *v, char *why, size_t whylen)
{
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(q->registered_proof);
    if (!sp)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "registered_proof %llu is not a seal proof",
                         (unsigned long long)q->registered_proof);
    if (q->sector_size && q->sector_size != sp->sector_size)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "sector_size %llu is not %s's (%llu)",
                         (unsigned long long)q->sector_size, sp->name, (unsigned long long)sp->sector_size);
    if (q->aggregate_version != CUZK__V1__AGGREGATE_VERSION__SNARKPACK_V1 &&
        q->aggregate_version != CUZK__V1__AGGREGATE_VERSION__SNARKPACK_V2)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "aggregate_version %d: SNARKPACK_V1 (1) or SNARKPACK_V2 "
                         "(2)", (int)q->aggregate_version);
    if (q->vanilla_proof.len || q->n_vanilla_proofs)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "AGGREGATE_SEAL takes its proofs in aggregate_sectors"
                         "[].proof, not vanilla_proof(s)");
    if (!q->n_aggregate_sectors)
        return cuzk_errf(why, whylen, RPC_INVALID_ARGUMENT, "aggregate_sectors is empty: nothing to aggregate");
    v->registered_proof = q->registered_proof;
    v->version = q->aggregate_version == CUZK__V1__AGGREGATE_VERSION__SNARKPACK_V1 ? CUZK_SNARKPACK_V1
                                                                                    : CUZK_SNARKPACK_V2;
    v->num_sectors = q->n_aggregate_sectors;
    return agg_prover(q, v->prover_id, why, whylen);
}

int service_aggregate_inputs(const Cuzk__V1__SubmitProofRequest *q, uint8_t **inputs, size_t *len, char *why,
                             size_t whylen)
{
    size_t n = q->n_aggregate_sectors;
    cuzk_fil_agg_sector *x = calloc(n ? n : 1, sizeof *x);
    const uint8_t **proofs = calloc(n ? n : 1, sizeof *proofs);
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    cuzk_fil_agg_request r = {.v.sectors = x, .proofs = proofs, .proof_len = lens};
    int code = x && proofs && lens ? agg_head(q, &r.v, why, whylen)
                                   : cuzk_errf(why, whylen, RPC_RESOURCE_EXHAUSTED, "no memory for the request");
    for (size_t i = 0; code == RPC_OK && i < n; i++) {
        code = agg_sector(q, i, &x[i], why, whylen);
        proofs[i] = q->aggregate_sectors[i]->proof.data, lens[i] = q->aggregate_sectors[i]->proof.len;
    }
    *inputs = NULL;
    if (code == RPC_OK) {
        *len = cuzk_fil_agg_request_size(&r);
        if ((*inputs = malloc(*len))) cuzk_fil_agg_request_encode(&r, *inputs);
        else code = cuzk_errf(why, whylen, RPC_RESOURCE_EXHAUSTED, "no memory for the request");
    }
    free(x), free(proofs), free(lens);
    return code;
}
