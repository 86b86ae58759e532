/*
 * The GPU layer's hooks for its tests and benchmarks: switches no daemon
 * sets (a daemon's GPU behaviour comes from its config through cuzk/gpu/gpu.h
 * and cuzk/kinds/kinds.h). They make small inputs take the paths of large ones
 * (many window batches, streamed point arrays, failing allocations, a card
 * short of memory) or sweep a kernel's shape. A C header of the GPU layer's
 * own, included by the test and benchmark programs (-I src), not by other
 * layers; tests/gpu_hooks_env.h fills the hooks from the CUZK_GPU_*
 * variables the device scripts set.
 *
 * The hooks are process-wide: set them while no worker of the process runs
 * (between calls). Every field at its value of cuzk_gpu_test_hooks_get
 * before any set is the library's own behaviour.
 */
#ifndef CUZK_GPU_TEST_HOOKS_H
#define CUZK_GPU_TEST_HOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_test_hooks {
    /* the MSM (msm/) */
    unsigned msm_c;         /* window bits, 2..24 (narrow windows: long bucket runs); else the cost model's */
    unsigned msm_l;         /* accumulation chunk length, 4..4096; else by the sorted count */
    uint32_t msm_segs;      /* bucket segments a window batch, 64..2^20; else 32,768 */
    uint64_t msm_batch;     /* at most this many sorted entries a window batch; 0: 2^28 */
    uint64_t msm_free;      /* the device's free bytes as an allocation sees them; 0: the driver's and budget's */
    uint64_t msm_chunk;     /* every MSM (msm_g1, msm_g2) taken in chunks of this many points into shared buckets,
                             * as a streamed set's are (msm/chunked.cuh); 0: whole */
    /* the NTT (ntt.cu) */
    int ntt_r2;             /* nonzero: radix-2 passes (the reference) instead of radix-4 */
    int ntt_minb;           /* nonzero: radix-4 passes as ptxas likes them, not held to 3 blocks an SM */
    /* fixed-base multiplications (fixed_base.cu) */
    uint64_t fb_batch;      /* scalars a batch, >= 64; else 2^22 */
    /* uploads from pageable memory (worker.cu): the worker's two pinned slots */
    unsigned stage_threads; /* threads filling a slot (4; at most 64); 0: the driver's own copy */
    unsigned stage_kib;     /* KiB a slot, 1 to 2^20 (32768; 0: 32768) */
    /* the residency of parameter sets and PCEs (resident.cu, prove.cu) */
    char stream[48];        /* "h,l,a,b_g1,b_g2,pce": those arrays of every new set streamed whatever the plan */
    uint64_t stream_chunk;  /* points a streamed chunk (a PCE's blocks: as many points' bytes); 0: the plan's */
    /* allocations (ledger.cu) */
    char fail_alloc[48];    /* a device reservation whose name contains this fails as out of memory; "": none */
} cuzk_gpu_test_hooks;

/* The hooks in force (the library's defaults before any set). */
void cuzk_gpu_test_hooks_get(cuzk_gpu_test_hooks *h);
/* Puts h in force (a copy). */
void cuzk_gpu_test_hooks_set(const cuzk_gpu_test_hooks *h);

#ifdef __cplusplus
}
#endif
#endif
