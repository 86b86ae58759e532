/* Engine throughput on the CPU prover (or with --gpu first, the GPU prover:
 * device i on GPU i mod the GPU count, so 2 devices on a one-GPU machine
 * are two contexts on it): 10-partition synthetic jobs with 1,
 * 2 and 4 jobs kept in flight; proofs per minute, mean job latency and the
 * busy share of each stage (synthesis and verification workers, prover
 * workers). Before the table, one job alone: its prove time includes the
 * parameters' upload to each device, from page-locked memory unless
 * CUZK_BENCH_PIN=off (compare the two on a GPU). Usage: bench_engine
 * [constraints] [jobs per level] [synthesis workers] [devices] [workers per
 * device]. */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/util/clock.h"
#include "cuzk/engine/engine.h"
#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/util/parallel.h"


int main(int argc, char **argv)
{
    bool gpu = argc > 1 && !strcmp(argv[1], "--gpu");
    if (gpu) argv++, argc--;
    uint64_t nc = argc > 1 ? strtoull(argv[1], NULL, 0) : 4096;
    int per_level = argc > 2 ? atoi(argv[2]) : 8;
    cuzk_engine_config cfg = {
        .synthesis_workers = argc > 3 ? (unsigned)atoi(argv[3]) : cuzk_parallel_cpus(),
        .num_devices = argc > 4 ? (unsigned)atoi(argv[4]) : 1,
        .workers_per_device = argc > 5 ? (unsigned)atoi(argv[5]) : 2,
    };
    const char *pin = getenv("CUZK_BENCH_PIN");
    if (pin && !strcmp(pin, "off")) cfg.pin = CUZK_PIN_OFF;
    cuzk_engine_prover gp;
    if (gpu) {
        int count = 0;
        unsigned ord[64];
        if (cuzk_gpu_device_count(&count) != CUZK_OK || count <= 0 || cfg.num_devices > 64) {
            printf("no CUDA device\n");
            return 1;
        }
        for (unsigned i = 0; i < cfg.num_devices; i++) ord[i] = i % (unsigned)count;
        if (cuzk_engine_gpu_prover(&gp, ord, cfg.num_devices) != CUZK_OK) return 1;
        cfg.prover = &gp;
    }
    cuzk_engine *e;
    if (cuzk_engine_create(&e, &cfg) != CUZK_OK) return 1;
    cuzk_engine_synthetic_kind kind = {"bench", "bench", 10, CUZK_PRIORITY_NORMAL, nc, 4, NULL, 0};
    double t0 = cuzk_now();
    if (cuzk_engine_register_synthetic(e, &kind, cuzk_parallel_cpus()) != CUZK_OK) return 1;
    if (cuzk_engine_srs_preload(e, "bench") != CUZK_OK) return 1;
    unsigned nsw = cfg.synthesis_workers, npw = cfg.num_devices * cfg.workers_per_device;
    printf("engine, %s prover: 10-partition synthetic jobs, %llu constraints per partition\n",
           gpu ? "GPU" : "CPU", (unsigned long long)nc);
    for (unsigned d = 0; gpu && d < cuzk_engine_num_devices(e); d++)
        printf("device %u: %s\n", d, cuzk_engine_device_name(e, d));
    printf("%u synthesis workers, %u device(s) x %u prover workers; setup %.2f s\n", nsw, cfg.num_devices,
           cfg.workers_per_device, cuzk_now() - t0);
    /* one job alone: the first prove on each device uploads the parameters */
    {
        uint64_t seed = 1u << 30;
        cuzk_job_request rq = {.request_id = "bench-first", .kind = "bench", .inputs = &seed, .inputs_len = 8,
                               .priority = CUZK_PRIORITY_DEFAULT};
        cuzk_job *j;
        cuzk_job_info inf;
        if (cuzk_engine_submit(e, &rq, &j, NULL) != CUZK_OK || cuzk_job_await(j, -1) != CUZK_OK) return 1;
        cuzk_job_get_info(j, &inf);
        cuzk_job_release(j);
        cuzk_engine_counters c;
        cuzk_engine_get_counters(e, &c);
        char *js = cuzk_engine_status_json(e);
        const char *pv = js ? strstr(js, "\"pinning\":\"") : NULL;
        printf("first job (parameter upload included): %.3f s, prove %.3f s; parameters pinned: %.*s, "
               "%llu of %llu bytes\n", inf.total_s, inf.prove_s, pv ? (int)strcspn(pv + 11, "\"") : 1,
               pv ? pv + 11 : "?", (unsigned long long)c.memory_pinned, (unsigned long long)c.memory_pinned_limit);
        free(js);
    }
    /* ceiling: every prover worker proving all the time at the measured
     * seconds per partition */
    printf("%9s %6s %9s %11s %9s %10s %11s %8s %8s %9s\n", "in flight", "jobs", "seconds", "proofs/min",
           "ceiling", "latency s", "prove s/p", "synth %", "prove %", "verify %");
    const int levels[3] = {1, 2, 4};
    uint64_t seq = 0;
    for (int li = 0; li < 3; li++) {
        int inflight = levels[li], total = per_level > inflight ? per_level : inflight;
        cuzk_job **slot = calloc((size_t)inflight, sizeof *slot);
        cuzk_engine_counters c0, c1;
        cuzk_engine_get_counters(e, &c0);
        double start = cuzk_now(), lat = 0;
        int submitted = 0, done = 0;
        while (done < total) {
            for (int s = 0; s < inflight; s++) {
                if (!slot[s] && submitted < total) {
                    char id[32];
                    uint64_t seed = ++seq;
                    snprintf(id, sizeof id, "bench-%llu", (unsigned long long)seed);
                    cuzk_job_request rq = {.request_id = id, .kind = "bench", .inputs = &seed, .inputs_len = 8,
                                           .priority = CUZK_PRIORITY_DEFAULT};
                    if (cuzk_engine_submit(e, &rq, &slot[s], NULL) != CUZK_OK) return 1;
                    submitted++;
                }
                if (slot[s] && cuzk_job_await(slot[s], 1) != CUZK_ERR_NOT_READY) {
                    cuzk_job_info inf;
                    cuzk_job_get_info(slot[s], &inf);
                    if (inf.state != CUZK_JOB_DONE) {
                        fprintf(stderr, "job failed: %s\n", inf.message);
                        return 1;
                    }
                    lat += inf.total_s;
                    cuzk_job_release(slot[s]);
                    slot[s] = NULL;
                    done++;
                }
            }
        }
        double wall = cuzk_now() - start;
        cuzk_engine_get_counters(e, &c1);
        double per_part = (c1.prove_busy_s - c0.prove_busy_s) / (double)(c1.partitions_proved - c0.partitions_proved);
        printf("%9d %6d %9.2f %11.2f %9.2f %10.2f %11.3f %8.1f %8.1f %9.1f\n", inflight, total, wall,
               total / wall * 60, 60.0 * npw / (10 * per_part), lat / total, per_part,
               100 * (c1.synthesis_busy_s - c0.synthesis_busy_s) / (wall * nsw),
               100 * (c1.prove_busy_s - c0.prove_busy_s) / (wall * npw),
               100 * (c1.verify_busy_s - c0.verify_busy_s) / (wall * nsw));
        free(slot);
    }
    cuzk_engine_destroy(e);
    if (gpu) cuzk_engine_gpu_prover_free(&gp);
    return 0;
}
