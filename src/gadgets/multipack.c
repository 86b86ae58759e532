/* Bit packing helpers as bellpepper's gadgets/multipack.rs. */
#include <stdio.h>

#include "cuzk/gadgets/gadgets.h"

void cuzk_bytes_to_bits(bool *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (bytes[i] >> (7 - j)) & 1;
}

void cuzk_bytes_to_bits_le(bool *out, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (bytes[i] >> j) & 1;
}

size_t cuzk_compute_multipacking(cuzk_fr *out, const bool *bits, size_t n)
{
    size_t k = 0;
    for (size_t base = 0; base < n; base += CUZK_FR_CAPACITY, k++) {
        cuzk_fr cur = cuzk_fr_zero, coeff = cuzk_fr_one;
        for (size_t i = base; i < n && i < base + CUZK_FR_CAPACITY; i++) {
            if (bits[i]) cuzk_fr_add(&cur, &cur, &coeff);
            cuzk_fr_dbl(&coeff, &coeff);
        }
        out[k] = cur;
    }
    return k;
}

void cuzk_pack_into_inputs(cuzk_cs *cs, const cuzk_bool *bits, size_t n)
{
    cuzk_numlc num;
    cuzk_numlc_init(&num);
    cuzk_lc b, c;
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&b, CUZK_CS_ONE);
    size_t k = 0;
    for (size_t base = 0; base < n; base += CUZK_FR_CAPACITY, k++) {
        cuzk_lc_clear(&num.lc);
        num.value = cuzk_fr_zero;
        cuzk_fr coeff = cuzk_fr_one;
        for (size_t i = base; i < n && i < base + CUZK_FR_CAPACITY; i++) {
            cuzk_numlc_add_bool_with_coeff(&num, &bits[i], &coeff);
            cuzk_fr_dbl(&coeff, &coeff);
        }
        char name[40];
        snprintf(name, sizeof name, "input %zu", k);
        cuzk_var in = cuzk_cs_alloc_input(cs, name, &num.value);
        cuzk_lc_clear(&c);
        cuzk_lc_add_var(&c, in);
        if (cs->wants_names) snprintf(name, sizeof name, "packing constraint %zu", k);
        cuzk_cs_enforce(cs, cs->wants_names ? name : "packing constraint", &num.lc, &b, &c);
    }
    cuzk_numlc_free(&num);
}

cuzk_num cuzk_pack_bits(cuzk_cs *cs, const cuzk_bool *bits, size_t n)
{
    cuzk_numlc num;
    cuzk_numlc_init(&num);
    cuzk_fr coeff = cuzk_fr_one;
    for (size_t i = 0; i < n && i < CUZK_FR_CAPACITY; i++) {
        cuzk_numlc_add_bool_with_coeff(&num, &bits[i], &coeff);
        cuzk_fr_dbl(&coeff, &coeff);
    }
    cuzk_cs_push_ns(cs, "input");
    cuzk_num r = cuzk_num_alloc(cs, &num.value);
    cuzk_cs_pop_ns(cs);
    cuzk_lc b, c;
    cuzk_lc_init(&b);
    cuzk_lc_init(&c);
    cuzk_lc_add_var(&b, CUZK_CS_ONE);
    cuzk_lc_add_var(&c, r.var);
    cuzk_cs_enforce(cs, "packing constraint", &num.lc, &b, &c);
    cuzk_lc_free(&b);
    cuzk_lc_free(&c);
    cuzk_numlc_free(&num);
    return r;
}

cuzk_num cuzk_pack_digest_le(cuzk_cs *cs, const cuzk_bool digest[256])
{
    cuzk_bool le[CUZK_FR_CAPACITY];
    for (unsigned i = 0; i < CUZK_FR_CAPACITY; i++) le[i] = digest[(i & ~7u) | (7 - (i & 7))];
    return cuzk_pack_bits(cs, le, CUZK_FR_CAPACITY);
}

void cuzk_reverse_bit_numbering(cuzk_bool out[256], const cuzk_bool in[CUZK_FR_NUM_BITS])
{
    for (unsigned k = 0; k < 256; k++) {
        unsigned src = (k & ~7u) | (7 - (k & 7));
        out[k] = src < CUZK_FR_NUM_BITS ? in[src] : cuzk_bool_const(false);
    }
}
