/*
 * StackedDrg PoRep partition circuit: input and constraint counts equal
 * storage-proofs-porep tests/stacked_circuit.rs (1 challenge, 2 layers,
 * nodes = 8 x base trees): 22 inputs; 2-0-0 1,206,212, 8-0-0 1,199,620,
 * 8-4-0 1,296,576, 8-4-2 1,346,982 (blank circuits). A witness built from a synthetic sector
 * (random data and labels, each challenged node's labels recomputed natively
 * from its parents, native trees D, C, R and comm_r) satisfies TestCS, its
 * public inputs equal generate_public_inputs' order, the four constraint systems
 * agree, and a wrong data leaf is rejected at the comm_d root check.
 * Parent indices are random here (the DRG/expander graph is not part of
 * this circuit: parents enter only through their path inputs).
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/gadgets/poseidon.h"
#include "cs_sys4.h"
#include "testutil.h"

typedef struct sector {
    cuzk_porep_config cfg;
    cuzk_fr *data;   /* nodes */
    cuzk_fr *labels; /* layers x nodes */
    cuzk_merkle_tree d, c, r;
    cuzk_porep_witness w;
    cuzk_porep_challenge *ch;
    cuzk_fr *paths; /* all sibling arrays */
    cuzk_fr *cols;  /* column copies for the parents */
} sector;

static cuzk_fr *label_at(sector *s, unsigned layer, uint64_t node)
{
    return &s->labels[(size_t)(layer - 1) * s->cfg.nodes + node];
}

static bool is_challenged(const uint64_t *chs, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        if (chs[i] == v) return true;
    return false;
}

static void sector_build(sector *s, const cuzk_porep_config *cfg, cuzk_rng *rng)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    uint64_t N = cfg->nodes;
    unsigned L = cfg->layers, C = cfg->challenges;
    s->data = malloc(sizeof(cuzk_fr) * N);
    s->labels = malloc(sizeof(cuzk_fr) * N * L);
    for (uint64_t i = 0; i < N; i++) cuzk_fr_random(&s->data[i], rng);
    for (uint64_t i = 0; i < N * L; i++) cuzk_fr_random(&s->labels[i], rng);
    cuzk_fr_random(&s->w.replica_id, rng);

    uint64_t chs[64];
    for (unsigned i = 0; i < C; i++) {
        do chs[i] = 1 + cuzk_rng_u64(rng) % (N - 1);
        while (is_challenged(chs, i, chs[i]));
    }
    s->ch = calloc(C, sizeof *s->ch);
    /* parents: any node that is not challenged (so its labels are final) */
    for (unsigned i = 0; i < C; i++) {
        cuzk_porep_challenge *c = &s->ch[i];
        c->node = chs[i];
        c->data_leaf = s->data[chs[i]];
        for (int j = 0; j < 14; j++) {
            uint64_t p;
            do p = cuzk_rng_u64(rng) % N;
            while (is_challenged(chs, C, p));
            if (j < 6) c->drg[j].node = p;
            else c->exp[j - 6].node = p;
        }
        for (unsigned layer = 1; layer <= L; layer++) {
            cuzk_fr drg[6], exp[8], parents[37];
            for (int j = 0; j < 6; j++) drg[j] = *label_at(s, layer, c->drg[j].node);
            for (int j = 0; j < 8; j++) exp[j] = layer > 1 ? *label_at(s, layer - 1, c->exp[j].node) : cuzk_fr_zero;
            cuzk_porep_expand_parents(parents, layer, drg, exp);
            cuzk_porep_label(label_at(s, layer, c->node), &s->w.replica_id, layer, c->node, parents);
        }
    }
    /* trees: D over data (SHA-256), C over column hashes, R over encodings */
    cuzk_fr *tmp = malloc(sizeof(cuzk_fr) * N), col[16];
    cuzk_tree_shape td = {CUZK_TREE_SHA256, 2, 0, 0};
    CHECK(cuzk_merkle_tree_build(&s->d, &td, s->data, N) == 0);
    for (uint64_t n = 0; n < N; n++) {
        for (unsigned l = 1; l <= L; l++) col[l - 1] = *label_at(s, l, n);
        cuzk_poseidon_hash(&tmp[n], L, col);
    }
    CHECK(cuzk_merkle_tree_build(&s->c, &cfg->tree, tmp, N) == 0);
    for (uint64_t n = 0; n < N; n++) cuzk_fr_add(&tmp[n], label_at(s, L, n), &s->data[n]);
    CHECK(cuzk_merkle_tree_build(&s->r, &cfg->tree, tmp, N) == 0);
    free(tmp);
    s->w.comm_d = s->d.root;
    s->w.comm_c = s->c.root;
    s->w.comm_r_last = s->r.root;
    cuzk_fr pair[2] = {s->c.root, s->r.root};
    cuzk_poseidon_hash(&s->w.comm_r, 2, pair);

    size_t pd = cuzk_tree_path_len(&td, N), pt = cuzk_tree_path_len(&cfg->tree, N);
    size_t per = pd + pt * 16;
    s->paths = malloc(sizeof(cuzk_fr) * per * C);
    s->cols = malloc(sizeof(cuzk_fr) * L * 14 * C);
    for (unsigned i = 0; i < C; i++) {
        cuzk_porep_challenge *c = &s->ch[i];
        cuzk_fr *p = &s->paths[per * i];
        cuzk_merkle_tree_path(&s->d, c->node, p);
        c->comm_d_path = p;
        p += pd;
        for (int j = 0; j < 14; j++) {
            cuzk_porep_column *pc = j < 6 ? &c->drg[j] : &c->exp[j - 6];
            cuzk_fr *rows = &s->cols[((size_t)i * 14 + j) * L];
            for (unsigned l = 1; l <= L; l++) rows[l - 1] = *label_at(s, l, pc->node);
            pc->rows = rows;
            cuzk_merkle_tree_path(&s->c, pc->node, p);
            pc->path = p;
            p += pt;
        }
        cuzk_merkle_tree_path(&s->r, c->node, p);
        c->comm_r_last_path = p;
        p += pt;
        cuzk_merkle_tree_path(&s->c, c->node, p);
        c->comm_c_path = p;
    }
    s->w.challenges = s->ch;
}

static void sector_free(sector *s)
{
    free(s->data);
    free(s->labels);
    free(s->ch);
    free(s->paths);
    free(s->cols);
    cuzk_merkle_tree_free(&s->d);
    cuzk_merkle_tree_free(&s->c);
    cuzk_merkle_tree_free(&s->r);
}

static cuzk_porep_config test_shape(unsigned base, unsigned sub, unsigned top)
{
    cuzk_porep_config c = {0, 0, 2, 1, 1, {CUZK_TREE_POSEIDON, base, sub, top}};
    c.nodes = 8 * cuzk_tree_base_count(&c.tree);
    return c;
}

/* TestCS on a synthetic sector: satisfaction and public inputs; returns the count, nnz. */
static size_t satisfied(cuzk_rng *rng, const cuzk_porep_config *cfg, const char *what, size_t nnz[3])
{
    sector s;
    sector_build(&s, cfg, rng);
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs *cs = &t->base;
    cuzk_cs_alloc_one(cs);
    CHECK(cuzk_porep_circuit(cs, cfg, &s.w) == 0);
    CHECK_MSG(cuzk_test_cs_is_satisfied(t), "%s: unsatisfied at %s", what, t->first_unsat ? t->first_unsat : "?");
    size_t ni = cuzk_porep_num_inputs(cfg);
    CHECK(cs->num_inputs == ni);
    cuzk_fr *pub = malloc(sizeof(cuzk_fr) * ni);
    CHECK(cuzk_porep_public_inputs(pub, cfg, &s.w) == ni - 1);
    CHECK_MSG(memcmp(pub, &t->input.v[1], (ni - 1) * sizeof(cuzk_fr)) == 0, "%s: public inputs", what);
    size_t n = cs->num_constraints;
    for (int m = 0; m < 3; m++) nnz[m] = t->nnz[m];
    cuzk_cs_free(cs);
    free(pub);
    sector_free(&s);
    return n;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_porep");

    /* stacked_circuit.rs counts, on the blank circuit (WitnessCS, zeros) */
    static const struct {
        unsigned b, s, t;
        size_t constraints;
    } shapes[] = {{2, 0, 0, 1206212}, {8, 0, 0, 1199620}, {8, 4, 0, 1296576}, {8, 4, 2, 1346982}};
    for (int i = 0; i < 4; i++) {
        cuzk_porep_config cfg = test_shape(shapes[i].b, shapes[i].s, shapes[i].t);
        cuzk_witness_cs *w = cuzk_witness_cs_new();
        cuzk_cs_alloc_one(&w->base);
        CHECK(cuzk_porep_circuit(&w->base, &cfg, NULL) == 0);
        CHECK_MSG(w->base.num_inputs == 22 && w->base.num_constraints == shapes[i].constraints,
                  "shape %u-%u-%u: %zu inputs, %zu constraints", shapes[i].b, shapes[i].s, shapes[i].t,
                  w->base.num_inputs, w->base.num_constraints);
        cuzk_cs_free(&w->base);
    }

    /* a satisfied witness for the 2KiB production shape (2 challenges) */
    size_t nnz[3];
    cuzk_porep_config c2k;
    CHECK(cuzk_porep_config_for(&c2k, 2048, false) == 0);
    size_t n2k = satisfied(&rng, &c2k, "2KiB", nnz);
    /* counting the blank circuit (what `cuzk circuit info` does) gives the same sizes */
    {
        cuzk_count_cs *k = cuzk_count_cs_new();
        cuzk_cs_alloc_one(&k->base);
        CHECK(cuzk_porep_circuit(&k->base, &c2k, NULL) == 0);
        CHECK(k->base.num_constraints == n2k && k->base.num_inputs == 40);
        for (int m = 0; m < 3; m++) CHECK(k->nnz[m] == nnz[m]);
        cuzk_cs_free(&k->base);
    }

    /* the four constraint systems agree on one synthetic sector */
    {
        cuzk_porep_config cfg = test_shape(8, 0, 0);
        sector s;
        sector_build(&s, &cfg, &rng);
        sys4 sy;
        sys_new(&sy);
        for (int k = 0; k < 4; k++) {
            cuzk_cs *cs = sys_get(&sy, k);
            cuzk_cs_alloc_one(cs);
            CHECK(cuzk_porep_circuit(cs, &cfg, &s.w) == 0);
            cuzk_cs_finalize(cs);
        }
        check_parity(&sy, "porep 8-0-0");
        sys_free(&sy);

        /* a wrong data leaf no longer opens comm_d */
        cuzk_fr_add(&s.ch[0].data_leaf, &s.ch[0].data_leaf, &cuzk_fr_one);
        cuzk_test_cs *t = cuzk_test_cs_new();
        cuzk_cs_alloc_one(&t->base);
        cuzk_porep_circuit(&t->base, &cfg, &s.w);
        CHECK_MSG(!cuzk_test_cs_is_satisfied(t) && t->first_unsat &&
                      strstr(t->first_unsat, "challenge_0/comm_d_inclusion/enforce root is correct"),
                  "wrong data leaf: %s", t->first_unsat ? t->first_unsat : "accepted");
        cuzk_cs_free(&t->base);
        sector_free(&s);
    }

    /* challenges on two threads (forks of the header): the same witness and sizes
     * (fork equivalence on every constraint system is test_cs_parity's) */
    {
        cuzk_porep_config cfg = test_shape(8, 0, 0);
        cfg.challenges = 2;
        sector s;
        sector_build(&s, &cfg, &rng);
        cuzk_witness_cs *a = cuzk_witness_cs_new(), *b = cuzk_witness_cs_new();
        cuzk_cs_alloc_one(&a->base);
        cuzk_cs_alloc_one(&b->base);
        CHECK(cuzk_porep_circuit(&a->base, &cfg, &s.w) == 0);
        CHECK(cuzk_porep_circuit_threads(&b->base, &cfg, &s.w, 2) == 0);
        CHECK(a->base.num_inputs == 40 && b->base.num_inputs == 40 &&
              a->base.num_constraints == b->base.num_constraints && frv_eq(&a->input, &b->input) &&
              frv_eq(&a->aux, &b->aux));
        cuzk_cs_free(&a->base);
        cuzk_cs_free(&b->base);
        sector_free(&s);
    }

    /* registered sizes */
    cuzk_porep_config c;
    CHECK(cuzk_porep_config_for(&c, 1ull << 35, false) == 0 && c.layers == 11 && c.partitions == 10 &&
          c.challenges == 18 && cuzk_porep_num_inputs(&c) == 328 && c.tree.sub_arity == 8 && c.tree.top_arity == 0);
    CHECK(cuzk_porep_config_for(&c, 1ull << 36, false) == 0 && c.tree.top_arity == 2);
    CHECK(cuzk_porep_config_for(&c, 1ull << 35, true) == 0 && c.partitions == 126 && c.challenges == 18);
    CHECK(cuzk_porep_config_for(&c, 2048, false) == 0 && c.challenges == 2 && c.nodes == 64 &&
          cuzk_porep_num_inputs(&c) == 40);
    CHECK(cuzk_porep_config_for(&c, 4096 * 3, false) == CUZK_ERR_INVALID_ARG);
    return tu_finish("test_porep");
}
