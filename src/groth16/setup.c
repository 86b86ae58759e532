/*
 * Groth16 test setup (see include/cuzk/groth16/groth16.h for the formulas and the
 * warning: test parameters only).
 *
 * Scalar multiplications by a fixed generator use a comb of 32 windows of
 * 8 bits: table[w][d-1] = d·2^(8w)·G, so k·G costs at most 32 mixed
 * additions (about 10x fewer group operations than a variable-base wNAF),
 * done affine for FB_BATCH scalars at once with one shared inversion per
 * window. The table is 32·255 affine points (0.8 MiB in G1, 1.6 MiB in G2).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/util/mem.h"
#include "cuzk/poly/ntt.h"
#include "cuzk/util/parallel.h"

#define FB_WIN 8
#define FB_NWIN 32 /* 32·8 = 256 bits >= 255 */
#define FB_DIG ((1u << FB_WIN) - 1)

/* malloc for the large arrays of a setup (query points, scalars: up to ~47 GB
 * at 32 GiB), asking for transparent huge pages: each first touch of a 4 KiB
 * page is a fault (23.7 M of them in the 32 GiB GPU setup), one per 2 MiB
 * page with THP. Freed with free(). */
static void *setup_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)1 << 21;
    if (p && bytes >= 4 * huge) {
        uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
        if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice only */
    }
#endif
    return p;
}

/* ---- progress ----------------------------------------------------------- */

/* Points per progress report (about a second of work on one core). */
#define PROGRESS_SLICE ((size_t)1 << 16)

typedef struct progress {
    cuzk_groth16_progress_fn fn;
    void *ctx;
    uint64_t done, total;
} progress;

static void progress_add(progress *pg, const char *phase, uint64_t k)
{
    pg->done += k;
    if (pg->fn) pg->fn(pg->ctx, phase, pg->done, pg->total);
}

/* ---- fixed-base combs, one per group ------------------------------------ */

#define FB_BATCH 256 /* affine additions per shared inversion */

#define DEFINE_FB(G, AFF, JAC, F, FT)                                                                     \
    typedef struct fb_##G {                                                                        \
        AFF *t; /* FB_NWIN · FB_DIG points */                                                      \
    } fb_##G;                                                                                      \
                                                                                                   \
    static int fb_##G##_init(fb_##G *fb, const AFF *gen)                                           \
    {                                                                                              \
        size_t total = (size_t)FB_NWIN * FB_DIG;                                                   \
        JAC *tmp = malloc(total * sizeof *tmp);                                                    \
        fb->t = malloc(total * sizeof *fb->t);                                                     \
        if (!tmp || !fb->t) {                                                                      \
            free(tmp), free(fb->t), fb->t = NULL;                                                  \
            return CUZK_ERR_NO_MEMORY;                                                             \
        }                                                                                          \
        JAC base;                                                                                  \
        cuzk_##G##_jac_from_affine(&base, gen);                                                    \
        for (unsigned w = 0; w < FB_NWIN; w++) {                                                   \
            JAC *row = tmp + (size_t)w * FB_DIG;                                                   \
            row[0] = base;                                                                         \
            for (unsigned d = 1; d < FB_DIG; d++) cuzk_##G##_jac_add(&row[d], &row[d - 1], &base); \
            for (unsigned i = 0; i < FB_WIN; i++) cuzk_##G##_jac_dbl(&base, &base);                \
        }                                                                                          \
        cuzk_##G##_jac_batch_to_affine(fb->t, tmp, total);                                         \
        free(tmp);                                                                                 \
        return CUZK_OK;                                                                            \
    }                                                                                              \
                                                                                                   \
    /* acc = ±T (x equal), finished in Jacobian. Unreachable for canonical k: acc is the     \
     * lower windows' sum < 2^(8w) and T = d·2^(8w)·G, equal or opposite only if k ≡ 0      \
     * with k = r. A guard, not a path: the affine formulas would divide by zero. */          \
    static void fb_##G##_slow(AFF *out, const fb_##G *fb, const uint64_t *l, unsigned from,        \
                              const AFF *acc)                                                      \
    {                                                                                              \
        JAC r;                                                                                     \
        cuzk_##G##_jac_from_affine(&r, acc);                                                       \
        for (unsigned w = from; w < FB_NWIN; w++) {                                                \
            unsigned d = (unsigned)(l[w / 8] >> (8 * (w % 8))) & FB_DIG;                           \
            if (d) cuzk_##G##_jac_add_affine(&r, &r, &fb->t[(size_t)w * FB_DIG + d - 1]);         \
        }                                                                                          \
        cuzk_##G##_jac_to_affine(out, &r);                                                         \
    }                                                                                              \
                                                                                                   \
    typedef struct fbjob_##G {                                                                     \
        const fb_##G *fb;                                                                          \
        const cuzk_fr *k;                                                                          \
        AFF *out;                                                                                  \
    } fbjob_##G;                                                                                   \
                                                                                                   \
    /* out[i] = k[i]·gen, FB_BATCH points at a time, window by window: each                     \
     * window's additions acc += T are affine and share one inversion                            \
     * (Montgomery's trick), about 6 multiplications each instead of a mixed                     \
     * Jacobian addition's 11, and no conversion at the end. */                                  \
    static void fb_##G##_chunk(void *ctx, unsigned w, size_t lo, size_t hi)                               \
    {                                                                                              \
        fbjob_##G *j = ctx;                                                                        \
        uint64_t l[FB_BATCH][CUZK_FR_LIMBS];                                                       \
        unsigned char state[FB_BATCH]; /* 0 infinity, 1 affine, 2 done (slow path) */              \
        uint16_t idx[FB_BATCH];                                                                    \
        FT pre[FB_BATCH], dx[FB_BATCH];                                                            \
        for (size_t b0 = lo; b0 < hi; b0 += FB_BATCH) {                                            \
            size_t m = hi - b0 < FB_BATCH ? hi - b0 : FB_BATCH;                                    \
            AFF *acc = j->out + b0;                                                                \
            for (size_t i = 0; i < m; i++) {                                                       \
                cuzk_fr_to_limbs(l[i], &j->k[b0 + i]);                                             \
                state[i] = 0;                                                                      \
            }                                                                                      \
            for (unsigned w = 0; w < FB_NWIN; w++) {                                               \
                const AFF *row = j->fb->t + (size_t)w * FB_DIG;                                    \
                size_t na = 0;                                                                     \
                for (size_t i = 0; i < m; i++) {                                                   \
                    unsigned d = (unsigned)(l[i][w / 8] >> (8 * (w % 8))) & FB_DIG;                \
                    if (!d || state[i] == 2) continue;                                             \
                    const AFF *t = &row[d - 1];                                                    \
                    if (state[i] == 0) {                                                           \
                        acc[i] = *t, state[i] = 1;                                                 \
                        continue;                                                                  \
                    }                                                                              \
                    F##_sub(&dx[na], &t->x, &acc[i].x);                                            \
                    if (F##_is_zero(&dx[na])) {                                                    \
                        fb_##G##_slow(&acc[i], j->fb, l[i], w, &acc[i]);                           \
                        state[i] = 2;                                                              \
                        continue;                                                                  \
                    }                                                                              \
                    idx[na++] = (uint16_t)i;                                                       \
                }                                                                                  \
                if (!na) continue;                                                                 \
                /* prefix products, one inversion, then back to front */                          \
                pre[0] = dx[0];                                                                    \
                for (size_t q = 1; q < na; q++) F##_mul(&pre[q], &pre[q - 1], &dx[q]);             \
                FT inv, lam, x3, y3, tmp;                                                          \
                F##_inv(&inv, &pre[na - 1]);                                                       \
                for (size_t q = na; q-- > 0;) {                                                    \
                    size_t i = idx[q];                                                             \
                    unsigned d = (unsigned)(l[i][w / 8] >> (8 * (w % 8))) & FB_DIG;                \
                    const AFF *t = &row[d - 1];                                                    \
                    FT di; /* 1 / dx[q] */                                                         \
                    if (q) {                                                                       \
                        F##_mul(&di, &inv, &pre[q - 1]);                                           \
                        F##_mul(&inv, &inv, &dx[q]);                                               \
                    } else {                                                                       \
                        di = inv;                                                                  \
                    }                                                                              \
                    F##_sub(&tmp, &t->y, &acc[i].y);                                               \
                    F##_mul(&lam, &tmp, &di);                                                      \
                    F##_sqr(&x3, &lam);                                                            \
                    F##_sub(&x3, &x3, &acc[i].x);                                                  \
                    F##_sub(&x3, &x3, &t->x);                                                      \
                    F##_sub(&tmp, &acc[i].x, &x3);                                                 \
                    F##_mul(&y3, &lam, &tmp);                                                      \
                    F##_sub(&acc[i].y, &y3, &acc[i].y);                                            \
                    acc[i].x = x3;                                                                 \
                }                                                                                  \
            }                                                                                      \
            for (size_t i = 0; i < m; i++)                                                         \
                if (state[i] == 0) memset(&acc[i], 0, sizeof acc[i]); /* k = 0: infinity */        \
        }                                                                                          \
        memset(l, 0, sizeof l);                                                                    \
    }                                                                                              \
                                                                                                   \
    static void fb_##G##_one(AFF *out, const fb_##G *fb, const cuzk_fr *k)                         \
    {                                                                                              \
        fbjob_##G j = {fb, k, out};                                                                \
        fb_##G##_chunk(&j, 0, 0, 1);                                                               \
    }                                                                                              \
                                                                                                   \
    /* out[i] = k[i]·gen in affine, in slices so that progress is reported. */                    \
    static int fb_##G##_many(AFF *out, const fb_##G *fb, const cuzk_fr *k, size_t n,               \
                             unsigned nthreads, progress *pg, const char *phase, unsigned weight)  \
    {                                                                                              \
        for (size_t lo = 0; lo < n; lo += PROGRESS_SLICE) {                                        \
            size_t len = n - lo < PROGRESS_SLICE ? n - lo : PROGRESS_SLICE;                        \
            fbjob_##G j = {fb, k + lo, out + lo};                                                  \
            cuzk_parallel_for(len, 0, nthreads, fb_##G##_chunk, &j);                                   \
            progress_add(pg, phase, (uint64_t)len * weight);                                       \
        }                                                                                          \
        return CUZK_OK;                                                                            \
    }

DEFINE_FB(g1, cuzk_g1_affine, cuzk_g1_jac, cuzk_fp, cuzk_fp)
DEFINE_FB(g2, cuzk_g2_affine, cuzk_g2_jac, cuzk_fp2, cuzk_fp2)

/* ---- setup --------------------------------------------------------------- */

static void fr_random_nonzero(cuzk_fr *x, cuzk_rng *rng)
{
    do cuzk_fr_random(x, rng);
    while (cuzk_fr_is_zero(x));
}

/* Gathers k[i] for the nonzero entries of k[0..n): returns their count. */
static size_t gather_nonzero(cuzk_fr *dst, const cuzk_fr *k, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_is_zero(&k[i])) dst[m++] = k[i];
    return m;
}

/* Whether the toxic waste itself is unusable (gamma or delta zero, Z(tau) = 0). */
static bool toxic_bad(const cuzk_groth16_toxic *t, const cuzk_recording_cs *cs)
{
    size_t m = cs->base.num_constraints, n = 1;
    while (n < m) n <<= 1;
    cuzk_fr z, one;
    cuzk_fr_set_u64(&one, 1);
    uint64_t e = n;
    cuzk_fr_pow(&z, &t->tau, &e, 1);
    cuzk_fr_sub(&z, &z, &one);
    return cuzk_fr_is_zero(&t->gamma) || cuzk_fr_is_zero(&t->delta) || cuzk_fr_is_zero(&z);
}

/* pt[i] = tau^i and hs[i] = tau^i·Z(tau)/delta (i < n - 1) for i in [lo, hi):
 * each chunk starts from one exponentiation. */
typedef struct powers_ctx {
    cuzk_fr *pt, *hs;
    const cuzk_fr *tau, *coeff;
    size_t n;
} powers_ctx;
static void powers_chunk(void *arg, unsigned worker, size_t lo, size_t hi)
{
    powers_ctx *c = arg;
    uint64_t e = lo;
    cuzk_fr_pow(&c->pt[lo], c->tau, &e, 1);
    for (size_t i = lo + 1; i < hi; i++) cuzk_fr_mul(&c->pt[i], &c->pt[i - 1], c->tau);
    for (size_t i = lo; i < hi && i + 1 < c->n; i++) cuzk_fr_mul(&c->hs[i], &c->pt[i], c->coeff);
}

/* Matrix k's column sums of L_row(tau)·value into uvw + k·nv. */
typedef struct uvw_ctx {
    const cuzk_recording_cs *cs;
    const cuzk_fr *pt;
    cuzk_fr *uvw;
    size_t m, nv;
    int bad_col; /* a column >= nv (written by whichever task sees it) */
} uvw_ctx;
static void uvw_matrix(void *arg, unsigned worker, size_t lo, size_t hi)
{
    uvw_ctx *c = arg;
    for (size_t k = lo; k < hi; k++) {
        const cuzk_csr *mat = &c->cs->m[k];
        cuzk_fr *acc = c->uvw + k * c->nv;
        memset(acc, 0, c->nv * sizeof *acc); /* 0 in Montgomery form is all-zero limbs */
        for (size_t row = 0; row < c->m; row++) {
            for (uint64_t i = mat->row_ptr[row]; i < mat->row_ptr[row + 1]; i++) {
                uint32_t col = mat->col[i];
                if (col >= c->nv) {
                    c->bad_col = 1;
                    return;
                }
                cuzk_fr x;
                cuzk_fr_mul(&x, &c->pt[row], cuzk_recording_cs_val(c->cs, (int)k, i));
                cuzk_fr_add(&acc[col], &acc[col], &x);
            }
        }
    }
}

/* One query: by the backend when it has the group, else by the CPU comb. */
static int query_g1(cuzk_g1_affine *out, const fb_g1 *fb, const cuzk_fr *k, size_t n, unsigned nthreads,
                    progress *pg, const char *phase, const cuzk_groth16_fixed_base *be)
{
    if (!be || !be->g1) return fb_g1_many(out, fb, k, n, nthreads, pg, phase, 1);
    int rc = be->g1(be->ctx, out, &cuzk_g1_generator, k, n);
    if (!rc) progress_add(pg, phase, n);
    return rc;
}
static int query_g2(cuzk_g2_affine *out, const fb_g2 *fb, const cuzk_fr *k, size_t n, unsigned nthreads,
                    progress *pg, const char *phase, const cuzk_groth16_fixed_base *be)
{
    if (!be || !be->g2) return fb_g2_many(out, fb, k, n, nthreads, pg, phase, 3);
    int rc = be->g2(be->ctx, out, &cuzk_g2_generator, k, n);
    if (!rc) progress_add(pg, phase, 3 * (uint64_t)n);
    return rc;
}

static int setup_impl(cuzk_groth16_params *out, const cuzk_recording_cs *cs,
                      const cuzk_groth16_toxic *toxic, unsigned nthreads, progress *pg,
                      const cuzk_groth16_fixed_base *be)
{
    if (!out || !cs || !toxic) return CUZK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!cs->base.finalized || cs->base.err || cs->base.num_inputs == 0 ||
        cs->base.vt->kind != CUZK_CS_RECORDING)
        return CUZK_ERR_INVALID_ARG;
    if (nthreads == 0) nthreads = 1;

    const size_t m = cs->base.num_constraints, ni = cs->base.num_inputs, na = cs->base.num_aux;
    const size_t nv = ni + na;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < m) {
        if (++log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARG;
    }
    const size_t n = (size_t)1 << log_n;

    cuzk_fr t[5] = {toxic->alpha, toxic->beta, toxic->gamma, toxic->delta, toxic->tau};
    cuzk_fr *alpha = &t[0], *beta = &t[1], *gamma = &t[2], *delta = &t[3], *tau = &t[4];
    cuzk_fr one, zt;
    cuzk_fr_set_u64(&one, 1);
    uint64_t e = n;
    cuzk_fr_pow(&zt, tau, &e, 1);
    cuzk_fr_sub(&zt, &zt, &one);
    if (cuzk_fr_is_zero(gamma) || cuzk_fr_is_zero(delta) || cuzk_fr_is_zero(&zt)) {
        cuzk_mem_wipe(t, sizeof t), cuzk_mem_wipe(&zt, sizeof zt);
        return CUZK_ERR_INVALID_ARG;
    }

    int rc = CUZK_OK;
    cuzk_ntt_domain dom;
    memset(&dom, 0, sizeof dom);
    fb_g1 fb1 = {NULL};
    fb_g2 fb2 = {NULL};
    cuzk_fr *pt = setup_alloc(n * sizeof *pt);            /* powers of tau, then Lagrange coefficients */
    cuzk_fr *hs = setup_alloc(n * sizeof *hs);            /* h scalars (n - 1 used) */
    cuzk_fr *uvw = setup_alloc(3 * (nv ? nv : 1) * sizeof *uvw); /* u | v | w */
    cuzk_fr *ext = setup_alloc((nv ? nv : 1) * sizeof *ext);    /* ic | l scalars */
    cuzk_fr *sel = setup_alloc((nv ? nv : 1) * sizeof *sel);    /* filtered scalars */
    cuzk_fr gamma_inv, delta_inv, coeff;
    if (!pt || !hs || !uvw || !ext || !sel) {
        rc = CUZK_ERR_NO_MEMORY;
        goto done;
    }
    rc = cuzk_ntt_domain_init(&dom, log_n, CUZK_FR_GEN_FILECOIN, nthreads);
    if (rc) goto done;

    cuzk_fr_inv(&gamma_inv, gamma);
    cuzk_fr_inv(&delta_inv, delta);
    cuzk_fr_mul(&coeff, &zt, &delta_inv); /* Z(tau) / delta */

    powers_ctx pc = {pt, hs, tau, &coeff, n};
    cuzk_parallel_for(n, 0, nthreads, powers_chunk, &pc);
    cuzk_ntt_inverse(&dom, pt, nthreads); /* pt[i] = L_i(tau) */

    /* u, v, w per variable (final columns: inputs, then aux): one task per
     * matrix, since a matrix's rows scatter into any column. */
    uvw_ctx uc = {cs, pt, uvw, m, nv, 0};
    cuzk_parallel_for(3, 0, nthreads < 3 ? nthreads : 3, uvw_matrix, &uc);
    if (uc.bad_col) {
        rc = CUZK_ERR_INVALID_ARG;
        goto done;
    }
    const cuzk_fr *u = uvw, *v = uvw + nv, *w = uvw + 2 * nv;
    for (size_t j = 0; j < nv; j++) {
        cuzk_fr x, y;
        cuzk_fr_mul(&x, &u[j], beta);
        cuzk_fr_mul(&y, &v[j], alpha);
        cuzk_fr_add(&x, &x, &y);
        cuzk_fr_add(&x, &x, &w[j]);
        cuzk_fr_mul(&ext[j], &x, j < ni ? &gamma_inv : &delta_inv);
        if (j >= ni && cuzk_fr_is_zero(&ext[j])) { /* bellperson: UnconstrainedVariable */
            rc = CUZK_ERR_INVALID_ARG;
            goto done;
        }
    }

    if ((rc = fb_g1_init(&fb1, &cuzk_g1_generator)) || (rc = fb_g2_init(&fb2, &cuzk_g2_generator)))
        goto done;

    /* vk */
    fb_g1_one(&out->vk.alpha_g1, &fb1, alpha);
    fb_g1_one(&out->vk.beta_g1, &fb1, beta);
    fb_g2_one(&out->vk.beta_g2, &fb2, beta);
    fb_g2_one(&out->vk.gamma_g2, &fb2, gamma);
    fb_g1_one(&out->vk.delta_g1, &fb1, delta);
    fb_g2_one(&out->vk.delta_g2, &fb2, delta);

    size_t n_a = gather_nonzero(sel, u, nv);
    size_t n_b = 0;
    for (size_t j = 0; j < nv; j++) n_b += !cuzk_fr_is_zero(&v[j]);
    out->vk.n_ic = ni;
    out->n_h = n - 1, out->n_l = na, out->n_a = n_a, out->n_b_g1 = n_b, out->n_b_g2 = n_b;
    /* malloc(0) may return NULL: allocate at least one entry. */
    out->vk.ic = malloc(ni * sizeof *out->vk.ic);
    out->h = setup_alloc((n > 1 ? n - 1 : 1) * sizeof *out->h);
    out->l = setup_alloc((na ? na : 1) * sizeof *out->l);
    out->a = setup_alloc((n_a ? n_a : 1) * sizeof *out->a);
    out->b_g1 = setup_alloc((n_b ? n_b : 1) * sizeof *out->b_g1);
    out->b_g2 = setup_alloc((n_b ? n_b : 1) * sizeof *out->b_g2);
    if (!out->vk.ic || !out->h || !out->l || !out->a || !out->b_g1 || !out->b_g2) {
        rc = CUZK_ERR_NO_MEMORY;
        goto done;
    }
    pg->total = n_a + 4 * (uint64_t)n_b + ni + na + (n - 1);
    if ((rc = query_g1(out->a, &fb1, sel, n_a, nthreads, pg, "a", be))) goto done;
    gather_nonzero(sel, v, nv);
    if ((rc = query_g1(out->b_g1, &fb1, sel, n_b, nthreads, pg, "b_g1", be))) goto done;
    if ((rc = query_g2(out->b_g2, &fb2, sel, n_b, nthreads, pg, "b_g2", be))) goto done;
    if ((rc = query_g1(out->vk.ic, &fb1, ext, ni, nthreads, pg, "ic", be))) goto done;
    if ((rc = query_g1(out->l, &fb1, ext + ni, na, nthreads, pg, "l", be))) goto done;
    if ((rc = query_g1(out->h, &fb1, hs, n - 1, nthreads, pg, "h", be))) goto done;

done:
    cuzk_mem_wipe(t, sizeof t);
    cuzk_mem_wipe(&gamma_inv, sizeof gamma_inv), cuzk_mem_wipe(&delta_inv, sizeof delta_inv);
    cuzk_mem_wipe(&coeff, sizeof coeff), cuzk_mem_wipe(&zt, sizeof zt);
    if (pt) cuzk_mem_wipe(pt, n * sizeof *pt);
    if (hs) cuzk_mem_wipe(hs, n * sizeof *hs);
    if (uvw) cuzk_mem_wipe(uvw, 3 * nv * sizeof *uvw);
    if (ext) cuzk_mem_wipe(ext, nv * sizeof *ext);
    if (sel) cuzk_mem_wipe(sel, nv * sizeof *sel);
    free(pt), free(hs), free(uvw), free(ext), free(sel);
    free(fb1.t), free(fb2.t);
    cuzk_ntt_domain_free(&dom);
    if (rc) cuzk_groth16_params_free(out);
    return rc;
}

int cuzk_groth16_setup_toxic(cuzk_groth16_params *out, const cuzk_recording_cs *cs,
                             const cuzk_groth16_toxic *toxic, unsigned nthreads)
{
    return cuzk_groth16_setup_toxic_with(out, cs, toxic, nthreads, NULL);
}

int cuzk_groth16_setup_toxic_with(cuzk_groth16_params *out, const cuzk_recording_cs *cs,
                                  const cuzk_groth16_toxic *toxic, unsigned nthreads,
                                  const cuzk_groth16_fixed_base *fb)
{
    progress pg = {NULL, NULL, 0, 0};
    return setup_impl(out, cs, toxic, nthreads, &pg, fb);
}

int cuzk_groth16_setup(cuzk_groth16_params *out, const cuzk_recording_cs *cs, cuzk_rng *rng,
                       unsigned nthreads)
{
    return cuzk_groth16_setup_progress(out, cs, rng, nthreads, NULL, NULL);
}

int cuzk_groth16_setup_progress(cuzk_groth16_params *out, const cuzk_recording_cs *cs,
                                cuzk_rng *rng, unsigned nthreads, cuzk_groth16_progress_fn fn,
                                void *ctx)
{
    return cuzk_groth16_setup_with(out, cs, rng, nthreads, fn, ctx, NULL);
}

int cuzk_groth16_setup_with(cuzk_groth16_params *out, const cuzk_recording_cs *cs, cuzk_rng *rng,
                            unsigned nthreads, cuzk_groth16_progress_fn fn, void *ctx,
                            const cuzk_groth16_fixed_base *fb)
{
    if (!out || !cs || !rng) return CUZK_ERR_INVALID_ARG;
    cuzk_groth16_toxic t;
    do { /* redraw unusable toxic waste (probability about n/r) */
        fr_random_nonzero(&t.alpha, rng);
        fr_random_nonzero(&t.beta, rng);
        fr_random_nonzero(&t.gamma, rng);
        fr_random_nonzero(&t.delta, rng);
        fr_random_nonzero(&t.tau, rng);
    } while (toxic_bad(&t, cs));
    progress pg = {fn, ctx, 0, 0};
    int rc = setup_impl(out, cs, &t, nthreads, &pg, fb);
    cuzk_mem_wipe(&t, sizeof t);
    return rc;
}
