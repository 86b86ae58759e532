/*
 * bench_snarkpack: SnarkPack on the CPU (cuzk/groth16/snarkpack.h): for n = 8, 16, ... up to --max
 * (default 1024) proofs, the aggregation and the verification wall time on --threads threads
 * (default all CPUs), the proof's bytes, and the TEST SRS setup time. The proofs are 8 real
 * proofs of a small synthetic circuit repeated to n (the cost does not depend on which proofs;
 * each aggregate is verified, so a figure is never of a failing check). Single runs. Each row
 * also gives the aggregation's stages (the commitments, the GIPA rounds, the KZG openings; timed
 * by the ctl the aggregation asks before each stage) and the first 8 bytes of the SHA-256 of the
 * encoded aggregate: the same proofs and transcript bytes give the same aggregate, so two builds
 * can be compared byte for byte. --device gpu runs the Miller loops and MSMs on CUDA device 0
 * (cuzk/gpu/snarkpack_gpu.h, calls under its threshold on the CPU); both: a CPU row, then a GPU
 * row of each n, their digests side by side.
 *   bench_snarkpack [--min N] [--max N] [--threads T] [--device cpu|gpu|both]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/util/parallel.h"
#include "cuzk/util/sha256.h"
#include "cuzk/groth16/snarkpack.h"
#include "cuzk/circuits/test_circuits.h"
#include "cuzk/gpu/snarkpack_gpu.h"

#include "bench_util.h"

#define NI 4

static int make_proofs(cuzk_groth16_params *p, cuzk_groth16_proof pf[8], cuzk_fr in[8 * NI], cuzk_rng *rng)
{
    cuzk_synthetic_spec sp = {256, NI, 1};
    cuzk_recording_cs *r = cuzk_recording_cs_new();
    cuzk_cs_alloc_one(&r->base);
    int rc = cuzk_synthetic_synthesize(&r->base, &sp) || cuzk_cs_finalize(&r->base) || cuzk_groth16_setup(p, r, rng, 2);
    cuzk_cs_free(&r->base);
    for (int i = 0; !rc && i < 8; i++) {
        sp.witness_seed = 100 + (uint64_t)i;
        cuzk_proving_cs *c = cuzk_proving_cs_new();
        cuzk_cs_alloc_one(&c->base);
        rc = cuzk_synthetic_synthesize(&c->base, &sp) || cuzk_cs_finalize(&c->base) ||
             cuzk_groth16_prove(&pf[i], p, c, rng, 2) || cuzk_synthetic_public_inputs(&in[i * NI], &sp);
        cuzk_cs_free(&c->base);
    }
    return rc;
}

/* The wall time of each stage: the ctl's call before a stage ends the one before. */
typedef struct {
    double t_last, t[3];
    int stage;
} stage_clock;

static int stage_tick(void *ctx, cuzk_snarkpack_stage stage, unsigned round)
{
    (void)round;
    stage_clock *c = ctx;
    double now = cuzk_now();
    if (c->stage >= 0) c->t[c->stage] += now - c->t_last;
    c->stage = (int)stage, c->t_last = now;
    return 0;
}

/* The first 8 bytes of the SHA-256 of the encoded aggregate, in hex ("-" when it cannot be made). */
static void agg_digest(char out[17], const cuzk_snarkpack_proof *agg, uint32_t n)
{
    size_t len = cuzk_snarkpack_proof_size(n);
    uint8_t *b = malloc(len), h[32];
    strcpy(out, "-");
    if (b && !cuzk_snarkpack_proof_encode(b, len, agg) && !cuzk_sha256_hash(h, b, len))
        for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
    free(b);
}

static void row(const cuzk_snarkpack_srs *srs, const cuzk_groth16_params *p, const cuzk_groth16_proof *pf8,
                const cuzk_fr *in8, uint32_t n, unsigned nt, cuzk_rng *rng, const cuzk_snarkpack_accel *acc)
{
    cuzk_groth16_proof *pf = malloc(n * sizeof *pf);
    cuzk_fr *in = malloc((size_t)n * NI * sizeof *in);
    cuzk_snarkpack_proof *agg = malloc(sizeof *agg);
    cuzk_snarkpack_vk svk;
    uint8_t inc[32] = {1};
    char err[512] = "";
    for (uint32_t i = 0; i < n; i++) pf[i] = pf8[i % 8], memcpy(&in[i * NI], &in8[(i % 8) * NI], NI * sizeof *in);
    stage_clock clk = {0, {0, 0, 0}, -1};
    cuzk_snarkpack_ctl ctl = {.stop = stage_tick, .ctx = &clk, .accel = acc};
    double t0 = cuzk_now();
    int rc = cuzk_snarkpack_aggregate(agg, srs, pf, n, inc, 32, CUZK_SNARKPACK_V2, &ctl, nt, err, sizeof err);
    double t1 = cuzk_now();
    if (clk.stage >= 0) clk.t[clk.stage] += t1 - clk.t_last;
    char dig[17];
    agg_digest(dig, agg, n);
    if (!rc) rc = cuzk_snarkpack_vk_for(&svk, srs, n, err, sizeof err);
    if (!rc) rc = cuzk_snarkpack_verify(agg, &svk, &p->vk, in, n, NI, inc, 32, CUZK_SNARKPACK_V2, rng, nt, err, sizeof err);
    double t2 = cuzk_now();
    printf("| %5u | %s | %9.3f | %6.3f | %6.3f | %6.3f | %9.3f | %6zu | %s | %s\n", n, acc ? "gpu" : "cpu",
           t1 - t0, clk.t[0], clk.t[1], clk.t[2], t2 - t1, cuzk_snarkpack_proof_size(n), dig, rc ? err : "VALID");
    fflush(stdout);
    free(pf), free(in), free(agg);
}

/* CUDA device 0's first worker for --device gpu / both; 1 when there is none. */
static int open_gpu(cuzk_gpu_device **dev, cuzk_gpu_worker **w, cuzk_snarkpack_accel *acc)
{
    char msg[256] = "";
    if (cuzk_gpu_device_open(dev, 0, msg, sizeof msg))
        return fprintf(stderr, "bench_snarkpack: %s\n", msg), 1;
    if (cuzk_gpu_worker_create(w, *dev))
        return cuzk_gpu_device_close(*dev), fprintf(stderr, "bench_snarkpack: no GPU worker\n"), 1;
    cuzk_gpu_snarkpack_accel(acc, *w, 0);
    printf("GPU: %s; calls of at least %zu pairs or points on it\n", cuzk_gpu_device_describe(*dev), acc->min_n);
    return 0;
}

int main(int argc, char **argv)
{
    uint32_t min = 8, max = 1024;
    unsigned nt = cuzk_parallel_cpus();
    const char *device = "cpu";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--min")) min = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--max")) max = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--threads")) nt = (unsigned)strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--device")) device = argv[i + 1];
    }
    int cpu = strcmp(device, "gpu") != 0, gpu = strcmp(device, "cpu") != 0;
    cuzk_gpu_device *dev = NULL;
    cuzk_gpu_worker *w = NULL;
    cuzk_snarkpack_accel acc;
    if (gpu && open_gpu(&dev, &w, &acc)) return 1;
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 7);
    cuzk_groth16_params p;
    cuzk_groth16_proof pf[8];
    cuzk_fr in[8 * NI];
    cuzk_snarkpack_srs srs;
    if (make_proofs(&p, pf, in, &rng)) return fprintf(stderr, "bench_snarkpack: proofs failed\n"), 1;
    double t = cuzk_now();
    if (cuzk_snarkpack_srs_setup_test(&srs, max, &rng, nt)) return fprintf(stderr, "bench_snarkpack: SRS failed\n"), 1;
    printf("SnarkPack v2, %u CPU threads; TEST SRS for %u proofs (2 x %u G1 + 2 x %u G2 powers): %.2f s\n\n",
           nt, max, 2 * max, 2 * max, cuzk_now() - t);
    printf("| n     | on  | aggregate | commit | GIPA   | KZG    | verify    | bytes  | sha256[:8]       |\n"
           "|-------|-----|-----------|--------|--------|--------|-----------|--------|------------------|\n");
    for (uint32_t n = min < 2 ? 2 : min; n <= max; n *= 2) {
        if (cpu) row(&srs, &p, pf, in, n, nt, &rng, NULL);
        if (gpu) row(&srs, &p, pf, in, n, nt, &rng, &acc);
    }
    cuzk_snarkpack_srs_free(&srs);
    cuzk_groth16_params_free(&p);
    if (w) cuzk_gpu_worker_destroy(w), cuzk_gpu_device_close(dev);
    return 0;
}
