/*
 * cuzk_parallel_for: random lengths, chunk sizes and thread counts; every
 * index is visited exactly once, each call of fn gets a range of at most one
 * chunk, the worker numbers stay below cuzk_parallel_threads and the caller
 * is worker 0, and per-worker sums (the msm's use: state indexed by worker,
 * no lock) add up to the sequential sum.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/parallel.h"
#include "testutil.h"

#define MAX_THREADS 9

typedef struct loop_ctx {
    size_t n, chunk;
    unsigned nthreads;
    atomic_uint *visits;
    atomic_uint bad_range, bad_worker, calls;
    pthread_t caller;
    atomic_uint caller_not_0;
    uint64_t sum[MAX_THREADS]; /* by worker */
} loop_ctx;

static void visit(void *arg, unsigned worker, size_t lo, size_t hi)
{
    loop_ctx *c = arg;
    atomic_fetch_add(&c->calls, 1);
    size_t want = c->chunk ? c->chunk : 1;
    if (lo >= hi || hi > c->n || (c->chunk && hi - lo > want)) atomic_fetch_add(&c->bad_range, 1);
    if (worker >= cuzk_parallel_threads(c->n, c->chunk, c->nthreads)) {
        atomic_fetch_add(&c->bad_worker, 1);
        return;
    }
    if (pthread_equal(pthread_self(), c->caller) != (worker == 0)) atomic_fetch_add(&c->caller_not_0, 1);
    for (size_t i = lo; i < hi && i < c->n; i++) {
        atomic_fetch_add(&c->visits[i], 1);
        c->sum[worker] += i * i + 1;
    }
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_parallel");
    for (int round = 0; round < 400; round++) {
        loop_ctx c = {0};
        unsigned shape = (unsigned)(cuzk_rng_u64(&rng) % 4);
        c.n = shape == 0 ? (size_t)(cuzk_rng_u64(&rng) % 4) : (size_t)(cuzk_rng_u64(&rng) % 20000);
        c.chunk = cuzk_rng_u64(&rng) % 3 == 0 ? 0 : 1 + (size_t)(cuzk_rng_u64(&rng) % (shape == 3 ? 5000 : 40));
        c.nthreads = (unsigned)(cuzk_rng_u64(&rng) % MAX_THREADS); /* 0 .. 8: 0 and 1 run on the caller */
        c.visits = calloc(c.n ? c.n : 1, sizeof *c.visits);
        c.caller = pthread_self();
        cuzk_parallel_for(c.n, c.chunk, c.nthreads, visit, &c);
        size_t missed = 0, twice = 0;
        uint64_t want = 0, got = 0;
        for (size_t i = 0; i < c.n; i++) {
            unsigned v = atomic_load(&c.visits[i]);
            missed += v == 0, twice += v > 1;
            want += i * i + 1;
        }
        for (unsigned w = 0; w < MAX_THREADS; w++) got += c.sum[w];
        CHECK_MSG(!missed && !twice, "n %zu chunk %zu threads %u: %zu missed, %zu twice", c.n, c.chunk,
                  c.nthreads, missed, twice);
        CHECK_MSG(got == want, "n %zu: per-worker sums %llu, want %llu", c.n, (unsigned long long)got,
                  (unsigned long long)want);
        CHECK_MSG(!atomic_load(&c.bad_range) && !atomic_load(&c.bad_worker) && !atomic_load(&c.caller_not_0),
                  "n %zu chunk %zu threads %u: %u bad ranges, %u bad workers, %u caller not worker 0", c.n,
                  c.chunk, c.nthreads, atomic_load(&c.bad_range), atomic_load(&c.bad_worker),
                  atomic_load(&c.caller_not_0));
        if (c.n == 0) CHECK(atomic_load(&c.calls) == 0);
        unsigned t = cuzk_parallel_threads(c.n, c.chunk, c.nthreads);
        CHECK(t >= 1 && t <= (c.nthreads > 1 ? c.nthreads : 1));
        if (c.chunk == 1 && c.n >= c.nthreads && c.nthreads > 1) CHECK(t == c.nthreads);
        free(c.visits);
    }
    return tu_finish("test_parallel");
}
