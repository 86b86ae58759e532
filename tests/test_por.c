/*
 * Merkle inclusion (PoR) circuit: constraint and input counts equal
 * storage-proofs-core tests/por_circuit.rs for every tree shape it lists
 * (Poseidon and SHA-256, public and private roots), insert costs of
 * insertion.rs (8 for arity 4, 22 for arity 8, size·(size-1) in general), the
 * witness satisfies TestCS against natively built trees (Poseidon vectors
 * are checked in test_poseidon, SHA-256 nodes here against OpenSSL), public
 * inputs are the challenge and the root, and a wrong sibling or root fails.
 */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/gadgets/merkle.h"
#include "cs_sys4.h"
#include "testutil.h"

static void test_insert(cuzk_rng *rng)
{
    static const struct {
        unsigned nbits;
        size_t constraints;
    } cases[] = {{1, 2}, {2, 8}, {3, 22}, {4, 240}};
    for (size_t c = 0; c < 4; c++) {
        unsigned nb = cases[c].nbits, n = 1u << nb;
        for (unsigned idx = 0; idx < n; idx++) {
            cuzk_test_cs *t = cuzk_test_cs_new();
            cuzk_cs *cs = &t->base;
            cuzk_cs_alloc_one(cs);
            cuzk_fr v[16];
            for (unsigned i = 0; i < n; i++) cuzk_fr_random(&v[i], rng);
            cuzk_bool bits[4];
            for (unsigned j = 0; j < nb; j++) bits[j] = cuzk_bool_alloc(cs, (idx >> j) & 1);
            cuzk_num x = cuzk_num_alloc(cs, &v[0]), sib[15], out[16];
            for (unsigned i = 0; i + 1 < n; i++) sib[i] = cuzk_num_alloc(cs, &v[i + 1]);
            size_t c0 = cs->num_constraints;
            cuzk_insert(cs, &x, bits, nb, sib, out);
            CHECK_MSG(cs->num_constraints - c0 == cases[c].constraints, "insert %u: %zu constraints", n,
                      cs->num_constraints - c0);
            bool ok = true;
            for (unsigned p = 0; p < n; p++) {
                const cuzk_fr *want = p < idx ? &v[p + 1] : p == idx ? &v[0] : &v[p];
                ok &= cuzk_fr_eq(&out[p].value, want);
            }
            CHECK_MSG(ok && cuzk_test_cs_is_satisfied(t), "insert %u at %u", n, idx);
            cuzk_cs_free(cs);
        }
    }
}

typedef struct shape_case {
    cuzk_tree_shape s;
    size_t constraints;
} shape_case;

/* storage-proofs-core tests/por_circuit.rs (root public; private is one fewer). */
static const shape_case CASES[] = {
    {{CUZK_TREE_POSEIDON, 2, 0, 0}, 1887},   {{CUZK_TREE_POSEIDON, 4, 0, 0}, 1164},
    {{CUZK_TREE_POSEIDON, 8, 0, 0}, 1063},   {{CUZK_TREE_POSEIDON, 8, 2, 0}, 1377},
    {{CUZK_TREE_POSEIDON, 8, 4, 2}, 1764},   {{CUZK_TREE_POSEIDON, 8, 8, 0}, 1593},
    {{CUZK_TREE_POSEIDON, 8, 8, 2}, 1907},   {{CUZK_TREE_POSEIDON, 8, 2, 4}, 1764},
    {{CUZK_TREE_SHA256, 2, 0, 0}, 272295},   {{CUZK_TREE_SHA256, 4, 0, 0}, 216258},
    {{CUZK_TREE_SHA256, 8, 0, 0}, 250987},
};

/* Runs one proof on cs; returns the number of constraints. */
static size_t run_por(cuzk_cs *cs, const cuzk_merkle_tree *tree, uint64_t ch, const cuzk_fr *leaves,
                      const cuzk_fr *sib, const cuzk_fr *root, bool priv)
{
    cuzk_por_io io = {.shape = tree->shape,
                      .leaves = tree->leaves,
                      .challenge = ch,
                      .siblings = sib,
                      .leaf_value = leaves[ch],
                      .root_value = *root,
                      .private_root = priv};
    cuzk_cs_alloc_one(cs);
    CHECK(cuzk_por_circuit(cs, &io) == 0);
    return cs->num_constraints;
}

static void test_shape(cuzk_rng *rng, const shape_case *c, bool full)
{
    const cuzk_tree_shape *s = &c->s;
    uint64_t n = 64 * cuzk_tree_base_count(s);
    cuzk_fr *leaves = malloc(sizeof(cuzk_fr) * n);
    for (uint64_t i = 0; i < n; i++) cuzk_fr_random(&leaves[i], rng);
    cuzk_merkle_tree tree;
    CHECK(cuzk_merkle_tree_build(&tree, s, leaves, n) == 0);
    size_t plen = cuzk_tree_path_len(s, n);
    cuzk_fr *sib = malloc(sizeof(cuzk_fr) * plen);
    int rounds = full ? 2 : 1;
    for (int r = 0; r < rounds; r++) {
        uint64_t ch = cuzk_rng_u64(rng) % n;
        CHECK(cuzk_merkle_tree_path(&tree, ch, sib) == 0);
        cuzk_fr root;
        CHECK(cuzk_merkle_path_root(&root, s, n, ch, &leaves[ch], sib) == 0 && cuzk_fr_eq(&root, &tree.root));
        /* SHA-256 trees are large: their private-root variant only in the Poseidon cases */
        for (int priv = 0; priv < (full ? 2 : 1); priv++) {
            cuzk_test_cs *t = cuzk_test_cs_new();
            size_t nc = run_por(&t->base, &tree, ch, leaves, sib, &tree.root, priv);
            CHECK_MSG(nc == c->constraints - (size_t)priv, "shape %u-%u-%u hash %d private %d: %zu constraints",
                      s->base_arity, s->sub_arity, s->top_arity, s->hash, priv, nc);
            CHECK(t->base.num_inputs == (priv ? 2u : 3u));
            CHECK_MSG(cuzk_test_cs_is_satisfied(t) && t->base.err == 0, "unsatisfied at %s",
                      t->first_unsat ? t->first_unsat : "?");
            cuzk_fr chf;
            cuzk_fr_set_u64(&chf, ch);
            CHECK(cuzk_fr_eq(&t->input.v[1], &chf));
            if (!priv) CHECK(cuzk_fr_eq(&t->input.v[2], &tree.root));
            cuzk_cs_free(&t->base);
        }
        if (!full) continue;
        /* a wrong sibling, or a wrong root, is caught */
        size_t k = cuzk_rng_u64(rng) % plen;
        cuzk_fr keep = sib[k];
        cuzk_fr_add(&sib[k], &sib[k], &cuzk_fr_one);
        cuzk_test_cs *t = cuzk_test_cs_new();
        run_por(&t->base, &tree, ch, leaves, sib, &tree.root, true);
        CHECK(!cuzk_test_cs_is_satisfied(t) && t->first_unsat && strstr(t->first_unsat, "enforce root is correct"));
        cuzk_cs_free(&t->base);
        sib[k] = keep;
        cuzk_fr bad;
        cuzk_fr_add(&bad, &tree.root, &cuzk_fr_one);
        t = cuzk_test_cs_new();
        run_por(&t->base, &tree, ch, leaves, sib, &bad, false);
        CHECK(!cuzk_test_cs_is_satisfied(t));
        cuzk_cs_free(&t->base);
    }
    if (full) { /* the blank circuit (RecordingCS, no values) has the same shape */
        cuzk_recording_cs *rc = cuzk_recording_cs_new();
        cuzk_por_io io = {.shape = *s, .leaves = n, .challenge = 0, .siblings = NULL, .private_root = false};
        cuzk_cs_alloc_one(&rc->base);
        CHECK(cuzk_por_circuit(&rc->base, &io) == 0 && rc->base.num_constraints == c->constraints);
        cuzk_cs_free(&rc->base);
    }
    free(sib);
    free(leaves);
    cuzk_merkle_tree_free(&tree);
}

static void test_sha_node(cuzk_rng *rng)
{
    cuzk_fr ch[8], h;
    uint8_t buf[256], md[32];
    for (int i = 0; i < 8; i++) {
        cuzk_fr_random(&ch[i], rng);
        cuzk_fr_to_le32(&buf[32 * i], &ch[i]);
    }
    unsigned len;
    EVP_Digest(buf, 256, md, &len, EVP_sha256(), NULL);
    md[31] &= 0x3f;
    cuzk_fr want;
    cuzk_fr_from_le32(&want, md);
    CHECK(cuzk_tree_hash_node(&h, CUZK_TREE_SHA256, ch, 8) == 0 && cuzk_fr_eq(&h, &want));
}

static void test_parity(cuzk_rng *rng)
{
    cuzk_tree_shape s = {CUZK_TREE_POSEIDON, 8, 8, 2};
    uint64_t n = 64 * 16;
    cuzk_fr *leaves = malloc(sizeof(cuzk_fr) * n);
    for (uint64_t i = 0; i < n; i++) cuzk_fr_random(&leaves[i], rng);
    cuzk_merkle_tree tree;
    cuzk_merkle_tree_build(&tree, &s, leaves, n);
    cuzk_fr sib[64];
    uint64_t ch = cuzk_rng_u64(rng) % n;
    cuzk_merkle_tree_path(&tree, ch, sib);
    sys4 sy;
    sys_new(&sy);
    for (int k = 0; k < 4; k++) {
        cuzk_cs *cs = sys_get(&sy, k);
        run_por(cs, &tree, ch, leaves, sib, &tree.root, false);
        cuzk_cs_finalize(cs);
    }
    check_parity(&sy, "por 8-8-2");
    sys_free(&sy);
    cuzk_merkle_tree_free(&tree);
    free(leaves);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_por");
    test_insert(&rng);
    test_sha_node(&rng);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        test_shape(&rng, &CASES[i], CASES[i].s.hash == CUZK_TREE_POSEIDON);
    test_parity(&rng);
    cuzk_tree_shape bad = {CUZK_TREE_POSEIDON, 3, 0, 0};
    CHECK(cuzk_tree_levels(&bad, 27) == 0);
    cuzk_tree_shape odd = {CUZK_TREE_POSEIDON, 8, 0, 0};
    CHECK(cuzk_tree_levels(&odd, 48) == 0 && cuzk_tree_levels(&odd, 64) == 2);
    return tu_finish("test_por");
}
