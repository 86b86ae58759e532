/* Filecoin Merkle trees (native) for shapes base / base-sub / base-sub-top. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gadgets/merkle.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/util/sha256.h"

static bool pow2_arity(unsigned a) { return a >= 2 && a <= 16 && (a & (a - 1)) == 0; }

static bool shape_ok(const cuzk_tree_shape *s)
{
    if (s->hash != CUZK_TREE_POSEIDON && s->hash != CUZK_TREE_SHA256) return false;
    if (!pow2_arity(s->base_arity)) return false;
    if (s->sub_arity && !pow2_arity(s->sub_arity)) return false;
    if (s->top_arity && (!pow2_arity(s->top_arity) || !s->sub_arity)) return false;
    return true;
}

size_t cuzk_tree_base_count(const cuzk_tree_shape *s)
{
    return (size_t)(s->sub_arity ? s->sub_arity : 1) * (s->top_arity ? s->top_arity : 1);
}

size_t cuzk_tree_base_levels(const cuzk_tree_shape *s, uint64_t leaves)
{
    if (!shape_ok(s)) return 0;
    size_t b = cuzk_tree_base_count(s);
    if (leaves == 0 || leaves % b) return 0;
    uint64_t per = leaves / b;
    size_t l = 0;
    while (per > 1) {
        if (per % s->base_arity) return 0;
        per /= s->base_arity;
        l++;
    }
    return l;
}

size_t cuzk_tree_levels(const cuzk_tree_shape *s, uint64_t leaves)
{
    size_t b = cuzk_tree_base_levels(s, leaves);
    if (!b) return 0;
    return b + (s->sub_arity ? 1 : 0) + (s->top_arity ? 1 : 0);
}

unsigned cuzk_tree_level_arity(const cuzk_tree_shape *s, uint64_t leaves, size_t l)
{
    size_t b = cuzk_tree_base_levels(s, leaves);
    if (l < b) return s->base_arity;
    if (l == b && s->sub_arity) return s->sub_arity;
    return s->top_arity;
}

size_t cuzk_tree_path_len(const cuzk_tree_shape *s, uint64_t leaves)
{
    size_t n = cuzk_tree_levels(s, leaves), len = 0;
    for (size_t l = 0; l < n; l++) len += cuzk_tree_level_arity(s, leaves, l) - 1;
    return len;
}

int cuzk_tree_hash_node(cuzk_fr *out, cuzk_tree_hash h, const cuzk_fr *children, unsigned n)
{
    if (h == CUZK_TREE_POSEIDON) return cuzk_poseidon_hash(out, n, children);
    if (h != CUZK_TREE_SHA256 || n < 1 || n > 64) return CUZK_ERR_INVALID_ARG;
    uint8_t buf[64 * 32], md[32];
    for (unsigned i = 0; i < n; i++) cuzk_fr_to_le32(&buf[32 * i], &children[i]);
    if (cuzk_sha256_hash(md, buf, 32u * n)) return CUZK_ERR_INTERNAL;
    md[31] &= 0x3f; /* trim_to_fr32 */
    return cuzk_fr_from_le32(out, md);
}

void cuzk_merkle_tree_free(cuzk_merkle_tree *t)
{
    free(t->base);
    free(t->sub_roots);
    t->base = t->sub_roots = NULL;
}

int cuzk_merkle_tree_build(cuzk_merkle_tree *t, const cuzk_tree_shape *s, const cuzk_fr *leaves, uint64_t n)
{
    memset(t, 0, sizeof *t);
    size_t bl = cuzk_tree_base_levels(s, n);
    if (!bl) return CUZK_ERR_INVALID_ARG;
    size_t count = cuzk_tree_base_count(s);
    uint64_t per = n / count;
    size_t nodes = 0;
    for (uint64_t w = per; w >= 1; w /= s->base_arity) {
        nodes += w;
        if (w == 1) break;
    }
    t->shape = *s;
    t->leaves = n;
    t->base_levels = bl;
    t->base_nodes = nodes;
    t->base = malloc(sizeof(cuzk_fr) * nodes * count);
    size_t nsub = s->top_arity ? s->top_arity : 1;
    t->sub_roots = malloc(sizeof(cuzk_fr) * nsub);
    if (!t->base || !t->sub_roots) {
        cuzk_merkle_tree_free(t);
        return CUZK_ERR_NO_MEMORY;
    }
    int err = 0;
    cuzk_fr *roots = malloc(sizeof(cuzk_fr) * count);
    if (!roots) err = CUZK_ERR_NO_MEMORY;
    for (size_t b = 0; b < count && !err; b++) {
        cuzk_fr *tree = &t->base[b * nodes];
        memcpy(tree, &leaves[b * per], sizeof(cuzk_fr) * per);
        size_t in = 0, outp = per;
        for (uint64_t w = per; w > 1 && !err; w /= s->base_arity) {
            for (uint64_t i = 0; i < w / s->base_arity && !err; i++)
                err = cuzk_tree_hash_node(&tree[outp + i], s->hash, &tree[in + i * s->base_arity], s->base_arity);
            in = outp;
            outp += w / s->base_arity;
        }
        roots[b] = tree[nodes - 1];
    }
    if (!err) {
        if (!s->sub_arity) {
            t->sub_roots[0] = roots[0];
        } else {
            for (size_t k = 0; k < nsub && !err; k++)
                err = cuzk_tree_hash_node(&t->sub_roots[k], s->hash, &roots[k * s->sub_arity], s->sub_arity);
        }
    }
    if (!err) {
        if (s->top_arity) err = cuzk_tree_hash_node(&t->root, s->hash, t->sub_roots, s->top_arity);
        else t->root = t->sub_roots[0];
    }
    free(roots);
    if (err) cuzk_merkle_tree_free(t);
    return err;
}

/* Writes the arity - 1 siblings of position pos within group[0..arity). */
static cuzk_fr *put_siblings(cuzk_fr *out, const cuzk_fr *group, unsigned arity, unsigned pos)
{
    for (unsigned i = 0; i < arity; i++)
        if (i != pos) *out++ = group[i];
    return out;
}

int cuzk_merkle_tree_path(const cuzk_merkle_tree *t, uint64_t challenge, cuzk_fr *siblings)
{
    if (!t->base || challenge >= t->leaves) return CUZK_ERR_INVALID_ARG;
    const cuzk_tree_shape *s = &t->shape;
    size_t count = cuzk_tree_base_count(s);
    uint64_t per = t->leaves / count, b = challenge / per, idx = challenge % per;
    const cuzk_fr *tree = &t->base[b * t->base_nodes];
    size_t off = 0;
    for (uint64_t w = per; w > 1; w /= s->base_arity) {
        uint64_t g = idx - idx % s->base_arity;
        siblings = put_siblings(siblings, &tree[off + g], s->base_arity, (unsigned)(idx % s->base_arity));
        off += w;
        idx /= s->base_arity;
    }
    if (s->sub_arity) {
        uint64_t g = b - b % s->sub_arity;
        cuzk_fr roots[16];
        for (unsigned i = 0; i < s->sub_arity; i++) roots[i] = t->base[(g + i) * t->base_nodes + t->base_nodes - 1];
        siblings = put_siblings(siblings, roots, s->sub_arity, (unsigned)(b % s->sub_arity));
    }
    if (s->top_arity) put_siblings(siblings, t->sub_roots, s->top_arity, (unsigned)(b / s->sub_arity));
    return 0;
}

int cuzk_merkle_path_root(cuzk_fr *root, const cuzk_tree_shape *s, uint64_t leaves, uint64_t challenge,
                          const cuzk_fr *leaf, const cuzk_fr *siblings)
{
    size_t levels = cuzk_tree_levels(s, leaves);
    if (!levels || challenge >= leaves) return CUZK_ERR_INVALID_ARG;
    cuzk_fr cur = *leaf, group[16];
    uint64_t c = challenge;
    for (size_t l = 0; l < levels; l++) {
        unsigned a = cuzk_tree_level_arity(s, leaves, l), pos = (unsigned)(c % a);
        for (unsigned i = 0, k = 0; i < a; i++) group[i] = i == pos ? cur : siblings[k++];
        siblings += a - 1;
        c /= a;
        int err = cuzk_tree_hash_node(&cur, s->hash, group, a);
        if (err) return err;
    }
    *root = cur;
    return 0;
}
