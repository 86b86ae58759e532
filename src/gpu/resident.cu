/*
 * The arrays resident on a device: parameter sets and PCEs, uploaded once
 * and keyed by the host object's address; the device-memory plan of a set
 * (which arrays are streamed, H's vectors, the chunk size) applied when it
 * is made; the preload; releases. Ownership and locking: docs/gpu.md.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "cuzk/gpu/gpu.h"
#include "cuzk/poly/ntt.h"
#include "cuzk/pce/pce.h"
#include "device.cuh"
#include "gpu_internal.cuh"

using namespace cuzk_gpu;

const char *const srs_name[SRS_N] = {"h", "l", "a", "b_g1", "b_g2", "a index", "b_g1 index", "b_g2 index",
                                            "PCE row_ptr A", "PCE row_ptr B", "PCE row_ptr C", "PCE col A",
                                            "PCE col B", "PCE col C", "PCE code A", "PCE code B", "PCE code C",
                                            "PCE coefficients", "PCE A query index", "PCE B query index",
                                            "PCE long rows A", "PCE long rows B", "PCE long rows C"};

void dev_resident_free(dev_resident *e)
{
    for (int i = 0; i < SRS_N; i++)
        if (e->p[i]) cudaFree(e->p[i]), ledger_give(e->ordinal, e->bytes[i] ? e->bytes[i] : 1);
    if (e->pin_base && cudaHostUnregister(e->pin_base) != cudaSuccess) cudaGetLastError();
    for (int k = 0; k < 3; k++) free(e->blk[k]);
    free(e);
}

/* The host slots (bit i: slot i) of an entry page-locked for the copy
 * engine as one span, read-only (a PCE's arrays lie side by side in its
 * image, the file's bytes read into read-only memory of the process's own,
 * pages shared between neighbours, which CUDA registers once): their
 * blocks then go up by DMA at the link's rate,
 * not through the driver's staging. Best effort: pageable, they still
 * stream, slower. NULL when nothing was locked. */
static void *pin_streamed(const void *const src[SRS_N], const size_t bytes[SRS_N], uint64_t slots)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < SRS_N; i++)
        if ((slots >> i & 1) && src[i] && bytes[i]) {
            if ((uintptr_t)src[i] < lo) lo = (uintptr_t)src[i];
            if ((uintptr_t)src[i] + bytes[i] > hi) hi = (uintptr_t)src[i] + bytes[i];
        }
    if (hi <= lo) return NULL;
    const uintptr_t pg = 4096;
    lo &= ~(pg - 1), hi = (hi + pg - 1) & ~(pg - 1);
    if (cudaHostRegister((void *)lo, hi - lo, cudaHostRegisterPortable | cudaHostRegisterReadOnly) == cudaSuccess)
        return (void *)lo;
    cudaGetLastError();
    return NULL;
}


static int srs_copy(const ctx &c, void **dst, const void *src, size_t bytes, const char *what)
{
    char name[48];
    snprintf(name, sizeof name, "SRS %s", what);
    if (!ledger_take(c.ordinal, bytes ? bytes : 1)) return *dst = NULL, over_budget(c, name, bytes);
    cudaError_t e = cudaMalloc(dst, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        ledger_give(c.ordinal, bytes ? bytes : 1);
        *dst = NULL;
        char msg[96];
        snprintf(msg, sizeof msg, "cudaMalloc(SRS %s, %zu bytes)", what, bytes);
        return fail(c, e, msg);
    }
    alloc_note(c, what, bytes);
    if (bytes) GPU_TRY(c, cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, c.st));
    return CUZK_OK;
}

/* a streamed set's chunk buffers when no plan chose them (the hooks' stream) */
#define STREAM_CHUNK_BYTES ((size_t)512 << 20)

/* The hooks' stream (tests): point arrays named there ("h,l,a,b_g1,b_g2")
 * are streamed in every new parameter set, and "pce" a new PCE's matrices,
 * whatever the card's room. */
static bool stream_named(const char *name)
{
    const char *v = cuzk_gpu_hooks_now()->stream;
    if (!*v) return false;
    const size_t l = strlen(name);
    for (const char *q = v; (q = strstr(q, name)) != NULL; q += l)
        if ((q == v || q[-1] == ',') && (q[l] == ',' || q[l] == 0)) return true;
    return false;
}
static bool stream_forced(int slot) { return stream_named(srs_name[slot]); }

/* The entry under key (srs_mu held), NULL when none. */
static dev_resident *srs_find(cuzk_gpu_device *d, uint64_t key)
{
    dev_resident *e = d->srs;
    while (e && e->key != key) e = e->next;
    return e;
}

/* Why a job's arrays (the first n slots of src/bytes) are not those the
 * entry was made from, NULL when they are: other sizes, or other arrays
 * (a point array its owner released, NULL, stands for the uploaded one). */
static const char *srs_mismatch(const dev_resident *e, const void *const src[SRS_N], const size_t bytes[SRS_N],
                                int n)
{
    if (memcmp(e->bytes, bytes, n * sizeof *bytes)) return "the key's copy has arrays of other sizes";
    for (int i = 0; i < n; i++) {
        if (src[i] == e->src[i]) continue;
        if (e->host_released && i < SRS_IA && !src[i] && !e->streamed[i]) continue;
        return e->host_released ? "the set's host arrays were released and the job's differ from the device's copy"
                                : "the key names other arrays than the device's copy";
    }
    return NULL;
}

/* The plan's layout of the set (none: three vectors for H, the hooks'
 * chunks) and the slots it streams from the host: the plan's, the hooks'
 * and a streamed PCE's (host_slots). */
static void srs_lay_out(dev_resident *e, const void *const src[SRS_N], const cuzk_gpu_plan *plan,
                        uint64_t host_slots)
{
    e->h_vectors = plan ? plan->h_vectors : 3;
    e->chunk_bytes = plan && plan->chunk_bytes ? plan->chunk_bytes : STREAM_CHUNK_BYTES;
    e->compact_tables = plan && plan->compact_tables;
    if (plan) {
        e->chunk_buffers = plan->chunk_buffers, e->msm_entries = plan->msm_entries;
        e->witness_packed = plan->witness_packed;
        for (int i = 0; i <= SRS_B2; i++) e->msm_c[i] = plan->msm_c[i];
    }
    e->pce_streamed = (plan && plan->pce_streamed) || host_slots;
    for (int i = 0; i < SRS_N; i++)
        e->streamed[i] = src[i] && ((i <= SRS_B2 && ((plan && plan->streamed[i]) || stream_forced(i))) ||
                                    (host_slots >> i & 1));
}

/* A new entry under key: laid out by the plan, its resident slots uploaded
 * (from data[i] when given, else src[i]) and waited for, a streamed PCE's
 * row blocks taken over from blocks. */
static int srs_make(const ctx &c, uint64_t key, const void *const src[SRS_N], const size_t bytes[SRS_N],
                    const void *const *data, const cuzk_gpu_plan *plan, uint64_t host_slots,
                    dev_resident *blocks, dev_resident **out)
{
    dev_resident *e = (dev_resident *)calloc(1, sizeof *e);
    if (!e) return CUZK_ERR_NO_MEMORY;
    e->key = key, e->ordinal = c.ordinal;
    memcpy(e->src, src, sizeof e->src);
    memcpy(e->bytes, bytes, sizeof e->bytes);
    srs_lay_out(e, src, plan, host_slots);
    int rc = CUZK_OK;
    for (int i = 0; i < SRS_N && !rc; i++)
        if (src[i] && !e->streamed[i])
            rc = srs_copy(c, &e->p[i], data && data[i] ? data[i] : src[i], bytes[i], srs_name[i]);
    if (!rc && host_slots) e->pin_base = pin_streamed(src, bytes, host_slots);
    if (blocks) { /* a streamed PCE's row blocks move to the entry */
        memcpy(e->blk, blocks->blk, sizeof e->blk), memcpy(e->n_blk, blocks->n_blk, sizeof e->n_blk);
        e->blk_chunk = blocks->blk_chunk;
        memset(blocks->blk, 0, sizeof blocks->blk);
    }
    if (!rc) {
        cudaError_t ce = cudaStreamSynchronize(c.st);
        if (ce != cudaSuccess) rc = fail(c, ce, "cudaStreamSynchronize(SRS upload)");
    }
    if (rc) return dev_resident_free(e), rc;
    *out = e;
    return CUZK_OK;
}

/* The device copy of the arrays under key (the owner's handle), made by
 * the first worker that needs it (srs_mu held through the upload, so that
 * the device's other workers wait for it rather than upload it again);
 * src/bytes per SRS_* slot (bytes 0: unused). data (may be NULL) gives,
 * per slot, other bytes to upload in src's place (arrays derived on the
 * host for the upload, identified by their source). *made says whether
 * this call uploaded it (may be NULL). */
static int srs_get(cuzk_gpu_worker *w, const ctx &c, uint64_t key, const void *const src[SRS_N],
                   const size_t bytes[SRS_N], dev_resident **out, const void *const *data = NULL,
                   bool *made = NULL, const cuzk_gpu_plan *plan = NULL, uint64_t host_slots = 0,
                   dev_resident *blocks = NULL)
{
    if (made) *made = false;
    if (!key) return fail_msg(c, CUZK_ERR_INVALID_ARG, "parameters: no key (a handle from cuzk_handle_new)");
    cuzk_gpu_device *d = w->dev;
    pthread_mutex_lock(&d->srs_mu);
    dev_resident *e = srs_find(d, key);
    const char *why = e ? srs_mismatch(e, src, bytes, SRS_N) : NULL;
    char m[160];
    /* arrays released by their owner can only be a copy's stand-in */
    for (int i = 0; !e && !why && i < SRS_N; i++)
        if (bytes[i] && !src[i] && !(data && data[i]))
            snprintf(m, sizeof m, "%s neither on the device nor on the host (released)", srs_name[i]), why = m;
    int rc = CUZK_OK;
    if (why) {
        rc = CUZK_ERR_INVALID_ARG;
    } else if (!e && !(rc = srs_make(c, key, src, bytes, data, plan, host_slots, blocks, &e))) {
        e->next = d->srs;
        d->srs = e;
        if (plan) cuzk_gpu_plan_describe(plan, d->plan, sizeof d->plan);
        if (made) *made = true;
    }
    pthread_mutex_unlock(&d->srs_mu);
    if (why) {
        char msg[200];
        snprintf(msg, sizeof msg, "parameters: %s", why);
        return fail_msg(c, rc, msg);
    }
    if (!rc) *out = e;
    return rc;
}

/* What the driver takes of a card at kernel launches, outside any
 * allocation: each kernel's stack for every thread the chip holds, reserved
 * at its first launch and kept (G2's level-0 accumulation, 1.3 KB a thread:
 * 0.35 GB on the H100's 270,336 threads), and its own bookkeeping. */
#define DRIVER_LAUNCH_RESERVE ((uint64_t)512 << 20)

/* The plan of a set on the worker's card from what its budget leaves now
 * (the set's own arrays not yet there), and no more than what the card has
 * free less what launches will take: on a card held small by other
 * processes the budget is all there is. */
static void plan_for(cuzk_gpu_worker *w, cuzk_gpu_plan *plan, const cuzk_groth16_params *params,
                     const cuzk_pce *pce, bool gathers_on_device)
{
    cuzk_gpu_plan_need nd;
    cuzk_gpu_plan_need_of(&nd, params, pce, gathers_on_device);
    card_ledger *l = ledger_of(w->dev->ordinal);
    uint64_t left = UINT64_MAX;
    if (l && l->budget) {
        const uint64_t used = l->used.load();
        left = l->budget > used ? l->budget - used : 0;
    }
    size_t freeb = 0, total = 0;
    if (cudaMemGetInfo(&freeb, &total) == cudaSuccess) {
        const uint64_t room = freeb > DRIVER_LAUNCH_RESERVE ? freeb - DRIVER_LAUNCH_RESERVE : 0;
        if (room < left) left = room;
    } else {
        cudaGetLastError();
    }
    cuzk_gpu_plan_make(plan, &nd, left);
}

/* Whether the device gathers the job's A and B scalars from the uploaded
 * witness (the PCE's index lists, or the job's): else the host gathers them. */
bool job_gathers_on_device(const cuzk_groth16_job *j) { return j->pce || j->q_a.idx; }

/* The device copy of a job's parameter set (under job->key): the points of
 * the five MSMs and the queries' index lists when they have them (B2's only
 * when its scalars are not B1's). A bellperson set (H on the coset, the
 * queries by density: what cuzk_gpu_plan counts) uploaded here, not by a
 * preload, follows the plan of what the budget leaves at that moment. */
int srs_get_job(cuzk_gpu_worker *w, const ctx &c, const cuzk_groth16_job *j, dev_resident **out, bool *made,
                const cuzk_gpu_plan *plan)
{
    const cuzk_groth16_params *p = j->params;
    const cuzk_groth16_query *q[3] = {&j->q_a, &j->q_b_g1, cuzk_groth16_job_b_shared(j) ? NULL : &j->q_b_g2};
    const void *src[SRS_N] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    size_t bytes[SRS_N] = {p->n_h * sizeof *p->h, p->n_l * sizeof *p->l, p->n_a * sizeof *p->a,
                           p->n_b_g1 * sizeof *p->b_g1, p->n_b_g2 * sizeof *p->b_g2};
    for (int k = 0; k < 3; k++)
        if (q[k] && q[k]->idx) src[SRS_IA + k] = q[k]->idx, bytes[SRS_IA + k] = q[k]->n * 4;
    cuzk_gpu_plan own;
    if (!plan && j->form == CUZK_GROTH16_H_COSET && !j->q_a.idx && p->n_h) {
        plan_for(w, &own, p, j->pce, job_gathers_on_device(j));
        if (own.fits) plan = &own;
    }
    return srs_get(w, c, j->key, src, bytes, out, NULL, made, plan);
}

extern "C" void cuzk_gpu_device_release(cuzk_gpu_device *d, uint64_t key)
{
    if (!d) return;
    cudaSetDevice(d->ordinal);
    pthread_mutex_lock(&d->srs_mu);
    for (dev_resident **pe = &d->srs; *pe; pe = &(*pe)->next) {
        dev_resident *e = *pe;
        if (e->key != key) continue;
        *pe = e->next;
        dev_resident_free(e);
        break;
    }
    pthread_mutex_unlock(&d->srs_mu);
}

extern "C" int cuzk_gpu_device_params_host_released(cuzk_gpu_device *d, uint64_t key)
{
    if (!d || !key) return CUZK_ERR_INVALID_ARG;
    /* the caller holds its scheduler's lock: never wait out another set's
     * upload (srs_mu is held through one); asked again later */
    if (pthread_mutex_trylock(&d->srs_mu)) return CUZK_ERR_NOT_READY;
    dev_resident *e = srs_find(d, key);
    /* a copy of every point array (a PCE's entry has none; a streamed
     * array is read from the host at every MSM) */
    bool ok = e != NULL;
    for (int i = 0; ok && i <= SRS_B2; i++) ok = e->p[i] && !e->streamed[i];
    if (ok) e->host_released = true;
    pthread_mutex_unlock(&d->srs_mu);
    return ok ? CUZK_OK : CUZK_ERR_NOT_READY;
}

/* A preload's uploads: the set's points by the plan (line: its
 * description) unless a copy is there already (*made: whether this call
 * made it), then its PCE's matrices as the plan lays them out. */
static int preload_upload(cuzk_gpu_worker *w, const ctx &c, const cuzk_gpu_set *set, const cuzk_groth16_job *j,
                          const cuzk_gpu_plan *plan, const char *line, dev_resident **e, bool *made)
{
    const cuzk_groth16_params *params = set->params;
    if (params->n_h && !plan->fits) {
        /* a set already on the device is not planned again */
        pthread_mutex_lock(&w->dev->srs_mu);
        const bool there = srs_find(w->dev, set->key) != NULL;
        pthread_mutex_unlock(&w->dev->srs_mu);
        if (!there) {
            char m[480];
            snprintf(m, sizeof m, "one worker does not fit beside the parameters with every point streamed: %s", line);
            return fail_msg(c, CUZK_ERR_NO_MEMORY, m);
        }
    }
    int rc = srs_get_job(w, c, j, e, made, params->n_h && plan->fits ? plan : NULL);
    if (rc || !set->pce) return rc;
    if (cuzk_pce_ready(set->pce, NULL) != CUZK_OK)
        return fail_msg(c, CUZK_ERR_FORMAT, "preload: the PCE failed verification");
    dev_resident *pe;
    return pce_get(w, c, set->pce_key, set->pce, &pe, (*e)->pce_streamed ? (*e)->chunk_bytes : 0);
}

/* H's NTT tables for a domain of 2^log_n: 2 × 2 GiB of twiddles at 2^27,
 * built at the first proof's H otherwise (its NTT step took 1.38 s against
 * 0.33 s later, H200). Best effort: without room now, the first proof
 * builds them. CUZK_ERR_DEVICE only: the context is no longer trusted. */
static int preload_tables(cuzk_gpu_worker *w, const ctx &c, unsigned log_n, bool compact)
{
    cuzk_gpu_device *d = w->dev;
    region_lock(w);
    if (compact) d->ntt.compact = true; /* the device's tables serve every set: the smallest plan's form */
    int rc = region_unlock(w, c, ntt_groth16_h_tables(c, &d->ntt, log_n));
    if (rc == CUZK_ERR_DEVICE) return rc;
    w->err[0] = 0;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_device_preload(cuzk_gpu_device *d, const cuzk_gpu_set *set, char *msg, size_t msg_len)
{
    if (!d || !set || !set->params || !set->key || (set->pce && !set->pce_key)) return CUZK_ERR_INVALID_ARG;
    const cuzk_groth16_params *params = set->params;
    cuzk_gpu_worker *w; /* its own stream and message buffer, for this call */
    int rc = cuzk_gpu_worker_create(&w, d);
    if (rc) {
        if (msg && msg_len) snprintf(msg, msg_len, "%s", d->err);
        return rc;
    }
    cuzk_groth16_job j = {}; /* the points of params as a job of them keeps them */
    j.form = CUZK_GROTH16_H_COSET, j.params = params, j.key = set->key, j.pce = set->pce, j.pce_key = set->pce_key;
    const size_t n = params->n_h + 1; /* bellman's H has n - 1 points */
    while (((size_t)1 << j.log_n) < n) j.log_n++;
    /* the set's plan (cuzk/gpu/gpu.h) from what the card's budget leaves: the
     * arrays it streams are never uploaded */
    cuzk_gpu_plan plan;
    char line[400] = "";
    plan_for(w, &plan, params, set->pce, set->pce != NULL);
    cuzk_gpu_plan_describe(&plan, line, sizeof line);
    ctx c;
    dev_resident *e = NULL;
    bool made = false;
    rc = begin(w, &c);
    if (!rc) rc = preload_upload(w, c, set, &j, &plan, line, &e, &made);
    if (!rc && params->n_h && !(n & (n - 1)) && n <= ((size_t)1 << CUZK_NTT_MAX_LOG))
        rc = preload_tables(w, c, j.log_n, e->compact_tables);
    if (rc && msg && msg_len) snprintf(msg, msg_len, "%s", w->err);
    /* on success, the plan and what the card has left (a set uploaded
     * before keeps the plan it was made with, not the one computed here
     * from what it left of the budget) */
    double f, t;
    if (!rc && msg && msg_len && dev_mem_gib(&f, &t))
        snprintf(msg, msg_len, "%.1f of %.1f GiB free on the device; plan: %s", f, t,
                 !params->n_h ? "no H domain" : made ? line : "as when the set was uploaded before");
    cuzk_gpu_worker_destroy(w);
    return rc;
}

/* Whether rows [r0, r1) of matrix mx fit a chunk of chunk bytes */
static bool pce_block_fits(const cuzk_pce_matrix *mx, uint64_t r0, uint64_t r1, size_t chunk)
{
    pce_block b = {r0, r1, cuzk_pce_row_start(mx, r0), cuzk_pce_row_start(mx, r1), 0, 0};
    size_t ca, da;
    return pce_block_layout(&b, mx->row_ptr32 ? 4 : 8, &ca, &da) <= chunk;
}

/* Matrix mx's m rows in blocks of at most chunk bytes (each as long as
 * fits: a binary search over its end), with the ranges of its nl long rows
 * lr (ascending) they hold; NULL with *nb = SIZE_MAX when a row alone does
 * not fit or no memory. */
static pce_block *pce_blocks_make(const cuzk_pce_matrix *mx, uint64_t m, const uint32_t *lr, size_t nl, size_t chunk,
                                  size_t *nb)
{
    size_t cap = 16, k = 0;
    pce_block *b = (pce_block *)malloc(cap * sizeof *b);
    for (uint64_t r = 0; b && r < m;) {
        if (!pce_block_fits(mx, r, r + 1, chunk)) break;
        uint64_t lo = r + 1, hi = m; /* lo fits; the largest that fits lies in [lo, hi] */
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo + 1) / 2;
            if (pce_block_fits(mx, r, mid, chunk)) lo = mid;
            else hi = mid - 1;
        }
        if (k == cap) {
            pce_block *nbk = (pce_block *)realloc(b, 2 * cap * sizeof *b);
            if (!nbk) break;
            b = nbk, cap *= 2;
        }
        b[k] = {r, lo, cuzk_pce_row_start(mx, r), cuzk_pce_row_start(mx, lo), 0, 0};
        b[k].l0 = (uint32_t)(std::lower_bound(lr, lr + nl, (uint32_t)r) - lr);
        b[k].l1 = (uint32_t)(std::lower_bound(lr, lr + nl, (uint32_t)lo) - lr);
        k++, r = lo;
    }
    if (!b || (k && b[k - 1].r1 != m) || (!k && m)) {
        free(b);
        *nb = SIZE_MAX;
        return NULL;
    }
    *nb = k;
    return b;
}

/* A PCE's arrays as they lie in its image, per slot: each matrix's row
 * pointers, columns and codes, the coefficients, and the sources of the
 * A and B query index lists (their densities; built by pce_lists). */
static void pce_slots(const cuzk_pce *p, const void *src[SRS_N], size_t bytes[SRS_N])
{
    const size_t m = (size_t)p->num_constraints;
    for (int k = 0; k < 3; k++) {
        const cuzk_pce_matrix *mx = &p->m[k];
        src[PCE_RP + k] = mx->row_ptr32 ? (const void *)mx->row_ptr32 : (const void *)mx->row_ptr64;
        bytes[PCE_RP + k] = (m + 1) * (mx->row_ptr32 ? 4 : 8);
        src[PCE_COL + k] = mx->col, bytes[PCE_COL + k] = mx->nnz * 4;
        src[PCE_CODE + k] = mx->code, bytes[PCE_CODE + k] = mx->nnz * 4;
    }
    if (p->num_coeffs) src[PCE_COEFFS] = p->coeffs, bytes[PCE_COEFFS] = p->num_coeffs * sizeof(cuzk_fr);
    src[PCE_IA] = p->a_aux.bits, bytes[PCE_IA] = ((size_t)p->num_inputs + p->a_aux.total) * 4;
    src[PCE_IB] = p->b_aux.bits, bytes[PCE_IB] = (p->b_input.total + p->b_aux.total) * 4;
}

/* The arrays built on the host for a PCE's upload (data[] of srs_get):
 * the A and B query index lists from the densities (A: every input, then
 * the aux in A's density; B: the inputs in B's input density, then the aux
 * in B's: cuzk_groth16_gather's order) over the unified witness (input
 * i -> i, aux j -> num_inputs + j), and each matrix's rows longer than
 * PCE_SPMV_LONG (lr[k], nl[k] of them; their slots set in src/bytes). */
struct pce_lists {
    uint32_t *ia, *ib, *lr[3];
    size_t nl[3];
};
static void pce_lists_free(pce_lists *L)
{
    free(L->ia), free(L->ib), free(L->lr[0]), free(L->lr[1]), free(L->lr[2]);
}
static bool pce_long_rows(const cuzk_pce *p, pce_lists *L)
{
    const size_t m = (size_t)p->num_constraints;
    for (int k = 0; k < 3; k++) {
        L->nl[k] = 0;
        for (size_t i = 0; i < m; i++)
            L->nl[k] += cuzk_pce_row_start(&p->m[k], i + 1) - cuzk_pce_row_start(&p->m[k], i) > PCE_SPMV_LONG;
        if (!(L->lr[k] = (uint32_t *)malloc((L->nl[k] ? L->nl[k] : 1) * 4))) return false;
        size_t j = 0;
        for (size_t i = 0; i < m; i++)
            if (cuzk_pce_row_start(&p->m[k], i + 1) - cuzk_pce_row_start(&p->m[k], i) > PCE_SPMV_LONG)
                L->lr[k][j++] = (uint32_t)i;
    }
    return true;
}
static bool pce_lists_make(const cuzk_pce *p, pce_lists *L, const void *src[SRS_N], size_t bytes[SRS_N],
                           const void *data[SRS_N])
{
    const size_t ni = (size_t)p->num_inputs, na = (size_t)p->num_aux;
    const size_t n_a = bytes[PCE_IA] / 4, n_b = bytes[PCE_IB] / 4;
    memset(L, 0, sizeof *L);
    L->ia = (uint32_t *)malloc((n_a ? n_a : 1) * 4), L->ib = (uint32_t *)malloc((n_b ? n_b : 1) * 4);
    if (!L->ia || !L->ib || !pce_long_rows(p, L)) return false;
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < ni; i++) {
        L->ia[ka++] = (uint32_t)i;
        if (cuzk_density_get(&p->b_input, i)) L->ib[kb++] = (uint32_t)i;
    }
    for (size_t j = 0; j < na; j++) {
        if (cuzk_density_get(&p->a_aux, j)) L->ia[ka++] = (uint32_t)(ni + j);
        if (cuzk_density_get(&p->b_aux, j)) L->ib[kb++] = (uint32_t)(ni + j);
    }
    data[PCE_IA] = L->ia, data[PCE_IB] = L->ib;
    for (int k = 0; k < 3; k++) {
        data[PCE_LONG + k] = L->lr[k];
        if (L->nl[k]) src[PCE_LONG + k] = src[PCE_RP + k], bytes[PCE_LONG + k] = L->nl[k] * 4;
    }
    return true;
}

/* The row blocks of a PCE whose matrices stream in chunks of stream_chunk
 * bytes (into blocks), and the slots they leave on the host (*host_slots). */
static int pce_stream_blocks(const ctx &c, const cuzk_pce *p, const pce_lists *L, size_t stream_chunk,
                             dev_resident *blocks, uint64_t *host_slots)
{
    for (int k = 0; k < 3; k++) {
        *host_slots |= 1ull << (PCE_RP + k) | 1ull << (PCE_COL + k) | 1ull << (PCE_CODE + k);
        blocks->blk[k] = pce_blocks_make(&p->m[k], (uint64_t)p->num_constraints, L->lr[k], L->nl[k], stream_chunk,
                                         &blocks->n_blk[k]);
        if (blocks->n_blk[k] == SIZE_MAX)
            return fail_msg(c, CUZK_ERR_NO_MEMORY, "PCE: a row does not fit a streamed chunk, or no host memory");
    }
    blocks->blk_chunk = stream_chunk;
    return CUZK_OK;
}

/* The device copy of a PCE under key: the CSR arrays as they lie in its
 * image (or, streamed, their row blocks, uploaded at each proof) and the
 * index lists built here (pce_lists). */
int pce_get(cuzk_gpu_worker *w, const ctx &c, uint64_t key, const cuzk_pce *p, dev_resident **out,
            size_t stream_chunk)
{
    if (!key) return fail_msg(c, CUZK_ERR_INVALID_ARG, "PCE: no key (a handle from cuzk_handle_new)");
    const void *src[SRS_N] = {};
    size_t bytes[SRS_N] = {};
    pce_slots(p, src, bytes);
    if ((size_t)p->num_inputs + p->num_aux > 0xffffffffull)
        return fail_msg(c, CUZK_ERR_UNSUPPORTED, "PCE: 2^32 or more variables");
    { /* resident already: nothing to build (the image's arrays must be those uploaded) */
        cuzk_gpu_device *d = w->dev;
        pthread_mutex_lock(&d->srs_mu);
        dev_resident *e = srs_find(d, key);
        const char *why = e ? srs_mismatch(e, src, bytes, PCE_IA) : NULL;
        pthread_mutex_unlock(&d->srs_mu);
        if (why) return fail_msg(c, CUZK_ERR_INVALID_ARG, "PCE: the key names other matrices than the device's copy");
        if (e) return *out = e, CUZK_OK;
    }
    pce_lists L;
    const void *data[SRS_N] = {};
    if (!pce_lists_make(p, &L, src, bytes, data)) {
        pce_lists_free(&L);
        return fail_msg(c, CUZK_ERR_NO_MEMORY, "PCE: host index lists");
    }
    /* streamed, the matrices stay on the host (pinned) and go up by row blocks at each proof */
    if (!stream_chunk && stream_named("pce")) stream_chunk = STREAM_CHUNK_BYTES;
    const uint64_t v = cuzk_gpu_hooks_now()->stream_chunk; /* tests: that many points' bytes a block */
    if (stream_chunk && v > 0) stream_chunk = (size_t)v * sizeof(cuzk_g1_affine);
    uint64_t host_slots = 0;
    dev_resident blocks = {};
    int rc = stream_chunk ? pce_stream_blocks(c, p, &L, stream_chunk, &blocks, &host_slots) : CUZK_OK;
    if (!rc) rc = srs_get(w, c, key, src, bytes, out, data, NULL, NULL, host_slots, stream_chunk ? &blocks : NULL);
    for (int k = 0; k < 3; k++) free(blocks.blk[k]);
    pce_lists_free(&L);
    return rc;
}
