/* Poseidon constants (neptune 11's derivation) and the native hash. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gadgets/poseidon.h"

/* ---- round numbers (neptune round_numbers.rs, f32 arithmetic as there) --- */

static int rounds_secure(unsigned t, unsigned rf, unsigned rp)
{
    const float n = 256.0f, m = 128.0f; /* neptune uses 256 bits for BLS12-381 */
    float ft = (float)t, frp = (float)rp;
    float rf_stat = m <= (n - 3.0f) * (ft + 1.0f) ? 6.0f : 10.0f;
    float rf_interp = 0.43f * m + log2f(ft) - frp;
    float rf_grob_1 = 0.21f * n - frp;
    float rf_grob_2 = (0.14f * n - 1.0f - frp) / (ft - 1.0f);
    float c[4] = {rf_stat, rf_interp, rf_grob_1, rf_grob_2};
    long max = 0;
    for (int i = 0; i < 4; i++) {
        float v = ceilf(c[i]);
        long lv = v < 0 ? 0 : (long)v; /* Rust's float->usize cast saturates at 0 */
        if (lv > max) max = lv;
    }
    return (long)rf >= max;
}

void cuzk_poseidon_round_numbers(unsigned arity, unsigned *rf_out, unsigned *rp_out)
{
    unsigned t = arity + 1, rf = 0, rp = 0;
    unsigned long best = (unsigned long)-1;
    for (unsigned rf0 = 2; rf0 <= 1000; rf0 += 2) {
        /* neptune adds the margin to its loop variable, so RF keeps growing
         * within one outer iteration; replicated as is. */
        unsigned rf_test = rf0;
        for (unsigned rp_test = 4; rp_test < 200; rp_test++) {
            if (!rounds_secure(t, rf_test, rp_test)) continue;
            rf_test += 2;
            unsigned p = (unsigned)ceilf(1.075f * (float)rp_test);
            unsigned long cost = (unsigned long)t * rf_test + p;
            if (cost < best || (cost == best && rf_test < rf)) {
                rf = rf_test;
                rp = p;
                best = cost;
            }
        }
    }
    *rf_out = rf;
    *rp_out = rp;
}

/* ---- Grain LFSR (neptune round_constants.rs) ----------------------------- */

typedef struct grain {
    uint8_t s[80];
    unsigned head; /* s[head] is bit 0 of the window */
} grain;

static int grain_step(grain *g)
{
    static const unsigned taps[6] = {62, 51, 38, 23, 13, 0};
    int b = 0;
    for (int i = 0; i < 6; i++) b ^= g->s[(g->head + taps[i]) % 80];
    g->s[g->head] = (uint8_t)b; /* drop bit 0, append the new bit */
    g->head = (g->head + 1) % 80;
    return b;
}

/* Self-shrinking output: pairs (a, b), emit b when a is 1. */
static int grain_next(grain *g)
{
    while (!grain_step(g)) grain_step(g);
    return grain_step(g);
}

static void grain_push(grain *g, unsigned *pos, unsigned nbits, uint64_t v)
{
    for (int i = (int)nbits - 1; i >= 0; i--) g->s[(*pos)++] = (v >> i) & 1;
}

void cuzk_poseidon_grain_constants(cuzk_fr *out, unsigned t, unsigned rf, unsigned rp)
{
    grain g = {.head = 0};
    unsigned pos = 0;
    grain_push(&g, &pos, 2, 1);    /* field: GF(p) */
    grain_push(&g, &pos, 4, 1);    /* S-box id as neptune passes it */
    grain_push(&g, &pos, 12, 255); /* field size in bits */
    grain_push(&g, &pos, 12, t);
    grain_push(&g, &pos, 10, rf);
    grain_push(&g, &pos, 10, rp);
    grain_push(&g, &pos, 30, 0x3fffffff);
    for (int i = 0; i < 160; i++) grain_step(&g);
    size_t n = (size_t)(rf + rp) * t;
    for (size_t k = 0; k < n;) {
        /* 255 bits, most significant first: 7 bits then 31 bytes. */
        uint8_t be[32];
        for (int i = 0; i < 32; i++) {
            int nb = i == 0 ? 7 : 8;
            uint8_t acc = 0;
            for (int j = 0; j < nb; j++) acc = (uint8_t)(acc << 1 | grain_next(&g));
            be[i] = acc;
        }
        if (cuzk_fr_from_be32(&out[k], be) == 0) k++; /* reject >= r and draw again */
    }
}

/* ---- small dense matrices (row-major, n x n) ----------------------------- */

#define M_(a, n, i, j) ((a)[(size_t)(i) * (n) + (j)])

/* r = a·b (r distinct from a and b). */
static void mat_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            cuzk_fr acc = cuzk_fr_zero, t;
            for (unsigned k = 0; k < n; k++) {
                cuzk_fr_mul(&t, &M_(a, n, i, k), &M_(b, n, k, j));
                cuzk_fr_add(&acc, &acc, &t);
            }
            M_(r, n, i, j) = acc;
        }
}

/* Gauss-Jordan inverse (the inverse is unique, so the method does not matter). */
static int mat_inv(cuzk_fr *out, const cuzk_fr *m, unsigned n)
{
    cuzk_fr *a = malloc(sizeof(cuzk_fr) * n * n);
    if (!a) return CUZK_ERR_NO_MEMORY;
    memcpy(a, m, sizeof(cuzk_fr) * n * n);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) M_(out, n, i, j) = i == j ? cuzk_fr_one : cuzk_fr_zero;
    for (unsigned c = 0; c < n; c++) {
        unsigned p = c;
        while (p < n && cuzk_fr_is_zero(&M_(a, n, p, c))) p++;
        if (p == n) {
            free(a);
            return CUZK_ERR_INTERNAL;
        }
        if (p != c)
            for (unsigned j = 0; j < n; j++) {
                cuzk_fr t = M_(a, n, p, j);
                M_(a, n, p, j) = M_(a, n, c, j);
                M_(a, n, c, j) = t;
                t = M_(out, n, p, j);
                M_(out, n, p, j) = M_(out, n, c, j);
                M_(out, n, c, j) = t;
            }
        cuzk_fr inv;
        cuzk_fr_inv(&inv, &M_(a, n, c, c));
        for (unsigned j = 0; j < n; j++) {
            cuzk_fr_mul(&M_(a, n, c, j), &M_(a, n, c, j), &inv);
            cuzk_fr_mul(&M_(out, n, c, j), &M_(out, n, c, j), &inv);
        }
        for (unsigned i = 0; i < n; i++) {
            if (i == c || cuzk_fr_is_zero(&M_(a, n, i, c))) continue;
            cuzk_fr f = M_(a, n, i, c), t;
            for (unsigned j = 0; j < n; j++) {
                cuzk_fr_mul(&t, &f, &M_(a, n, c, j));
                cuzk_fr_sub(&M_(a, n, i, j), &M_(a, n, i, j), &t);
                cuzk_fr_mul(&t, &f, &M_(out, n, c, j));
                cuzk_fr_sub(&M_(out, n, i, j), &M_(out, n, i, j), &t);
            }
        }
    }
    free(a);
    return 0;
}

/* out = v·m (neptune's apply_matrix: out[j] = sum_i m[i][j] v[i]); out != v. */
static void vec_mat(cuzk_fr *out, const cuzk_fr *v, const cuzk_fr *m, unsigned n)
{
    for (unsigned j = 0; j < n; j++) {
        cuzk_fr acc = cuzk_fr_zero, t;
        for (unsigned i = 0; i < n; i++) {
            cuzk_fr_mul(&t, &M_(m, n, i, j), &v[i]);
            cuzk_fr_add(&acc, &acc, &t);
        }
        out[j] = acc;
    }
}

/* ---- constants ---------------------------------------------------------- */

/*
 * The partial-round matrices as neptune's factor_to_sparse_matrices: from
 * cur = M, each step splits cur = M'·M'' (M' = [1 0; 0 cur^], M'' sparse)
 * and continues with M·M'; the sparse factors are used in reverse order,
 * the final cur is the pre-sparse matrix. Unrolled, with M^ the lower right
 * block of M, v and w M's first row and column without M00: step k has
 * cur^ = M^^(k+1), first row v·M^^k, first column w, so its sparse factor is
 * [M00, w·M^^-(k+1)] / v·M^^k, and the pre-sparse matrix is
 * [M00, v·M^^RP; w, M^^(RP+1)]. Vectors are iterated; one inverse, and the
 * power by squaring.
 */
static int factor_sparse(cuzk_poseidon_constants *c)
{
    unsigned n = c->width, h = n - 1, rp = c->partial_rounds;
    size_t hh = (size_t)h * h;
    cuzk_fr *hat = malloc(sizeof(cuzk_fr) * hh), *hat_inv = malloc(sizeof(cuzk_fr) * hh),
            *pw = malloc(sizeof(cuzk_fr) * hh), *acc = malloc(sizeof(cuzk_fr) * hh),
            *tmp = malloc(sizeof(cuzk_fr) * hh), *wv = malloc(sizeof(cuzk_fr) * h),
            *vv = malloc(sizeof(cuzk_fr) * h), *t = malloc(sizeof(cuzk_fr) * h);
    int err = (hat && hat_inv && pw && acc && tmp && wv && vv && t) ? 0 : CUZK_ERR_NO_MEMORY;
    if (!err) {
        for (unsigned i = 0; i < h; i++) {
            for (unsigned j = 0; j < h; j++) M_(hat, h, i, j) = M_(c->mds, n, i + 1, j + 1);
            wv[i] = M_(c->mds, n, i + 1, 0);
            vv[i] = M_(c->mds, n, 0, i + 1);
        }
        err = mat_inv(hat_inv, hat, h);
    }
    for (unsigned k = 0; k < rp && !err; k++) {
        vec_mat(t, wv, hat_inv, h); /* w·M^^-(k+1) */
        memcpy(wv, t, sizeof(cuzk_fr) * h);
        unsigned slot = rp - 1 - k;
        cuzk_fr *wcol = &c->w_hat[(size_t)slot * n], *vrow = &c->v_rest[(size_t)slot * h];
        wcol[0] = M_(c->mds, n, 0, 0);
        memcpy(&wcol[1], wv, sizeof(cuzk_fr) * h);
        memcpy(vrow, vv, sizeof(cuzk_fr) * h); /* v·M^^k */
        vec_mat(t, vv, hat, h);
        memcpy(vv, t, sizeof(cuzk_fr) * h);
    }
    if (!err) {
        /* acc = M^^(rp+1) by squaring */
        unsigned e = rp + 1;
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < h; j++) M_(acc, h, i, j) = i == j ? cuzk_fr_one : cuzk_fr_zero;
        memcpy(pw, hat, sizeof(cuzk_fr) * hh);
        for (; e; e >>= 1) {
            if (e & 1) {
                mat_mul(tmp, acc, pw, h);
                memcpy(acc, tmp, sizeof(cuzk_fr) * hh);
            }
            if (e > 1) {
                mat_mul(tmp, pw, pw, h);
                memcpy(pw, tmp, sizeof(cuzk_fr) * hh);
            }
        }
        cuzk_fr *ps = c->pre_sparse;
        M_(ps, n, 0, 0) = M_(c->mds, n, 0, 0);
        for (unsigned i = 0; i < h; i++) {
            M_(ps, n, 0, i + 1) = vv[i]; /* v·M^^rp after the loop */
            M_(ps, n, i + 1, 0) = M_(c->mds, n, i + 1, 0);
            for (unsigned j = 0; j < h; j++) M_(ps, n, i + 1, j + 1) = M_(acc, h, i, j);
        }
    }
    free(hat);
    free(hat_inv);
    free(pw);
    free(acc);
    free(tmp);
    free(wv);
    free(vv);
    free(t);
    return err;
}

/* neptune preprocessing.rs compress_round_constants with every partial round preprocessed. */
static int compress_constants(cuzk_poseidon_constants *c)
{
    unsigned n = c->width, half = c->full_rounds / 2, rp = c->partial_rounds;
    cuzk_fr *minv = malloc(sizeof(cuzk_fr) * n * n), *acc = malloc(sizeof(cuzk_fr) * n),
            *inv = malloc(sizeof(cuzk_fr) * n), *pk = malloc(sizeof(cuzk_fr) * (rp ? rp : 1));
    int err = (minv && acc && inv && pk) ? mat_inv(minv, c->mds, n) : CUZK_ERR_NO_MEMORY;
    if (!err) {
        const cuzk_fr *rk = c->round_constants;
        cuzk_fr *res = c->compressed;
        size_t o = 0;
        memcpy(res, rk, sizeof(cuzk_fr) * n); /* first round keys unchanged */
        o += n;
        for (unsigned i = 0; i + 1 < half; i++, o += n) vec_mat(&res[o], &rk[(size_t)(i + 1) * n], minv, n);
        /* partial rounds, from the last backwards: keep only the S-box lane */
        unsigned fin = half + rp;
        memcpy(acc, &rk[(size_t)fin * n], sizeof(cuzk_fr) * n);
        for (unsigned i = 0; i < rp; i++) {
            vec_mat(inv, acc, minv, n);
            pk[i] = inv[0];
            inv[0] = cuzk_fr_zero;
            const cuzk_fr *prev = &rk[(size_t)(fin - i - 1) * n];
            for (unsigned j = 0; j < n; j++) cuzk_fr_add(&acc[j], &prev[j], &inv[j]);
        }
        vec_mat(&res[o], acc, minv, n);
        o += n;
        for (unsigned i = 0; i < rp; i++) res[o++] = pk[rp - 1 - i];
        for (unsigned i = 1; i < half; i++, o += n)
            vec_mat(&res[o], &rk[(size_t)(i + fin) * n], minv, n);
    }
    free(minv);
    free(acc);
    free(inv);
    free(pk);
    return err;
}

static void constants_free(cuzk_poseidon_constants *c)
{
    if (!c) return;
    free(c->round_constants);
    free(c->compressed);
    free(c->mds);
    free(c->pre_sparse);
    free(c->w_hat);
    free(c->v_rest);
    free(c);
}

static cuzk_poseidon_constants *constants_new(unsigned arity)
{
    cuzk_poseidon_constants *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    unsigned n = arity + 1;
    c->arity = arity;
    c->width = n;
    cuzk_poseidon_round_numbers(arity, &c->full_rounds, &c->partial_rounds);
    unsigned rf = c->full_rounds, rp = c->partial_rounds;
    c->round_constants = malloc(sizeof(cuzk_fr) * (rf + rp) * n);
    c->compressed = malloc(sizeof(cuzk_fr) * (rf * n + rp));
    c->mds = malloc(sizeof(cuzk_fr) * n * n);
    c->pre_sparse = malloc(sizeof(cuzk_fr) * n * n);
    c->w_hat = malloc(sizeof(cuzk_fr) * rp * n);
    c->v_rest = malloc(sizeof(cuzk_fr) * rp * (n - 1));
    if (!c->round_constants || !c->compressed || !c->mds || !c->pre_sparse || !c->w_hat || !c->v_rest) {
        constants_free(c);
        return NULL;
    }
    cuzk_poseidon_grain_constants(c->round_constants, n, rf, rp);
    /* Cauchy matrix 1 / (x_i + y_j), x_i = i, y_j = n + j: symmetric, invertible. */
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            cuzk_fr s;
            cuzk_fr_set_u64(&s, (uint64_t)i + n + j);
            cuzk_fr_inv(&M_(c->mds, n, i, j), &s);
        }
    if (compress_constants(c) || factor_sparse(c)) {
        constants_free(c);
        return NULL;
    }
    return c;
}

static _Atomic(cuzk_poseidon_constants *) g_consts[CUZK_POSEIDON_MAX_ARITY + 1];
static pthread_mutex_t g_consts_lock = PTHREAD_MUTEX_INITIALIZER;

const cuzk_poseidon_constants *cuzk_poseidon_constants_get(unsigned arity)
{
    if (arity < 1 || arity > CUZK_POSEIDON_MAX_ARITY) return NULL;
    cuzk_poseidon_constants *c = atomic_load_explicit(&g_consts[arity], memory_order_acquire);
    if (c) return c;
    pthread_mutex_lock(&g_consts_lock);
    c = atomic_load_explicit(&g_consts[arity], memory_order_relaxed);
    if (!c) {
        c = constants_new(arity);
        if (c) atomic_store_explicit(&g_consts[arity], c, memory_order_release);
    }
    pthread_mutex_unlock(&g_consts_lock);
    return c;
}

/* ---- domain tags -------------------------------------------------------- */

void cuzk_poseidon_tag_merkle(cuzk_fr *out, unsigned arity)
{
    uint64_t l[4] = {0, 0, 0, 0};
    if (arity >= 64) { /* not a neptune arity; 2^arity - 1 in general */
        for (unsigned i = 0; i < arity && i < 255; i++) l[i / 64] |= 1ull << (i % 64);
    } else {
        l[0] = (1ull << arity) - 1;
    }
    cuzk_fr_from_limbs(out, l);
}

void cuzk_poseidon_tag_constant_length(cuzk_fr *out, uint64_t length)
{
    uint64_t l[4] = {0, length, 0, 0};
    cuzk_fr_from_limbs(out, l);
}

int cuzk_poseidon_tag_custom(cuzk_fr *out, uint64_t id)
{
    if (id < 1 || id > 256) return CUZK_ERR_INVALID_ARG;
    uint64_t l[4] = {id << 40, 0, 0, 0};
    cuzk_fr_from_limbs(out, l);
    return 0;
}

/* ---- native hash -------------------------------------------------------- */

static inline void sbox(cuzk_fr *x)
{
    cuzk_fr t;
    cuzk_fr_sqr(&t, x);
    cuzk_fr_sqr(&t, &t);
    cuzk_fr_mul(x, x, &t);
}

/* State times the matrix of round r (pre-sparse, sparse or M), as neptune's round_product_mds. */
static void round_mds(const cuzk_poseidon_constants *c, unsigned r, cuzk_fr *s)
{
    unsigned n = c->width, half = c->full_rounds / 2;
    cuzk_fr out[CUZK_POSEIDON_MAX_ARITY + 1], t;
    if (r >= half && r < half + c->partial_rounds) {
        const cuzk_fr *w = &c->w_hat[(size_t)(r - half) * n], *v = &c->v_rest[(size_t)(r - half) * (n - 1)];
        out[0] = cuzk_fr_zero;
        for (unsigned i = 0; i < n; i++) {
            cuzk_fr_mul(&t, &w[i], &s[i]);
            cuzk_fr_add(&out[0], &out[0], &t);
        }
        for (unsigned j = 1; j < n; j++) {
            cuzk_fr_mul(&t, &v[j - 1], &s[0]);
            cuzk_fr_add(&out[j], &s[j], &t);
        }
    } else {
        vec_mat(out, s, r + 1 == half ? c->pre_sparse : c->mds, n);
    }
    memcpy(s, out, sizeof(cuzk_fr) * n);
}

/* neptune hash_optimized_static on state s (width elements). */
static void permute(const cuzk_poseidon_constants *c, cuzk_fr *s)
{
    unsigned n = c->width, half = c->full_rounds / 2, r = 0;
    const cuzk_fr *k = c->compressed;
    for (unsigned i = 0; i < n; i++) cuzk_fr_add(&s[i], &s[i], k++);
    for (unsigned f = 0; f < half; f++, r++) {
        for (unsigned i = 0; i < n; i++) {
            sbox(&s[i]);
            cuzk_fr_add(&s[i], &s[i], k++);
        }
        round_mds(c, r, s);
    }
    for (unsigned p = 0; p < c->partial_rounds; p++, r++) {
        sbox(&s[0]);
        cuzk_fr_add(&s[0], &s[0], k++);
        round_mds(c, r, s);
    }
    for (unsigned f = 0; f < half; f++, r++) {
        bool last = f + 1 == half;
        for (unsigned i = 0; i < n; i++) {
            sbox(&s[i]);
            if (!last) cuzk_fr_add(&s[i], &s[i], k++);
        }
        round_mds(c, r, s);
    }
}

static int load_state(const cuzk_poseidon_constants *c, cuzk_fr *s, const cuzk_fr *tag, const cuzk_fr *in,
                      size_t n)
{
    if (!c) return CUZK_ERR_NO_MEMORY;
    if (n > c->arity || (n && !in) || !tag) return CUZK_ERR_INVALID_ARG;
    s[0] = *tag;
    for (unsigned i = 1; i < c->width; i++) s[i] = i <= n ? in[i - 1] : cuzk_fr_zero;
    return 0;
}

int cuzk_poseidon_hash_tagged(cuzk_fr *out, unsigned arity, const cuzk_fr *tag, const cuzk_fr *in, size_t n)
{
    if (arity < 1 || arity > CUZK_POSEIDON_MAX_ARITY) return CUZK_ERR_INVALID_ARG;
    const cuzk_poseidon_constants *c = cuzk_poseidon_constants_get(arity);
    cuzk_fr s[CUZK_POSEIDON_MAX_ARITY + 1];
    int err = load_state(c, s, tag, in, n);
    if (err) return err;
    permute(c, s);
    *out = s[1];
    return 0;
}

int cuzk_poseidon_hash(cuzk_fr *out, unsigned arity, const cuzk_fr *in)
{
    cuzk_fr tag;
    cuzk_poseidon_tag_merkle(&tag, arity);
    return cuzk_poseidon_hash_tagged(out, arity, &tag, in, arity);
}

int cuzk_poseidon_hash_reference(cuzk_fr *out, unsigned arity, const cuzk_fr *tag, const cuzk_fr *in,
                                 size_t n)
{
    if (arity < 1 || arity > CUZK_POSEIDON_MAX_ARITY) return CUZK_ERR_INVALID_ARG;
    const cuzk_poseidon_constants *c = cuzk_poseidon_constants_get(arity);
    cuzk_fr s[CUZK_POSEIDON_MAX_ARITY + 1], t[CUZK_POSEIDON_MAX_ARITY + 1];
    int err = load_state(c, s, tag, in, n);
    if (err) return err;
    unsigned w = c->width, half = c->full_rounds / 2, total = c->full_rounds + c->partial_rounds;
    for (unsigned r = 0; r < total; r++) {
        bool full = r < half || r >= half + c->partial_rounds;
        for (unsigned i = 0; i < w; i++) cuzk_fr_add(&s[i], &s[i], &c->round_constants[(size_t)r * w + i]);
        for (unsigned i = 0; i < (full ? w : 1); i++) sbox(&s[i]);
        vec_mat(t, s, c->mds, w);
        memcpy(s, t, sizeof(cuzk_fr) * w);
    }
    *out = s[1];
    return 0;
}

int cuzk_poseidon_hash_md(cuzk_fr *out, const cuzk_fr *in, size_t n)
{
    if (n < 2 || !in) return CUZK_ERR_INVALID_ARG;
    const unsigned a = CUZK_POSEIDON_MD_ARITY;
    cuzk_fr acc = in[0], buf[CUZK_POSEIDON_MD_ARITY];
    for (size_t i = 1; i < n; i += a - 1) {
        size_t k = n - i < a - 1 ? n - i : a - 1;
        buf[0] = acc;
        memcpy(&buf[1], &in[i], k * sizeof(cuzk_fr));
        for (size_t j = k + 1; j < a; j++) buf[j] = cuzk_fr_zero;
        int err = cuzk_poseidon_hash(&acc, a, buf);
        if (err) return err;
    }
    *out = acc;
    return 0;
}
