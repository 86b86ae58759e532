/*
 * Poseidon circuit gadget, constraint-exact with neptune 11's
 * circuit::poseidon_hash (the "legacy" circuit that filecoin-hashers and
 * storage-proofs use): every state element is either an allocated number or
 * a linear combination (Elt::Allocated / Elt::Num); S-box inputs that are
 * combinations get allocated with one "preserves lc" constraint, each S-box
 * costs three more, MDS layers are free.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/util/error.h"
#include "cuzk/gadgets/poseidon.h"

typedef struct elt {
    bool alloc;
    cuzk_var var;     /* alloc only */
    cuzk_numlc n;     /* value always; lc only when !alloc and the constraint system builds lcs */
} elt;

static void elt_set_alloc(elt *e, const cuzk_num *x)
{
    e->alloc = true;
    e->var = x->var;
    e->n.value = x->value;
    cuzk_lc_clear(&e->n.lc);
}

/* Elt::num_from_fr: the constant v as v·ONE. */
static void elt_set_const(cuzk_cs *cs, elt *e, const cuzk_fr *v)
{
    e->alloc = false;
    e->n.value = *v;
    cuzk_lc_clear(&e->n.lc);
    if (!cuzk_cs_skip_lcs(cs)) cuzk_lc_add(&e->n.lc, CUZK_CS_ONE, v);
}

/* acc += s·e (Num::add of Elt::scale). */
static void elt_acc_scaled(cuzk_cs *cs, elt *acc, const elt *e, const cuzk_fr *s)
{
    cuzk_fr t;
    cuzk_fr_mul(&t, &e->n.value, s);
    cuzk_fr_add(&acc->n.value, &acc->n.value, &t);
    if (cuzk_cs_skip_lcs(cs)) return;
    if (e->alloc) cuzk_lc_add(&acc->n.lc, e->var, s);
    else cuzk_lc_add_scaled(&acc->n.lc, s, &e->n.lc);
}

static void enforce_free(cuzk_cs *cs, const char *name, cuzk_lc *a, cuzk_lc *b, cuzk_lc *c)
{
    cuzk_cs_enforce(cs, name, a, b, c);
    cuzk_lc_free(a);
    cuzk_lc_free(b);
    cuzk_lc_free(c);
}

/* Elt::ensure_allocated(cs.namespace(ns), enforce = true). */
static cuzk_num ensure_allocated(cuzk_cs *cs, const char *ns, const elt *e)
{
    if (e->alloc) return (cuzk_num){e->var, e->n.value};
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_cs_push_ns(cs, "allocate for Elt::Num");
    cuzk_num v = cuzk_num_alloc(cs, &e->n.value);
    cuzk_cs_pop_ns(cs);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
    } else {
        cuzk_lc b, c;
        cuzk_lc_init(&b);
        cuzk_lc_init(&c);
        cuzk_lc_add_var(&b, CUZK_CS_ONE);
        cuzk_lc_add_var(&c, v.var);
        cuzk_cs_enforce(cs, "enforce num allocation preserves lc", &e->n.lc, &b, &c);
        cuzk_lc_free(&b);
        cuzk_lc_free(&c);
    }
    cuzk_cs_pop_ns(cs);
    return v;
}

static void lc_var_plus_const(cuzk_lc *lc, cuzk_var v, const cuzk_fr *k)
{
    cuzk_lc_init(lc);
    cuzk_lc_add_var(lc, v);
    if (k) cuzk_lc_add(lc, CUZK_CS_ONE, k);
}

/* neptune square_sum: (num + k)^2. */
static cuzk_num square_sum(cuzk_cs *cs, const char *ns, const cuzk_fr *k, const cuzk_num *x)
{
    cuzk_num r;
    cuzk_fr_add(&r.value, &x->value, k);
    cuzk_fr_sqr(&r.value, &r.value);
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_cs_push_ns(cs, "squared sum");
    r.var = cuzk_cs_alloc(cs, "num", &r.value);
    cuzk_cs_pop_ns(cs);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
    } else {
        cuzk_lc a, b, c;
        lc_var_plus_const(&a, x->var, k);
        lc_var_plus_const(&b, x->var, k);
        lc_var_plus_const(&c, r.var, NULL);
        enforce_free(cs, "squared sum constraint", &a, &b, &c);
    }
    cuzk_cs_pop_ns(cs);
    return r;
}

/* neptune mul_sum: (b + pre)·a + post, constraint (b + pre)·a = res - post. */
static cuzk_num mul_sum(cuzk_cs *cs, const char *ns, const cuzk_num *a, const cuzk_num *b,
                        const cuzk_fr *pre, const cuzk_fr *post)
{
    cuzk_num r;
    r.value = b->value;
    if (pre) cuzk_fr_add(&r.value, &r.value, pre);
    cuzk_fr_mul(&r.value, &r.value, &a->value);
    if (post) cuzk_fr_add(&r.value, &r.value, post);
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_cs_push_ns(cs, "mul_sum");
    r.var = cuzk_cs_alloc(cs, "num", &r.value);
    cuzk_cs_pop_ns(cs);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
    } else {
        cuzk_lc la, lb, lc;
        lc_var_plus_const(&la, b->var, pre);
        lc_var_plus_const(&lb, a->var, NULL);
        cuzk_fr neg;
        if (post) cuzk_fr_neg(&neg, post);
        lc_var_plus_const(&lc, r.var, post ? &neg : NULL);
        const char *name = post ? (pre ? "mul sum constraint pre-post-add" : "mul sum constraint post-add")
                                : (pre ? "mul sum constraint pre-add" : "mul sum constraint");
        enforce_free(cs, name, &la, &lb, &lc);
    }
    cuzk_cs_pop_ns(cs);
    return r;
}

static cuzk_num square_ns(cuzk_cs *cs, const char *ns, const cuzk_num *x)
{
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_num r = cuzk_num_square(cs, x);
    cuzk_cs_pop_ns(cs);
    return r;
}

typedef struct pcirc {
    cuzk_cs *cs;
    const cuzk_poseidon_constants *c;
    elt *e, *tmp; /* width each */
    unsigned round;
    size_t off;   /* into compressed constants */
} pcirc;

/* Product with the matrix of the current round (neptune product_mds). */
static void product_mds(pcirc *p)
{
    const cuzk_poseidon_constants *c = p->c;
    unsigned n = c->width, half = c->full_rounds / 2, r = p->round++;
    cuzk_cs *cs = p->cs;
    for (unsigned j = 0; j < n; j++) {
        p->tmp[j].alloc = false;
        p->tmp[j].n.value = cuzk_fr_zero;
        cuzk_lc_clear(&p->tmp[j].n.lc);
    }
    if (r >= half && r < half + c->partial_rounds) {
        const cuzk_fr *w = &c->w_hat[(size_t)(r - half) * n], *v = &c->v_rest[(size_t)(r - half) * (n - 1)];
        for (unsigned i = 0; i < n; i++) elt_acc_scaled(cs, &p->tmp[0], &p->e[i], &w[i]);
        for (unsigned j = 1; j < n; j++) {
            elt_acc_scaled(cs, &p->tmp[j], &p->e[j], &cuzk_fr_one);
            elt_acc_scaled(cs, &p->tmp[j], &p->e[0], &v[j - 1]);
        }
    } else {
        const cuzk_fr *m = r + 1 == half ? c->pre_sparse : c->mds;
        for (unsigned j = 0; j < n; j++)
            for (unsigned i = 0; i < n; i++) elt_acc_scaled(cs, &p->tmp[j], &p->e[i], &m[(size_t)i * n + j]);
    }
    elt *t = p->e;
    p->e = p->tmp;
    p->tmp = t;
}

/* Generic S-box on element i with an optional post-add key. */
static void sbox_elt(pcirc *p, unsigned i, const cuzk_fr *post)
{
    cuzk_cs *cs = p->cs;
    cuzk_num l = ensure_allocated(cs, "S-box input", &p->e[i]);
    cuzk_num l2 = square_ns(cs, "l^2", &l);
    cuzk_num l4 = square_ns(cs, "l^4", &l2);
    cuzk_num l5 = mul_sum(cs, "(l4 * l) + rk)", &l4, &l, NULL, post);
    elt_set_alloc(&p->e[i], &l5);
}

static void full_round(pcirc *p, bool first, bool last)
{
    const cuzk_poseidon_constants *c = p->c;
    cuzk_cs *cs = p->cs;
    unsigned n = c->width;
    const cuzk_fr *pre = first ? &c->compressed[p->off] : NULL;
    if (first) p->off += n;
    const cuzk_fr *post = (first || !last) ? &c->compressed[p->off] : NULL;
    if (post) p->off += n;
    for (unsigned i = 0; i < n; i++) {
        if (first && i == 0) {
            /* the tag is a constant: its S-box is computed, not constrained */
            cuzk_fr v;
            cuzk_fr_add(&v, &p->e[0].n.value, &pre[0]);
            cuzk_fr t;
            cuzk_fr_sqr(&t, &v);
            cuzk_fr_sqr(&t, &t);
            cuzk_fr_mul(&v, &v, &t);
            cuzk_fr_add(&v, &v, &post[0]);
            elt_set_const(cs, &p->e[0], &v);
            continue;
        }
        cuzk_cs_push_ns(cs, "quintic s-box %u", i);
        if (first) {
            cuzk_num l = ensure_allocated(cs, "S-box input", &p->e[i]);
            cuzk_num l2 = square_sum(cs, "(l+rk)^2", &pre[i], &l);
            cuzk_num l4 = square_ns(cs, "l^4", &l2);
            cuzk_num l5 = mul_sum(cs, "l4 * (l + rk)", &l4, &l, &pre[i], &post[i]);
            elt_set_alloc(&p->e[i], &l5);
        } else {
            sbox_elt(p, i, post ? &post[i] : NULL);
        }
        cuzk_cs_pop_ns(cs);
    }
    product_mds(p);
}

static void partial_round(pcirc *p)
{
    const cuzk_fr *k = &p->c->compressed[p->off++];
    cuzk_cs_push_ns(p->cs, "solitary quintic s-box");
    sbox_elt(p, 0, k);
    cuzk_cs_pop_ns(p->cs);
    product_mds(p);
}

cuzk_num cuzk_poseidon_hash_circuit(cuzk_cs *cs, unsigned arity, const cuzk_fr *tag, const cuzk_num *in)
{
    cuzk_num bad = {0, cuzk_fr_zero};
    const cuzk_poseidon_constants *c = cuzk_poseidon_constants_get(arity);
    if (!c) {
        cuzk_cs_set_error(cs, arity < 1 || arity > CUZK_POSEIDON_MAX_ARITY ? CUZK_ERR_INVALID_ARG
                                                                          : CUZK_ERR_NO_MEMORY);
        return bad;
    }
    unsigned n = c->width, half = c->full_rounds / 2;
    elt *buf = calloc(2 * (size_t)n, sizeof *buf);
    if (!buf) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return bad;
    }
    for (unsigned i = 0; i < 2 * n; i++) cuzk_numlc_init(&buf[i].n);
    pcirc p = {cs, c, buf, buf + n, 0, 0};
    elt_set_const(cs, &p.e[0], tag);
    for (unsigned i = 1; i < n; i++) elt_set_alloc(&p.e[i], &in[i - 1]);

    cuzk_cs_push_ns(cs, "first round");
    full_round(&p, true, false);
    cuzk_cs_pop_ns(cs);
    for (unsigned i = 1; i < half; i++) {
        cuzk_cs_push_ns(cs, "initial full round %u", i);
        full_round(&p, false, false);
        cuzk_cs_pop_ns(cs);
    }
    for (unsigned i = 0; i < c->partial_rounds; i++) {
        cuzk_cs_push_ns(cs, "partial round %u", i);
        partial_round(&p);
        cuzk_cs_pop_ns(cs);
    }
    for (unsigned i = 0; i + 1 < half; i++) {
        cuzk_cs_push_ns(cs, "final full round %u", i);
        full_round(&p, false, false);
        cuzk_cs_pop_ns(cs);
    }
    cuzk_cs_push_ns(cs, "terminal full round");
    full_round(&p, false, true);
    cuzk_cs_pop_ns(cs);
    cuzk_num out = ensure_allocated(cs, "hash result", &p.e[1]);
    for (unsigned i = 0; i < 2 * n; i++) cuzk_numlc_free(&buf[i].n);
    free(buf);
    return out;
}

cuzk_num cuzk_poseidon_hash_md_circuit(cuzk_cs *cs, const cuzk_num *in, size_t n)
{
    const unsigned a = CUZK_POSEIDON_MD_ARITY;
    cuzk_num pre[CUZK_POSEIDON_MD_ARITY];
    cuzk_fr tag;
    cuzk_poseidon_tag_merkle(&tag, a);
    if (n < 2) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return (cuzk_num){0, cuzk_fr_zero};
    }
    cuzk_num h = in[0];
    size_t k = 0;
    for (size_t i = 1; i < n; i += a - 1, k++) {
        size_t m = n - i < a - 1 ? n - i : a - 1;
        pre[0] = h;
        for (size_t j = 0; j < m; j++) pre[j + 1] = in[i + j];
        for (size_t j = m + 1; j < a; j++) {
            cuzk_cs_push_ns(cs, "padding %zu", j);
            pre[j] = cuzk_num_alloc(cs, &cuzk_fr_zero);
            cuzk_cs_pop_ns(cs);
        }
        cuzk_cs_push_ns(cs, "hash md %zu", k);
        h = cuzk_poseidon_hash_circuit(cs, a, &tag, pre);
        cuzk_cs_pop_ns(cs);
    }
    return h;
}
