/* PoRep partition synthesis speed on every constraint system: the 32 GiB shape (11
 * layers, tree 8-8-0) with fewer challenges per partition (default 2 of 18,
 * so that matrices and witnesses fit on a small machine; the cost is linear
 * in challenges). Modes: one partition on one thread; "2 partitions": two
 * independent partitions at once (rate = their sum); "2 threads": one
 * partition with its challenges on two threads (forks of the header).
 * Usage: bench_porep [challenges] [sector size in bytes]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuzk/cs/cs.h"
#include "cuzk/circuits/porep.h"

#include "bench_util.h"

typedef struct job {
    cuzk_cs_kind kind;
    const cuzk_porep_config *cfg;
    unsigned threads; /* within the partition */
    size_t constraints;
    int err;
} job;

static void *run(void *arg)
{
    job *j = arg;
    cuzk_cs *cs = cuzk_cs_new(j->kind);
    if (!cs) {
        j->err = 1;
        return NULL;
    }
    cuzk_cs_alloc_one(cs);
    j->err = cuzk_porep_circuit_threads(cs, j->cfg, NULL, j->threads);
    if (!j->err) j->err = cuzk_cs_finalize(cs);
    j->constraints = cs->num_constraints;
    cuzk_cs_free(cs);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned challenges = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    uint64_t size = argc > 2 ? strtoull(argv[2], NULL, 10) : 1ull << 35;
    cuzk_porep_config cfg;
    if (cuzk_porep_config_for(&cfg, size, false) || challenges < 1) {
        fprintf(stderr, "usage: bench_porep [challenges >= 1] [registered sector size]\n");
        return 2;
    }
    unsigned full = cfg.challenges;
    cfg.challenges = challenges;
    printf("PoRep partition synthesis (blank circuit), %llu-byte sector shape, %u of %u challenges\n",
           (unsigned long long)size, challenges, full);
    printf("%-18s %-13s %12s %10s %14s %16s\n", "system", "mode", "constraints", "seconds", "constraints/s",
           "full partition s");
    static const cuzk_cs_kind kinds[] = {CUZK_CS_COUNT, CUZK_CS_WITNESS, CUZK_CS_RECORDING, CUZK_CS_PROVING,
                                         CUZK_CS_TEST};
    static const char *names[] = {"CountingCS", "WitnessCS", "RecordingCS", "ProvingAssignment", "TestCS"};
    for (int k = 0; k < 5; k++) {
        static const char *modes[] = {"1 thread", "2 partitions", "2 threads"};
        for (int mode = 0; mode < 3; mode++) {
            unsigned np = mode == 1 ? 2 : 1, inner = mode == 2 ? 2 : 1;
            job jobs[2];
            pthread_t tid[2];
            double t0 = cuzk_now();
            for (unsigned i = 0; i < np; i++) {
                jobs[i] = (job){kinds[k], &cfg, inner, 0, 0};
                pthread_create(&tid[i], NULL, run, &jobs[i]);
            }
            size_t total = 0;
            for (unsigned i = 0; i < np; i++) {
                pthread_join(tid[i], NULL);
                if (jobs[i].err) {
                    fprintf(stderr, "%s: error %d\n", names[k], jobs[i].err);
                    return 1;
                }
                total += jobs[i].constraints;
            }
            double dt = cuzk_now() - t0, rate = total / dt;
            double per_partition = (double)jobs[0].constraints / challenges * full;
            printf("%-18s %-13s %12zu %10.2f %14.0f %16.1f\n", names[k], modes[mode], total, dt, rate,
                   per_partition / (rate / np));
        }
    }
    return 0;
}
