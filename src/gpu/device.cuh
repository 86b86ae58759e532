/*
 * The GPU layer's host objects, shared by its translation units: a card's
 * memory ledger (ledger.cu), the device and its workers (device.cu,
 * worker.cu), the arrays resident on a device (resident.cu) and a prove's
 * stream of point chunks (prove.cu). C++ only, never a public header; the
 * ownership and locking rule is docs/gpu.md's.
 */
#ifndef CUZK_GPU_DEVICE_CUH
#define CUZK_GPU_DEVICE_CUH

#include <pthread.h>

#include <atomic>

#include "cuzk/gpu/gpu.h"
#include "cuzk/pce/pce.h"
#include "gpu_internal.cuh"

/* Each card's budget and what this process holds of it. The budget is the
 * driver's free memory when the card was first opened (the CUDA context
 * made: other processes' use excluded), capped by the device's memory
 * limit; every allocation here (buf_reserve, srs_copy) takes its bytes
 * from it first, so a cap holds on a larger card as a smaller card's
 * driver would. Device objects on one ordinal share the card's entry. */
#define LEDGER_CARDS 64
struct card_ledger {
    uint64_t measured, limit, budget; /* under ledger_mu */
    unsigned opens;
    std::atomic<uint64_t> used;
};
card_ledger *ledger_of(int ordinal);
/* bytes taken from the card's budget; false (nothing taken) when over it */
bool ledger_take(int ordinal, size_t bytes);
void ledger_give(int ordinal, size_t bytes);

/* Read-only arrays resident on one device, uploaded once per set and keyed
 * by the host object's address: a parameter set (a job's key: the five
 * queries' points and, for queries by index, the witness index of each point
 * of A, B1, B2), or a pre-compiled circuit (the CSR arrays of A, B, C, the
 * general coefficients, and the unified witness index of each scalar of the
 * A and B queries, from the density bitmaps). */
enum {
    SRS_H, SRS_L, SRS_A, SRS_B1, SRS_B2, SRS_IA, SRS_IB1, SRS_IB2, /* parameters */
    PCE_RP, PCE_COL = PCE_RP + 3, PCE_CODE = PCE_COL + 3, PCE_COEFFS = PCE_CODE + 3, /* PCE, as in its image */
    PCE_IA, PCE_IB, PCE_LONG, /* PCE, derived here: query index lists, long rows of A, B, C */
    PCE_LONG_END = PCE_LONG + 3 - 1,
    SRS_N
};
/* A block of one PCE matrix's rows that fits a chunk buffer when the
 * matrices stream: rows [r0, r1), entries [e0, e1), and its long rows,
 * entries [l0, l1) of the matrix's long-row list. */
struct pce_block {
    uint64_t r0, r1, e0, e1;
    uint32_t l0, l1;
};
/* The device copies of one parameter set or PCE (key: its host object), listed per device.
 * (The engine's srs_entry is the host side's bookkeeping of a parameter set.) */
struct dev_resident {
    uint64_t key;           /* the owner's handle (cuzk/util/handle.h) */
    void *p[SRS_N];
    const void *src[SRS_N]; /* host arrays and sizes uploaded: a job under the */
    size_t bytes[SRS_N];    /* key with others is refused */
    bool host_released;     /* the owner released the host's point arrays (h .. b_g2, freed or */
    dev_resident *next;     /* discarded): NULL ones stand for those uploaded */
    bool streamed[SRS_N];   /* points left on the host (src), uploaded by chunks at each MSM: the
                               plan of a set that with one worker's buffers does not fit the budget */
    int ordinal;            /* the card whose budget holds the arrays */
    unsigned h_vectors;     /* the plan's H: 3 vectors, or 2 (c evaluated after a·b) */
    size_t chunk_bytes;     /* the plan's chunk buffers, when anything is streamed, */
    unsigned chunk_buffers; /* how many (0: no plan, two) */
    unsigned msm_c[SRS_B2 + 1]; /* the plan's widest windows of the MSMs in chunks (0: their own) */
    size_t msm_entries;     /* the plan's sorted entries a window batch (0: a chunk's points) */
    bool witness_packed;    /* the plan keeps the aux packed on the device */
    bool compact_tables;    /* the plan's H twiddles: two short tables */
    bool pce_streamed;      /* the plan streams the PCE's matrices (a set's entry: its PCE's) */
    void *pin_base;         /* the span of streamed PCE arrays this entry page-locked (unlocked with it) */
    pce_block *blk[3];      /* a streamed PCE's row blocks per matrix, for chunks of blk_chunk bytes */
    size_t n_blk[3], blk_chunk;
};
struct cuzk_gpu_device {
    int ordinal;
    char desc[320];
    int failed;
    char err[320];              /* device-level error (SRS upload, open) */
    pthread_mutex_t lock;       /* kernel regions: holder owns ntt and msm below */
    cuzk_gpu::ntt_tables ntt;
    cuzk_gpu::msm_scratch msm;
    pthread_mutex_t srs_mu;     /* the SRS list; entries are read-only once listed */
    dev_resident *srs;
    char plan[400];             /* the plan of the last set uploaded (under srs_mu) */
};

/* A worker's pinned staging for uploads from pageable memory (h2d): two
 * slots, each filled by several threads while the other's DMA runs; made
 * at the first large upload. */
struct stage_bufs {
    void *slot[2];
    cudaEvent_t done[2]; /* recorded after each slot's copy */
    bool used[2];
    int state;           /* 0: not made yet, 1: made, -1: off or unavailable */
    unsigned next, threads;
    size_t bytes;        /* per slot */
};

/* A prove's MSMs as chunks when its set streams (cuzk_gpu_chunk_schedule):
 * the streamed chunks go up on the worker's copy stream into FEED_BUFS
 * buffers, ahead of the MSMs that read them, the first ones before the
 * kernel region (they write only the worker's own buffers, so no lock is
 * needed). Each step's kernels are timed by a pair of events of a ring. */
#define FEED_STEPS_MAX 16384
#define FEED_BUFS 4 /* at most: the plan says how many (cuzk_gpu_plan.chunk_buffers) */
#define FEED_TIMERS 8
struct stream_feed {
    cuzk_gpu_chunk_step *step; /* the schedule (FEED_STEPS_MAX, made at the first streamed prove) */
    size_t n_steps;            /* 0: nothing streams, the MSMs run whole */
    const char *src[SRS_B2 + 1]; /* a streamed MSM's host points, else NULL */
    size_t next_copy;          /* the next step to look at for a copy */
    size_t buf_step[FEED_BUFS]; /* the step each chunk buffer holds */
    unsigned issued, taken;    /* streamed chunks copied and read */
    unsigned timers;           /* steps timed so far */
    unsigned char t_slot[FEED_TIMERS]; /* the MSM (slot + 1) a timer's events time, 0: none */
    double copy_s, wait_s;     /* the copy engine's time; the MSM phases' time with no chunk's kernels */
    double kern_s;             /* the chunks' kernel time */
    unsigned nbuf;             /* chunk buffers in turn (the plan's) */
    unsigned cap[SRS_B2 + 1];  /* the chunked MSMs' widest windows, */
    uint64_t off[SRS_B2 + 1];  /* their buckets' offsets in the room (cuzk_gpu_msm_bucket_layout), */
    size_t room, entries;      /* its bytes, a window batch's sorted entries (msm_chunked_reserve) */
    uint64_t bytes;
};

struct cuzk_gpu_worker {
    cuzk_gpu_device *dev;
    cudaStream_t st;
    char err[320];
    double region_s;            /* seconds in the last kernel region */
    int dev_oom;                /* the last call ran out of device memory */
    cuzk_gpu::dbuf abc, aux, sa, sb, tmp; /* written only by this worker */
    cuzk_gpu::dbuf wpk, lchunk;           /* a packed aux's arrays, a chunk of L's scalars unpacked */
    cuzk_gpu::dbuf chunk[FEED_BUFS];      /* streamed points (a PCE's row blocks: the first two) in turn */
    cudaStream_t cst;           /* their copies (made at the first streamed prove) */
    cudaEvent_t ev_start[FEED_BUFS], ev_done[FEED_BUFS];
    cudaEvent_t ev_free[FEED_BUFS]; /* a chunk buffer's last reader done */
    cudaEvent_t ev_t0[FEED_TIMERS], ev_t1[FEED_TIMERS]; /* around a step's kernels */
    stream_feed feed;           /* the chunks of the prove in progress */
    cuzk_gpu::fixed_base_bufs fb;         /* likewise */
    stage_bufs stage;           /* likewise */
};

extern const char *const srs_name[SRS_N];
void dev_resident_free(dev_resident *e);

/* worker.cu: a call's context on the worker's device (refuses failed
 * devices); host to device on the worker's stream through its staging;
 * the worker's own buffers freed; the kernel region's lock. */
int begin(cuzk_gpu_worker *w, cuzk_gpu::ctx *c);
int h2d(cuzk_gpu_worker *w, const cuzk_gpu::ctx &c, void *dst, const void *src, size_t bytes);
void worker_shed(cuzk_gpu_worker *w);
double region_lock(cuzk_gpu_worker *w);
int region_unlock(cuzk_gpu_worker *w, const cuzk_gpu::ctx &c, int rc);
namespace cuzk_gpu { /* ledger.cu */
/* The current device's free and total memory in GiB (false when the driver cannot say). */
bool dev_mem_gib(double *free_gib, double *total_gib);
/* "cudaMalloc(what, n bytes)" failed as the driver's out of memory does, over the budget */
int over_budget(const ctx &c, const char *what, size_t bytes);
/* With CUZK_GPU_TRACE_ALLOC, an allocation listed with the free memory after it */
void alloc_note(const ctx &c, const char *what, size_t bytes);
} // namespace cuzk_gpu

/* resident.cu: the device copy of a job's parameter set (planned when it is
 * made), and of a PCE. */
bool job_gathers_on_device(const cuzk_groth16_job *j);
int srs_get_job(cuzk_gpu_worker *w, const cuzk_gpu::ctx &c, const cuzk_groth16_job *j, dev_resident **out,
                bool *made = NULL, const cuzk_gpu_plan *plan = NULL);
/* stream_chunk: 0, the matrices resident; else they stay on the host and go
 * up in row blocks of at most that many bytes (the layout pce_block_layout
 * gives) */
int pce_get(cuzk_gpu_worker *w, const cuzk_gpu::ctx &c, uint64_t key, const cuzk_pce *p, dev_resident **out,
            size_t stream_chunk = 0);
/* Where a block's row pointers (at 0), columns and codes lie in a chunk
 * buffer; the bytes in all returned. */
static inline size_t pce_block_layout(const pce_block *b, size_t rp_bytes, size_t *col_at, size_t *code_at)
{
    const size_t al = 255, ne = (size_t)(b->e1 - b->e0);
    *col_at = ((size_t)(b->r1 - b->r0 + 1) * rp_bytes + al) & ~al;
    *code_at = *col_at + ((ne * 4 + al) & ~al);
    return *code_at + ne * 4;
}

#endif
