/* A vector of Fr packed by value class (cuzk/ff/fr_packed.h). */
#include "cuzk/ff/fr_packed.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"

static const cuzk_fr plain_one = {{1, 0, 0, 0}};

const cuzk_fr *cuzk_fr_packed_one(bool plain) { return plain ? &plain_one : &cuzk_fr_one; }

static inline unsigned fr_class(const cuzk_fr *x, const cuzk_fr *one)
{
    return cuzk_fr_is_zero(x) ? CUZK_FR_PACKED_ZERO : cuzk_fr_eq(x, one) ? CUZK_FR_PACKED_ONE : CUZK_FR_PACKED_GENERAL;
}

/* Two passes over the words [lo, hi) of each thread's share: their codes
 * and general counts, then (the counts scanned) their general values put
 * in place; the second reads only the general entries. */
typedef struct pack_ctx {
    cuzk_fr_packed *p;
    const cuzk_fr *v;
    const cuzk_fr *one;
} pack_ctx;

static void pack_code(void *ctx, unsigned worker, size_t lo, size_t hi)
{
    const pack_ctx *k = ctx;
    (void)worker;
    for (size_t w = lo; w < hi; w++) {
        const size_t a = w * 32, b = a + 32 < k->p->n ? a + 32 : k->p->n;
        uint64_t word = 0;
        uint32_t gen = 0;
        for (size_t i = a; i < b; i++) {
            const unsigned c = fr_class(&k->v[i], k->one);
            word |= (uint64_t)c << (2 * (i - a));
            gen += c == CUZK_FR_PACKED_GENERAL;
        }
        k->p->codes[w] = word, k->p->before[w] = gen;
    }
}

static void pack_place(void *ctx, unsigned worker, size_t lo, size_t hi)
{
    const pack_ctx *k = ctx;
    (void)worker;
    for (size_t w = lo; w < hi; w++) {
        uint64_t high = k->p->codes[w] & 0xaaaaaaaaaaaaaaaaull;
        for (size_t g = k->p->before[w]; high; high &= high - 1)
            k->p->gen[g++] = k->v[w * 32 + (size_t)__builtin_ctzll(high) / 2];
    }
}

int cuzk_fr_pack_threads(cuzk_fr_packed *out, const cuzk_fr *v, size_t n, bool plain, unsigned nthreads)
{
    if (!out || (n && !v)) return CUZK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->n = n, out->plain = plain;
    const size_t nw = (n + 31) / 32;
    out->codes = malloc((nw ? nw : 1) * sizeof *out->codes);
    out->before = malloc((nw ? nw : 1) * sizeof *out->before);
    if (!out->codes || !out->before) {
        cuzk_fr_packed_free(out);
        return CUZK_ERR_NO_MEMORY;
    }
    pack_ctx k = {out, v, cuzk_fr_packed_one(plain)};
    cuzk_parallel_for(nw, 4096, nthreads, pack_code, &k);
    size_t total = 0; /* the counts become the counts before each word */
    for (size_t w = 0; w < nw; w++) {
        const uint32_t c = out->before[w];
        out->before[w] = (uint32_t)total;
        total += c;
    }
    if (total > UINT32_MAX) { /* every count before a word is at most the total */
        cuzk_fr_packed_free(out);
        return CUZK_ERR_INVALID_ARG;
    }
    out->n_gen = total;
    if (!(out->gen = malloc((total ? total : 1) * sizeof *out->gen))) {
        cuzk_fr_packed_free(out);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_parallel_for(nw, 4096, nthreads, pack_place, &k);
    return CUZK_OK;
}

size_t cuzk_fr_packed_general_sample(const cuzk_fr *v, size_t n, bool plain, size_t samples, size_t *taken)
{
    const size_t m = samples < n ? samples : n;
    const cuzk_fr *one = cuzk_fr_packed_one(plain);
    size_t gen = 0;
    for (size_t k = 0; k < m; k++) /* k·n/m < n */
        gen += fr_class(&v[(size_t)((unsigned __int128)k * n / m)], one) >= CUZK_FR_PACKED_GENERAL;
    if (taken) *taken = m;
    return gen;
}

int cuzk_fr_pack(cuzk_fr_packed *out, const cuzk_fr *v, size_t n, bool plain)
{
    return cuzk_fr_pack_threads(out, v, n, plain, 1);
}

void cuzk_fr_packed_get(cuzk_fr *out, const cuzk_fr_packed *p, size_t i)
{
    const uint64_t word = p->codes[i / 32];
    const unsigned sh = 2 * (unsigned)(i % 32), c = (unsigned)(word >> sh) & 3u;
    if (c == CUZK_FR_PACKED_ZERO) {
        *out = cuzk_fr_zero;
    } else if (c == CUZK_FR_PACKED_ONE) {
        *out = *cuzk_fr_packed_one(p->plain);
    } else { /* the general values of this word below entry i: the high bits of their codes */
        const uint64_t high = word & 0xaaaaaaaaaaaaaaaaull & ((1ull << sh) - 1);
        *out = p->gen[p->before[i / 32] + (size_t)__builtin_popcountll(high)];
    }
}

void cuzk_fr_unpack(cuzk_fr *out, const cuzk_fr_packed *p)
{
    const cuzk_fr *one = cuzk_fr_packed_one(p->plain);
    size_t g = 0;
    for (size_t i = 0; i < p->n; i++) {
        const unsigned c = (unsigned)(p->codes[i / 32] >> (2 * (i % 32))) & 3u;
        out[i] = c == CUZK_FR_PACKED_ZERO ? cuzk_fr_zero : c == CUZK_FR_PACKED_ONE ? *one : p->gen[g++];
    }
}

size_t cuzk_fr_packed_bytes(const cuzk_fr_packed *p)
{
    const size_t nw = (p->n + 31) / 32;
    return nw * (sizeof *p->codes + sizeof *p->before) + p->n_gen * sizeof *p->gen;
}

void cuzk_fr_packed_free(cuzk_fr_packed *p)
{
    if (!p) return;
    free(p->codes), free(p->before), free(p->gen);
    p->codes = NULL, p->before = NULL, p->gen = NULL;
    p->n = p->n_gen = 0;
}
