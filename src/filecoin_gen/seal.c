/* Native sealing of small sectors, the synthetic full-size C1, and the vanilla proofs of both
 * (include/cuzk/filecoin_gen/seal.h; the facts are in docs/filecoin.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


#include "cuzk/util/error.h"
#include "cuzk/filecoin_gen/fil_gen.h"
#include "cuzk/util/parallel.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/filecoin_gen/seal.h"
#include "cuzk/util/sha256.h"
#include "gen_internal.h"

#define NPAR CUZK_POREP_TOTAL_PARENTS

static const cuzk_tree_shape TREE_D = {CUZK_TREE_SHA256, 2, 0, 0};

/* ---- small helpers ------------------------------------------------------------------------ */

void cuzk_seal_randomness(uint64_t seed, uint8_t ticket[32], uint8_t interactive_seed[32])
{
    fil_tagged_hash(ticket, "cuzk-seal ticket", seed, 0, 0);
    fil_tagged_hash(interactive_seed, "cuzk-seal seed", seed, 0, 0);
}

static unsigned nthreads_of(unsigned n)
{
    return n ? n : cuzk_parallel_cpus();
}

static void progress(const cuzk_seal_params *p, const char *phase, uint64_t done, uint64_t total)
{
    if (p->progress) p->progress(p->progress_ctx, phase, done, total);
}

/* ---- labelling ---------------------------------------------------------------------------- */

/* label(layer, node) from 32-byte parent labels (NULL for node 0: no parents). */
static void label_bytes(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                        const uint8_t *const *parents, unsigned np)
{
    uint8_t hdr[64] = {0};
    memcpy(hdr, replica_id, 32);
    for (int i = 0; i < 4; i++) hdr[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) hdr[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    const void *part[1 + NPAR] = {hdr};
    size_t len[1 + NPAR] = {sizeof hdr};
    for (unsigned i = 0; np && i < NPAR; i++) part[1 + i] = parents[i % np], len[1 + i] = 32;
    cuzk_sha256_hash_parts(out, part, len, np ? 1 + NPAR : 1);
    out[31] &= 0x3f;
}

typedef struct par_ctx {
    const cuzk_fil_graph *g;
    uint32_t *par;
} par_ctx;

static void parents_range(void *vc, unsigned worker, size_t lo, size_t hi)
{
    par_ctx *c = vc;
    for (uint64_t n = lo; n < hi; n++) cuzk_fil_graph_parents(c->g, (uint32_t)n, &c->par[n * CUZK_FIL_DEGREE]);
}

typedef struct col_ctx {
    const cuzk_sealed_sector *s;
    cuzk_fr *out;
} col_ctx;

static void columns_range(void *vc, unsigned worker, size_t lo, size_t hi)
{
    col_ctx *c = vc;
    const cuzk_porep_config *cfg = &c->s->cfg;
    cuzk_fr row[16];
    for (uint64_t n = lo; n < hi; n++) {
        for (unsigned l = 0; l < cfg->layers; l++) row[l] = c->s->labels[(size_t)l * cfg->nodes + n];
        cuzk_poseidon_hash(&c->out[n], cfg->layers, row);
    }
}

int cuzk_seal(cuzk_sealed_sector *s, const cuzk_seal_params *p)
{
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->rp = cuzk_fil_seal_proof_get(p->registered_proof);
    if (!s->rp) return CUZK_ERR_INVALID_ARG;
    uint64_t size = p->sector_size ? p->sector_size : s->rp->sector_size;
    if (cuzk_porep_config_for(&s->cfg, size, s->rp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE))
        return CUZK_ERR_INVALID_ARG;
    const uint64_t N = s->cfg.nodes;
    const unsigned L = s->cfg.layers, nt = nthreads_of(p->nthreads);
    if (N > (1ull << 26)) return CUZK_ERR_INVALID_ARG; /* whole layers in memory: up to 2 GiB sectors */
    cuzk_seal_randomness(p->seed, s->ticket, s->seed);
    cuzk_fil_prover_id(s->prover_id, p->miner_id);
    cuzk_fil_porep_id(s->porep_id, p->registered_proof, 0);
    if (cuzk_fil_graph_init(&s->graph, N, s->porep_id, s->rp->api_version)) return CUZK_ERR_INVALID_ARG;

    s->data = malloc(sizeof(cuzk_fr) * N);
    s->labels = malloc(sizeof(cuzk_fr) * N * L);
    uint8_t *lab = malloc((size_t)32 * N * 2); /* two layers of label bytes */
    uint32_t *par = malloc(sizeof(uint32_t) * CUZK_FIL_DEGREE * N);
    cuzk_fr *tmp = malloc(sizeof(cuzk_fr) * N);
    int rc = s->data && s->labels && lab && par && tmp ? 0 : CUZK_ERR_NO_MEMORY;
    if (rc) goto out;

    /* data: ChaCha8 keyed by a hash of the seed, 32 bytes a node, fr32 */
    {
        uint8_t key[32], b[32];
        fil_tagged_hash(key, "cuzk-seal data", p->seed, 0, 0);
        cuzk_fil_chacha8_rng r;
        cuzk_fil_chacha8_rng_init(&r, key);
        for (uint64_t n = 0; n < N; n++) {
            for (int i = 0; i < 8; i++) {
                uint32_t w = cuzk_fil_chacha8_next_u32(&r);
                for (int j = 0; j < 4; j++) b[4 * i + j] = (uint8_t)(w >> (8 * j));
            }
            b[31] &= 0x3f;
            cuzk_fr_from_le32(&s->data[n], b);
        }
    }
    progress(p, "tree D", 0, 1);
    if ((rc = cuzk_merkle_tree_build(&s->d, &TREE_D, s->data, N))) goto out;
    cuzk_fr_to_le32(s->comm_d, &s->d.root);
    cuzk_fil_replica_id(s->replica_id, s->prover_id, p->sector_id, s->ticket, s->comm_d, s->porep_id);
    cuzk_fr_from_le32(&s->replica_id_fr, s->replica_id);

    progress(p, "parents", 0, N);
    par_ctx pc = {&s->graph, par};
    cuzk_parallel_for(N, N < 1024 ? N : 0, nt, parents_range, &pc); /* small: one chunk, inline */

    /* labels: sequential within a layer (DRG parents precede the node) */
    for (unsigned l = 1; l <= L; l++) {
        uint8_t *cur = lab + (size_t)32 * N * ((l - 1) & 1), *prev = lab + (size_t)32 * N * (l & 1);
        const uint8_t *pp[CUZK_FIL_DEGREE];
        for (uint64_t n = 0; n < N; n++) {
            const uint32_t *q = &par[n * CUZK_FIL_DEGREE];
            unsigned np = n == 0 ? 0 : l == 1 ? CUZK_FIL_DRG_DEGREE : CUZK_FIL_DEGREE;
            for (unsigned j = 0; j < np; j++) pp[j] = j < CUZK_FIL_DRG_DEGREE ? cur + 32 * (size_t)q[j] : prev + 32 * (size_t)q[j];
            label_bytes(cur + 32 * n, s->replica_id, l, n, pp, np);
            if ((n & 0xffff) == 0) progress(p, "labels", (uint64_t)(l - 1) * N + n, (uint64_t)L * N);
        }
        for (uint64_t n = 0; n < N; n++) cuzk_fr_from_le32(&s->labels[(size_t)(l - 1) * N + n], cur + 32 * n);
    }
    progress(p, "labels", (uint64_t)L * N, (uint64_t)L * N);

    progress(p, "tree C", 0, 1);
    col_ctx cc = {s, tmp};
    cuzk_parallel_for(N, N < 1024 ? N : 0, nt, columns_range, &cc);
    if ((rc = cuzk_merkle_tree_build(&s->c, &s->cfg.tree, tmp, N))) goto out;
    progress(p, "tree R", 0, 1);
    for (uint64_t n = 0; n < N; n++) cuzk_fr_add(&tmp[n], &s->labels[(size_t)(L - 1) * N + n], &s->data[n]);
    if ((rc = cuzk_merkle_tree_build(&s->r, &s->cfg.tree, tmp, N))) goto out;
    cuzk_fr pair[2] = {s->c.root, s->r.root}, cr;
    cuzk_poseidon_hash(&cr, 2, pair);
    cuzk_fr_to_le32(s->comm_c, &s->c.root);
    cuzk_fr_to_le32(s->comm_r_last, &s->r.root);
    cuzk_fr_to_le32(s->comm_r, &cr);
out:
    free(lab);
    free(par);
    free(tmp);
    if (rc) cuzk_sealed_sector_free(s);
    return rc;
}

void cuzk_sealed_sector_free(cuzk_sealed_sector *s)
{
    free(s->data);
    free(s->labels);
    if (s->d.base) cuzk_merkle_tree_free(&s->d);
    if (s->c.base) cuzk_merkle_tree_free(&s->c);
    if (s->r.base) cuzk_merkle_tree_free(&s->r);
    memset(s, 0, sizeof *s);
}

/* ---- vanilla proofs ----------------------------------------------------------------------- */

/* Where a proof's values come from: the sealed sector's trees, or the synthetic sparse ones. */
typedef struct vsrc {
    const cuzk_porep_config *cfg;
    const cuzk_fil_graph *g;
    const cuzk_fr *replica_id;
    cuzk_fr comm_d, comm_c, comm_r_last;
    void *ctx;
    void (*column)(void *ctx, uint64_t node, cuzk_fr *rows);
    cuzk_fr (*data)(void *ctx, uint64_t node);
    int (*path)(void *ctx, int tree /* 0 D, 1 C, 2 R */, uint64_t node, cuzk_fr *sib);
} vsrc;

static int fill_column(const vsrc *s, uint64_t node, cuzk_fil_column *col)
{
    col->index = (uint32_t)node;
    s->column(s->ctx, node, col->rows);
    col->proof.index = node;
    col->proof.root = s->comm_c;
    cuzk_poseidon_hash(&col->proof.leaf, s->cfg->layers, col->rows);
    return s->path(s->ctx, 1, node, col->proof.path);
}

static int fill_vproof(const vsrc *s, uint64_t node, cuzk_fil_vproof *v)
{
    const unsigned L = s->cfg->layers;
    uint32_t par[CUZK_FIL_DEGREE];
    cuzk_fil_graph_parents(s->g, (uint32_t)node, par);
    int rc = fill_column(s, node, &v->c_x);
    for (int j = 0; j < CUZK_FIL_DEGREE && !rc; j++) rc = fill_column(s, par[j], j < 6 ? &v->drg[j] : &v->exp[j - 6]);
    if (rc) return rc;
    v->node = node;
    v->comm_d = (cuzk_fil_mproof){.leaf = s->data(s->ctx, node), .root = s->comm_d, .index = node, .path = v->comm_d.path};
    if ((rc = s->path(s->ctx, 0, node, v->comm_d.path))) return rc;
    v->comm_r_last.root = s->comm_r_last;
    v->comm_r_last.index = node;
    cuzk_fr_add(&v->comm_r_last.leaf, &v->c_x.rows[L - 1], &v->comm_d.leaf);
    if ((rc = s->path(s->ctx, 2, node, v->comm_r_last.path))) return rc;
    for (unsigned l = 1; l <= L; l++) {
        cuzk_fr drg[6], exp[8];
        for (int j = 0; j < 6; j++) drg[j] = v->drg[j].rows[l - 1];
        for (int j = 0; j < 8; j++) exp[j] = l > 1 ? v->exp[j].rows[l - 2] : cuzk_fr_zero;
        cuzk_porep_expand_parents(&v->lab_parents[(size_t)(l - 1) * NPAR], l, drg, exp);
    }
    memcpy(v->enc_parents, &v->lab_parents[(size_t)(L - 1) * NPAR], sizeof(cuzk_fr) * NPAR);
    return 0;
}

/* The challenges of every partition, partition-major. */
static void all_challenges(uint64_t *out, const cuzk_porep_config *cfg, const uint8_t replica_id[32],
                           const uint8_t seed[32])
{
    for (unsigned k = 0; k < cfg->partitions; k++)
        cuzk_fil_porep_challenges(&out[(size_t)k * cfg->challenges], cfg->challenges, k, replica_id, seed, cfg->nodes);
}

static void sealed_column(void *ctx, uint64_t node, cuzk_fr *rows)
{
    const cuzk_sealed_sector *s = ctx;
    for (unsigned l = 0; l < s->cfg.layers; l++) rows[l] = s->labels[(size_t)l * s->cfg.nodes + node];
}

static cuzk_fr sealed_data(void *ctx, uint64_t node) { return ((const cuzk_sealed_sector *)ctx)->data[node]; }

static int sealed_path(void *ctx, int tree, uint64_t node, cuzk_fr *sib)
{
    const cuzk_sealed_sector *s = ctx;
    return cuzk_merkle_tree_path(tree == 0 ? &s->d : tree == 1 ? &s->c : &s->r, node, sib);
}

static void c1_header(cuzk_fil_c1 *c1, const uint8_t comm_r[32], const uint8_t comm_d[32], const uint8_t rid[32],
                      const uint8_t seed[32], const uint8_t ticket[32])
{
    memcpy(c1->comm_r, comm_r, 32);
    memcpy(c1->comm_d, comm_d, 32);
    memcpy(c1->replica_id, rid, 32);
    memcpy(c1->seed, seed, 32);
    memcpy(c1->ticket, ticket, 32);
}

int cuzk_seal_c1(const cuzk_sealed_sector *s, cuzk_fil_c1 **out)
{
    /* interactive and NI-PoRep challenges (SyntheticPoRep's C1 holds other proofs) */
    if (s->rp->feature == CUZK_FIL_FEAT_SYNTHETIC) return CUZK_ERR_UNSUPPORTED;
    int rc = cuzk_fil_c1_alloc(out, s->p.registered_proof, s->cfg.sector_size);
    if (rc) return rc;
    cuzk_fil_c1 *c1 = *out;
    c1_header(c1, s->comm_r, s->comm_d, s->replica_id, s->seed, s->ticket);
    vsrc src = {&s->cfg, &s->graph, &s->replica_id_fr, s->d.root, s->c.root, s->r.root, (void *)s,
                sealed_column, sealed_data, sealed_path};
    size_t n = (size_t)s->cfg.partitions * s->cfg.challenges;
    uint64_t *chs = malloc(sizeof(uint64_t) * n);
    if (!chs) rc = CUZK_ERR_NO_MEMORY;
    /* NI-PoRep's from replica_id and comm_r, the sealed sector's own: no seed */
    for (unsigned k = 0; chs && k < s->cfg.partitions && !rc; k++)
        if (cuzk_fil_porep_partition_challenges(&chs[(size_t)k * s->cfg.challenges], s->rp, &s->cfg, s->replica_id,
                                           s->comm_r, s->seed, k))
            rc = CUZK_ERR_INVALID_ARG;
    for (size_t i = 0; i < n && !rc; i++) rc = fill_vproof(&src, chs[i], &c1->proofs[i]);
    free(chs);
    if (rc) {
        cuzk_fil_c1_free(c1);
        *out = NULL;
    }
    return rc;
}

/* ---- the sector directory ----------------------------------------------------------------- */

int cuzk_seal_write_dir(const cuzk_sealed_sector *s, const char *dir)
{
    const uint64_t N = s->cfg.nodes;
    cuzk_fil_sector v = {.sector_size = s->cfg.sector_size, .registered_proof = s->p.registered_proof,
                         .sector_id = s->p.sector_id, .nodes = N, .data = s->data};
    memcpy(v.prover_id, s->prover_id, 32);
    memcpy(v.ticket, s->ticket, 32);
    memcpy(v.comm_d, s->comm_d, 32);
    memcpy(v.comm_r, s->comm_r, 32);
    memcpy(v.comm_c, s->comm_c, 32);
    memcpy(v.comm_r_last, s->comm_r_last, 32);
    memcpy(v.replica_id, s->replica_id, 32);
    /* the replica (tree R's leaves): last layer's labels plus the data */
    v.replica = malloc((size_t)N * sizeof *v.replica);
    if (!v.replica) return CUZK_ERR_NO_MEMORY;
    const cuzk_fr *last = &s->labels[(size_t)(s->cfg.layers - 1) * N];
    for (uint64_t i = 0; i < N; i++) cuzk_fr_add(&v.replica[i], &last[i], &s->data[i]);
    int rc = cuzk_fil_sector_write(&v, dir);
    free(v.replica);
    return rc;
}

/* ---- the synthetic full-size C1 ----------------------------------------------------------- */

typedef struct synth {
    const cuzk_porep_config *cfg;
    uint64_t seed;
    uint64_t *nodes; /* sorted unique: challenged nodes and their parents */
    size_t n;
    cuzk_fr *cols;   /* n x layers */
    cuzk_fr zero[64];
    fil_sparse c, r;
} synth;

static void fill_random(void *ctx, size_t level, uint64_t index, cuzk_fr *out)
{
    const synth *s = ctx;
    fil_det_fr(out, "cuzk-synth filler", s->seed, level, index);
}

static void synth_column(void *ctx, uint64_t node, cuzk_fr *rows)
{
    const synth *s = ctx;
    ptrdiff_t i = fil_u64_find(s->nodes, s->n, node);
    memcpy(rows, &s->cols[(size_t)i * s->cfg->layers], sizeof(cuzk_fr) * s->cfg->layers);
}

static cuzk_fr synth_data(void *ctx, uint64_t node)
{
    (void)ctx;
    (void)node;
    return cuzk_fr_zero; /* a committed-capacity sector */
}

static int synth_path(void *ctx, int tree, uint64_t node, cuzk_fr *sib)
{
    const synth *s = ctx;
    if (tree == 0) { /* the all-zero binary tree: level l's sibling is the zero subtree of height l */
        for (size_t l = 0; (1ull << l) < s->cfg->nodes; l++) sib[l] = s->zero[l];
        return 0;
    }
    return fil_sparse_path(tree == 1 ? &s->c : &s->r, node, sib);
}

int cuzk_seal_synthetic_c1(const cuzk_seal_params *p, cuzk_fil_c1 **out)
{
    *out = NULL;
    const cuzk_fil_seal_proof *rp = cuzk_fil_seal_proof_get(p->registered_proof);
    if (!rp || (p->sector_size && p->sector_size != rp->sector_size)) return CUZK_ERR_INVALID_ARG;
    if (rp->feature != CUZK_FIL_FEAT_NONE) return CUZK_ERR_UNSUPPORTED;
    int rc = cuzk_fil_c1_alloc(out, p->registered_proof, 0);
    if (rc) return rc;
    cuzk_fil_c1 *c1 = *out;
    const cuzk_porep_config *cfg = &c1->cfg;
    const unsigned L = cfg->layers;
    synth s = {.cfg = cfg, .seed = p->seed};
    uint8_t prover[32], porep_id[32], ticket[32], seed[32], comm_d[32], rid[32], comm_r[32];
    cuzk_fil_prover_id(prover, p->miner_id);
    cuzk_fil_porep_id(porep_id, p->registered_proof, 0);
    cuzk_seal_randomness(p->seed, ticket, seed);
    s.zero[0] = cuzk_fr_zero;
    for (size_t l = 1; l < 64; l++) {
        cuzk_fr two[2] = {s.zero[l - 1], s.zero[l - 1]};
        cuzk_tree_hash_node(&s.zero[l], CUZK_TREE_SHA256, two, 2);
    }
    size_t dl = cuzk_tree_levels(&TREE_D, cfg->nodes);
    cuzk_fr_to_le32(comm_d, &s.zero[dl]);
    cuzk_fil_replica_id(rid, prover, p->sector_id, ticket, comm_d, porep_id);
    cuzk_fr rid_fr;
    cuzk_fr_from_le32(&rid_fr, rid);
    cuzk_fil_graph g;
    if (cuzk_fil_graph_init(&g, cfg->nodes, porep_id, rp->api_version)) {
        cuzk_fil_c1_free(c1);
        *out = NULL;
        return CUZK_ERR_INVALID_ARG;
    }

    const size_t nch = (size_t)cfg->partitions * cfg->challenges;
    uint64_t *chs = malloc(sizeof(uint64_t) * nch), *sorted_ch = malloc(sizeof(uint64_t) * nch);
    s.nodes = malloc(sizeof(uint64_t) * nch * (1 + CUZK_FIL_DEGREE));
    cuzk_fr *leaves = malloc(sizeof(cuzk_fr) * nch * (1 + CUZK_FIL_DEGREE));
    if (!chs || !sorted_ch || !s.nodes || !leaves) {
        rc = CUZK_ERR_NO_MEMORY;
        goto out;
    }
    all_challenges(chs, cfg, rid, seed);
    progress(p, "parents", 0, nch);
    for (size_t i = 0; i < nch; i++) {
        uint32_t par[CUZK_FIL_DEGREE];
        cuzk_fil_graph_parents(&g, (uint32_t)chs[i], par);
        s.nodes[s.n++] = chs[i];
        for (int j = 0; j < CUZK_FIL_DEGREE; j++) s.nodes[s.n++] = par[j];
    }
    qsort(s.nodes, s.n, sizeof(uint64_t), fil_u64cmp);
    size_t u = 0;
    for (size_t i = 0; i < s.n; i++)
        if (!u || s.nodes[u - 1] != s.nodes[i]) s.nodes[u++] = s.nodes[i];
    s.n = u;
    memcpy(sorted_ch, chs, sizeof(uint64_t) * nch);
    qsort(sorted_ch, nch, sizeof(uint64_t), fil_u64cmp);
    u = 0;
    for (size_t i = 0; i < nch; i++)
        if (!u || sorted_ch[u - 1] != sorted_ch[i]) sorted_ch[u++] = sorted_ch[i];
    const size_t nuch = u;

    /* columns: random, then the challenged nodes' labels recomputed layer by layer in node
     * order (DRG parents precede a node; expander parents use the finished previous layer) */
    s.cols = malloc(sizeof(cuzk_fr) * s.n * L);
    if (!s.cols) {
        rc = CUZK_ERR_NO_MEMORY;
        goto out;
    }
    for (size_t i = 0; i < s.n; i++)
        for (unsigned l = 0; l < L; l++) fil_det_fr(&s.cols[i * L + l], "cuzk-synth label", p->seed, s.nodes[i], l);
    for (unsigned l = 1; l <= L; l++) {
        progress(p, "labels", (uint64_t)(l - 1) * nuch, (uint64_t)L * nuch);
        for (size_t i = 0; i < nuch; i++) {
            uint64_t node = sorted_ch[i];
            uint32_t par[CUZK_FIL_DEGREE];
            cuzk_fil_graph_parents(&g, (uint32_t)node, par);
            cuzk_fr drg[6], exp[8], parents[NPAR];
            for (int j = 0; j < 6; j++) drg[j] = s.cols[(size_t)fil_u64_find(s.nodes, s.n, par[j]) * L + l - 1];
            for (int j = 0; j < 8; j++)
                exp[j] = l > 1 ? s.cols[(size_t)fil_u64_find(s.nodes, s.n, par[6 + j]) * L + l - 2] : cuzk_fr_zero;
            cuzk_porep_expand_parents(parents, l, drg, exp);
            cuzk_porep_label(&s.cols[(size_t)fil_u64_find(s.nodes, s.n, node) * L + l - 1], &rid_fr, l, node, parents);
        }
    }
    progress(p, "tree C", 0, 1);
    for (size_t i = 0; i < s.n; i++) cuzk_poseidon_hash(&leaves[i], L, &s.cols[i * L]);
    if ((rc = fil_sparse_build(&s.c, &cfg->tree, cfg->nodes, s.nodes, leaves, s.n, fill_random, &s))) goto out;
    progress(p, "tree R", 0, 1);
    for (size_t i = 0; i < nuch; i++) leaves[i] = s.cols[(size_t)fil_u64_find(s.nodes, s.n, sorted_ch[i]) * L + L - 1];
    if ((rc = fil_sparse_build(&s.r, &cfg->tree, cfg->nodes, sorted_ch, leaves, nuch, fill_random, &s))) goto out;
    cuzk_fr pair[2] = {s.c.root, s.r.root}, cr;
    cuzk_poseidon_hash(&cr, 2, pair);
    cuzk_fr_to_le32(comm_r, &cr);
    c1_header(c1, comm_r, comm_d, rid, seed, ticket);
    vsrc src = {cfg, &g, &rid_fr, s.zero[dl], s.c.root, s.r.root, &s, synth_column, synth_data, synth_path};
    for (size_t i = 0; i < nch && !rc; i++) {
        rc = fill_vproof(&src, chs[i], &c1->proofs[i]);
        if ((i & 15) == 0) progress(p, "vanilla proofs", i, nch);
    }
out:
    free(chs);
    free(sorted_ch);
    free(s.nodes);
    free(s.cols);
    free(leaves);
    fil_sparse_free(&s.c);
    fil_sparse_free(&s.r);
    if (rc) {
        cuzk_fil_c1_free(c1);
        *out = NULL;
    }
    return rc;
}
