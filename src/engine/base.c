/*
 * The core's small helpers, below every other core file: the engine's log
 * line and waking every waiter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine_internal.h"

void eng_log(cuzk_engine *e, int level, const char *fmt, ...)
{
    /* allocated: a line naming a long path and a parser's reason is never cut */
    va_list ap;
    va_start(ap, fmt);
    char *buf = cuzk_vstrf(fmt, ap);
    va_end(ap);
    const char *line = buf ? buf : fmt; /* out of memory: the format still says what happened */
    if (e->cfg.log)
        e->cfg.log(e->cfg.log_ctx, level, line);
    else if (level <= 1)
        fprintf(stderr, "cuzk engine: %s\n", line);
    free(buf);
}

void eng_wake_all(cuzk_engine *e)
{
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_cond_broadcast(&e->prove_cv);
    pthread_cond_broadcast(&e->done_cv);
}
