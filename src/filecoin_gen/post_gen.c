/* PoSt vanilla proofs made for tests: from a sector directory, or synthetic for sizes that
 * take hours to seal (fil_gen.h). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin_gen/fil_gen.h"
#include "gen_internal.h"

int cuzk_fil_post_vanilla_generate(uint8_t **out, size_t *len, uint64_t post_proof_id, const cuzk_fil_sector *sec,
                                   const uint8_t randomness[32], uint64_t sector_index)
{
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(post_proof_id);
    cuzk_tree_shape tree_r;
    if (!p || cuzk_fil_tree_r(&tree_r, p->sector_size) || sec->sector_size != p->sector_size)
        return CUZK_ERR_INVALID_ARG;
    cuzk_merkle_tree t;
    int rc = cuzk_merkle_tree_build(&t, &tree_r, sec->replica, sec->nodes);
    if (rc) return rc;
    unsigned nc = cuzk_fil_post_vanilla_challenges(p);
    cuzk_fil_post_vanilla v;
    uint64_t *ch = malloc(sizeof(uint64_t) * nc);
    rc = cuzk_fil_post_vanilla_alloc(&v, post_proof_id);
    if (!rc && !ch) rc = CUZK_ERR_NO_MEMORY;
    if (!rc) {
        v.sector_id = sec->sector_id;
        cuzk_fr_from_le32(&v.comm_c, sec->comm_c);
        v.comm_r_last = t.root;
        cuzk_fil_comm_r(&v.comm_r, &v.comm_c, &v.comm_r_last);
        cuzk_fil_post_sector_challenges(ch, p, randomness, sec->sector_id, sector_index);
        for (unsigned i = 0; i < nc && !rc; i++) rc = mproof_from_tree(&v.proofs[i], &t, sec->replica, ch[i]);
    }
    if (!rc) rc = cuzk_fil_post_vanilla_encode(out, len, post_proof_id, &v);
    free(ch);
    cuzk_fil_post_vanilla_free(&v);
    cuzk_merkle_tree_free(&t);
    return rc;
}

typedef struct post_synth {
    uint64_t seed, sector_id;
} post_synth;

static void post_fill(void *ctx, size_t level, uint64_t index, cuzk_fr *out)
{
    const post_synth *s = ctx;
    fil_det_fr(out, "cuzk-synth-post node", s->seed, s->sector_id, (uint64_t)level << 56 ^ index);
}

int cuzk_fil_post_vanilla_synthetic(uint8_t **out, size_t *len, uint64_t post_proof_id, uint64_t sector_id,
                                    const uint8_t randomness[32], uint64_t sector_index, uint64_t seed,
                                    uint8_t comm_r[32])
{
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(post_proof_id);
    cuzk_tree_shape tree_r;
    if (!p || cuzk_fil_tree_r(&tree_r, p->sector_size)) return CUZK_ERR_INVALID_ARG;
    const uint64_t nodes = p->sector_size / 32;
    const unsigned nc = cuzk_fil_post_vanilla_challenges(p);
    post_synth ps = {seed, sector_id};
    cuzk_fil_post_vanilla v;
    uint64_t *ch = malloc(sizeof(uint64_t) * nc), *idx = malloc(sizeof(uint64_t) * nc);
    cuzk_fr *val = malloc(sizeof(cuzk_fr) * nc);
    fil_sparse t = {0};
    int rc = cuzk_fil_post_vanilla_alloc(&v, post_proof_id);
    if (!rc && (!ch || !idx || !val)) rc = CUZK_ERR_NO_MEMORY;
    if (!rc) {
        v.sector_id = sector_id;
        /* the opened leaves, sorted and unique (two challenges may hit one leaf) */
        cuzk_fil_post_sector_challenges(ch, p, randomness, sector_id, sector_index);
        memcpy(idx, ch, sizeof(uint64_t) * nc);
        qsort(idx, nc, sizeof(uint64_t), fil_u64cmp);
        size_t u = 0;
        for (unsigned i = 0; i < nc; i++)
            if (!u || idx[u - 1] != idx[i]) idx[u++] = idx[i];
        for (size_t i = 0; i < u; i++) fil_det_fr(&val[i], "cuzk-synth-post leaf", seed, sector_id, idx[i]);
        rc = fil_sparse_build(&t, &tree_r, nodes, idx, val, u, post_fill, &ps);
        if (!rc) {
            fil_det_fr(&v.comm_c, "cuzk-synth-post comm_c", seed, sector_id, 0);
            v.comm_r_last = t.root;
            cuzk_fil_comm_r(&v.comm_r, &v.comm_c, &v.comm_r_last);
            for (unsigned i = 0; i < nc && !rc; i++) {
                cuzk_fil_mproof *m = &v.proofs[i];
                m->index = ch[i];
                m->root = t.root;
                m->leaf = val[fil_u64_find(idx, u, ch[i])];
                rc = fil_sparse_path(&t, ch[i], m->path);
            }
        }
    }
    if (!rc) rc = cuzk_fil_post_vanilla_encode(out, len, post_proof_id, &v);
    if (!rc && comm_r) cuzk_fr_to_le32(comm_r, &v.comm_r);
    free(ch), free(idx), free(val);
    fil_sparse_free(&t);
    cuzk_fil_post_vanilla_free(&v);
    return rc;
}
