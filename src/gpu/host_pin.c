/*
 * Page-locking of host arrays (cuzk/gpu/gpu.h): CUDA registration when a device
 * is usable, mlock as the best-effort fallback. Shared by the CUDA and the
 * CPU-only builds; only cuzk_gpu_host_register differs between them.
 */
#include <stdio.h>

#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/util/mem.h"

const char *cuzk_gpu_pin_name(cuzk_gpu_pin_how how)
{
    static const char *n[] = {"none", "cuda", "mlock"};
    return (unsigned)how < 3 ? n[how] : "unknown";
}

cuzk_gpu_pin_how cuzk_gpu_host_pin(void *ptr, size_t len, char *msg, size_t msg_len)
{
    if (msg && msg_len) msg[0] = 0;
    if (!ptr || !len) return CUZK_GPU_PIN_NONE;
    char why[160] = "", lock[160] = "";
    if (cuzk_gpu_host_register(ptr, len, why, sizeof why) == CUZK_OK) return CUZK_GPU_PIN_CUDA;
    if (cuzk_mem_lock(ptr, len, lock, sizeof lock) == CUZK_OK) {
        if (msg && msg_len) snprintf(msg, msg_len, "mlock only (no CUDA registration: %s)", why);
        return CUZK_GPU_PIN_MLOCK;
    }
    if (msg && msg_len) snprintf(msg, msg_len, "pageable (no CUDA registration: %s; %s)", why, lock);
    return CUZK_GPU_PIN_NONE;
}

void cuzk_gpu_host_unpin(void *ptr, size_t len, cuzk_gpu_pin_how how)
{
    if (!ptr || !len) return;
    if (how == CUZK_GPU_PIN_CUDA) cuzk_gpu_host_unregister(ptr);
    else if (how == CUZK_GPU_PIN_MLOCK) cuzk_mem_unlock(ptr, len);
}
