/* a = A·w, b = B·w, c = C·w over row blocks on several threads.
 *
 * Each row sums Montgomery representatives into one unreduced 320-bit
 * accumulator held in registers, reduced once per row. A ±1 or ±small entry
 * costs a 64x256-bit product and an add, with no branch on the class: a
 * negative coefficient -k adds k·(r - x). General coefficients multiply in
 * the field, except on bits (x = 0 or 1, as for the big powers of two that
 * weigh bits in packing and MultiEq rows), which add 0 or c. Since
 * k·(xR) = (kx)R, the reduced sum is the canonical Montgomery value: bit for
 * bit what a ProvingAssignment computes.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/mem.h"
#include "cuzk/util/parallel.h"
#include "pce_internal.h"

/* hi·2^256 mod r for small hi: the Montgomery form of hi. */
#define FOLD_TABLE 64
static cuzk_fr fold_table[FOLD_TABLE];
static pthread_once_t fold_once = PTHREAD_ONCE_INIT;
static void fold_init(void)
{
    for (uint64_t h = 0; h < FOLD_TABLE; h++) cuzk_fr_set_u64(&fold_table[h], h);
}

#define R0 0xffffffff00000001ull
#define R1 0x53bda402fffe5bfeull
#define R2 0x3339d80809a1d805ull
#define R3 0x73eda753299d7d48ull

/* (a0..a3) mod r for a value < 2^256 < 3r: at most two subtractions. */
static inline void reduce4(uint64_t *a)
{
    for (int i = 0; i < 2; i++) {
        unsigned __int128 t = (unsigned __int128)a[0] - R0;
        uint64_t b0 = (uint64_t)t;
        t = (unsigned __int128)a[1] - R1 - (uint64_t)(t >> 127);
        uint64_t b1 = (uint64_t)t;
        t = (unsigned __int128)a[2] - R2 - (uint64_t)(t >> 127);
        uint64_t b2 = (uint64_t)t;
        t = (unsigned __int128)a[3] - R3 - (uint64_t)(t >> 127);
        uint64_t b3 = (uint64_t)t;
        const uint64_t keep = (uint64_t)0 - (uint64_t)(t >> 127); /* borrow: a < r, keep a */
        a[0] = (a[0] & keep) | (b0 & ~keep), a[1] = (a[1] & keep) | (b1 & ~keep);
        a[2] = (a[2] & keep) | (b2 & ~keep), a[3] = (a[3] & keep) | (b3 & ~keep);
    }
}

/* Full reduction of (a0..a3) + hi·2^256 (rare path: hi != 0). */
static __attribute__((noinline)) void reduce5(cuzk_fr *out, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                                              uint64_t hi)
{
    uint64_t a[4] = {a0, a1, a2, a3};
    reduce4(a);
    memcpy(out->l, a, 32);
    cuzk_fr f;
    if (hi < FOLD_TABLE) f = fold_table[hi];
    else cuzk_fr_set_u64(&f, hi);
    cuzk_fr_add(out, out, &f);
}

/* Keeps the top limb far from overflow on long rows (low enough that the
 * tests' long rows of large small coefficients reach it). */
#define ACC_FOLD_AT ((uint64_t)1 << 32)

typedef struct eval_ctx {
    const cuzk_pce *p;
    const cuzk_fr *input, *aux;
    cuzk_fr *out[3];
    size_t nblocks;
} eval_ctx;

#define EVAL_BLOCK_ROWS 8192u
#define PREFETCH_AHEAD 16

/* Codes whose top three bits (class, sign) are 010 (-1) or 101 (-small). */
#define NEG_TOP3 ((1u << 2) | (1u << 5))

/* acc (a0..a4) += k·y for a 4-limb y and a 64-bit k. */
#define ACC_ADD_MUL(y, k)                                                                                    \
    do {                                                                                                     \
        unsigned __int128 p_ = (unsigned __int128)(y)[0] * (k), t_;                                          \
        t_ = (unsigned __int128)a0 + (uint64_t)p_;                                                           \
        a0 = (uint64_t)t_;                                                                                   \
        uint64_t c_ = (uint64_t)(t_ >> 64), h_ = (uint64_t)(p_ >> 64);                                       \
        p_ = (unsigned __int128)(y)[1] * (k) + h_;                                                           \
        t_ = (unsigned __int128)a1 + (uint64_t)p_ + c_;                                                      \
        a1 = (uint64_t)t_, c_ = (uint64_t)(t_ >> 64), h_ = (uint64_t)(p_ >> 64);                             \
        p_ = (unsigned __int128)(y)[2] * (k) + h_;                                                           \
        t_ = (unsigned __int128)a2 + (uint64_t)p_ + c_;                                                      \
        a2 = (uint64_t)t_, c_ = (uint64_t)(t_ >> 64), h_ = (uint64_t)(p_ >> 64);                             \
        p_ = (unsigned __int128)(y)[3] * (k) + h_;                                                           \
        t_ = (unsigned __int128)a3 + (uint64_t)p_ + c_;                                                      \
        a3 = (uint64_t)t_, c_ = (uint64_t)(t_ >> 64), h_ = (uint64_t)(p_ >> 64);                             \
        a4 += h_ + c_;                                                                                       \
    } while (0)

#define ACC_ADD(y)                                                                                           \
    do {                                                                                                     \
        unsigned __int128 t_ = (unsigned __int128)a0 + (y)[0];                                               \
        a0 = (uint64_t)t_;                                                                                   \
        t_ = (unsigned __int128)a1 + (y)[1] + (uint64_t)(t_ >> 64);                                          \
        a1 = (uint64_t)t_;                                                                                   \
        t_ = (unsigned __int128)a2 + (y)[2] + (uint64_t)(t_ >> 64);                                          \
        a2 = (uint64_t)t_;                                                                                   \
        t_ = (unsigned __int128)a3 + (y)[3] + (uint64_t)(t_ >> 64);                                          \
        a3 = (uint64_t)t_;                                                                                   \
        a4 += (uint64_t)(t_ >> 64);                                                                          \
    } while (0)

#define ACC_FOLD()                                                                                           \
    do {                                                                                                     \
        if (__builtin_expect(a4 >= ACC_FOLD_AT, 0)) {                                                        \
            cuzk_fr f_;                                                                                      \
            reduce5(&f_, a0, a1, a2, a3, a4);                                                                \
            a0 = f_.l[0], a1 = f_.l[1], a2 = f_.l[2], a3 = f_.l[3], a4 = 0;                                  \
        }                                                                                                    \
    } while (0)

/* Rows [r0, r1) of one matrix; RP is the row pointer array (u32 or u64). */
#define EVAL_ROWS(RP)                                                                                        \
    do {                                                                                                     \
        uint64_t e = RP[r0];                                                                                 \
        for (uint64_t r = r0; r < r1; r++) {                                                                 \
            const uint64_t e1 = RP[r + 1];                                                                   \
            uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0;                                                 \
            for (; e < e1; e++) {                                                                            \
                const uint32_t cl = col[e], cd = code[e];                                                    \
                /* the witness gather is the cache-missing access: fetch ahead */                            \
                __builtin_prefetch(&aux[col[e + PREFETCH_AHEAD < nnz ? e + PREFETCH_AHEAD : e]]);            \
                const uint64_t *x = (cl < ni ? &input[cl] : &aux[cl])->l;                                    \
                if (__builtin_expect((cd >> CUZK_PCE_CLASS_SHIFT) == CUZK_PCE_GENERAL, 0)) {               \
                    const cuzk_fr *cf = &coeffs[cd & CUZK_PCE_PAYLOAD_MASK];                                 \
                    const uint64_t nz = x[0] | x[1] | x[2] | x[3];                                           \
                    const uint64_t n1 = (x[0] ^ one[0]) | (x[1] ^ one[1]) | (x[2] ^ one[2]) | (x[3] ^ one[3]); \
                    if (nz == 0 || n1 == 0) {                                                                \
                        const uint64_t mk = (uint64_t)0 - (uint64_t)(n1 == 0);                               \
                        const uint64_t y[4] = {cf->l[0] & mk, cf->l[1] & mk, cf->l[2] & mk, cf->l[3] & mk};  \
                        ACC_ADD(y);                                                                          \
                    } else {                                                                                 \
                        cuzk_fr y;                                                                           \
                        cuzk_fr_mul(&y, (const cuzk_fr *)x, cf);                                             \
                        ACC_ADD(y.l);                                                                        \
                    }                                                                                        \
                } else {                                                                                     \
                    const uint64_t k = (cd >> CUZK_PCE_CLASS_SHIFT) == CUZK_PCE_SMALL ? (cd & CUZK_PCE_SMALL_MAX) \
                                                                                        : 1;                 \
                    /* y = x, or r - x for a negative coefficient (selected without a branch) */             \
                    const uint64_t ng = (uint64_t)0 - (uint64_t)((NEG_TOP3 >> (cd >> 29)) & 1);              \
                    unsigned __int128 s_ = (unsigned __int128)R0 - x[0];                                     \
                    uint64_t y[4];                                                                           \
                    y[0] = (uint64_t)s_;                                                                     \
                    s_ = (unsigned __int128)R1 - x[1] - (uint64_t)(s_ >> 127);                               \
                    y[1] = (uint64_t)s_;                                                                     \
                    s_ = (unsigned __int128)R2 - x[2] - (uint64_t)(s_ >> 127);                               \
                    y[2] = (uint64_t)s_;                                                                     \
                    s_ = (unsigned __int128)R3 - x[3] - (uint64_t)(s_ >> 127);                               \
                    y[3] = (uint64_t)s_;                                                                     \
                    for (int i_ = 0; i_ < 4; i_++) y[i_] = x[i_] ^ ((x[i_] ^ y[i_]) & ng);                   \
                    ACC_ADD_MUL(y, k);                                                                       \
                }                                                                                            \
                ACC_FOLD();                                                                                  \
            }                                                                                                \
            if (__builtin_expect(a4 == 0, 1)) {                                                              \
                uint64_t v_[4] = {a0, a1, a2, a3};                                                           \
                reduce4(v_);                                                                                 \
                out[r].l[0] = v_[0], out[r].l[1] = v_[1], out[r].l[2] = v_[2], out[r].l[3] = v_[3];          \
            } else {                                                                                         \
                reduce5(&out[r], a0, a1, a2, a3, a4);                                                        \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

static void eval_task(void *arg, unsigned worker, size_t lo, size_t hi)
{
    for (size_t t = lo; t < hi; t++) {
        const eval_ctx *c = arg;
        const cuzk_pce *p = c->p;
        const size_t k = t / c->nblocks, blk = t % c->nblocks;
        const cuzk_pce_matrix *m = &p->m[k];
        const uint64_t r0 = (uint64_t)blk * EVAL_BLOCK_ROWS;
        uint64_t r1 = r0 + EVAL_BLOCK_ROWS;
        if (r1 > p->num_constraints) r1 = p->num_constraints;
        const uint32_t ni = (uint32_t)p->num_inputs;
        /* aux[col] for col >= ni (no aux: never indexed, but keep the base non-NULL) */
        const cuzk_fr *input = c->input, *aux = (c->aux ? c->aux : c->input) - ni;
        const uint32_t *col = m->col, *code = m->code;
        const uint64_t nnz = m->nnz;
        const cuzk_fr *coeffs = p->coeffs;
        const uint64_t *one = cuzk_fr_one.l;
        cuzk_fr *out = c->out[k];
        if (m->row_ptr32) {
            const uint32_t *rp = m->row_ptr32;
            EVAL_ROWS(rp);
        } else {
            const uint64_t *rp = m->row_ptr64;
            EVAL_ROWS(rp);
        }
    }
}

int cuzk_pce_eval_raw(const cuzk_pce *p, const cuzk_fr *input, const cuzk_fr *aux, cuzk_pce_eval_buf *out,
                      unsigned nthreads)
{
    if (!p || !out || (p->num_inputs && !input) || (p->num_aux && !aux) || out->len != p->num_constraints ||
        (p->num_constraints && (!out->a || !out->b || !out->c)))
        return CUZK_ERR_INVALID_ARG;
    if (cuzk_pce_ready(p, NULL) != CUZK_OK) return CUZK_ERR_FORMAT; /* background checksums failed */
    pthread_once(&fold_once, fold_init);
    eval_ctx c = {.p = p, .input = input, .aux = aux, .out = {out->a, out->b, out->c}};
    c.nblocks = (size_t)((p->num_constraints + EVAL_BLOCK_ROWS - 1) / EVAL_BLOCK_ROWS);
    cuzk_parallel_for(3 * c.nblocks, 1, nthreads ? nthreads : 1, eval_task, &c);
    if (out->domain > out->len) /* the prover's NTT reads the whole domain; a previous proof left its data */
        for (int k = 0; k < 3; k++) memset(c.out[k] + out->len, 0, (out->domain - out->len) * sizeof(cuzk_fr));
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
    if (!rc) rc = cuzk_pce_ready(p, err); /* waits for a background verification */
    if (rc) return rc;
    rc = cuzk_pce_eval_raw(p, w->input.v, w->aux.v, out, nthreads);
    if (rc) pce_set_err(err, rc, CUZK_PCE_FAIL_ARG, p->circuit_id, 0, NULL, "output buffer does not fit");
    return rc;
}

size_t cuzk_pce_domain_size(const cuzk_pce *p)
{
    size_t n = 1;
    while (n < p->num_constraints) n <<= 1;
    return n;
}

int cuzk_pce_eval_buf_wrap(cuzk_pce_eval_buf *buf, const cuzk_pce *p, cuzk_fr *abc, size_t cap)
{
    const size_t n = cuzk_pce_domain_size(p);
    memset(buf, 0, sizeof *buf);
    if (!abc || cap / 3 < n) return CUZK_ERR_INVALID_ARG;
    *buf = (cuzk_pce_eval_buf){.a = abc, .b = abc + n, .c = abc + 2 * n, .len = (size_t)p->num_constraints,
                               .domain = n, .caller_owned = true};
    return CUZK_OK;
}

int cuzk_pce_eval_buf_alloc_domain(cuzk_pce_eval_buf *buf, const cuzk_pce *p)
{
    const size_t n = cuzk_pce_domain_size(p);
    memset(buf, 0, sizeof *buf);
    if (n > SIZE_MAX / 3 / sizeof(cuzk_fr)) return CUZK_ERR_NO_MEMORY;
    cuzk_fr *abc = malloc(3 * n * sizeof(cuzk_fr));
    if (!abc) return CUZK_ERR_NO_MEMORY;
    cuzk_pce_eval_buf_wrap(buf, p, abc, 3 * n);
    buf->caller_owned = false;
    return CUZK_OK;
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

void cuzk_pce_eval_buf_free(cuzk_pce_eval_buf *buf)
{
    if (!buf) return;
    if (buf->domain) { /* one block a | b | c */
        cuzk_mem_wipe(buf->a, 3 * buf->domain * sizeof(cuzk_fr));
        if (!buf->caller_owned) free(buf->a);
    } else {
        cuzk_mem_wipe(buf->a, buf->len * sizeof(cuzk_fr));
        cuzk_mem_wipe(buf->b, buf->len * sizeof(cuzk_fr));
        cuzk_mem_wipe(buf->c, buf->len * sizeof(cuzk_fr));
        free(buf->a), free(buf->b), free(buf->c);
    }
    memset(buf, 0, sizeof *buf);
}
