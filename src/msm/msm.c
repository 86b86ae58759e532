/* CPU multi-scalar multiplication for G1 and G2 (method: include/cuzk/msm/msm.h). */
#include "cuzk/msm/msm.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "msm_internal.h"

#define MSM_C_MIN 2
#define MSM_C_MAX 20
/* Scalar-1 bases are summed in chunks of this many, one task each; fixed
 * (not from nthreads) so the output does not depend on nthreads. */
#define MSM_ONE_CHUNK 16384
#define CUZK_MSM_X_ABS 0xd201000000010000ULL

typedef struct msm_scalar_ { uint64_t l[4]; } msm_scalar_;

unsigned cuzk_msm_window_bits(size_t m, unsigned bits, uint64_t *cost)
{
    if (m == 0) {
        if (cost) *cost = 0;
        return 0;
    }
    unsigned best = MSM_C_MIN;
    uint64_t best_cost = UINT64_MAX;
    for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++) {
        uint64_t nwin = (bits + 1 + c - 1) / c;
        uint64_t cst = nwin * ((uint64_t)m + ((uint64_t)1 << c));
        if (cst < best_cost) {
            best_cost = cst;
            best = c;
        }
    }
    if (cost) *cost = best_cost;
    return best;
}

unsigned cuzk_msm_window_bits_affine(size_t m, unsigned bits)
{
    if (m == 0) return 0;
    unsigned best = MSM_C_MIN;
    uint64_t best_cost = UINT64_MAX;
    for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++) {
        uint64_t nwin = (bits + 1 + c - 1) / c;
        uint64_t cst = nwin * ((uint64_t)m + ((uint64_t)2 << c));
        if (cst < best_cost) {
            best_cost = cst;
            best = c;
        }
    }
    return best;
}

/* x^2 = 0xac45a4010001a4020000000100000000 (x = -0xd201000000010000). */
const uint64_t cuzk_msm_x2[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};

/* q = a / d, returns a mod d, for a of 4 limbs and a 64-bit d. */
static uint64_t msm_divrem_u64_(uint64_t q[4], const uint64_t a[4], uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned __int128 cur = (rem << 64) | a[i];
        q[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

void cuzk_msm_glv_split(uint64_t k1[2], uint64_t k2[2], const uint64_t k[4])
{
    /* k = (q·|x| + r1)·|x| + r0 = q·x^2 + (r1·|x| + r0); r1, r0 < |x| so the
     * low part is < x^2, and q <= k / x^2 < r / x^2 < x^2 < 2^128. */
    uint64_t q1[4], q2[4];
    uint64_t r0 = msm_divrem_u64_(q1, k, CUZK_MSM_X_ABS);
    uint64_t r1 = msm_divrem_u64_(q2, q1, CUZK_MSM_X_ABS);
    unsigned __int128 lo = (unsigned __int128)r1 * CUZK_MSM_X_ABS + r0;
    k1[0] = (uint64_t)lo;
    k1[1] = (uint64_t)(lo >> 64);
    k2[0] = q2[0];
    k2[1] = q2[1];
}

/* k mod r for a 256-bit k (at most 4 subtractions: 2^256 < 5r). */
static void msm_reduce_r_(uint64_t k[4])
{
    for (;;) {
        int ge = 1;
        for (int i = 3; i >= 0; i--) {
            if (k[i] != cuzk_fr_modulus[i]) {
                ge = k[i] > cuzk_fr_modulus[i];
                break;
            }
        }
        if (!ge) return;
        uint64_t bw = 0;
        for (int i = 0; i < 4; i++) {
            uint64_t o = k[i], m = cuzk_fr_modulus[i];
            k[i] = o - m - bw;
            bw = (o < m) | ((o == m) & bw);
        }
    }
}

/* Bits [pos, pos + len) of k (len <= 32), zero outside [0, 256). */
static inline uint32_t msm_bits_(const uint64_t k[4], int pos, unsigned len)
{
    uint64_t v;
    if (pos < 0) {
        v = k[0] << -pos;
    } else {
        unsigned li = (unsigned)pos >> 6, sh = (unsigned)pos & 63;
        if (li >= 4) return 0;
        v = k[li] >> sh;
        if (sh && li + 1 < 4) v |= k[li + 1] << (64 - sh);
    }
    return (uint32_t)(v & ((1ULL << len) - 1));
}

/* Booth digit of window w (width c): its c bits plus the top bit of the
 * window below, minus 2^c times its own top bit; in [-2^(c-1), 2^(c-1)]. */
static inline int msm_booth_digit_(const uint64_t k[4], unsigned w, unsigned c)
{
    uint32_t v = msm_bits_(k, (int)(w * c) - 1, c + 1);
    return (int)(v >> 1) + (int)(v & 1) - (int)((v >> c) << c);
}

/* Scalars split by class: zeros dropped, ones listed, the rest with their
 * base index and (unless the GLV entries are made from the caller's
 * scalars, gen_k NULL) copied as canonical limbs. */
typedef struct msm_split_ {
    uint32_t *gen_idx;
    msm_scalar_ *gen_k;
    size_t m;
    uint32_t *one_idx;
    size_t m1;
} msm_split_;

static void msm_split_free_(msm_split_ *s)
{
    free(s->gen_idx);
    free(s->gen_k);
    free(s->one_idx);
}

static int msm_split_alloc_(msm_split_ *s, size_t n, bool keep_k)
{
    s->m = s->m1 = 0;
    s->gen_idx = malloc(sizeof(uint32_t) * (n ? n : 1));
    s->gen_k = keep_k ? malloc(sizeof(msm_scalar_) * (n ? n : 1)) : NULL;
    s->one_idx = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!s->gen_idx || (keep_k && !s->gen_k) || !s->one_idx) {
        msm_split_free_(s);
        return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

static inline void msm_split_add_(msm_split_ *s, const uint64_t k[4], size_t i)
{
    uint64_t hi = k[1] | k[2] | k[3];
    if (!hi && k[0] == 0) return;
    if (!hi && k[0] == 1) {
        s->one_idx[s->m1++] = (uint32_t)i;
        return;
    }
    s->gen_idx[s->m] = (uint32_t)i;
    if (s->gen_k)
        for (int j = 0; j < 4; j++) s->gen_k[s->m].l[j] = k[j];
    s->m++;
}

static int msm_split_fr_(msm_split_ *s, const cuzk_fr *k, size_t n, bool keep_k)
{
    int err = msm_split_alloc_(s, n, keep_k);
    if (err) return err;
    for (size_t i = 0; i < n; i++) {
        uint64_t l[4];
        cuzk_fr_to_limbs(l, &k[i]);
        msm_split_add_(s, l, i);
    }
    return CUZK_OK;
}

/* reduce: take the scalars mod r (equal results for subgroup bases). */
static int msm_split_plain_(msm_split_ *s, const uint64_t (*k)[4], size_t n, bool reduce, bool keep_k)
{
    int err = msm_split_alloc_(s, n, keep_k);
    if (err) return err;
    for (size_t i = 0; i < n; i++) {
        if (!reduce) {
            msm_split_add_(s, k[i], i);
            continue;
        }
        uint64_t t[4] = {k[i][0], k[i][1], k[i][2], k[i][3]};
        msm_reduce_r_(t);
        msm_split_add_(s, t, i);
    }
    return CUZK_OK;
}

/* Gives back the unused tail of the split's arrays: a batch holds every
 * MSM's split at once. A failed shrink keeps the larger block. */
static void msm_split_shrink_(msm_split_ *s)
{
    void *p;
    if ((p = realloc(s->gen_idx, sizeof(uint32_t) * (s->m ? s->m : 1)))) s->gen_idx = p;
    if (s->gen_k && (p = realloc(s->gen_k, sizeof(msm_scalar_) * (s->m ? s->m : 1)))) s->gen_k = p;
    if ((p = realloc(s->one_idx, sizeof(uint32_t) * (s->m1 ? s->m1 : 1)))) s->one_idx = p;
}

/* Per-thread scratch sizes: the largest over a batch's MSMs of one group. */
typedef struct msm_needs_ {
    size_t nb;     /* XYZZ buckets */
    size_t nb_aff; /* affine buckets */
    size_t batch;  /* open-batch entries */
    size_t onecap; /* points of a pairwise scalar-1 chunk */
} msm_needs_;

#define MSM_FN(x) cuzk_g1_##x
#define PT(x) cuzk_g1_##x
#define AFF cuzk_g1_affine
#define JAC cuzk_g1_jac
#define XYZZ cuzk_g1_xyzz
#define FE cuzk_fp
#define MSM_AFF_MIN_NB CUZK_MSM_G1_AFF_MIN_NB
#define MSM_COST_W 1
#define MSM_ONES_COST 8
#define FE_ADD cuzk_fp_add
#define FE_SUB cuzk_fp_sub
#define FE_NEG cuzk_fp_neg
#define FE_MUL cuzk_fp_mul
#define FE_SQR cuzk_fp_sqr
#define FE_INV cuzk_fp_inv
#define FE_IS_ZERO cuzk_fp_is_zero
#include "msm_impl.h"

#define MSM_FN(x) cuzk_g2_##x
#define PT(x) cuzk_g2_##x
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
#define FE cuzk_fp2
#define MSM_AFF_MIN_NB CUZK_MSM_G2_AFF_MIN_NB
#define MSM_COST_W 3
#define MSM_ONES_COST 16 /* measured: the G2 pairwise sum is relatively dearer */
#define FE_ADD cuzk_fp2_add
#define FE_SUB cuzk_fp2_sub
#define FE_NEG cuzk_fp2_neg
#define FE_MUL cuzk_fp2_mul
#define FE_SQR cuzk_fp2_sqr
#define FE_INV cuzk_fp2_inv
#define FE_IS_ZERO cuzk_fp2_is_zero
#include "msm_impl.h"

/* ---- the batch driver (method: include/cuzk/msm/msm.h, cuzk_msm_batch) ---- */

typedef struct msm_bjob_ {
    const cuzk_msm_job *job;
    bool g2;
    int err;
    union {
        cuzk_g1_msm_ctx_ g1;
        cuzk_g2_msm_ctx_ g2;
    } x;
} msm_bjob_;

typedef struct msm_btask_ {
    uint64_t cost;
    uint32_t job, t;
} msm_btask_;

typedef struct msm_batch_ {
    msm_bjob_ *jobs;
    size_t njobs;
    unsigned flags;
    size_t *prep_order; /* jobs by n, largest first */
    msm_btask_ *tasks;
    size_t ntasks;
} msm_batch_;

typedef struct msm_bthread_ {
    msm_batch_ *b;
    unsigned char *scratch; /* the G1 and G2 views share it */
    cuzk_g1_msm_worker_ w1;
    cuzk_g2_msm_worker_ w2;
} msm_bthread_;

/* The three phases as loops of cuzk_parallel_for over the batch's th[]:
 * worker w uses th[w] (its scratch and bucket views). */
static void msm_prep_task_(void *arg, unsigned w, size_t lo, size_t hi)
{
    msm_batch_ *b = ((msm_bthread_ *)arg)->b;
    for (size_t i = lo; i < hi; i++) {
        msm_bjob_ *j = &b->jobs[b->prep_order[i]];
        const cuzk_msm_job *d = j->job;
        j->err = j->g2 ? cuzk_g2_msm_prep_(&j->x.g2, d->g2_bases, d->fr, d->plain, d->n, b->flags)
                       : cuzk_g1_msm_prep_(&j->x.g1, d->g1_bases, d->fr, d->plain, d->n, b->flags);
    }
}

static void msm_window_task_(void *arg, unsigned w, size_t lo, size_t hi)
{
    msm_bthread_ *th = (msm_bthread_ *)arg + w;
    msm_batch_ *b = th->b;
    for (size_t i = lo; i < hi; i++) {
        msm_bjob_ *j = &b->jobs[b->tasks[i].job];
        if (j->g2)
            cuzk_g2_msm_task_(&j->x.g2, &th->w2, b->tasks[i].t);
        else
            cuzk_g1_msm_task_(&j->x.g1, &th->w1, b->tasks[i].t);
    }
}

/* GLV entries are filled in chunks of this many general scalars, tasks of
 * their own between the classification and the windows. */
#define MSM_GLV_CHUNK 4096

static void msm_glv_task_(void *arg, unsigned w, size_t lo, size_t hi)
{
    msm_batch_ *b = ((msm_bthread_ *)arg)->b;
    for (size_t i = lo; i < hi; i++) {
        msm_bjob_ *j = &b->jobs[b->tasks[i].job];
        size_t lo = (size_t)b->tasks[i].t * MSM_GLV_CHUNK, m = j->g2 ? j->x.g2.m : j->x.g1.m;
        size_t hi = m - lo < MSM_GLV_CHUNK ? m : lo + MSM_GLV_CHUNK;
        if (j->g2)
            cuzk_g2_msm_glv_fill_(&j->x.g2, lo, hi);
        else
            cuzk_g1_msm_glv_fill_(&j->x.g1, lo, hi);
    }
}

static int msm_btask_cmp_(const void *pa, const void *pb)
{
    const msm_btask_ *a = pa, *b = pb;
    if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
    if (a->job != b->job) return a->job < b->job ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* Tasks of job j: its GLV chunks (glv) or its windows and scalar-1 chunks,
 * and the estimated cost of task t. */
static unsigned msm_job_ntasks_(const msm_bjob_ *j, bool glv)
{
    if (!glv) return j->g2 ? j->x.g2.ntasks : j->x.g1.ntasks;
    if (!(j->g2 ? j->x.g2.img_buf != NULL : j->x.g1.img_buf != NULL)) return 0;
    return (unsigned)(((j->g2 ? j->x.g2.m : j->x.g1.m) + MSM_GLV_CHUNK - 1) / MSM_GLV_CHUNK);
}

static uint64_t msm_job_cost_(const msm_bjob_ *j, bool glv, unsigned t)
{
    if (!glv) return j->g2 ? cuzk_g2_msm_task_cost_(&j->x.g2, t) : cuzk_g1_msm_task_cost_(&j->x.g1, t);
    size_t m = j->g2 ? j->x.g2.m : j->x.g1.m, lo = (size_t)t * MSM_GLV_CHUNK;
    return (m - lo < MSM_GLV_CHUNK ? m - lo : MSM_GLV_CHUNK) * (j->g2 ? 3 : 1);
}

/* b->tasks: every job's tasks of one phase, largest estimated cost first. */
static int msm_tasks_build_(msm_batch_ *b, bool glv)
{
    free(b->tasks);
    b->tasks = NULL;
    b->ntasks = 0;
    size_t nt = 0;
    for (size_t i = 0; i < b->njobs; i++) nt += msm_job_ntasks_(&b->jobs[i], glv);
    if (!nt) return CUZK_OK;
    b->tasks = malloc(nt * sizeof *b->tasks);
    if (!b->tasks) return CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; i < b->njobs; i++) {
        unsigned jt = msm_job_ntasks_(&b->jobs[i], glv);
        for (unsigned t = 0; t < jt; t++) {
            msm_btask_ *k = &b->tasks[b->ntasks++];
            k->job = (uint32_t)i;
            k->t = t;
            k->cost = msm_job_cost_(&b->jobs[i], glv, t);
        }
    }
    qsort(b->tasks, b->ntasks, sizeof *b->tasks, msm_btask_cmp_);
    return CUZK_OK;
}

static bool msm_job_valid_(const cuzk_msm_job *d)
{
    bool g1 = d->g1_out != NULL, g2 = d->g2_out != NULL;
    if (g1 == g2 || d->n > UINT32_MAX) return false;
    if (g1 && d->g2_bases) return false;
    if (g2 && d->g1_bases) return false;
    if (d->fr && d->plain) return false;
    if (d->n && (!(g1 ? (const void *)d->g1_bases : (const void *)d->g2_bases) || (!d->fr && !d->plain))) return false;
    return true;
}

/* cuzk_msm_batch with the method given by flags (msm_internal.h). */
static int msm_batch_flags_(const cuzk_msm_job *jobs, size_t njobs, unsigned nthreads, unsigned flags)
{
    if (njobs && !jobs) return CUZK_ERR_INVALID_ARG;
    for (size_t i = 0; i < njobs; i++)
        if (!msm_job_valid_(&jobs[i])) return CUZK_ERR_INVALID_ARG;
    if (njobs == 0) return CUZK_OK;
    if (nthreads == 0) nthreads = 1;
    int rc = CUZK_OK;
    msm_batch_ b = {.njobs = njobs, .flags = flags};
    b.jobs = calloc(njobs, sizeof *b.jobs);
    b.prep_order = malloc(njobs * sizeof *b.prep_order);
    msm_bthread_ *th = calloc(nthreads, sizeof *th);
    if (!b.jobs || !b.prep_order || !th) {
        rc = CUZK_ERR_NO_MEMORY;
        goto done;
    }
    for (unsigned t = 0; t < nthreads; t++) th[t].b = &b;

    /* prepare, largest n first (the key's high bits), ties by job index */
    for (size_t i = 0; i < njobs; i++) {
        b.jobs[i].job = &jobs[i];
        b.jobs[i].g2 = jobs[i].g2_out != NULL;
        b.prep_order[i] = i;
    }
    for (size_t i = 1; i < njobs; i++) { /* insertion sort: a handful of jobs */
        size_t v = b.prep_order[i], k = i;
        while (k > 0 && jobs[b.prep_order[k - 1]].n < jobs[v].n) {
            b.prep_order[k] = b.prep_order[k - 1];
            k--;
        }
        b.prep_order[k] = v;
    }
    cuzk_parallel_for(njobs, 1, nthreads, msm_prep_task_, th);
    for (size_t i = 0; i < njobs; i++)
        if (b.jobs[i].err) rc = b.jobs[i].err;
    if (rc) goto done;

    /* GLV entries: chunks of all jobs on all threads (G2 ones first) */
    if ((rc = msm_tasks_build_(&b, true))) goto done;
    cuzk_parallel_for(b.ntasks, 1, nthreads, msm_glv_task_, th);

    /* one task list, largest estimated cost first */
    if ((rc = msm_tasks_build_(&b, false))) goto done;
    msm_needs_ n1 = {0}, n2 = {0};
    for (size_t i = 0; i < njobs; i++) {
        msm_bjob_ *j = &b.jobs[i];
        if (j->g2)
            cuzk_g2_msm_needs_(&j->x.g2, &n2);
        else
            cuzk_g1_msm_needs_(&j->x.g1, &n1);
    }

    unsigned nth = b.ntasks ? cuzk_parallel_threads(b.ntasks, 1, nthreads) : 0;
    size_t s1 = cuzk_g1_msm_worker_carve_(&th[0].w1, NULL, &n1);
    size_t s2 = cuzk_g2_msm_worker_carve_(&th[0].w2, NULL, &n2);
    size_t sz = s1 > s2 ? s1 : s2;
    for (unsigned t = 0; t < nth; t++) {
        th[t].scratch = malloc(sz ? sz : 1);
        if (!th[t].scratch) {
            rc = CUZK_ERR_NO_MEMORY;
            goto done;
        }
        cuzk_g1_msm_worker_carve_(&th[t].w1, th[t].scratch, &n1);
        cuzk_g2_msm_worker_carve_(&th[t].w2, th[t].scratch, &n2);
    }
    cuzk_parallel_for(b.ntasks, 1, nth, msm_window_task_, th);

    /* outputs only now: on an error none is written */
    for (size_t i = 0; i < njobs; i++) {
        msm_bjob_ *j = &b.jobs[i];
        if (j->g2)
            cuzk_g2_msm_finish_(&j->x.g2, jobs[i].g2_out);
        else
            cuzk_g1_msm_finish_(&j->x.g1, jobs[i].g1_out);
    }

done:
    if (b.jobs) {
        for (size_t i = 0; i < njobs; i++) {
            if (b.jobs[i].g2)
                cuzk_g2_msm_ctx_free_(&b.jobs[i].x.g2);
            else
                cuzk_g1_msm_ctx_free_(&b.jobs[i].x.g1);
        }
    }
    if (th)
        for (unsigned t = 0; t < nthreads; t++) free(th[t].scratch);
    free(th);
    free(b.tasks);
    free(b.prep_order);
    free(b.jobs);
    return rc;
}

int cuzk_msm_batch(const cuzk_msm_job *jobs, size_t njobs, unsigned nthreads)
{
    return msm_batch_flags_(jobs, njobs, nthreads, CUZK_MSM_DEFAULT);
}

/* ---- one MSM: a batch of one ---- */

int cuzk_g1_msm_flags(cuzk_g1_jac *out, const cuzk_g1_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads, unsigned flags)
{
    if (!out || (n && (!bases || !scalars))) return CUZK_ERR_INVALID_ARG;
    cuzk_msm_job j = {.g1_out = out, .g1_bases = bases, .plain = scalars, .n = n};
    return msm_batch_flags_(&j, 1, nthreads, flags);
}

int cuzk_g2_msm_flags(cuzk_g2_jac *out, const cuzk_g2_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads, unsigned flags)
{
    if (!out || (n && (!bases || !scalars))) return CUZK_ERR_INVALID_ARG;
    cuzk_msm_job j = {.g2_out = out, .g2_bases = bases, .plain = scalars, .n = n};
    return msm_batch_flags_(&j, 1, nthreads, flags);
}

int cuzk_g1_msm(cuzk_g1_jac *out, const cuzk_g1_affine *bases, const cuzk_fr *scalars, size_t n,
                unsigned nthreads)
{
    if (!out || (n && (!bases || !scalars))) return CUZK_ERR_INVALID_ARG;
    cuzk_msm_job j = {.g1_out = out, .g1_bases = bases, .fr = scalars, .n = n};
    return msm_batch_flags_(&j, 1, nthreads, CUZK_MSM_DEFAULT);
}

int cuzk_g2_msm(cuzk_g2_jac *out, const cuzk_g2_affine *bases, const cuzk_fr *scalars, size_t n,
                unsigned nthreads)
{
    if (!out || (n && (!bases || !scalars))) return CUZK_ERR_INVALID_ARG;
    cuzk_msm_job j = {.g2_out = out, .g2_bases = bases, .fr = scalars, .n = n};
    return msm_batch_flags_(&j, 1, nthreads, CUZK_MSM_DEFAULT);
}

int cuzk_g1_msm_plain(cuzk_g1_jac *out, const cuzk_g1_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads)
{
    return cuzk_g1_msm_flags(out, bases, scalars, n, nthreads, CUZK_MSM_DEFAULT);
}

int cuzk_g2_msm_plain(cuzk_g2_jac *out, const cuzk_g2_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads)
{
    return cuzk_g2_msm_flags(out, bases, scalars, n, nthreads, CUZK_MSM_DEFAULT);
}
