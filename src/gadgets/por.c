/*
 * Merkle inclusion circuit as storage-proofs-core builds it: insertion.rs
 * (pick, insert_2/4/8, select) and por.rs (PoRCircuit), and the tree hashes
 * of filecoin-hashers (Poseidon, SHA-256) in circuit form.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/util/error.h"
#include "cuzk/gadgets/merkle.h"
#include "cuzk/gadgets/poseidon.h"

cuzk_num cuzk_pick(cuzk_cs *cs, const cuzk_bool *cond, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_num c;
    c.value = cuzk_bool_value(cond) ? a->value : b->value;
    cuzk_cs_push_ns(cs, "pick result");
    c.var = cuzk_cs_alloc(cs, "num", &c.value);
    cuzk_cs_pop_ns(cs);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return c;
    }
    cuzk_lc la, lb, lc;
    cuzk_lc_init(&la);
    cuzk_lc_init(&lb);
    cuzk_lc_init(&lc);
    cuzk_lc_add_var(&la, b->var);
    cuzk_lc_sub_var(&la, a->var);
    cuzk_bool_lc_add(&lb, cond, &cuzk_fr_one);
    cuzk_lc_add_var(&lc, b->var);
    cuzk_lc_sub_var(&lc, c.var);
    cuzk_cs_enforce(cs, "pick", &la, &lb, &lc);
    cuzk_lc_free(&la);
    cuzk_lc_free(&lb);
    cuzk_lc_free(&lc);
    return c;
}

static cuzk_num pick_ns(cuzk_cs *cs, const char *ns, const cuzk_bool *cond, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_num r = cuzk_pick(cs, cond, a, b);
    cuzk_cs_pop_ns(cs);
    return r;
}

cuzk_num cuzk_select(cuzk_cs *cs, const cuzk_num *from, const cuzk_bool *bits, unsigned nbits)
{
    size_t n = (size_t)1 << nbits, half = n / 2;
    cuzk_num *state = malloc(sizeof(cuzk_num) * n);
    if (!state) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return from[0];
    }
    for (size_t i = 0; i < n; i++) state[i] = from[i];
    for (unsigned i = 0; i < nbits; i++, half /= 2) {
        const cuzk_bool *bit = &bits[nbits - 1 - i];
        for (size_t j = 0; j < half; j++) {
            cuzk_cs_push_ns(cs, "pick %u, %zu", i, j);
            state[j] = cuzk_pick(cs, bit, &state[half + j], &state[j]);
            cuzk_cs_pop_ns(cs);
        }
    }
    cuzk_num r = state[0];
    free(state);
    return r;
}

static void insert_4(cuzk_cs *cs, const cuzk_num *x, const cuzk_bool *bits, const cuzk_num *e, cuzk_num *out)
{
    const cuzk_bool *b0 = &bits[0], *b1 = &bits[1];
    const cuzk_num *a = x, *b = &e[0], *c = &e[1], *d = &e[2];
    cuzk_num t;
    t = pick_ns(cs, "p0_x0", b0, b, a);
    out[0] = pick_ns(cs, "p0", b1, b, &t);
    t = pick_ns(cs, "p1_x0", b0, a, b);
    out[1] = pick_ns(cs, "p1", b1, c, &t);
    t = pick_ns(cs, "p2_x1", b0, d, a);
    out[2] = pick_ns(cs, "p2", b1, &t, c);
    t = pick_ns(cs, "p3_x1", b0, a, d);
    out[3] = pick_ns(cs, "p3", b1, &t, d);
}

static void insert_8(cuzk_cs *cs, const cuzk_num *x, const cuzk_bool *bits, const cuzk_num *e, cuzk_num *out)
{
    const cuzk_bool *b0 = &bits[0], *b1 = &bits[1], *b2 = &bits[2];
    if (b0->kind != CUZK_BOOL_IS || b1->kind != CUZK_BOOL_IS) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG); /* storage-proofs panics here */
        return;
    }
    const cuzk_num *a = x, *b = &e[0], *c = &e[1], *d = &e[2], *ee = &e[3], *f = &e[4], *g = &e[5],
                   *h = &e[6];
    cuzk_abit ab0 = {b0->var, b0->bit}, ab1 = {b1->var, b1->bit};
    cuzk_cs_push_ns(cs, "b0 nor b1");
    cuzk_bool nor = cuzk_bool_from_abit(cuzk_abit_nor(cs, &ab0, &ab1));
    cuzk_cs_pop_ns(cs);
    cuzk_cs_push_ns(cs, "b0 and b1");
    cuzk_bool and = cuzk_bool_from_abit(cuzk_abit_and(cs, &ab0, &ab1));
    cuzk_cs_pop_ns(cs);
    cuzk_num t, u;
    t = pick_ns(cs, "p0_xx0", &nor, a, b);
    out[0] = pick_ns(cs, "p0", b2, b, &t);

    t = pick_ns(cs, "p1_x00", b0, a, b);
    u = pick_ns(cs, "p1_xx0", b1, c, &t);
    out[1] = pick_ns(cs, "p1", b2, c, &u);

    t = pick_ns(cs, "p2_x10", b0, d, a);
    u = pick_ns(cs, "p2_xx0", b1, &t, c);
    out[2] = pick_ns(cs, "p2", b2, d, &u);

    t = pick_ns(cs, "p3_xx0", &and, a, d);
    out[3] = pick_ns(cs, "p3", b2, ee, &t);

    t = pick_ns(cs, "p4_xx1", &nor, a, f);
    out[4] = pick_ns(cs, "p4", b2, &t, ee);

    t = pick_ns(cs, "p5_x01", b0, a, f);
    u = pick_ns(cs, "p5_xx1", b1, g, &t);
    out[5] = pick_ns(cs, "p5", b2, &u, f);

    t = pick_ns(cs, "p6_x11", b0, h, a);
    u = pick_ns(cs, "p6_xx1", b1, &t, g);
    out[6] = pick_ns(cs, "p6", b2, &u, g);

    t = pick_ns(cs, "p7_xx1", &and, a, h);
    out[7] = pick_ns(cs, "p7", b2, &t, h);
}

void cuzk_insert(cuzk_cs *cs, const cuzk_num *element, const cuzk_bool *bits, unsigned nbits,
                 const cuzk_num *siblings, cuzk_num *out)
{
    size_t n = (size_t)1 << nbits;
    if (n == 2) {
        out[0] = pick_ns(cs, "binary insert 0", &bits[0], &siblings[0], element);
        out[1] = pick_ns(cs, "binary insert 1", &bits[0], element, &siblings[0]);
        return;
    }
    if (n == 4) {
        insert_4(cs, element, bits, siblings, out);
        return;
    }
    if (n == 8) {
        insert_8(cs, element, bits, siblings, out);
        return;
    }
    /* general: for each position, select among the candidates of every index */
    cuzk_num *choices = malloc(sizeof(cuzk_num) * n);
    if (!choices) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return;
    }
    for (size_t pos = 0; pos < n; pos++) {
        for (size_t index = 0; index < n; index++)
            choices[index] = pos < index ? siblings[pos] : pos == index ? *element : siblings[pos - 1];
        cuzk_cs_push_ns(cs, "choice at %zu", pos);
        out[pos] = cuzk_select(cs, choices, bits, nbits);
        cuzk_cs_pop_ns(cs);
    }
    free(choices);
}

/* Sha256Function::hash_multi_leaf_circuit: LE bits of each child, byte-reversed, SHA-256, 254 bits packed. */
static cuzk_num sha_node_circuit(cuzk_cs *cs, const cuzk_num *children, unsigned n)
{
    size_t nbits = (size_t)n * 256;
    cuzk_bool *bits = malloc(sizeof(cuzk_bool) * nbits);
    cuzk_bool le[CUZK_FR_NUM_BITS], digest[256];
    if (!bits) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return children[0];
    }
    for (unsigned i = 0; i < n; i++) {
        cuzk_cs_push_ns(cs, "%u_num_into_bits", i);
        cuzk_num_to_bits_le(cs, &children[i], le);
        cuzk_cs_pop_ns(cs);
        cuzk_reverse_bit_numbering(&bits[(size_t)i * 256], le);
    }
    cuzk_cs_push_ns(cs, "hash");
    cuzk_sha256(cs, bits, nbits, digest);
    cuzk_cs_pop_ns(cs);
    free(bits);
    cuzk_cs_push_ns(cs, "pack_le");
    cuzk_num r = cuzk_pack_digest_le(cs, digest);
    cuzk_cs_pop_ns(cs);
    return r;
}

cuzk_num cuzk_tree_hash_circuit(cuzk_cs *cs, cuzk_tree_hash h, const cuzk_num *children, unsigned n)
{
    if (h == CUZK_TREE_SHA256) return sha_node_circuit(cs, children, n);
    cuzk_fr tag;
    cuzk_poseidon_tag_merkle(&tag, n);
    return cuzk_poseidon_hash_circuit(cs, n, &tag, children);
}

static unsigned log2u(unsigned a)
{
    unsigned l = 0;
    while ((1u << l) < a) l++;
    return l;
}

int cuzk_por_circuit(cuzk_cs *cs, const cuzk_por_io *io)
{
    const cuzk_tree_shape *s = &io->shape;
    size_t levels = cuzk_tree_levels(s, io->leaves), base = cuzk_tree_base_levels(s, io->leaves);
    if (!levels) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    size_t nbits_total = 0;
    for (size_t l = 0; l < levels; l++) nbits_total += log2u(cuzk_tree_level_arity(s, io->leaves, l));
    cuzk_bool *path_bits = malloc(sizeof(cuzk_bool) * (nbits_total + 1));
    if (!path_bits) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_num cur;
    if (io->leaf) {
        cur = *io->leaf;
    } else {
        cuzk_cs_push_ns(cs, "value");
        cur = cuzk_num_alloc(cs, &io->leaf_value);
        cuzk_cs_pop_ns(cs);
    }
    uint64_t c = io->challenge;
    const cuzk_fr *sib = io->siblings;
    size_t nb = 0;
    for (size_t l = 0; l < levels; l++) {
        unsigned a = cuzk_tree_level_arity(s, io->leaves, l), k = log2u(a);
        const char *part = l < base ? "base" : (l == base && s->sub_arity) ? "sub" : "top";
        size_t i = l < base ? l : 0;
        cuzk_cs_push_ns(cs, "%s", part);
        cuzk_cs_push_ns(cs, "merkle tree hash %zu", i);
        cuzk_bool *bits = &path_bits[nb];
        for (unsigned j = 0; j < k; j++) {
            cuzk_cs_push_ns(cs, "index bit %u", j);
            bits[j] = cuzk_bool_alloc(cs, (c >> j) & 1);
            cuzk_cs_pop_ns(cs);
        }
        nb += k;
        c >>= k;
        cuzk_num sibs[16], ins[16];
        for (unsigned j = 0; j + 1 < a; j++) {
            cuzk_cs_push_ns(cs, "path element %u", j);
            sibs[j] = cuzk_num_alloc(cs, sib ? &sib[j] : &cuzk_fr_zero);
            cuzk_cs_pop_ns(cs);
        }
        if (sib) sib += a - 1;
        cuzk_insert(cs, &cur, bits, k, sibs, ins);
        cuzk_cs_push_ns(cs, "computation of commitment hash");
        cur = cuzk_tree_hash_circuit(cs, s->hash, ins, a);
        cuzk_cs_pop_ns(cs);
        cuzk_cs_pop_ns(cs);
        cuzk_cs_pop_ns(cs);
    }
    cuzk_cs_push_ns(cs, "path");
    cuzk_pack_into_inputs(cs, path_bits, nbits_total);
    cuzk_cs_pop_ns(cs);
    free(path_bits);
    cuzk_num rt;
    if (io->root) {
        rt = *io->root;
    } else {
        cuzk_cs_push_ns(cs, "root_value");
        rt = cuzk_num_alloc(cs, &io->root_value);
        cuzk_cs_pop_ns(cs);
    }
    cuzk_num_enforce_equal(cs, "enforce root is correct", &cur, &rt);
    if (!io->private_root) {
        cuzk_cs_push_ns(cs, "root");
        cuzk_num_inputize(cs, &rt);
        cuzk_cs_pop_ns(cs);
    }
    return cuzk_cs_error(cs);
}

int cuzk_por_no_challenge_input(cuzk_cs *cs, const cuzk_tree_shape *shape, uint64_t leaves,
                                const cuzk_bool *bits, const cuzk_num *leaf, const cuzk_num *siblings,
                                const cuzk_num *root)
{
    size_t levels = cuzk_tree_levels(shape, leaves); /* 0 for a single leaf: the root check only */
    if (!levels && leaves != 1) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    cuzk_num cur = *leaf, children[16];
    for (size_t l = 0; l < levels; l++) {
        unsigned arity = cuzk_tree_level_arity(shape, leaves, l), nb = log2u(arity);
        cuzk_cs_push_ns(cs, "merkle proof insert (height=%zu)", l);
        cuzk_insert(cs, &cur, bits, nb, siblings, children);
        cuzk_cs_pop_ns(cs);
        cuzk_cs_push_ns(cs, "merkle proof hash (height=%zu)", l);
        cur = cuzk_tree_hash_circuit(cs, shape->hash, children, arity);
        cuzk_cs_pop_ns(cs);
        bits += nb;
        siblings += arity - 1;
    }
    cuzk_num_enforce_equal(cs, "calculated root == provided root", &cur, root);
    return cuzk_cs_error(cs);
}
