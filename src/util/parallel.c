/* The parallel loop (include/cuzk/util/parallel.h). Threads are made per call: the
 * loops that use it run for milliseconds to minutes, against tens of
 * microseconds to start a thread, and a pool held between calls would be
 * state every caller shares. */
#include "cuzk/util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct par_loop {
    cuzk_parallel_fn *fn;
    void *ctx;
    size_t n, chunk;
    atomic_size_t next; /* the first index not yet taken */
} par_loop;

typedef struct par_thread {
    par_loop *loop;
    unsigned worker;
} par_thread;

static void par_run(par_loop *l, unsigned worker)
{
    for (;;) {
        size_t lo = atomic_fetch_add_explicit(&l->next, l->chunk, memory_order_relaxed);
        if (lo >= l->n) return;
        size_t hi = l->n - lo < l->chunk ? l->n : lo + l->chunk;
        l->fn(l->ctx, worker, lo, hi);
    }
}

static void *par_main(void *arg)
{
    par_thread *t = arg;
    par_run(t->loop, t->worker);
    return NULL;
}

static size_t par_chunk(size_t n, size_t chunk, unsigned nthreads)
{
    if (chunk) return chunk;
    size_t c = n / (4 * (size_t)(nthreads ? nthreads : 1));
    return c ? c : 1;
}

unsigned cuzk_parallel_threads(size_t n, size_t chunk, unsigned nthreads)
{
    size_t c = par_chunk(n, chunk, nthreads), chunks = n / c + (n % c != 0);
    if (nthreads > chunks) nthreads = (unsigned)chunks;
    return nthreads ? nthreads : 1;
}

void cuzk_parallel_for(size_t n, size_t chunk, unsigned nthreads, cuzk_parallel_fn *fn, void *ctx)
{
    if (n == 0) return;
    nthreads = cuzk_parallel_threads(n, chunk, nthreads);
    par_loop l = {.fn = fn, .ctx = ctx, .n = n, .chunk = par_chunk(n, chunk, nthreads)};
    atomic_init(&l.next, 0);
    pthread_t *tid = nthreads > 1 ? malloc((sizeof *tid + sizeof(par_thread)) * (nthreads - 1)) : NULL;
    par_thread *th = tid ? (par_thread *)(tid + (nthreads - 1)) : NULL;
    unsigned started = 0;
    for (unsigned t = 1; tid && t < nthreads; t++) {
        th[started] = (par_thread){.loop = &l, .worker = t};
        if (pthread_create(&tid[started], NULL, par_main, &th[started]) != 0) break;
        started++;
    }
    par_run(&l, 0); /* the caller works too: what failed starts left runs here */
    for (unsigned t = 0; t < started; t++) pthread_join(tid[t], NULL);
    free(tid);
}

unsigned cuzk_parallel_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
