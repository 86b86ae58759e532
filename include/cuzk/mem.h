/*
 * Host memory chores, one helper each:
 *  - cuzk_mem_lock: keep an array in RAM (mlock), the fallback of every
 *    page-locking in cuzk (the GPU layer's when CUDA cannot register, the
 *    engine's when its prover pins nothing itself). Locked pages are never
 *    swapped, but only a device driver's registration makes uploads from
 *    them direct DMA.
 *  - cuzk_mem_wipe: zero a secret (a witness, randomisers, toxic waste)
 *    before its memory is freed, in a way the compiler may not drop.
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

#ifdef __cplusplus
}
#endif

#endif
