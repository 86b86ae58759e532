/* Four constraint systems side by side (WitnessCS, RecordingCS, ProvingAssignment,
 * TestCS) and a full consistency check of one finalized set: counts,
 * witnesses, matrices x witness = a/b/c evaluations, satisfaction, input
 * constraints, densities. Shared by the cs and circuit tests. */
#ifndef CS_SYS4_H
#define CS_SYS4_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "testutil.h"

typedef struct sys4 {
    cuzk_witness_cs *w;
    cuzk_recording_cs *r;
    cuzk_proving_cs *p;
    cuzk_test_cs *t;
} sys4;

static inline cuzk_cs *sys_get(sys4 *s, int k)
{
    return k == 0 ? &s->w->base : k == 1 ? &s->r->base : k == 2 ? &s->p->base : &s->t->base;
}

static inline void sys_new(sys4 *s)
{
    s->w = cuzk_witness_cs_new();
    s->r = cuzk_recording_cs_new();
    s->p = cuzk_proving_cs_new();
    s->t = cuzk_test_cs_new();
}

static inline void sys_free(sys4 *s)
{
    for (int k = 0; k < 4; k++) cuzk_cs_free(sys_get(s, k));
}

/* Row r of matrix m times z. */
static inline void row_eval(cuzk_fr *out, const cuzk_recording_cs *rc, int k, size_t r, const cuzk_fr *z)
{
    const cuzk_csr *m = &rc->m[k];
    cuzk_fr acc = cuzk_fr_zero, t;
    for (uint64_t i = m->row_ptr[r]; i < m->row_ptr[r + 1]; i++) {
        cuzk_fr_mul(&t, cuzk_recording_cs_val(rc, k, i), &z[m->col[i]]);
        cuzk_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static inline bool frv_eq(const cuzk_fr_vec *a, const cuzk_fr_vec *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->v, b->v, a->len * sizeof *a->v) == 0);
}

static inline bool dens_eq(const cuzk_density *a, const cuzk_density *b)
{
    if (a->len != b->len || a->total != b->total) return false;
    for (size_t i = 0; i < a->len; i++)
        if (cuzk_density_get(a, i) != cuzk_density_get(b, i)) return false;
    return true;
}

static inline bool csr_eq(const cuzk_csr *a, const cuzk_csr *b, size_t rows)
{
    if (a->nnz != b->nnz) return false;
    if (memcmp(a->row_ptr, b->row_ptr, (rows + 1) * sizeof *a->row_ptr)) return false;
    if (a->nnz && memcmp(a->col, b->col, a->nnz * sizeof *a->col)) return false;
    if (a->nnz && memcmp(a->coeff, b->coeff, a->nnz * sizeof *a->coeff)) return false;
    return true;
}

/* Full consistency of one finalized set of four systems. */
static inline void check_parity(sys4 *s, const char *what)
{
    cuzk_cs *b0 = sys_get(s, 0);
    for (int k = 0; k < 4; k++) {
        cuzk_cs *b = sys_get(s, k);
        CHECK_MSG(b->err == 0, "%s: system %d err %d", what, k, b->err);
        CHECK_MSG(b->num_inputs == b0->num_inputs && b->num_aux == b0->num_aux &&
                      b->num_constraints == b0->num_constraints,
                  "%s: counts differ on system %d: %zu/%zu/%zu vs %zu/%zu/%zu", what, k,
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

#endif
