/*
 * The core's small helpers, below every other core file: formatted strings
 * of any length, the engine's log line, and waking every waiter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine_internal.h"

char *eng_vstrf(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *eng_strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = eng_vstrf(fmt, ap);
    va_end(ap);
    return s;
}

void eng_log(cuzk_engine *e, int level, const char *fmt, ...)
{
    /* allocated: a line naming a long path and a parser's reason is never cut */
    va_list ap;
    va_start(ap, fmt);
    char *buf = eng_vstrf(fmt, ap);
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
