/* SnapDeals vanilla partition proofs: parse, encode, public inputs, jobs (fil_vanilla.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
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

void cuzk_fil_snap_partition_free(cuzk_fil_snap_partition *job)
{
    cuzk_fil_snap_vanilla_free(&job->v);
    free(job->ch);
    memset(job, 0, sizeof *job);
}

/* The job freed, then rc: `return snap_partition_freed(job, cuzk_errf(err, err_len, CODE, ...))`
 * writes the message first, while what it names is still held. */
static int snap_partition_freed(cuzk_fil_snap_partition *job, int rc)
{
    cuzk_fil_snap_partition_free(job);
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

int cuzk_fil_snap_prepare(cuzk_fil_snap_partition *job, uint64_t update_proof_id, uint32_t k,
                          const uint8_t comm_r_old[32], const uint8_t comm_r_new[32], const uint8_t comm_d_new[32],
                          const uint8_t *blob, size_t len, char *err, size_t err_len)
{
    memset(job, 0, sizeof *job);
    snap_shape s;
    if (snap_shape_for(&s, update_proof_id))
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "registered_proof: %llu is not a SnapDeals proof",
                                             (unsigned long long)update_proof_id));
    job->cfg = s.cfg;
    const cuzk_update_config *cfg = &s.cfg;
    if (k >= cfg->partitions)
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "partition_index: %u, the sector has %u partitions", k, cfg->partitions));
    cuzk_update_witness *w = &job->w;
    const uint8_t *cm[3] = {comm_r_old, comm_r_new, comm_d_new};
    cuzk_fr *cv[3] = {&w->comm_r_old, &w->comm_r_new, &w->comm_d_new};
    static const char *const cn[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; i++)
        if (cuzk_fr_from_le32(cv[i], cm[i]) != 0)
            return snap_partition_freed(
                job, cuzk_errf(err, err_len, CUZK_ERR_NONCANONICAL, "%s: not a canonical field element", cn[i]));
    char e[200];
    int rc = cuzk_fil_snap_vanilla_parse(&job->v, update_proof_id, blob, len, e, sizeof e);
    if (rc) return snap_partition_freed(job, cuzk_errf(err, err_len, rc, "vanilla_proofs[%u]: %s", k, e));
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
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                             "comm_r_old: not H(comm_c, tree R old root) of vanilla_proofs[%u]", k));
    cuzk_fil_comm_r(&t, &w->comm_c, &w->root_r_new);
    if (!cuzk_fr_eq(&t, &w->comm_r_new))
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                             "comm_r_new: not H(comm_c, tree R new root) of vanilla_proofs[%u]", k));
    uint64_t chs[128];
    if (cfg->challenges > 128 || cuzk_update_challenges(chs, cfg, &w->comm_r_new, k))
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INTERNAL, "challenges"));
    job->ch = calloc(cfg->challenges, sizeof *job->ch);
    if (!job->ch) return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "out of memory"));
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
                return snap_partition_freed(
                    job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                   "vanilla_proofs[%u].challenge_proofs[%u].%s: opens leaf %llu, the challenge is %llu",
                                   k, i, mn[j], (unsigned long long)m[j]->index, (unsigned long long)chs[i]));
            if (!cuzk_fr_eq(&m[j]->root, roots[j]))
                return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                                     "vanilla_proofs[%u].challenge_proofs[%u].%s: root is not %s", k, i,
                                                     mn[j], j == 1 ? "comm_d_new" : "the tree's root in challenge 0"));
            if (!mproof_ok(j == 1 ? &s.d : &s.r, m[j]))
                return snap_partition_freed(
                    job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                                   "vanilla_proofs[%u].challenge_proofs[%u].%s: path does not hash to its root", k, i,
                                   mn[j]));
        }
        cuzk_fr rho, enc;
        cuzk_update_rho(&rho, cfg, &phi, chs[i], w->h);
        cuzk_fr_mul(&enc, &c->d_new.leaf, &rho);
        cuzk_fr_add(&enc, &enc, &c->r_old.leaf);
        if (!cuzk_fr_eq(&enc, &c->r_new.leaf))
            return snap_partition_freed(
                job,
                cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                          "vanilla_proofs[%u].challenge_proofs[%u]: leaf_r_new is not leaf_r_old + leaf_d_new * rho", k,
                          i));
        uint64_t ai = (chs[i] >> ah) - (uint64_t)k * cfg->apex_leaves;
        cuzk_fr node;
        if (ai >= cfg->apex_leaves || d_node(&node, &c->d_new, ah) || !cuzk_fr_eq(&node, &v->apex_leaves[ai]))
            return snap_partition_freed(
                job, cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED,
                               "vanilla_proofs[%u].challenge_proofs[%u].proof_d_new: does not pass apex_leafs[%llu]", k,
                               i, (unsigned long long)ai));
        job->ch[i] = (cuzk_update_challenge){c->r_old.leaf, c->d_new.leaf, c->r_old.path, c->r_new.path, c->d_new.path};
    }
    w->challenges = job->ch;
    rc = cuzk_fil_snap_public_inputs(job->inputs, update_proof_id, k, &w->comm_r_old, &w->comm_d_new, &w->comm_r_new);
    if (rc) return snap_partition_freed(job, cuzk_errf(err, err_len, rc, "public inputs"));
    return 0;
}

unsigned cuzk_fil_snap_partitions(uint64_t update_proof_id)
{
    snap_shape s;
    return snap_shape_for(&s, update_proof_id) ? 0 : s.cfg.partitions;
}

int cuzk_fil_snap_prepare_request(cuzk_fil_snap_partition *job, const cuzk_fil_request *r, uint32_t k, char *err,
                                  size_t err_len)
{
    memset(job, 0, sizeof *job);
    const uint32_t need = CUZK_FIL_REQ_COMM_R_OLD | CUZK_FIL_REQ_COMM_R_NEW | CUZK_FIL_REQ_COMM_D_NEW;
    unsigned parts = cuzk_fil_snap_partitions(r->registered_proof);
    if (r->kind != CUZK_FIL_KIND_SNAP)
        return snap_partition_freed(
            job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "proof_kind: %d is not SnapDeals", (int)r->kind));
    if ((r->present & need) != need)
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%s: missing",
                                             !(r->present & CUZK_FIL_REQ_COMM_R_OLD)   ? "comm_r_old"
                                             : !(r->present & CUZK_FIL_REQ_COMM_R_NEW) ? "comm_r_new"
                                                                                       : "comm_d_new"));
    if (!parts)
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "registered_proof: %llu is not a SnapDeals proof",
                                             (unsigned long long)r->registered_proof));
    if (r->sector_size && r->sector_size != cuzk_fil_update_proof_sector_size(r->registered_proof))
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "sector_size: %llu does not match registered_proof",
                                             (unsigned long long)r->sector_size));
    if (r->num_blobs != parts)
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "vanilla_proofs: %zu, want one per partition (%u)", r->num_blobs, parts));
    if (k >= parts)
        return snap_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "partition %u of %u", k, parts));
    return cuzk_fil_snap_prepare(job, r->registered_proof, k, r->comm_r_old, r->comm_r_new, r->comm_d_new,
                                 r->blobs[k].data, r->blobs[k].len, err, err_len);
}
