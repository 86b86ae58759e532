/*
 * The Groth16 prover on a device (cuzk_gpu_prove_job, cuzk_gpu_prove): the
 * witness and a, b, c uploaded into the worker's buffers, then the kernel
 * region (a, b, c from the PCE, H, the gathers, the five MSMs, resident or
 * in chunks streamed from the host on the worker's copy stream).
 * Ownership and locking: docs/gpu.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/clock.h"
#include "cuzk/ff/fr_packed.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/util/mem.h"
#include "cuzk/pce/pce.h"
#include "device.cuh"
#include "gpu_internal.cuh"
#include "witness.cuh"

using namespace cuzk_gpu;

/* out[k] = entry idx[k] of the witness: a query's scalars by index into it
 * (plain integers or Montgomery values alike, plain or packed). */
template <bool PK>
static __global__ void gather_wires(fr_t *__restrict__ out, const wit_dev w, const uint32_t *__restrict__ idx, size_t n)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = wit_get<PK>(w, idx[k]);
}

static int gather_on_device(const ctx &c, fr_t *dst, const wit_dev &w, const void *idx, size_t n)
{
    if (n == 0) return CUZK_OK;
    const unsigned nb = (unsigned)((n + 255) / 256);
    if (w.plain) gather_wires<false><<<nb, 256, 0, c.st>>>(dst, w, (const uint32_t *)idx, n);
    else gather_wires<true><<<nb, 256, 0, c.st>>>(dst, w, (const uint32_t *)idx, n);
    GPU_LAUNCHED(c, "gather_wires");
    return CUZK_OK;
}

/* out[i] = entry j0 + i of a packed aux (witness.cuh), for i < n. */
static __global__ void fr_unpack_entries(fr_t *__restrict__ out, const wit_dev w, size_t j0, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = wit_packed_aux(w, j0 + i);
}

static int unpack_range(const ctx &c, fr_t *out, const wit_dev &w, size_t j0, size_t n)
{
    if (!n) return CUZK_OK;
    fr_unpack_entries<<<(unsigned)((n + 255) / 256), 256, 0, c.st>>>(out, w, j0, n);
    GPU_LAUNCHED(c, "fr_unpack_entries");
    return CUZK_OK;
}

/* Where a packed vector's arrays lie in the device's scratch (each 256-byte
 * aligned): the counts at *before, the general values at *gen, the bytes in all
 * returned. */
static size_t packed_dev_layout(const cuzk_fr_packed *pk, size_t *before, size_t *gen)
{
    const size_t nw = (pk->n + 31) / 32, al = 255;
    *before = (nw * 8 + al) & ~al;
    *gen = *before + ((nw * 4 + al) & ~al);
    return *gen + pk->n_gen * sizeof(cuzk_fr);
}

/* The packed aux pk's arrays uploaded into dev (at least packed_dev_layout
 * bytes), the view *v of them with the inputs at in (ni of them). */
static int packed_upload(cuzk_gpu_worker *w, const ctx &c, wit_dev *v, const cuzk_fr_packed *pk, void *dev,
                         const fr_t *in, size_t ni)
{
    const size_t nw = (pk->n + 31) / 32;
    size_t ob, og;
    packed_dev_layout(pk, &ob, &og);
    memset(v, 0, sizeof *v);
    v->in = in, v->ni = ni;
    v->codes = (const unsigned long long *)dev;
    v->before = (const uint32_t *)((char *)dev + ob);
    v->gen = (const fr_t *)((char *)dev + og);
    memcpy(&v->one, cuzk_fr_packed_one(pk->plain), sizeof v->one); /* the integer 1, or R mod r (the same limbs) */
    int rc;
    if ((rc = h2d(w, c, dev, pk->codes, nw * 8)) || (rc = h2d(w, c, (char *)dev + ob, pk->before, nw * 4)) ||
        (pk->n_gen && (rc = h2d(w, c, (char *)dev + og, pk->gen, pk->n_gen * sizeof(cuzk_fr)))))
        return rc;
    return CUZK_OK;
}

/* dst <- the entries of pk: its arrays uploaded into scratch (dead until
 * the caller's next writes in stream order), then expanded there: 103 MB
 * over the bus instead of 4.17 GB for a 32 GiB PoRep partition's aux. */
static int unpack_on_device(cuzk_gpu_worker *w, const ctx &c, fr_t *dst, const cuzk_fr_packed *pk, void *scratch)
{
    if (!pk->n) return CUZK_OK;
    wit_dev v;
    int rc = packed_upload(w, c, &v, pk, scratch, nullptr, 0);
    return rc ? rc : unpack_range(c, dst, v, 0, pk->n);
}

static size_t point_bytes(int slot) { return slot == SRS_B2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine); }

/* The next streamed chunk of the schedule copied into the buffer it frees,
 * when one is free (at most f->nbuf in flight), once the buffer's last
 * reader is done (ev_free: the copy stream waits, the host does not). */
static int feed_issue(cuzk_gpu_worker *w, const ctx &c)
{
    stream_feed *f = &w->feed;
    while (f->next_copy < f->n_steps && !f->src[f->step[f->next_copy].msm]) f->next_copy++;
    if (f->next_copy >= f->n_steps || f->issued - f->taken >= f->nbuf) return CUZK_OK;
    const cuzk_gpu_chunk_step *st = &f->step[f->next_copy];
    const size_t pb = point_bytes((int)st->msm);
    const unsigned k = f->issued % f->nbuf;
    f->buf_step[k] = f->next_copy++;
    GPU_TRY(c, cudaStreamWaitEvent(w->cst, w->ev_free[k], 0)); /* the buffer's last MSM done */
    GPU_TRY(c, cudaEventRecord(w->ev_start[k], w->cst));
    GPU_TRY(c, cudaMemcpyAsync(w->chunk[k].p, f->src[st->msm] + st->off * pb, st->len * pb, cudaMemcpyHostToDevice,
                               w->cst));
    GPU_TRY(c, cudaEventRecord(w->ev_done[k], w->cst));
    f->issued++, f->bytes += st->len * pb;
    return CUZK_OK;
}

/* The worker's copy stream, its events and nbuf chunk buffers of at least
 * bytes each (made at the first streamed prove) */
static int copy_bufs(cuzk_gpu_worker *w, const ctx &c, size_t bytes, unsigned nbuf)
{
    if (!w->cst) {
        GPU_TRY(c, cudaStreamCreateWithFlags(&w->cst, cudaStreamNonBlocking));
        for (int i = 0; i < FEED_BUFS; i++) {
            GPU_TRY(c, cudaEventCreate(&w->ev_start[i]));
            GPU_TRY(c, cudaEventCreate(&w->ev_done[i]));
            GPU_TRY(c, cudaEventCreateWithFlags(&w->ev_free[i], cudaEventDisableTiming));
        }
        for (int i = 0; i < FEED_TIMERS; i++) {
            GPU_TRY(c, cudaEventCreate(&w->ev_t0[i]));
            GPU_TRY(c, cudaEventCreate(&w->ev_t1[i]));
        }
    }
    int rc = CUZK_OK;
    for (unsigned i = 0; i < nbuf && !rc; i++) rc = buf_reserve(c, &w->chunk[i], bytes, "streamed chunks");
    return rc;
}

/* The chunked MSMs' room (msm_chunked_reserve) for the schedule's MSMs:
 * each one's widest window the plan's (else its points' own width), its
 * buckets after those of the MSMs of its phase, the room the largest
 * phase; window batches of the largest chunk's points (in G1 entries). */
static void feed_msm_room(stream_feed *f, const dev_resident *srs, const uint64_t n[SRS_B2 + 1],
                          const uint64_t per[SRS_B2 + 1], const unsigned phase[SRS_B2 + 1])
{
    f->entries = srs->msm_entries;
    for (int slot = SRS_H; slot <= SRS_B2; slot++) {
        f->cap[slot] = !n[slot] ? 0 : srs->msm_c[slot] ? srs->msm_c[slot] : cuzk_gpu_msm_window_bits(n[slot]);
        const size_t e = (per[slot] < n[slot] ? per[slot] : n[slot]) * (slot == SRS_B2 ? 2 : 1);
        if (e > f->entries) f->entries = e;
    }
    f->room = cuzk_gpu_msm_bucket_layout(f->cap, phase, f->off);
}

/* The chunk schedule of a prove over srs whose MSMs have n[slot] points,
 * B's in phase 1 when late_b (their scalars are gathered once H's MSM is
 * done), made with the chunk buffers, the copy stream and the first
 * copies, one a buffer; none (n_steps 0) when nothing streams. */
static int feed_start(cuzk_gpu_worker *w, const ctx &c, const dev_resident *srs, const size_t n[SRS_B2 + 1],
                      bool late_b)
{
    stream_feed *f = &w->feed;
    cuzk_gpu_chunk_step *keep = f->step;
    memset(f, 0, sizeof *f);
    f->step = keep;
    f->nbuf = srs->chunk_buffers >= 2 && srs->chunk_buffers <= FEED_BUFS ? srs->chunk_buffers : 2;
    uint64_t nn[SRS_B2 + 1], per[SRS_B2 + 1];
    unsigned phase[SRS_B2 + 1];
    bool any = false;
    size_t buf = 0;
    const uint64_t v = cuzk_gpu_hooks_now()->stream_chunk; /* tests: points a chunk */
    for (int slot = SRS_H; slot <= SRS_B2; slot++) {
        const size_t pb = point_bytes(slot);
        nn[slot] = n[slot], phase[slot] = late_b && (slot == SRS_B1 || slot == SRS_B2);
        per[slot] = v > 0 ? v : srs->chunk_bytes / pb;
        if (!srs->streamed[slot] || !n[slot]) continue;
        f->src[slot] = (const char *)srs->src[slot], any = true;
        const size_t b = (per[slot] < n[slot] ? per[slot] : n[slot]) * pb;
        if (b > buf) buf = b;
    }
    if (!any) return CUZK_OK;
    if (!f->step && !(f->step = (cuzk_gpu_chunk_step *)malloc(FEED_STEPS_MAX * sizeof *f->step)))
        return fail_msg(c, CUZK_ERR_NO_MEMORY, "streamed points: the chunk schedule");
    f->n_steps = cuzk_gpu_chunk_schedule(f->step, FEED_STEPS_MAX, nn, per, phase);
    if (f->n_steps > FEED_STEPS_MAX) return fail_msg(c, CUZK_ERR_UNSUPPORTED, "streamed points: over 16,384 chunks");
    feed_msm_room(f, srs, nn, per, phase);
    int rc = copy_bufs(w, c, buf, f->nbuf);
    /* each after the buffer's last reader (a streamed PCE's block, a step) */
    for (unsigned i = 0; i < f->nbuf && !rc; i++) rc = feed_issue(w, c);
    return rc;
}

/* Matrix k of a streamed PCE times the witness into o (n elements: the
 * rows past m zeroed): its row blocks (pe->blk) go up on the copy stream
 * into the first two chunk buffers in turn, each once the SpMV that read the
 * buffer before is done (ev_free), and each block's SpMV waits on the
 * stream for its copy (ev_done): the host never waits, the copy of block i
 * + 1 runs beside the SpMV of block i. *bytes counts what went up. */
static int pce_eval_blocks(cuzk_gpu_worker *w, const ctx &c, const cuzk_pce *p, const dev_resident *pe, int k,
                           const wit_dev &wit, fr_t *o, size_t m, size_t n, uint64_t *bytes)
{
    const cuzk_pce_matrix *mx = &p->m[k];
    const size_t rpb = mx->row_ptr32 ? 4 : 8;
    const char *rp = (const char *)pe->src[PCE_RP + k];
    const char *col = (const char *)pe->src[PCE_COL + k], *code = (const char *)pe->src[PCE_CODE + k];
    int rc = copy_bufs(w, c, pe->blk_chunk, 2);
    for (size_t i = 0; i < pe->n_blk[k] && !rc; i++) {
        const pce_block *b = &pe->blk[k][i];
        const unsigned s = i & 1;
        char *buf = (char *)w->chunk[s].p;
        size_t ca, da;
        pce_block_layout(b, rpb, &ca, &da);
        const size_t ne = (size_t)(b->e1 - b->e0), nr = (size_t)(b->r1 - b->r0);
        GPU_TRY(c, cudaStreamWaitEvent(w->cst, w->ev_free[s], 0));
        GPU_TRY(c, cudaMemcpyAsync(buf, rp + b->r0 * rpb, (nr + 1) * rpb, cudaMemcpyHostToDevice, w->cst));
        GPU_TRY(c, cudaMemcpyAsync(buf + ca, col + b->e0 * 4, ne * 4, cudaMemcpyHostToDevice, w->cst));
        GPU_TRY(c, cudaMemcpyAsync(buf + da, code + b->e0 * 4, ne * 4, cudaMemcpyHostToDevice, w->cst));
        GPU_TRY(c, cudaEventRecord(w->ev_done[s], w->cst));
        GPU_TRY(c, cudaStreamWaitEvent(c.st, w->ev_done[s], 0));
        rc = pce_spmv(c, o + b->r0, buf, rpb == 8, (const uint32_t *)(buf + ca), (const uint32_t *)(buf + da),
                      (const fr_t *)pe->p[PCE_COEFFS], wit, nr, (const uint32_t *)pe->p[PCE_LONG + k] + b->l0,
                      b->l1 - b->l0, b->e0, (uint32_t)b->r0);
        if (!rc) GPU_TRY(c, cudaEventRecord(w->ev_free[s], c.st));
        *bytes += (nr + 1) * rpb + 8 * ne;
    }
    if (!rc && n > m) GPU_TRY(c, cudaMemsetAsync(o + m, 0, (n - m) * sizeof(fr_t), c.st));
    return rc;
}

/* The chunked MSMs' room at the schedule's sizes, in the device's MSM
 * scratch (inside the kernel region: the device lock held) */
static int feed_msm_reserve(cuzk_gpu_worker *w, const ctx &c, bool l_packed)
{
    const stream_feed *f = &w->feed;
    msm_scratch *ms = &w->dev->msm;
    for (int slot = SRS_H; slot <= SRS_B2; slot++) ms->acc[slot].off = f->off[slot], ms->acc[slot].cap = f->cap[slot];
    int rc = msm_chunked_reserve(c, ms, f->entries, f->room);
    /* L's chunks of a packed aux unpacked here (a chunk's G1 points of scalars) */
    if (!rc && l_packed) rc = buf_reserve(c, &w->lchunk, f->entries * sizeof(fr_t), "L's chunk unpacked");
    return rc;
}

/* One MSM over the scalars of a prove (work as for msm_g1; NULL: the plain
 * form goes to the MSM's scratch), its sum on the host as G1 or G2. */
struct msm_task {
    const fr_t *sc;
    size_t n;
    bool mont;
    fr_t *work;
    const wit_dev *pk; /* L's over a packed aux: sc unused, each chunk unpacked first */
    size_t n_gen;      /* then its general scalars (the packed aux's general values) */
};

/* One step of the schedule: its MSM's chunk of n points at bases, summed
 * into the MSM's buckets (msm/chunked.cuh); the MSM begun at its first
 * chunk (the schedule takes an MSM's chunks in order) and ended at its
 * last, its sum then in g1[slot] or *g2. */
static int chunk_msm(cuzk_gpu_worker *w, const ctx &c, const msm_task &t, int slot, const cuzk_gpu_chunk_step *st,
                     const void *bases, cuzk_g1_jac g1[SRS_B1 + 1], cuzk_g2_jac *g2)
{
    msm_scratch *ms = &w->dev->msm;
    msm_acc *a = &ms->acc[slot];
    const bool two = slot == SRS_B2;
    const fr_t *sc = t.pk ? NULL : t.sc + st->off;
    fr_t *work = t.work ? t.work + st->off : NULL;
    int rc = CUZK_OK;
    if (st->off == 0 && t.pk) /* the packed aux counts its general values */
        rc = msm_g1_chunked_begin_counted(c, ms, a, t.n_gen);
    else if (st->off == 0)
        rc = two ? msm_g2_chunked_begin(c, ms, a, t.sc, t.n, t.mont) : msm_g1_chunked_begin(c, ms, a, t.sc, t.n, t.mont);
    if (!rc && t.pk) { /* this chunk of the aux unpacked, its plain form then over it */
        rc = unpack_range(c, bp<fr_t>(w->lchunk), *t.pk, st->off, st->len);
        sc = work = bp<fr_t>(w->lchunk);
    }
    if (!rc)
        rc = two ? msm_g2_chunked_add(c, ms, a, bases, sc, st->len, t.mont, work)
                 : msm_g1_chunked_add(c, ms, a, bases, sc, st->len, t.mont, work);
    if (rc || st->off + st->len < t.n) return rc;
    return two ? msm_g2_chunked_end(c, ms, a, g2) : msm_g1_chunked_end(c, ms, a, &g1[slot]);
}

/* Timer r of the ring, when it holds a step's events: its kernel time
 * added to its MSM's secs and to the feed's kernel time. A pair is read
 * before it is recorded again, so FEED_TIMERS steps may be in flight. */
static int timer_read(cuzk_gpu_worker *w, const ctx &c, unsigned r, double secs[SRS_B2 + 1])
{
    stream_feed *f = &w->feed;
    if (!f->t_slot[r]) return CUZK_OK;
    GPU_TRY(c, cudaEventSynchronize(w->ev_t1[r]));
    float ms_ = 0;
    GPU_TRY(c, cudaEventElapsedTime(&ms_, w->ev_t0[r], w->ev_t1[r]));
    secs[f->t_slot[r] - 1] += ms_ / 1e3, f->kern_s += ms_ / 1e3;
    f->t_slot[r] = 0;
    return CUZK_OK;
}

/* The copy engine's time for the chunk in buffer k (its copy is done:
 * the step's split waited on the stream after it). */
static void copy_time(cuzk_gpu_worker *w, unsigned k)
{
    float ms_ = 0;
    if (cudaEventSynchronize(w->ev_done[k]) == cudaSuccess &&
        cudaEventElapsedTime(&ms_, w->ev_start[k], w->ev_done[k]) == cudaSuccess)
        w->feed.copy_s += ms_ / 1e3;
    else
        cudaGetLastError();
}

/* The schedule's steps of one phase: each chunk's MSM over its points (a
 * streamed chunk's buffer, the stream waiting for its copy; a resident
 * array's range in place), the buffer's next copy issued once its MSM's
 * launches are in (the copy stream waits for them). secs[slot] gets each
 * MSM's kernel time; the phase's time less the kernels' is the wait, the
 * time no chunk's kernels ran (copies not hidden, the host's launches). */
static int feed_run(cuzk_gpu_worker *w, const ctx &c, const dev_resident *srs, const msm_task t[SRS_B2 + 1],
                    unsigned phase, cuzk_g1_jac g1[SRS_B1 + 1], cuzk_g2_jac *g2, double secs[SRS_B2 + 1])
{
    stream_feed *f = &w->feed;
    const double t0 = cuzk_now(), k0 = f->kern_s;
    int rc = CUZK_OK;
    for (size_t i = 0; i < f->n_steps && !rc; i++) {
        const cuzk_gpu_chunk_step *st = &f->step[i];
        if (st->phase != phase) continue;
        const int slot = (int)st->msm;
        const void *bases;
        const bool streamed = f->src[slot] != NULL;
        const unsigned k = f->taken % f->nbuf, r = f->timers++ % FEED_TIMERS;
        if (streamed) {
            if (f->taken >= f->issued || f->buf_step[k] != i) /* the copies follow the schedule */
                return fail_msg(c, CUZK_ERR_INTERNAL, "streamed points: chunk out of order");
            GPU_TRY(c, cudaStreamWaitEvent(c.st, w->ev_done[k], 0));
            bases = w->chunk[k].p;
        } else {
            bases = (const char *)srs->p[slot] + st->off * point_bytes(slot);
        }
        if ((rc = timer_read(w, c, r, secs))) break;
        GPU_TRY(c, cudaEventRecord(w->ev_t0[r], c.st));
        rc = chunk_msm(w, c, t[slot], slot, st, bases, g1, g2);
        if (rc) break;
        GPU_TRY(c, cudaEventRecord(w->ev_t1[r], c.st));
        f->t_slot[r] = (unsigned char)(slot + 1);
        if (streamed) {
            copy_time(w, k);
            GPU_TRY(c, cudaEventRecord(w->ev_free[k], c.st));
            f->taken++;
            rc = feed_issue(w, c);
        }
    }
    for (unsigned r = 0; r < FEED_TIMERS && !rc; r++) rc = timer_read(w, c, r, secs);
    const double idle = (cuzk_now() - t0) - (f->kern_s - k0);
    if (idle > 0) f->wait_s += idle;
    return rc;
}

/* msm_g1 or msm_g2 over the set's resident slot, whole */
static int msm_slot(cuzk_gpu_worker *w, const ctx &c, const dev_resident *srs, int slot, void *out,
                    const fr_t *scalars, size_t n, bool mont, fr_t *work)
{
    if (slot == SRS_B2) return msm_g2(c, &w->dev->msm, (cuzk_g2_jac *)out, srs->p[slot], scalars, n, mont, work);
    return msm_g1(c, &w->dev->msm, (cuzk_g1_jac *)out, srs->p[slot], scalars, n, mont, work);
}


/* The stream drained; a failure named by what ran on it */
static int sync_named(const ctx &c, const char *what)
{
    cudaError_t e = cudaStreamSynchronize(c.st);
    return e == cudaSuccess ? CUZK_OK : fail(c, e, what);
}

/* Matrix k of the PCE times the witness into o (n elements: the rows past
 * m zeroed), on the stream; by row blocks when its matrices stream. */
static int pce_eval_row(cuzk_gpu_worker *w, const ctx &c, const cuzk_pce *p, const dev_resident *pe, int k,
                        const wit_dev &wit, fr_t *o, size_t m, size_t n, uint64_t *bytes)
{
    if (pe->streamed[PCE_RP + k]) return pce_eval_blocks(w, c, p, pe, k, wit, o, m, n, bytes);
    int rc = pce_spmv(c, o, pe->p[PCE_RP + k], p->m[k].row_ptr64 != NULL, (const uint32_t *)pe->p[PCE_COL + k],
                      (const uint32_t *)pe->p[PCE_CODE + k], (const fr_t *)pe->p[PCE_COEFFS], wit, m,
                      (const uint32_t *)pe->p[PCE_LONG + k], pe->bytes[PCE_LONG + k] / 4);
    if (!rc && n > m) GPU_TRY(c, cudaMemsetAsync(o + m, 0, (n - m) * sizeof(fr_t), c.st));
    return rc;
}

/* One prove's shape and buffers, shared by its stages (prove_job_run) */
struct prove_run {
    const cuzk_groth16_job *j;
    const cuzk_pce *p;
    dev_resident *srs, *pe;
    size_t n, m, ni, na;
    bool on_device; /* A's and B's scalars gathered on the device from the witness */
    bool share_b;   /* B2's scalars are B1's */
    bool two;       /* H over two vectors: c evaluated after a·b */
    bool in_abc;    /* A's and B's scalars go where H leaves vectors dead */
    bool pce_blocks; /* the PCE's matrices stream by row blocks */
    bool wpk;       /* the aux stays packed on the device (the plan's last resort) */
    wit_dev wit;    /* the witness as the kernels read it */
    const cuzk_groth16_query *q[3]; /* A, B1, B2 (NULL: B2 shares B1's) */
    size_t n_msm[SRS_B2 + 1];
    fr_t *abc, *h;  /* H's vectors; h: where H's coefficients end */
    fr_t *dst[3];   /* where A's, B1's and B2's scalars go */
    const void *ix[3]; /* their index lists into the witness, on the device */
    uint64_t pce_bytes;
};

/* The job's resident set and PCE, the shape of the prove, the points'
 * first chunks (unless the PCE's blocks take the buffers first) and H's
 * vectors. */
static int run_prepare(cuzk_gpu_worker *w, const ctx &c, const cuzk_groth16_job *j, prove_run *R)
{
    int rc = cuzk_groth16_job_check(j);
    if (rc) return fail_msg(c, rc, "prove: the job's sizes do not agree");
    memset(R, 0, sizeof *R);
    R->j = j, R->p = j->pce;
    if ((rc = srs_get_job(w, c, j, &R->srs))) return rc;
    R->n = (size_t)1 << j->log_n, R->m = j->num_constraints, R->ni = j->num_inputs, R->na = j->num_aux;
    R->on_device = job_gathers_on_device(j), R->share_b = cuzk_groth16_job_b_shared(j);
    R->q[0] = &j->q_a, R->q[1] = &j->q_b_g1, R->q[2] = R->share_b ? NULL : &j->q_b_g2;
    const bool fit = R->q[0]->n <= R->n && R->q[1]->n <= R->n;
    /* H over two vectors where the plan says so and a PCE evaluates c after
     * a·b; A's and B's scalars then go into the two once H's MSM is done */
    R->two = R->p && R->srs->h_vectors == 2 && R->on_device && fit;
    /* Gathered on the device, A's and B's scalars go where H leaves two of
     * a, b, c dead, when they fit (no arrays of their own: 5.3 GB less per
     * worker at 32 GiB); B2's own list, when it has one, to tmp. */
    R->in_abc = R->on_device && fit;
    /* packed where the plan says so and the job's aux is packed within the
     * plan's bound (an eighth of it general); else plain */
    const cuzk_fr_packed *pk = j->aux_packed;
    R->wpk = R->two && R->srs->witness_packed && pk && pk->n == R->na && pk->n_gen <= pk->n / 8;
    if (R->p && cuzk_pce_ready(R->p, NULL) != CUZK_OK) /* its checksums, verified in the background, failed */
        return fail_msg(c, CUZK_ERR_FORMAT, "prove: the PCE failed verification");
    if (R->p && (rc = pce_get(w, c, j->pce_key, R->p, &R->pe, R->srs->pce_streamed ? R->srs->chunk_bytes : 0))) return rc;
    /* a streamed PCE's blocks take the chunk buffers first: the points'
     * chunks start once the last evaluation is issued */
    R->pce_blocks = R->pe && R->pe->streamed[PCE_RP];
    const size_t nm[SRS_B2 + 1] = {j->params->n_h, R->na, R->q[0]->n, R->q[1]->n, j->q_b_g2.n};
    memcpy(R->n_msm, nm, sizeof nm);
    /* the streamed points' first chunks go up on the copy stream meanwhile */
    if (!R->pce_blocks && (rc = feed_start(w, c, R->srs, R->n_msm, R->two))) return rc;
    if ((rc = buf_reserve(c, &w->abc, (R->two ? 2 : 3) * R->n * sizeof(fr_t), "H a, b, c"))) return rc;
    R->abc = R->h = bp<fr_t>(w->abc);
    return CUZK_OK;
}

/* The worker's own array for query k's scalars (A, B1, B2) */
static int scalars_reserve(cuzk_gpu_worker *w, const ctx &c, const prove_run *R, int k)
{
    static const char *const name[3] = {"A scalars", "B scalars", "B2 scalars"};
    dbuf *const buf[3] = {&w->sa, &w->sb, &w->tmp};
    return buf_reserve(c, buf[k], R->q[k]->n * sizeof(cuzk_fr), name[k]);
}

/* The A and B scalars gathered on the host and uploaded (no index lists on
 * the device), waited for: the host copy is wiped next */
static int run_upload_host_scalars(cuzk_gpu_worker *w, const ctx &c, const prove_run *R)
{
    dbuf *const sc[3] = {&w->sa, &w->sb, &w->tmp};
    const cuzk_groth16_job *j = R->j;
    const size_t fb = sizeof(cuzk_fr), nsc = j->q_a.n + j->q_b_g1.n + (R->share_b ? 0 : j->q_b_g2.n);
    cuzk_fr *hs = (cuzk_fr *)malloc((nsc + 1) * fb), *h = hs;
    if (!hs) return fail_msg(c, CUZK_ERR_NO_MEMORY, "prove: host scalar buffer");
    int rc = CUZK_OK;
    for (int k = 0; k < 3 && R->q[k] && !rc; h += R->q[k]->n, k++) {
        cuzk_groth16_gather(h, j, R->q[k]);
        rc = scalars_reserve(w, c, R, k);
        if (!rc) rc = h2d(w, c, sc[k]->p, h, R->q[k]->n * fb);
    }
    if (!rc) {
        cudaError_t e = cudaStreamSynchronize(c.st);
        if (e != cudaSuccess) rc = fail(c, e, "cudaStreamSynchronize(uploads)");
    }
    cuzk_mem_wipe(hs, nsc * fb);
    free(hs);
    return rc;
}

/* The witness's buffers when the scalars are gathered on the device: the
 * inputs and aux plain, or the inputs plain and the aux's packed arrays;
 * the other form's buffers let go (a card held small has no room for both) */
static int witness_reserve(cuzk_gpu_worker *w, const ctx &c, prove_run *R)
{
    const size_t fb = sizeof(cuzk_fr), ni = R->ni;
    int rc;
    if (!R->wpk) {
        buf_free(&w->wpk), buf_free(&w->lchunk);
        if ((rc = buf_reserve(c, &w->aux, (ni + R->na) * fb, "witness"))) return rc;
        memset(&R->wit, 0, sizeof R->wit);
        R->wit.plain = bp<fr_t>(w->aux);
        return CUZK_OK;
    }
    size_t ob, og;
    const size_t pb = packed_dev_layout(R->j->aux_packed, &ob, &og);
    if (w->aux.cap > (ni + 1) * fb) buf_free(&w->aux);
    if ((rc = buf_reserve(c, &w->aux, (ni + 1) * fb, "witness inputs"))) return rc;
    return buf_reserve(c, &w->wpk, pb, "witness packed");
}

/* Uploads into this worker's buffers (no lock needed): the witness (inputs
 * and aux as one vector when the scalars are gathered on the device, else
 * the aux alone), a, b, c unless a PCE gives them, the host-gathered
 * scalars; done when it returns. */
static int run_upload(cuzk_gpu_worker *w, const ctx &c, prove_run *R, cuzk_groth16_prove_timing *tm)
{
    const cuzk_groth16_job *j = R->j;
    const size_t fb = sizeof(cuzk_fr), n = R->n, m = R->m, ni = R->ni, na = R->na;
    int rc;
    double t = cuzk_now();
    if (R->on_device) {
        if ((rc = witness_reserve(w, c, R))) return rc;
        for (int k = R->in_abc ? 2 : 0; k < 3 && R->q[k]; k++)
            if ((rc = scalars_reserve(w, c, R, k))) return rc;
        if (R->in_abc) buf_free(&w->sa), buf_free(&w->sb); /* from a call that had no room in a, b, c */
        t = cuzk_now();
        if (ni) GPU_TRY(c, cudaMemcpyAsync(w->aux.p, j->input, ni * fb, cudaMemcpyHostToDevice, c.st));
        if (R->wpk) { /* to stay packed */
            if ((rc = packed_upload(w, c, &R->wit, j->aux_packed, w->wpk.p, bp<fr_t>(w->aux), ni))) return rc;
        } else if (j->aux_packed) { /* through a, b, c's room, which nothing has written yet (prove_job checked the fit) */
            if ((rc = unpack_on_device(w, c, bp<fr_t>(w->aux) + ni, j->aux_packed, R->abc))) return rc;
        } else if (na && (rc = h2d(w, c, bp<fr_t>(w->aux) + ni, j->aux, na * fb))) {
            return rc;
        }
    } else if ((rc = buf_reserve(c, &w->aux, na * fb, "aux witness")) || (rc = h2d(w, c, w->aux.p, j->aux, na * fb))) {
        return rc;
    } else {
        memset(&R->wit, 0, sizeof R->wit);
        R->wit.plain = bp<fr_t>(w->aux);
    }
    if (!R->p && j->abc) { /* already in the NTT layout (zero tail): one transfer, a DMA when pinned */
        if ((rc = h2d(w, c, R->abc, j->abc, 3 * n * fb))) return rc;
    } else if (!R->p) {
        const cuzk_fr *src[3] = {j->a, j->b, j->c};
        for (int i = 0; i < 3; i++) {
            if (m && (rc = h2d(w, c, R->abc + i * n, src[i], m * fb))) return rc;
            if (n > m) GPU_TRY(c, cudaMemsetAsync(R->abc + i * n + m, 0, (n - m) * fb, c.st));
        }
    }
    if (R->on_device) GPU_TRY(c, cudaStreamSynchronize(c.st));
    else if ((rc = run_upload_host_scalars(w, c, R))) return rc;
    tm->upload_s = cuzk_now() - t;
    return CUZK_OK;
}

/* In the kernel region: A·w and B·w from the PCE (and C·w unless H runs
 * over two vectors: then after a·b, in run_h) */
static int run_evaluate(cuzk_gpu_worker *w, const ctx &c, prove_run *R, cuzk_groth16_prove_timing *tm)
{
    const double t = cuzk_now();
    if (R->srs->compact_tables) w->dev->ntt.compact = true; /* the device's tables serve every set: the smallest plan's form */
    if (!R->p) return CUZK_OK;
    int rc = CUZK_OK;
    for (int k = 0; k < (R->two ? 2 : 3) && !rc; k++)
        rc = pce_eval_row(w, c, R->p, R->pe, k, R->wit, R->abc + k * R->n, R->m, R->n, &R->pce_bytes);
    if (R->pce_blocks && !R->two && !rc) rc = feed_start(w, c, R->srs, R->n_msm, R->two);
    if (!rc) rc = sync_named(c, "pce_spmv");
    tm->eval_s = cuzk_now() - t;
    return rc;
}

/* H's coefficients into R->h: over three vectors, or over two with c
 * evaluated into b's room after a·b (timed as evaluation) */
static int run_h(cuzk_gpu_worker *w, const ctx &c, prove_run *R, cuzk_groth16_prove_timing *tm)
{
    ntt_tables *nt = &w->dev->ntt;
    fr_t *abc = R->abc;
    const size_t n = R->n;
    const unsigned log_n = R->j->log_n;
    double t = cuzk_now();
    int rc;
    if (R->two) {
        rc = ntt_groth16_h_ab(c, nt, abc, abc + n, log_n);
        double te = cuzk_now();
        if (!rc) rc = pce_eval_row(w, c, R->p, R->pe, 2, R->wit, abc + n, R->m, n, &R->pce_bytes);
        if (R->pce_blocks && !rc) rc = feed_start(w, c, R->srs, R->n_msm, R->two);
        if (!rc) rc = sync_named(c, "ntt_groth16_h_ab, pce_spmv C");
        te = cuzk_now() - te;
        tm->eval_s += te, t += te;
        if (!rc) rc = ntt_groth16_h_c(c, nt, abc, abc + n, log_n);
        R->h = abc + n;
    } else if (R->j->form == CUZK_GROTH16_H_COSET) {
        rc = ntt_groth16_h(c, nt, abc, abc + n, abc + 2 * n, log_n, &R->h);
    } else {
        rc = ntt_groth16_h_odd(c, nt, abc, abc + n, abc + 2 * n, log_n);
    }
    if (!rc) rc = sync_named(c, "ntt_groth16_h");
    tm->ntt_h_s = cuzk_now() - t;
    return rc;
}

/* Where A's and B's scalars go: their own arrays, or the vectors H left
 * dead when they fit (over three vectors the two not holding h; over two,
 * A's into the one H left dead and B's into h's once H's MSM has read it);
 * and their index lists */
static void run_scalar_places(cuzk_gpu_worker *w, prove_run *R)
{
    fr_t *sa = bp<fr_t>(w->sa), *sb = bp<fr_t>(w->sb), *sb2 = R->share_b ? sb : bp<fr_t>(w->tmp);
    if (R->in_abc) {
        fr_t *dead[3], **dp = dead;
        for (int k = 0; k < (R->two ? 2 : 3); k++)
            if (R->abc + k * R->n != R->h) *dp++ = R->abc + k * R->n;
        if (R->two) *dp++ = R->h;
        sa = dead[0], sb = dead[1], sb2 = R->share_b ? sb : sb2;
    }
    R->dst[0] = sa, R->dst[1] = sb, R->dst[2] = sb2;
    const dev_resident *pe = R->pe, *srs = R->srs;
    R->ix[0] = R->p ? pe->p[PCE_IA] : srs->p[SRS_IA];
    R->ix[1] = R->p ? pe->p[PCE_IB] : srs->p[SRS_IB1];
    R->ix[2] = srs->p[SRS_IB2];
}

/* Queries first .. last - 1 gathered on the device from the witness
 * (counted with the evaluation) */
static int run_gather(cuzk_gpu_worker *w, const ctx &c, const prove_run *R, int first, int last,
                      cuzk_groth16_prove_timing *tm)
{
    const double t = cuzk_now();
    int rc = CUZK_OK;
    for (int k = first; k < last && R->q[k] && !rc; k++)
        rc = gather_on_device(c, R->dst[k], R->wit, R->ix[k], R->q[k]->n);
    if (!rc) rc = sync_named(c, "gather_wires");
    tm->eval_s += cuzk_now() - t;
    return rc;
}

/*
 * The five MSMs: H, L over the aux, A and B over the gathered scalars. Each
 * MSM's scalars are dead after it (the witness once gathered), so each
 * leaves its plain form over them (work) instead of in a scratch copy: 4.3
 * GB less on the device at 32 GiB. B's, when B2 shares them, are read by B2
 * as the plain form B1 left. In chunks (the set streams), L's and B's leave
 * it in the MSM's scratch instead: the witness stays for B's gather after
 * H's MSM, and B's scalars for both of B's MSMs, whose chunks interleave.
 */
static int run_msms(cuzk_gpu_worker *w, const ctx &c, const prove_run *R, cuzk_groth16_msm_sums *sums,
                    double secs[SRS_B2 + 1], cuzk_groth16_prove_timing *tm)
{
    const cuzk_groth16_job *j = R->j;
    const bool mont = !j->plain;
    fr_t *const l_sc = bp<fr_t>(w->aux) + (R->on_device ? R->ni : 0);
    fr_t *sa = R->dst[0], *sb = R->dst[1], *sb2 = R->dst[2], *h = R->h;
    int rc = CUZK_OK;
    if (w->feed.n_steps) { /* the set streams: every MSM in chunks */
        const size_t *nm = R->n_msm;
        const wit_dev *lpk = R->wpk ? &R->wit : NULL;
        const size_t lgen = R->wpk ? j->aux_packed->n_gen : 0;
        const msm_task task[SRS_B2 + 1] = {{h, nm[SRS_H], true, h, NULL, 0},
                                           {l_sc, nm[SRS_L], mont, NULL, lpk, lgen},
                                           {sa, nm[SRS_A], mont, sa, NULL, 0},
                                           {sb, nm[SRS_B1], mont, NULL, NULL, 0},
                                           {sb2, nm[SRS_B2], mont, NULL, NULL, 0}};
        cuzk_g1_jac g1[SRS_B1 + 1];
        for (int k = 0; k <= SRS_B1; k++) cuzk_g1_jac_set_infinity(&g1[k]);
        cuzk_g2_jac_set_infinity(&sums->b_g2);
        rc = feed_msm_reserve(w, c, R->wpk);
        if (!rc) rc = feed_run(w, c, R->srs, task, 0, g1, &sums->b_g2, secs);
        if (R->two && !rc) rc = run_gather(w, c, R, 1, 3, tm); /* h read: B's scalars into its vector */
        if (R->two && !rc) rc = feed_run(w, c, R->srs, task, 1, g1, &sums->b_g2, secs); /* the schedule's phase 1 */
        sums->h = g1[SRS_H], sums->l = g1[SRS_L], sums->a = g1[SRS_A], sums->b_g1 = g1[SRS_B1];
        return rc;
    }
    double t = cuzk_now();
    rc = msm_slot(w, c, R->srs, SRS_H, &sums->h, h, j->params->n_h, true, h);
    secs[SRS_H] = cuzk_now() - t;
    if (R->two && !rc) rc = run_gather(w, c, R, 1, 3, tm); /* before L's MSM leaves the aux in plain form */
    struct { int slot; void *out; fr_t *sc; size_t n; bool mont; } rest[4] = {
        {SRS_L, &sums->l, l_sc, R->na, mont}, {SRS_A, &sums->a, sa, j->q_a.n, mont},
        {SRS_B1, &sums->b_g1, sb, j->q_b_g1.n, mont}, {SRS_B2, &sums->b_g2, sb2, j->q_b_g2.n, mont && !R->share_b}};
    for (int k = 0; k < 4 && !rc; k++) {
        t = cuzk_now();
        rc = msm_slot(w, c, R->srs, rest[k].slot, rest[k].out, rest[k].sc, rest[k].n, rest[k].mont, rest[k].sc);
        secs[rest[k].slot] = cuzk_now() - t;
    }
    return rc;
}

/*
 * The GPU back end: one proof of a job (cuzk/groth16/groth16.h). Without the lock,
 * into this worker's buffers, the uploads (run_upload). Then the kernel
 * region, the device lock held: the PCE's sparse products into the NTT
 * buffers, H, the device gathers and the five MSMs. The proof is finished
 * on the host.
 */
static int prove_job_run(cuzk_gpu_worker *w, const ctx &c, cuzk_groth16_proof *out, const cuzk_groth16_job *j,
                         const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *tm)
{
    prove_run R;
    int rc = run_prepare(w, c, j, &R);
    const double t0 = cuzk_now();
    if (!rc) rc = run_upload(w, c, &R, tm);
    if (rc) return rc;
    tm->wait_s = region_lock(w);
    rc = run_evaluate(w, c, &R, tm);
    if (!rc) rc = run_h(w, c, &R, tm);
    run_scalar_places(w, &R);
    if (!rc && R.on_device) rc = run_gather(w, c, &R, 0, R.two ? 1 : 3, tm);
    cuzk_groth16_msm_sums sums;
    double secs[SRS_B2 + 1] = {0};
    if (!rc) rc = run_msms(w, c, &R, &sums, secs, tm);
    tm->msm_h_s = secs[SRS_H], tm->msm_l_s = secs[SRS_L], tm->msm_a_s = secs[SRS_A];
    tm->msm_b_g1_s = secs[SRS_B1], tm->msm_b_g2_s = secs[SRS_B2];
    tm->msm_s = tm->msm_h_s + tm->msm_l_s + tm->msm_a_s + tm->msm_b_g1_s + tm->msm_b_g2_s;
    tm->stream_bytes = w->feed.bytes + R.pce_bytes, tm->stream_copy_s = w->feed.copy_s;
    tm->stream_wait_s = w->feed.wait_s;
    rc = region_unlock(w, c, rc);
    if (rc) return rc;
    cuzk_groth16_finish(out, j->params, &sums, r, s);
    tm->total_s = cuzk_now() - t0;
    return CUZK_OK;
}

/* One proof. A worker that ran out of device memory lets go of what it
 * holds: a half-grown set (a, b, c but no witness) would otherwise stay
 * allocated and could starve the device's other workers, whose MSM scratch
 * grows inside their kernel regions, so that one worker too many for the
 * card fails every worker instead of only itself. The engine proves the
 * partition again on another worker. */
static int prove_job(cuzk_gpu_worker *w, const ctx &c, cuzk_groth16_proof *out, const cuzk_groth16_job *j,
                     const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *tm)
{
    /* a packed aux is expanded on the device where the queries are gathered
     * there and its arrays fit in a, b, c's room; else unpacked here first */
    cuzk_groth16_job uj;
    cuzk_fr *uaux = NULL;
    size_t ob, og;
    if (j->aux_packed && (!job_gathers_on_device(j) || /* in H's two vectors' room, the fewest it may have */
                          packed_dev_layout(j->aux_packed, &ob, &og) > 2 * sizeof(cuzk_fr) << j->log_n)) {
        int rc = cuzk_groth16_job_unpacked(&uj, &uaux, j);
        if (rc) return fail_msg(c, rc, "prove: no host memory to unpack the witness");
        j = &uj;
    }
    int rc = prove_job_run(w, c, out, j, r, s, tm);
    /* a failure may leave copies from the job's host arrays in flight (a
     * pinned source goes straight to the DMA): they end before the caller
     * frees or unpins them */
    if (rc && cudaStreamSynchronize(w->st) != cudaSuccess) cudaGetLastError();
    if (w->cst && cudaStreamSynchronize(w->cst) != cudaSuccess) cudaGetLastError(); /* the feed's copies too */
    cuzk_groth16_job_unpacked_free(uaux, j->num_aux);
    if (rc == CUZK_ERR_NO_MEMORY && w->dev_oom) { /* the device's memory, not a host allocation */
        worker_shed(w);
        double f, t;
        dev_mem_gib(&f, &t);
        const size_t l = strlen(w->err);
        if (c.err == w->err && l + 1 < sizeof w->err)
            snprintf(w->err + l, sizeof w->err - l, "; this worker's buffers released (%.1f of %.1f GiB free)", f, t);
    }
    return rc;
}

extern "C" int cuzk_gpu_prove_job(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_groth16_job *job,
                                  const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *timing)
{
    if (!w || !out || !job || !r || !s) return CUZK_ERR_INVALID_ARG;
    cuzk_groth16_prove_timing tdummy;
    cuzk_groth16_prove_timing *tm = timing ? timing : &tdummy;
    memset(tm, 0, sizeof *tm);
    ctx c;
    int rc = begin(w, &c);
    return rc ? rc : prove_job(w, c, out, job, r, s, tm);
}

extern "C" int cuzk_gpu_prove(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_gpu_set *set,
                              const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, size_t count,
                              cuzk_groth16_prove_timing *timing)
{
    if (!w || !set || !set->params || (count && (!out || !as || !r || !s))) return CUZK_ERR_INVALID_ARG;
    cuzk_groth16_prove_timing tdummy;
    cuzk_groth16_prove_timing *tm = timing ? timing : &tdummy;
    memset(tm, 0, sizeof *tm);
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    for (size_t i = 0; i < count; i++) {
        cuzk_groth16_job j;
        if ((rc = cuzk_groth16_job_init(&j, set->params, &as[i])))
            return fail_msg(c, rc, "prove: assignment does not fit the parameters");
        if (as[i].pce && (as[i].pce != set->pce || !set->pce_key))
            return fail_msg(c, CUZK_ERR_INVALID_ARG, "prove: the assignment's PCE is not the set's");
        j.key = set->key, j.pce_key = as[i].pce ? set->pce_key : 0;
        if ((rc = prove_job(w, c, &out[i], &j, &r[i], &s[i], tm))) return rc;
    }
    return CUZK_OK;
}
