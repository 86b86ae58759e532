/* Host memory chores (include/cuzk/util/mem.h). */
#include "cuzk/util/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cuzk/util/error.h"

int cuzk_mem_lock(void *ptr, size_t len, char *why, size_t why_len)
{
    if (why && why_len) why[0] = 0;
    if (!ptr || !len) return CUZK_ERR_INVALID_ARG;
    if (mlock(ptr, len) == 0) return CUZK_OK;
    int e = errno;
    struct rlimit rl = {0, 0};
    getrlimit(RLIMIT_MEMLOCK, &rl);
    if (why && why_len) {
        if (rl.rlim_cur == RLIM_INFINITY)
            snprintf(why, why_len, "mlock: %s", strerror(e));
        else
            snprintf(why, why_len, "mlock: %s, RLIMIT_MEMLOCK %llu bytes", strerror(e),
                     (unsigned long long)rl.rlim_cur);
    }
    return CUZK_ERR_IO;
}

void cuzk_mem_unlock(void *ptr, size_t len)
{
    if (ptr && len) munlock(ptr, len);
}

void cuzk_mem_wipe(void *ptr, size_t len)
{
    if (!ptr || !len) return;
    memset(ptr, 0, len);
    /* the compiler must assume the asm reads the zeroed memory, so the
     * memset is not a dead store before free */
    __asm__ __volatile__("" : : "r"(ptr) : "memory");
}

size_t cuzk_mem_discard(void *ptr, size_t len)
{
    if (!ptr || !len) return 0;
    const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)ptr, end = a + len;
    const uintptr_t lo = (a + pg - 1) / pg * pg, hi = end / pg * pg; /* the pages wholly inside */
    if (hi <= lo) return 0;
    return madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0 ? hi - lo : 0;
}
