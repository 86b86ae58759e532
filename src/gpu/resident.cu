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

/* The device copy of a parameter set (key: its address), uploaded by the
 * first worker that needs it; src/bytes per SRS_* slot (bytes 0: unused).
 * src identifies the host arrays (a set whose arrays changed is stale);
 * data (may be NULL) gives, per slot, other bytes to upload in src's place
 * (arrays derived on the host for the upload, identified by their source).
 * *made says whether this call uploaded it (may be NULL). */
static int srs_get(cuzk_gpu_worker *w, const ctx &c, const void *key, const void *const src[SRS_N],
                   const size_t bytes[SRS_N], dev_resident **out, const void *const *data = NULL,
                   bool *made = NULL, const cuzk_gpu_plan *plan = NULL, uint64_t host_slots = 0,
                   dev_resident *blocks = NULL)
{
    if (made) *made = false;
    cuzk_gpu_device *d = w->dev;
    pthread_mutex_lock(&d->srs_mu);
    dev_resident *e, **pe;
    for (pe = &d->srs; (e = *pe) != NULL; pe = &e->next)
        if (e->key == key) break;
    if (e && e->host_released) {
        /* no longer comparable by address: the sizes must agree, and the
         * arrays be the released ones (NULL) or those uploaded */
        bool same = !memcmp(e->bytes, bytes, sizeof e->bytes);
        for (int i = 0; i < SRS_N && same; i++)
            same = src[i] == e->src[i] || (i < SRS_IA && !src[i] && !e->streamed[i]);
        if (!same) {
            pthread_mutex_unlock(&d->srs_mu);
            return fail_msg(c, CUZK_ERR_INVALID_ARG,
                            "parameters: the set's host arrays were released and the job's differ from the device's copy");
        }
    } else {
        /* arrays released by their owner can only be a copy's stand-in */
        for (int i = 0; i < SRS_N; i++)
            if (bytes[i] && !src[i] && !(data && data[i])) {
                pthread_mutex_unlock(&d->srs_mu);
                char m[160];
                snprintf(m, sizeof m, "parameters: %s neither on the device nor on the host (released)", srs_name[i]);
                return fail_msg(c, CUZK_ERR_INVALID_ARG, m);
            }
    }
    if (e && !e->host_released && (memcmp(e->src, src, sizeof e->src) || memcmp(e->bytes, bytes, sizeof e->bytes))) {
        /* the caller freed a parameter set without releasing it and built
         * another at the same address: the old copy is stale */
        *pe = e->next;
        dev_resident_free(e);
        e = NULL;
    }
    int rc = CUZK_OK;
    if (!e) {
        e = (dev_resident *)calloc(1, sizeof *e);
        if (!e) {
            pthread_mutex_unlock(&d->srs_mu);
            return CUZK_ERR_NO_MEMORY;
        }
        e->key = key, e->ordinal = c.ordinal;
        memcpy(e->src, src, sizeof e->src);
        memcpy(e->bytes, bytes, sizeof e->bytes);
        e->h_vectors = plan ? plan->h_vectors : 3;
        e->chunk_bytes = plan && plan->chunk_bytes ? plan->chunk_bytes : STREAM_CHUNK_BYTES;
        e->compact_tables = plan && plan->compact_tables;
        if (plan) {
            e->chunk_buffers = plan->chunk_buffers, e->msm_entries = plan->msm_entries;
            e->witness_packed = plan->witness_packed;
            for (int i = 0; i <= SRS_B2; i++) e->msm_c[i] = plan->msm_c[i];
        }
        e->pce_streamed = (plan && plan->pce_streamed) || host_slots;
        for (int i = 0; i < SRS_N && !rc; i++)
            if (src[i] && ((i <= SRS_B2 && ((plan && plan->streamed[i]) || stream_forced(i))) || (host_slots >> i & 1)))
                e->streamed[i] = true;
            else if (src[i]) rc = srs_copy(c, &e->p[i], data && data[i] ? data[i] : src[i], bytes[i], srs_name[i]);
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
        if (rc) {
            dev_resident_free(e);
            pthread_mutex_unlock(&d->srs_mu);
            return rc;
        }
        e->next = d->srs;
        d->srs = e;
        if (plan) cuzk_gpu_plan_describe(plan, d->plan, sizeof d->plan);
        if (made) *made = true;
    }
    pthread_mutex_unlock(&d->srs_mu);
    *out = e;
    return CUZK_OK;
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

/* The device copy of a job's parameter set (key: job->key): the points of
 * the five MSMs and the queries' index lists when they have them (B2's only
 * when its scalars are not B1's). A set uploaded here, not by a preload,
 * follows the plan of what the budget leaves at that moment. */
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
    if (!plan && j->key == (const void *)p && p->n_h) { /* a set of Groth16 parameters: planned */
        plan_for(w, &own, p, j->pce, job_gathers_on_device(j));
        if (own.fits) plan = &own;
    }
    return srs_get(w, c, j->key, src, bytes, out, NULL, made, plan);
}

static void srs_release(cuzk_gpu_device *d, const void *key)
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

extern "C" void cuzk_gpu_device_release_params(cuzk_gpu_device *d, const cuzk_groth16_params *p)
{
    srs_release(d, p);
}

extern "C" int cuzk_gpu_device_params_host_released(cuzk_gpu_device *d, const cuzk_groth16_params *p)
{
    if (!d || !p) return CUZK_ERR_INVALID_ARG;
    /* the caller holds its scheduler's lock: never wait out another set's
     * upload (srs_mu is held through one); asked again later */
    if (pthread_mutex_trylock(&d->srs_mu)) return CUZK_ERR_NOT_READY;
    dev_resident *e = d->srs;
    while (e && e->key != p) e = e->next;
    /* only a copy of these very arrays (the points uploaded, not a stale
     * set at the same address) may stand in for them */
    bool ok = e && e->src[SRS_H] == p->h && e->src[SRS_L] == p->l && e->src[SRS_A] == p->a &&
              e->src[SRS_B1] == p->b_g1 && e->src[SRS_B2] == p->b_g2;
    for (int i = 0; ok && i <= SRS_B2; i++) ok = !e->streamed[i]; /* read at every MSM */
    if (ok) e->host_released = true;
    pthread_mutex_unlock(&d->srs_mu);
    return ok ? CUZK_OK : CUZK_ERR_NOT_READY;
}

extern "C" int cuzk_gpu_device_preload(cuzk_gpu_device *d, const cuzk_groth16_params *params,
                                       const cuzk_pce *p, char *msg, size_t msg_len)
{
    if (!d || !params) return CUZK_ERR_INVALID_ARG;
    cuzk_gpu_worker *w; /* its own stream and message buffer, for this call */
    int rc = cuzk_gpu_worker_create(&w, d);
    if (rc) {
        if (msg && msg_len) snprintf(msg, msg_len, "%s", d->err);
        return rc;
    }
    ctx c;
    dev_resident *e;
    cuzk_groth16_job j = {}; /* the points of params as a job of them keeps them */
    j.params = params, j.key = params, j.pce = p;
    /* bellman's H has n - 1 points */
    const size_t n = params->n_h + 1;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < n) log_n++;
    j.log_n = log_n;
    /* the set's plan (cuzk/gpu/gpu.h) from what the card's budget leaves: the
     * arrays it streams are never uploaded */
    cuzk_gpu_plan plan;
    char line[400] = "";
    plan_for(w, &plan, params, p, p != NULL);
    cuzk_gpu_plan_describe(&plan, line, sizeof line);
    rc = begin(w, &c);
    if (!rc && params->n_h && !plan.fits) {
        /* a set already on the device is not planned again */
        pthread_mutex_lock(&d->srs_mu);
        for (e = d->srs; e && e->key != params; e = e->next) {}
        pthread_mutex_unlock(&d->srs_mu);
        if (!e) {
            char m[480];
            snprintf(m, sizeof m, "one worker does not fit beside the parameters with every point streamed: %s", line);
            rc = fail_msg(c, CUZK_ERR_NO_MEMORY, m);
        }
    }
    bool made = false;
    if (!rc) rc = srs_get_job(w, c, &j, &e, &made, params->n_h && plan.fits ? &plan : NULL);
    const bool compact = !rc && e->compact_tables;
    if (!rc && p) {
        if (cuzk_pce_ready(p, NULL) != CUZK_OK) rc = fail_msg(c, CUZK_ERR_FORMAT, "preload: the PCE failed verification");
        else rc = pce_get(w, c, p, &e, e->pce_streamed ? e->chunk_bytes : 0);
    }
    /* H's NTT tables for the parameters' domain: 2 × 2 GiB of twiddles at
     * 2^27, built at the first proof's H otherwise (its NTT step took 1.38 s
     * against 0.33 s later, H200). Best effort: without room now, the first
     * proof builds them as before. */
    if (!rc && params->n_h && !(n & (n - 1)) && n <= ((size_t)1 << CUZK_NTT_MAX_LOG)) {
        region_lock(w);
        if (compact) d->ntt.compact = true; /* the device's tables serve every set: the smallest plan's form */
        int trc = ntt_groth16_h_tables(c, &d->ntt, log_n);
        trc = region_unlock(w, c, trc);
        if (trc == CUZK_ERR_DEVICE) rc = trc; /* the context is no longer trusted */
        else w->err[0] = 0;
    }
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

extern "C" void cuzk_gpu_device_release_pce(cuzk_gpu_device *d, const cuzk_pce *p)
{
    srs_release(d, p);
}

extern "C" void cuzk_gpu_device_release(cuzk_gpu_device *d, const void *key)
{
    srs_release(d, key);
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

/* The device copy of a PCE (key: its address): the CSR arrays as they lie
 * in its image, and, built here, the A and B query index lists from the
 * density bitmaps (A: every input, then the aux in A's density; B: the
 * inputs in B's input density, then the aux in B's: cuzk_groth16_gather's
 * order) over the unified witness (input i -> i, aux j -> num_inputs + j),
 * and each matrix's rows longer than PCE_SPMV_LONG. */
int pce_get(cuzk_gpu_worker *w, const ctx &c, const cuzk_pce *p, dev_resident **out, size_t stream_chunk)
{
    const void *src[SRS_N] = {};
    size_t bytes[SRS_N] = {};
    const size_t ni = (size_t)p->num_inputs, na = (size_t)p->num_aux, m = (size_t)p->num_constraints;
    for (int k = 0; k < 3; k++) {
        const cuzk_pce_matrix *mx = &p->m[k];
        src[PCE_RP + k] = mx->row_ptr32 ? (const void *)mx->row_ptr32 : (const void *)mx->row_ptr64;
        bytes[PCE_RP + k] = (m + 1) * (mx->row_ptr32 ? 4 : 8);
        src[PCE_COL + k] = mx->col, bytes[PCE_COL + k] = mx->nnz * 4;
        src[PCE_CODE + k] = mx->code, bytes[PCE_CODE + k] = mx->nnz * 4;
    }
    if (p->num_coeffs) src[PCE_COEFFS] = p->coeffs, bytes[PCE_COEFFS] = p->num_coeffs * sizeof(cuzk_fr);
    const size_t n_a = ni + p->a_aux.total, n_b = p->b_input.total + p->b_aux.total;
    src[PCE_IA] = p->a_aux.bits, bytes[PCE_IA] = n_a * 4;
    src[PCE_IB] = p->b_aux.bits, bytes[PCE_IB] = n_b * 4;
    if (ni + na > 0xffffffffull) return fail_msg(c, CUZK_ERR_UNSUPPORTED, "PCE: 2^32 or more variables");
    { /* resident already: nothing to build (the image's arrays identify it) */
        cuzk_gpu_device *d = w->dev;
        pthread_mutex_lock(&d->srs_mu);
        dev_resident *e = d->srs;
        while (e && (e->key != p || memcmp(e->src, src, PCE_IA * sizeof *src) ||
                     memcmp(e->bytes, bytes, PCE_IA * sizeof *bytes)))
            e = e->next;
        pthread_mutex_unlock(&d->srs_mu);
        if (e) return *out = e, CUZK_OK;
    }
    uint32_t *ia = (uint32_t *)malloc((n_a ? n_a : 1) * 4), *ib = (uint32_t *)malloc((n_b ? n_b : 1) * 4);
    uint32_t *lr[3] = {};
    size_t nl[3] = {};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < m; i++)
            nl[k] += cuzk_pce_row_start(&p->m[k], i + 1) - cuzk_pce_row_start(&p->m[k], i) > PCE_SPMV_LONG;
        lr[k] = (uint32_t *)malloc((nl[k] ? nl[k] : 1) * 4);
    }
    if (!ia || !ib || !lr[0] || !lr[1] || !lr[2]) {
        free(ia), free(ib), free(lr[0]), free(lr[1]), free(lr[2]);
        return fail_msg(c, CUZK_ERR_NO_MEMORY, "PCE: host index lists");
    }
    for (int k = 0; k < 3; k++) {
        size_t j = 0;
        for (size_t i = 0; i < m; i++)
            if (cuzk_pce_row_start(&p->m[k], i + 1) - cuzk_pce_row_start(&p->m[k], i) > PCE_SPMV_LONG)
                lr[k][j++] = (uint32_t)i;
        if (nl[k]) src[PCE_LONG + k] = src[PCE_RP + k], bytes[PCE_LONG + k] = nl[k] * 4;
    }
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < ni; i++) {
        ia[ka++] = (uint32_t)i;
        if (cuzk_density_get(&p->b_input, i)) ib[kb++] = (uint32_t)i;
    }
    for (size_t j = 0; j < na; j++) {
        if (cuzk_density_get(&p->a_aux, j)) ia[ka++] = (uint32_t)(ni + j);
        if (cuzk_density_get(&p->b_aux, j)) ib[kb++] = (uint32_t)(ni + j);
    }
    const void *data[SRS_N] = {};
    data[PCE_IA] = ia, data[PCE_IB] = ib;
    for (int k = 0; k < 3; k++) data[PCE_LONG + k] = lr[k];
    /* streamed, the matrices stay on the host (pinned) and go up by row blocks at each proof */
    if (!stream_chunk && stream_named("pce")) stream_chunk = STREAM_CHUNK_BYTES;
    const uint64_t v = cuzk_gpu_hooks_now()->stream_chunk; /* tests: that many points' bytes a block */
    if (stream_chunk && v > 0) stream_chunk = (size_t)v * sizeof(cuzk_g1_affine);
    uint64_t host_slots = 0;
    dev_resident blocks = {};
    int rc = CUZK_OK;
    for (int k = 0; k < 3 && stream_chunk && !rc; k++) {
        host_slots |= 1ull << (PCE_RP + k) | 1ull << (PCE_COL + k) | 1ull << (PCE_CODE + k);
        blocks.blk[k] = pce_blocks_make(&p->m[k], m, lr[k], nl[k], stream_chunk, &blocks.n_blk[k]);
        if (blocks.n_blk[k] == SIZE_MAX)
            rc = fail_msg(c, CUZK_ERR_NO_MEMORY, "PCE: a row does not fit a streamed chunk, or no host memory");
    }
    blocks.blk_chunk = stream_chunk;
    if (!rc) rc = srs_get(w, c, p, src, bytes, out, data, NULL, NULL, host_slots, stream_chunk ? &blocks : NULL);
    for (int k = 0; k < 3; k++) free(blocks.blk[k]);
    free(ia), free(ib), free(lr[0]), free(lr[1]), free(lr[2]);
    return rc;
}
