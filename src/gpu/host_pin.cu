/*
 * The CUDA half of cuzk_gpu_host_pin (host_pin.c): page-locking a host
 * range with cudaHostRegister so that its uploads are DMA'd straight from
 * it, portable so that every device's context sees it as pinned.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"

extern "C" int cuzk_gpu_host_register(void *ptr, size_t len, char *msg, size_t msg_len)
{
    /* portable: every device's context sees it as pinned, whichever uploads */
    cudaError_t e = cudaHostRegister(ptr, len, cudaHostRegisterPortable);
    if (e == cudaSuccess) return CUZK_OK;
    if (msg && msg_len)
        snprintf(msg, msg_len, "cudaHostRegister(%zu bytes): %s (%s)", len, cudaGetErrorString(e),
                 cudaGetErrorName(e));
    cudaGetLastError(); /* not sticky: clear it */
    return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? CUZK_ERR_NO_DEVICE : CUZK_ERR_DEVICE;
}

extern "C" void cuzk_gpu_host_unregister(void *ptr)
{
    if (cudaHostUnregister(ptr) != cudaSuccess) cudaGetLastError();
}

extern "C" int cuzk_gpu_host_is_registered(const void *ptr)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}
