/* Linear combinations with bellpepper's semantics: a sorted map variable ->
 * coefficient; repeated variables merge, zero coefficients are kept. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/lc.h"

void cuzk_lc_init(cuzk_lc *lc)
{
    lc->heap = NULL;
    lc->len = 0;
    lc->cap = CUZK_LC_INLINE;
    lc->last = 0;
    lc->oom = false;
}

void cuzk_lc_free(cuzk_lc *lc)
{
    free(lc->heap);
    cuzk_lc_init(lc);
}

void cuzk_lc_clear(cuzk_lc *lc)
{
    lc->len = 0;
    lc->last = 0;
    lc->oom = false;
}

static bool lc_grow(cuzk_lc *lc)
{
    uint32_t ncap = lc->cap * 2;
    cuzk_lc_term *n;
    if (lc->heap) {
        n = realloc(lc->heap, (size_t)ncap * sizeof *n);
        if (!n) return false;
    } else {
        n = malloc((size_t)ncap * sizeof *n);
        if (!n) return false;
        memcpy(n, lc->inl, (size_t)lc->len * sizeof *n);
    }
    lc->heap = n;
    lc->cap = ncap;
    return true;
}

/* Inserts a new term at position i (shifting the tail). */
static void lc_insert_at(cuzk_lc *lc, uint32_t i, cuzk_var v, const cuzk_fr *coeff)
{
    if (lc->len == lc->cap && !lc_grow(lc)) {
        lc->oom = true;
        return;
    }
    cuzk_lc_term *t = lc->heap ? lc->heap : lc->inl;
    if (i < lc->len) memmove(&t[i + 1], &t[i], (size_t)(lc->len - i) * sizeof *t);
    t[i].var = v;
    t[i].coeff = *coeff;
    lc->len++;
    lc->last = i;
}

void cuzk_lc_add(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coeff)
{
    cuzk_lc_term *t = lc->heap ? lc->heap : lc->inl;
    uint32_t n = lc->len;
    /* Fast paths: same or next position as the last insertion, or append. */
    if (n) {
        uint32_t l = lc->last;
        if (t[l].var == v) {
            cuzk_fr_add(&t[l].coeff, &t[l].coeff, coeff);
            return;
        }
        if (t[n - 1].var < v) {
            lc_insert_at(lc, n, v, coeff);
            return;
        }
    } else {
        lc_insert_at(lc, 0, v, coeff);
        return;
    }
    uint32_t lo = 0, hi = n; /* first index with var >= v */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (t[mid].var < v) lo = mid + 1;
        else hi = mid;
    }
    if (lo < n && t[lo].var == v) cuzk_fr_add(&t[lo].coeff, &t[lo].coeff, coeff);
    else lc_insert_at(lc, lo, v, coeff);
}

void cuzk_lc_sub(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coeff)
{
    cuzk_fr neg;
    cuzk_fr_neg(&neg, coeff);
    cuzk_lc_add(lc, v, &neg);
}

void cuzk_lc_add_var(cuzk_lc *lc, cuzk_var v) { cuzk_lc_add(lc, v, &cuzk_fr_one); }

void cuzk_lc_sub_var(cuzk_lc *lc, cuzk_var v)
{
    cuzk_fr m;
    cuzk_fr_neg(&m, &cuzk_fr_one);
    cuzk_lc_add(lc, v, &m);
}

void cuzk_lc_add_lc(cuzk_lc *lc, const cuzk_lc *o)
{
    const cuzk_lc_term *t = cuzk_lc_terms(o);
    for (uint32_t i = 0; i < o->len; i++) cuzk_lc_add(lc, t[i].var, &t[i].coeff);
    if (o->oom) lc->oom = true;
}

void cuzk_lc_sub_lc(cuzk_lc *lc, const cuzk_lc *o)
{
    const cuzk_lc_term *t = cuzk_lc_terms(o);
    for (uint32_t i = 0; i < o->len; i++) cuzk_lc_sub(lc, t[i].var, &t[i].coeff);
    if (o->oom) lc->oom = true;
}

void cuzk_lc_add_scaled(cuzk_lc *lc, const cuzk_fr *coeff, const cuzk_lc *o)
{
    const cuzk_lc_term *t = cuzk_lc_terms(o);
    for (uint32_t i = 0; i < o->len; i++) {
        cuzk_fr c;
        cuzk_fr_mul(&c, &t[i].coeff, coeff);
        cuzk_lc_add(lc, t[i].var, &c);
    }
    if (o->oom) lc->oom = true;
}

void cuzk_lc_copy(cuzk_lc *dst, const cuzk_lc *src)
{
    cuzk_lc_clear(dst);
    while (dst->cap < src->len)
        if (!lc_grow(dst)) {
            dst->oom = true;
            return;
        }
    cuzk_lc_term *t = dst->heap ? dst->heap : dst->inl;
    memcpy(t, cuzk_lc_terms(src), (size_t)src->len * sizeof *t);
    dst->len = src->len;
    dst->last = src->len ? src->len - 1 : 0;
    dst->oom = src->oom;
}

void cuzk_lc_eval(cuzk_fr *out, const cuzk_lc *lc, const cuzk_fr *in, const cuzk_fr *aux)
{
    cuzk_fr acc = cuzk_fr_zero, tmp;
    const cuzk_lc_term *t = cuzk_lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        const cuzk_fr *x = cuzk_var_is_aux(t[i].var) ? &aux[cuzk_var_index(t[i].var)]
                                                     : &in[cuzk_var_index(t[i].var)];
        if (cuzk_fr_is_one(&t[i].coeff)) {
            cuzk_fr_add(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&tmp, x, &t[i].coeff);
            cuzk_fr_add(&acc, &acc, &tmp);
        }
    }
    *out = acc;
}
