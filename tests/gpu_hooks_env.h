/*
 * The GPU test hooks (src/gpu/gpu_test_hooks.h) from the environment of a
 * test or benchmark program, so that the device scripts (bench/...sh) drive
 * them as variables; the library reads no environment. Each variable set
 * and not empty replaces its hook; a number that does not parse is taken
 * as 0 (the library's own choice). The kernel trace is cuzk/gpu/gpu.h's:
 * CUZK_GPU_TRACE=1 traces allocations and kernels, =alloc allocations.
 *
 *   CUZK_GPU_MSM_C, _MSM_L, _MSM_SEGS, _MSM_BATCH, _MSM_FREE     msm_c ... msm_free
 *   CUZK_GPU_MSM_CHUNK                                           msm_chunk
 *   CUZK_GPU_NTT_R2=1, CUZK_GPU_NTT_MINB=1                       ntt_r2, ntt_minb
 *   CUZK_GPU_FB_BATCH                                            fb_batch
 *   CUZK_GPU_STAGE_THREADS, CUZK_GPU_STAGE_KIB                   stage_threads, stage_kib
 *   CUZK_GPU_STREAM=h,l,a,b_g1,b_g2,pce, CUZK_GPU_STREAM_CHUNK  stream, stream_chunk
 *   CUZK_GPU_FAIL_ALLOC=NAME                                     fail_alloc
 */
#ifndef CUZK_TESTS_GPU_HOOKS_ENV_H
#define CUZK_TESTS_GPU_HOOKS_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu/gpu.h"
#include "gpu/gpu_test_hooks.h"

static inline const char *gpu_hooks_var(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static inline uint64_t gpu_hooks_u64(const char *name, uint64_t keep)
{
    const char *v = gpu_hooks_var(name);
    if (!v) return keep;
    const long long x = atoll(v);
    return x > 0 ? (uint64_t)x : 0;
}

static inline void gpu_hooks_from_env(void)
{
    cuzk_gpu_test_hooks h;
    cuzk_gpu_test_hooks_get(&h);
    h.msm_c = (unsigned)gpu_hooks_u64("CUZK_GPU_MSM_C", h.msm_c);
    h.msm_l = (unsigned)gpu_hooks_u64("CUZK_GPU_MSM_L", h.msm_l);
    h.msm_segs = (uint32_t)gpu_hooks_u64("CUZK_GPU_MSM_SEGS", h.msm_segs);
    h.msm_batch = gpu_hooks_u64("CUZK_GPU_MSM_BATCH", h.msm_batch);
    h.msm_free = gpu_hooks_u64("CUZK_GPU_MSM_FREE", h.msm_free);
    h.msm_chunk = gpu_hooks_u64("CUZK_GPU_MSM_CHUNK", h.msm_chunk);
    h.ntt_r2 = gpu_hooks_var("CUZK_GPU_NTT_R2") ? atoi(getenv("CUZK_GPU_NTT_R2")) == 1 : h.ntt_r2;
    h.ntt_minb = gpu_hooks_var("CUZK_GPU_NTT_MINB") ? atoi(getenv("CUZK_GPU_NTT_MINB")) == 1 : h.ntt_minb;
    h.fb_batch = gpu_hooks_u64("CUZK_GPU_FB_BATCH", h.fb_batch);
    h.stage_threads = (unsigned)gpu_hooks_u64("CUZK_GPU_STAGE_THREADS", h.stage_threads);
    h.stage_kib = (unsigned)gpu_hooks_u64("CUZK_GPU_STAGE_KIB", h.stage_kib);
    if (gpu_hooks_var("CUZK_GPU_STREAM")) snprintf(h.stream, sizeof h.stream, "%s", getenv("CUZK_GPU_STREAM"));
    h.stream_chunk = gpu_hooks_u64("CUZK_GPU_STREAM_CHUNK", h.stream_chunk);
    if (gpu_hooks_var("CUZK_GPU_FAIL_ALLOC"))
        snprintf(h.fail_alloc, sizeof h.fail_alloc, "%s", getenv("CUZK_GPU_FAIL_ALLOC"));
    cuzk_gpu_test_hooks_set(&h);
    const char *tr = gpu_hooks_var("CUZK_GPU_TRACE");
    if (tr) cuzk_gpu_set_trace(atoi(tr) == 1 ? CUZK_GPU_TRACE_ALLOC | CUZK_GPU_TRACE_KERNELS
                               : !strcmp(tr, "alloc") ? CUZK_GPU_TRACE_ALLOC : 0);
}

/* The hooks of this program as its environment set them, with one field
 * changed for a part of a test: save, change, run, then restore. */
#define GPU_HOOK_SET(field, value)                                                                 \
    do {                                                                                           \
        cuzk_gpu_test_hooks h_;                                                                    \
        cuzk_gpu_test_hooks_get(&h_);                                                              \
        h_.field = (value);                                                                        \
        cuzk_gpu_test_hooks_set(&h_);                                                              \
    } while (0)
#define GPU_HOOK_SET_STR(field, value)                                                             \
    do {                                                                                           \
        cuzk_gpu_test_hooks h_;                                                                    \
        cuzk_gpu_test_hooks_get(&h_);                                                              \
        snprintf(h_.field, sizeof h_.field, "%s", (value));                                        \
        cuzk_gpu_test_hooks_set(&h_);                                                              \
    } while (0)

#endif
