/* Constraint-system parity: the same random circuits on WitnessCS, RecordingCS,
 * ProvingAssignment and TestCS agree on counts, witness, matrices x witness
 * = evaluations, densities; parallel extend equals sequential synthesis. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
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

/* seq and par (finalized) are identical on every constraint system. */
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

/* Segments whose shape (aux and input counts) follows shape_seed and whose
 * values follow value_seed, so calls can keep a shape with new values.
 * uniform: every segment has segment 0's shape (PoRep's challenges); tail:
 * the same but the last segment smaller (PoSt's last group, nseg >= 2);
 * else segment 1 is always larger than segment 0. */
typedef struct keyed_ctx {
    uint64_t shape_seed, value_seed;
    bool uniform;
    size_t fail_seg; /* segment + 1 that fails, 0: none */
    size_t tail;     /* nseg for the tail shape, 0: not */
} keyed_ctx;

static atomic_size_t keyed_calls; /* segments synthesized */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static size_t keyed_aux(const keyed_ctx *c, size_t s)
{
    if (c->tail) return s + 1 == c->tail ? 1 + mix64(c->shape_seed) % 64 : 65 + mix64(c->shape_seed) % 64;
    return c->uniform ? 1 + mix64(c->shape_seed) % 64 : 1 + mix64(c->shape_seed ^ (s << 1)) % 64 + (s == 1) * 64;
}

static int keyed_fn(cuzk_cs *cs, size_t s, void *vctx)
{
    const keyed_ctx *c = vctx;
    atomic_fetch_add(&keyed_calls, 1);
    const size_t n_aux = keyed_aux(c, s), n_in = mix64(c->shape_seed ^ (s << 1 | 1)) % 3;
    cuzk_rng r;
    cuzk_rng_seed(&r, mix64(c->value_seed) ^ s);
    for (size_t i = 0; i < n_aux; i++) {
        cuzk_fr v;
        cuzk_fr_random(&v, &r);
        cuzk_cs_alloc(cs, NULL, &v);
        if (i < n_in) cuzk_cs_alloc_input(cs, NULL, &v);
    }
    return c->fail_seg == s + 1 ? CUZK_ERR_VERIFY_FAILED : 0;
}

/* A witness system with a prefix (inputs and aux from seed), then the
 * keyed segments on `threads` threads; the call's result in *rc. */
static cuzk_witness_cs *keyed_run(uint64_t seed, const keyed_ctx *c, size_t nseg, unsigned threads, bool shared,
                                  uint64_t key, int *rc)
{
    cuzk_witness_cs *w = cuzk_witness_cs_new();
    cuzk_cs_alloc_one(&w->base);
    cuzk_rng r;
    cuzk_rng_seed(&r, seed);
    for (int i = 0; i < 9; i++) {
        cuzk_fr v;
        cuzk_fr_random(&v, &r);
        if (i % 4 == 0) cuzk_cs_alloc_input(&w->base, NULL, &v);
        else cuzk_cs_alloc(&w->base, NULL, &v);
    }
    *rc = cuzk_cs_synthesize_parallel_keyed(&w->base, nseg, keyed_fn, (void *)c, threads, shared, key);
    return w;
}

static bool witness_eq(const cuzk_witness_cs *a, const cuzk_witness_cs *b)
{
    return a->base.num_inputs == b->base.num_inputs && a->base.num_aux == b->base.num_aux &&
           a->base.err == b->base.err && frv_eq(&a->input, &b->input) && frv_eq(&a->aux, &b->aux) &&
           a->aux.len == a->base.num_aux;
}

/* Keyed parallel synthesis: a first call places the segments as if they
 * all had segment 0's shape (redone the copying way when they do not),
 * later ones place them at the shapes seen; a call whose shapes differ
 * under the same key is redone the copying way; every result equals the
 * sequential one, and the counters show which way each call went. */
static void keyed_parallel(cuzk_rng *rng)
{
    for (int mode = 0; mode < 4; mode++) {
        const bool shared = mode & 1, uniform = mode & 2;
        const uint64_t key = cuzk_rng_u64(rng) | 1, seed = cuzk_rng_u64(rng);
        const size_t nseg = 2 + cuzk_rng_u64(rng) % 30;
        const unsigned threads = 2 + (unsigned)(cuzk_rng_u64(rng) % 3);
        keyed_ctx c = {.shape_seed = cuzk_rng_u64(rng), .value_seed = cuzk_rng_u64(rng), .uniform = uniform};
        /* first call, then in place with new values, then a new shape
         * under the same key (redone), then that shape in place */
        static const char *const what[] = {"first call", "in-place call", "changed shape", "new shape in place",
                                           "failing segment"};
        for (int step = 0; step < 5; step++) {
            if (step == 1 || step == 3) c.value_seed = cuzk_rng_u64(rng);
            if (step == 2)
                for (size_t was = keyed_aux(&c, 0); keyed_aux(&c, 0) == was;) c.shape_seed = cuzk_rng_u64(rng);
            if (step == 4) c.fail_seg = 1 + cuzk_rng_u64(rng) % nseg;
            cuzk_cs_parallel_counts before, after;
            cuzk_cs_parallel_counts_get(&before);
            int rc_seq, rc_par;
            cuzk_witness_cs *seq = keyed_run(seed, &c, nseg, 1, shared, key, &rc_seq);
            cuzk_witness_cs *par = keyed_run(seed, &c, nseg, threads, shared, key, &rc_par);
            cuzk_cs_parallel_counts_get(&after);
            /* a failed synthesis is only its error (the sequential one stops midway) */
            const bool same = step == 4 ? seq->base.err == rc_seq && par->base.err == rc_par : witness_eq(seq, par);
            CHECK_MSG(rc_seq == rc_par && same, "%s (%s, %s, %zu segments, %u threads): rc %d / %d", what[step],
                      shared ? "forks" : "fresh children", uniform ? "uniform" : "varied", nseg, threads, rc_seq,
                      rc_par);
            const uint64_t placed = after.placed - before.placed, copied = after.copied - before.copied,
                           reshaped = after.reshaped - before.reshaped;
            /* a first call of a uniform shape, and any call of a shape seen,
             * is placed; others are redone by copying (other threads run no
             * keyed syntheses in this test) */
            const bool seen = step == 1 || step == 3 || (step == 0 && uniform);
            const bool way = step == 4   ? reshaped == 1 && copied == 1 && rc_par == CUZK_ERR_VERIFY_FAILED
                             : seen      ? placed == 1 && copied == 0 && reshaped == 0
                                         : reshaped == 1 && copied == 1 && placed == 0;
            CHECK_MSG(way, "%s (%s) went placed %llu, copied %llu, reshaped %llu", what[step],
                      uniform ? "uniform" : "varied", (unsigned long long)placed, (unsigned long long)copied,
                      (unsigned long long)reshaped);
            cuzk_cs_free(&seq->base);
            cuzk_cs_free(&par->base);
        }
    }
    /* a first call whose guess misses only at the last segment keeps the others in place
     * and synthesizes that one again: n + 1 segment calls, not 2n - 1 */
    for (int shared = 0; shared < 2; shared++) {
        const size_t nseg = 3 + cuzk_rng_u64(rng) % 20;
        keyed_ctx c = {.shape_seed = cuzk_rng_u64(rng), .value_seed = cuzk_rng_u64(rng), .tail = nseg};
        const uint64_t key = cuzk_rng_u64(rng) | 1;
        int rc_seq, rc_par;
        cuzk_witness_cs *seq = keyed_run(7, &c, nseg, 1, shared, key, &rc_seq);
        atomic_store(&keyed_calls, 0);
        cuzk_witness_cs *par = keyed_run(7, &c, nseg, 3, shared, key, &rc_par);
        const size_t calls = atomic_load(&keyed_calls);
        CHECK_MSG(rc_seq == 0 && rc_par == 0 && witness_eq(seq, par) && calls == nseg + 1,
                  "tail shape, %zu segments (%s): %zu segment calls, rc %d / %d", nseg, shared ? "forks" : "fresh",
                  calls, rc_seq, rc_par);
        cuzk_cs_free(&seq->base);
        cuzk_cs_free(&par->base);
    }
    /* a constraint system without in-place windows copies, and agrees with WitnessCS */
    const uint64_t key = cuzk_rng_u64(rng) | 1;
    keyed_ctx c = {cuzk_rng_u64(rng), cuzk_rng_u64(rng), false, 0, 0};
    for (int i = 0; i < 2; i++) {
        cuzk_cs_parallel_counts before, after;
        cuzk_cs_parallel_counts_get(&before);
        cuzk_proving_cs *p = cuzk_proving_cs_new();
        cuzk_cs_alloc_one(&p->base);
        CHECK(cuzk_cs_synthesize_parallel_keyed(&p->base, 7, keyed_fn, &c, 3, true, key) == 0);
        cuzk_cs_parallel_counts_get(&after);
        CHECK(p->base.num_aux > 7 && p->aux.len == p->base.num_aux && after.copied == before.copied + 1 &&
              after.placed == before.placed);
        cuzk_cs_free(&p->base);
    }
    /* reserve gives exactly the room asked for */
    cuzk_witness_cs *w = cuzk_witness_cs_new();
    cuzk_cs_alloc_one(&w->base);
    CHECK(cuzk_cs_reserve(&w->base, 3, 1000) == 0 && w->aux.cap == 1000 && w->input.cap >= 4);
    cuzk_cs_free(&w->base);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_cs_parity");

    /* Every constraint system starts empty: no pre-allocated ONE. */
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

    /* Random circuits, all four constraint systems. */
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
        /* RecordingCS needs no values; the systems holding values reject NULL. */
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
    keyed_parallel(&rng);
    return tu_finish("test_cs_parity");
}
