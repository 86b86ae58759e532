/*
 * Pippenger MSM shared by G1 and G2, instantiated by msm.c with macros:
 *   MSM_FN(x)  public name, e.g. cuzk_g1_##x
 *   PT(x)      point function, e.g. cuzk_g1_##x
 *   AFF, JAC, XYZZ  point types
 *   FE, FE_ADD, FE_SUB, FE_NEG, FE_MUL, FE_SQR, FE_INV, FE_IS_ZERO  the
 *              coordinate field (batch-affine buckets)
 *   MSM_AFF_MIN_NB  fewest buckets per window for affine buckets
 * The method and cost model are documented in include/cuzk/msm.h and the
 * flags in msm_internal.h; the digit recoding and GLV split are in msm.c.
 */

typedef struct MSM_FN(msm_ctx_) {
    const AFF *bases;
    const uint32_t *gen_idx; /* entry i < m: bases[gen_idx[i]] */
    const AFF *img;          /* GLV: entry m + i is img[i] = x^2·bases[gen_idx[i]] */
    const msm_scalar_ *gen_k; /* mt entries */
    size_t m, mt;
    const uint32_t *one_idx; /* bases with scalar 1 */
    size_t m1;
    unsigned c, nwin, ntasks; /* nwin windows, then chunks of scalar-1 bases */
    bool affine;
    size_t batch; /* affine additions per shared inversion */
    XYZZ *win;     /* one result per task */
    atomic_uint next_task;
} MSM_FN(msm_ctx_);

/* Per-thread scratch. */
typedef struct MSM_FN(msm_worker_) {
    MSM_FN(msm_ctx_) *ctx;
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
    if (wk->os) {
        MSM_FN(msm_ones_affine_)(x, wk, lo, hi, &acc);
    } else {
        for (size_t i = lo; i < hi; i++) PT(xyzz_add_affine)(&acc, &acc, &x->bases[x->one_idx[i]]);
    }
    x->win[t] = acc;
}

static void *MSM_FN(msm_thread_)(void *arg)
{
    MSM_FN(msm_worker_) *wk = arg;
    MSM_FN(msm_ctx_) *x = wk->ctx;
    for (;;) {
        unsigned t = atomic_fetch_add(&x->next_task, 1);
        if (t >= x->ntasks) break;
        MSM_FN(msm_task_)(x, wk, t);
    }
    return NULL;
}

static void MSM_FN(msm_workers_free_)(MSM_FN(msm_worker_) *wk, unsigned n)
{
    for (unsigned t = 0; t < n; t++) {
        free(wk[t].xb);
        free(wk[t].ab);
        free(wk[t].st);
        free(wk[t].eb);
        free(wk[t].ep);
        free(wk[t].eneg);
        free(wk[t].pre);
        free(wk[t].qb);
        free(wk[t].qb2);
        free(wk[t].qp);
        free(wk[t].qp2);
        free(wk[t].qneg);
        free(wk[t].qneg2);
        free(wk[t].os);
        free(wk[t].opre);
        free(wk[t].oflag);
    }
    free(wk);
}

/* The MSM on already classified scalars (GLV: reduced mod r); returns
 * CUZK_OK or NO_MEMORY. */
static int MSM_FN(msm_run_)(JAC *out, const AFF *bases, const msm_split_ *s, unsigned bits,
                            unsigned nthreads, unsigned flags)
{
    MSM_FN(msm_ctx_) x = {.bases = bases,
                          .gen_idx = s->gen_idx,
                          .gen_k = s->gen_k,
                          .m = s->m,
                          .mt = s->m,
                          .one_idx = s->one_idx,
                          .m1 = s->m1};
    AFF *img = NULL;
    msm_scalar_ *glv_k = NULL;
    if ((flags & CUZK_MSM_GLV) && s->m) {
        img = malloc(sizeof(AFF) * s->m);
        glv_k = malloc(sizeof(msm_scalar_) * 2 * s->m);
        if (!img || !glv_k) {
            free(img);
            free(glv_k);
            return CUZK_ERR_NO_MEMORY;
        }
        for (size_t i = 0; i < s->m; i++) {
            PT(affine_endo_x2)(&img[i], &bases[s->gen_idx[i]]);
            msm_scalar_ *a = &glv_k[i], *b = &glv_k[s->m + i];
            cuzk_msm_glv_split(a->l, b->l, s->gen_k[i].l);
            a->l[2] = a->l[3] = b->l[2] = b->l[3] = 0;
        }
        x.img = img;
        x.gen_k = glv_k;
        x.mt = 2 * s->m;
        bits = 128;
    }
    x.affine = (flags & CUZK_MSM_AFFINE) != 0;
    x.c = x.affine ? cuzk_msm_window_bits_affine(x.mt, bits) : cuzk_msm_window_bits(x.mt, bits, NULL);
    /* Below MSM_AFF_MIN_NB buckets the batches are too short to pay for the
     * inversion: XYZZ buckets, with the window of their model. */
    if (x.affine && x.c && ((size_t)1 << (x.c - 1)) < MSM_AFF_MIN_NB) {
        x.affine = false;
        x.c = cuzk_msm_window_bits(x.mt, bits, NULL);
    }
    x.nwin = x.c ? (bits + 1 + x.c - 1) / x.c : 0;
    atomic_init(&x.next_task, 0);
    size_t nchunks = (s->m1 + MSM_ONE_CHUNK - 1) / MSM_ONE_CHUNK; /* < 2^32 / 2^14 */
    unsigned ntasks = x.nwin + (unsigned)(nchunks ? nchunks : 1);
    x.ntasks = ntasks;
    if (nthreads == 0) nthreads = 1;
    if (nthreads > ntasks) nthreads = ntasks;
    size_t nb = x.c ? (size_t)1 << (x.c - 1) : 0;
    /* Batch: large enough to share the inversion (~35 multiplications),
     * small against nb so that few points meet a busy bucket (deferred). */
    x.batch = nb / 4 > 1024 ? 1024 : nb / 4;

    x.win = malloc(sizeof(XYZZ) * ntasks);
    MSM_FN(msm_worker_) *wk = calloc(nthreads, sizeof(*wk));
    pthread_t *th = malloc(sizeof(*th) * nthreads);
    bool ok = x.win && wk && th;
    for (unsigned t = 0; ok && t < nthreads; t++) {
        wk[t].ctx = &x;
        /* under 64 points the log2(k) inversions cost more than they save */
        if ((flags & CUZK_MSM_AFFINE) && s->m1 >= 64) {
            size_t cap = s->m1 < MSM_ONE_CHUNK ? s->m1 : MSM_ONE_CHUNK;
            wk[t].os = malloc(sizeof(AFF) * cap);
            wk[t].opre = malloc(sizeof(FE) * (cap / 2));
            wk[t].oflag = malloc(cap / 2);
            ok = wk[t].os && wk[t].opre && wk[t].oflag;
            if (!ok) break;
        }
        if (!nb) continue;
        wk[t].xb = malloc(sizeof(XYZZ) * nb);
        ok = wk[t].xb != NULL;
        if (ok && x.affine) {
            wk[t].ab = malloc(sizeof(AFF) * nb);
            wk[t].st = malloc(nb);
            wk[t].eb = malloc(sizeof(uint32_t) * x.batch);
            wk[t].ep = malloc(sizeof(AFF *) * x.batch);
            wk[t].eneg = malloc(x.batch);
            wk[t].pre = malloc(sizeof(FE) * x.batch);
            size_t q = x.batch / 2 + 1;
            wk[t].qb = malloc(sizeof(uint32_t) * q);
            wk[t].qb2 = malloc(sizeof(uint32_t) * q);
            wk[t].qp = malloc(sizeof(AFF *) * q);
            wk[t].qp2 = malloc(sizeof(AFF *) * q);
            wk[t].qneg = malloc(q);
            wk[t].qneg2 = malloc(q);
            ok = wk[t].ab && wk[t].st && wk[t].eb && wk[t].ep && wk[t].eneg && wk[t].pre && wk[t].qb &&
                 wk[t].qb2 && wk[t].qp && wk[t].qp2 && wk[t].qneg && wk[t].qneg2;
        }
    }
    if (!ok) {
        free(x.win);
        if (wk) MSM_FN(msm_workers_free_)(wk, nthreads);
        free(th);
        free(img);
        free(glv_k);
        return CUZK_ERR_NO_MEMORY;
    }
    unsigned nstarted = 0;
    /* Worker 0 is this thread; a failed pthread_create just leaves its
     * tasks to the others (tasks are pulled from a shared counter). */
    for (unsigned t = 1; t < nthreads; t++) {
        if (pthread_create(&th[nstarted + 1], NULL, MSM_FN(msm_thread_), &wk[t]) != 0) break;
        nstarted++;
    }
    MSM_FN(msm_thread_)(&wk[0]);
    for (unsigned t = 1; t <= nstarted; t++) pthread_join(th[t], NULL);

    /* Horner over the windows, top first, then the scalar-1 sum. */
    XYZZ acc;
    PT(xyzz_set_infinity)(&acc);
    for (unsigned w = x.nwin; w-- > 0;) {
        for (unsigned i = 0; i < x.c; i++) PT(xyzz_dbl)(&acc, &acc);
        PT(xyzz_add)(&acc, &acc, &x.win[w]);
    }
    for (unsigned t = x.nwin; t < ntasks; t++) PT(xyzz_add)(&acc, &acc, &x.win[t]);
    PT(xyzz_to_jac)(out, &acc);
    free(x.win);
    MSM_FN(msm_workers_free_)(wk, nthreads);
    free(th);
    free(img);
    free(glv_k);
    return CUZK_OK;
}

int MSM_FN(msm_flags)(JAC *out, const AFF *bases, const uint64_t (*scalars)[4], size_t n,
                      unsigned nthreads, unsigned flags)
{
    if (!out || (n && (!bases || !scalars)) || n > UINT32_MAX) return CUZK_ERR_INVALID_ARG;
    msm_split_ s;
    int err = msm_split_plain_(&s, scalars, n, (flags & CUZK_MSM_GLV) != 0);
    if (err) return err;
    err = MSM_FN(msm_run_)(out, bases, &s, 256, nthreads, flags);
    msm_split_free_(&s);
    return err;
}

int MSM_FN(msm)(JAC *out, const AFF *bases, const cuzk_fr *scalars, size_t n, unsigned nthreads)
{
    if (!out || (n && (!bases || !scalars)) || n > UINT32_MAX) return CUZK_ERR_INVALID_ARG;
    msm_split_ s;
    int err = msm_split_fr_(&s, scalars, n);
    if (err) return err;
    err = MSM_FN(msm_run_)(out, bases, &s, 255, nthreads, CUZK_MSM_DEFAULT);
    msm_split_free_(&s);
    return err;
}

int MSM_FN(msm_plain)(JAC *out, const AFF *bases, const uint64_t (*scalars)[4], size_t n,
                      unsigned nthreads)
{
    return MSM_FN(msm_flags)(out, bases, scalars, n, nthreads, CUZK_MSM_DEFAULT);
}
