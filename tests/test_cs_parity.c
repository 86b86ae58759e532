/* Backend parity: the same random circuits on WitnessCS, RecordingCS,
 * ProvingAssignment and TestCS agree on counts, witness, matrices x witness
 * = evaluations, densities; parallel extend equals sequential synthesis. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/error.h"
#include "test_cs_circuit.h"
#include "testutil.h"

typedef struct sys4 {
    cuzk_witness_cs *w;
    cuzk_recording_cs *r;
    cuzk_proving_cs *p;
    cuzk_test_cs *t;
} sys4;

static cuzk_cs *sys_get(sys4 *s, int k)
{
    return k == 0 ? &s->w->base : k == 1 ? &s->r->base : k == 2 ? &s->p->base : &s->t->base;
}

static void sys_new(sys4 *s)
{
    s->w = cuzk_witness_cs_new();
    s->r = cuzk_recording_cs_new();
    s->p = cuzk_proving_cs_new();
    s->t = cuzk_test_cs_new();
}

static void sys_free(sys4 *s)
{
    for (int k = 0; k < 4; k++) cuzk_cs_free(sys_get(s, k));
}

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

/* Row r of matrix m times z. */
static void row_eval(cuzk_fr *out, const cuzk_recording_cs *rc, int k, size_t r, const cuzk_fr *z)
{
    const cuzk_csr *m = &rc->m[k];
    cuzk_fr acc = cuzk_fr_zero, t;
    for (uint64_t i = m->row_ptr[r]; i < m->row_ptr[r + 1]; i++) {
        cuzk_fr_mul(&t, cuzk_recording_cs_val(rc, k, i), &z[m->col[i]]);
        cuzk_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static bool frv_eq(const cuzk_fr_vec *a, const cuzk_fr_vec *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->v, b->v, a->len * sizeof *a->v) == 0);
}

static bool dens_eq(const cuzk_density *a, const cuzk_density *b)
{
    if (a->len != b->len || a->total != b->total) return false;
    for (size_t i = 0; i < a->len; i++)
        if (cuzk_density_get(a, i) != cuzk_density_get(b, i)) return false;
    return true;
}

static bool csr_eq(const cuzk_csr *a, const cuzk_csr *b, size_t rows)
{
    if (a->nnz != b->nnz) return false;
    if (memcmp(a->row_ptr, b->row_ptr, (rows + 1) * sizeof *a->row_ptr)) return false;
    if (a->nnz && memcmp(a->col, b->col, a->nnz * sizeof *a->col)) return false;
    if (a->nnz && memcmp(a->coeff, b->coeff, a->nnz * sizeof *a->coeff)) return false;
    return true;
}

/* Full consistency of one finalized set of four systems. */
static void check_parity(sys4 *s, const char *what)
{
    cuzk_cs *b0 = sys_get(s, 0);
    for (int k = 0; k < 4; k++) {
        cuzk_cs *b = sys_get(s, k);
        CHECK_MSG(b->err == 0, "%s: backend %d err %d", what, k, b->err);
        CHECK_MSG(b->num_inputs == b0->num_inputs && b->num_aux == b0->num_aux &&
                      b->num_constraints == b0->num_constraints,
                  "%s: counts differ on backend %d: %zu/%zu/%zu vs %zu/%zu/%zu", what, k,
                  b->num_inputs, b->num_aux, b->num_constraints, b0->num_inputs, b0->num_aux,
                  b0->num_constraints);
    }
    CHECK_MSG(cuzk_test_cs_is_satisfied(s->t), "%s: TestCS unsatisfied at %s", what,
              s->t->first_unsat ? s->t->first_unsat : "?");
    for (int m = 0; m < 3; m++) CHECK(s->t->nnz[m] == s->r->m[m].nnz);
    CHECK(frv_eq(&s->w->input, &s->p->input) && frv_eq(&s->w->aux, &s->p->aux));
    CHECK(frv_eq(&s->t->input, &s->p->input) && frv_eq(&s->t->aux, &s->p->aux));
    size_t ni = s->p->input.len, na = s->p->aux.len, nc = b0->num_constraints;
    CHECK(ni == b0->num_inputs && na == b0->num_aux && s->p->a.len == nc);
    cuzk_fr *z = malloc((ni + na + 1) * sizeof *z);
    memcpy(z, s->p->input.v, ni * sizeof *z);
    memcpy(z + ni, s->p->aux.v, na * sizeof *z);
    size_t bad_abc = 0, bad_sat = 0;
    for (size_t r = 0; r < nc; r++) {
        cuzk_fr e[3], ab;
        for (int m = 0; m < 3; m++) row_eval(&e[m], s->r, m, r, z);
        if (!cuzk_fr_eq(&e[0], &s->p->a.v[r]) || !cuzk_fr_eq(&e[1], &s->p->b.v[r]) ||
            !cuzk_fr_eq(&e[2], &s->p->c.v[r]))
            bad_abc++;
        cuzk_fr_mul(&ab, &e[0], &e[1]);
        if (!cuzk_fr_eq(&ab, &e[2])) bad_sat++;
    }
    CHECK_MSG(bad_abc == 0, "%s: %zu rows where matrices x witness != a/b/c", what, bad_abc);
    CHECK_MSG(bad_sat == 0, "%s: %zu unsatisfied rows", what, bad_sat);
    /* The last num_inputs rows are the input constraints. */
    bool inputs_ok = true;
    for (size_t i = 0; i < ni; i++) {
        size_t r = nc - ni + i;
        const cuzk_csr *A = &s->r->m[0];
        if (A->row_ptr[r + 1] - A->row_ptr[r] != 1 || A->col[A->row_ptr[r]] != i ||
            !cuzk_fr_is_one(cuzk_recording_cs_val(s->r, 0, A->row_ptr[r])) ||
            s->r->m[1].row_ptr[r + 1] != s->r->m[1].row_ptr[r] ||
            s->r->m[2].row_ptr[r + 1] != s->r->m[2].row_ptr[r])
            inputs_ok = false;
    }
    CHECK(inputs_ok);
    /* Densities recomputed from the matrices (non-zero coefficients only). */
    cuzk_density da = {0}, dbi = {0}, dba = {0};
    da.len = na;
    dba.len = na;
    dbi.len = ni;
    da.bits = calloc(na / 64 + 1, 8);
    dba.bits = calloc(na / 64 + 1, 8);
    dbi.bits = calloc(ni / 64 + 1, 8);
    for (int m = 0; m < 2; m++) {
        const cuzk_csr *M = &s->r->m[m];
        for (size_t i = 0; i < M->nnz; i++) {
            if (cuzk_fr_is_zero(cuzk_recording_cs_val(s->r, m, i))) continue;
            size_t c = M->col[i];
            cuzk_density *d = c < ni ? (m == 1 ? &dbi : NULL) : (m == 0 ? &da : &dba);
            if (!d) continue;
            size_t idx = c < ni ? c : c - ni;
            if (!cuzk_density_get(d, idx)) {
                d->bits[idx >> 6] |= 1ull << (idx & 63);
                d->total++;
            }
        }
    }
    CHECK_MSG(dens_eq(&da, &s->p->a_aux), "%s: A aux density", what);
    CHECK_MSG(dens_eq(&dbi, &s->p->b_input), "%s: B input density", what);
    CHECK_MSG(dens_eq(&dba, &s->p->b_aux), "%s: B aux density", what);
    free(da.bits);
    free(dba.bits);
    free(dbi.bits);
    free(z);
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
        for (int k = 0; k < 4; k++) {
            cuzk_cs *a = sys_get(&seq, k), *b = sys_get(&par, k);
            CHECK(a->num_inputs == b->num_inputs && a->num_aux == b->num_aux &&
                  a->num_constraints == b->num_constraints);
        }
        for (int m = 0; m < 3; m++)
            CHECK_MSG(csr_eq(&seq.r->m[m], &par.r->m[m], seq.r->base.num_constraints),
                      "matrix %d differs after parallel extend", m);
        CHECK(seq.r->coeffs.len == par.r->coeffs.len &&
              memcmp(seq.r->coeffs.v, par.r->coeffs.v, seq.r->coeffs.len * sizeof(cuzk_fr)) == 0);
        CHECK(frv_eq(&seq.w->input, &par.w->input) && frv_eq(&seq.w->aux, &par.w->aux));
        CHECK(frv_eq(&seq.p->input, &par.p->input) && frv_eq(&seq.p->aux, &par.p->aux));
        CHECK(frv_eq(&seq.p->a, &par.p->a) && frv_eq(&seq.p->b, &par.p->b) &&
              frv_eq(&seq.p->c, &par.p->c));
        CHECK(dens_eq(&seq.p->a_aux, &par.p->a_aux) && dens_eq(&seq.p->b_input, &par.p->b_input) &&
              dens_eq(&seq.p->b_aux, &par.p->b_aux));
        for (int m = 0; m < 3; m++) CHECK(seq.t->nnz[m] == par.t->nnz[m]);
        CHECK(frv_eq(&seq.t->aux, &par.t->aux));
        sys_free(&s);
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
