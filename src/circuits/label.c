/* StackedDrg labeling and encoding: the native label and its circuit
 * (storage-proofs-porep create_label.rs, storage-proofs-core encode.rs). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/util/sha256.h"

void cuzk_porep_expand_parents(cuzk_fr out[CUZK_POREP_TOTAL_PARENTS], uint32_t layer,
                               const cuzk_fr drg[CUZK_POREP_BASE_DEGREE],
                               const cuzk_fr exp[CUZK_POREP_EXP_DEGREE])
{
    const unsigned nb = CUZK_POREP_BASE_DEGREE, ne = CUZK_POREP_EXP_DEGREE;
    cuzk_fr p[CUZK_POREP_BASE_DEGREE + CUZK_POREP_EXP_DEGREE];
    unsigned n = 0;
    for (unsigned i = 0; i < nb; i++) p[n++] = drg[i];
    if (layer > 1)
        for (unsigned i = 0; i < ne; i++) p[n++] = exp[i];
    for (unsigned i = 0; i < CUZK_POREP_TOTAL_PARENTS; i++) out[i] = p[i % n];
}

int cuzk_porep_label(cuzk_fr *out, const cuzk_fr *replica_id, uint32_t layer, uint64_t node,
                     const cuzk_fr parents[CUZK_POREP_TOTAL_PARENTS])
{
    uint8_t buf[(2 + CUZK_POREP_TOTAL_PARENTS) * 32], md[32];
    memset(buf, 0, sizeof buf);
    cuzk_fr_to_le32(buf, replica_id);
    for (int i = 0; i < 4; i++) buf[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) buf[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    for (unsigned i = 0; i < CUZK_POREP_TOTAL_PARENTS; i++) cuzk_fr_to_le32(&buf[64 + 32 * i], &parents[i]);
    if (cuzk_sha256_hash(md, buf, sizeof buf)) return CUZK_ERR_INTERNAL;
    md[31] &= 0x3f;
    return cuzk_fr_from_le32(out, md);
}

cuzk_num cuzk_porep_label_circuit(cuzk_cs *cs, const cuzk_bool replica_id[256],
                                  const cuzk_bool *const parents[CUZK_POREP_TOTAL_PARENTS], uint32_t layer,
                                  const cuzk_bool node_le[64])
{
    const size_t total = (2 + CUZK_POREP_TOTAL_PARENTS) * 256;
    cuzk_bool *m = malloc(sizeof(cuzk_bool) * total), digest[256];
    if (!m) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return (cuzk_num){0, cuzk_fr_zero};
    }
    size_t k = 0;
    for (unsigned i = 0; i < 256; i++) m[k++] = replica_id[i];
    for (int i = 31; i >= 0; i--) m[k++] = cuzk_bool_const((layer >> i) & 1);
    for (int i = 63; i >= 0; i--) m[k++] = node_le[i];
    while (k < 512) m[k++] = cuzk_bool_const(false);
    for (unsigned p = 0; p < CUZK_POREP_TOTAL_PARENTS; p++)
        for (unsigned i = 0; i < 256; i++) m[k++] = parents[p][i];
    cuzk_cs_push_ns(cs, "hash");
    cuzk_sha256(cs, m, total, digest);
    cuzk_cs_pop_ns(cs);
    free(m);
    cuzk_cs_push_ns(cs, "result_num");
    cuzk_num r = cuzk_pack_digest_le(cs, digest);
    cuzk_cs_pop_ns(cs);
    return r;
}

cuzk_num cuzk_porep_encode_circuit(cuzk_cs *cs, const cuzk_num *key, const cuzk_num *value)
{
    /* constraint::add is AllocatedNum addition: one allocation, (key + value)·ONE = sum */
    cuzk_cs_push_ns(cs, "encode_add");
    cuzk_num r = cuzk_num_add(cs, key, value);
    cuzk_cs_pop_ns(cs);
    return r;
}
