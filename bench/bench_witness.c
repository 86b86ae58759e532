/* A PoRep partition's aux witness by value class, and what packing it
 * costs (cuzk/ff/fr_packed.h): a synthetic C1 of a full-size sector (no
 * sealing), checked, partition 0 synthesized by the WitnessCS, its aux
 * counted (zeros, ones, others), then packed on 1 and on T threads and
 * unpacked (into fresh pages, then into touched ones).
 * Usage: bench_witness [registered proof id (8: StackedDrg32GiBV1_1)] [T (2)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/ff/fr_packed.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/filecoin_gen/seal.h"

#include "bench_util.h"

int main(int argc, char **argv)
{
    const uint64_t rp = argc > 1 ? strtoull(argv[1], NULL, 10) : 8;
    const unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
    cuzk_seal_params sp = {.registered_proof = rp, .miner_id = 1000, .sector_id = 1, .seed = 1, .nthreads = threads};
    cuzk_fil_c1 *c1 = NULL;
    char err[256];
    double t = cuzk_now();
    int rc = cuzk_seal_synthetic_c1(&sp, &c1);
    if (!rc) rc = cuzk_fil_c1_check_threads(c1, rp, sp.miner_id, sp.sector_id, threads, err, sizeof err);
    if (rc) {
        fprintf(stderr, "bench_witness: synthetic C1 of registered proof %llu: %s\n", (unsigned long long)rp,
                cuzk_strerror(rc));
        return 1;
    }
    const double t_c1 = cuzk_now() - t;
    cuzk_porep_witness pw;
    cuzk_porep_challenge *chs = NULL;
    cuzk_cs *cs = cuzk_cs_new(CUZK_CS_WITNESS);
    t = cuzk_now();
    rc = cs ? cuzk_fil_c1_witness(c1, 0, &pw, &chs) : CUZK_ERR_NO_MEMORY;
    if (!rc) rc = cuzk_cs_alloc_one(cs);
    if (!rc) rc = cuzk_porep_circuit_threads(cs, &c1->cfg, &pw, threads);
    if (!rc) rc = cuzk_cs_finalize(cs);
    if (rc) {
        fprintf(stderr, "bench_witness: partition 0: %s\n", cuzk_strerror(rc));
        return 1;
    }
    const double t_syn = cuzk_now() - t;
    const cuzk_witness_cs *w = (const cuzk_witness_cs *)cs;
    const size_t n = w->aux.len;
    size_t zero = 0, one = 0;
    for (size_t i = 0; i < n; i++) {
        zero += cuzk_fr_is_zero(&w->aux.v[i]);
        one += cuzk_fr_eq(&w->aux.v[i], &cuzk_fr_one);
    }
    printf("%llu-byte sector, partition 0: C1 made and checked in %.1f s, witness synthesized in %.1f s "
           "(%u threads)\n",
           (unsigned long long)c1->cfg.sector_size, t_c1, t_syn, threads);
    printf("aux %zu values: zero %zu (%.1f %%), one %zu (%.1f %%), other %zu (%.1f %%)\n\n", n, zero,
           100.0 * zero / n, one, 100.0 * one / n, n - zero - one, 100.0 * (n - zero - one) / n);

    printf("| %-30s | %10s | %10s |\n", "step", "wall s", "GB/s");
    printf("|--------------------------------|------------|------------|\n");
    const double gb = n * sizeof(cuzk_fr) / 1e9;
    cuzk_fr_packed pk;
    for (unsigned th = 1; th <= threads; th = th == 1 && threads > 1 ? threads : threads + 1) {
        t = cuzk_now();
        if (cuzk_fr_pack_threads(&pk, w->aux.v, n, false, th)) return 1;
        const double s = cuzk_now() - t;
        char name[40];
        snprintf(name, sizeof name, "pack, %u thread%s", th, th > 1 ? "s" : "");
        printf("| %-30s | %10.3f | %10.2f |\n", name, s, gb / s);
        if (th < threads) cuzk_fr_packed_free(&pk);
    }
    cuzk_fr *u = malloc(n * sizeof *u);
    if (!u) return 1;
    for (int pass = 0; pass < 2; pass++) {
        t = cuzk_now();
        cuzk_fr_unpack(u, &pk);
        const double s = cuzk_now() - t;
        printf("| %-30s | %10.3f | %10.2f |\n", pass ? "unpack, touched pages" : "unpack, fresh pages", s, gb / s);
    }
    const int same = memcmp(u, w->aux.v, n * sizeof *u) == 0;
    printf("\npacked: %zu bytes (%.1f MB) for %.2f GB, %.1fx smaller; %zu general values; round trip %s\n",
           cuzk_fr_packed_bytes(&pk), cuzk_fr_packed_bytes(&pk) / 1e6, gb,
           gb * 1e9 / (double)cuzk_fr_packed_bytes(&pk), pk.n_gen, same ? "equal" : "DIFFERS");
    cuzk_fr_packed_free(&pk);
    free(u);
    free(chs);
    cuzk_cs_free(cs);
    cuzk_fil_c1_free(c1);
    return same ? 0 : 1;
}
