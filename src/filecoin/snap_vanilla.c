/* SnapDeals vanilla partition proofs: parse, encode, public inputs, jobs, generation (fil_vanilla.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "filecoin_internal.h"
#include "vanilla_internal.h"

typedef struct snap_shape {
    cuzk_update_config cfg;
    vshape r, d;
    size_t per; /* path values per challenge: r_old, r_new, d_new */
} snap_shape;

static int snap_shape_for(snap_shape *s, uint64_t update_proof_id)
{
    uint64_t size = cuzk_fil_update_proof_sector_size(update_proof_id);
    if (!size || cuzk_update_config_for(&s->cfg, size) || vshape_tree_r(&s->r, size)) return CUZK_ERR_INVALID_ARG;
    cuzk_tree_shape d = {CUZK_TREE_SHA256, 2, 0, 0};
    if (vshape_init(&s->d, &d, s->cfg.nodes)) return CUZK_ERR_INVALID_ARG;
    s->per = 2 * s->r.path_len + s->d.path_len;
    return 0;
}

/* storage-proofs-update h_default: hs[3] (10 for production sizes, 1 below 64 KiB) */
unsigned cuzk_fil_snap_default_h(const cuzk_update_config *cfg) { return cfg->hs[3]; }

void cuzk_fil_snap_vanilla_free(cuzk_fil_snap_vanilla *v)
{
    free(v->apex_leaves);
    free(v->ch);
    free(v->store);
    memset(v, 0, sizeof *v);
}

static int snap_alloc(cuzk_fil_snap_vanilla *v, const snap_shape *s)
{
    v->num_apex = s->cfg.apex_leaves;
    v->num_challenges = s->cfg.challenges;
    v->apex_leaves = malloc(sizeof(cuzk_fr) * v->num_apex);
    v->ch = calloc(v->num_challenges, sizeof *v->ch);
    v->store = malloc(sizeof(cuzk_fr) * s->per * v->num_challenges);
    if (!v->apex_leaves || !v->ch || !v->store) return CUZK_ERR_NO_MEMORY;
    for (unsigned i = 0; i < v->num_challenges; i++) {
        cuzk_fr *p = v->store + s->per * i;
        v->ch[i].r_old.path = p;
        v->ch[i].r_new.path = p + s->r.path_len;
        v->ch[i].d_new.path = p + 2 * s->r.path_len;
    }
    return 0;
}

int cuzk_fil_snap_vanilla_alloc(cuzk_fil_snap_vanilla *v, uint64_t update_proof_id)
{
    memset(v, 0, sizeof *v);
    snap_shape s;
    if (snap_shape_for(&s, update_proof_id)) return CUZK_ERR_INVALID_ARG;
    int rc = snap_alloc(v, &s);
    if (rc) cuzk_fil_snap_vanilla_free(v);
    return rc;
}

int cuzk_fil_snap_vanilla_parse(cuzk_fil_snap_vanilla *out, uint64_t update_proof_id, const uint8_t *buf,
                                size_t len, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    snap_shape s;
    if (snap_shape_for(&s, update_proof_id)) {
        snprintf(err, err_len, "registered_proof: %llu is not a SnapDeals update proof",
                 (unsigned long long)update_proof_id);
        return CUZK_ERR_INVALID_ARG;
    }
    if (snap_alloc(out, &s)) {
        cuzk_fil_snap_vanilla_free(out);
        snprintf(err, err_len, "out of memory");
        return CUZK_ERR_NO_MEMORY;
    }
    vrd r = {buf, len, 0, 0, err, err_len};
    char f[96];
    vrd_fr(&r, &out->comm_c, "comm_c");
    if (vrd_len(&r, out->num_apex, "apex_leafs"))
        for (unsigned i = 0; i < out->num_apex; i++) {
            snprintf(f, sizeof f, "apex_leafs[%u]", i);
            vrd_fr(&r, &out->apex_leaves[i], f);
        }
    if (vrd_len(&r, out->num_challenges, "challenge_proofs"))
        for (unsigned i = 0; i < out->num_challenges && !r.rc; i++) {
            snprintf(f, sizeof f, "challenge_proofs[%u].proof_r_old", i);
            vrd_mproof(&r, &s.r, &out->ch[i].r_old, f);
            snprintf(f, sizeof f, "challenge_proofs[%u].proof_d_new", i);
            vrd_mproof(&r, &s.d, &out->ch[i].d_new, f);
            snprintf(f, sizeof f, "challenge_proofs[%u].proof_r_new", i);
            vrd_mproof(&r, &s.r, &out->ch[i].r_new, f);
        }
    vrd_end(&r);
    if (r.rc) cuzk_fil_snap_vanilla_free(out);
    return r.rc;
}

int cuzk_fil_snap_vanilla_encode(uint8_t **out, size_t *len, uint64_t update_proof_id, const cuzk_fil_snap_vanilla *v)
{
    snap_shape s;
    if (snap_shape_for(&s, update_proof_id)) return CUZK_ERR_INVALID_ARG;
    vwr w = {0};
    vwr_fr(&w, &v->comm_c);
    vwr_u64(&w, v->num_apex);
    for (unsigned i = 0; i < v->num_apex; i++) vwr_fr(&w, &v->apex_leaves[i]);
    vwr_u64(&w, v->num_challenges);
    for (unsigned i = 0; i < v->num_challenges; i++) {
        vwr_mproof(&w, &s.r, &v->ch[i].r_old);
        vwr_mproof(&w, &s.d, &v->ch[i].d_new);
        vwr_mproof(&w, &s.r, &v->ch[i].r_new);
    }
    return vwr_finish(&w, out, len);
}

int cuzk_fil_snap_public_inputs(cuzk_fr out[4], uint64_t update_proof_id, uint32_t k, const cuzk_fr *comm_r_old,
                                const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new)
{
    snap_shape s;
    if (snap_shape_for(&s, update_proof_id) || k >= s.cfg.partitions) return CUZK_ERR_INVALID_ARG;
    int rc = cuzk_update_k_and_h_select(&out[0], &s.cfg, k, cuzk_fil_snap_default_h(&s.cfg));
    out[1] = *comm_r_old;
    out[2] = *comm_d_new;
    out[3] = *comm_r_new;
    return rc;
}

void cuzk_fil_snap_job_free(cuzk_fil_snap_job *job)
{
    cuzk_fil_snap_vanilla_free(&job->v);
    free(job->ch);
    memset(job, 0, sizeof *job);
}

/* The job freed, then rc: `return snap_job_freed(job, cuzk_errf(err, err_len, CODE, ...))`
 * writes the message first, while what it names is still held. */
static int snap_job_freed(cuzk_fil_snap_job *job, int rc)
{
    cuzk_fil_snap_job_free(job);
    return rc;
}

/* The tree D node at height h on the path of m. */
static int d_node(cuzk_fr *out, const cuzk_fil_mproof *m, unsigned h)
{
    cuzk_fr cur = m->leaf, g[2];
    uint64_t c = m->index;
    for (unsigned l = 0; l < h; l++, c >>= 1) {
        g[c & 1] = cur;
        g[!(c & 1)] = m->path[l];
        int rc = cuzk_tree_hash_node(&cur, CUZK_TREE_SHA256, g, 2);
        if (rc) return rc;
    }
    *out = cur;
    return 0;
}

int cuzk_fil_snap_prepare(cuzk_fil_snap_job *job, uint64_t update_proof_id, uint32_t k,
                          const uint8_t comm_r_old[32], const uint8_t comm_r_new[32], const uint8_t comm_d_new[32],
                          const uint8_t *blob, size_t len, char *err, size_t err_len)
{
    memset(job, 0, sizeof *job);
    snap_shape s;
    if (snap_shape_for(&s, update_proof_id))
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "registered_proof: %llu is not a SnapDeals proof",
                                             (unsigned long long)update_proof_id));
    job->cfg = s.cfg;
    const cuzk_update_config *cfg = &s.cfg;
    if (k >= cfg->partitions)
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "partition_index: %u, the sector has %u partitions", k, cfg->partitions));
    cuzk_update_witness *w = &job->w;
    const uint8_t *cm[3] = {comm_r_old, comm_r_new, comm_d_new};
    cuzk_fr *cv[3] = {&w->comm_r_old, &w->comm_r_new, &w->comm_d_new};
    static const char *const cn[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; i++)
        if (cuzk_fr_from_le32(cv[i], cm[i]) != 0)
            return snap_job_freed(
                job, cuzk_errf(err, err_len, CUZK_ERR_NONCANONICAL, "%s: not a canonical field element", cn[i]));
    char e[200];
    int rc = cuzk_fil_snap_vanilla_parse(&job->v, update_proof_id, blob, len, e, sizeof e);
    if (rc) return snap_job_freed(job, cuzk_errf(err, err_len, rc, "vanilla_proofs[%u]: %s", k, e));
    const cuzk_fil_snap_vanilla *v = &job->v;
    w->k = k;
    w->h = cuzk_fil_snap_default_h(cfg);
    w->comm_c = v->comm_c;
    w->root_r_old = v->ch[0].r_old.root;
    w->root_r_new = v->ch[0].r_new.root;
    w->apex_leaves = v->apex_leaves;
    cuzk_fr t;
    cuzk_fil_comm_r(&t, &w->comm_c, &w->root_r_old);
    if (!cuzk_fr_eq(&t, &w->comm_r_old))
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                             "comm_r_old: not H(comm_c, tree R old root) of vanilla_proofs[%u]", k));
    cuzk_fil_comm_r(&t, &w->comm_c, &w->root_r_new);
    if (!cuzk_fr_eq(&t, &w->comm_r_new))
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                             "comm_r_new: not H(comm_c, tree R new root) of vanilla_proofs[%u]", k));
    uint64_t chs[128];
    if (cfg->challenges > 128 || cuzk_update_challenges(chs, cfg, &w->comm_r_new, k))
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INTERNAL, "challenges"));
    job->ch = calloc(cfg->challenges, sizeof *job->ch);
    if (!job->ch) return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "out of memory"));
    cuzk_fr phi;
    cuzk_update_phi(&phi, &w->comm_d_new, &w->comm_r_old);
    unsigned ah = cfg->apex_height;
    for (unsigned i = 0; i < cfg->challenges; i++) {
        const cuzk_fil_snap_challenge *c = &v->ch[i];
        const cuzk_fil_mproof *m[3] = {&c->r_old, &c->d_new, &c->r_new};
        static const char *const mn[3] = {"proof_r_old", "proof_d_new", "proof_r_new"};
        const cuzk_fr *roots[3] = {&w->root_r_old, &w->comm_d_new, &w->root_r_new};
        for (int j = 0; j < 3; j++) {
            if (m[j]->index != chs[i])
                return snap_job_freed(
                    job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                   "vanilla_proofs[%u].challenge_proofs[%u].%s: opens leaf %llu, the challenge is %llu",
                                   k, i, mn[j], (unsigned long long)m[j]->index, (unsigned long long)chs[i]));
            if (!cuzk_fr_eq(&m[j]->root, roots[j]))
                return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                                     "vanilla_proofs[%u].challenge_proofs[%u].%s: root is not %s", k, i,
                                                     mn[j], j == 1 ? "comm_d_new" : "the tree's root in challenge 0"));
            if (!mproof_ok(j == 1 ? &s.d : &s.r, m[j]))
                return snap_job_freed(
                    job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                   "vanilla_proofs[%u].challenge_proofs[%u].%s: path does not hash to its root", k, i,
                                   mn[j]));
        }
        cuzk_fr rho, enc;
        cuzk_update_rho(&rho, cfg, &phi, chs[i], w->h);
        cuzk_fr_mul(&enc, &c->d_new.leaf, &rho);
        cuzk_fr_add(&enc, &enc, &c->r_old.leaf);
        if (!cuzk_fr_eq(&enc, &c->r_new.leaf))
            return snap_job_freed(
                job,
                cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                          "vanilla_proofs[%u].challenge_proofs[%u]: leaf_r_new is not leaf_r_old + leaf_d_new * rho", k,
                          i));
        uint64_t ai = (chs[i] >> ah) - (uint64_t)k * cfg->apex_leaves;
        cuzk_fr node;
        if (ai >= cfg->apex_leaves || d_node(&node, &c->d_new, ah) || !cuzk_fr_eq(&node, &v->apex_leaves[ai]))
            return snap_job_freed(
                job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                               "vanilla_proofs[%u].challenge_proofs[%u].proof_d_new: does not pass apex_leafs[%llu]", k,
                               i, (unsigned long long)ai));
        job->ch[i] = (cuzk_update_challenge){c->r_old.leaf, c->d_new.leaf, c->r_old.path, c->r_new.path, c->d_new.path};
    }
    w->challenges = job->ch;
    rc = cuzk_fil_snap_public_inputs(job->inputs, update_proof_id, k, &w->comm_r_old, &w->comm_d_new, &w->comm_r_new);
    if (rc) return snap_job_freed(job, cuzk_errf(err, err_len, rc, "public inputs"));
    return 0;
}

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

unsigned cuzk_fil_snap_partitions(uint64_t update_proof_id)
{
    snap_shape s;
    return snap_shape_for(&s, update_proof_id) ? 0 : s.cfg.partitions;
}

int cuzk_fil_snap_prepare_request(cuzk_fil_snap_job *job, const cuzk_fil_request *r, uint32_t k, char *err,
                                  size_t err_len)
{
    memset(job, 0, sizeof *job);
    const uint32_t need = CUZK_FIL_REQ_COMM_R_OLD | CUZK_FIL_REQ_COMM_R_NEW | CUZK_FIL_REQ_COMM_D_NEW;
    unsigned parts = cuzk_fil_snap_partitions(r->registered_proof);
    if (r->kind != CUZK_FIL_KIND_SNAP)
        return snap_job_freed(
            job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "proof_kind: %d is not SnapDeals", (int)r->kind));
    if ((r->present & need) != need)
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%s: missing",
                                             !(r->present & CUZK_FIL_REQ_COMM_R_OLD)   ? "comm_r_old"
                                             : !(r->present & CUZK_FIL_REQ_COMM_R_NEW) ? "comm_r_new"
                                                                                       : "comm_d_new"));
    if (!parts)
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "registered_proof: %llu is not a SnapDeals proof",
                                             (unsigned long long)r->registered_proof));
    if (r->sector_size && r->sector_size != cuzk_fil_update_proof_sector_size(r->registered_proof))
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "sector_size: %llu does not match registered_proof",
                                             (unsigned long long)r->sector_size));
    if (r->num_blobs != parts)
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "vanilla_proofs: %zu, want one per partition (%u)", r->num_blobs, parts));
    if (k >= parts)
        return snap_job_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "partition %u of %u", k, parts));
    return cuzk_fil_snap_prepare(job, r->registered_proof, k, r->comm_r_old, r->comm_r_new, r->comm_d_new,
                                 r->blobs[k].data, r->blobs[k].len, err, err_len);
}
