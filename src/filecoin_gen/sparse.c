/* Helpers of the synthetic (sparse) sectors: deterministic values, Merkle trees built over
 * the opened leaves only, and whole trees of runs of equal leaves that fill them
 * (gen_internal.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/sha256.h"
#include "gen_internal.h"

void fil_tagged_hash(uint8_t out[32], const char *tag, uint64_t a, uint64_t b, uint64_t c)
{
    uint8_t n[24];
    for (int i = 0; i < 8; i++) {
        n[i] = (uint8_t)(a >> (8 * i));
        n[8 + i] = (uint8_t)(b >> (8 * i));
        n[16 + i] = (uint8_t)(c >> (8 * i));
    }
    const void *p[2] = {tag, n};
    const size_t l[2] = {strlen(tag), sizeof n};
    cuzk_sha256_hash_parts(out, p, l, 2);
}

/* A deterministic canonical element (top two bits cleared, as fr32). */
void fil_det_fr(cuzk_fr *out, const char *tag, uint64_t a, uint64_t b, uint64_t c)
{
    uint8_t h[32];
    fil_tagged_hash(h, tag, a, b, c);
    h[31] &= 0x3f;
    cuzk_fr_from_le32(out, h);
}

int fil_u64cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

ptrdiff_t fil_u64_find(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (v[m] < x) lo = m + 1;
        else hi = m;
    }
    return lo < n && v[lo] == x ? (ptrdiff_t)lo : -1;
}

int fil_sparse_build(fil_sparse *t, const cuzk_tree_shape *shape, uint64_t nodes, const uint64_t *idx,
                     const cuzk_fr *val, size_t n, fil_sparse_fill fill, void *fctx)
{
    memset(t, 0, sizeof *t);
    t->shape = shape;
    t->nodes = nodes;
    t->levels = cuzk_tree_levels(shape, nodes);
    if (!t->levels || t->levels > 64) return CUZK_ERR_INVALID_ARG;
    uint64_t *ci = malloc(sizeof(uint64_t) * n);
    cuzk_fr *cv = malloc(sizeof(cuzk_fr) * n);
    if (!ci || !cv) {
        free(ci);
        free(cv);
        return CUZK_ERR_NO_MEMORY;
    }
    memcpy(ci, idx, sizeof(uint64_t) * n);
    memcpy(cv, val, sizeof(cuzk_fr) * n);
    int rc = 0;
    for (size_t l = 0; l < t->levels && !rc; l++) {
        unsigned a = cuzk_tree_level_arity(shape, nodes, l);
        size_t ng = 0;
        for (size_t i = 0; i < n; i++)
            if (i == 0 || ci[i] / a != ci[i - 1] / a) ng++;
        t->gid[l] = malloc(sizeof(uint64_t) * ng);
        t->ch[l] = malloc(sizeof(cuzk_fr) * ng * a);
        if (!t->gid[l] || !t->ch[l]) {
            rc = CUZK_ERR_NO_MEMORY;
            break;
        }
        t->ng[l] = ng;
        size_t g = 0, i = 0;
        while (i < n) {
            uint64_t gi = ci[i] / a;
            t->gid[l][g] = gi;
            for (unsigned j = 0; j < a; j++) {
                uint64_t x = gi * a + j;
                if (i < n && ci[i] == x) t->ch[l][g * a + j] = cv[i++];
                else fill(fctx, l, x, &t->ch[l][g * a + j]);
            }
            cuzk_tree_hash_node(&cv[g], shape->hash, &t->ch[l][g * a], a);
            ci[g] = gi;
            g++;
        }
        n = ng;
    }
    if (!rc) t->root = cv[0];
    free(ci);
    free(cv);
    return rc;
}

int fil_sparse_path(const fil_sparse *t, uint64_t leaf, cuzk_fr *sib)
{
    for (size_t l = 0; l < t->levels; l++) {
        unsigned a = cuzk_tree_level_arity(t->shape, t->nodes, l);
        ptrdiff_t g = fil_u64_find(t->gid[l], t->ng[l], leaf / a);
        if (g < 0) return CUZK_ERR_INVALID_ARG;
        for (unsigned j = 0; j < a; j++)
            if (j != leaf % a) *sib++ = t->ch[l][(size_t)g * a + j];
        leaf /= a;
    }
    return 0;
}

void fil_sparse_free(fil_sparse *t)
{
    for (size_t l = 0; l < 64; l++) {
        free(t->gid[l]);
        free(t->ch[l]);
    }
}


int fil_runtree_build(fil_runtree *t, const cuzk_tree_shape *shape, uint64_t nodes, unsigned run_bits,
                      const cuzk_fr *run_leaf)
{
    memset(t, 0, sizeof *t);
    t->shape = shape;
    t->nodes = nodes;
    t->run_bits = run_bits;
    t->levels = cuzk_tree_levels(shape, nodes);
    if (!t->levels || t->levels > 64 || nodes & (nodes - 1) || run_bits > 63 || !(nodes >> run_bits))
        return CUZK_ERR_INVALID_ARG;
    for (size_t l = 0; l < t->levels; l++) {
        unsigned a = cuzk_tree_level_arity(shape, nodes, l);
        if (a & (a - 1)) return CUZK_ERR_INVALID_ARG; /* spans stay powers of two */
        t->span_bits[l + 1] = t->span_bits[l] + (unsigned)__builtin_ctz(a);
    }
    const uint64_t runs = nodes >> run_bits;
    int rc = 0;
    for (size_t l = 0; l <= t->levels && !rc; l++) {
        /* a node inside one run: one value per run; above the runs: one per node */
        bool per_run = t->span_bits[l] <= run_bits;
        uint64_t count = per_run ? runs : nodes >> t->span_bits[l];
        if (!(t->v[l] = malloc(sizeof(cuzk_fr) * count))) {
            rc = CUZK_ERR_NO_MEMORY;
            break;
        }
        if (l == 0) {
            memcpy(t->v[0], run_leaf, sizeof(cuzk_fr) * runs);
            continue;
        }
        unsigned a = cuzk_tree_level_arity(shape, nodes, l - 1);
        cuzk_fr ch[64];
        for (uint64_t x = 0; x < count && !rc; x++) {
            for (unsigned j = 0; j < a; j++) {
                if (per_run) ch[j] = t->v[l - 1][x]; /* a children, all inside run x */
                else fil_runtree_node(t, l - 1, x * a + j, &ch[j]);
            }
            rc = cuzk_tree_hash_node(&t->v[l][x], shape->hash, ch, a);
        }
    }
    if (!rc) t->root = t->v[t->levels][0];
    else fil_runtree_free(t);
    return rc;
}

void fil_runtree_node(const fil_runtree *t, size_t level, uint64_t index, cuzk_fr *out)
{
    unsigned sb = t->span_bits[level];
    *out = t->v[level][sb <= t->run_bits ? (index << sb) >> t->run_bits : index];
}

void fil_runtree_fill(void *ctx, size_t level, uint64_t index, cuzk_fr *out)
{
    fil_runtree_node(ctx, level, index, out);
}

void fil_runtree_free(fil_runtree *t)
{
    for (size_t l = 0; l < 65; l++) {
        free(t->v[l]);
        t->v[l] = NULL;
    }
}

int mproof_from_tree(cuzk_fil_mproof *p, const cuzk_merkle_tree *t, const cuzk_fr *leaves, uint64_t index)
{
    p->index = index;
    p->leaf = leaves[index];
    p->root = t->root;
    return cuzk_merkle_tree_path(t, index, p->path);
}
