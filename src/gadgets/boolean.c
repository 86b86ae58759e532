/* Boolean gadgets, constraint-for-constraint as bellpepper-core's
 * gadgets/boolean.rs (same allocation order, terms and match order). */
#include "cuzk/util/error.h"
#include "cuzk/gadgets/gadgets.h"

static cuzk_fr fr_bool(bool b) { return b ? cuzk_fr_one : cuzk_fr_zero; }

static cuzk_abit abit_alloc_value(cuzk_cs *cs, const char *name, bool v)
{
    cuzk_fr fv = fr_bool(v);
    return (cuzk_abit){cuzk_cs_alloc(cs, name, &fv), v};
}

cuzk_abit cuzk_abit_alloc(cuzk_cs *cs, bool value)
{
    cuzk_abit r = abit_alloc_value(cs, "boolean", value);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return r;
    }
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, CUZK_CS_ONE);
    cuzk_lc_sub_var(&a, r.var);
    cuzk_lc_add_var(&b, r.var);
    cuzk_cs_enforce(cs, "boolean constraint", &a, &b, &c);
    return r;
}

cuzk_abit cuzk_abit_alloc_conditionally(cuzk_cs *cs, bool value, const cuzk_abit *mbf)
{
    cuzk_abit r = abit_alloc_value(cs, "boolean", value);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return r;
    }
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, CUZK_CS_ONE);
    cuzk_lc_sub_var(&a, mbf->var);
    cuzk_lc_sub_var(&a, r.var);
    cuzk_lc_add_var(&b, r.var);
    cuzk_cs_enforce(cs, "boolean constraint", &a, &b, &c);
    return r;
}

cuzk_abit cuzk_abit_xor(cuzk_cs *cs, const cuzk_abit *x, const cuzk_abit *y)
{
    cuzk_abit r = abit_alloc_value(cs, "xor result", x->value ^ y->value);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return r;
    }
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    /* (a + a) * b = a + b - c */
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_add_var(&b, y->var);
    cuzk_lc_add_var(&c, x->var);
    cuzk_lc_add_var(&c, y->var);
    cuzk_lc_sub_var(&c, r.var);
    cuzk_cs_enforce(cs, "xor constraint", &a, &b, &c);
    return r;
}

cuzk_abit cuzk_abit_and(cuzk_cs *cs, const cuzk_abit *x, const cuzk_abit *y)
{
    cuzk_abit r = abit_alloc_value(cs, "and result", x->value & y->value);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return r;
    }
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_add_var(&b, y->var);
    cuzk_lc_add_var(&c, r.var);
    cuzk_cs_enforce(cs, "and constraint", &a, &b, &c);
    return r;
}

cuzk_abit cuzk_abit_and_not(cuzk_cs *cs, const cuzk_abit *x, const cuzk_abit *y)
{
    cuzk_abit r = abit_alloc_value(cs, "and not result", x->value & !y->value);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return r;
    }
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_add_var(&b, CUZK_CS_ONE);
    cuzk_lc_sub_var(&b, y->var);
    cuzk_lc_add_var(&c, r.var);
    cuzk_cs_enforce(cs, "and not constraint", &a, &b, &c);
    return r;
}

cuzk_abit cuzk_abit_nor(cuzk_cs *cs, const cuzk_abit *x, const cuzk_abit *y)
{
    cuzk_abit r = abit_alloc_value(cs, "nor result", !x->value & !y->value);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return r;
    }
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, CUZK_CS_ONE);
    cuzk_lc_sub_var(&a, x->var);
    cuzk_lc_add_var(&b, CUZK_CS_ONE);
    cuzk_lc_sub_var(&b, y->var);
    cuzk_lc_add_var(&c, r.var);
    cuzk_cs_enforce(cs, "nor constraint", &a, &b, &c);
    return r;
}

/* ---- Boolean ---------------------------------------------------------- */

static inline cuzk_abit as_abit(const cuzk_bool *b) { return (cuzk_abit){b->var, b->bit}; }
static inline cuzk_bool is_of(cuzk_abit a) { return cuzk_bool_from_abit(a); }

cuzk_bool cuzk_bool_not(const cuzk_bool *b)
{
    cuzk_bool r = *b;
    if (b->kind == CUZK_BOOL_CONST) r.bit = !b->bit;
    else r.kind = b->kind == CUZK_BOOL_IS ? CUZK_BOOL_NOT : CUZK_BOOL_IS;
    return r;
}

cuzk_bool cuzk_bool_alloc(cuzk_cs *cs, bool value) { return is_of(cuzk_abit_alloc(cs, value)); }

void cuzk_bool_lc_add(cuzk_lc *lc, const cuzk_bool *b, const cuzk_fr *coeff)
{
    switch (b->kind) {
    case CUZK_BOOL_CONST:
        if (b->bit) cuzk_lc_add(lc, CUZK_CS_ONE, coeff);
        break;
    case CUZK_BOOL_IS: cuzk_lc_add(lc, b->var, coeff); break;
    default:
        cuzk_lc_add(lc, CUZK_CS_ONE, coeff);
        cuzk_lc_sub(lc, b->var, coeff);
    }
}

void cuzk_bool_lc_sub(cuzk_lc *lc, const cuzk_bool *b, const cuzk_fr *coeff)
{
    switch (b->kind) {
    case CUZK_BOOL_CONST:
        if (b->bit) cuzk_lc_sub(lc, CUZK_CS_ONE, coeff);
        break;
    case CUZK_BOOL_IS: cuzk_lc_sub(lc, b->var, coeff); break;
    default: /* -(coeff*ONE - coeff*var) */
        cuzk_lc_sub(lc, CUZK_CS_ONE, coeff);
        cuzk_lc_add(lc, b->var, coeff);
    }
}

cuzk_bool cuzk_bool_xor(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b)
{
    if (a->kind == CUZK_BOOL_CONST && !a->bit) return *b;
    if (b->kind == CUZK_BOOL_CONST && !b->bit) return *a;
    if (a->kind == CUZK_BOOL_CONST) return cuzk_bool_not(b); /* a is true */
    if (b->kind == CUZK_BOOL_CONST) return cuzk_bool_not(a);
    cuzk_abit x = as_abit(a), y = as_abit(b);
    if (a->kind == b->kind) return is_of(cuzk_abit_xor(cs, &x, &y));
    /* (Is, Not) or (Not, Is): xor(is, not.not()).not() */
    cuzk_abit r = a->kind == CUZK_BOOL_IS ? cuzk_abit_xor(cs, &x, &y) : cuzk_abit_xor(cs, &y, &x);
    cuzk_bool rb = is_of(r);
    return cuzk_bool_not(&rb);
}

cuzk_bool cuzk_bool_and(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b)
{
    if ((a->kind == CUZK_BOOL_CONST && !a->bit) || (b->kind == CUZK_BOOL_CONST && !b->bit))
        return cuzk_bool_const(false);
    if (a->kind == CUZK_BOOL_CONST) return *b;
    if (b->kind == CUZK_BOOL_CONST) return *a;
    cuzk_abit x = as_abit(a), y = as_abit(b);
    if (a->kind == CUZK_BOOL_IS && b->kind == CUZK_BOOL_NOT) return is_of(cuzk_abit_and_not(cs, &x, &y));
    if (a->kind == CUZK_BOOL_NOT && b->kind == CUZK_BOOL_IS) return is_of(cuzk_abit_and_not(cs, &y, &x));
    if (a->kind == CUZK_BOOL_NOT) return is_of(cuzk_abit_nor(cs, &x, &y));
    return is_of(cuzk_abit_and(cs, &x, &y));
}

cuzk_bool cuzk_bool_or(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b)
{
    cuzk_bool na = cuzk_bool_not(a), nb = cuzk_bool_not(b);
    cuzk_cs_push_ns(cs, "not and (not a) (not b)");
    cuzk_bool r = cuzk_bool_and(cs, &na, &nb);
    cuzk_cs_pop_ns(cs);
    return cuzk_bool_not(&r);
}

int cuzk_bool_enforce_equal(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b)
{
    if (a->kind == CUZK_BOOL_CONST && b->kind == CUZK_BOOL_CONST) {
        if (a->bit == b->bit) return 0;
        cuzk_cs_set_error(cs, CUZK_ERR_UNSATISFIED);
        return CUZK_ERR_UNSATISFIED;
    }
    cuzk_lc z, c;
    cuzk_lc_init(&z);
    cuzk_lc_init(&c);
    const char *name;
    if ((a->kind == CUZK_BOOL_CONST && a->bit) || (b->kind == CUZK_BOOL_CONST && b->bit)) {
        const cuzk_bool *x = (a->kind == CUZK_BOOL_CONST && a->bit) ? b : a;
        cuzk_lc_add_var(&c, CUZK_CS_ONE);
        cuzk_bool_lc_sub(&c, x, &cuzk_fr_one);
        name = "enforce equal to one";
    } else if (a->kind == CUZK_BOOL_CONST || b->kind == CUZK_BOOL_CONST) {
        const cuzk_bool *x = a->kind == CUZK_BOOL_CONST ? b : a;
        cuzk_bool_lc_add(&c, x, &cuzk_fr_one);
        name = "enforce equal to zero";
    } else {
        cuzk_bool_lc_add(&c, a, &cuzk_fr_one);
        cuzk_bool_lc_sub(&c, b, &cuzk_fr_one);
        name = "enforce equal";
    }
    cuzk_cs_enforce(cs, name, &z, &z, &c);
    cuzk_lc_free(&c);
    return cs->err;
}

cuzk_bool cuzk_bool_sha256_ch(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b, const cuzk_bool *c)
{
    bool av = cuzk_bool_value(a), bv = cuzk_bool_value(b), cv = cuzk_bool_value(c);
    bool chv = (av & bv) ^ (!av & cv);
    bool ac = a->kind == CUZK_BOOL_CONST, bc = b->kind == CUZK_BOOL_CONST, cc = c->kind == CUZK_BOOL_CONST;
    if (ac && bc && cc) return cuzk_bool_const(chv);
    if (ac && !a->bit) return *c;
    if (bc && !b->bit) {
        cuzk_bool na = cuzk_bool_not(a);
        return cuzk_bool_and(cs, &na, c);
    }
    if (cc && !c->bit) return cuzk_bool_and(cs, a, b);
    if (cc && c->bit) {
        cuzk_bool nb = cuzk_bool_not(b);
        cuzk_bool r = cuzk_bool_and(cs, a, &nb);
        return cuzk_bool_not(&r);
    }
    if (bc && b->bit) {
        cuzk_bool na = cuzk_bool_not(a), nc = cuzk_bool_not(c);
        cuzk_bool r = cuzk_bool_and(cs, &na, &nc);
        return cuzk_bool_not(&r);
    }
    /* a constant true, or nothing constant: general case */
    cuzk_abit ch = abit_alloc_value(cs, "ch", chv);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return is_of(ch);
    }
    cuzk_lc la, lb, lc;
    cuzk_lc_init(&la);
    cuzk_lc_init(&lb);
    cuzk_lc_init(&lc);
    /* a(b - c) = ch - c */
    cuzk_bool_lc_add(&la, b, &cuzk_fr_one);
    cuzk_bool_lc_sub(&la, c, &cuzk_fr_one);
    cuzk_bool_lc_add(&lb, a, &cuzk_fr_one);
    cuzk_lc_add_var(&lc, ch.var);
    cuzk_bool_lc_sub(&lc, c, &cuzk_fr_one);
    cuzk_cs_enforce(cs, "ch computation", &la, &lb, &lc);
    cuzk_lc_free(&la);
    cuzk_lc_free(&lb);
    cuzk_lc_free(&lc);
    return is_of(ch);
}

cuzk_bool cuzk_bool_sha256_maj(cuzk_cs *cs, const cuzk_bool *a, const cuzk_bool *b, const cuzk_bool *c)
{
    bool av = cuzk_bool_value(a), bv = cuzk_bool_value(b), cv = cuzk_bool_value(c);
    bool mv = (av & bv) ^ (av & cv) ^ (bv & cv);
    bool ac = a->kind == CUZK_BOOL_CONST, bc = b->kind == CUZK_BOOL_CONST, cc = c->kind == CUZK_BOOL_CONST;
    if (ac && bc && cc) return cuzk_bool_const(mv);
    if (ac && !a->bit) return cuzk_bool_and(cs, b, c);
    if (bc && !b->bit) return cuzk_bool_and(cs, a, c);
    if (cc && !c->bit) return cuzk_bool_and(cs, a, b);
    if (cc) {
        cuzk_bool na = cuzk_bool_not(a), nb = cuzk_bool_not(b);
        cuzk_bool r = cuzk_bool_and(cs, &na, &nb);
        return cuzk_bool_not(&r);
    }
    if (bc) {
        cuzk_bool na = cuzk_bool_not(a), nc = cuzk_bool_not(c);
        cuzk_bool r = cuzk_bool_and(cs, &na, &nc);
        return cuzk_bool_not(&r);
    }
    if (ac) {
        cuzk_bool nb = cuzk_bool_not(b), nc = cuzk_bool_not(c);
        cuzk_bool r = cuzk_bool_and(cs, &nb, &nc);
        return cuzk_bool_not(&r);
    }
    cuzk_abit maj = abit_alloc_value(cs, "maj", mv);
    cuzk_cs_push_ns(cs, "b and c");
    cuzk_bool bcb = cuzk_bool_and(cs, b, c);
    cuzk_cs_pop_ns(cs);
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return is_of(maj);
    }
    cuzk_lc la, lb, lc;
    cuzk_lc_init(&la);
    cuzk_lc_init(&lb);
    cuzk_lc_init(&lc);
    /* (2bc - b - c) * a = bc - maj */
    cuzk_bool_lc_add(&la, &bcb, &cuzk_fr_one);
    cuzk_bool_lc_add(&la, &bcb, &cuzk_fr_one);
    cuzk_bool_lc_sub(&la, b, &cuzk_fr_one);
    cuzk_bool_lc_sub(&la, c, &cuzk_fr_one);
    cuzk_bool_lc_add(&lb, a, &cuzk_fr_one);
    cuzk_bool_lc_add(&lc, &bcb, &cuzk_fr_one);
    cuzk_lc_sub_var(&lc, maj.var);
    cuzk_cs_enforce(cs, "maj computation", &la, &lb, &lc);
    cuzk_lc_free(&la);
    cuzk_lc_free(&lb);
    cuzk_lc_free(&lc);
    return is_of(maj);
}

void cuzk_bool_u64_into_le(cuzk_cs *cs, uint64_t value, cuzk_bool out[64])
{
    for (int i = 0; i < 64; i++) {
        cuzk_cs_push_ns(cs, "bit %d", i);
        out[i] = cuzk_bool_alloc(cs, (value >> i) & 1);
        cuzk_cs_pop_ns(cs);
    }
}
