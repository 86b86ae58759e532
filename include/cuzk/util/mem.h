/*
 * Host memory chores, one helper each:
 *  - cuzk_mem_lock: keep an array in RAM (mlock), the fallback of every
 *    page-locking in cuzk (the GPU layer's when CUDA cannot register, the
 *    engine's when its prover pins nothing itself). Locked pages are never
 *    swapped, but only a device driver's registration makes uploads from
 *    them direct DMA.
 *  - cuzk_mem_wipe: zero a secret (a witness, randomisers, toxic waste)
 *    before its memory is freed, in a way the compiler may not drop.
 *  - cuzk_mem_discard: give an array's pages back to the kernel while the
 *    array stays allocated (its contents are no longer needed, but other
 *    threads may still hold its address).
 */
#ifndef CUZK_MEM_H
#define CUZK_MEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mlock(ptr, len): CUZK_OK, or CUZK_ERR_IO with why (may be NULL) saying
 * "mlock: <reason>" and, under a finite RLIMIT_MEMLOCK, the limit (the usual
 * cause: a unit without LimitMEMLOCK=infinity). */
int cuzk_mem_lock(void *ptr, size_t len, char *why, size_t why_len);
/* Undoes cuzk_mem_lock. */
void cuzk_mem_unlock(void *ptr, size_t len);

/* Zeroes len bytes at ptr (NULL: nothing) at memset's speed (gigabytes of
 * witness are wiped per partition), and the stores are kept even when the
 * memory is freed right after. */
void cuzk_mem_wipe(void *ptr, size_t len);

/* The whole pages inside [ptr, ptr + len) go back to the kernel
 * (madvise MADV_DONTNEED): they read as zeros from then on and leave the
 * resident set until written. The array stays allocated and is freed as
 * before. Returns the bytes given back (0 for an array of under two pages,
 * or when the kernel refused). */
size_t cuzk_mem_discard(void *ptr, size_t len);

#ifdef __cplusplus
}
#endif

#endif
