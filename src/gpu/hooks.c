/*
 * The GPU layer's process-wide switches: the trace flags (cuzk/gpu/gpu.h,
 * cuzk_gpu_set_trace) and the tests' hooks (gpu_test_hooks.h). Plain C,
 * built with and without CUDA, so that the programs that set them need no
 * #ifdefs; the CUDA code reads them through cuzk_gpu_hooks_now and
 * cuzk_gpu_trace_flags (gpu_internal.cuh).
 */
#include <stdatomic.h>

#include "cuzk/gpu/gpu.h"
#include "gpu_test_hooks.h"

/* written between calls (the header's rule), read by the workers */
static cuzk_gpu_test_hooks hooks = {.stage_threads = 4, .stage_kib = 32768};
static atomic_uint trace_flags;

void cuzk_gpu_test_hooks_get(cuzk_gpu_test_hooks *h) { *h = hooks; }

void cuzk_gpu_test_hooks_set(const cuzk_gpu_test_hooks *h)
{
    hooks = *h;
    hooks.stream[sizeof hooks.stream - 1] = 0, hooks.fail_alloc[sizeof hooks.fail_alloc - 1] = 0;
}

const cuzk_gpu_test_hooks *cuzk_gpu_hooks_now(void) { return &hooks; }

void cuzk_gpu_set_trace(unsigned flags) { atomic_store(&trace_flags, flags); }

unsigned cuzk_gpu_trace_flags(void) { return atomic_load_explicit(&trace_flags, memory_order_relaxed); }
