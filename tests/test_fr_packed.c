/* Fr vectors packed by value class: round trips in both forms at every
 * word boundary, entry by entry against the vector itself, the sizes and
 * counts the format promises, values next to 0 and 1 kept general, and the
 * sample that judges whether packing pays. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fr_packed.h"
#include "testutil.h"

static cuzk_rng rng;

/* n entries: zeros, ones (in the form asked) and random values in the
 * proportions given (per 1000), plus the values one off 0 and 1 */
static void fill(cuzk_fr *v, size_t n, bool plain, unsigned zero_pm, unsigned one_pm, size_t *gen)
{
    const cuzk_fr pone = {{1, 0, 0, 0}}, *one = plain ? &pone : &cuzk_fr_one;
    *gen = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned r = (unsigned)(cuzk_rng_u64(&rng) % 1000);
        if (r < zero_pm) {
            v[i] = cuzk_fr_zero;
        } else if (r < zero_pm + one_pm) {
            v[i] = *one;
        } else {
            cuzk_fr_random(&v[i], &rng);
            switch (cuzk_rng_u64(&rng) % 8) { /* near misses: general, not 0 or 1 */
            case 0: v[i] = *one, v[i].l[3] ^= 1ull << 60; break;
            case 1: v[i] = cuzk_fr_zero, v[i].l[2] = 1; break;
            case 2: v[i] = plain ? cuzk_fr_one : pone; break; /* the other form's one */
            default: break;
            }
            ++*gen;
        }
    }
}

int main(void)
{
    tu_init(&rng, "test_fr_packed");
    static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 1000, 4097};
    static const unsigned mix[][2] = {{514, 473}, {0, 0}, {1000, 0}, {0, 1000}, {500, 500}, {100, 100}};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        for (size_t mi = 0; mi < sizeof mix / sizeof *mix; mi++) {
            for (int plain = 0; plain < 2; plain++) {
                const size_t n = sizes[si];
                cuzk_fr *v = malloc((n + 1) * sizeof *v), *u = malloc((n + 1) * sizeof *u);
                size_t gen;
                fill(v, n, plain, mix[mi][0], mix[mi][1], &gen);
                cuzk_fr_packed p;
                int rc = cuzk_fr_pack(&p, v, n, plain);
                CHECK_MSG(rc == CUZK_OK, "pack n %zu: %d", n, rc);
                if (rc) continue;
                CHECK_MSG(p.n == n && p.n_gen == gen && p.plain == plain, "n %zu: %zu general, %zu expected", n,
                          p.n_gen, gen);
                const size_t nw = (n + 31) / 32;
                CHECK(cuzk_fr_packed_bytes(&p) == nw * 12 + gen * sizeof(cuzk_fr));
                memset(u, 0xa5, (n + 1) * sizeof *u);
                cuzk_fr_unpack(u, &p);
                CHECK_MSG(memcmp(u, v, n * sizeof *v) == 0, "round trip n %zu mix %zu plain %d", n, mi, plain);
                CHECK(((const uint8_t *)(u + n))[0] == 0xa5); /* nothing past n written */
                for (size_t i = 0; i < n; i++) {
                    cuzk_fr x;
                    cuzk_fr_packed_get(&x, &p, i);
                    if (memcmp(&x, &v[i], sizeof x)) {
                        CHECK_MSG(0, "entry %zu of %zu differs (mix %zu, plain %d)", i, n, mi, plain);
                        break;
                    }
                }
                /* the codes: exactly the general entries have the high bit */
                size_t high = 0;
                for (size_t w = 0; w < nw; w++) {
                    high += (size_t)__builtin_popcountll(p.codes[w] & 0xaaaaaaaaaaaaaaaaull);
                    if (w + 1 < nw) CHECK(p.before[w + 1] - p.before[w] <= 32);
                }
                CHECK(high == gen);
                if (n % 32) CHECK(p.codes[nw - 1] >> (2 * (n % 32)) == 0); /* no codes past n */
                /* on threads: the very same arrays */
                for (unsigned t = 2; t <= 5; t += 3) {
                    cuzk_fr_packed q;
                    CHECK(cuzk_fr_pack_threads(&q, v, n, plain, t) == CUZK_OK);
                    CHECK_MSG(q.n == p.n && q.n_gen == p.n_gen && q.plain == p.plain &&
                                  !memcmp(q.codes, p.codes, nw * sizeof *q.codes) &&
                                  !memcmp(q.before, p.before, nw * sizeof *q.before) &&
                                  !memcmp(q.gen, p.gen, gen * sizeof *q.gen),
                              "%u threads, n %zu: another packing", t, n);
                    cuzk_fr_packed_free(&q);
                }
                cuzk_fr_packed_free(&p);
                cuzk_fr_packed_free(&p); /* twice: harmless */
                CHECK(p.codes == NULL && p.gen == NULL && p.n == 0);
                free(v), free(u);
            }
        }
    }
    /* a large vector in the 32 GiB PoRep aux's proportions: the size it promises */
    {
        const size_t n = 1u << 20;
        cuzk_fr *v = malloc(n * sizeof *v), *u = malloc(n * sizeof *u);
        size_t gen;
        fill(v, n, false, 514, 473, &gen);
        cuzk_fr_packed p;
        CHECK(cuzk_fr_pack_threads(&p, v, n, false, 4) == CUZK_OK); /* many words a thread's chunk */
        cuzk_fr_unpack(u, &p);
        CHECK(memcmp(u, v, n * sizeof *v) == 0);
        const double ratio = (double)(n * sizeof(cuzk_fr)) / (double)cuzk_fr_packed_bytes(&p);
        printf("2^20 entries, %.1f %% general: %zu bytes packed, %.1fx smaller\n", 100.0 * gen / n,
               cuzk_fr_packed_bytes(&p), ratio);
        CHECK_MSG(ratio > 10, "%.1fx", ratio);
        cuzk_fr_packed_free(&p);
        free(v), free(u);
    }
    /* the sample that decides whether packing pays: every entry when it
     * asks for as many as there are, the share of general values near the
     * vector's when it takes fewer, and none taken of nothing */
    {
        const size_t n = 100000;
        cuzk_fr *v = malloc(n * sizeof *v);
        for (int plain = 0; plain < 2; plain++) {
            static const unsigned mixes[][2] = {{514, 473}, {0, 0}, {200, 100}, {1000, 0}};
            for (size_t mi = 0; mi < sizeof mixes / sizeof *mixes; mi++) {
                size_t gen, taken;
                fill(v, n, plain, mixes[mi][0], mixes[mi][1], &gen);
                CHECK(cuzk_fr_packed_general_sample(v, n, plain, n, &taken) == gen && taken == n);
                CHECK(cuzk_fr_packed_general_sample(v, n, plain, 10 * n, &taken) == gen && taken == n);
                const size_t g = cuzk_fr_packed_general_sample(v, n, plain, 4096, &taken);
                const double want = (double)gen / n, got = (double)g / (double)taken;
                CHECK_MSG(taken == 4096 && got > want - 0.05 && got < want + 0.05, "sampled %.3f, whole %.3f (plain %d)",
                          got, want, plain);
            }
            /* the last entry is never sampled: k·n/m < n */
            for (size_t i = 0; i < n; i++) v[i] = cuzk_fr_zero;
            cuzk_fr_random(&v[n - 1], &rng);
            size_t taken;
            CHECK(cuzk_fr_packed_general_sample(v, n, plain, 1000, &taken) == 0 && taken == 1000);
            CHECK(cuzk_fr_packed_general_sample(v, n, plain, n, &taken) == 1);
        }
        size_t taken = 7;
        CHECK(cuzk_fr_packed_general_sample(NULL, 0, false, 100, &taken) == 0 && taken == 0);
        free(v);
    }
    CHECK(cuzk_fr_pack(NULL, NULL, 0, false) == CUZK_ERR_INVALID_ARG);
    cuzk_fr_packed p;
    CHECK(cuzk_fr_pack(&p, NULL, 5, false) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_fr_pack_threads(&p, NULL, 5, false, 4) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_fr_pack(&p, NULL, 0, true) == CUZK_OK && p.n == 0 && p.n_gen == 0);
    cuzk_fr_packed_free(&p);
    return tu_finish("test_fr_packed");
}
