/*
 * Devices: one cuzk_gpu_device per card opened by ordinal, made with its CUDA
 * context (cudaFree(0)) so that the card's first open measures the driver's
 * free memory for the ledger (ledger.cu), and closed with the arrays it
 * owns: the NTT tables, the MSM scratch and the resident parameter sets.
 * Each call selects the device in the calling thread (cudaSetDevice): CUDA
 * keeps the current device per host thread, and one thread may serve
 * several cards.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu/gpu.h"
#include "device.cuh"
#include "gpu_internal.cuh"

using namespace cuzk_gpu;

extern "C" int cuzk_gpu_device_count(int *count)
{
    if (!count) return CUZK_ERR_INVALID_ARG;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        n = 0;
    }
    *count = n;
    return n > 0 ? CUZK_OK : CUZK_ERR_NO_DEVICE;
}

extern "C" int cuzk_gpu_device_open(cuzk_gpu_device **out, int ordinal, char *msg, size_t msg_len)
{
    if (!out) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || ordinal < 0 || ordinal >= n) {
        if (msg)
            snprintf(msg, msg_len, "cuda device %d: not available (%d devices%s%s)", ordinal,
                     e == cudaSuccess ? n : 0, e == cudaSuccess ? "" : ": ",
                     e == cudaSuccess ? "" : cudaGetErrorString(e));
        cudaGetLastError();
        return CUZK_ERR_NO_DEVICE;
    }
    cudaDeviceProp prop;
    if ((e = cudaSetDevice(ordinal)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&prop, ordinal)) != cudaSuccess) {
        if (msg) snprintf(msg, msg_len, "cuda device %d: initialisation: %s", ordinal, cudaGetErrorString(e));
        cudaGetLastError();
        return CUZK_ERR_DEVICE;
    }
    cuzk_gpu_device *d = (cuzk_gpu_device *)calloc(1, sizeof *d);
    if (!d) return CUZK_ERR_NO_MEMORY;
    d->ordinal = ordinal;
    snprintf(d->desc, sizeof d->desc, "%s (device %d, sm_%d%d, %d SMs, %.1f GiB)", prop.name, ordinal,
             prop.major, prop.minor, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0);
    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->srs_mu, NULL);
    ledger_open(ordinal);
    *out = d;
    return CUZK_OK;
}

extern "C" const char *cuzk_gpu_device_plan(cuzk_gpu_device *d)
{
    static thread_local char copy[sizeof d->plan];
    if (!d) return "";
    pthread_mutex_lock(&d->srs_mu);
    memcpy(copy, d->plan, sizeof copy);
    pthread_mutex_unlock(&d->srs_mu);
    return copy;
}

extern "C" void cuzk_gpu_device_close(cuzk_gpu_device *d)
{
    if (!d) return;
    cudaSetDevice(d->ordinal);
    ntt_tables_free(&d->ntt);
    msm_scratch_free(&d->msm);
    for (dev_resident *e = d->srs, *nx; e; e = nx) {
        nx = e->next;
        dev_resident_free(e);
    }
    pthread_mutex_destroy(&d->lock);
    pthread_mutex_destroy(&d->srs_mu);
    ledger_close(d->ordinal);
    free(d);
}

extern "C" const char *cuzk_gpu_device_describe(const cuzk_gpu_device *d) { return d ? d->desc : ""; }

/* For the status: sets this thread's current device (as every entry point
 * here does) and asks the driver; the device is not marked failed on error. */
extern "C" int cuzk_gpu_device_memory(cuzk_gpu_device *d, uint64_t *total, uint64_t *free_bytes)
{
    if (!d || !total || !free_bytes) return CUZK_ERR_INVALID_ARG;
    *total = *free_bytes = 0;
    if (d->failed) return CUZK_ERR_DEVICE;
    size_t f = 0, t = 0;
    if (cudaSetDevice(d->ordinal) != cudaSuccess || cudaMemGetInfo(&f, &t) != cudaSuccess) {
        cudaGetLastError();
        return CUZK_ERR_DEVICE;
    }
    *total = t;
    *free_bytes = f;
    return CUZK_OK;
}
