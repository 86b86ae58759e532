/* Boolean, AllocatedNum/Num, UInt32 and multipack gadgets: values against
 * plain C/field arithmetic, constraint counts, rejection of bad witnesses
 * (TestCS names the failing constraint). */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/gadgets/gadgets.h"
#include "testutil.h"

static cuzk_test_cs *tcs(void)
{
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs_alloc_one(&t->base);
    return t;
}

/* Boolean of a kind (0 const, 1 is, 2 not) with value v. */
static cuzk_bool mk(cuzk_cs *cs, int kind, bool v)
{
    if (kind == 0) return cuzk_bool_const(v);
    cuzk_bool b = cuzk_bool_alloc(cs, kind == 2 ? !v : v);
    return kind == 2 ? cuzk_bool_not(&b) : b;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gadget_basic");

    /* Boolean ops over all kinds and values. Two allocated operands cost
     * exactly one constraint (bellpepper boolean.rs); a constant operand
     * costs none. A tampered result is caught and named. */
    const char *names[] = {"xor constraint", "and constraint", "and not constraint", "nor constraint"};
    for (int ka = 0; ka < 3; ka++)
        for (int kb = 0; kb < 3; kb++)
            for (int va = 0; va < 2; va++)
                for (int vb = 0; vb < 2; vb++)
                    for (int op = 0; op < 3; op++) {
                        cuzk_test_cs *t = tcs();
                        cuzk_cs *cs = &t->base;
                        cuzk_cs_push_ns(cs, "a");
                        cuzk_bool a = mk(cs, ka, va);
                        cuzk_cs_pop_ns(cs);
                        cuzk_cs_push_ns(cs, "b");
                        cuzk_bool b = mk(cs, kb, vb);
                        cuzk_cs_pop_ns(cs);
                        size_t n0 = cs->num_constraints, aux0 = cs->num_aux;
                        cuzk_bool r = op == 0 ? cuzk_bool_xor(cs, &a, &b)
                                     : op == 1 ? cuzk_bool_and(cs, &a, &b)
                                               : cuzk_bool_or(cs, &a, &b);
                        bool want = op == 0 ? (va ^ vb) : op == 1 ? (va & vb) : (va | vb);
                        CHECK(cuzk_bool_value(&r) == want);
                        CHECK(cuzk_test_cs_is_satisfied(t));
                        size_t used = cs->num_constraints - n0;
                        CHECK(used == ((ka && kb) ? 1u : 0u));
                        if (used) {
                            /* same run with the result variable flipped */
                            cuzk_test_cs *u = tcs();
                            u->tamper = true;
                            u->tamper_index = aux0;
                            u->tamper_value = want ^ (r.kind == CUZK_BOOL_NOT) ? cuzk_fr_zero : cuzk_fr_one;
                            cuzk_cs *us = &u->base;
                            cuzk_cs_push_ns(us, "a");
                            a = mk(us, ka, va);
                            cuzk_cs_pop_ns(us);
                            cuzk_cs_push_ns(us, "b");
                            b = mk(us, kb, vb);
                            cuzk_cs_pop_ns(us);
                            cuzk_cs_push_ns(us, "op");
                            r = op == 0 ? cuzk_bool_xor(us, &a, &b) : op == 1 ? cuzk_bool_and(us, &a, &b) : cuzk_bool_or(us, &a, &b);
                            cuzk_cs_pop_ns(us);
                            CHECK(!cuzk_test_cs_is_satisfied(u));
                            const char *p = u->first_unsat ? u->first_unsat : "";
                            bool named = false;
                            for (int q = 0; q < 4; q++) {
                                char buf[96];
                                snprintf(buf, sizeof buf, "op/%s", names[q]);
                                if (!strcmp(p, buf)) named = true;
                                snprintf(buf, sizeof buf, "op/not and (not a) (not b)/%s", names[q]);
                                if (!strcmp(p, buf)) named = true;
                            }
                            CHECK_MSG(named, "failure named '%s'", p);
                            cuzk_cs_free(us);
                        }
                        cuzk_cs_free(cs);
                    }

    /* enforce_equal is satisfied exactly when the values agree
     * (bellpepper boolean.rs test_enforce_equal), for every kind pair. */
    for (int ka = 0; ka < 3; ka++)
        for (int kb = 0; kb < 3; kb++)
            for (int va = 0; va < 2; va++)
                for (int vb = 0; vb < 2; vb++) {
                    cuzk_test_cs *t = tcs();
                    cuzk_bool a = mk(&t->base, ka, va), b = mk(&t->base, kb, vb);
                    int e = cuzk_bool_enforce_equal(&t->base, &a, &b);
                    if (!ka && !kb) CHECK(e == (va == vb ? 0 : CUZK_ERR_UNSATISFIED));
                    else CHECK(cuzk_test_cs_is_satisfied(t) == (va == vb));
                    cuzk_cs_free(&t->base);
                }

    /* ch / maj over all kinds and values against their boolean formulas. */
    for (int kinds = 0; kinds < 27; kinds++)
        for (int vals = 0; vals < 8; vals++) {
            cuzk_test_cs *t = tcs();
            bool va = vals & 1, vb = (vals >> 1) & 1, vc = (vals >> 2) & 1;
            cuzk_bool a = mk(&t->base, kinds % 3, va), b = mk(&t->base, (kinds / 3) % 3, vb),
                      c = mk(&t->base, kinds / 9, vc);
            cuzk_bool ch = cuzk_bool_sha256_ch(&t->base, &a, &b, &c);
            cuzk_bool mj = cuzk_bool_sha256_maj(&t->base, &a, &b, &c);
            CHECK(cuzk_bool_value(&ch) == ((va & vb) ^ (!va & vc)));
            CHECK(cuzk_bool_value(&mj) == ((va & vb) ^ (va & vc) ^ (vb & vc)));
            CHECK(cuzk_test_cs_is_satisfied(t));
            cuzk_cs_free(&t->base);
        }

    /* AllocatedNum arithmetic and to_bits. */
    for (int rep = 0; rep < 20; rep++) {
        cuzk_test_cs *t = tcs();
        cuzk_cs *cs = &t->base;
        cuzk_fr x, y, e;
        cuzk_fr_random(&x, &rng);
        cuzk_fr_random(&y, &rng);
        cuzk_num a = cuzk_num_alloc(cs, &x), b = cuzk_num_alloc(cs, &y);
        size_t n0 = cs->num_constraints;
        cuzk_num s = cuzk_num_add(cs, &a, &b), m = cuzk_num_mul(cs, &a, &b), q = cuzk_num_square(cs, &a);
        CHECK(cs->num_constraints - n0 == 3);
        cuzk_fr_add(&e, &x, &y);
        CHECK(cuzk_fr_eq(&s.value, &e) && cuzk_fr_eq(&t->aux.v[cuzk_var_index(s.var)], &e));
        cuzk_fr_mul(&e, &x, &y);
        CHECK(cuzk_fr_eq(&m.value, &e));
        cuzk_fr_sqr(&e, &x);
        CHECK(cuzk_fr_eq(&q.value, &e));
        cuzk_bool cond = cuzk_bool_alloc(cs, rep & 1);
        cuzk_num c, d;
        cuzk_num_conditionally_reverse(cs, &a, &b, &cond, &c, &d);
        CHECK(cuzk_fr_eq(&c.value, rep & 1 ? &y : &x) && cuzk_fr_eq(&d.value, rep & 1 ? &x : &y));
        cuzk_num sel = cuzk_num_conditionally_select(cs, &a, &b, &cond);
        CHECK(cuzk_fr_eq(&sel.value, rep & 1 ? &x : &y));
        size_t in0 = cs->num_inputs;
        cuzk_num_inputize(cs, &m);
        CHECK(cs->num_inputs == in0 + 1 && cuzk_fr_eq(&t->input.v[in0], &m.value));
        /* to_bits_le: 255 boolean constraints + 1 unpacking constraint */
        cuzk_bool bits[CUZK_FR_NUM_BITS];
        n0 = cs->num_constraints;
        cuzk_num_to_bits_le(cs, &a, bits);
        CHECK(cs->num_constraints - n0 == 256);
        uint64_t l[4];
        cuzk_fr_to_limbs(l, &x);
        bool ok = true;
        for (int i = 0; i < CUZK_FR_NUM_BITS; i++) ok &= cuzk_bool_value(&bits[i]) == ((l[i / 64] >> (i % 64)) & 1);
        CHECK(ok);
        cuzk_num_to_bits_le_strict(cs, &b, bits);
        cuzk_fr_to_limbs(l, &y);
        ok = true;
        for (int i = 0; i < CUZK_FR_NUM_BITS; i++) ok &= cuzk_bool_value(&bits[i]) == ((l[i / 64] >> (i % 64)) & 1);
        CHECK(ok);
        CHECK(cuzk_test_cs_is_satisfied(t));
        cuzk_cs_free(cs);
    }

    /* bellpepper num.rs test_into_bits_strict: for -1, setting "bit 254"
     * (the last allocation) to one breaks "bit 254/boolean constraint". */
    {
        cuzk_fr m1;
        cuzk_fr_neg(&m1, &cuzk_fr_one);
        cuzk_bool bits[CUZK_FR_NUM_BITS];
        cuzk_test_cs *t = tcs();
        cuzk_num n = cuzk_num_alloc(&t->base, &m1);
        cuzk_num_to_bits_le_strict(&t->base, &n, bits);
        CHECK(cuzk_test_cs_is_satisfied(t));
        size_t last = t->base.num_aux - 1;
        cuzk_cs_free(&t->base);
        t = tcs();
        t->tamper = true;
        t->tamper_index = last;
        t->tamper_value = cuzk_fr_one;
        n = cuzk_num_alloc(&t->base, &m1);
        cuzk_num_to_bits_le_strict(&t->base, &n, bits);
        CHECK_MSG(t->first_unsat && !strcmp(t->first_unsat, "bit 254/boolean constraint"), "%s",
                  t->first_unsat ? t->first_unsat : "(none)");
        cuzk_cs_free(&t->base);
    }

    /* UInt32: values against C, addmany cost = bits of n*(2^32-1) booleans
     * plus the MultiEq constraint. */
    for (int rep = 0; rep < 50; rep++) {
        cuzk_test_cs *t = tcs();
        cuzk_cs *cs = &t->base;
        uint32_t v[10];
        cuzk_u32 w[10];
        for (int i = 0; i < 10; i++) {
            v[i] = (uint32_t)cuzk_rng_u64(&rng);
            w[i] = (i == 3) ? cuzk_u32_constant(v[i]) : cuzk_u32_alloc(cs, v[i]);
        }
        unsigned by = (unsigned)(cuzk_rng_u64(&rng) % 40);
        cuzk_u32 x = cuzk_u32_xor(cs, &w[0], &w[1]);
        CHECK(x.value == (v[0] ^ v[1]));
        cuzk_u32 rr = cuzk_u32_rotr(&w[2], by), sh = cuzk_u32_shr(&w[2], by);
        uint32_t b32 = by % 32;
        CHECK(rr.value == (b32 ? (v[2] >> b32 | v[2] << (32 - b32)) : v[2]) && sh.value == v[2] >> b32);
        bool ok = true;
        for (int i = 0; i < 32; i++) ok &= cuzk_bool_value(&rr.bits[i]) == ((rr.value >> i) & 1);
        CHECK(ok);
        size_t n = 2 + (size_t)(cuzk_rng_u64(&rng) % 9);
        cuzk_multieq m;
        cuzk_multieq_init(&m, cs);
        size_t c0 = cs->num_constraints;
        cuzk_u32 s = cuzk_u32_addmany(&m, w, n);
        cuzk_multieq_finish(&m);
        uint32_t want = 0;
        for (size_t i = 0; i < n; i++) want += v[i];
        CHECK(s.value == want);
        unsigned nb = 64 - (unsigned)__builtin_clzll((uint64_t)n * UINT32_MAX);
        CHECK_MSG(cs->num_constraints - c0 == nb + 1, "addmany %zu: %zu", n, cs->num_constraints - c0);
        ok = true;
        for (int i = 0; i < 32; i++) ok &= cuzk_bool_value(&s.bits[i]) == ((want >> i) & 1);
        CHECK(ok);
        CHECK(cuzk_test_cs_is_satisfied(t));
        cuzk_u32 cc[2] = {cuzk_u32_constant(v[0]), cuzk_u32_constant(v[1])};
        cuzk_multieq_init(&m, cs);
        c0 = cs->num_constraints;
        s = cuzk_u32_addmany(&m, cc, 2);
        cuzk_multieq_finish(&m);
        CHECK(cs->num_constraints == c0 && s.value == v[0] + v[1] && cuzk_bool_is_const(&s.bits[0]));
        cuzk_cs_free(cs);
    }

    /* multipack: inputs equal compute_multipacking; one input and one
     * constraint per 254-bit chunk. */
    for (int rep = 0; rep < 10; rep++) {
        size_t nbytes = 1 + cuzk_rng_u64(&rng) % 100;
        uint8_t *bytes = malloc(nbytes);
        cuzk_rng_bytes(&rng, bytes, nbytes);
        bool *bb = malloc(8 * nbytes), *bl = malloc(8 * nbytes);
        cuzk_bytes_to_bits(bb, bytes, nbytes);
        cuzk_bytes_to_bits_le(bl, bytes, nbytes);
        CHECK(bb[0] == (bytes[0] >> 7) && bl[0] == (bytes[0] & 1) && bb[8 * nbytes - 1] == (bytes[nbytes - 1] & 1));
        size_t nbits = 8 * nbytes;
        cuzk_test_cs *t = tcs();
        cuzk_bool *cb = malloc(nbits * sizeof *cb);
        for (size_t i = 0; i < nbits; i++) cb[i] = (i % 7 == 3) ? cuzk_bool_const(bb[i]) : cuzk_bool_alloc(&t->base, bb[i]);
        size_t c0 = t->base.num_constraints;
        cuzk_pack_into_inputs(&t->base, cb, nbits);
        cuzk_fr expect[8];
        size_t k = cuzk_compute_multipacking(expect, bb, nbits);
        CHECK(k == (nbits + 253) / 254 && t->base.num_inputs == 1 + k && t->base.num_constraints - c0 == k);
        bool ok = true;
        for (size_t i = 0; i < k; i++) ok &= cuzk_fr_eq(&t->input.v[1 + i], &expect[i]);
        CHECK(ok);
        CHECK(cuzk_test_cs_is_satisfied(t));
        cuzk_cs_free(&t->base);
        free(cb);
        free(bb);
        free(bl);
        free(bytes);
    }

    /* Exact terms, derived from bellpepper's boolean.rs: xor(Not a, Is b)
     * becomes AllocatedBit::xor(b, a), i.e. (2b) * a = b + a - r; and
     * enforce_equal(true, Not a) leaves a zero-coefficient ONE term in C:
     * 0 * 0 = ONE - (ONE - a). Zero coefficients stay matrix entries but do
     * not mark density (bellperson eval_with_trackers). */
    {
        cuzk_recording_cs *r = cuzk_recording_cs_new();
        cuzk_proving_cs *p = cuzk_proving_cs_new();
        cuzk_cs *sys[2] = {&r->base, &p->base};
        for (int k = 0; k < 2; k++) {
            cuzk_cs *cs = sys[k];
            cuzk_cs_alloc_one(cs);
            cuzk_bool a = cuzk_bool_alloc(cs, true), b = cuzk_bool_alloc(cs, false);
            cuzk_bool na = cuzk_bool_not(&a), one = cuzk_bool_const(true);
            cuzk_bool_xor(cs, &na, &b);
            cuzk_bool_enforce_equal(cs, &one, &na);
            cuzk_fr c;
            cuzk_fr_random(&c, &rng);
            cuzk_var v = cuzk_cs_alloc(cs, NULL, &c);
            cuzk_lc la, lb, lz;
            cuzk_lc_init(&la);
            cuzk_lc_init(&lb);
            cuzk_lc_init(&lz);
            cuzk_lc_add_var(&la, CUZK_CS_ONE);
            cuzk_lc_add(&lb, v, &c);
            cuzk_lc_sub(&lb, v, &c);
            cuzk_cs_enforce(cs, "zero term", &la, &lb, &lz);
            cuzk_cs_finalize(cs);
        }
        const cuzk_csr *A = &r->m[0], *B = &r->m[1], *C = &r->m[2];
        cuzk_fr two, m1;
        cuzk_fr_set_u64(&two, 2);
        cuzk_fr_neg(&m1, &cuzk_fr_one);
        /* columns: ONE = 0, aux j = 1 + j; a = aux0, b = aux1, r = aux2 */
        CHECK(r->base.num_constraints == 6); /* 5 + one input constraint */
        CHECK(A->row_ptr[3] - A->row_ptr[2] == 1 && A->col[A->row_ptr[2]] == 2 && cuzk_fr_eq(cuzk_recording_cs_val(r, 0, A->row_ptr[2]), &two));
        CHECK(B->row_ptr[3] - B->row_ptr[2] == 1 && B->col[B->row_ptr[2]] == 1 && cuzk_fr_is_one(cuzk_recording_cs_val(r, 1, B->row_ptr[2])));
        uint64_t c0 = C->row_ptr[2];
        CHECK(C->row_ptr[3] - c0 == 3 && C->col[c0] == 1 && C->col[c0 + 1] == 2 && C->col[c0 + 2] == 3 &&
              cuzk_fr_is_one(cuzk_recording_cs_val(r, 2, c0)) && cuzk_fr_is_one(cuzk_recording_cs_val(r, 2, c0 + 1)) &&
              cuzk_fr_eq(cuzk_recording_cs_val(r, 2, c0 + 2), &m1));
        c0 = C->row_ptr[3];
        CHECK(A->row_ptr[4] == A->row_ptr[3] && B->row_ptr[4] == B->row_ptr[3]);
        CHECK(C->row_ptr[4] - c0 == 2 && C->col[c0] == 0 && cuzk_fr_is_zero(cuzk_recording_cs_val(r, 2, c0)) && C->col[c0 + 1] == 1 &&
              cuzk_fr_is_one(cuzk_recording_cs_val(r, 2, c0 + 1)));
        /* "zero term": B keeps the zero entry, density does not count it */
        CHECK(B->row_ptr[5] - B->row_ptr[4] == 1 && cuzk_fr_is_zero(cuzk_recording_cs_val(r, 1, B->row_ptr[4])));
        CHECK(!cuzk_density_get(&p->b_aux, 3) && cuzk_density_get(&p->b_aux, 0) && cuzk_density_get(&p->b_input, 0) == false);
        cuzk_cs_free(&r->base);
        cuzk_cs_free(&p->base);
    }
    /* u64_into_boolean_vec_le: 64 allocated bits; UInt32 from little-endian bits. */
    {
        cuzk_test_cs *t = tcs();
        uint64_t v = cuzk_rng_u64(&rng);
        cuzk_bool b[64];
        cuzk_bool_u64_into_le(&t->base, v, b);
        bool ok = t->base.num_constraints == 64 && t->base.num_aux == 64;
        for (int i = 0; i < 64; i++) ok &= cuzk_bool_value(&b[i]) == ((v >> i) & 1);
        CHECK(ok);
        cuzk_u32 w = cuzk_u32_from_bits(b + 32), wb = cuzk_u32_from_bits_be(b);
        CHECK(w.value == (uint32_t)(v >> 32));
        uint32_t be = 0;
        for (int i = 0; i < 32; i++) be = be << 1 | ((v >> i) & 1);
        CHECK(wb.value == be);
        CHECK(cuzk_test_cs_is_satisfied(t));
        cuzk_cs_free(&t->base);
    }
    return tu_finish("test_gadget_basic");
}
