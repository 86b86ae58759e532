/*
 * Poseidon (neptune 11 compatible): round numbers, Grain constants and
 * digests against neptune's published values (round_numbers.rs tests, the
 * Sage-generated parameters file, poseidon.rs hash_values, hash_type.rs
 * domain tags); the optimized permutation against the textbook one on random
 * inputs; the circuit gadget on all four constraint systems against the native hash,
 * with neptune's constraint counts (circuit.rs test_poseidon_hash,
 * storage-proofs' 311 / 598 column hashes) and a tampered witness rejected.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/gadgets/poseidon.h"
#include "cs_sys4.h"
#include "testutil.h"

/* neptune's scalar_from_u64s: little-endian limbs of the canonical value. */
static cuzk_fr fr_u64s(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t l[4] = {a, b, c, d};
    cuzk_fr r;
    cuzk_fr_from_limbs(&r, l);
    return r;
}

static cuzk_fr fr_hex(const char *hex)
{
    uint8_t be[32];
    tu_unhex(be, 32, hex);
    cuzk_fr r;
    cuzk_fr_from_be32(&r, be);
    return r;
}

typedef struct vec {
    unsigned arity;
    uint64_t merkle[4], constant4[4];
} vec;

/* neptune src/poseidon.rs hash_values_aux, Strength::Standard: input 0..arity-1. */
static const vec VECS[] = {
    {2, {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}, {0}},
    {4, {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
     {0x8935b00a07909d45, 0x4984de08542c9977, 0x39443980077d7593, 0x3a21a6ae86754a29}},
    {8, {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
     {0x370a94532f818897, 0x203e3c7c4a85c1f9, 0xcad8b9f8aeb1578f, 0x5c6de4b69de9d792}},
    {11, {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
     {0xe9b0cb7d6496f73b, 0x7d2807d793af9582, 0xef841b6bf51a5a39, 0x02550c3a2113c7ca}},
    {16, {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
     {0x6a1e563d359c1bdd, 0x6b4493d5d40be9d3, 0x275a6eb04a0ecb37, 0x30ec6fa0fec08504}},
    {24, {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
     {0xc540772c5968a299, 0xe2e556352af20f97, 0x15ed0a6b8faba5aa, 0x327bdee6fa2b22b6}},
    {36, {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f},
     {0x7d89cddb70217dcd, 0x02ae71d3d04f0b32, 0xfe52151f29c50f99, 0x626bdae6cad79307}},
};

/* neptune circuit.rs test_poseidon_hash (Standard) and storage-proofs' column hash (11). */
static const struct {
    unsigned arity;
    size_t constraints;
} COUNTS[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}, {24, 1009}, {36, 1385}};

static void test_round_numbers(void)
{
    /* neptune round_numbers.rs test_round_numbers_against_known_values: (t, RP), RF = 8 */
    static const unsigned cases[][2] = {{2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},
                                        {7, 56},  {8, 57},  {9, 57},  {10, 57}, {11, 57},
                                        {12, 57}, {13, 57}, {14, 57}, {15, 57}, {16, 59},
                                        {17, 59}, {25, 59}, {37, 60}, {65, 61}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned rf, rp;
        cuzk_poseidon_round_numbers(cases[i][0] - 1, &rf, &rp);
        CHECK_MSG(rf == 8 && rp == cases[i][1], "t=%u: rf %u rp %u", cases[i][0], rf, rp);
    }
}

static void test_grain(void)
{
    /* parameters/round_constants-1-1-255-9-8-57-<r>.txt (hadeshash Sage script): 585 constants */
    cuzk_fr *rc = malloc(585 * sizeof *rc);
    cuzk_poseidon_grain_constants(rc, 9, 8, 57);
    cuzk_fr e0 = fr_hex("6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9");
    cuzk_fr e1 = fr_hex("0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39");
    cuzk_fr e583 = fr_hex("5861985c6ad8159e1a4f056d02df583d9c79c96bae8c3b9313812b4e0b3bda60");
    cuzk_fr e584 = fr_hex("3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c");
    CHECK(cuzk_fr_eq(&rc[0], &e0) && cuzk_fr_eq(&rc[1], &e1));
    CHECK(cuzk_fr_eq(&rc[583], &e583) && cuzk_fr_eq(&rc[584], &e584));
    const cuzk_poseidon_constants *c = cuzk_poseidon_constants_get(8);
    CHECK(c && c->width == 9 && c->full_rounds == 8 && c->partial_rounds == 57);
    CHECK(c && memcmp(c->round_constants, rc, 585 * sizeof *rc) == 0);
    free(rc);
}

static void test_tags(void)
{
    /* neptune hash_type.rs test_domain_tags */
    cuzk_fr t, e;
    cuzk_poseidon_tag_merkle(&t, 8);
    e = fr_u64s(0xff, 0, 0, 0);
    CHECK(cuzk_fr_eq(&t, &e));
    for (uint64_t len = 1; len < 15; len++) {
        cuzk_poseidon_tag_constant_length(&t, len);
        e = fr_u64s(0, len, 0, 0);
        CHECK(cuzk_fr_eq(&t, &e));
    }
    for (uint64_t id = 1; id <= 256; id++) {
        CHECK(cuzk_poseidon_tag_custom(&t, id) == 0);
        e = fr_u64s(0x0000010000000000ull * id, 0, 0, 0);
        CHECK(cuzk_fr_eq(&t, &e));
    }
    CHECK(cuzk_poseidon_tag_custom(&t, 0) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_poseidon_tag_custom(&t, 257) == CUZK_ERR_INVALID_ARG);
}

static void test_native(cuzk_rng *rng)
{
    cuzk_fr in[CUZK_POSEIDON_MAX_ARITY], h, r, tag;
    for (size_t v = 0; v < sizeof VECS / sizeof VECS[0]; v++) {
        unsigned a = VECS[v].arity;
        for (unsigned i = 0; i < a; i++) cuzk_fr_set_u64(&in[i], i);
        cuzk_fr want = fr_u64s(VECS[v].merkle[0], VECS[v].merkle[1], VECS[v].merkle[2], VECS[v].merkle[3]);
        CHECK_MSG(cuzk_poseidon_hash(&h, a, in) == 0 && cuzk_fr_eq(&h, &want), "merkle vector arity %u", a);
        cuzk_poseidon_tag_merkle(&tag, a);
        CHECK(cuzk_poseidon_hash_reference(&r, a, &tag, in, a) == 0 && cuzk_fr_eq(&r, &want));
        if (a >= 4) { /* constant length 4 = sponge digest when it fits one permutation */
            want = fr_u64s(VECS[v].constant4[0], VECS[v].constant4[1], VECS[v].constant4[2],
                           VECS[v].constant4[3]);
            cuzk_poseidon_tag_constant_length(&tag, 4);
            CHECK_MSG(cuzk_poseidon_hash_tagged(&h, a, &tag, in, 4) == 0 && cuzk_fr_eq(&h, &want),
                      "constant-length vector arity %u", a);
        }
    }
    /* optimized == textbook on random states, every arity 1..36 */
    for (unsigned a = 1; a <= CUZK_POSEIDON_MAX_ARITY; a++) {
        size_t n = 1 + cuzk_rng_u64(rng) % a;
        for (size_t i = 0; i < n; i++) cuzk_fr_random(&in[i], rng);
        cuzk_fr_random(&tag, rng);
        CHECK(cuzk_poseidon_hash_tagged(&h, a, &tag, in, n) == 0);
        CHECK(cuzk_poseidon_hash_reference(&r, a, &tag, in, n) == 0);
        CHECK_MSG(cuzk_fr_eq(&h, &r), "optimized != textbook, arity %u", a);
        /* one changed input changes the digest */
        cuzk_fr_add(&in[n - 1], &in[n - 1], &cuzk_fr_one);
        CHECK(cuzk_poseidon_hash_tagged(&r, a, &tag, in, n) == 0 && !cuzk_fr_eq(&h, &r));
    }
    CHECK(cuzk_poseidon_hash(&h, 0, in) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_poseidon_hash(&h, 37, in) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_poseidon_hash_tagged(&h, 4, &tag, in, 5) == CUZK_ERR_INVALID_ARG);
    /* hash_md: a fold of arity-36 hashes */
    cuzk_fr md[80];
    for (int i = 0; i < 80; i++) cuzk_fr_random(&md[i], rng);
    cuzk_fr buf[36];
    buf[0] = md[0];
    memcpy(&buf[1], &md[1], 35 * sizeof(cuzk_fr));
    cuzk_fr acc;
    cuzk_poseidon_hash(&acc, 36, buf);
    buf[0] = acc;
    memcpy(&buf[1], &md[36], 4 * sizeof(cuzk_fr));
    for (int i = 5; i < 36; i++) buf[i] = cuzk_fr_zero;
    cuzk_poseidon_hash(&acc, 36, buf);
    CHECK(cuzk_poseidon_hash_md(&h, md, 40) == 0 && cuzk_fr_eq(&h, &acc));
    CHECK(cuzk_poseidon_hash_md(&h, md, 1) == CUZK_ERR_INVALID_ARG);
}

/* Gadget on all four constraint systems; returns the number of constraints of the gadget. */
static void test_circuit(cuzk_rng *rng, unsigned a, size_t want, bool constant_tag)
{
    cuzk_fr vals[CUZK_POSEIDON_MAX_ARITY], tag, expect;
    for (unsigned i = 0; i < a; i++) cuzk_fr_random(&vals[i], rng);
    if (constant_tag) cuzk_poseidon_tag_constant_length(&tag, a);
    else cuzk_poseidon_tag_merkle(&tag, a);
    cuzk_poseidon_hash_tagged(&expect, a, &tag, vals, a);
    sys4 s;
    sys_new(&s);
    size_t first_aux = 0, out_index = 0;
    for (int k = 0; k < 4; k++) {
        cuzk_cs *cs = sys_get(&s, k);
        cuzk_cs_alloc_one(cs);
        cuzk_num in[CUZK_POSEIDON_MAX_ARITY];
        for (unsigned i = 0; i < a; i++) {
            cuzk_cs_push_ns(cs, "data %u", i);
            in[i] = cuzk_num_alloc(cs, &vals[i]);
            cuzk_cs_pop_ns(cs);
        }
        first_aux = cs->num_aux;
        size_t c0 = cs->num_constraints;
        cuzk_cs_push_ns(cs, "poseidon");
        cuzk_num out = cuzk_poseidon_hash_circuit(cs, a, &tag, in);
        cuzk_cs_pop_ns(cs);
        out_index = cuzk_var_index(out.var);
        CHECK_MSG(cs->num_constraints - c0 == want, "arity %u on %s: %zu constraints, want %zu", a,
                  cs->vt->name, cs->num_constraints - c0, want);
        CHECK_MSG(cuzk_fr_eq(&out.value, &expect), "arity %u on %s: output != native", a, cs->vt->name);
        cuzk_cs_finalize(cs);
    }
    check_parity(&s, "poseidon");
    /* the output variable holds the digest in the witness */
    CHECK(cuzk_fr_eq(&s.w->aux.v[out_index], &expect));
    sys_free(&s);

    /* tampering with any gadget variable breaks TestCS */
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs *cs = &t->base;
    cuzk_cs_alloc_one(cs);
    cuzk_num in[CUZK_POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < a; i++) in[i] = cuzk_num_alloc(cs, &vals[i]);
    t->tamper = true;
    t->tamper_index = first_aux + cuzk_rng_u64(rng) % (out_index + 1 - first_aux);
    cuzk_fr_random(&t->tamper_value, rng);
    cuzk_cs_push_ns(cs, "poseidon");
    cuzk_poseidon_hash_circuit(cs, a, &tag, in);
    cuzk_cs_pop_ns(cs);
    CHECK_MSG(!cuzk_test_cs_is_satisfied(t), "arity %u: tampered aux %zu accepted", a, t->tamper_index);
    CHECK(t->first_unsat && strncmp(t->first_unsat, "poseidon/", 9) == 0);
    cuzk_cs_free(cs);
}

static void test_md_circuit(cuzk_rng *rng, size_t n)
{
    cuzk_fr vals[80] = {{{0}}}, expect;
    for (size_t i = 0; i < n; i++) cuzk_fr_random(&vals[i], rng);
    cuzk_poseidon_hash_md(&expect, vals, n);
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs *cs = &t->base;
    cuzk_cs_alloc_one(cs);
    cuzk_num in[80];
    for (size_t i = 0; i < n; i++) in[i] = cuzk_num_alloc(cs, &vals[i]);
    cuzk_num out = cuzk_poseidon_hash_md_circuit(cs, in, n);
    size_t hashes = (n - 1 + 34) / 35;
    CHECK(cs->num_constraints == hashes * 1385);
    CHECK(cuzk_test_cs_is_satisfied(t) && cuzk_fr_eq(&out.value, &expect));
    cuzk_cs_free(cs);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_poseidon");
    test_round_numbers();
    test_grain();
    test_tags();
    test_native(&rng);
    for (size_t i = 0; i < sizeof COUNTS / sizeof COUNTS[0]; i++)
        test_circuit(&rng, COUNTS[i].arity, COUNTS[i].constraints, false);
    test_circuit(&rng, 4, 377, true);
    size_t md_n[] = {2, 36, 37, 71, 80};
    for (size_t i = 0; i < 5; i++) test_md_circuit(&rng, md_n[i]);
    return tu_finish("test_poseidon");
}
