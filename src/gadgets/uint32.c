/* UInt32 and MultiEq, constraint-exact with bellpepper's uint32.rs and
 * multieq.rs. */
#include <stdio.h>
#include <string.h>

#include "cuzk/util/error.h"

#include "cuzk/gadgets/gadgets.h"

cuzk_u32 cuzk_u32_constant(uint32_t v)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++) r.bits[i] = cuzk_bool_const((v >> i) & 1);
    r.value = v;
    return r;
}

cuzk_u32 cuzk_u32_alloc(cuzk_cs *cs, uint32_t v)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++) {
        cuzk_cs_push_ns(cs, "allocated bit %d", i);
        r.bits[i] = cuzk_bool_alloc(cs, (v >> i) & 1);
        cuzk_cs_pop_ns(cs);
    }
    r.value = v;
    return r;
}

cuzk_u32 cuzk_u32_from_bits_be(const cuzk_bool bits[32])
{
    cuzk_u32 r;
    r.value = 0;
    for (int i = 0; i < 32; i++) {
        r.value = (r.value << 1) | (uint32_t)cuzk_bool_value(&bits[i]);
        r.bits[31 - i] = bits[i];
    }
    return r;
}

void cuzk_u32_into_bits_be(const cuzk_u32 *a, cuzk_bool out[32])
{
    for (int i = 0; i < 32; i++) out[i] = a->bits[31 - i];
}

cuzk_u32 cuzk_u32_from_bits(const cuzk_bool bits[32])
{
    cuzk_u32 r;
    r.value = 0;
    for (int i = 0; i < 32; i++) {
        r.bits[i] = bits[i];
        r.value |= (uint32_t)cuzk_bool_value(&bits[i]) << i;
    }
    return r;
}

cuzk_u32 cuzk_u32_rotr(const cuzk_u32 *a, unsigned by)
{
    by %= 32;
    cuzk_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = a->bits[(i + by) % 32];
    r.value = by ? (a->value >> by) | (a->value << (32 - by)) : a->value;
    return r;
}

cuzk_u32 cuzk_u32_shr(const cuzk_u32 *a, unsigned by)
{
    by %= 32;
    cuzk_u32 r;
    for (unsigned i = 0; i < 32; i++) r.bits[i] = i + by < 32 ? a->bits[i + by] : cuzk_bool_const(false);
    r.value = a->value >> by;
    return r;
}

cuzk_u32 cuzk_u32_xor(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++) {
        cuzk_cs_push_ns(cs, "xor of bit %d", i);
        r.bits[i] = cuzk_bool_xor(cs, &a->bits[i], &b->bits[i]);
        cuzk_cs_pop_ns(cs);
    }
    r.value = a->value ^ b->value;
    return r;
}

cuzk_u32 cuzk_u32_sha256_ch(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++) {
        cuzk_cs_push_ns(cs, "ch %d", i);
        r.bits[i] = cuzk_bool_sha256_ch(cs, &a->bits[i], &b->bits[i], &c->bits[i]);
        cuzk_cs_pop_ns(cs);
    }
    r.value = (a->value & b->value) ^ (~a->value & c->value);
    return r;
}

cuzk_u32 cuzk_u32_sha256_maj(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++) {
        cuzk_cs_push_ns(cs, "maj %d", i);
        r.bits[i] = cuzk_bool_sha256_maj(cs, &a->bits[i], &b->bits[i], &c->bits[i]);
        cuzk_cs_pop_ns(cs);
    }
    r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    return r;
}

/* ---- MultiEq ---------------------------------------------------------- */

void cuzk_multieq_init(cuzk_multieq *m, cuzk_cs *cs)
{
    m->cs = cs;
    m->ops = 0;
    m->bits_used = 0;
    cuzk_lc_init(&m->lhs);
    cuzk_lc_init(&m->rhs);
}

static void multieq_accumulate(cuzk_multieq *m)
{
    if (cuzk_cs_skip_lcs(m->cs)) {
        cuzk_cs_enforce_skipped(m->cs);
        m->bits_used = 0;
        m->ops++;
        return;
    }
    cuzk_lc one;
    cuzk_lc_init(&one);
    cuzk_lc_add_var(&one, CUZK_CS_ONE);
    char name[32];
    const char *nm = "multieq";
    if (m->cs->wants_names) {
        snprintf(name, sizeof name, "multieq %zu", m->ops);
        nm = name;
    }
    cuzk_cs_enforce(m->cs, nm, &m->lhs, &one, &m->rhs);
    cuzk_lc_clear(&m->lhs);
    cuzk_lc_clear(&m->rhs);
    m->bits_used = 0;
    m->ops++;
}

void cuzk_multieq_enforce_equal(cuzk_multieq *m, size_t num_bits, const cuzk_lc *lhs, const cuzk_lc *rhs)
{
    if (CUZK_FR_CAPACITY <= m->bits_used + num_bits) multieq_accumulate(m);
    if (CUZK_FR_CAPACITY <= m->bits_used + num_bits) {
        cuzk_cs_set_error(m->cs, CUZK_ERR_INVALID_ARG);
        return;
    }
    if (cuzk_cs_skip_lcs(m->cs)) {
        m->bits_used += num_bits;
        return;
    }
    cuzk_fr coeff;
    uint64_t e = m->bits_used;
    cuzk_fr two;
    cuzk_fr_set_u64(&two, 2);
    cuzk_fr_pow(&coeff, &two, &e, 1);
    cuzk_lc_add_scaled(&m->lhs, &coeff, lhs);
    cuzk_lc_add_scaled(&m->rhs, &coeff, rhs);
    m->bits_used += num_bits;
}

void cuzk_multieq_finish(cuzk_multieq *m)
{
    if (m->bits_used > 0) multieq_accumulate(m);
    cuzk_lc_free(&m->lhs);
    cuzk_lc_free(&m->rhs);
}

cuzk_u32 cuzk_u32_addmany(cuzk_multieq *m, const cuzk_u32 *ops, size_t n)
{
    cuzk_cs *cs = m->cs;
    if (n < 2 || n > 10) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return cuzk_u32_constant(0);
    }
    uint64_t max_value = (uint64_t)n * UINT32_MAX;
    uint64_t sum = 0;
    bool all_const = true;
    bool lazy = cuzk_cs_skip_lcs(cs);
    cuzk_lc lc;
    cuzk_lc_init(&lc);
    for (size_t k = 0; k < n && lazy; k++) {
        sum += ops[k].value;
        for (int i = 0; i < 32; i++) all_const &= cuzk_bool_is_const(&ops[k].bits[i]);
    }
    for (size_t k = 0; k < n && !lazy; k++) {
        sum += ops[k].value;
        cuzk_fr coeff = cuzk_fr_one;
        for (int i = 0; i < 32; i++) {
            cuzk_bool_lc_add(&lc, &ops[k].bits[i], &coeff);
            all_const &= cuzk_bool_is_const(&ops[k].bits[i]);
            cuzk_fr_dbl(&coeff, &coeff);
        }
    }
    if (all_const) {
        cuzk_lc_free(&lc);
        return cuzk_u32_constant((uint32_t)sum);
    }
    cuzk_u32 r;
    cuzk_lc rlc;
    cuzk_lc_init(&rlc);
    cuzk_fr coeff = cuzk_fr_one;
    unsigned i = 0;
    while (max_value != 0) {
        cuzk_cs_push_ns(cs, "result bit %u", i);
        cuzk_abit b = cuzk_abit_alloc(cs, (sum >> i) & 1);
        cuzk_cs_pop_ns(cs);
        if (!lazy) cuzk_lc_add(&rlc, b.var, &coeff);
        if (i < 32) r.bits[i] = cuzk_bool_from_abit(b);
        max_value >>= 1;
        i++;
        if (!lazy) cuzk_fr_dbl(&coeff, &coeff);
    }
    cuzk_multieq_enforce_equal(m, i, &lc, &rlc);
    cuzk_lc_free(&lc);
    cuzk_lc_free(&rlc);
    r.value = (uint32_t)sum;
    return r;
}
