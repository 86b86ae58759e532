/* Backend parity: the same random circuits on WitnessCS, RecordingCS,
 * ProvingAssignment and TestCS agree on counts, witness, matrices x witness
 * = evaluations, densities; parallel extend equals sequential synthesis. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/error.h"
#include "cs_sys4.h"
#include "test_cs_circuit.h"
#include "testutil.h"

typedef struct seg_ctx {
    uint64_t seed;
    int steps;
} seg_ctx;

static int seg_fn(cuzk_cs *cs, size_t s, void *vctx)
{
    seg_ctx *c = vctx;
    rc_circuit(cs, c->seed + 1000 * s, c->steps, s % 3 == 1);
    return 0;
}

/* seq and par (finalized) are identical on every backend. */
static void same_systems(sys4 *seq, sys4 *par)
{
    for (int k = 0; k < 4; k++) {
        cuzk_cs *a = sys_get(seq, k), *b = sys_get(par, k);
        CHECK(a->num_inputs == b->num_inputs && a->num_aux == b->num_aux &&
              a->num_constraints == b->num_constraints);
    }
    for (int m = 0; m < 3; m++)
        CHECK_MSG(csr_eq(&seq->r->m[m], &par->r->m[m], seq->r->base.num_constraints),
                  "matrix %d differs after parallel extend", m);
    CHECK(seq->r->coeffs.len == par->r->coeffs.len &&
          memcmp(seq->r->coeffs.v, par->r->coeffs.v, seq->r->coeffs.len * sizeof(cuzk_fr)) == 0);
    CHECK(frv_eq(&seq->w->input, &par->w->input) && frv_eq(&seq->w->aux, &par->w->aux));
    CHECK(frv_eq(&seq->p->input, &par->p->input) && frv_eq(&seq->p->aux, &par->p->aux));
    CHECK(frv_eq(&seq->p->a, &par->p->a) && frv_eq(&seq->p->b, &par->p->b) &&
          frv_eq(&seq->p->c, &par->p->c));
    CHECK(dens_eq(&seq->p->a_aux, &par->p->a_aux) && dens_eq(&seq->p->b_input, &par->p->b_input) &&
          dens_eq(&seq->p->b_aux, &par->p->b_aux));
    for (int m = 0; m < 3; m++) CHECK(seq->t->nnz[m] == par->t->nnz[m]);
    CHECK(frv_eq(&seq->t->input, &par->t->input) && frv_eq(&seq->t->aux, &par->t->aux));
}

typedef struct shared_ctx {
    uint64_t seed;
    cuzk_num nums[8];
    cuzk_bool bits[8];
} shared_ctx;

/* A segment that mixes the parent's variables (ctx) with its own. */
static int shared_fn(cuzk_cs *cs, size_t s, void *vctx)
{
    shared_ctx *c = vctx;
    cuzk_rng r;
    cuzk_rng_seed(&r, c->seed + s);
    cuzk_num n[4];
    cuzk_bool b[4];
    for (int i = 0; i < 4; i++) {
        cuzk_fr v;
        cuzk_fr_random(&v, &r);
        n[i] = cuzk_num_alloc(cs, &v);
        b[i] = cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
    }
    for (int step = 0; step < 40; step++) {
        uint64_t x = cuzk_rng_u64(&r);
        int i = (int)((x >> 8) % 4), j = (int)((x >> 16) % 8), k = (int)((x >> 24) % 4);
        switch (x % 7) {
        case 6: n[i] = cuzk_num_mul(cs, &n[k], &c->nums[j]); break; /* shared in B only */
        case 0: n[i] = cuzk_num_mul(cs, &c->nums[j], &n[k]); break; /* shared in A */
        case 1: n[i] = cuzk_num_add(cs, &n[k], &c->nums[j]); break;
        case 2: b[i] = cuzk_bool_xor(cs, &c->bits[j], &b[k]); break;
        case 3: cuzk_num_inputize(cs, &c->nums[j]); break;
        case 4: cuzk_num_conditionally_reverse(cs, &n[i], &c->nums[j], &c->bits[j], &n[i], &n[k]); break;
        case 5: b[i] = cuzk_bool_and(cs, &b[k], &c->bits[j]); break;
        }
    }
    return 0;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_cs_parity");

    /* Every backend starts empty: no pre-allocated ONE. */
    for (int k = 1; k <= 4; k++) {
        cuzk_cs *cs = cuzk_cs_new((cuzk_cs_kind)k);
        CHECK(cs && cs->num_inputs == 0 && cs->num_aux == 0 && cs->num_constraints == 0);
        CHECK(cuzk_cs_is_extensible(cs));
        CHECK(cuzk_cs_alloc_one(cs) == 0 && cs->num_inputs == 1);
        CHECK(cuzk_cs_alloc_one(cs) == CUZK_ERR_INVALID_ARG); /* twice is misuse */
        cuzk_cs_free(cs);
    }

    /* Linear combination semantics: merge, keep zeros, sorted inputs-then-aux. */
    {
        cuzk_lc lc;
        cuzk_lc_init(&lc);
        cuzk_fr c1, c2;
        cuzk_fr_random(&c1, &rng);
        cuzk_fr_random(&c2, &rng);
        for (int i = 9; i >= 0; i--) cuzk_lc_add(&lc, cuzk_var_aux((uint32_t)i * 3), &c1);
        cuzk_lc_add(&lc, cuzk_var_input(2), &c2);
        cuzk_lc_add(&lc, cuzk_var_aux(3), &c2);
        cuzk_lc_sub(&lc, cuzk_var_aux(6), &c1); /* becomes a zero-coefficient term */
        CHECK(lc.len == 11);
        const cuzk_lc_term *t = cuzk_lc_terms(&lc);
        CHECK(t[0].var == cuzk_var_input(2));
        bool sorted = true;
        for (uint32_t i = 1; i < lc.len; i++) sorted &= t[i - 1].var < t[i].var;
        CHECK(sorted);
        cuzk_fr s;
        cuzk_fr_add(&s, &c1, &c2);
        CHECK(cuzk_fr_eq(&t[2].coeff, &s));       /* aux 3 merged */
        CHECK(cuzk_fr_is_zero(&t[3].coeff));      /* aux 6 kept with zero */
        cuzk_lc_free(&lc);
    }

    /* Random circuits, all four backends. */
    for (int round = 0; round < 6; round++) {
        uint64_t seed = cuzk_rng_u64(&rng);
        int steps = 50 + (int)(cuzk_rng_u64(&rng) % 400);
        bool sha = round % 2 == 0;
        sys4 s;
        sys_new(&s);
        for (int k = 0; k < 4; k++) {
            cuzk_cs *cs = sys_get(&s, k);
            cuzk_cs_alloc_one(cs);
            rc_circuit(cs, seed, steps, sha);
            cuzk_cs_finalize(cs);
        }
        check_parity(&s, "sequential");
        /* CountingCS stores nothing but counts what the others hold */
        {
            cuzk_count_cs *k = cuzk_count_cs_new();
            cuzk_cs_alloc_one(&k->base);
            size_t half = 1 + cuzk_rng_u64(&rng) % 5;
            seg_ctx cc = {seed, steps / 5 + 1};
            rc_circuit(&k->base, seed, steps, sha);
            CHECK(cuzk_cs_synthesize_parallel(&k->base, half, seg_fn, &cc, 2) == 0);
            cuzk_test_cs *t2 = cuzk_test_cs_new();
            cuzk_cs_alloc_one(&t2->base);
            rc_circuit(&t2->base, seed, steps, sha);
            CHECK(cuzk_cs_synthesize_parallel(&t2->base, half, seg_fn, &cc, 1) == 0);
            cuzk_cs_finalize(&k->base);
            cuzk_cs_finalize(&t2->base);
            CHECK(k->base.err == 0 && k->base.num_inputs == t2->base.num_inputs &&
                  k->base.num_aux == t2->base.num_aux && k->base.num_constraints == t2->base.num_constraints);
            for (int m = 0; m < 3; m++) CHECK(k->nnz[m] == t2->nnz[m]);
            cuzk_cs_free(&k->base);
            cuzk_cs_free(&t2->base);
        }

        /* Parallel extend vs sequential, segments of random circuits. */
        size_t nseg = 2 + cuzk_rng_u64(&rng) % 6;
        seg_ctx ctx = {cuzk_rng_u64(&rng), 30 + (int)(cuzk_rng_u64(&rng) % 100)};
        sys4 seq, par;
        sys_new(&seq);
        sys_new(&par);
        for (int k = 0; k < 4; k++) {
            cuzk_cs *a = sys_get(&seq, k), *b = sys_get(&par, k);
            cuzk_cs_alloc_one(a);
            cuzk_cs_alloc_one(b);
            /* a prefix in the parent so that remapping is exercised */
            rc_circuit(a, seed, 20, false);
            rc_circuit(b, seed, 20, false);
            CHECK(cuzk_cs_synthesize_parallel(a, nseg, seg_fn, &ctx, 1) == 0);
            CHECK(cuzk_cs_synthesize_parallel(b, nseg, seg_fn, &ctx, 4) == 0);
            rc_circuit(a, seed ^ 7, 20, false);
            rc_circuit(b, seed ^ 7, 20, false);
            cuzk_cs_finalize(a);
            cuzk_cs_finalize(b);
        }
        check_parity(&par, "parallel");
        same_systems(&seq, &par);
        sys_free(&s);
        sys_free(&seq);
        sys_free(&par);
    }

    /* Shared-prefix parallel synthesis (forks) equals sequential synthesis. */
    for (int round = 0; round < 3; round++) {
        uint64_t seed = cuzk_rng_u64(&rng);
        size_t nseg = 2 + cuzk_rng_u64(&rng) % 5;
        sys4 seq, par;
        sys_new(&seq);
        sys_new(&par);
        for (int k = 0; k < 4; k++) {
            for (int which = 0; which < 2; which++) {
                cuzk_cs *cs = sys_get(which ? &par : &seq, k);
                shared_ctx ctx = {.seed = seed};
                cuzk_rng r;
                cuzk_rng_seed(&r, seed ^ 99);
                cuzk_cs_alloc_one(cs);
                rc_circuit(cs, seed, 30, false); /* a prefix */
                for (int i = 0; i < 8; i++) {
                    cuzk_fr v;
                    cuzk_fr_random(&v, &r);
                    ctx.nums[i] = i % 3 ? cuzk_num_alloc(cs, &v) : cuzk_num_alloc_input(cs, &v);
                    ctx.bits[i] = cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
                }
                CHECK(cuzk_cs_synthesize_parallel_shared(cs, nseg, shared_fn, &ctx, which ? 3 : 1) == 0);
                rc_circuit(cs, seed ^ 5, 10, false); /* a suffix */
                cuzk_cs_finalize(cs);
            }
        }
        check_parity(&par, "shared parallel");
        same_systems(&seq, &par);
        sys_free(&seq);
        sys_free(&par);
    }

    /* Misuse is rejected: extend across kinds, enforce after finalize. */
    {
        cuzk_cs *a = cuzk_cs_new(CUZK_CS_WITNESS), *b = cuzk_cs_new(CUZK_CS_TEST);
        cuzk_cs_alloc_one(a);
        cuzk_cs_alloc_one(b);
        CHECK(cuzk_cs_extend(a, b) == CUZK_ERR_INVALID_ARG);
        cuzk_cs_free(a);
        cuzk_cs_free(b);
        cuzk_cs *c = cuzk_cs_new(CUZK_CS_PROVING);
        cuzk_cs_alloc_one(c);
        cuzk_cs_finalize(c);
        CHECK(c->num_constraints == 1);
        cuzk_cs_alloc(c, NULL, &cuzk_fr_one);
        CHECK(cuzk_cs_error(c) == CUZK_ERR_INVALID_ARG);
        cuzk_cs_free(c);
        /* RecordingCS needs no values; the value backends reject NULL. */
        cuzk_cs *r = cuzk_cs_new(CUZK_CS_RECORDING), *w = cuzk_cs_new(CUZK_CS_WITNESS);
        cuzk_cs_alloc_one(r);
        cuzk_cs_alloc_one(w);
        CHECK(cuzk_cs_alloc(r, NULL, NULL) == cuzk_var_aux(0) && cuzk_cs_error(r) == 0);
        CHECK(cuzk_cs_alloc_input(r, NULL, NULL) == cuzk_var_input(1) && cuzk_cs_error(r) == 0);
        cuzk_cs_alloc(w, NULL, NULL);
        CHECK(cuzk_cs_error(w) == CUZK_ERR_INVALID_ARG);
        cuzk_cs_free(r);
        cuzk_cs_free(w);
    }
    return tu_finish("test_cs_parity");
}
