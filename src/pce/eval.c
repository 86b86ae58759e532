/* a = A·w, b = B·w, c = C·w over row blocks on several threads.
 *
 * Each row sums into two unreduced 320-bit accumulators (terms with +1 and
 * positive small coefficients; terms with -1 and negative ones), reduced
 * once per row: a ±1 entry costs a 4-limb add, a small one a 64x256-bit
 * product, only general coefficients a field multiplication. The values are
 * Montgomery representatives, and k·(xR) = (kx)R, so integer arithmetic on
 * them is field arithmetic once reduced mod r. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "pce_internal.h"

typedef struct acc5 {
    uint64_t l[5];
} acc5;

static inline void acc_add(acc5 *a, const uint64_t *x)
{
    unsigned __int128 t = (unsigned __int128)a->l[0] + x[0];
    a->l[0] = (uint64_t)t;
    t = (unsigned __int128)a->l[1] + x[1] + (uint64_t)(t >> 64);
    a->l[1] = (uint64_t)t;
    t = (unsigned __int128)a->l[2] + x[2] + (uint64_t)(t >> 64);
    a->l[2] = (uint64_t)t;
    t = (unsigned __int128)a->l[3] + x[3] + (uint64_t)(t >> 64);
    a->l[3] = (uint64_t)t;
    a->l[4] += (uint64_t)(t >> 64);
}

static inline void acc_add_mul(acc5 *a, const uint64_t *x, uint64_t k)
{
    unsigned __int128 p = (unsigned __int128)x[0] * k, t;
    t = (unsigned __int128)a->l[0] + (uint64_t)p;
    a->l[0] = (uint64_t)t;
    uint64_t c = (uint64_t)(t >> 64), hi = (uint64_t)(p >> 64);
    for (int i = 1; i < 4; i++) {
        p = (unsigned __int128)x[i] * k + hi;
        t = (unsigned __int128)a->l[i] + (uint64_t)p + c;
        a->l[i] = (uint64_t)t;
        c = (uint64_t)(t >> 64), hi = (uint64_t)(p >> 64);
    }
    a->l[4] += hi + c;
}

/* hi·2^256 mod r for small hi: the Montgomery form of hi. */
#define FOLD_TABLE 64
static cuzk_fr fold_table[FOLD_TABLE];
static pthread_once_t fold_once = PTHREAD_ONCE_INIT;
static void fold_init(void)
{
    for (uint64_t h = 0; h < FOLD_TABLE; h++) cuzk_fr_set_u64(&fold_table[h], h);
}

static inline bool geq_r(const uint64_t *x)
{
    for (int i = 3; i >= 0; i--) {
        if (x[i] != cuzk_fr_modulus[i]) return x[i] > cuzk_fr_modulus[i];
    }
    return true;
}

static inline void sub_r(uint64_t *x)
{
    unsigned __int128 t = (unsigned __int128)x[0] - cuzk_fr_modulus[0];
    x[0] = (uint64_t)t;
    for (int i = 1; i < 4; i++) {
        t = (unsigned __int128)x[i] - cuzk_fr_modulus[i] - (uint64_t)(t >> 127);
        x[i] = (uint64_t)t;
    }
}

static void acc_reduce(cuzk_fr *out, const acc5 *a)
{
    cuzk_fr lo;
    memcpy(lo.l, a->l, 32);
    while (geq_r(lo.l)) sub_r(lo.l); /* lo < 2^256 < 3r: at most twice */
    uint64_t h = a->l[4];
    if (h) {
        cuzk_fr f;
        if (h < FOLD_TABLE) f = fold_table[h];
        else cuzk_fr_set_u64(&f, h);
        cuzk_fr_add(&lo, &lo, &f);
    }
    *out = lo;
}

/* Keeps the top limb far from overflow on long rows (low enough that the
 * tests' long rows of large small coefficients reach it). */
#define ACC_FOLD_AT ((uint64_t)1 << 32)
static inline void acc_check(acc5 *a)
{
    if (__builtin_expect(a->l[4] >= ACC_FOLD_AT, 0)) {
        cuzk_fr f;
        acc_reduce(&f, a);
        memcpy(a->l, f.l, 32);
        a->l[4] = 0;
    }
}

/* Reduces a row's accumulator: usually the top limb is zero and one
 * conditional subtraction finishes it. */
static inline void acc_reduce_fast(cuzk_fr *out, const acc5 *a)
{
    if (__builtin_expect(a->l[4] == 0, 1)) {
        memcpy(out->l, a->l, 32);
        if (geq_r(out->l)) {
            sub_r(out->l);
            if (geq_r(out->l)) sub_r(out->l);
        }
        return;
    }
    acc_reduce(out, a);
}

typedef struct eval_ctx {
    const cuzk_pce *p;
    const cuzk_fr *input, *aux;
    cuzk_fr *out[3];
    size_t nblocks;
} eval_ctx;

#define EVAL_BLOCK_ROWS 8192u
#define PREFETCH_AHEAD 16

/* Codes whose top three bits (class, sign) are 010 (-1) or 101 (-small)
 * go to the negative accumulator. */
#define NEG_TOP3 ((1u << 2) | (1u << 5))

/* Rows [r0, r1) of one matrix; RP is the row pointer array (u32 or u64). */
#define EVAL_ROWS(RP)                                                                                        \
    do {                                                                                                     \
        uint64_t e = RP[r0];                                                                                 \
        for (uint64_t r = r0; r < r1; r++) {                                                                 \
            const uint64_t e1 = RP[r + 1];                                                                   \
            acc5 acc[2] = {{{0, 0, 0, 0, 0}}, {{0, 0, 0, 0, 0}}};                                            \
            for (; e < e1; e++) {                                                                            \
                const uint32_t cl = col[e], cd = code[e];                                                    \
                /* the witness gather is the cache-missing access: fetch ahead */                            \
                __builtin_prefetch(&aux[col[e + PREFETCH_AHEAD < nnz ? e + PREFETCH_AHEAD : e]]);            \
                const cuzk_fr *x = cl < ni ? &input[cl] : &aux[cl];                                          \
                if (__builtin_expect((cd >> CUZK_PCE_CLASS_SHIFT) == CUZK_PCE_GENERAL, 0)) {               \
                    cuzk_fr y;                                                                               \
                    cuzk_fr_mul(&y, x, &coeffs[cd & CUZK_PCE_PAYLOAD_MASK]);                                 \
                    acc_add(&acc[0], y.l);                                                                   \
                    acc_check(&acc[0]);                                                                      \
                } else {                                                                                     \
                    /* ±1 and ±small alike: one 64x256 product, no unpredictable branch */                  \
                    const uint64_t k = (cd >> CUZK_PCE_CLASS_SHIFT) == CUZK_PCE_SMALL ? (cd & CUZK_PCE_SMALL_MAX) \
                                                                                        : 1;                 \
                    acc5 *t = &acc[(NEG_TOP3 >> (cd >> 29)) & 1];                                            \
                    acc_add_mul(t, x->l, k);                                                                 \
                    acc_check(t);                                                                            \
                }                                                                                            \
            }                                                                                                \
            acc_reduce_fast(&out[r], &acc[0]);                                                               \
            if (acc[1].l[0] | acc[1].l[1] | acc[1].l[2] | acc[1].l[3] | acc[1].l[4]) {                       \
                cuzk_fr n;                                                                                   \
                acc_reduce_fast(&n, &acc[1]);                                                                \
                cuzk_fr_sub(&out[r], &out[r], &n);                                                           \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

static void eval_task(size_t t, void *arg)
{
    const eval_ctx *c = arg;
    const cuzk_pce *p = c->p;
    const size_t k = t / c->nblocks, blk = t % c->nblocks;
    const cuzk_pce_matrix *m = &p->m[k];
    const uint64_t r0 = (uint64_t)blk * EVAL_BLOCK_ROWS;
    uint64_t r1 = r0 + EVAL_BLOCK_ROWS;
    if (r1 > p->num_constraints) r1 = p->num_constraints;
    const uint32_t ni = (uint32_t)p->num_inputs;
    const cuzk_fr *input = c->input, *aux = c->aux - ni; /* aux[col] for col >= ni */
    const uint32_t *col = m->col, *code = m->code;
    const uint64_t nnz = m->nnz;
    const cuzk_fr *coeffs = p->coeffs;
    cuzk_fr *out = c->out[k];
    if (m->row_ptr32) {
        const uint32_t *rp = m->row_ptr32;
        EVAL_ROWS(rp);
    } else {
        const uint64_t *rp = m->row_ptr64;
        EVAL_ROWS(rp);
    }
}

int cuzk_pce_eval_raw(const cuzk_pce *p, const cuzk_fr *input, const cuzk_fr *aux, cuzk_pce_eval_buf *out,
                      unsigned nthreads)
{
    if (!p || !out || (p->num_inputs && !input) || (p->num_aux && !aux) || out->len != p->num_constraints ||
        (p->num_constraints && (!out->a || !out->b || !out->c)))
        return CUZK_ERR_INVALID_ARG;
    pthread_once(&fold_once, fold_init);
    eval_ctx c = {.p = p, .input = input, .aux = aux, .out = {out->a, out->b, out->c}};
    c.nblocks = (size_t)((p->num_constraints + EVAL_BLOCK_ROWS - 1) / EVAL_BLOCK_ROWS);
    pce_parallel(3 * c.nblocks, eval_task, &c, nthreads ? nthreads : 1);
    PCE_COUNT(evals, 1);
    PCE_COUNT(eval_nnz, p->m[0].nnz + p->m[1].nnz + p->m[2].nnz);
    return CUZK_OK;
}

int cuzk_pce_check_witness(const cuzk_pce *p, const cuzk_witness_cs *w, cuzk_pce_error *err)
{
    if (!p || !w) return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, p ? p->circuit_id : NULL, 0,
                                     NULL, "no PCE or witness");
    const cuzk_cs *cs = &w->base;
    if (cs->vt->kind != CUZK_CS_WITNESS || cs->err)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_WITNESS, p->circuit_id, 0, NULL,
                           "witness is not a WitnessCS without errors (error %d)", cs->err);
    if (cs->num_inputs != p->num_inputs || cs->num_aux != p->num_aux || w->input.len != p->num_inputs ||
        w->aux.len != p->num_aux)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_WITNESS, p->circuit_id, 0, NULL,
                           "witness has %zu inputs and %zu aux, the pre-compiled circuit %llu inputs and %llu aux "
                           "(witness from another circuit or version?)",
                           cs->num_inputs, cs->num_aux, (unsigned long long)p->num_inputs,
                           (unsigned long long)p->num_aux);
    return CUZK_OK;
}

int cuzk_pce_eval(const cuzk_pce *p, const cuzk_witness_cs *w, cuzk_pce_eval_buf *out, unsigned nthreads,
                  cuzk_pce_error *err)
{
    int rc = cuzk_pce_check_witness(p, w, err);
    if (rc) return rc;
    rc = cuzk_pce_eval_raw(p, w->input.v, w->aux.v, out, nthreads);
    if (rc) pce_set_err(err, rc, CUZK_PCE_FAIL_ARG, p->circuit_id, 0, NULL, "output buffer does not fit");
    return rc;
}

int cuzk_pce_eval_buf_alloc(cuzk_pce_eval_buf *buf, const cuzk_pce *p)
{
    size_t n = (size_t)p->num_constraints;
    memset(buf, 0, sizeof *buf);
    buf->a = malloc((n ? n : 1) * sizeof(cuzk_fr));
    buf->b = malloc((n ? n : 1) * sizeof(cuzk_fr));
    buf->c = malloc((n ? n : 1) * sizeof(cuzk_fr));
    if (!buf->a || !buf->b || !buf->c) {
        cuzk_pce_eval_buf_free(buf);
        return CUZK_ERR_NO_MEMORY;
    }
    buf->len = n;
    return CUZK_OK;
}

static void wipe(void *p, size_t len)
{
    if (!p) return;
    memset(p, 0, len);
    __asm__ volatile("" : : "r"(p) : "memory"); /* keep the memset */
}

void cuzk_pce_eval_buf_free(cuzk_pce_eval_buf *buf)
{
    if (!buf) return;
    wipe(buf->a, buf->len * sizeof(cuzk_fr));
    wipe(buf->b, buf->len * sizeof(cuzk_fr));
    wipe(buf->c, buf->len * sizeof(cuzk_fr));
    free(buf->a), free(buf->b), free(buf->c);
    memset(buf, 0, sizeof *buf);
}
