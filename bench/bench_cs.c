/* Synthesis throughput: SHA-256 blocks (512 allocated message bits + one
 * compression each) on every constraint system, 1 thread and all threads (parallel
 * driver + extend). Usage: bench_cs [blocks] [threads]. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/cs/cs.h"
#include "cuzk/gadgets/gadgets.h"

#include "bench_util.h"

int main(int argc, char **argv)
{
    size_t blocks = argc > 1 ? (size_t)atol(argv[1]) : 16;
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : (unsigned)(nproc > 0 ? nproc : 1);
    static const cuzk_cs_kind kinds[] = {CUZK_CS_WITNESS, CUZK_CS_RECORDING, CUZK_CS_PROVING, CUZK_CS_TEST};
    printf("SHA-256 block synthesis, %zu blocks\n", blocks);
    printf("%-18s %8s %12s %10s %14s\n", "system", "threads", "constraints", "seconds", "constraints/s");
    for (int k = 0; k < 4; k++) {
        unsigned tl[2] = {1, threads};
        for (int ti = 0; ti < (threads > 1 ? 2 : 1); ti++) {
            cuzk_cs *cs = cuzk_cs_new(kinds[k]);
            if (!cs) return 1;
            cuzk_cs_alloc_one(cs);
            double t0 = cuzk_now();
            int e = cuzk_cs_synthesize_parallel(cs, blocks, bench_sha256_block, NULL, tl[ti]);
            if (!e) e = cuzk_cs_finalize(cs);
            double dt = cuzk_now() - t0;
            if (e) {
                fprintf(stderr, "error %d\n", e);
                return 1;
            }
            printf("%-18s %8u %12zu %10.3f %14.0f\n", cs->vt->name, tl[ti], cs->num_constraints, dt,
                   cs->num_constraints / dt);
            if (kinds[k] == CUZK_CS_RECORDING && ti == 0) {
                cuzk_recording_cs *r = (cuzk_recording_cs *)cs;
                size_t nnz = r->m[0].nnz + r->m[1].nnz + r->m[2].nnz;
                printf("  (nnz A/B/C %zu/%zu/%zu, %zu distinct coefficients, %.1f MiB matrices)\n",
                       r->m[0].nnz, r->m[1].nnz, r->m[2].nnz, r->coeffs.len,
                       (nnz * 8.0 + 3 * 8.0 * cs->num_constraints + r->coeffs.len * 32.0) / 1048576);
            }
            cuzk_cs_free(cs);
        }
    }
    return 0;
}
