/*
 * The core's small helpers, below every other core file: the engine's log
 * line, waking every waiter, a wait with a deadline.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static void abs_deadline(struct timespec *ts, double t)
{
    ts->tv_sec = (time_t)t;
    ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
    if (ts->tv_nsec >= 1000000000L) ts->tv_sec++, ts->tv_nsec -= 1000000000L;
    if (ts->tv_nsec < 0) ts->tv_nsec = 0;
}

/* Waits on cv until woken or the monotonic time t (t <= 0: no limit). */
void eng_cv_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double t)
{
    if (t <= 0) {
        pthread_cond_wait(cv, mu);
        return;
    }
    struct timespec ts;
    abs_deadline(&ts, t);
    pthread_cond_timedwait(cv, mu, &ts);
}
