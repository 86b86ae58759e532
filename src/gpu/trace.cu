/*
 * The kernel trace (the CUZK_GPU_TRACE_KERNELS bit of cuzk_gpu_trace_flags;
 * gpu_internal.cuh declares its calls): each GPU_LAUNCHED records a CUDA
 * event on the stream, and once a kernel region's stream is drained the
 * time between consecutive events is summed by kernel name and printed to
 * stderr, so a region's time splits into its kernels without a profiler.
 * The events are the calling thread's (one region open at a time per
 * thread) and of one device; with the bit off every call is one branch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu/gpu.h"
#include "gpu_internal.cuh"

namespace cuzk_gpu {
#define TRACE_MAX 4096
static inline bool trace_on() { return cuzk_gpu_trace_flags() & CUZK_GPU_TRACE_KERNELS; }
/* one region at a time per thread: its events (0 is the start) and names;
 * allocated by the first region a thread traces */
struct trace_state {
    cudaEvent_t ev[TRACE_MAX + 1];
    const char *name[TRACE_MAX + 1];
    int made, n, ordinal; /* events created; marks in the open region (-1: none open) */
};
static thread_local trace_state *tr;

void trace_region_start(cudaStream_t st, int ordinal)
{
    if (!trace_on()) return;
    if (!tr) {
        if (!(tr = (trace_state *)calloc(1, sizeof *tr))) return;
        tr->ordinal = ordinal;
    }
    if (tr->ordinal != ordinal) { /* events belong to a device */
        for (int i = 0; i < tr->made; i++) cudaEventDestroy(tr->ev[i]);
        tr->made = 0, tr->ordinal = ordinal;
    }
    if (tr->made == 0 && cudaEventCreate(&tr->ev[0]) == cudaSuccess) tr->made = 1;
    tr->n = tr->made && cudaEventRecord(tr->ev[0], st) == cudaSuccess ? 0 : -1;
}

void trace_mark(const ctx &c, const char *name)
{
    if (!trace_on() || !tr || tr->n < 0 || tr->n >= TRACE_MAX) return;
    const int i = tr->n + 1;
    if (i >= tr->made) {
        if (cudaEventCreate(&tr->ev[i]) != cudaSuccess) return;
        tr->made = i + 1;
    }
    if (cudaEventRecord(tr->ev[i], c.st) != cudaSuccess) return;
    tr->name[i] = name, tr->n = i;
}

/* After the stream was drained: the marks' times summed by name, in the
 * order of their first appearance. */
void trace_region_end(const char *what)
{
    if (!trace_on() || !tr || tr->n < 0) return;
    const char *names[64];
    float ms[64], total = 0;
    int count[64], k = 0;
    for (int i = 1; i <= tr->n; i++) {
        float t = 0;
        if (cudaEventElapsedTime(&t, tr->ev[i - 1], tr->ev[i]) != cudaSuccess) t = 0;
        total += t;
        int j = 0;
        while (j < k && strcmp(names[j], tr->name[i])) j++;
        if (j == k) {
            if (k == 64) continue;
            names[k] = tr->name[i], ms[k] = 0, count[k] = 0, k++;
        }
        ms[j] += t, count[j]++;
    }
    fprintf(stderr, "gpu trace, %s: %.3f ms between %d marks\n", what, total, tr->n);
    for (int j = 0; j < k; j++) fprintf(stderr, "  %-28s %10.3f ms  x%d\n", names[j], ms[j], count[j]);
    tr->n = -1;
}
} // namespace cuzk_gpu
