/*
 * Pippenger MSM shared by G1 and G2, instantiated by msm.c with macros:
 *   MSM_FN(x)  public name, e.g. cuzk_g1_##x
 *   PT(x)      point function, e.g. cuzk_g1_##x
 *   AFF, JAC, XYZZ  point types
 *   FE, FE_ADD, FE_SUB, FE_NEG, FE_MUL, FE_SQR, FE_INV, FE_IS_ZERO  the
 *              coordinate field (batch-affine buckets)
 *   MSM_AFF_MIN_NB  fewest buckets per window for affine buckets
 *   MSM_COST_W  weight of one coordinate-field multiplication in Fp ones
 *              (task cost estimates for the batch's task order)
 *   MSM_ONES_COST  estimated cost of one point of a pairwise scalar-1 sum
 * The method and cost model are documented in include/cuzk/msm/msm.h and the
 * flags in msm_internal.h; the digit recoding, the GLV split and the batch
 * driver (threads, task order) are in msm.c.
 */

/* One MSM of a batch: its classified scalars, window choice and one result
 * per task (tasks 0..nwin-1 the windows, then the scalar-1 chunks). */
typedef struct MSM_FN(msm_ctx_) {
    const AFF *bases;
    const uint32_t *gen_idx; /* entry i < m: bases[gen_idx[i]] */
    const AFF *img;          /* GLV: entry m + i is img[i] = x^2·bases[gen_idx[i]] */
    const msm_scalar_ *gen_k; /* mt entries */
    size_t m, mt;
    const uint32_t *one_idx; /* bases with scalar 1 */
    size_t m1;
    unsigned c, nwin, ntasks; /* nwin windows, then chunks of scalar-1 bases */
    bool affine;      /* affine buckets for the windows */
    bool ones_affine; /* pairwise affine rounds for the scalar-1 chunks */
    size_t batch;     /* affine additions per shared inversion */
    XYZZ *win;        /* one result per task */
    msm_split_ s;     /* owned: the classified scalars */
    const cuzk_fr *src_fr; /* GLV: the caller's scalars, read again by msm_glv_fill_ */
    const uint64_t (*src_plain)[4];
    AFF *img_buf;     /* owned (GLV) */
    msm_scalar_ *glv_buf;
} MSM_FN(msm_ctx_);

/* Per-thread scratch, carved from one block sized for the largest MSM of
 * the batch (MSM_FN(msm_worker_carve_)). */
typedef struct MSM_FN(msm_worker_) {
    XYZZ *xb;     /* 2^(c-1) XYZZ buckets (the overflow ones in affine mode) */
    AFF *ab;      /* affine mode: 2^(c-1) affine buckets */
    uint8_t *st;  /* affine mode: bucket state, MSM_HAS_ | MSM_BUSY_ */
    uint32_t *eb; /* affine mode: open batch, bucket of each addition */
    const AFF **ep; /* the point added; its y negated when eneg */
    uint8_t *eneg;
    FE *pre;      /* prefix products of the x differences */
    uint32_t *qb, *qb2; /* affine mode: deferred points (bucket, point, sign) and a spare */
    const AFF **qp, **qp2;
    uint8_t *qneg, *qneg2;
    size_t nq;
    AFF *os;       /* affine mode, scalar-1 chunks: MSM_ONE_CHUNK points */
    FE *opre;      /* and MSM_ONE_CHUNK / 2 prefix products */
    uint8_t *oflag; /* MSM_ONE_CHUNK / 2 pair kinds */
} MSM_FN(msm_worker_);

#ifndef MSM_HAS_
#define MSM_HAS_ 1  /* affine bucket holds a point */
#define MSM_BUSY_ 2 /* affine bucket has an addition in the open batch */
#endif

static inline const AFF *MSM_FN(msm_pt_)(const MSM_FN(msm_ctx_) *x, size_t i)
{
    return i < x->m ? &x->bases[x->gen_idx[i]] : &x->img[i - x->m];
}

/* Runs the open batch of n affine additions B[eb] += ±P with one inversion:
 * lambda = (y_P - y_B) / (x_P - x_B), x3 = lambda^2 - x_B - x_P,
 * y3 = lambda·(x_B - x3) - y_B. */
static void MSM_FN(msm_flush_)(MSM_FN(msm_worker_) *w, size_t n)
{
    if (n == 0) return;
    FE inv, di, dx, dy, l, t;
    FE_INV(&inv, &w->pre[n - 1]);
    for (size_t i = n; i-- > 0;) {
        AFF *b = &w->ab[w->eb[i]];
        const AFF *p = w->ep[i];
        if (i > 0) {
            FE_MUL(&di, &inv, &w->pre[i - 1]);
            FE_SUB(&dx, &p->x, &b->x);
            FE_MUL(&inv, &inv, &dx);
        } else {
            di = inv;
        }
        if (w->eneg[i]) {
            FE_ADD(&dy, &p->y, &b->y);
            FE_NEG(&dy, &dy);
        } else {
            FE_SUB(&dy, &p->y, &b->y);
        }
        FE_MUL(&l, &dy, &di);
        FE_SQR(&t, &l);
        FE_SUB(&t, &t, &b->x);
        FE_SUB(&t, &t, &p->x); /* x3 */
        FE_SUB(&dx, &b->x, &t);
        FE_MUL(&dx, &dx, &l);
        FE_SUB(&b->y, &dx, &b->y);
        b->x = t;
        w->st[w->eb[i]] = MSM_HAS_;
    }
}

/* Adds ±p to bucket bi in affine mode: an empty bucket takes the point; a
 * bucket already in the open batch defers the point to the queue (to the
 * XYZZ overflow bucket when the queue is full); ±the bucket itself goes to
 * the overflow bucket; otherwise the addition joins the open batch (*n). */
static inline void MSM_FN(msm_put_)(MSM_FN(msm_worker_) *w, size_t qcap, uint32_t bi, const AFF *p,
                                    bool neg, size_t *n)
{
    uint8_t st = w->st[bi];
    AFF *b = &w->ab[bi];
    if (!(st & MSM_HAS_)) {
        *b = *p;
        if (neg) FE_NEG(&b->y, &b->y);
        w->st[bi] = MSM_HAS_;
        return;
    }
    FE dx;
    if (st & MSM_BUSY_) {
        if (w->nq < qcap) {
            w->qb[w->nq] = bi;
            w->qp[w->nq] = p;
            w->qneg[w->nq] = neg;
            w->nq++;
            return;
        }
    } else {
        FE_SUB(&dx, &p->x, &b->x);
    }
    if ((st & MSM_BUSY_) || FE_IS_ZERO(&dx)) {
        if (!neg) {
            PT(xyzz_add_affine)(&w->xb[bi], &w->xb[bi], p);
        } else {
            AFF np;
            PT(affine_neg)(&np, p);
            PT(xyzz_add_affine)(&w->xb[bi], &w->xb[bi], &np);
        }
        return;
    }
    size_t i = *n;
    w->eb[i] = bi;
    w->ep[i] = p;
    w->eneg[i] = neg;
    if (i == 0)
        w->pre[0] = dx;
    else
        FE_MUL(&w->pre[i], &w->pre[i - 1], &dx);
    w->st[bi] = MSM_HAS_ | MSM_BUSY_;
    *n = i + 1;
}

/* Runs the open batch and re-puts the deferred points; the queue holds at
 * most batch/2, so the re-put cannot fill the emptied batch. */
static void MSM_FN(msm_flush_queue_)(MSM_FN(msm_worker_) *w, size_t qcap, size_t *n)
{
    MSM_FN(msm_flush_)(w, *n);
    *n = 0;
    size_t cnt = w->nq;
    w->nq = 0;
    /* swap the queue with its spare so re-deferred points land in the other */
    uint32_t *tb = w->qb;
    const AFF **tp = w->qp;
    uint8_t *tn = w->qneg;
    w->qb = w->qb2;
    w->qp = w->qp2;
    w->qneg = w->qneg2;
    w->qb2 = tb;
    w->qp2 = tp;
    w->qneg2 = tn;
    for (size_t k = 0; k < cnt; k++) MSM_FN(msm_put_)(w, qcap, tb[k], tp[k], tn[k], n);
}

/* Window w with affine buckets: sum_j j·(A_j + X_j) into *res. */
static void MSM_FN(msm_window_affine_)(MSM_FN(msm_ctx_) *x, MSM_FN(msm_worker_) *w, unsigned win,
                                        XYZZ *res)
{
    size_t nb = (size_t)1 << (x->c - 1), qcap = x->batch / 2;
    for (size_t j = 0; j < nb; j++) PT(xyzz_set_infinity)(&w->xb[j]);
    memset(w->st, 0, nb);
    w->nq = 0;
    size_t n = 0;
    for (size_t i = 0; i < x->mt; i++) {
        int d = msm_booth_digit_(x->gen_k[i].l, win, x->c);
        if (d == 0) continue;
        const AFF *p = MSM_FN(msm_pt_)(x, i);
        if (PT(affine_is_infinity)(p)) continue;
        MSM_FN(msm_put_)(w, qcap, (uint32_t)(d > 0 ? d - 1 : -d - 1), p, d < 0, &n);
        if (n == x->batch) MSM_FN(msm_flush_queue_)(w, qcap, &n);
    }
    while (n || w->nq) MSM_FN(msm_flush_queue_)(w, qcap, &n);
    XYZZ run, acc;
    PT(xyzz_set_infinity)(&run);
    PT(xyzz_set_infinity)(&acc);
    for (size_t j = nb; j-- > 0;) {
        if (w->st[j] & MSM_HAS_) PT(xyzz_add_affine)(&run, &run, &w->ab[j]);
        if (!PT(xyzz_is_infinity)(&w->xb[j])) PT(xyzz_add)(&run, &run, &w->xb[j]);
        PT(xyzz_add)(&acc, &acc, &run);
    }
    *res = acc;
}

/* sum_i d_w(k_i) · P_i for window w, XYZZ buckets. */
static void MSM_FN(msm_window_)(MSM_FN(msm_ctx_) *x, XYZZ *b, unsigned w, XYZZ *res)
{
    size_t nb = (size_t)1 << (x->c - 1);
    for (size_t j = 0; j < nb; j++) PT(xyzz_set_infinity)(&b[j]);
    for (size_t i = 0; i < x->mt; i++) {
        int d = msm_booth_digit_(x->gen_k[i].l, w, x->c);
        if (d == 0) continue;
        const AFF *p = MSM_FN(msm_pt_)(x, i);
        if (d > 0) {
            PT(xyzz_add_affine)(&b[d - 1], &b[d - 1], p);
        } else {
            AFF np;
            PT(affine_neg)(&np, p);
            PT(xyzz_add_affine)(&b[-d - 1], &b[-d - 1], &np);
        }
    }
    /* sum_j j·B_j: run = B_top + ... + B_j, acc += run for each j. */
    XYZZ run, acc;
    PT(xyzz_set_infinity)(&run);
    PT(xyzz_set_infinity)(&acc);
    for (size_t j = nb; j-- > 0;) {
        PT(xyzz_add)(&run, &run, &b[j]);
        PT(xyzz_add)(&acc, &acc, &run);
    }
    *res = acc;
}

/* Sum of the scalar-1 bases one_idx[lo, hi) into *acc by rounds of pairwise
 * affine additions, each round sharing one inversion: k - 1 additions of
 * 6 multiplications plus log2(k) inversions, against k mixed XYZZ
 * additions of 10. A pair with equal x (P + P or P + (-P)) is added into
 * *acc instead and leaves infinity in its place. */
static void MSM_FN(msm_ones_affine_)(MSM_FN(msm_ctx_) *x, MSM_FN(msm_worker_) *w, size_t lo,
                                      size_t hi, XYZZ *acc)
{
    AFF *s = w->os;
    size_t k = 0;
    for (size_t i = lo; i < hi; i++) {
        const AFF *p = &x->bases[x->one_idx[i]];
        if (!PT(affine_is_infinity)(p)) s[k++] = *p;
    }
    enum { PAIR_SUM = 0, PAIR_A = 1, PAIR_B = 2, PAIR_NONE = 3 };
    while (k > 1) {
        size_t np = k / 2, nb = 0;
        FE dx, run;
        for (size_t j = 0; j < np; j++) {
            const AFF *a = &s[2 * j], *b = &s[2 * j + 1];
            bool ia = PT(affine_is_infinity)(a), ib = PT(affine_is_infinity)(b);
            if (ia || ib) {
                w->oflag[j] = ia ? (ib ? PAIR_NONE : PAIR_B) : PAIR_A;
                continue;
            }
            FE_SUB(&dx, &b->x, &a->x);
            if (FE_IS_ZERO(&dx)) {
                PT(xyzz_add_affine)(acc, acc, a);
                PT(xyzz_add_affine)(acc, acc, b);
                w->oflag[j] = PAIR_NONE;
                continue;
            }
            w->oflag[j] = PAIR_SUM;
            if (nb == 0)
                run = dx;
            else
                FE_MUL(&run, &run, &dx);
            w->opre[j] = run; /* prefix product up to this pair */
            nb++;
        }
        /* backward: opre[j] becomes 1/dx_j for the summed pairs */
        if (nb) {
            FE inv, t;
            FE_INV(&inv, &run);
            size_t left = nb;
            for (size_t j = np; j-- > 0;) {
                if (w->oflag[j] != PAIR_SUM) continue;
                left--;
                if (left == 0) {
                    w->opre[j] = inv;
                    break;
                }
                size_t pj = j; /* previous summed pair */
                while (w->oflag[--pj] != PAIR_SUM) {}
                FE_MUL(&t, &inv, &w->opre[pj]);
                FE_SUB(&dx, &s[2 * j + 1].x, &s[2 * j].x);
                FE_MUL(&inv, &inv, &dx);
                w->opre[j] = t;
            }
        }
        /* forward, in place: s[j] from s[2j], s[2j+1] (2j >= j, never
         * overwritten before it is read) */
        for (size_t j = 0; j < np; j++) {
            const AFF *a = &s[2 * j], *b = &s[2 * j + 1];
            AFF o;
            switch (w->oflag[j]) {
            case PAIR_A: o = *a; break;
            case PAIR_B: o = *b; break;
            case PAIR_NONE: memset(&o, 0, sizeof o); break;
            default: {
                FE l, t, u;
                FE_SUB(&t, &b->y, &a->y);
                FE_MUL(&l, &t, &w->opre[j]);
                FE_SQR(&t, &l);
                FE_SUB(&t, &t, &a->x);
                FE_SUB(&o.x, &t, &b->x);
                FE_SUB(&u, &a->x, &o.x);
                FE_MUL(&u, &u, &l);
                FE_SUB(&o.y, &u, &a->y);
            }
            }
            s[j] = o;
        }
        if (k & 1) s[np] = s[k - 1];
        k = np + (k & 1);
    }
    if (k == 1) PT(xyzz_add_affine)(acc, acc, &s[0]);
}


static void MSM_FN(msm_task_)(MSM_FN(msm_ctx_) *x, MSM_FN(msm_worker_) *wk, unsigned t)
{
    if (t < x->nwin) {
        if (x->affine)
            MSM_FN(msm_window_affine_)(x, wk, t, &x->win[t]);
        else
            MSM_FN(msm_window_)(x, wk->xb, t, &x->win[t]);
        return;
    }
    size_t lo = (size_t)(t - x->nwin) * MSM_ONE_CHUNK;
    size_t hi = lo + MSM_ONE_CHUNK < x->m1 ? lo + MSM_ONE_CHUNK : x->m1;
    XYZZ acc;
    PT(xyzz_set_infinity)(&acc);
    if (x->ones_affine) {
        MSM_FN(msm_ones_affine_)(x, wk, lo, hi, &acc);
    } else {
        for (size_t i = lo; i < hi; i++) PT(xyzz_add_affine)(&acc, &acc, &x->bases[x->one_idx[i]]);
    }
    x->win[t] = acc;
}

/* Estimated cost of task t in Fp multiplications times MSM_COST_W (an Fp2
 * multiplication is ~3 Fp ones): a bucket addition is ~7 (affine, with
 * its share of the inversion) or 10 (XYZZ mixed), a bucket's share of the
 * running sum 24 (affine buckets: mixed + full XYZZ addition) or 28, a
 * point of a scalar-1 chunk MSM_ONES_COST (pairwise) or 10. Only the task
 * order depends on it (measured: ~33 ns per unit on dev-2c for windows). */
static uint64_t MSM_FN(msm_task_cost_)(const MSM_FN(msm_ctx_) *x, unsigned t)
{
    if (t < x->nwin) {
        uint64_t nb = (uint64_t)1 << (x->c - 1);
        return MSM_COST_W * (x->affine ? 7 * (uint64_t)x->mt + 24 * nb : 10 * (uint64_t)x->mt + 28 * nb);
    }
    size_t lo = (size_t)(t - x->nwin) * MSM_ONE_CHUNK;
    uint64_t k = lo < x->m1 ? (x->m1 - lo < MSM_ONE_CHUNK ? x->m1 - lo : MSM_ONE_CHUNK) : 0;
    return MSM_COST_W * (x->ones_affine ? MSM_ONES_COST : 10) * k;
}

/* The scratch a thread needs for x's tasks (maxima are taken over the batch). */
static void MSM_FN(msm_needs_)(const MSM_FN(msm_ctx_) *x, msm_needs_ *nd)
{
    size_t nb = x->c ? (size_t)1 << (x->c - 1) : 0;
    if (nb > nd->nb) nd->nb = nb;
    if (x->affine && nb > nd->nb_aff) nd->nb_aff = nb;
    if (x->affine && x->batch > nd->batch) nd->batch = x->batch;
    if (x->ones_affine) {
        size_t cap = x->m1 < MSM_ONE_CHUNK ? x->m1 : MSM_ONE_CHUNK;
        if (cap > nd->onecap) nd->onecap = cap;
    }
}

/* Lays out w's arrays for nd from base (base NULL: only sizes them);
 * returns the bytes used. */
static size_t MSM_FN(msm_worker_carve_)(MSM_FN(msm_worker_) *w, unsigned char *base, const msm_needs_ *nd)
{
    size_t off = 0, q = nd->batch ? nd->batch / 2 + 1 : 0;
#define MSM_CARVE_(field, bytes)                                                                   \
    do {                                                                                           \
        size_t b_ = (bytes);                                                                       \
        w->field = base && b_ ? (void *)(base + off) : NULL;                                       \
        off += (b_ + 63) & ~(size_t)63;                                                            \
    } while (0)
    MSM_CARVE_(xb, sizeof(XYZZ) * nd->nb);
    MSM_CARVE_(ab, sizeof(AFF) * nd->nb_aff);
    MSM_CARVE_(st, nd->nb_aff);
    MSM_CARVE_(eb, sizeof(uint32_t) * nd->batch);
    MSM_CARVE_(ep, sizeof(AFF *) * nd->batch);
    MSM_CARVE_(eneg, nd->batch);
    MSM_CARVE_(pre, sizeof(FE) * nd->batch);
    MSM_CARVE_(qb, sizeof(uint32_t) * q);
    MSM_CARVE_(qb2, sizeof(uint32_t) * q);
    MSM_CARVE_(qp, sizeof(AFF *) * q);
    MSM_CARVE_(qp2, sizeof(AFF *) * q);
    MSM_CARVE_(qneg, q);
    MSM_CARVE_(qneg2, q);
    MSM_CARVE_(os, sizeof(AFF) * nd->onecap);
    MSM_CARVE_(opre, sizeof(FE) * (nd->onecap / 2));
    MSM_CARVE_(oflag, nd->onecap / 2);
#undef MSM_CARVE_
    w->nq = 0;
    return off;
}

static void MSM_FN(msm_ctx_free_)(MSM_FN(msm_ctx_) *x)
{
    msm_split_free_(&x->s);
    free(x->img_buf);
    free(x->glv_buf);
    free(x->win);
    memset(x, 0, sizeof *x);
}

/* GLV entries [lo, hi) of the general scalars: x^2·P and k = k1 + k2·x^2,
 * k read again from the caller's scalars (no full-width copy: the batch
 * holds every MSM's scratch at once). Chunks are independent (the batch
 * runs them on all threads). */
static void MSM_FN(msm_glv_fill_)(MSM_FN(msm_ctx_) *x, size_t lo, size_t hi)
{
    const msm_split_ *s = &x->s;
    for (size_t i = lo; i < hi; i++) {
        uint32_t bi = s->gen_idx[i];
        uint64_t k[4];
        if (x->src_fr) {
            cuzk_fr_to_limbs(k, &x->src_fr[bi]);
        } else {
            memcpy(k, x->src_plain[bi], sizeof k);
            msm_reduce_r_(k);
        }
        PT(affine_endo_x2)(&x->img_buf[i], &x->bases[bi]);
        msm_scalar_ *a = &x->glv_buf[i], *b = &x->glv_buf[s->m + i];
        cuzk_msm_glv_split(a->l, b->l, k);
        a->l[2] = a->l[3] = b->l[2] = b->l[3] = 0;
    }
}

/* Classifies the scalars (fr or plain, one of them non-NULL when n > 0),
 * allocates the GLV entries (filled by msm_glv_fill_ over [0, m)) and
 * picks the window and task count; CUZK_OK or NO_MEMORY (x then holds
 * nothing). */
static int MSM_FN(msm_prep_)(MSM_FN(msm_ctx_) *x, const AFF *bases, const cuzk_fr *fr,
                             const uint64_t (*plain)[4], size_t n, unsigned flags)
{
    memset(x, 0, sizeof *x);
    unsigned bits = fr ? 255 : 256;
    const bool glv = (flags & CUZK_MSM_GLV) != 0;
    int err = fr ? msm_split_fr_(&x->s, fr, n, !glv) : msm_split_plain_(&x->s, plain, n, glv, !glv);
    if (err) return err;
    msm_split_shrink_(&x->s);
    const msm_split_ *s = &x->s;
    x->bases = bases;
    x->gen_idx = s->gen_idx;
    x->gen_k = s->gen_k;
    x->m = x->mt = s->m;
    x->one_idx = s->one_idx;
    x->m1 = s->m1;
    if (glv && s->m) {
        x->img_buf = malloc(sizeof(AFF) * s->m);
        x->glv_buf = malloc(sizeof(msm_scalar_) * 2 * s->m);
        if (!x->img_buf || !x->glv_buf) {
            MSM_FN(msm_ctx_free_)(x);
            return CUZK_ERR_NO_MEMORY;
        }
        /* filled by MSM_FN(msm_glv_fill_) over chunks */
        x->src_fr = fr;
        x->src_plain = plain;
        x->img = x->img_buf;
        x->gen_k = x->glv_buf;
        x->mt = 2 * s->m;
        bits = 128;
    }
    x->affine = (flags & CUZK_MSM_AFFINE) != 0;
    x->c = x->affine ? cuzk_msm_window_bits_affine(x->mt, bits) : cuzk_msm_window_bits(x->mt, bits, NULL);
    /* Below MSM_AFF_MIN_NB buckets the batches are too short to pay for the
     * inversion: XYZZ buckets, with the window of their model. */
    if (x->affine && x->c && ((size_t)1 << (x->c - 1)) < MSM_AFF_MIN_NB) {
        x->affine = false;
        x->c = cuzk_msm_window_bits(x->mt, bits, NULL);
    }
    if (!x->c) x->affine = false;
    /* under 64 points the log2(k) inversions cost more than they save */
    x->ones_affine = (flags & CUZK_MSM_AFFINE) && s->m1 >= 64;
    x->nwin = x->c ? (bits + 1 + x->c - 1) / x->c : 0;
    size_t nchunks = (s->m1 + MSM_ONE_CHUNK - 1) / MSM_ONE_CHUNK; /* < 2^32 / 2^14 */
    x->ntasks = x->nwin + (unsigned)(nchunks ? nchunks : 1);
    size_t nb = x->c ? (size_t)1 << (x->c - 1) : 0;
    /* Batch: large enough to share the inversion (~35 multiplications),
     * small against nb so that few points meet a busy bucket (deferred). */
    x->batch = x->affine ? (nb / 4 > 1024 ? 1024 : nb / 4) : 0;
    x->win = malloc(sizeof(XYZZ) * x->ntasks);
    if (!x->win) {
        MSM_FN(msm_ctx_free_)(x);
        return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

/* Joins the task results: Horner over the windows, top first, then the
 * scalar-1 sums in chunk order. */
static void MSM_FN(msm_finish_)(const MSM_FN(msm_ctx_) *x, JAC *out)
{
    XYZZ acc;
    PT(xyzz_set_infinity)(&acc);
    for (unsigned w = x->nwin; w-- > 0;) {
        for (unsigned i = 0; i < x->c; i++) PT(xyzz_dbl)(&acc, &acc);
        PT(xyzz_add)(&acc, &acc, &x->win[w]);
    }
    for (unsigned t = x->nwin; t < x->ntasks; t++) PT(xyzz_add)(&acc, &acc, &x->win[t]);
    PT(xyzz_to_jac)(out, &acc);
}

/* The template's parameters end with it: the next group defines its own. */
#undef MSM_FN
#undef PT
#undef AFF
#undef JAC
#undef XYZZ
#undef FE
#undef FE_ADD
#undef FE_SUB
#undef FE_NEG
#undef FE_MUL
#undef FE_SQR
#undef FE_INV
#undef FE_IS_ZERO
#undef MSM_AFF_MIN_NB
#undef MSM_COST_W
#undef MSM_ONES_COST
