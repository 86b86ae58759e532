/*
 * PoRep labeling and encoding gadgets: the create_label test of
 * storage-proofs-porep (37 parents and the replica id allocated as bits,
 * layer 3, node 22: 532,025 constraints), output equal to the native label
 * (SHA-256 by OpenSSL), TestCS satisfied and a tampered witness rejected;
 * encode costs one constraint and equals key + value.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/circuits/porep.h"
#include "cs_sys4.h"
#include "testutil.h"

/* bytes_into_boolean_vec_be of an Fr's 32-byte LE encoding. */
static void alloc_be_bits(cuzk_cs *cs, cuzk_bool out[256], const cuzk_fr *v)
{
    uint8_t b[32];
    bool bits[256];
    cuzk_fr_to_le32(b, v);
    cuzk_bytes_to_bits(bits, b, 32);
    for (int i = 0; i < 256; i++) {
        cuzk_cs_push_ns(cs, "bit %d", i);
        out[i] = cuzk_bool_alloc(cs, bits[i]);
        cuzk_cs_pop_ns(cs);
    }
}

static void label_case(cuzk_rng *rng, uint32_t layer, uint64_t node, bool tamper)
{
    cuzk_fr id, drg[6], exp[8], parents[37], want;
    cuzk_fr_random(&id, rng);
    for (int i = 0; i < 6; i++) cuzk_fr_random(&drg[i], rng);
    for (int i = 0; i < 8; i++) cuzk_fr_random(&exp[i], rng);
    cuzk_porep_expand_parents(parents, layer, drg, exp);
    CHECK(cuzk_porep_label(&want, &id, layer, node, parents) == 0);

    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs *cs = &t->base;
    cuzk_cs_alloc_one(cs);
    cuzk_bool *pb = malloc(sizeof(cuzk_bool) * 37 * 256), idb[256], nodeb[64];
    const cuzk_bool *pp[37];
    for (int i = 0; i < 37; i++) {
        cuzk_cs_push_ns(cs, "parents %d", i);
        alloc_be_bits(cs, &pb[256 * i], &parents[i]);
        cuzk_cs_pop_ns(cs);
        pp[i] = &pb[256 * i];
    }
    cuzk_cs_push_ns(cs, "id");
    alloc_be_bits(cs, idb, &id);
    cuzk_cs_pop_ns(cs);
    for (int i = 0; i < 64; i++) nodeb[i] = cuzk_bool_const((node >> i) & 1); /* UInt64::constant */
    if (tamper) {
        t->tamper = true;
        t->tamper_index = cs->num_aux + cuzk_rng_u64(rng) % 500000;
        t->tamper_value = cuzk_fr_one;
        cuzk_fr_add(&t->tamper_value, &t->tamper_value, &cuzk_fr_one); /* 2 is never a bit */
    }
    cuzk_cs_push_ns(cs, "create_label");
    cuzk_num out = cuzk_porep_label_circuit(cs, idb, pp, layer, nodeb);
    cuzk_cs_pop_ns(cs);
    if (tamper) {
        CHECK_MSG(!cuzk_test_cs_is_satisfied(t), "tampered aux %zu accepted", t->tamper_index);
    } else {
        CHECK_MSG(cs->num_constraints == 532025, "create_label: %zu constraints", cs->num_constraints);
        CHECK(cuzk_test_cs_is_satisfied(t) && cs->err == 0);
        CHECK_MSG(cuzk_fr_eq(&out.value, &want), "label layer %u node %llu != native", layer,
                  (unsigned long long)node);
    }
    free(pb);
    cuzk_cs_free(cs);
}

static void test_encode(cuzk_rng *rng)
{
    cuzk_fr k, v, sum;
    cuzk_fr_random(&k, rng);
    cuzk_fr_random(&v, rng);
    cuzk_fr_add(&sum, &k, &v);
    sys4 s;
    sys_new(&s);
    for (int i = 0; i < 4; i++) {
        cuzk_cs *cs = sys_get(&s, i);
        cuzk_cs_alloc_one(cs);
        cuzk_num a = cuzk_num_alloc(cs, &k), b = cuzk_num_alloc(cs, &v);
        cuzk_num e = cuzk_porep_encode_circuit(cs, &a, &b);
        CHECK(cs->num_constraints == 1 && cs->num_aux == 3 && cuzk_fr_eq(&e.value, &sum));
        cuzk_cs_finalize(cs);
    }
    check_parity(&s, "encode");
    sys_free(&s);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_label");
    label_case(&rng, 3, 22, false);
    label_case(&rng, 1 + (uint32_t)(cuzk_rng_u64(&rng) % 11), cuzk_rng_u64(&rng), true);
    test_encode(&rng);
    return tu_finish("test_label");
}
