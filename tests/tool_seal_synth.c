/*
 * The long synthetic-C1 test (not in ctest: minutes and several GiB): a full-size synthetic C1
 * (cuzk_seal_synthetic_c1, default 32 GiB) -> serde_json text -> parser -> vanilla verification
 * with rebuilt public values -> partition K's circuit (~130M constraints at 32 GiB) satisfied on
 * TestCS, its public inputs equal to the rebuilt ones.
 *   build/tool_seal_synth [SIZE_BYTES] [PARTITION]     (seed: $CUZK_SEED or random, printed)
 * Exit 0 on success. docs/filecoin.md records a run.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cuzk/util/clock.h"
#include "cuzk/filecoin/c1.h"
#include "cuzk/cs/cs.h"
#include "cuzk/filecoin_gen/seal.h"
#include "testutil.h"

int main(int argc, char **argv)
{
    cuzk_rng rng;
    tu_init(&rng, "tool_seal_synth");
    uint64_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 1ull << 35;
    unsigned k = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 0;
    const char *names[] = {"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1", "StackedDrg512MiBV1_1", "StackedDrg32GiBV1_1",
                           "StackedDrg64GiBV1_1"};
    const cuzk_fil_seal_proof *rp = NULL;
    for (int i = 0; i < 5; i++) {
        const cuzk_fil_seal_proof *q = cuzk_fil_seal_proof_by_name(names[i]);
        if (q->sector_size == size) rp = q;
    }
    if (!rp) {
        fprintf(stderr, "tool_seal_synth: %llu is not a registered sector size\n", (unsigned long long)size);
        return 2;
    }
    cuzk_seal_params p = {.registered_proof = rp->id, .miner_id = 1000 + cuzk_rng_u64(&rng) % 100000,
                          .sector_id = cuzk_rng_u64(&rng) % 1000000, .seed = cuzk_rng_u64(&rng)};
    double t0 = cuzk_now();
    cuzk_fil_c1 *c1 = NULL, *back = NULL;
    CHECK(cuzk_seal_synthetic_c1(&p, &c1) == 0);
    if (!c1) return tu_finish("tool_seal_synth");
    char *json = NULL, err[512];
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    CHECK(cuzk_fil_c1_write(c1, f) == 0);
    fclose(f);
    double t1 = cuzk_now();
    CHECK_MSG(cuzk_fil_c1_parse((uint8_t *)json, len, &back, err, sizeof err) == 0, "%s", err);
    double t2 = cuzk_now();
    if (!back) return tu_finish("tool_seal_synth");
    CHECK_MSG(cuzk_fil_c1_check(back, rp->id, p.miner_id, p.sector_id, err, sizeof err) == 0, "%s", err);
    double t3 = cuzk_now();
    fprintf(stderr, "%s: C1 %zu bytes, generate+write %.1f s, parse %.1f s, check %.1f s\n", rp->name, len, t1 - t0,
            t2 - t1, t3 - t2);
    if (k < back->cfg.partitions) {
        cuzk_porep_witness w;
        cuzk_porep_challenge *ch;
        CHECK(cuzk_fil_c1_witness(back, k, &w, &ch) == 0);
        cuzk_test_cs *t = cuzk_test_cs_new();
        cuzk_cs_alloc_one(&t->base);
        CHECK(cuzk_porep_circuit_threads(&t->base, &back->cfg, &w, 0) == 0);
        CHECK_MSG(cuzk_test_cs_is_satisfied(t), "partition %u unsatisfied at %s", k,
                  t->first_unsat ? t->first_unsat : "?");
        size_t ni = cuzk_porep_num_inputs(&back->cfg);
        cuzk_fr *pub = malloc(sizeof(cuzk_fr) * ni);
        CHECK(cuzk_fil_c1_public_inputs(back, k, pub) == ni - 1);
        CHECK(t->base.num_inputs == ni && memcmp(pub, &t->input.v[1], (ni - 1) * sizeof(cuzk_fr)) == 0);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "partition %u: %zu constraints, TestCS %.1f s, max RSS %.1f GiB\n", k,
                t->base.num_constraints, cuzk_now() - t3, ru.ru_maxrss / 1048576.0);
        free(pub);
        free(ch);
        cuzk_cs_free(&t->base);
    }
    free(json);
    cuzk_fil_c1_free(c1);
    cuzk_fil_c1_free(back);
    return tu_finish("tool_seal_synth");
}
