/*
 * EmptySectorUpdate (SnapDeals) circuit: constraint counts of the blank
 * circuit equal storage-proofs-update tests/circuit.rs (1KiB 1,248,389; 2KiB
 * 1,705,039; 4KiB 2,165,109; 8KiB 2,620,359; 16KiB 6,300,021; 32KiB
 * 6,760,091; 5 inputs with ONE) and the gadget counts of its gadgets.rs
 * tests (gen_challenge_bits 568 / 4,544 / 5,680, apex_por 317,654 /
 * 5,808,515); the in-circuit challenge bits equal the native derivation for
 * a random comm_r_new and every partition.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/error.h"
#include "cuzk/update.h"
#include "testutil.h"

static size_t count(const cuzk_update_config *cfg, size_t *inputs)
{
    cuzk_count_cs *k = cuzk_count_cs_new();
    cuzk_cs_alloc_one(&k->base);
    CHECK(cuzk_update_circuit(&k->base, cfg, NULL) == 0);
    size_t n = k->base.num_constraints;
    *inputs = k->base.num_inputs;
    cuzk_cs_free(&k->base);
    return n;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_update");
    static const struct {
        uint64_t size;
        size_t constraints;
    } cases[] = {{1 << 10, 1248389}, {1 << 11, 1705039}, {1 << 12, 2165109},
                 {1 << 13, 2620359}, {1 << 14, 6300021}, {1 << 15, 6760091}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_update_config cfg;
        CHECK(cuzk_update_config_for(&cfg, cases[i].size) == 0);
        size_t inputs, n = count(&cfg, &inputs);
        CHECK_MSG(n == cases[i].constraints && inputs == 5, "%llu bytes: %zu constraints, %zu inputs, want %zu",
                  (unsigned long long)cases[i].size, n, inputs, cases[i].constraints);
    }

    /* gen_challenge_bits: counts and the native challenges, for every partition */
    static const struct {
        uint64_t size;
        size_t constraints;
    } gens[] = {{1 << 11, 568}, {1ull << 29, 4544}, {1ull << 35, 5680}, {1ull << 36, 5680}};
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
        cuzk_update_config cfg;
        CHECK(cuzk_update_config_for(&cfg, gens[i].size) == 0);
        cuzk_fr comm_r_new;
        cuzk_fr_random(&comm_r_new, &rng);
        unsigned rb = cfg.challenge_bits - cfg.partition_bits;
        for (unsigned k = 0; k < cfg.partitions; k++) {
            cuzk_test_cs *t = cuzk_test_cs_new();
            cuzk_cs *cs = &t->base;
            cuzk_cs_alloc_one(cs);
            cuzk_num cr = cuzk_num_alloc(cs, &comm_r_new), part;
            cuzk_fr kf;
            cuzk_fr_set_u64(&kf, k);
            part = cuzk_num_alloc(cs, &kf);
            size_t before = cs->num_constraints;
            cuzk_bool *bits = malloc(sizeof(cuzk_bool) * cfg.challenges * rb);
            cuzk_update_gen_challenge_bits(cs, &cr, &part, cfg.challenges, rb, bits);
            CHECK_MSG(cs->num_constraints - before == gens[i].constraints, "gen_challenge_bits %llu: %zu",
                      (unsigned long long)gens[i].size, cs->num_constraints - before);
            CHECK(cuzk_test_cs_is_satisfied(t));
            uint64_t *ch = malloc(sizeof(uint64_t) * cfg.challenges);
            CHECK(cuzk_update_challenges(ch, &cfg, &comm_r_new, k) == 0);
            bool same = true;
            for (unsigned c = 0; c < cfg.challenges; c++) {
                uint64_t v = (uint64_t)k << rb;
                for (unsigned b = 0; b < rb; b++) v |= (uint64_t)cuzk_bool_value(&bits[c * rb + b]) << b;
                if (v != ch[c] || ch[c] >= cfg.nodes) same = false;
            }
            CHECK_MSG(same, "challenges %llu k=%u", (unsigned long long)gens[i].size, k);
            free(ch);
            free(bits);
            cuzk_cs_free(cs);
        }
    }

    /* apex_por counts (gadgets.rs): 8 apex leaves, 1 partition; 128 leaves, 2 partitions */
    static const struct {
        unsigned leaves, pbits;
        size_t constraints;
    } apex[] = {{8, 0, 317654}, {128, 1, 5808515}, {16, 2, 771448}, {8, 3, 453797}};
    for (size_t i = 0; i < sizeof apex / sizeof apex[0]; i++) {
        cuzk_count_cs *k = cuzk_count_cs_new();
        cuzk_cs *cs = &k->base;
        cuzk_cs_alloc_one(cs);
        cuzk_num nums[132];
        cuzk_bool pb[3];
        for (unsigned j = 0; j < apex[i].leaves + 1 + apex[i].pbits; j++) nums[j] = cuzk_num_alloc(cs, &cuzk_fr_zero);
        for (unsigned j = 0; j < apex[i].pbits; j++) pb[j] = cuzk_bool_alloc(cs, false);
        size_t before = cs->num_constraints;
        cuzk_update_apex_por(cs, nums, apex[i].leaves, pb, apex[i].pbits, nums + apex[i].leaves + 1,
                             nums + apex[i].leaves);
        CHECK_MSG(cs->num_constraints - before == apex[i].constraints, "apex_por %u/%u: %zu", apex[i].leaves,
                  apex[i].pbits, cs->num_constraints - before);
        cuzk_cs_free(cs);
    }

    cuzk_update_config c;
    CHECK(cuzk_update_config_for(&c, 1ull << 35) == 0 && c.partitions == 16 && c.challenges == 86 &&
          c.apex_leaves == 128 && c.hs[0] == 7 && c.hs[5] == 12 && c.tree.sub_arity == 8);
    CHECK(cuzk_update_config_for(&c, 3 << 10) == CUZK_ERR_INVALID_ARG);
    return tu_finish("test_update");
}
