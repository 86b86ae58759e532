/*
 * NTT over Fr, natural order in and out: radix-4 decimation in frequency
 * (a radix-2 reference network stays for the tests).
 *
 * Forward and inverse both run decimation-in-frequency butterflies on
 * natural-order input, which leaves the output bit-reversed, then one
 * bit-reversal permutation. Radix-2 (Gentleman-Sande): (u, v) -> (u + v,
 * (u - v)·w). Radix-4 fuses two radix-2 stages (half-sizes 2q and q) over
 * x0..x3 = x[j], x[j+q], x[j+2q], x[j+3q] of a group of 4q, with W the
 * group's root (W^q = J, the 4th root of unity):
 *     a = x0 + x2, u = x0 - x2, b = x1 + x3, v = (x1 - x3)·J
 *     x0 = a + b, x1 = (a - b)·W^2j, x2 = (u + v)·W^j, x3 = (u - v)·W^3j
 * which leaves every element where the two radix-2 stages would, with the
 * same value (the field is exact), so the output is bit-identical. The
 * inverse uses w^-e = -w^(N/2 - e) from the same table; the signs are folded
 * into the order of the subtractions, so no negation is ever computed.
 *
 * Cache blocking: the first stages (butterflies spanning more than NTT_BLK
 * elements) are radix-2 full passes over the vector, split over threads by
 * butterfly index (radix-4 full passes measured slower: see
 * ntt_full_stage); the remaining log2(NTT_BLK) stages run radix-4 inside
 * independent blocks of NTT_BLK elements (128 KiB, L2-resident), each block
 * taken through all of them at once with a compact copy of its twiddles
 * (omega^(k·n/NTT_BLK), 64 KiB per thread), blocks shared out over threads.
 * Each pass is a phase on the library's parallel loop, which joins its
 * threads before the next pass starts (ntt_run).
 *
 * Floor. Radix-2: each stage does n/2 butterflies, one multiplication each
 * except the n/(2h) with twiddle 1, so one transform costs
 *     M(n) = (n/2)·log2 n - (n - 1)   Fr multiplications
 * (2^20: 9.4e6; 2^27: 1.68e9). Radix-4 does the same number (4 per
 * butterfly of 4, J included; 1 with j = 0): unlike complex FFTs the
 * multiplication by J is a full one. What it saves is half the loads and
 * stores inside the blocks, where the radix-2 network already ran at about
 * 1.1x the multiplication floor: the gain measured on dev-2c is 0-3 %
 * (bench/bench_ntt), the full passes and the permutation being the rest. At
 * 20-40 ns per Fr multiplication
 * (portable Montgomery on this machine) that is 0.19-0.38 s per 2^20
 * transform and 34-67 s per 2^27 transform on one core; additions, loads and
 * the permutation come on top. Coset scalings add 2n multiplications (x[i]·s^i
 * and the running power), 1/n scaling n. bench_ntt prints M(n) times the
 * measured Fr multiplication latency beside each timing.
 */
#include "cuzk/poly/ntt.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "poly/ntt_internal.h"

#define NTT_LOG_BLK 12
#define NTT_BLK ((size_t)1 << NTT_LOG_BLK)
/* Below this many elements per thread, extra threads cost more than they save. */
#define NTT_MIN_PER_THREAD ((size_t)1 << 12)
#define NTT_MAX_THREADS 256

/* ---- phases over threads ------------------------------------------------ */

typedef void (*ntt_task_fn)(void *ctx, unsigned tid, unsigned nt);

typedef struct {
    ntt_task_fn fn;
    void *ctx;
    unsigned nt;
} ntt_phase;

static void ntt_phase_part(void *p, unsigned worker, size_t lo, size_t hi)
{
    const ntt_phase *ph = p;
    for (size_t t = lo; t < hi; t++) ph->fn(ph->ctx, (unsigned)t, ph->nt);
}

/*
 * One phase: fn(ctx, tid, nt) once for every share tid < nt, on the
 * library's parallel loop (one share per chunk, so the split by tid is the
 * same whichever thread runs a share). The loop returns when every share
 * is done: that is the barrier between one stage and the next, at the cost
 * of starting the threads again (tens of microseconds, against milliseconds
 * for a stage of the sizes that use threads at all, ntt_threads_for).
 */
static void ntt_run(ntt_task_fn fn, void *ctx, unsigned nt)
{
    if (nt > NTT_MAX_THREADS) nt = NTT_MAX_THREADS;
    if (nt <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    ntt_phase ph = {fn, ctx, nt};
    cuzk_parallel_for(nt, 1, nt, ntt_phase_part, &ph);
}

static unsigned ntt_threads_for(size_t n, unsigned nthreads)
{
    size_t cap = n / NTT_MIN_PER_THREAD;
    if (cap < 1) cap = 1;
    if (nthreads < 1) nthreads = 1;
    return (size_t)nthreads < cap ? nthreads : (unsigned)cap;
}

static inline void ntt_range(size_t total, unsigned tid, unsigned nt, size_t *lo, size_t *hi)
{
    *lo = (size_t)((unsigned __int128)total * tid / nt);
    *hi = (size_t)((unsigned __int128)total * (tid + 1) / nt);
}

static inline size_t ntt_bitrev(size_t i, unsigned log_n)
{
    uint64_t x = i;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = __builtin_bswap64(x);
    return log_n ? (size_t)(x >> (64 - log_n)) : 0;
}

/* x[i] <- x[i]·c·s^i for i in [lo, hi); s_is_one skips the running power. */
static void ntt_scale_range(cuzk_fr *x, size_t lo, size_t hi, const cuzk_fr *c, const cuzk_fr *s,
                            bool s_is_one)
{
    if (lo >= hi) return;
    if (s_is_one) {
        for (size_t i = lo; i < hi; i++) cuzk_fr_mul(&x[i], &x[i], c);
        return;
    }
    cuzk_fr p;
    uint64_t e = lo;
    cuzk_fr_pow(&p, s, &e, 1);
    cuzk_fr_mul(&p, &p, c);
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr_mul(&x[i], &x[i], &p);
        cuzk_fr_mul(&p, &p, s);
    }
}

/* ---- the transform ---------------------------------------------------- */

typedef struct {
    const cuzk_ntt_domain *d;
    cuzk_fr *x;
    bool inv;
    bool radix2;                 /* the reference network */
    bool pre, post;              /* scalings before / after the butterflies */
    bool pre_s1, post_s1;        /* s == 1 */
    cuzk_fr pre_c, pre_s, post_c, post_s;
    size_t h; /* the full stage running (ntt_full_stage) */
} ntt_ctx;

/* Twiddle omega^(j·stride) (or its inverse) for a butterfly with j > 0. */
static inline void ntt_butterfly(cuzk_fr *restrict u, cuzk_fr *restrict v, const cuzk_fr *tw, size_t half,
                                 size_t js, bool inv)
{
    cuzk_fr t;
    if (js == 0) {
        cuzk_fr_sub(&t, u, v);
        cuzk_fr_add(u, u, v);
        *v = t;
    } else if (!inv) {
        cuzk_fr_sub(&t, u, v);
        cuzk_fr_add(u, u, v);
        cuzk_fr_mul(v, &t, &tw[js]);
    } else {
        cuzk_fr_sub(&t, v, u);
        cuzk_fr_add(u, u, v);
        cuzk_fr_mul(v, &t, &tw[half - js]);
    }
}

/* All DIF stages with half-size h in [1, blk/2] on one block of blk elements. */
static void ntt_block(cuzk_fr *x, size_t blk, const cuzk_fr *tw, unsigned log_n, bool inv)
{
    size_t half = (size_t)1 << (log_n - 1);
    unsigned log_h = 0;
    while (((size_t)2 << log_h) < blk) log_h++;
    for (size_t h = blk / 2; h >= 1; h >>= 1, log_h--) {
        unsigned sh = log_n - 1 - log_h; /* twiddle index = j << sh */
        for (size_t k = 0; k < blk; k += 2 * h)
            for (size_t j = 0; j < h; j++) ntt_butterfly(&x[k + j], &x[k + j + h], tw, half, j << sh, inv);
        if (log_h == 0) break;
    }
}

/* ---- radix 4 ------------------------------------------------------------ */

/*
 * |w^e| for a circle of N = 2·half points whose table holds w^k, k < half
 * (forward) or whose inverse is read from it (w^-e = w^(N-e)), 0 < e < N;
 * *neg says the twiddle is minus the returned entry.
 */
static inline const cuzk_fr *ntt_tw(const cuzk_fr *tab, size_t half, size_t e, bool inv, bool *neg)
{
    if (inv) e = 2 * half - e;
    *neg = e >= half;
    return *neg ? &tab[e - half] : &tab[e];
}

/* Radix-4 butterfly with j = 0 (W^0 = 1). J = tab[N/4] = w^(N/4); for the
 * inverse, J^-1 = -J, folded into x2, x3. */
static inline void ntt_r4_j0(cuzk_fr *x0, cuzk_fr *x1, cuzk_fr *x2, cuzk_fr *x3, const cuzk_fr *J, bool inv)
{
    cuzk_fr a, b, u, v;
    cuzk_fr_add(&a, x0, x2);
    cuzk_fr_sub(&u, x0, x2);
    cuzk_fr_add(&b, x1, x3);
    cuzk_fr_sub(&v, x1, x3);
    cuzk_fr_mul(&v, &v, J);
    cuzk_fr_add(x0, &a, &b);
    cuzk_fr_sub(x1, &a, &b);
    if (!inv) {
        cuzk_fr_add(x2, &u, &v);
        cuzk_fr_sub(x3, &u, &v);
    } else {
        cuzk_fr_sub(x2, &u, &v);
        cuzk_fr_add(x3, &u, &v);
    }
}

/* The three twiddles of a radix-4 butterfly with exponent e1 = j·(N/4q) > 0
 * on a circle of N = 2·half (e1 < N/4); n2, n3: W^2j, W^3j are negated
 * entries (W^j is not for the forward transform, always is for the inverse,
 * see ntt_r4). */
typedef struct {
    const cuzk_fr *w1, *w2, *w3;
    bool n2, n3;
} ntt_tw3;

static inline void ntt_tw3_get(ntt_tw3 *t, const cuzk_fr *tab, size_t half, size_t e1, bool inv)
{
    bool n1;
    t->w1 = ntt_tw(tab, half, e1, inv, &n1);
    t->w2 = ntt_tw(tab, half, 2 * e1, inv, &t->n2);
    t->w3 = ntt_tw(tab, half, 3 * e1, inv, &t->n3);
}

/*
 * Radix-4 butterfly with j > 0. Forward: W^j, W^2j are table entries as
 * they are, W^3j may be negated. Inverse: W^-j and W^-2j are always negated
 * entries (0 < e <= N/2), and with J^-1 = -J: x2 = (u + v·J^-1)·W^-j =
 * (ū + v)·|W^-j| where ū = x2 - x0 and v = (x1 - x3)·J; x3 = (u - v·J^-1)·W^-3j
 * = (v - ū)·W^-3j.
 */
static inline void ntt_r4(cuzk_fr *x0, cuzk_fr *x1, cuzk_fr *x2, cuzk_fr *x3, const ntt_tw3 *w, const cuzk_fr *J,
                          bool inv)
{
    cuzk_fr a, b, u, v, t;
    cuzk_fr_add(&a, x0, x2);
    if (!inv) cuzk_fr_sub(&u, x0, x2);
    else cuzk_fr_sub(&u, x2, x0); /* ū = -u */
    cuzk_fr_add(&b, x1, x3);
    cuzk_fr_sub(&v, x1, x3);
    cuzk_fr_mul(&v, &v, J);
    cuzk_fr_add(x0, &a, &b);
    if (w->n2) cuzk_fr_sub(&t, &b, &a);
    else cuzk_fr_sub(&t, &a, &b);
    cuzk_fr_mul(x1, &t, w->w2);
    cuzk_fr_add(&t, &u, &v);
    cuzk_fr_mul(x2, &t, w->w1);
    if (w->n3 == inv) cuzk_fr_sub(&t, &u, &v); /* forward u - v; inverse, negated W: ū - v */
    else cuzk_fr_sub(&t, &v, &u);
    cuzk_fr_mul(x3, &t, w->w3);
}

/* Radix-4 passes over groups of 4q <= 2^log_g down to groups of 4, inside
 * x[0, N) with twiddles of the circle N = 2·half from tab. */
static void ntt_r4_passes(cuzk_fr *x, size_t len, unsigned log_g, const cuzk_fr *tab, size_t half, bool inv)
{
    const size_t N = 2 * half;
    const cuzk_fr *J = &tab[N / 4];
    for (size_t g = (size_t)1 << log_g; g >= 4; g >>= 2) {
        size_t q = g / 4, st = N / g;
        for (size_t k = 0; k < len; k += g) {
            cuzk_fr *y = x + k;
            ntt_r4_j0(&y[0], &y[q], &y[2 * q], &y[3 * q], J, inv);
            for (size_t j = 1; j < q; j++) {
                ntt_tw3 w;
                ntt_tw3_get(&w, tab, half, j * st, inv);
                ntt_r4(&y[j], &y[j + q], &y[j + 2 * q], &y[j + 3 * q], &w, J, inv);
            }
        }
    }
}

/* Every remaining stage of one block of 2^log_b elements (the whole vector
 * when n <= NTT_BLK), twiddles of the block's circle from tab. */
static void ntt_block_r4(cuzk_fr *x, unsigned log_b, const cuzk_fr *tab, bool inv)
{
    size_t N = (size_t)1 << log_b, half = N / 2;
    if (log_b & 1) { /* odd: one radix-2 stage first */
        for (size_t j = 0; j < half; j++) ntt_butterfly(&x[j], &x[j + half], tab, half, j, inv);
        log_b--;
    }
    if (N >= 4) ntt_r4_passes(x, N, log_b, tab, half, inv);
}

/*
 * One of the radix-2 full passes shared by both networks, half-size c->h:
 * every stage whose butterflies span more than a block (h >= NTT_BLK) is
 * one, butterfly b
 * -> group k = b / h, offset j = b % h, split over threads by b. Radix-4
 * full passes were measured slower here (on dev-2c, 2^18-2^20: +8..15 %
 * with j-major order, far more in butterfly order, where W^j, W^2j, W^3j
 * each read a new twiddle line per butterfly): these passes are bound by
 * memory access, which two sequential streams serve best.
 */
static void ntt_full_stage(void *p, unsigned tid, unsigned nt)
{
    ntt_ctx *c = p;
    const cuzk_ntt_domain *d = c->d;
    cuzk_fr *x = c->x;
    const size_t half = d->n / 2, h = c->h;
    const unsigned log_n = d->log_n;
    unsigned log_h = 0;
    while (((size_t)1 << log_h) < h) log_h++;
    unsigned sh = log_n - 1 - log_h;
    size_t lo, hi;
    ntt_range(half, tid, nt, &lo, &hi);
    size_t k = lo >> log_h, j = lo & (h - 1);
    for (size_t b = lo; b < hi; b++) {
        size_t i = (k << (log_h + 1)) + j;
        ntt_butterfly(&x[i], &x[i + h], d->tw, half, j << sh, c->inv);
        if (++j == h) {
            j = 0;
            k++;
        }
    }
}

/* The blocks of NTT_BLK (all of x when it is shorter): radix 4, twiddles
 * omega^(k·n/NTT_BLK) copied close by. */
static void ntt_blocks_r4(void *p, unsigned tid, unsigned nt)
{
    ntt_ctx *c = p;
    const cuzk_ntt_domain *d = c->d;
    const size_t n = d->n;
    size_t lo, hi;
    if (n <= NTT_BLK) {
        if (tid == 0) ntt_block_r4(c->x, d->log_n, d->tw, c->inv);
        return;
    }
    cuzk_fr tb[NTT_BLK / 2];
    const size_t stride = n / NTT_BLK;
    ntt_range(n / NTT_BLK, tid, nt, &lo, &hi);
    if (lo < hi)
        for (size_t k = 0; k < NTT_BLK / 2; k++) tb[k] = d->tw[k * stride];
    for (size_t bi = lo; bi < hi; bi++) ntt_block_r4(c->x + bi * NTT_BLK, NTT_LOG_BLK, tb, c->inv);
}

/* ---- radix 2 (reference) ------------------------------------------------ */

static void ntt_blocks_r2(void *p, unsigned tid, unsigned nt)
{
    ntt_ctx *c = p;
    const cuzk_ntt_domain *d = c->d;
    size_t n = d->n, lo, hi;
    size_t blk = n < NTT_BLK ? n : NTT_BLK;
    ntt_range(n / blk, tid, nt, &lo, &hi);
    for (size_t bi = lo; bi < hi; bi++) ntt_block(c->x + bi * blk, blk, d->tw, d->log_n, c->inv);
}

static void ntt_pre_scale(void *p, unsigned tid, unsigned nt)
{
    ntt_ctx *c = p;
    size_t lo, hi;
    ntt_range(c->d->n, tid, nt, &lo, &hi);
    ntt_scale_range(c->x, lo, hi, &c->pre_c, &c->pre_s, c->pre_s1);
}

/* Bit reversal: the pair (i, rev i) belongs to whoever owns min(i, rev i). */
static void ntt_bit_reverse(void *p, unsigned tid, unsigned nt)
{
    ntt_ctx *c = p;
    cuzk_fr *x = c->x;
    size_t lo, hi;
    ntt_range(c->d->n, tid, nt, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        size_t r = ntt_bitrev(i, c->d->log_n);
        if (i < r) {
            cuzk_fr t = x[i];
            x[i] = x[r];
            x[r] = t;
        }
    }
}

static void ntt_post_scale(void *p, unsigned tid, unsigned nt)
{
    ntt_ctx *c = p;
    size_t lo, hi;
    ntt_range(c->d->n, tid, nt, &lo, &hi);
    ntt_scale_range(c->x, lo, hi, &c->post_c, &c->post_s, c->post_s1);
}

/* The transform as phases, each over every thread and done before the next:
 * the scaling before, the full stages, the blocks, the bit reversal, the
 * scaling after. */
static void ntt_phases(ntt_ctx *c, unsigned nt)
{
    const size_t n = c->d->n;
    if (c->pre) ntt_run(ntt_pre_scale, c, nt);
    if (n <= 1) {
        if (c->post) ntt_run(ntt_post_scale, c, nt);
        return;
    }
    for (c->h = n / 2; c->h >= NTT_BLK; c->h >>= 1) ntt_run(ntt_full_stage, c, nt);
    ntt_run(c->radix2 ? ntt_blocks_r2 : ntt_blocks_r4, c, nt);
    ntt_run(ntt_bit_reverse, c, nt);
    if (c->post) ntt_run(ntt_post_scale, c, nt);
}

static void ntt_transform_x(const cuzk_ntt_domain *d, cuzk_fr *x, bool inv, bool radix2, const cuzk_fr *pre_c,
                            const cuzk_fr *pre_s, const cuzk_fr *post_c, const cuzk_fr *post_s,
                            unsigned nthreads)
{
    ntt_ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.x = x;
    c.inv = inv;
    c.radix2 = radix2;
    if (pre_c) {
        c.pre = true;
        c.pre_c = *pre_c;
        c.pre_s1 = pre_s == NULL;
        if (pre_s) c.pre_s = *pre_s;
    }
    if (post_c) {
        c.post = true;
        c.post_c = *post_c;
        c.post_s1 = post_s == NULL;
        if (post_s) c.post_s = *post_s;
    }
    ntt_phases(&c, ntt_threads_for(d->n, nthreads));
}

static void ntt_transform(const cuzk_ntt_domain *d, cuzk_fr *x, bool inv, const cuzk_fr *pre_c,
                          const cuzk_fr *pre_s, const cuzk_fr *post_c, const cuzk_fr *post_s,
                          unsigned nthreads)
{
    ntt_transform_x(d, x, inv, false, pre_c, pre_s, post_c, post_s, nthreads);
}

void cuzk_ntt_radix2_ref(const cuzk_ntt_domain *d, cuzk_fr *x, bool inverse, unsigned nthreads)
{
    ntt_transform_x(d, x, inverse, true, NULL, NULL, inverse ? &d->n_inv : NULL, NULL, nthreads);
}

/* ---- domain ----------------------------------------------------------- */

typedef struct {
    cuzk_fr *tw;
    size_t m;
    cuzk_fr omega;
} tw_ctx;

static void tw_task(void *p, unsigned tid, unsigned nt)
{
    tw_ctx *c = p;
    size_t lo, hi;
    ntt_range(c->m, tid, nt, &lo, &hi);
    if (lo >= hi) return;
    uint64_t e = lo;
    cuzk_fr w;
    cuzk_fr_pow(&w, &c->omega, &e, 1);
    for (size_t j = lo; j < hi; j++) {
        c->tw[j] = w;
        cuzk_fr_mul(&w, &w, &c->omega);
    }
}

int cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned log_n, cuzk_fr_generator gen, unsigned nthreads)
{
    memset(d, 0, sizeof *d);
    if (log_n > CUZK_NTT_MAX_LOG || (gen != CUZK_FR_GEN_FILECOIN && gen != CUZK_FR_GEN_SNARKJS))
        return CUZK_ERR_INVALID_ARG;
    int err = cuzk_fr_root_of_unity(&d->omega, log_n, gen);
    if (err) return err;
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    d->gen = gen;
    cuzk_fr_inv(&d->omega_inv, &d->omega);
    cuzk_fr nf;
    cuzk_fr_set_u64(&nf, d->n);
    cuzk_fr_inv(&d->n_inv, &nf);
    cuzk_fr_generator_get(&d->g, gen);
    cuzk_fr_inv(&d->g_inv, &d->g);
    /* g^n - 1 != 0: g has order r - 1, which n = 2^log_n < r - 1 does not reach. */
    cuzk_fr gn;
    uint64_t e = d->n;
    cuzk_fr_pow(&gn, &d->g, &e, 1);
    cuzk_fr_sub(&gn, &gn, &cuzk_fr_one);
    cuzk_fr_inv(&d->z_inv, &gn);
    if (d->n > 1) {
        size_t m = d->n / 2;
        d->tw = malloc(m * sizeof(cuzk_fr));
        if (!d->tw) return CUZK_ERR_NO_MEMORY;
        tw_ctx c = {d->tw, m, d->omega};
        ntt_run(tw_task, &c, ntt_threads_for(m, nthreads));
    }
    return CUZK_OK;
}

void cuzk_ntt_domain_free(cuzk_ntt_domain *d)
{
    free(d->tw);
    memset(d, 0, sizeof *d);
}

/* ---- public transforms -------------------------------------------------- */

void cuzk_ntt_forward(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads)
{
    ntt_transform(d, x, false, NULL, NULL, NULL, NULL, nthreads);
}

void cuzk_ntt_inverse(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads)
{
    ntt_transform(d, x, true, NULL, NULL, &d->n_inv, NULL, nthreads);
}

void cuzk_ntt_coset_forward(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads)
{
    ntt_transform(d, x, false, &cuzk_fr_one, &d->g, NULL, NULL, nthreads);
}

void cuzk_ntt_coset_inverse(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads)
{
    ntt_transform(d, x, true, NULL, NULL, &d->n_inv, &d->g_inv, nthreads);
}

typedef struct {
    cuzk_fr *a;
    const cuzk_fr *b, *c;
    size_t n;
    cuzk_fr k;
} pw_ctx;

static void zdiv_task(void *p, unsigned tid, unsigned nt)
{
    pw_ctx *c = p;
    size_t lo, hi;
    ntt_range(c->n, tid, nt, &lo, &hi);
    ntt_scale_range(c->a, lo, hi, &c->k, NULL, true);
}

void cuzk_ntt_divide_by_z_on_coset(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads)
{
    pw_ctx c = {x, NULL, NULL, d->n, d->z_inv};
    ntt_run(zdiv_task, &c, ntt_threads_for(d->n, nthreads));
}

/* a[i] <- a[i]·b[i] - c[i] */
static void abc_task(void *p, unsigned tid, unsigned nt)
{
    pw_ctx *c = p;
    size_t lo, hi;
    ntt_range(c->n, tid, nt, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr_mul(&c->a[i], &c->a[i], &c->b[i]);
        cuzk_fr_sub(&c->a[i], &c->a[i], &c->c[i]);
    }
}

size_t cuzk_ntt_groth16_h(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                          unsigned nthreads)
{
    /* iNTT then coset NTT: the 1/n of the iNTT and the g^i of the coset
     * step are one scaling pass between the two butterfly networks. */
    cuzk_fr *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        ntt_transform(d, v[k], true, NULL, NULL, NULL, NULL, nthreads);
        ntt_transform(d, v[k], false, &d->n_inv, &d->g, NULL, NULL, nthreads);
    }
    pw_ctx pc = {a, b, c, d->n, cuzk_fr_zero};
    ntt_run(abc_task, &pc, ntt_threads_for(d->n, nthreads));
    /* Division by the constant Z on the coset commutes with the (linear)
     * inverse transform: fold z_inv into its final 1/n·g^-i scaling. */
    cuzk_fr k;
    cuzk_fr_mul(&k, &d->n_inv, &d->z_inv);
    ntt_transform(d, a, true, NULL, NULL, &k, &d->g_inv, nthreads);
    return d->n - 1;
}

void cuzk_ntt_groth16_h_odd(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                            unsigned nthreads)
{
    /* The iNTT's 1/n and the w^i shift are one scaling pass. */
    cuzk_fr w;
    cuzk_fr_root_of_unity(&w, d->log_n + 1, d->gen);
    cuzk_fr *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        ntt_transform(d, v[k], true, NULL, NULL, NULL, NULL, nthreads);
        ntt_transform(d, v[k], false, &d->n_inv, &w, NULL, NULL, nthreads);
    }
    pw_ctx pc = {a, b, c, d->n, cuzk_fr_zero};
    ntt_run(abc_task, &pc, ntt_threads_for(d->n, nthreads));
}
