/*
 * The device-memory plan of a parameter set (cuzk/gpu/gpu.h): a pure function
 * of the set's sizes and the card's budget, built with or without CUDA.
 *
 * What a card holds for one set and one worker:
 *   tables    H's twiddles (2 x 2^(log_n - 1) elements) and scaling tables;
 *   resident  the PCE's arrays and the point arrays kept on the device;
 *   worker    H's vectors (3 or 2 of 2^log_n), the witness, host-gathered
 *             scalars, and the chunk buffers (2 or 4) when anything is
 *             streamed;
 *   msm       the MSM scratch of the largest MSM run at once: the largest
 *             array's; when anything streams (every MSM then runs in
 *             chunks) a chunk's sort and the buckets of the MSMs run at
 *             once (cuzk/gpu/gpu.h);
 *   reserve   allocation granularity and what the runtime takes.
 * The search keeps the longest resident prefix of h, l, a, b_g1, b_g2 that
 * fits, with three vectors before two; when anything streams, the chunk
 * size, buffer count and H's window width of least estimated MSM cost
 * (chunking_cost) among those that fit: since no part depends on the
 * budget, a larger budget can only keep more resident (never stream more)
 * and never take a costlier chunking for the same arrays.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/gpu/gpu.h"
#include "cuzk/msm/msm.h"
#include "cuzk/pce/pce.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)
#define FR_BYTES 32u
#define PLAN_RESERVE (256 * MIB)
#define PLAN_SCALE_TABLES (64 * MIB) /* scaling tables: 2 x 2^ceil(L/2) per kind, and slack */

static const uint64_t chunk_choice[] = {2 * GIB, GIB, 512 * MIB, 256 * MIB, 128 * MIB, 64 * MIB};
#define CHUNK_CHOICES (sizeof chunk_choice / sizeof *chunk_choice)

/* the GPU's sparse product gives rows of more than this many entries a
 * warp each and lists them (PCE_SPMV_LONG, src/gpu/gpu_internal.cuh) */
#define PLAN_PCE_LONG 32u

static const char *const array_name[CUZK_GPU_PLAN_ARRAYS] = {"h", "l", "a", "b_g1", "b_g2"};

const char *cuzk_gpu_plan_array_name(unsigned i) { return i < CUZK_GPU_PLAN_ARRAYS ? array_name[i] : "?"; }

/* H's twiddles both ways: 2^(log_n - 1) elements each, or, compact, two
 * tables of 2^S and 2^(L - S) elements (L = log_n - 1, S = ceil(L / 2), as
 * src/gpu/ntt.cu builds them) */
static uint64_t twiddle_bytes(unsigned log_n, int compact)
{
    if (!log_n) return 0;
    const unsigned L = log_n - 1, S = (L + 1) / 2;
    if (!compact || L == 0) return 2 * ((uint64_t)1 << L) * FR_BYTES;
    return 2 * (((uint64_t)1 << S) + ((uint64_t)1 << (L - S))) * FR_BYTES;
}

/* One of the plans tried for a resident prefix: H's vectors, the twiddles'
 * form, whether the PCE's matrices stream */
typedef struct plan_mode {
    unsigned hv;
    int compact, pce_streamed, witness_packed;
} plan_mode;

/* What streaming takes besides the streamed arrays: the chunk size, the
 * chunk buffers, H's widest window (the MSMs' widths in chunks) */
typedef struct plan_chunking {
    uint64_t chunk;
    unsigned buffers, c_h;
} plan_chunking;

static unsigned xyzz_bytes(unsigned i) { return i == CUZK_GPU_PLAN_B_G2 ? 384u : 192u; }

uint64_t cuzk_gpu_msm_bucket_bytes(unsigned c, unsigned xyzz)
{
    return c ? (uint64_t)((256 + c - 1) / c) * ((1ull << (c - 1)) + 1) * xyzz : 0;
}

unsigned cuzk_gpu_msm_window_bits(uint64_t m)
{
    unsigned cw = cuzk_msm_window_bits((size_t)(m ? m : 1), 255, NULL);
    for (unsigned wbits = cw + 1; wbits <= 22 && m >= ((uint64_t)1 << 25); wbits++) {
        const uint64_t nw0 = (256 + cw - 1) / cw, nw1 = (256 + wbits - 1) / wbits;
        if (nw1 * (m + (1ull << wbits)) < nw0 * (m + (1ull << cw))) cw = wbits;
    }
    return cw;
}

/* The MSMs' widths in chunks: H's c_h (its scalars are all general), the
 * others' at most CUZK_GPU_PLAN_MSM_C_REST; each no wider than its own
 * points would take. */
static void plan_msm_widths(cuzk_gpu_plan *p, const cuzk_gpu_plan_need *nd, unsigned c_h)
{
    for (unsigned i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        unsigned c = nd->n_points[i] ? cuzk_gpu_msm_window_bits(nd->n_points[i]) : 0;
        const unsigned cap = i == CUZK_GPU_PLAN_H ? c_h : CUZK_GPU_PLAN_MSM_C_REST < c_h ? CUZK_GPU_PLAN_MSM_C_REST : c_h;
        p->msm_c[i] = c > cap ? cap : c;
    }
}

uint64_t cuzk_gpu_msm_bucket_layout(const unsigned c[CUZK_GPU_PLAN_ARRAYS], const unsigned phase[CUZK_GPU_PLAN_ARRAYS],
                                    uint64_t off[CUZK_GPU_PLAN_ARRAYS])
{
    uint64_t at[2] = {0, 0};
    for (unsigned i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        const unsigned ph = phase[i] ? 1 : 0;
        if (off) off[i] = at[ph];
        at[ph] += cuzk_gpu_msm_bucket_bytes(c[i], xyzz_bytes(i));
    }
    return at[0] > at[1] ? at[0] : at[1];
}

/* The buckets' room: with two vectors B's MSMs run after H's, L's and A's
 * (their scalars gathered into h's vector), in the room those leave. */
static uint64_t plan_msm_buckets(const cuzk_gpu_plan *p)
{
    unsigned phase[CUZK_GPU_PLAN_ARRAYS];
    for (unsigned i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++)
        phase[i] = p->h_vectors == 2 && (i == CUZK_GPU_PLAN_B_G1 || i == CUZK_GPU_PLAN_B_G2);
    return cuzk_gpu_msm_bucket_layout(p->msm_c, phase, NULL);
}

/* The MSM scratch in chunks (cuzk/gpu/gpu.h lists the parts) */
static uint64_t plan_msm_chunked(cuzk_gpu_plan *p, const cuzk_gpu_plan_need *nd, const plan_chunking *ck)
{
    const uint64_t k = ck->chunk / 96, parts = 2 * ((k + 31) / 32) + 4;
    plan_msm_widths(p, nd, ck->c_h);
    p->msm_entries = k;
    p->msm_buckets = plan_msm_buckets(p);
    return k * 40 + k * 16 + 2 * parts * (192 + 4) + p->msm_buckets + CUZK_GPU_PLAN_MSM_SMALL;
}

/* The plan with the first r arrays resident, in mode md, chunked as ck
 * (unused when nothing streams). */
static void plan_fill(cuzk_gpu_plan *p, const cuzk_gpu_plan_need *nd, unsigned r, plan_mode md,
                      const plan_chunking *ck)
{
    const uint64_t n = (uint64_t)1 << nd->log_n;
    memset(p->streamed, 0, sizeof p->streamed);
    memset(p->msm_c, 0, sizeof p->msm_c);
    p->msm_entries = p->msm_buckets = 0;
    p->h_vectors = md.hv;
    p->compact_tables = md.compact;
    p->pce_streamed = md.pce_streamed;
    p->tables = twiddle_bytes(nd->log_n, md.compact) + PLAN_SCALE_TABLES;
    p->resident = nd->pce - (md.pce_streamed ? nd->pce_stream : 0);
    p->host_pinned = md.pce_streamed ? nd->pce_stream : 0;
    uint64_t largest = 0; /* points of the largest MSM run at once */
    int any = 0;
    for (unsigned i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        if (!nd->points[i]) continue;
        if (i < r) {
            p->resident += nd->points[i];
            if (nd->n_points[i] > largest) largest = nd->n_points[i];
        } else {
            p->streamed[i] = 1, any = 1;
            p->host_pinned += nd->points[i];
        }
    }
    p->chunk_bytes = any || md.pce_streamed ? ck->chunk : 0;
    p->chunk_buffers = p->chunk_bytes ? ck->buffers : 0;
    /* when any points stream, every MSM runs in chunks (cuzk_gpu_chunk_schedule),
     * resident ones too */
    p->msm_scratch = any ? plan_msm_chunked(p, nd, ck) : largest * CUZK_GPU_PLAN_MSM_BYTES_PER_POINT;
    p->witness_packed = md.witness_packed;
    /* a packed witness leaves L's scalars packed: a chunk's unpacked beside them */
    const uint64_t wit = md.witness_packed ? nd->witness_packed + ck->chunk / 96 * FR_BYTES : nd->witness;
    p->worker = md.hv * n * FR_BYTES + wit + nd->host_scalars + p->chunk_buffers * p->chunk_bytes;
    p->reserve = PLAN_RESERVE;
    p->total = p->tables + p->resident + p->worker + p->msm_scratch + p->reserve;
    p->pcie_bytes = p->host_pinned + nd->witness;
}

/* The modes in the order tried for each resident prefix: three vectors
 * before two (c's late evaluation costs a pass over the PCE's C), full
 * twiddle tables before compact ones (a multiplication more per twiddle),
 * and the PCE's matrices streamed last, only with every array streamed, so
 * that a larger budget never brings more over PCIe. */
static size_t plan_modes(plan_mode *m, const cuzk_gpu_plan_need *nd, unsigned r)
{
    size_t k = 0;
    for (int ps = 0; ps < 2; ps++) {
        if (ps && (r || !nd->pce_stream)) break;
        for (int ct = 0; ct < 2; ct++)
            for (unsigned hv = 3; hv >= (nd->two_vectors ? 2u : 3u); hv--) m[k++] = (plan_mode){hv, ct, ps, 0};
    }
    /* last, with every array and the PCE's matrices streamed (a PCE reads
     * it packed): the witness packed, its entries decoded at each read */
    if (!r && nd->pce_stream && nd->witness_packed) m[k++] = (plan_mode){2, 1, 1, 1};
    return k;
}

/* H's MSM in chunks, in additions: each of its windows adds every point
 * and reduces its buckets, and each chunk's window costs a sort and
 * launches about as much as 2^17 additions; two buffers instead of four
 * let a copy wait behind H's compute-bound chunks (a chunk's worth). */
static uint64_t chunking_cost(const cuzk_gpu_plan_need *nd, const plan_chunking *ck)
{
    const uint64_t nh = nd->n_points[CUZK_GPU_PLAN_H], k = ck->chunk / 96, nwin = (256 + ck->c_h - 1) / ck->c_h;
    const uint64_t chunks = (nh + k - 1) / k;
    return nwin * (nh + (1ull << ck->c_h)) + nwin * chunks * (1ull << 17) + (ck->buffers < 4 ? k : 0);
}

/* Whether the plan of r resident arrays in mode md streams anything */
static int plan_streams(const cuzk_gpu_plan_need *nd, unsigned r, plan_mode md)
{
    for (unsigned i = r; i < CUZK_GPU_PLAN_ARRAYS; i++)
        if (nd->points[i]) return 1;
    return md.pce_streamed;
}

/* H's widest window: its points' own width, and the narrowest tried */
static unsigned c_top(const cuzk_gpu_plan_need *nd) { return cuzk_gpu_msm_window_bits(nd->n_points[CUZK_GPU_PLAN_H]); }
static unsigned c_bottom(const cuzk_gpu_plan_need *nd)
{
    return c_top(nd) < CUZK_GPU_PLAN_MSM_C_MIN ? c_top(nd) : CUZK_GPU_PLAN_MSM_C_MIN;
}

/* The cheapest chunking of r resident arrays in mode md that fits budget
 * (*p filled with it), or 0. */
static int plan_fill_chunked(cuzk_gpu_plan *p, const cuzk_gpu_plan_need *nd, unsigned r, plan_mode md,
                             uint64_t budget)
{
    plan_chunking best = {0, 0, 0};
    uint64_t best_cost = UINT64_MAX;
    for (size_t k = 0; k < CHUNK_CHOICES; k++)
        for (unsigned c = c_top(nd); c >= c_bottom(nd); c--)
            for (unsigned b = 4; b >= 2; b -= 2) {
                const plan_chunking ck = {chunk_choice[k], b, c};
                plan_fill(p, nd, r, md, &ck);
                const uint64_t cost = chunking_cost(nd, &ck);
                if (p->total <= budget && cost < best_cost) best = ck, best_cost = cost;
            }
    if (!best.chunk) return 0;
    plan_fill(p, nd, r, md, &best);
    return 1;
}

void cuzk_gpu_plan_make(cuzk_gpu_plan *out, const cuzk_gpu_plan_need *need, uint64_t budget)
{
    plan_mode m[12];
    const plan_chunking none = {0, 0, 0};
    for (int r = CUZK_GPU_PLAN_ARRAYS; r >= 0; r--) {
        const size_t nm = plan_modes(m, need, (unsigned)r);
        for (size_t i = 0; i < nm; i++) {
            int fits;
            if (plan_streams(need, (unsigned)r, m[i])) {
                fits = plan_fill_chunked(out, need, (unsigned)r, m[i], budget);
            } else { /* nothing streamed: the chunking plays no part */
                plan_fill(out, need, (unsigned)r, m[i], &none);
                fits = out->total <= budget;
            }
            if (fits) {
                out->budget = budget, out->fits = 1;
                return;
            }
        }
    }
    /* the smallest plan (every array streamed, the last mode, the smallest
     * chunk, two buffers, the narrowest windows) says what the set needs */
    const size_t nm = plan_modes(m, need, 0);
    const plan_chunking ck = {chunk_choice[CHUNK_CHOICES - 1], 2, c_bottom(need)};
    plan_fill(out, need, 0, m[nm - 1], &ck);
    out->budget = budget;
    out->fits = 0;
}

/* appends to buf at at, as snprintf would; returns the new end */
__attribute__((format(printf, 4, 5))) static size_t add(char *buf, size_t len, size_t at, const char *fmt, ...)
{
    if (at >= len) return at;
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
    return k < 0 ? at : at + (size_t)k;
}

/* the names of the arrays streamed (streamed = 1) or resident (0) */
static size_t list_arrays(const cuzk_gpu_plan *p, int streamed, char *buf, size_t len, size_t at)
{
    int first = 1;
    for (unsigned i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        if (p->streamed[i] != streamed) continue;
        at = add(buf, len, at, "%s%s", first ? "" : " ", array_name[i]);
        first = 0;
    }
    return first ? add(buf, len, at, "none") : at;
}

void cuzk_gpu_plan_describe(const cuzk_gpu_plan *p, char *buf, size_t len)
{
    if (!len) return;
    buf[0] = 0;
    size_t at = add(buf, len, 0, "budget %.1f GiB, %s %.1f GiB: resident ", p->budget / (double)GIB,
                    p->fits ? "planned" : "needs at least", p->total / (double)GIB);
    at = list_arrays(p, 0, buf, len, at);
    if (p->chunk_bytes) {
        at = add(buf, len, at, ", streamed ");
        at = list_arrays(p, 1, buf, len, at);
        if (p->pce_streamed) at = add(buf, len, at, " and the PCE's matrices");
        at = add(buf, len, at, " (%.1f GB from pinned host memory) in %llu MiB chunks, %u buffers", p->host_pinned / 1e9,
                 (unsigned long long)(p->chunk_bytes / MIB), p->chunk_buffers);
        if (p->msm_c[CUZK_GPU_PLAN_H])
            at = add(buf, len, at, ", H's MSM in %u-bit windows (buckets %.2f GiB)", p->msm_c[CUZK_GPU_PLAN_H],
                     p->msm_buckets / (double)GIB);
    }
    at = add(buf, len, at,
             ", H over %u vectors%s; tables %.1f, PCE and points %.1f, worker %.1f, MSM scratch %.1f GiB; "
             "%.1f GB over PCIe a partition",
             p->h_vectors, p->witness_packed ? " with compact twiddles and the witness packed"
                           : p->compact_tables ? " with compact twiddles" : "", p->tables / (double)GIB, p->resident / (double)GIB, p->worker / (double)GIB,
             p->msm_scratch / (double)GIB, p->pcie_bytes / 1e9);
}

/* The bytes the prover puts on the device for a PCE: the CSR arrays as in
 * its image, the query index lists, and the long rows' lists (a long row has
 * more than PLAN_PCE_LONG entries, so at most nnz / (PLAN_PCE_LONG + 1) of
 * them: a bound, so that planning reads no row pointer). */
static uint64_t pce_device_bytes(const cuzk_pce *p, uint64_t *streamable)
{
    const uint64_t m = p->num_constraints;
    uint64_t b = (uint64_t)p->num_coeffs * sizeof(cuzk_fr);
    *streamable = 0;
    for (int k = 0; k < 3; k++) {
        const cuzk_pce_matrix *mx = &p->m[k];
        const uint64_t csr = (m + 1) * (mx->row_ptr32 ? 4 : 8) + 8ull * mx->nnz; /* row pointers, entries */
        *streamable += csr;
        b += csr + 4 * (mx->nnz / (PLAN_PCE_LONG + 1));
    }
    return b + 4 * ((uint64_t)p->num_inputs + p->a_aux.total + p->b_input.total + p->b_aux.total);
}

void cuzk_gpu_plan_need_of(cuzk_gpu_plan_need *nd, const cuzk_groth16_params *p, const cuzk_pce *pce,
                           int gathers_on_device)
{
    memset(nd, 0, sizeof *nd);
    while (((size_t)1 << nd->log_n) < p->n_h + 1) nd->log_n++; /* bellman's H has n - 1 points */
    const size_t np[CUZK_GPU_PLAN_ARRAYS] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++)
        nd->n_points[i] = np[i],
        nd->points[i] = np[i] * (i == CUZK_GPU_PLAN_B_G2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine));
    nd->pce = pce ? pce_device_bytes(pce, &nd->pce_stream) : 0;
    nd->witness = (p->vk.n_ic + p->n_l) * sizeof(cuzk_fr);
    /* codes and counts (12 bytes a word of 32 entries), the inputs plain, an
     * eighth of the aux general: the 32 GiB PoRep's is 1.3 % */
    nd->witness_packed = (p->n_l + 31) / 32 * 12 + (p->vk.n_ic + p->n_l / 8) * sizeof(cuzk_fr);
    nd->host_scalars = gathers_on_device ? 0 : (p->n_a + p->n_b_g1) * sizeof(cuzk_fr);
    nd->two_vectors = pce != NULL;
}

size_t cuzk_gpu_chunk_schedule(cuzk_gpu_chunk_step *out, size_t cap, const uint64_t n[CUZK_GPU_PLAN_ARRAYS],
                               const uint64_t per[CUZK_GPU_PLAN_ARRAYS], const unsigned phase[CUZK_GPU_PLAN_ARRAYS])
{
    uint64_t done[CUZK_GPU_PLAN_ARRAYS] = {0};
    unsigned last = 0;
    for (unsigned i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++)
        if (phase[i] > last) last = phase[i];
    size_t k = 0;
    for (unsigned ph = 0; ph <= last; ph++)
        for (;;) {
            /* the MSM of this phase least far along: done_i / n_i smallest,
             * compared as done_i · n_j < done_j · n_i (no rounding) */
            int best = -1;
            for (unsigned i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
                if (phase[i] != ph || done[i] >= n[i] || !per[i]) continue;
                if (best < 0 || (unsigned __int128)done[i] * n[best] < (unsigned __int128)done[best] * n[i])
                    best = (int)i;
            }
            if (best < 0) break;
            const uint64_t len = n[best] - done[best] < per[best] ? n[best] - done[best] : per[best];
            if (k < cap) out[k] = (cuzk_gpu_chunk_step){(unsigned)best, ph, done[best], len};
            k++, done[best] += len;
        }
    return k;
}
