/* Process-wide handles (include/cuzk/util/handle.h). */
#include "cuzk/util/handle.h"

#include <stdatomic.h>

static atomic_uint_fast64_t handle_last;

uint64_t cuzk_handle_new(void)
{
    return (uint64_t)atomic_fetch_add(&handle_last, 1) + 1;
}
