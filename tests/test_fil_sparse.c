/*
 * The synthetic sectors' trees (src/filecoin_gen/sparse.c) against the whole-tree builder
 * (cuzk_merkle_tree_build) over the expanded leaves: run trees (leaves constant over aligned
 * runs) of random shapes (binary SHA-256, oct Poseidon with and without sub/top levels) and
 * run lengths, from one run to every leaf its own: the root, every node's path, and sparse
 * trees over random opened leaves filled from the run tree (fil_runtree_fill) give the same
 * root and paths. Bad shapes and run lengths are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "filecoin_gen/gen_internal.h"
#include "testutil.h"

static void one(cuzk_rng *rng, const cuzk_tree_shape *shape, uint64_t nodes, unsigned run_bits, const char *what)
{
    uint64_t runs = nodes >> run_bits;
    cuzk_fr *run_leaf = malloc(sizeof(cuzk_fr) * runs), *leaves = malloc(sizeof(cuzk_fr) * nodes);
    for (uint64_t j = 0; j < runs; j++) cuzk_fr_random(&run_leaf[j], rng);
    for (uint64_t i = 0; i < nodes; i++) leaves[i] = run_leaf[i >> run_bits];
    cuzk_merkle_tree full;
    fil_runtree rt;
    CHECK(cuzk_merkle_tree_build(&full, shape, leaves, nodes) == 0);
    CHECK_MSG(fil_runtree_build(&rt, shape, nodes, run_bits, run_leaf) == 0, "%s", what);
    CHECK_MSG(cuzk_fr_eq(&rt.root, &full.root), "%s: root", what);
    cuzk_fr r;
    fil_runtree_node(&rt, rt.levels, 0, &r);
    CHECK(cuzk_fr_eq(&r, &full.root));

    /* a sparse tree over random opened leaves (sorted, unique), its fill the run tree */
    size_t plen = cuzk_tree_path_len(shape, nodes), n = 1 + cuzk_rng_u64(rng) % 12, u = 0;
    uint64_t idx[12];
    cuzk_fr val[12], want[64 * 8], got[64 * 8];
    for (size_t i = 0; i < n; i++) idx[i] = cuzk_rng_u64(rng) % nodes;
    qsort(idx, n, sizeof(uint64_t), fil_u64cmp);
    for (size_t i = 0; i < n; i++)
        if (!u || idx[u - 1] != idx[i]) idx[u++] = idx[i];
    for (size_t i = 0; i < u; i++) fil_runtree_node(&rt, 0, idx[i], &val[i]);
    fil_sparse sp;
    CHECK(fil_sparse_build(&sp, shape, nodes, idx, val, u, fil_runtree_fill, &rt) == 0);
    CHECK_MSG(cuzk_fr_eq(&sp.root, &full.root), "%s: sparse root", what);
    for (size_t i = 0; i < u; i++) {
        CHECK(cuzk_fr_eq(&val[i], &leaves[idx[i]]));
        CHECK(cuzk_merkle_tree_path(&full, idx[i], want) == 0);
        CHECK(fil_sparse_path(&sp, idx[i], got) == 0);
        CHECK_MSG(!memcmp(want, got, sizeof(cuzk_fr) * plen), "%s: path of leaf %llu", what,
                  (unsigned long long)idx[i]);
    }
    /* every node but the root is some leaf's sibling: every path read off fil_runtree_node */
    size_t bad = 0;
    for (uint64_t i = 0; i < nodes; i++) {
        cuzk_fr *o = got;
        uint64_t x = i;
        for (size_t l = 0; l < rt.levels; l++) {
            unsigned a = cuzk_tree_level_arity(shape, nodes, l);
            for (unsigned j = 0; j < a; j++)
                if (j != x % a) fil_runtree_node(&rt, l, x - x % a + j, o++);
            x /= a;
        }
        CHECK(cuzk_merkle_tree_path(&full, i, want) == 0);
        bad += memcmp(want, got, sizeof(cuzk_fr) * plen) != 0;
    }
    CHECK_MSG(bad == 0, "%s: %zu paths differ", what, bad);
    fil_sparse_free(&sp);
    fil_runtree_free(&rt);
    cuzk_merkle_tree_free(&full);
    free(run_leaf);
    free(leaves);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_fil_sparse");
    static const cuzk_tree_shape shapes[] = {
        {CUZK_TREE_SHA256, 2, 0, 0},    {CUZK_TREE_POSEIDON, 8, 0, 0}, {CUZK_TREE_POSEIDON, 8, 8, 0},
        {CUZK_TREE_POSEIDON, 8, 8, 2},  {CUZK_TREE_POSEIDON, 8, 2, 0}, {CUZK_TREE_POSEIDON, 8, 4, 0},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const cuzk_tree_shape *sh = &shapes[s];
        for (int rep = 0; rep < 3; rep++) {
            /* a random size the shape allows (2^6 .. 2^12 base leaves per base tree) */
            unsigned bb = sh->base_arity == 2 ? 4 + (unsigned)(cuzk_rng_u64(&rng) % 9)
                                              : 3 * (2 + (unsigned)(cuzk_rng_u64(&rng) % 3));
            if (sh->base_arity == 8 && bb > 9 && (sh->sub_arity || sh->top_arity)) bb = 6;
            uint64_t nodes = (1ull << bb) * cuzk_tree_base_count(sh);
            unsigned log = (unsigned)__builtin_ctzll(nodes), run_bits = (unsigned)(cuzk_rng_u64(&rng) % (log + 1));
            char what[96];
            snprintf(what, sizeof what, "shape %zu, %llu leaves, runs of 2^%u", s, (unsigned long long)nodes,
                     run_bits);
            one(&rng, sh, nodes, run_bits, what);
        }
        /* the two ends: every leaf its own, one run */
        uint64_t nodes = (sh->base_arity == 2 ? 64u : 512u) * cuzk_tree_base_count(sh);
        one(&rng, sh, nodes, 0, "every leaf its own");
        one(&rng, sh, nodes, (unsigned)__builtin_ctzll(nodes), "one run");
    }
    fil_runtree rt;
    cuzk_fr z[2] = {cuzk_fr_zero, cuzk_fr_zero};
    static const cuzk_tree_shape oct = {CUZK_TREE_POSEIDON, 8, 0, 0}, three = {CUZK_TREE_POSEIDON, 3, 0, 0};
    CHECK(fil_runtree_build(&rt, &oct, 64, 7, z) == CUZK_ERR_INVALID_ARG);  /* runs longer than the tree */
    CHECK(fil_runtree_build(&rt, &oct, 48, 0, z) == CUZK_ERR_INVALID_ARG);  /* not a tree of this shape */
    CHECK(fil_runtree_build(&rt, &three, 9, 0, z) == CUZK_ERR_INVALID_ARG); /* spans not powers of two */
    return tu_finish("test_fil_sparse");
}
