/* SnapDeals vanilla partition proofs made for tests: an update of a sector directory, or a
 * synthetic one for sizes whose sectors take hours to seal (fil_gen.h). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin_gen/fil_gen.h"
#include "gen_internal.h"

/* Tree D: binary SHA-256 over the new data. */
static const cuzk_tree_shape TREE_D = {CUZK_TREE_SHA256, 2, 0, 0};

/* Where a generator's partition proofs come from: open fills m (leaf, root, index and the path
 * in m's storage) at leaf of tree 0 (R old), 1 (D new) or 2 (R new); apex writes partition k's
 * apex leaves (tree D nodes at apex_height). */
typedef struct snap_source {
    int (*open)(void *ctx, int tree, uint64_t leaf, cuzk_fil_mproof *m);
    int (*apex)(void *ctx, unsigned k, cuzk_fr *out);
    void *ctx;
} snap_source;

typedef void (*snap_progress)(void *ctx, unsigned done, unsigned total);

/* Every partition's vanilla proof into *blobs / *lens (malloc'd, *n = partitions; none left
 * on failure), the challenges drawn from comm_r_new as prepare draws them. */
static int snap_partitions(uint8_t ***blobs, size_t **lens, size_t *n, const cuzk_update_config *cfg, uint64_t id,
                           const cuzk_fr *comm_c, const cuzk_fr *comm_r_new, const snap_source *src,
                           snap_progress progress, void *pctx)
{
    cuzk_fil_snap_vanilla v = {0};
    *n = cfg->partitions;
    *blobs = calloc(cfg->partitions, sizeof **blobs);
    *lens = calloc(cfg->partitions, sizeof **lens);
    int rc = !*blobs || !*lens           ? CUZK_ERR_NO_MEMORY
             : cfg->challenges > 128     ? CUZK_ERR_INTERNAL
                                         : cuzk_fil_snap_vanilla_alloc(&v, id);
    for (unsigned k = 0; !rc && k < cfg->partitions; k++) {
        uint64_t chs[128];
        v.comm_c = *comm_c;
        rc = cuzk_update_challenges(chs, cfg, comm_r_new, k);
        if (!rc) rc = src->apex(src->ctx, k, v.apex_leaves);
        for (unsigned i = 0; !rc && i < cfg->challenges; i++) {
            rc = src->open(src->ctx, 0, chs[i], &v.ch[i].r_old);
            if (!rc) rc = src->open(src->ctx, 1, chs[i], &v.ch[i].d_new);
            if (!rc) rc = src->open(src->ctx, 2, chs[i], &v.ch[i].r_new);
        }
        if (!rc) rc = cuzk_fil_snap_vanilla_encode(&(*blobs)[k], &(*lens)[k], id, &v);
        if (!rc && progress) progress(pctx, k + 1, cfg->partitions);
    }
    cuzk_fil_snap_vanilla_free(&v);
    if (rc) {
        for (size_t k = 0; *blobs && k < *n; k++) free((*blobs)[k]);
        free(*blobs);
        free(*lens);
        *blobs = NULL;
        *lens = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- from a sector: whole trees in memory ---- */

typedef struct snap_full {
    const cuzk_merkle_tree *t[3];
    const cuzk_fr *leaves[3];
    const cuzk_fr *apex_row; /* tree D row apex_height (layers stored leaves first) */
    unsigned apex_leaves;
} snap_full;

static int full_open(void *ctx, int tree, uint64_t leaf, cuzk_fil_mproof *m)
{
    const snap_full *f = ctx;
    return mproof_from_tree(m, f->t[tree], f->leaves[tree], leaf);
}

static int full_apex(void *ctx, unsigned k, cuzk_fr *out)
{
    const snap_full *f = ctx;
    memcpy(out, &f->apex_row[(size_t)k * f->apex_leaves], sizeof(cuzk_fr) * f->apex_leaves);
    return 0;
}

int cuzk_fil_snap_generate(cuzk_fil_sector *out_new, uint8_t ***blobs, size_t **lens, size_t *n,
                           const cuzk_fil_sector *old, cuzk_rng *rng,
                           void (*progress)(void *ctx, unsigned done, unsigned total), void *ctx)
{
    *blobs = NULL;
    *lens = NULL;
    *n = 0;
    int64_t id = cuzk_fil_update_proof_for_size(old->sector_size);
    cuzk_update_config c;
    if (id < 0 || cuzk_update_config_for(&c, old->sector_size) || old->nodes != c.nodes) return CUZK_ERR_INVALID_ARG;
    const cuzk_update_config *cfg = &c;
    uint64_t N = cfg->nodes;
    memset(out_new, 0, sizeof *out_new);
    *out_new = *old;
    out_new->data = malloc(sizeof(cuzk_fr) * N);
    out_new->replica = malloc(sizeof(cuzk_fr) * N);
    cuzk_merkle_tree td = {0}, tro = {0}, trn = {0};
    int rc = out_new->data && out_new->replica ? 0 : CUZK_ERR_NO_MEMORY;
    cuzk_fr comm_c, comm_r_old, comm_d_new, comm_r_new, phi;
    if (!rc) {
        for (uint64_t i = 0; i < N; i++) cuzk_fr_random(&out_new->data[i], rng);
        rc = cuzk_merkle_tree_build(&td, &TREE_D, out_new->data, N);
    }
    if (!rc) rc = cuzk_merkle_tree_build(&tro, &cfg->tree, old->replica, N);
    if (!rc) {
        cuzk_fr_from_le32(&comm_c, old->comm_c);
        cuzk_fil_comm_r(&comm_r_old, &comm_c, &tro.root);
        comm_d_new = td.root;
        cuzk_update_phi(&phi, &comm_d_new, &comm_r_old);
        /* rho depends on the node's top h bits only: 2^h values (rhos() upstream) */
        unsigned h = cuzk_fil_snap_default_h(cfg), shift = cfg->challenge_bits - h;
        cuzk_fr *rhos = malloc(sizeof(cuzk_fr) << h);
        if (!rhos) rc = CUZK_ERR_NO_MEMORY;
        for (uint64_t hi = 0; !rc && hi < (1ull << h); hi++) cuzk_update_rho(&rhos[hi], cfg, &phi, hi << shift, h);
        for (uint64_t i = 0; !rc && i < N; i++) {
            cuzk_fr_mul(&out_new->replica[i], &out_new->data[i], &rhos[i >> shift]);
            cuzk_fr_add(&out_new->replica[i], &out_new->replica[i], &old->replica[i]);
        }
        free(rhos);
        if (!rc) rc = cuzk_merkle_tree_build(&trn, &cfg->tree, out_new->replica, N);
    }
    if (!rc) {
        cuzk_fil_comm_r(&comm_r_new, &comm_c, &trn.root);
        cuzk_fr_to_le32(out_new->comm_d, &comm_d_new);
        cuzk_fr_to_le32(out_new->comm_r, &comm_r_new);
        cuzk_fr_to_le32(out_new->comm_r_last, &trn.root);
        size_t row = 0;
        for (unsigned l = 0; l < cfg->apex_height; l++) row += N >> l;
        snap_full f = {{&tro, &td, &trn}, {old->replica, out_new->data, out_new->replica}, &td.base[row],
                       cfg->apex_leaves};
        snap_source src = {full_open, full_apex, &f};
        rc = snap_partitions(blobs, lens, n, cfg, (uint64_t)id, &comm_c, &comm_r_new, &src, progress, ctx);
    }
    cuzk_merkle_tree_free(&td);
    cuzk_merkle_tree_free(&tro);
    cuzk_merkle_tree_free(&trn);
    if (rc) {
        free(out_new->data);
        free(out_new->replica);
        memset(out_new, 0, sizeof *out_new);
    }
    return rc;
}

/* ---- synthetic: run trees, no sector ---- */

/* log2 of the runs of equal leaves in a synthetic sector's trees (at least the 2^h rho groups):
 * every leaf distinct up to 4096 nodes (128 KiB), runs of 2^18 leaves at 32 GiB. */
#define SNAP_SYNTH_RUNS_LOG2 12

typedef struct snap_synth {
    fil_runtree rt[3]; /* R old, D new, R new */
    fil_sparse sp[3];  /* the same trees over the challenged leaves */
    unsigned apex_height, apex_leaves;
} snap_synth;

static int synth_open(void *ctx, int tree, uint64_t leaf, cuzk_fil_mproof *m)
{
    const snap_synth *y = ctx;
    m->index = leaf;
    m->root = y->rt[tree].root;
    fil_runtree_node(&y->rt[tree], 0, leaf, &m->leaf);
    return fil_sparse_path(&y->sp[tree], leaf, m->path);
}

static int synth_apex(void *ctx, unsigned k, cuzk_fr *out)
{
    const snap_synth *y = ctx;
    for (unsigned i = 0; i < y->apex_leaves; i++)
        fil_runtree_node(&y->rt[1], y->apex_height, (uint64_t)k * y->apex_leaves + i, &out[i]);
    return 0;
}

/* The sparse trees over every partition's challenged leaves, filled from the run trees. */
static int synth_sparse(snap_synth *y, const cuzk_update_config *cfg, const cuzk_fr *comm_r_new)
{
    size_t nch = (size_t)cfg->partitions * cfg->challenges, u = 0;
    uint64_t *idx = malloc(sizeof(uint64_t) * nch);
    cuzk_fr *val = malloc(sizeof(cuzk_fr) * nch);
    int rc = idx && val ? 0 : CUZK_ERR_NO_MEMORY;
    for (unsigned k = 0; !rc && k < cfg->partitions; k++)
        rc = cuzk_update_challenges(&idx[(size_t)k * cfg->challenges], cfg, comm_r_new, k);
    if (!rc) {
        qsort(idx, nch, sizeof(uint64_t), fil_u64cmp);
        for (size_t i = 0; i < nch; i++)
            if (!u || idx[u - 1] != idx[i]) idx[u++] = idx[i];
    }
    for (int t = 0; t < 3 && !rc; t++) {
        for (size_t i = 0; i < u; i++) fil_runtree_node(&y->rt[t], 0, idx[i], &val[i]);
        const cuzk_tree_shape *shape = t == 1 ? &TREE_D : &cfg->tree;
        rc = fil_sparse_build(&y->sp[t], shape, cfg->nodes, idx, val, u, fil_runtree_fill, &y->rt[t]);
        /* the opened paths rebuilt from the leaves reach the run tree's root */
        if (!rc && !cuzk_fr_eq(&y->sp[t].root, &y->rt[t].root)) rc = CUZK_ERR_INTERNAL;
    }
    free(idx);
    free(val);
    return rc;
}

int cuzk_fil_snap_synthetic(uint8_t ***blobs, size_t **lens, size_t *n, uint64_t update_proof_id,
                            uint64_t sector_id, uint64_t seed, uint8_t comm_r_old[32], uint8_t comm_d_new[32],
                            uint8_t comm_r_new[32])
{
    *blobs = NULL;
    *lens = NULL;
    *n = 0;
    uint64_t size = cuzk_fil_update_proof_sector_size(update_proof_id);
    cuzk_update_config c;
    if (!size || cuzk_update_config_for(&c, size)) return CUZK_ERR_INVALID_ARG;
    const cuzk_update_config *cfg = &c;
    const unsigned h = cuzk_fil_snap_default_h(cfg), cb = cfg->challenge_bits;
    const unsigned r = h > SNAP_SYNTH_RUNS_LOG2 ? h : cb < SNAP_SYNTH_RUNS_LOG2 ? cb : SNAP_SYNTH_RUNS_LOG2;
    const uint64_t runs = 1ull << r;
    snap_synth y = {.apex_height = cfg->apex_height, .apex_leaves = cfg->apex_leaves};
    cuzk_fr *leaf[3], comm_c, c_r_old, c_r_new, phi;
    for (int t = 0; t < 3; t++) leaf[t] = malloc(sizeof(cuzk_fr) * runs);
    int rc = leaf[0] && leaf[1] && leaf[2] ? 0 : CUZK_ERR_NO_MEMORY;
    if (!rc) {
        /* old replica and new data (fr32, as pieces are) per run, from the seed */
        fil_det_fr(&comm_c, "cuzk-synth-snap comm_c", seed, sector_id, 0);
        for (uint64_t j = 0; j < runs; j++) {
            fil_det_fr(&leaf[0][j], "cuzk-synth-snap old replica", seed, sector_id, j);
            fil_det_fr(&leaf[1][j], "cuzk-synth-snap data", seed, sector_id, j);
        }
        rc = fil_runtree_build(&y.rt[0], &cfg->tree, cfg->nodes, cb - r, leaf[0]);
    }
    if (!rc) rc = fil_runtree_build(&y.rt[1], &TREE_D, cfg->nodes, cb - r, leaf[1]);
    if (!rc) {
        /* the encoding: run j lies in rho group j >> (r - h), whose rho is its first node's */
        cuzk_fil_comm_r(&c_r_old, &comm_c, &y.rt[0].root);
        cuzk_update_phi(&phi, &y.rt[1].root, &c_r_old);
        cuzk_fr rho;
        for (uint64_t j = 0; j < runs; j++) {
            if ((j & ((1ull << (r - h)) - 1)) == 0) cuzk_update_rho(&rho, cfg, &phi, j << (cb - r), h);
            cuzk_fr_mul(&leaf[2][j], &leaf[1][j], &rho);
            cuzk_fr_add(&leaf[2][j], &leaf[2][j], &leaf[0][j]);
        }
        rc = fil_runtree_build(&y.rt[2], &cfg->tree, cfg->nodes, cb - r, leaf[2]);
    }
    if (!rc) {
        cuzk_fil_comm_r(&c_r_new, &comm_c, &y.rt[2].root);
        rc = synth_sparse(&y, cfg, &c_r_new);
    }
    if (!rc) {
        snap_source src = {synth_open, synth_apex, &y};
        rc = snap_partitions(blobs, lens, n, cfg, update_proof_id, &comm_c, &c_r_new, &src, NULL, NULL);
    }
    if (!rc) {
        cuzk_fr_to_le32(comm_r_old, &c_r_old);
        cuzk_fr_to_le32(comm_d_new, &y.rt[1].root);
        cuzk_fr_to_le32(comm_r_new, &c_r_new);
    }
    for (int t = 0; t < 3; t++) {
        free(leaf[t]);
        fil_runtree_free(&y.rt[t]);
        fil_sparse_free(&y.sp[t]);
    }
    return rc;
}
