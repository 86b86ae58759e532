/* AllocatedNum / Num gadgets as bellpepper-core's gadgets/num.rs. */
#include "cuzk/util/error.h"
#include "cuzk/gadgets/gadgets.h"

cuzk_num cuzk_num_alloc(cuzk_cs *cs, const cuzk_fr *value)
{
    return (cuzk_num){cuzk_cs_alloc(cs, "num", value), *value};
}

cuzk_num cuzk_num_alloc_input(cuzk_cs *cs, const cuzk_fr *value)
{
    return (cuzk_num){cuzk_cs_alloc_input(cs, "input num", value), *value};
}

/* Enforces a * b = c for single-variable-ish combinations built by the caller. */
static void enforce3(cuzk_cs *cs, const char *name, cuzk_lc *a, cuzk_lc *b, cuzk_lc *c)
{
    cuzk_cs_enforce(cs, name, a, b, c);
    cuzk_lc_free(a);
    cuzk_lc_free(b);
    cuzk_lc_free(c);
}

void cuzk_num_inputize(cuzk_cs *cs, const cuzk_num *n)
{
    cuzk_var in = cuzk_cs_alloc_input(cs, "input variable", &n->value);
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, in);
    cuzk_lc_add_var(&b, CUZK_CS_ONE);
    cuzk_lc_add_var(&c, n->var);
    enforce3(cs, "enforce input is correct", &a, &b, &c);
}

cuzk_num cuzk_num_alloc_ns(cuzk_cs *cs, const char *ns, const cuzk_fr *value)
{
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_num r = cuzk_num_alloc(cs, value);
    cuzk_cs_pop_ns(cs);
    return r;
}

void cuzk_num_inputize_ns(cuzk_cs *cs, const char *ns, const cuzk_num *n)
{
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_num_inputize(cs, n);
    cuzk_cs_pop_ns(cs);
}

cuzk_num cuzk_num_add(cuzk_cs *cs, const cuzk_num *x, const cuzk_num *y)
{
    cuzk_num r;
    cuzk_fr_add(&r.value, &x->value, &y->value);
    r.var = cuzk_cs_alloc(cs, "sum num", &r.value);
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_add_var(&a, y->var);
    cuzk_lc_add_var(&b, CUZK_CS_ONE);
    cuzk_lc_add_var(&c, r.var);
    enforce3(cs, "addition constraint", &a, &b, &c);
    return r;
}

cuzk_num cuzk_num_mul(cuzk_cs *cs, const cuzk_num *x, const cuzk_num *y)
{
    cuzk_num r;
    cuzk_fr_mul(&r.value, &x->value, &y->value);
    r.var = cuzk_cs_alloc(cs, "product num", &r.value);
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_add_var(&b, y->var);
    cuzk_lc_add_var(&c, r.var);
    enforce3(cs, "multiplication constraint", &a, &b, &c);
    return r;
}

cuzk_num cuzk_num_square(cuzk_cs *cs, const cuzk_num *x)
{
    cuzk_num r;
    cuzk_fr_sqr(&r.value, &x->value);
    r.var = cuzk_cs_alloc(cs, "squared num", &r.value);
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_add_var(&b, x->var);
    cuzk_lc_add_var(&c, r.var);
    enforce3(cs, "squaring constraint", &a, &b, &c);
    return r;
}

void cuzk_num_conditionally_reverse(cuzk_cs *cs, const cuzk_num *x, const cuzk_num *y,
                                    const cuzk_bool *cond, cuzk_num *out_c, cuzk_num *out_d)
{
    bool cv = cuzk_bool_value(cond);
    cuzk_lc a, b, c;
    cuzk_cs_push_ns(cs, "conditional reversal result 1");
    cuzk_num cc = cuzk_num_alloc(cs, cv ? &y->value : &x->value);
    cuzk_cs_pop_ns(cs);
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_sub_var(&a, y->var);
    cuzk_bool_lc_add(&b, cond, &cuzk_fr_one);
    cuzk_lc_add_var(&c, x->var);
    cuzk_lc_sub_var(&c, cc.var);
    enforce3(cs, "first conditional reversal", &a, &b, &c);

    cuzk_cs_push_ns(cs, "conditional reversal result 2");
    cuzk_num dd = cuzk_num_alloc(cs, cv ? &x->value : &y->value);
    cuzk_cs_pop_ns(cs);
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, y->var);
    cuzk_lc_sub_var(&a, x->var);
    cuzk_bool_lc_add(&b, cond, &cuzk_fr_one);
    cuzk_lc_add_var(&c, y->var);
    cuzk_lc_sub_var(&c, dd.var);
    enforce3(cs, "second conditional reversal", &a, &b, &c);
    *out_c = cc;
    *out_d = dd;
}

cuzk_num cuzk_num_conditionally_select(cuzk_cs *cs, const cuzk_num *x, const cuzk_num *y,
                                       const cuzk_bool *cond)
{
    bool cv = cuzk_bool_value(cond);
    cuzk_cs_push_ns(cs, "conditional select result");
    cuzk_num r = cuzk_num_alloc(cs, cv ? &x->value : &y->value);
    cuzk_cs_pop_ns(cs);
    cuzk_lc a, b, c;
    cuzk_lc_init(&a);
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&a, x->var);
    cuzk_lc_sub_var(&a, y->var);
    cuzk_bool_lc_add(&b, cond, &cuzk_fr_one);
    cuzk_lc_add_var(&c, r.var);
    cuzk_lc_sub_var(&c, y->var);
    enforce3(cs, "conditional select constraint", &a, &b, &c);
    return r;
}

/* Little-endian bit i of a canonical 4-limb value. */
static inline bool limb_bit(const uint64_t v[4], unsigned i) { return (v[i >> 6] >> (i & 63)) & 1; }

/* 0 * 0 = sum 2^i bits[i] - n */
static void enforce_unpacking(cuzk_cs *cs, const cuzk_num *n, const cuzk_bool *bits)
{
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return;
    }
    cuzk_lc lc, z;
    cuzk_lc_init(&lc);
    cuzk_lc_init(&z);
    cuzk_fr coeff = cuzk_fr_one;
    for (int i = 0; i < CUZK_FR_NUM_BITS; i++) {
        cuzk_lc_add(&lc, bits[i].var, &coeff);
        cuzk_fr_dbl(&coeff, &coeff);
    }
    cuzk_lc_sub_var(&lc, n->var);
    cuzk_cs_enforce(cs, "unpacking constraint", &z, &z, &lc);
    cuzk_lc_free(&lc);
}

void cuzk_num_to_bits_le(cuzk_cs *cs, const cuzk_num *n, cuzk_bool out[CUZK_FR_NUM_BITS])
{
    uint64_t v[4];
    cuzk_fr_to_limbs(v, &n->value);
    for (int i = 0; i < CUZK_FR_NUM_BITS; i++) {
        cuzk_cs_push_ns(cs, "bit %d", i);
        out[i] = cuzk_bool_alloc(cs, limb_bit(v, (unsigned)i));
        cuzk_cs_pop_ns(cs);
    }
    enforce_unpacking(cs, n, out);
}

void cuzk_num_to_bits_le_strict(cuzk_cs *cs, const cuzk_num *n, cuzk_bool out[CUZK_FR_NUM_BITS])
{
    uint64_t v[4], rm1[4];
    cuzk_fr_to_limbs(v, &n->value);
    for (int k = 0; k < 4; k++) rm1[k] = cuzk_fr_modulus[k];
    rm1[0] -= 1; /* r is odd: no borrow */
    cuzk_abit res[CUZK_FR_NUM_BITS]; /* big-endian */
    cuzk_abit run[CUZK_FR_NUM_BITS + 1];
    size_t nres = 0, nrun = 0;
    cuzk_abit last_run = {0, false};
    bool have_last = false;
    unsigned i = 0;
    for (int j = CUZK_FR_NUM_BITS - 1; j >= 0; j--, i++) {
        bool abit = limb_bit(v, (unsigned)j);
        if (limb_bit(rm1, (unsigned)j)) {
            cuzk_cs_push_ns(cs, "bit %u", i);
            cuzk_abit b = cuzk_abit_alloc(cs, abit);
            cuzk_cs_pop_ns(cs);
            run[nrun++] = b;
            res[nres++] = b;
        } else {
            if (nrun) {
                if (have_last) run[nrun++] = last_run;
                /* kary_and over the run */
                cuzk_cs_push_ns(cs, "run ending at %u", i);
                cuzk_abit cur = run[0];
                for (size_t k = 1; k < nrun; k++) {
                    cuzk_cs_push_ns(cs, "and %zu", k);
                    cur = cuzk_abit_and(cs, &cur, &run[k]);
                    cuzk_cs_pop_ns(cs);
                }
                cuzk_cs_pop_ns(cs);
                last_run = cur;
                have_last = true;
                nrun = 0;
            }
            cuzk_cs_push_ns(cs, "bit %u", i);
            res[nres++] = cuzk_abit_alloc_conditionally(cs, abit, &last_run);
            cuzk_cs_pop_ns(cs);
        }
    }
    for (size_t k = 0; k < nres; k++) out[k] = cuzk_bool_from_abit(res[nres - 1 - k]);
    enforce_unpacking(cs, n, out);
}

/* ---- Num -------------------------------------------------------------- */

void cuzk_numlc_init(cuzk_numlc *n)
{
    cuzk_lc_init(&n->lc);
    n->value = cuzk_fr_zero;
}

void cuzk_numlc_free(cuzk_numlc *n) { cuzk_lc_free(&n->lc); }

void cuzk_numlc_from_num(cuzk_numlc *n, const cuzk_num *a)
{
    cuzk_lc_clear(&n->lc);
    cuzk_lc_add_var(&n->lc, a->var);
    n->value = a->value;
}

void cuzk_numlc_add_bool_with_coeff(cuzk_numlc *n, const cuzk_bool *bit, const cuzk_fr *coeff)
{
    if (cuzk_bool_value(bit)) cuzk_fr_add(&n->value, &n->value, coeff);
    cuzk_bool_lc_add(&n->lc, bit, coeff);
}

void cuzk_numlc_add(cuzk_numlc *n, const cuzk_numlc *o)
{
    cuzk_lc_add_lc(&n->lc, &o->lc);
    cuzk_fr_add(&n->value, &n->value, &o->value);
}

void cuzk_numlc_scale(cuzk_numlc *n, const cuzk_fr *s)
{
    cuzk_lc_term *t = n->lc.heap ? n->lc.heap : n->lc.inl;
    for (uint32_t i = 0; i < n->lc.len; i++) cuzk_fr_mul(&t[i].coeff, &t[i].coeff, s);
    cuzk_fr_mul(&n->value, &n->value, s);
}

void cuzk_num_enforce_equal(cuzk_cs *cs, const char *name, const cuzk_num *a, const cuzk_num *b)
{
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return;
    }
    cuzk_lc la, lb, lc;
    cuzk_lc_init(&la);
    cuzk_lc_init(&lb);
    cuzk_lc_init(&lc);
    cuzk_lc_add_var(&la, a->var);
    cuzk_lc_add_var(&lb, CUZK_CS_ONE);
    cuzk_lc_add_var(&lc, b->var);
    cuzk_cs_enforce(cs, name, &la, &lb, &lc);
    cuzk_lc_free(&la);
    cuzk_lc_free(&lb);
    cuzk_lc_free(&lc);
}
