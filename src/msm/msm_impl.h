/*
 * Pippenger MSM shared by G1 and G2, instantiated by msm.c with macros:
 *   MSM_FN(x)  public name, e.g. cuzk_g1_##x
 *   PT(x)      point function, e.g. cuzk_g1_##x
 *   AFF, JAC, XYZZ  point types
 * The method and cost model are documented in include/cuzk/msm.h; the
 * digit recoding and thread plumbing are in msm.c.
 */

typedef struct MSM_FN(msm_ctx_) {
    const AFF *bases;
    const uint32_t *gen_idx; /* bases with a general scalar */
    const msm_scalar_ *gen_k;
    size_t m;
    const uint32_t *one_idx; /* bases with scalar 1 */
    size_t m1;
    unsigned c, nwin, ntasks; /* nwin windows, then chunks of scalar-1 bases */
    XYZZ *win;     /* one result per task */
    XYZZ *buckets; /* 2^(c-1) per thread */
    atomic_uint next_task;
} MSM_FN(msm_ctx_);

/* sum_i d_w(k_i) · P_i for window w. */
static void MSM_FN(msm_window_)(MSM_FN(msm_ctx_) *x, XYZZ *b, unsigned w, XYZZ *res)
{
    size_t nb = (size_t)1 << (x->c - 1);
    for (size_t j = 0; j < nb; j++) PT(xyzz_set_infinity)(&b[j]);
    for (size_t i = 0; i < x->m; i++) {
        int d = msm_booth_digit_(x->gen_k[i].l, w, x->c);
        if (d == 0) continue;
        const AFF *p = &x->bases[x->gen_idx[i]];
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

static void MSM_FN(msm_task_)(MSM_FN(msm_ctx_) *x, XYZZ *b, unsigned t)
{
    if (t < x->nwin) {
        MSM_FN(msm_window_)(x, b, t, &x->win[t]);
        return;
    }
    size_t lo = (size_t)(t - x->nwin) * MSM_ONE_CHUNK;
    size_t hi = lo + MSM_ONE_CHUNK < x->m1 ? lo + MSM_ONE_CHUNK : x->m1;
    XYZZ acc;
    PT(xyzz_set_infinity)(&acc);
    for (size_t i = lo; i < hi; i++) PT(xyzz_add_affine)(&acc, &acc, &x->bases[x->one_idx[i]]);
    x->win[t] = acc;
}

typedef struct MSM_FN(msm_worker_) {
    MSM_FN(msm_ctx_) *ctx;
    XYZZ *buckets;
} MSM_FN(msm_worker_);

static void *MSM_FN(msm_thread_)(void *arg)
{
    MSM_FN(msm_worker_) *wk = arg;
    MSM_FN(msm_ctx_) *x = wk->ctx;
    for (;;) {
        unsigned t = atomic_fetch_add(&x->next_task, 1);
        if (t >= x->ntasks) break;
        MSM_FN(msm_task_)(x, wk->buckets, t);
    }
    return NULL;
}

/* The MSM on already classified scalars; returns CUZK_OK or NO_MEMORY. */
static int MSM_FN(msm_run_)(JAC *out, const AFF *bases, const msm_split_ *s, unsigned bits,
                            unsigned nthreads)
{
    MSM_FN(msm_ctx_) x = {.bases = bases,
                          .gen_idx = s->gen_idx,
                          .gen_k = s->gen_k,
                          .m = s->m,
                          .one_idx = s->one_idx,
                          .m1 = s->m1};
    x.c = cuzk_msm_window_bits(s->m, bits, NULL);
    x.nwin = x.c ? (bits + 1 + x.c - 1) / x.c : 0;
    atomic_init(&x.next_task, 0);
    size_t nchunks = (s->m1 + MSM_ONE_CHUNK - 1) / MSM_ONE_CHUNK; /* < 2^32 / 2^14 */
    unsigned ntasks = x.nwin + (unsigned)(nchunks ? nchunks : 1);
    x.ntasks = ntasks;
    if (nthreads == 0) nthreads = 1;
    if (nthreads > ntasks) nthreads = ntasks;
    size_t nb = x.c ? (size_t)1 << (x.c - 1) : 0;

    x.win = malloc(sizeof(XYZZ) * ntasks);
    x.buckets = nb ? malloc(sizeof(XYZZ) * nb * nthreads) : NULL;
    MSM_FN(msm_worker_) *wk = malloc(sizeof(*wk) * nthreads);
    pthread_t *th = malloc(sizeof(*th) * nthreads);
    if (!x.win || (nb && !x.buckets) || !wk || !th) {
        free(x.win);
        free(x.buckets);
        free(wk);
        free(th);
        return CUZK_ERR_NO_MEMORY;
    }
    unsigned nstarted = 0;
    for (unsigned t = 0; t < nthreads; t++) {
        wk[t].ctx = &x;
        wk[t].buckets = nb ? x.buckets + nb * t : NULL;
    }
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
    free(x.buckets);
    free(wk);
    free(th);
    return CUZK_OK;
}

int MSM_FN(msm)(JAC *out, const AFF *bases, const cuzk_fr *scalars, size_t n, unsigned nthreads)
{
    if (!out || (n && (!bases || !scalars)) || n > UINT32_MAX) return CUZK_ERR_INVALID_ARG;
    msm_split_ s;
    int err = msm_split_fr_(&s, scalars, n);
    if (err) return err;
    err = MSM_FN(msm_run_)(out, bases, &s, 255, nthreads);
    msm_split_free_(&s);
    return err;
}

int MSM_FN(msm_plain)(JAC *out, const AFF *bases, const uint64_t (*scalars)[4], size_t n,
                      unsigned nthreads)
{
    if (!out || (n && (!bases || !scalars)) || n > UINT32_MAX) return CUZK_ERR_INVALID_ARG;
    msm_split_ s;
    int err = msm_split_plain_(&s, scalars, n);
    if (err) return err;
    err = MSM_FN(msm_run_)(out, bases, &s, 256, nthreads);
    msm_split_free_(&s);
    return err;
}
