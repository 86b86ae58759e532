/* What the benchmark programs share: the thread CPU clock (wall time is
 * the library's cuzk_now) and the SHA-256 block circuit of bench_cs and
 * bench_pce. */
#ifndef CUZK_BENCH_UTIL_H
#define CUZK_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cuzk/util/clock.h"
#include "cuzk/ff/fr.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/util/rng.h"

/* CPU seconds of the calling thread: 1-thread figures that hold on a
 * shared, oversubscribed box. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Timing data, cheaply: splitmix64 over a state seeded from a cuzk_rng
 * (dev-2c, memory already touched: bench_fr_random ≈ 4 ns a scalar against
 * ≈ 86 ns for cuzk_fr_random; at 2^26–2^27 scalars the latter was most of
 * bench_gpu's wall time on the device's clock). */
static inline uint64_t bench_mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A random field element for timing runs: four words, the top one below
 * 2^62, so the value is below r and is taken as a Montgomery form as it
 * stands. Not uniform over Fr: for sizes and digits, not for tests. */
static inline void bench_fr_random(cuzk_fr *k, uint64_t *s)
{
    k->l[0] = bench_mix64(s), k->l[1] = bench_mix64(s), k->l[2] = bench_mix64(s);
    k->l[3] = bench_mix64(s) >> 2;
}

/* One SHA-256 block (no padding) over 512 pseudo-random bits from s: a
 * synthesis function for cuzk_cs benchmarks (ctx unused). */
static inline int bench_sha256_block(cuzk_cs *cs, size_t s, void *ctx)
{
    (void)ctx;
    cuzk_bool in[512], out[256];
    uint64_t x = 0x9e3779b97f4a7c15ull * (s + 1);
    for (int i = 0; i < 512; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        in[i] = cuzk_bool_alloc(cs, x & 1);
    }
    cuzk_sha256_block_no_padding(cs, in, out);
    return cuzk_cs_error(cs);
}

#endif
