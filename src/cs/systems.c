/* Four of the constraint systems (CountingCS: count.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cs_internal.h"

/* ---- helpers ---------------------------------------------------------- */

static bool frv_reserve(cuzk_fr_vec *v, size_t need)
{
    if (need <= v->cap) return true;
    if (need > SIZE_MAX / 2 / sizeof *v->v) return false; /* the doubling below must not wrap */
    size_t nc = v->cap ? v->cap : 64;
    while (nc < need) nc *= 2;
    cuzk_fr *p = realloc(v->v, nc * sizeof *p);
    if (!p) return false;
    v->v = p;
    v->cap = nc;
    return true;
}

static inline void frv_push(cuzk_cs *cs, cuzk_fr_vec *v, const cuzk_fr *x)
{
    if (v->len == v->cap && !frv_reserve(v, v->len + 1)) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return;
    }
    v->v[v->len++] = *x;
}

static int frv_append(cuzk_fr_vec *v, const cuzk_fr *x, size_t n)
{
    if (!frv_reserve(v, v->len + n)) return CUZK_ERR_NO_MEMORY;
    if (n) memcpy(v->v + v->len, x, n * sizeof *x);
    v->len += n;
    return 0;
}

/* Appends a child's own values (those after the variables it shares). */
static int append_values(cuzk_fr_vec *pin, cuzk_fr_vec *paux, const cuzk_fr_vec *cin, const cuzk_fr_vec *caux,
                         const cuzk_cs *child)
{
    size_t si = cs_shared_inputs(child), sa = cs_shared_aux(child);
    if (cin->len < si || caux->len < sa) return CUZK_ERR_INVALID_ARG;
    int e = frv_append(pin, cin->v + si, cin->len - si);
    return e ? e : frv_append(paux, caux->v + sa, caux->len - sa);
}

static void frv_free(cuzk_fr_vec *v)
{
    free(v->v);
    memset(v, 0, sizeof *v);
}

static bool dens_reserve(cuzk_density *d, size_t bits)
{
    size_t words = (bits + 63) / 64;
    if (words <= d->cap_words) return true;
    size_t nc = d->cap_words ? d->cap_words : 16;
    while (nc < words) nc *= 2;
    uint64_t *p = realloc(d->bits, nc * sizeof *p);
    if (!p) return false;
    memset(p + d->cap_words, 0, (nc - d->cap_words) * sizeof *p);
    d->bits = p;
    d->cap_words = nc;
    return true;
}

static inline void dens_add(cuzk_cs *cs, cuzk_density *d)
{
    if (!dens_reserve(d, d->len + 1)) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return;
    }
    d->len++;
}

static inline void dens_inc(cuzk_density *d, size_t i)
{
    uint64_t m = 1ull << (i & 63);
    if (!(d->bits[i >> 6] & m)) {
        d->bits[i >> 6] |= m;
        d->total++;
    }
}

/* Appends other's bits from index `from` on. */
static int dens_extend(cuzk_density *d, const cuzk_density *o, size_t from)
{
    if (!dens_reserve(d, d->len + o->len)) return CUZK_ERR_NO_MEMORY;
    for (size_t i = from; i < o->len; i++) {
        if (cuzk_density_get(o, i)) dens_inc(d, d->len);
        d->len++;
    }
    return 0;
}

/* d |= o on the first n bits (both have at least the bits o has there). */
static void dens_or_prefix(cuzk_density *d, const cuzk_density *o, size_t n)
{
    for (size_t i = 0; i < n && i < o->len && i < d->len; i++)
        if (cuzk_density_get(o, i)) dens_inc(d, i);
}

static void dens_free(cuzk_density *d)
{
    free(d->bits);
    memset(d, 0, sizeof *d);
}

/* ---- WitnessCS -------------------------------------------------------- */

/* Exactly need entries (a size known in advance: no doubling slack). */
static bool frv_reserve_exact(cuzk_fr_vec *v, size_t need)
{
    if (need <= v->cap) return true;
    if (need > SIZE_MAX / sizeof *v->v) return false;
    cuzk_fr *p = realloc(v->v, need * sizeof *p);
    if (!p) return false;
    v->v = p;
    v->cap = need;
    return true;
}

static void w_alloc(cuzk_cs *cs, const cuzk_fr *v)
{
    cuzk_witness_cs *w = (cuzk_witness_cs *)cs;
    if (w->aux_placed && w->aux.len == w->aux.cap) { /* past its window: not the shape it was placed for */
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return;
    }
    frv_push(cs, &w->aux, v);
}
static void w_alloc_input(cuzk_cs *cs, const cuzk_fr *v)
{
    frv_push(cs, &((cuzk_witness_cs *)cs)->input, v);
}
static void w_enforce(cuzk_cs *cs, const char *n, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c) {}
/* A WitnessCS child's aux array holds only its own values (a fork copies
 * none of the parent's: nothing here evaluates a constraint over them), so
 * forking from a parent of gigabytes costs nothing. */
static int w_extend(cuzk_cs *p, const cuzk_cs *c)
{
    cuzk_witness_cs *wp = (cuzk_witness_cs *)p;
    const cuzk_witness_cs *wc = (const cuzk_witness_cs *)c;
    size_t si = cs_shared_inputs(c);
    if (wc->input.len < si || wc->aux.len != c->num_aux - cs_shared_aux(c)) return CUZK_ERR_INVALID_ARG;
    if (wc->aux_placed && (wc->aux.v != wp->aux.v + wp->aux.len || wc->aux.len != wc->aux.cap))
        return CUZK_ERR_INVALID_ARG;
    int e = frv_append(&wp->input, wc->input.v + si, wc->input.len - si);
    if (e) return e;
    if (wc->aux_placed) { /* in place: the values already sit right after the parent's */
        wp->aux.len += wc->aux.len;
        return 0;
    }
    return frv_append(&wp->aux, wc->aux.v, wc->aux.len);
}
static int w_fork(cuzk_cs *c, const cuzk_cs *p)
{
    cuzk_witness_cs *wc = (cuzk_witness_cs *)c;
    const cuzk_witness_cs *wp = (const cuzk_witness_cs *)p;
    return frv_append(&wc->input, wp->input.v, wp->input.len);
}
static int w_reserve(cuzk_cs *cs, size_t inputs, size_t aux)
{
    cuzk_witness_cs *w = (cuzk_witness_cs *)cs;
    if (w->aux_placed) return CUZK_ERR_INVALID_ARG;
    return frv_reserve_exact(&w->input, w->input.len + inputs) && frv_reserve_exact(&w->aux, w->aux.len + aux)
               ? 0
               : CUZK_ERR_NO_MEMORY;
}
static int w_place(cuzk_cs *c, const cuzk_cs *p, size_t at, size_t len, bool copy_inputs)
{
    cuzk_witness_cs *wc = (cuzk_witness_cs *)c;
    const cuzk_witness_cs *wp = (const cuzk_witness_cs *)p;
    if (wc->aux.v || wc->aux_placed || at > wp->aux.cap || len > wp->aux.cap - at) return CUZK_ERR_INVALID_ARG;
    int e = copy_inputs ? frv_append(&wc->input, wp->input.v, wp->input.len) : 0;
    if (e) return e;
    wc->aux = (cuzk_fr_vec){wp->aux.v + at, 0, len};
    wc->aux_placed = true;
    return 0;
}
static cuzk_cs *w_new_like(const cuzk_cs *cs) { return (cuzk_cs *)cuzk_witness_cs_new(); }
static void w_destroy(cuzk_cs *cs)
{
    cuzk_witness_cs *w = (cuzk_witness_cs *)cs;
    frv_free(&w->input);
    if (!w->aux_placed) frv_free(&w->aux);
    free(w);
}
static const cuzk_cs_vtable witness_vt = {.kind = CUZK_CS_WITNESS, .name = "WitnessCS", .alloc = w_alloc,
                                          .alloc_input = w_alloc_input, .enforce = w_enforce, .extend = w_extend,
                                          .new_like = w_new_like, .destroy = w_destroy, .fork = w_fork,
                                          .reserve = w_reserve, .place = w_place};

cuzk_witness_cs *cuzk_witness_cs_new(void)
{
    cuzk_witness_cs *w = calloc(1, sizeof *w);
    if (w) {
        cuzk_cs_base_init(&w->base, &witness_vt, true, false);
        w->base.skip_lcs = true;
    }
    return w;
}

/* ---- RecordingCS ------------------------------------------------------ */

static bool csr_reserve(cuzk_csr *m, size_t nnz, size_t rows)
{
    if (rows + 1 > m->rows_cap) {
        size_t nc = m->rows_cap ? m->rows_cap : 1024;
        while (nc < rows + 1) nc *= 2;
        uint64_t *p = realloc(m->row_ptr, nc * sizeof *p);
        if (!p) return false;
        if (!m->row_ptr) p[0] = 0;
        m->row_ptr = p;
        m->rows_cap = nc;
    }
    if (nnz > m->cap) {
        size_t nc = m->cap ? m->cap : 4096;
        while (nc < nnz) nc *= 2;
        uint32_t *c = realloc(m->col, nc * sizeof *c);
        if (!c) return false;
        m->col = c;
        uint32_t *v = realloc(m->coeff, nc * sizeof *v);
        if (!v) return false;
        m->coeff = v;
        m->cap = nc;
    }
    return true;
}

static inline uint64_t coeff_hash(const cuzk_fr *x)
{
    uint64_t h = x->l[0] ^ (x->l[1] * 0x9e3779b97f4a7c15ull) ^ (x->l[2] * 0xc2b2ae3d27d4eb4full) ^
                 (x->l[3] * 0x165667b19e3779f9ull);
    return h ^ (h >> 29);
}

static bool ct_rehash(cuzk_coeff_table *t, size_t nslots)
{
    uint32_t *s = calloc(nslots, sizeof *s);
    if (!s) return false;
    for (size_t i = 0; i < t->len; i++) {
        size_t h = coeff_hash(&t->v[i]) & (nslots - 1);
        while (s[h]) h = (h + 1) & (nslots - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = nslots;
    return true;
}

/* Index of x in the table, inserting it if new; UINT32_MAX on failure. */
static uint32_t ct_index(cuzk_coeff_table *t, const cuzk_fr *x)
{
    if (cuzk_fr_is_one(x)) return 0;
    size_t h = coeff_hash(x) & (t->nslots - 1);
    for (;;) {
        uint32_t e = t->slots[h];
        if (!e) break;
        if (cuzk_fr_eq(&t->v[e - 1], x)) return e - 1;
        h = (h + 1) & (t->nslots - 1);
    }
    if (t->len >= UINT32_MAX - 1) return UINT32_MAX;
    if (t->len == t->cap) {
        size_t nc = t->cap * 2;
        cuzk_fr *v = realloc(t->v, nc * sizeof *v);
        if (!v) return UINT32_MAX;
        t->v = v;
        t->cap = nc;
    }
    t->v[t->len] = *x;
    t->slots[h] = (uint32_t)t->len + 1;
    t->len++;
    if (2 * t->len > t->nslots && !ct_rehash(t, t->nslots * 2)) return UINT32_MAX;
    return (uint32_t)t->len - 1;
}

static bool ct_init(cuzk_coeff_table *t)
{
    t->cap = 64;
    t->v = malloc(t->cap * sizeof *t->v);
    if (!t->v) return false;
    t->v[0] = cuzk_fr_one;
    t->len = 1;
    return ct_rehash(t, 128);
}

static void r_alloc(cuzk_cs *cs, const cuzk_fr *v) {}
static void r_alloc_input(cuzk_cs *cs, const cuzk_fr *v) {}
static void r_enforce(cuzk_cs *cs, const char *n, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c)
{
    cuzk_recording_cs *r = (cuzk_recording_cs *)cs;
    const cuzk_lc *l[3] = {a, b, c};
    size_t row = cs->num_constraints;
    for (int k = 0; k < 3; k++) {
        cuzk_csr *m = &r->m[k];
        if (!csr_reserve(m, m->nnz + l[k]->len, row + 1)) {
            cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
            return;
        }
        const cuzk_lc_term *t = cuzk_lc_terms(l[k]);
        for (uint32_t i = 0; i < l[k]->len; i++) {
            uint32_t ci = ct_index(&r->coeffs, &t[i].coeff);
            if (ci == UINT32_MAX) {
                cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
                return;
            }
            m->col[m->nnz + i] = t[i].var;
            m->coeff[m->nnz + i] = ci;
        }
        m->nnz += l[k]->len;
        m->row_ptr[row + 1] = m->nnz;
    }
}
static int r_extend(cuzk_cs *p, const cuzk_cs *c)
{
    cuzk_recording_cs *rp = (cuzk_recording_cs *)p;
    const cuzk_recording_cs *rc = (const cuzk_recording_cs *)c;
    size_t rows0 = p->num_constraints, nrows = c->num_constraints;
    uint32_t si = (uint32_t)cs_shared_inputs(c), sa = (uint32_t)cs_shared_aux(c);
    uint32_t in_shift = (uint32_t)p->num_inputs - si, aux_shift = (uint32_t)p->num_aux - sa;
    /* Merge the child's table in its index order: new values are appended in
     * the order sequential synthesis would have met them. */
    uint32_t *map = malloc(rc->coeffs.len * sizeof *map);
    if (!map) return CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; i < rc->coeffs.len; i++) {
        map[i] = ct_index(&rp->coeffs, &rc->coeffs.v[i]);
        if (map[i] == UINT32_MAX) {
            free(map);
            return CUZK_ERR_NO_MEMORY;
        }
    }
    for (int k = 0; k < 3; k++) {
        cuzk_csr *m = &rp->m[k];
        const cuzk_csr *o = &rc->m[k];
        if (!csr_reserve(m, m->nnz + o->nnz, rows0 + nrows)) {
            free(map);
            return CUZK_ERR_NO_MEMORY;
        }
        for (size_t i = 0; i < o->nnz; i++) {
            cuzk_var v = o->col[i];
            if (cuzk_var_is_aux(v)) {
                if (cuzk_var_index(v) >= sa) v += aux_shift;
            } else if (v >= si) {
                v += in_shift;
            }
            m->col[m->nnz + i] = v;
        }
        for (size_t i = 0; i < o->nnz; i++) m->coeff[m->nnz + i] = map[o->coeff[i]];
        for (size_t r = 0; r < nrows; r++) m->row_ptr[rows0 + r + 1] = m->nnz + o->row_ptr[r + 1];
        m->nnz += o->nnz;
    }
    free(map);
    return 0;
}
static int r_finalize(cuzk_cs *cs)
{
    cuzk_recording_cs *r = (cuzk_recording_cs *)cs;
    if (cs->num_inputs + cs->num_aux > UINT32_MAX) return CUZK_ERR_UNSUPPORTED;
    uint32_t ni = (uint32_t)cs->num_inputs;
    for (int k = 0; k < 3; k++) {
        cuzk_csr *m = &r->m[k];
        if (!csr_reserve(m, m->nnz, cs->num_constraints)) return CUZK_ERR_NO_MEMORY;
        for (size_t i = 0; i < m->nnz; i++) {
            cuzk_var v = m->col[i];
            m->col[i] = cuzk_var_is_aux(v) ? ni + cuzk_var_index(v) : v;
        }
    }
    return 0;
}
static cuzk_cs *r_new_like(const cuzk_cs *cs) { return (cuzk_cs *)cuzk_recording_cs_new(); }
static void r_destroy(cuzk_cs *cs)
{
    cuzk_recording_cs *r = (cuzk_recording_cs *)cs;
    for (int k = 0; k < 3; k++) {
        free(r->m[k].row_ptr);
        free(r->m[k].col);
        free(r->m[k].coeff);
    }
    free(r->coeffs.v);
    free(r->coeffs.slots);
    free(r);
}
static const cuzk_cs_vtable recording_vt = {.kind = CUZK_CS_RECORDING, .name = "RecordingCS", .alloc = r_alloc,
                                            .alloc_input = r_alloc_input, .enforce = r_enforce, .extend = r_extend,
                                            .finalize = r_finalize, .new_like = r_new_like, .destroy = r_destroy};

cuzk_recording_cs *cuzk_recording_cs_new(void)
{
    cuzk_recording_cs *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    cuzk_cs_base_init(&r->base, &recording_vt, false, false);
    if (!ct_init(&r->coeffs)) {
        r_destroy(&r->base);
        return NULL;
    }
    for (int k = 0; k < 3; k++)
        if (!csr_reserve(&r->m[k], 0, 0)) {
            r_destroy(&r->base);
            return NULL;
        }
    return r;
}

/* ---- ProvingAssignment ------------------------------------------------ */

/* Evaluates lc; marks non-zero-coefficient variables in the trackers. */
static void eval_track(cuzk_fr *out, const cuzk_lc *lc, const cuzk_fr *in, const cuzk_fr *aux,
                       cuzk_density *din, cuzk_density *daux)
{
    cuzk_fr acc = cuzk_fr_zero, tmp;
    const cuzk_lc_term *t = cuzk_lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        if (cuzk_fr_is_zero(&t[i].coeff)) continue;
        uint32_t idx = cuzk_var_index(t[i].var);
        const cuzk_fr *x;
        if (cuzk_var_is_aux(t[i].var)) {
            x = &aux[idx];
            if (daux) dens_inc(daux, idx);
        } else {
            x = &in[idx];
            if (din) dens_inc(din, idx);
        }
        if (cuzk_fr_is_one(&t[i].coeff)) {
            cuzk_fr_add(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&tmp, x, &t[i].coeff);
            cuzk_fr_add(&acc, &acc, &tmp);
        }
    }
    *out = acc;
}

static void p_alloc(cuzk_cs *cs, const cuzk_fr *v)
{
    cuzk_proving_cs *p = (cuzk_proving_cs *)cs;
    frv_push(cs, &p->aux, v);
    dens_add(cs, &p->a_aux);
    dens_add(cs, &p->b_aux);
}
static void p_alloc_input(cuzk_cs *cs, const cuzk_fr *v)
{
    cuzk_proving_cs *p = (cuzk_proving_cs *)cs;
    frv_push(cs, &p->input, v);
    dens_add(cs, &p->b_input);
}
static void p_enforce(cuzk_cs *cs, const char *n, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c)
{
    cuzk_proving_cs *p = (cuzk_proving_cs *)cs;
    cuzk_fr ra, rb, rc;
    eval_track(&ra, a, p->input.v, p->aux.v, NULL, &p->a_aux);
    eval_track(&rb, b, p->input.v, p->aux.v, &p->b_input, &p->b_aux);
    cuzk_lc_eval(&rc, c, p->input.v, p->aux.v);
    frv_push(cs, &p->a, &ra);
    frv_push(cs, &p->b, &rb);
    frv_push(cs, &p->c, &rc);
}
static int p_extend(cuzk_cs *pp, const cuzk_cs *cc)
{
    cuzk_proving_cs *p = (cuzk_proving_cs *)pp;
    const cuzk_proving_cs *c = (const cuzk_proving_cs *)cc;
    int e = 0;
    size_t si = cs_shared_inputs(cc), sa = cs_shared_aux(cc);
    /* Shared variables (ONE at least) are the parent's: merge their bits. */
    dens_or_prefix(&p->a_aux, &c->a_aux, sa);
    dens_or_prefix(&p->b_input, &c->b_input, si);
    dens_or_prefix(&p->b_aux, &c->b_aux, sa);
    if (!e) e = dens_extend(&p->a_aux, &c->a_aux, sa);
    if (!e) e = dens_extend(&p->b_input, &c->b_input, si);
    if (!e) e = dens_extend(&p->b_aux, &c->b_aux, sa);
    if (!e) e = frv_append(&p->a, c->a.v, c->a.len);
    if (!e) e = frv_append(&p->b, c->b.v, c->b.len);
    if (!e) e = frv_append(&p->c, c->c.v, c->c.len);
    if (!e) e = append_values(&p->input, &p->aux, &c->input, &c->aux, cc);
    return e;
}
static int p_fork(cuzk_cs *cc, const cuzk_cs *pp)
{
    cuzk_proving_cs *c = (cuzk_proving_cs *)cc;
    const cuzk_proving_cs *p = (const cuzk_proving_cs *)pp;
    int e = frv_append(&c->input, p->input.v, p->input.len);
    if (!e) e = frv_append(&c->aux, p->aux.v, p->aux.len);
    /* zero density bits for the shared variables, ORed back on extend */
    if (!e && !(dens_reserve(&c->a_aux, p->aux.len) && dens_reserve(&c->b_aux, p->aux.len) &&
                dens_reserve(&c->b_input, p->input.len)))
        e = CUZK_ERR_NO_MEMORY;
    if (!e) {
        c->a_aux.len = c->b_aux.len = p->aux.len;
        c->b_input.len = p->input.len;
    }
    return e;
}
static cuzk_cs *p_new_like(const cuzk_cs *cs) { return (cuzk_cs *)cuzk_proving_cs_new(); }
static void p_destroy(cuzk_cs *cs)
{
    cuzk_proving_cs *p = (cuzk_proving_cs *)cs;
    frv_free(&p->input);
    frv_free(&p->aux);
    frv_free(&p->a);
    frv_free(&p->b);
    frv_free(&p->c);
    dens_free(&p->a_aux);
    dens_free(&p->b_input);
    dens_free(&p->b_aux);
    free(p);
}
static const cuzk_cs_vtable proving_vt = {.kind = CUZK_CS_PROVING, .name = "ProvingAssignment", .alloc = p_alloc,
                                          .alloc_input = p_alloc_input, .enforce = p_enforce, .extend = p_extend,
                                          .new_like = p_new_like, .destroy = p_destroy, .fork = p_fork};

cuzk_proving_cs *cuzk_proving_cs_new(void)
{
    cuzk_proving_cs *p = calloc(1, sizeof *p);
    if (p) cuzk_cs_base_init(&p->base, &proving_vt, true, false);
    return p;
}

/* ---- TestCS ----------------------------------------------------------- */

static void t_alloc(cuzk_cs *cs, const cuzk_fr *v)
{
    cuzk_test_cs *t = (cuzk_test_cs *)cs;
    if (t->tamper && t->aux.len == t->tamper_index) v = &t->tamper_value;
    frv_push(cs, &t->aux, v);
}
static void t_alloc_input(cuzk_cs *cs, const cuzk_fr *v)
{
    frv_push(cs, &((cuzk_test_cs *)cs)->input, v);
}
static void t_record_failure(cuzk_test_cs *t, size_t index, const char *path, const char *name)
{
    t->num_unsatisfied++;
    if (t->first_unsat) return;
    size_t lp = strlen(path), ln = strlen(name);
    char *s = malloc(lp + ln + 2);
    if (!s) {
        cuzk_cs_set_error(&t->base, CUZK_ERR_NO_MEMORY);
        return;
    }
    memcpy(s, path, lp);
    size_t o = lp;
    if (lp && ln) s[o++] = '/';
    memcpy(s + o, name, ln);
    s[o + ln] = 0;
    t->first_unsat = s;
    t->first_unsat_index = index;
}
static void t_enforce(cuzk_cs *cs, const char *name, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c)
{
    cuzk_test_cs *t = (cuzk_test_cs *)cs;
    cuzk_fr ra, rb, rc;
    cuzk_lc_eval(&ra, a, t->input.v, t->aux.v);
    cuzk_lc_eval(&rb, b, t->input.v, t->aux.v);
    cuzk_lc_eval(&rc, c, t->input.v, t->aux.v);
    cuzk_fr_mul(&ra, &ra, &rb);
    t->nnz[0] += a->len;
    t->nnz[1] += b->len;
    t->nnz[2] += c->len;
    if (!cuzk_fr_eq(&ra, &rc))
        t_record_failure(t, cs->num_constraints, cuzk_cs_ns_path(cs), name ? name : "");
}
static int t_extend(cuzk_cs *pp, const cuzk_cs *cc)
{
    cuzk_test_cs *p = (cuzk_test_cs *)pp;
    const cuzk_test_cs *c = (const cuzk_test_cs *)cc;
    if (c->first_unsat && !p->first_unsat) {
        size_t before = p->num_unsatisfied;
        t_record_failure(p, pp->num_constraints + c->first_unsat_index, cuzk_cs_ns_path(pp),
                         c->first_unsat);
        p->num_unsatisfied = before;
    }
    p->num_unsatisfied += c->num_unsatisfied;
    for (int k = 0; k < 3; k++) p->nnz[k] += c->nnz[k];
    int e = append_values(&p->input, &p->aux, &c->input, &c->aux, cc);
    return e ? e : pp->err;
}
static int t_fork(cuzk_cs *cc, const cuzk_cs *pp)
{
    cuzk_test_cs *c = (cuzk_test_cs *)cc;
    const cuzk_test_cs *p = (const cuzk_test_cs *)pp;
    int e = frv_append(&c->input, p->input.v, p->input.len);
    return e ? e : frv_append(&c->aux, p->aux.v, p->aux.len);
}
static cuzk_cs *t_new_like(const cuzk_cs *cs) { return (cuzk_cs *)cuzk_test_cs_new(); }
static void t_destroy(cuzk_cs *cs)
{
    cuzk_test_cs *t = (cuzk_test_cs *)cs;
    frv_free(&t->input);
    frv_free(&t->aux);
    free(t->first_unsat);
    free(t);
}
static const cuzk_cs_vtable test_vt = {.kind = CUZK_CS_TEST, .name = "TestCS", .alloc = t_alloc,
                                       .alloc_input = t_alloc_input, .enforce = t_enforce, .extend = t_extend,
                                       .new_like = t_new_like, .destroy = t_destroy, .fork = t_fork};

cuzk_test_cs *cuzk_test_cs_new(void)
{
    cuzk_test_cs *t = calloc(1, sizeof *t);
    if (t) cuzk_cs_base_init(&t->base, &test_vt, true, true);
    return t;
}

cuzk_cs *cuzk_cs_new(cuzk_cs_kind kind)
{
    switch (kind) {
    case CUZK_CS_WITNESS: return (cuzk_cs *)cuzk_witness_cs_new();
    case CUZK_CS_RECORDING: return (cuzk_cs *)cuzk_recording_cs_new();
    case CUZK_CS_PROVING: return (cuzk_cs *)cuzk_proving_cs_new();
    case CUZK_CS_TEST: return (cuzk_cs *)cuzk_test_cs_new();
    case CUZK_CS_COUNT: return (cuzk_cs *)cuzk_count_cs_new();
    }
    return NULL;
}
