/* Filecoin public-input derivations, one thread: SDR parents per node (DRG, expander) for
 * 2 KiB .. 64 GiB graphs, and PoRep challenges. Usage: bench_filecoin [nodes per row]. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuzk/filecoin/filecoin.h"

#include "bench_util.h"

int main(int argc, char **argv) {
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
    static const uint64_t proofs[] = {5, 6, 7, 8, 9};
    printf("%-22s %12s %14s %14s\n", "graph", "nodes", "drg us/node", "exp us/node");
    volatile uint32_t sink = 0;
    for (int k = 0; k < 5; k++) {
        const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(proofs[k]);
        uint8_t pid[32];
        cuzk_fil_graph g;
        cuzk_fil_porep_id(pid, sp->id, 0);
        cuzk_fil_graph_init(&g, sp->sector_size / 32, pid, sp->api_version);
        uint32_t p[14];
        double t0 = cuzk_now();
        for (unsigned i = 0; i < n; i++) {
            cuzk_fil_graph_drg_parents(&g, (uint32_t)((g.nodes - 1 - i) % g.nodes), p);
            sink ^= p[1];
        }
        double t1 = cuzk_now();
        for (unsigned i = 0; i < n; i++) {
            cuzk_fil_graph_exp_parents(&g, (uint32_t)((g.nodes - 1 - i) % g.nodes), p);
            sink ^= p[1];
        }
        double t2 = cuzk_now();
        printf("%-22s %12llu %14.3f %14.3f\n", sp->name, (unsigned long long)g.nodes,
               (t1 - t0) * 1e6 / n, (t2 - t1) * 1e6 / n);
    }
    uint8_t rid[32] = {1}, seed[32] = {2};
    uint64_t ch[18];
    double t0 = cuzk_now();
    for (unsigned i = 0; i < n; i++) cuzk_fil_porep_challenges(ch, 18, i % 10, rid, seed, 1ull << 30);
    printf("porep challenges (32 GiB): %.3f us/challenge\n", (cuzk_now() - t0) * 1e6 / (18.0 * n));
    return (int)(sink & 0);
}
