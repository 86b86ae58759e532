/*
 * FallbackPoSt partition circuit. Counts equal storage-proofs-post
 * tests/fallback_circuit.rs (leaves = 64 x base trees, 5 challenges per
 * sector): 3 slots -> 19 inputs, 8-0-0 16,869, 8-4-0 22,674, 8-4-2 27,384;
 * 2 slots -> 13 inputs, 11,246; and filecoin-proofs' 32 GiB WinningPoSt
 * (370,590 constraints, 133 inputs). Witnesses come from synthetic sectors
 * (random tree R leaves, native tree, comm_r = H(comm_c, comm_r_last)) and
 * satisfy TestCS, with fewer sectors than slots padded by the last; the
 * public inputs follow generate_public_inputs; sequential and extensible
 * (threaded) synthesis give identical systems on every constraint system (RecordingCS
 * matrices term by term); a tampered leaf is rejected at its root check; a
 * 2KiB WindowPoSt proof through the PCE path verifies.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/circuits/post.h"
#include "cuzk/gadgets/poseidon.h"
#include "cs_sys4.h"
#include "pce_prove.h"
#include "testutil.h"

typedef struct sectors {
    size_t n;
    cuzk_post_sector *s;
    cuzk_fr *leaves, *paths;
    uint64_t *chs;
} sectors;

static void sectors_build(sectors *S, const cuzk_post_config *cfg, size_t n, cuzk_rng *rng)
{
    uint64_t N = cfg->nodes;
    unsigned C = cfg->challenges;
    size_t plen = cuzk_tree_path_len(&cfg->tree, N);
    S->n = n;
    S->s = calloc(n, sizeof *S->s);
    S->leaves = malloc(sizeof(cuzk_fr) * n * C);
    S->paths = malloc(sizeof(cuzk_fr) * n * C * plen);
    S->chs = malloc(sizeof(uint64_t) * n * C);
    cuzk_fr *data = malloc(sizeof(cuzk_fr) * N);
    for (size_t i = 0; i < n; i++) {
        for (uint64_t k = 0; k < N; k++) cuzk_fr_random(&data[k], rng);
        cuzk_merkle_tree t;
        CHECK(cuzk_merkle_tree_build(&t, &cfg->tree, data, N) == 0);
        cuzk_post_sector *s = &S->s[i];
        s->comm_r_last = t.root;
        cuzk_fr_random(&s->comm_c, rng);
        cuzk_fr pair[2] = {s->comm_c, s->comm_r_last};
        cuzk_poseidon_hash(&s->comm_r, 2, pair);
        s->challenges = &S->chs[i * C];
        s->leaves = &S->leaves[i * C];
        s->paths = &S->paths[i * C * plen];
        for (unsigned j = 0; j < C; j++) {
            S->chs[i * C + j] = cuzk_rng_u64(rng) % N;
            S->leaves[i * C + j] = data[S->chs[i * C + j]];
            CHECK(cuzk_merkle_tree_path(&t, S->chs[i * C + j], &S->paths[(i * C + j) * plen]) == 0);
        }
        cuzk_merkle_tree_free(&t);
    }
    free(data);
}

static void sectors_free(sectors *S)
{
    free(S->s);
    free(S->leaves);
    free(S->paths);
    free(S->chs);
}

static cuzk_post_config test_shape(unsigned base, unsigned sub, unsigned top, unsigned slots)
{
    cuzk_post_config c = {0, 0, slots, 5, {CUZK_TREE_POSEIDON, base, sub, top}};
    c.nodes = 64 * cuzk_tree_base_count(&c.tree);
    return c;
}

/* TestCS satisfaction and public inputs; returns the constraint count. */
static size_t satisfied(const cuzk_post_config *cfg, const cuzk_post_witness *w, const char *what)
{
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs *cs = &t->base;
    cuzk_cs_alloc_one(cs);
    CHECK(cuzk_post_circuit(cs, cfg, w, 1) == 0);
    CHECK_MSG(cuzk_test_cs_is_satisfied(t), "%s: unsatisfied at %s", what, t->first_unsat ? t->first_unsat : "?");
    size_t ni = cuzk_post_num_inputs(cfg);
    CHECK_MSG(cs->num_inputs == ni, "%s: %zu inputs, want %zu", what, cs->num_inputs, ni);
    cuzk_fr *pub = malloc(sizeof(cuzk_fr) * ni);
    CHECK(cuzk_post_public_inputs(pub, cfg, w) == ni - 1);
    CHECK_MSG(memcmp(pub, &t->input.v[1], (ni - 1) * sizeof(cuzk_fr)) == 0, "%s: public inputs", what);
    size_t n = cs->num_constraints;
    free(pub);
    cuzk_cs_free(cs);
    return n;
}

/* TestCS fails first at a constraint whose path starts with want. */
static void rejected(const cuzk_post_config *cfg, const cuzk_post_witness *w, const char *want)
{
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs_alloc_one(&t->base);
    cuzk_post_circuit(&t->base, cfg, w, 1);
    CHECK_MSG(!cuzk_test_cs_is_satisfied(t) && t->first_unsat && !strncmp(t->first_unsat, want, strlen(want)),
              "want a failure at %s: %s", want, t->first_unsat ? t->first_unsat : "accepted");
    cuzk_cs_free(&t->base);
}

/* Same matrices term by term (columns and coefficient values). */
static bool recording_eq(const cuzk_recording_cs *a, const cuzk_recording_cs *b)
{
    if (a->base.num_inputs != b->base.num_inputs || a->base.num_aux != b->base.num_aux ||
        a->base.num_constraints != b->base.num_constraints)
        return false;
    for (int m = 0; m < 3; m++) {
        const cuzk_csr *x = &a->m[m], *y = &b->m[m];
        if (x->nnz != y->nnz ||
            memcmp(x->row_ptr, y->row_ptr, (a->base.num_constraints + 1) * sizeof *x->row_ptr) ||
            (x->nnz && memcmp(x->col, y->col, x->nnz * sizeof *x->col)))
            return false;
        for (size_t i = 0; i < x->nnz; i++)
            if (!cuzk_fr_eq(cuzk_recording_cs_val(a, m, i), cuzk_recording_cs_val(b, m, i))) return false;
    }
    return true;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_post");

    /* fallback_circuit.rs: (shape, slots, sectors proved) -> inputs, constraints */
    static const struct {
        unsigned b, s, t, slots, nsec;
        size_t inputs, constraints;
    } cases[] = {{8, 0, 0, 3, 3, 19, 16869},
                 {8, 4, 0, 3, 3, 19, 22674},
                 {8, 4, 2, 3, 3, 19, 27384},
                 {8, 0, 0, 2, 2, 13, 11246},
                 {8, 0, 0, 3, 2, 19, 16869}}; /* the last sector repeated */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "%u-%u-%u, %u of %u slots", cases[i].b, cases[i].s, cases[i].t,
                 cases[i].nsec, cases[i].slots);
        cuzk_post_config cfg = test_shape(cases[i].b, cases[i].s, cases[i].t, cases[i].slots);
        CHECK(cuzk_post_num_inputs(&cfg) == cases[i].inputs);
        sectors S;
        sectors_build(&S, &cfg, cases[i].nsec, &rng);
        cuzk_post_witness w = {S.s, S.n};
        size_t n = satisfied(&cfg, &w, what);
        CHECK_MSG(n == cases[i].constraints, "%s: %zu constraints, want %zu", what, n, cases[i].constraints);
        /* the blank circuit counts the same */
        cuzk_count_cs *k = cuzk_count_cs_new();
        cuzk_cs_alloc_one(&k->base);
        CHECK(cuzk_post_circuit(&k->base, &cfg, NULL, 2) == 0);
        CHECK(k->base.num_constraints == n && k->base.num_inputs == cases[i].inputs);
        cuzk_cs_free(&k->base);
        sectors_free(&S);
    }

    /* sequential vs extensible synthesis (1, 2 and 3 threads, groups of 2, 1, 1 slots of 5)
     * on all four constraint systems: each set consistent, and every system identical across them */
    {
        cuzk_post_config cfg = test_shape(8, 4, 0, 5);
        sectors S;
        sectors_build(&S, &cfg, 4, &rng);
        cuzk_post_witness w = {S.s, S.n};
        sys4 sy[3];
        for (int v = 0; v < 3; v++) {
            sys_new(&sy[v]);
            for (int k = 0; k < 4; k++) {
                cuzk_cs *cs = sys_get(&sy[v], k);
                cuzk_cs_alloc_one(cs);
                CHECK(cuzk_post_circuit(cs, &cfg, &w, (unsigned)v + 1) == 0);
                cuzk_cs_finalize(cs);
            }
            check_parity(&sy[v], v == 0 ? "post sequential" : "post threaded");
        }
        for (int v = 1; v < 3; v++) {
            CHECK_MSG(recording_eq(sy[0].r, sy[v].r), "RecordingCS differs with %d threads", v + 1);
            CHECK(frv_eq(&sy[0].w->input, &sy[v].w->input) && frv_eq(&sy[0].w->aux, &sy[v].w->aux));
            CHECK(frv_eq(&sy[0].p->a, &sy[v].p->a) && frv_eq(&sy[0].p->b, &sy[v].p->b) &&
                  frv_eq(&sy[0].p->c, &sy[v].p->c));
            CHECK(dens_eq(&sy[0].p->a_aux, &sy[v].p->a_aux) && dens_eq(&sy[0].p->b_input, &sy[v].p->b_input) &&
                  dens_eq(&sy[0].p->b_aux, &sy[v].p->b_aux));
            CHECK(sy[0].t->base.num_constraints == sy[v].t->base.num_constraints &&
                  frv_eq(&sy[0].t->aux, &sy[v].t->aux));
        }
        for (int v = 0; v < 3; v++) sys_free(&sy[v]);

        /* a tampered leaf of sector 1, challenge 2 no longer opens comm_r_last */
        cuzk_fr_add(&S.leaves[1 * 5 + 2], &S.leaves[1 * 5 + 2], &cuzk_fr_one);
        rejected(&cfg, &w, "outer namespace/sector_1/challenge_inclusion_2/enforce root is correct");
        /* so does a comm_r that is not H(comm_c, comm_r_last) */
        cuzk_fr_sub(&S.leaves[1 * 5 + 2], &S.leaves[1 * 5 + 2], &cuzk_fr_one);
        cuzk_fr_add(&S.s[3].comm_c, &S.s[3].comm_c, &cuzk_fr_one);
        rejected(&cfg, &w, "outer namespace/sector_3/enforce_comm_c_comm_r_last_hash_comm_r");
        sectors_free(&S);
    }

    /* 2KiB WindowPoSt through the PCE path: the PCE from extensible (threaded) synthesis on
     * RecordingCS, the witness from sequential synthesis; a proof that verifies */
    {
        cuzk_post_config cfg;
        CHECK(cuzk_post_config_for(&cfg, 2048, CUZK_POST_WINDOW) == 0);
        sectors S;
        sectors_build(&S, &cfg, 1, &rng);
        cuzk_post_witness w = {S.s, S.n};
        cuzk_recording_cs *r = cuzk_recording_cs_new();
        cuzk_witness_cs *wc = cuzk_witness_cs_new();
        cuzk_cs_alloc_one(&r->base);
        cuzk_cs_alloc_one(&wc->base);
        CHECK(cuzk_post_circuit(&r->base, &cfg, NULL, 2) == 0 && cuzk_cs_finalize(&r->base) == 0);
        CHECK(cuzk_post_circuit(&wc->base, &cfg, &w, 1) == 0);
        CHECK(r->base.num_inputs == wc->base.num_inputs && r->base.num_aux == wc->base.num_aux);
        pce_prove_verify(r, wc, &rng, "2KiB WindowPoSt");
        cuzk_cs_free(&r->base);
        cuzk_cs_free(&wc->base);
        sectors_free(&S);
    }

    /* registered shapes; 2KiB WindowPoSt and WinningPoSt satisfied */
    cuzk_post_config c;
    CHECK(cuzk_post_config_for(&c, 1ull << 35, CUZK_POST_WINDOW) == 0 && c.sectors == 2349 && c.challenges == 10 &&
          cuzk_post_num_inputs(&c) == 25840 && c.tree.sub_arity == 8 && c.tree.top_arity == 0);
    CHECK(cuzk_post_config_for(&c, 1ull << 36, CUZK_POST_WINDOW) == 0 && c.sectors == 2300 && c.tree.top_arity == 2);
    CHECK(cuzk_post_config_for(&c, 3 << 10, CUZK_POST_WINDOW) == CUZK_ERR_INVALID_ARG);
    for (int kind = 0; kind < 2; kind++) {
        CHECK(cuzk_post_config_for(&c, 2048, (cuzk_post_kind)kind) == 0 && c.nodes == 64);
        sectors S;
        sectors_build(&S, &c, 1, &rng);
        cuzk_post_witness w = {S.s, 1};
        satisfied(&c, &w, kind ? "2KiB WinningPoSt" : "2KiB WindowPoSt");
        sectors_free(&S);
    }
    /* 32 GiB WinningPoSt (filecoin-proofs): 66 slots x 1 challenge, 133 inputs, 370,590 constraints */
    CHECK(cuzk_post_config_for(&c, 1ull << 35, CUZK_POST_WINNING) == 0 && cuzk_post_num_inputs(&c) == 133);
    cuzk_count_cs *k = cuzk_count_cs_new();
    cuzk_cs_alloc_one(&k->base);
    CHECK(cuzk_post_circuit(&k->base, &c, NULL, 0) == 0);
    CHECK_MSG(k->base.num_inputs == 133 && k->base.num_constraints == 370590, "32GiB WinningPoSt: %zu inputs, %zu",
              k->base.num_inputs, k->base.num_constraints);
    cuzk_cs_free(&k->base);
    return tu_finish("test_post");
}
