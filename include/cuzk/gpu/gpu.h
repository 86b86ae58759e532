/*
 * GPU prover: CUDA NTT, MSM (G1 and G2) and Groth16 proofs on NVIDIA GPUs.
 *
 * Objects:
 *   cuzk_gpu_device  one GPU, opened by explicit ordinal (cudaSetDevice is
 *                    called in whichever thread uses it; no process-wide
 *                    state such as CUDA_VISIBLE_DEVICES is touched). It owns
 *                    the parameter points uploaded once per parameter set,
 *                    the NTT twiddle tables and the large MSM scratch, and a
 *                    lock that serialises the kernel regions using them.
 *   cuzk_gpu_worker  one proving thread's handle on a device: its own CUDA
 *                    stream, its own device buffers for the witness (a, b, c,
 *                    scalars) and its own error message. A worker is used by
 *                    one thread at a time; N workers per device may run
 *                    concurrently (uploads and CPU work overlap, kernel
 *                    regions take turns). See docs/gpu.md for the rule.
 *
 * Every function returns a cuzk_err. CUDA failures are never fatal: they
 * come back as CUZK_ERR_NO_MEMORY (device allocation) or CUZK_ERR_DEVICE,
 * with cuzk_gpu_worker_error() naming the device, the CUDA call and CUDA's
 * reason. After an error other than out-of-memory the device is marked
 * failed and every later call on it returns CUZK_ERR_DEVICE.
 *
 * Built without CUDA (CUZK_HAVE_CUDA undefined) every function returns
 * CUZK_ERR_NO_DEVICE and cuzk_gpu_device_count() reports 0.
 *
 * Data layouts are the CPU's (Montgomery Fr/Fp limbs), so nothing is
 * converted on upload and results are bit-identical to the CPU code.
 */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fp12.h"
#include "cuzk/ff/fr.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/groth16/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_device cuzk_gpu_device;
typedef struct cuzk_gpu_worker cuzk_gpu_worker;

/* Number of usable CUDA devices in *count (0 without CUDA, without a driver
 * or without devices; then the return is CUZK_ERR_NO_DEVICE). */
int cuzk_gpu_device_count(int *count);

/* Opens device `ordinal`. On failure *out is NULL and, when msg is not NULL,
 * msg (msg_len bytes) says why. */
int cuzk_gpu_device_open(cuzk_gpu_device **out, int ordinal, char *msg, size_t msg_len);
/* Frees everything of the device; its workers must be destroyed first. */
void cuzk_gpu_device_close(cuzk_gpu_device *dev);
/* "NVIDIA H200 (device 0, 132 SMs, 139.8 GiB)"-style description. */
const char *cuzk_gpu_device_describe(const cuzk_gpu_device *dev);
/* The GPU's memory now, in bytes: total and free (cudaMemGetInfo; free
 * counts every process's allocations). CUZK_ERR_DEVICE on a failed device. */
int cuzk_gpu_device_memory(cuzk_gpu_device *dev, uint64_t *total, uint64_t *free_bytes);

/*
 * The device's memory budget: what cudaMemGetInfo reported free when the
 * card was first opened by this process (other processes' use excluded),
 * capped by limit (0: no cap). Every device allocation of this process on
 * the card counts against it, and one that would pass it fails as the
 * driver's out-of-memory does, so a cap is real on a larger card too; the
 * MSM sizes its window batches, and a preload plans the set's residency
 * (cuzk_gpu_plan), from what the budget leaves. One budget per physical
 * card: device objects opened on the same ordinal share it.
 */
int cuzk_gpu_device_set_memory_limit(cuzk_gpu_device *dev, uint64_t limit);
/* The budget and what this process holds of it, in bytes. */
int cuzk_gpu_device_budget(const cuzk_gpu_device *dev, uint64_t *budget, uint64_t *used);
/* The plan (cuzk_gpu_plan_describe) of the last parameter set uploaded to
 * the device, "" before any: a copy, valid until this thread's next call. */
const char *cuzk_gpu_device_plan(cuzk_gpu_device *dev);

/* ---- the device-memory plan of a parameter set ---------------------------- */

/*
 * What one parameter set needs on a card, in bytes, and the plan that fits
 * it into a budget: which point arrays stay resident and which are streamed
 * from (pinned) host memory at each MSM, a chunk at a time into two buffers
 * on a copy stream while the previous chunk's MSM runs; whether H runs over
 * three vectors or two (c evaluated into the second after a·b: a PCE on the
 * device); whether H's twiddles are full tables or two short ones; whether
 * the PCE's matrices stay resident or go up by row blocks at each proof
 * (only with every array streamed); and the chunk size. Arrays stay
 * resident as a prefix of h, l, a, b_g1, b_g2 (the H MSM is compute-bound at
 * 2^27 and the others are not, so those stream cheapest), so a larger
 * budget never streams more. A pure function: the CPU tests check it on the
 * 32 GiB sets' sizes.
 */
enum { CUZK_GPU_PLAN_H, CUZK_GPU_PLAN_L, CUZK_GPU_PLAN_A, CUZK_GPU_PLAN_B_G1, CUZK_GPU_PLAN_B_G2,
       CUZK_GPU_PLAN_ARRAYS };
typedef struct cuzk_gpu_plan_need {
    unsigned log_n;                          /* H's domain */
    uint64_t points[CUZK_GPU_PLAN_ARRAYS];   /* bytes of each point array (0: none) */
    uint64_t n_points[CUZK_GPU_PLAN_ARRAYS]; /* and its points */
    uint64_t pce;                            /* the PCE's device arrays (0: none) */
    uint64_t pce_stream;                     /* of which its matrices' row pointers and entries */
    uint64_t witness;                        /* one worker's witness (inputs and aux) */
    uint64_t witness_packed;                 /* the same packed (cuzk/ff/fr_packed.h), an eighth of the aux general at most */
    uint64_t host_scalars;                   /* one worker's host-gathered A and B scalars (0: on the device) */
    int two_vectors;                         /* H may run over two vectors (a PCE evaluates c late) */
} cuzk_gpu_plan_need;

typedef struct cuzk_gpu_plan {
    uint64_t budget;
    int fits;                                /* 0: not even every array streamed and two vectors fit */
    int streamed[CUZK_GPU_PLAN_ARRAYS];
    unsigned h_vectors;                      /* 3 or 2 */
    int compact_tables;                      /* H's twiddles as two short tables, a product per read */
    int pce_streamed;                        /* the PCE's matrices go up by row blocks at each proof */
    int witness_packed;                      /* the witness stays packed on the device: the PCE's products and the
                                              * gathers read its entries where they lie, L's MSM unpacks a chunk at a time */
    uint64_t chunk_bytes;                    /* each of a worker's chunk buffers (0: nothing streamed) */
    unsigned chunk_buffers;                  /* how many (2 or 4; 0: nothing streamed) */
    /* When anything streams every MSM runs in chunks summed into buckets of
     * its own (one set for all its chunks), its memory planned here: */
    unsigned msm_c[CUZK_GPU_PLAN_ARRAYS];    /* each MSM's widest window, bits (0: no such MSM) */
    uint64_t msm_entries;                    /* sorted entries a window batch of G1 holds (G2: half) */
    uint64_t msm_buckets;                    /* the buckets' bytes: the MSMs of one phase at once */
    uint64_t tables, resident, worker, msm_scratch, reserve; /* the parts of total */
    uint64_t total;                          /* planned device bytes, at most budget when fits */
    uint64_t host_pinned;                    /* host bytes the streamed arrays keep (pinned to overlap) */
    uint64_t pcie_bytes;                     /* host to device a partition: what streams and the witness */
} cuzk_gpu_plan;

/* MSM scratch a point of the largest MSM run at once when nothing streams
 * (one window a batch: 7.5 GB at 2^27, measured with the 32 GiB PoRep on
 * the H100). */
#define CUZK_GPU_PLAN_MSM_BYTES_PER_POINT 56u

/*
 * The MSM in chunks (when anything streams), per worker, counted from the
 * arrays src/gpu/msm/chunked.cuh keeps:
 *   split     a chunk's plain scalars, ones' and general indices: 40 bytes
 *             a G1 point of a chunk (chunk_bytes / 96 of them);
 *   sort      msm_entries keys and values sorted in place (16 bytes an
 *             entry; the split's class flags, 16 bytes a point, share it)
 *             and two arrays of level-0 partials (2 per 32 entries, a key
 *             and an XYZZ point each): msm_entries is a chunk's points, so
 *             H's chunks (every scalar general) sort one window a batch and
 *             the mostly-0/1 MSMs' all their windows at once;
 *   buckets   each MSM's windows at its width msm_c: 2^(c-1) + 1 XYZZ
 *             points a window, ceil(256 / c) windows; B's MSMs reuse H's
 *             room when they run after H's (two vectors: their scalars are
 *             gathered into h's vector);
 *   small     the segments' and windows' sums, the ones' partials, the
 *             sort's and scan's temporaries (CUZK_GPU_PLAN_MSM_SMALL).
 * (The driver's local memory, a kernel's stack for every thread the chip
 * holds reserved at its first launch, is the card's, not a set's: the
 * budget a plan is made for leaves it out; src/gpu/resident.cu.)
 * H's width is chosen with the chunk size and buffer count by an estimate
 * of H's additions plus a fixed cost a chunk and window; the others' widths
 * are held to CUZK_GPU_PLAN_MSM_C_REST (their general scalars are few).
 */
#define CUZK_GPU_PLAN_MSM_SMALL ((uint64_t)96 << 20)
#define CUZK_GPU_PLAN_MSM_C_REST 16u
#define CUZK_GPU_PLAN_MSM_C_MIN 13u
/* Bytes of an MSM's buckets at c bits, xyzz bytes a point. */
uint64_t cuzk_gpu_msm_bucket_bytes(unsigned c, unsigned xyzz);
/* The MSMs' buckets in one room: MSM i at width c[i] (0: none) in phase
 * phase[i] (0 or 1; the MSMs of phase 1 run after phase 0's have ended and
 * reuse its room), its offset in off[i] (off may be NULL); the room's bytes. */
uint64_t cuzk_gpu_msm_bucket_layout(const unsigned c[CUZK_GPU_PLAN_ARRAYS], const unsigned phase[CUZK_GPU_PLAN_ARRAYS],
                                    uint64_t off[CUZK_GPU_PLAN_ARRAYS]);
/* The device MSM's window width for m general scalars: the CPU's cost
 * model, widened up to 22 bits from 2^25 scalars on (12 windows instead of
 * 13 at 2^27). */
unsigned cuzk_gpu_msm_window_bits(uint64_t m);

struct cuzk_pce;
/* What params need for one worker proving with pce (may be NULL), the A
 * and B scalars gathered on the device (a PCE's or the queries' index
 * lists) or on the host. */
void cuzk_gpu_plan_need_of(cuzk_gpu_plan_need *need, const cuzk_groth16_params *params,
                           const struct cuzk_pce *pce, int gathers_on_device);
/* The plan of need within budget (out->fits says whether it fits; when not,
 * out is the smallest plan and out->total what it needs). */
void cuzk_gpu_plan_make(cuzk_gpu_plan *out, const cuzk_gpu_plan_need *need, uint64_t budget);
/* One line: "budget 24.0 GiB, planned 23.4: resident h l (25.5 GB), streamed
 * a b_g1 b_g2 (21.7 GB) in 1024 MiB chunks, H over 2 vectors, ...". */
void cuzk_gpu_plan_describe(const cuzk_gpu_plan *p, char *buf, size_t len);
/* "h", "l", "a", "b_g1", "b_g2". */
const char *cuzk_gpu_plan_array_name(unsigned i);

/*
 * The order of a prove's MSM chunks when the plan streams: all five MSMs
 * (n[i] points, per[i] a chunk; n[i] = 0: none) run as chunks of their
 * points, phase by phase (phase[i], 0 first; an MSM whose scalars exist
 * only once another phase is done waits for it), and inside a phase the
 * MSM least far along (done / n) goes next, ties to the lower index. So the
 * compute-bound chunks (H's) and the transfer-bound ones (L's, A's, B's)
 * alternate, and the copy engine, which brings the streamed chunks two
 * ahead, stays busy while the kernels run. Writes at most cap steps;
 * returns how many the schedule has.
 */
typedef struct cuzk_gpu_chunk_step {
    unsigned msm, phase;
    uint64_t off, len; /* points of MSM msm */
} cuzk_gpu_chunk_step;
size_t cuzk_gpu_chunk_schedule(cuzk_gpu_chunk_step *out, size_t cap, const uint64_t n[CUZK_GPU_PLAN_ARRAYS],
                               const uint64_t per[CUZK_GPU_PLAN_ARRAYS], const unsigned phase[CUZK_GPU_PLAN_ARRAYS]);

int cuzk_gpu_worker_create(cuzk_gpu_worker **out, cuzk_gpu_device *dev);
void cuzk_gpu_worker_destroy(cuzk_gpu_worker *w);
/* The last error of this worker ("" if none). */
const char *cuzk_gpu_worker_error(const cuzk_gpu_worker *w);
/* Nonzero when the worker's last call failed for want of device memory
 * (CUZK_ERR_NO_MEMORY from the device, not from a host allocation). */
int cuzk_gpu_worker_out_of_device_memory(const cuzk_gpu_worker *w);
/* Seconds the worker's last call spent in its kernel region (device work on
 * data already uploaded, downloads of small results included): what the
 * benchmark reports as the device-resident time. */
double cuzk_gpu_worker_region_s(const cuzk_gpu_worker *w);
/* Device bytes the worker's own buffers hold (a, b, c, witness, gathered
 * scalars), kept between calls; a call that runs out of device memory
 * (CUZK_ERR_NO_MEMORY) frees them before it returns, so that the device's
 * other workers keep their room. */
uint64_t cuzk_gpu_worker_held_bytes(const cuzk_gpu_worker *w);

/* ---- tracing, on stderr ------------------------------------------------- */

#define CUZK_GPU_TRACE_ALLOC 1u   /* every device allocation: its name, bytes, the card's free memory after it */
#define CUZK_GPU_TRACE_KERNELS 2u /* at the end of each kernel region, its time split by kernel (CUDA events) */
/* Process-wide; 0, the default, traces nothing. The allocations are the
 * ledger of what a card must hold (the daemon's [gpus] log_allocations);
 * the kernel split is for benchmarks (a block per region, a partition's
 * several). Without CUDA a no-op. */
void cuzk_gpu_set_trace(unsigned flags);

/* ---- building blocks (host arrays in, host arrays out) ---------------- */

#define CUZK_GPU_NTT_INVERSE 1u    /* evaluations -> coefficients (times 1/n) */
#define CUZK_GPU_NTT_COSET 2u      /* on the coset g·omega^i, g = 7 (Filecoin) */
#define CUZK_GPU_NTT_IN_BITREV 4u  /* input in bit-reversed order */
#define CUZK_GPU_NTT_OUT_BITREV 8u /* output in bit-reversed order */

/* x (2^log_n elements) transformed in place; with no order flags the same
 * result as cuzk_ntt_forward / _inverse / _coset_forward / _coset_inverse.
 * log_n <= CUZK_NTT_MAX_LOG. */
int cuzk_gpu_ntt(cuzk_gpu_worker *w, cuzk_fr *x, unsigned log_n, unsigned flags);

/* Same contract as cuzk_ntt_groth16_h (include/cuzk/poly/ntt.h) for the domain of
 * size 2^log_n with Filecoin's generator: a receives the n coefficients
 * (n - 1 of them are H), b and c are overwritten with unspecified values. */
int cuzk_gpu_groth16_h(cuzk_gpu_worker *w, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, unsigned log_n);

/* out = sum scalars[i]·bases[i] (n < 2^31), the same point as cuzk_g1_msm /
 * cuzk_g2_msm. Bases are uploaded on every call (provers keep theirs
 * resident through cuzk_gpu_prove). */
int cuzk_gpu_g1_msm(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_g1_affine *bases,
                    const cuzk_fr *scalars, size_t n);
int cuzk_gpu_g2_msm(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_g2_affine *bases,
                    const cuzk_fr *scalars, size_t n);

/* Bases kept on one device between MSMs, as a prover keeps its parameters:
 * uploaded once through the worker's stream, then any worker of that device
 * may use them until cuzk_gpu_bases_free. cuzk_gpu_g1_msm_bases /
 * _g2_msm_bases: out = sum scalars[i]·bases[i] for i < n (n at most the
 * uploaded count), the scalars read from the host on each call (from memory
 * registered with cuzk_gpu_host_register that copy is a DMA). Bases of the
 * other group or of another device are refused. */
typedef struct cuzk_gpu_bases cuzk_gpu_bases;
int cuzk_gpu_g1_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g1_affine *bases, size_t n);
int cuzk_gpu_g2_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g2_affine *bases, size_t n);
void cuzk_gpu_bases_free(cuzk_gpu_bases *b);
int cuzk_gpu_g1_msm_bases(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_gpu_bases *b,
                          const cuzk_fr *scalars, size_t n);
int cuzk_gpu_g2_msm_bases(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_gpu_bases *b,
                          const cuzk_fr *scalars, size_t n);

/* out[i] = k[i]·base for i < n, affine ((0, 0) for k[i] = 0), bit-identical
 * to the CPU: the fixed-base multiplications of a Groth16 test setup (see
 * cuzk_gpu_setup_fixed_base). A comb of 32 windows of 8 bits built from base
 * on each call (8160 points on the host), then at most 32 mixed additions per
 * scalar on the device; scalars and results stream through in batches. */
int cuzk_gpu_g1_fixed_base(cuzk_gpu_worker *w, cuzk_g1_affine *out, const cuzk_g1_affine *base,
                           const cuzk_fr *k, size_t n);
int cuzk_gpu_g2_fixed_base(cuzk_gpu_worker *w, cuzk_g2_affine *out, const cuzk_g2_affine *base,
                           const cuzk_fr *k, size_t n);
/* Fills *fb so that cuzk_groth16_setup_with runs its fixed-base
 * multiplications on worker w (which must outlive the setup). */
void cuzk_gpu_setup_fixed_base(cuzk_groth16_fixed_base *fb, cuzk_gpu_worker *w);

/* ---- pairings ------------------------------------------------------------ */

/* *out <- the Miller loop of the n pairs (P[i], Q[i]) multiplied together,
 * pairs with a point at infinity skipped: bit for bit
 * cuzk_pairing_miller_loop's value (cuzk_pairing_final_exp finishes it).
 * One device thread a pair, the product by halving passes, in a kernel
 * region (it takes turns with proofs on the device). */
int cuzk_gpu_miller_loop(cuzk_gpu_worker *w, cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q,
                         size_t n);
/* out[k] <- the product of the loops of pairs off[k] .. off[k + 1] - 1, for each
 * k < nprod <= CUZK_PAIRING_PRODS_MAX (off[0] = 0, off non-decreasing; an
 * empty product is one): every product's pairs in one launch, then halving
 * passes that fold all the products at once. */
int cuzk_gpu_miller_loops(cuzk_gpu_worker *w, cuzk_fp12 *out, size_t nprod, const cuzk_g1_affine *P,
                          const cuzk_g2_affine *Q, const size_t *off);

/* ---- Groth16 ------------------------------------------------------------ */

/*
 * What a device keeps, and under which names. A device holds copies of
 * parameter sets (their points, and the queries' index lists) and of PCEs
 * (their matrices and the A/B index lists built from their densities), each
 * under the handle its owner gave the object (cuzk/util/handle.h), never
 * under an address: the engine's set and PCE ids, a zkey's key. A handle
 * names one object for the device's life; what it names must stay alive
 * and unchanged until its copy is released or the device closed. The
 * owner decides when a copy goes (cuzk_gpu_device_release); the device
 * decides only how a set is laid out on the card (its plan, made when the
 * copy is: cuzk_gpu_plan).
 */
typedef struct cuzk_gpu_set {
    uint64_t key;                      /* the points' handle (never 0) */
    const cuzk_groth16_params *params;
    uint64_t pce_key;                  /* the PCE's handle, 0 with no PCE */
    const struct cuzk_pce *pce;        /* NULL: none */
} cuzk_gpu_set;

/*
 * The GPU back end of the prove pipeline (cuzk_groth16_job, groth16.h): the
 * same checks and the same proof as cuzk_groth16_prove_job (the same r, s
 * give the same bytes). The job's points, and its queries' index lists when
 * it has them, are uploaded on the first proof under the job's key and
 * shared by all workers of the device; a later job under that key with
 * other arrays or sizes is refused (CUZK_ERR_INVALID_ARG). Host data is
 * never modified.
 * Without the device lock go up: the witness (only the aux when the A and B
 * scalars are gathered on the host), and a, b, c when given (an abc block in
 * one transfer: one DMA when page-locked, e.g. a PCE evaluation buffer over
 * pinned memory, cuzk_pce_eval_buf_wrap). A job with a pce sends only its
 * witness: the PCE's matrices and A/B index lists (from its densities) are
 * uploaded on its first proof on the device (under the job's pce_key) and
 * a, b, c are computed on the device. Queries by index (and a PCE's) are
 * gathered on the device, by density on the host.
 * timing (may be NULL): upload_s the uploads, wait_s the wait for the device
 * lock, eval_s the PCE products and gathers, ntt_h_s H, msm_*_s the device
 * MSMs one by one and msm_s their sum, total_s the whole proof.
 */
int cuzk_gpu_prove_job(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_groth16_job *job,
                       const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *timing);

/* count proofs, proof i from assignment as[i] with randomisers r[i], s[i],
 * all against one parameter set (the jobs of cuzk_groth16_job_init under
 * set's keys; an assignment's pce is NULL or set->pce), with the same
 * result as cuzk_groth16_prove_assignment. timing (may be NULL) gets the
 * phases of the last proof. Stops at the first error; earlier proofs are
 * then valid. */
int cuzk_gpu_prove(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_gpu_set *set,
                   const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s,
                   size_t count, cuzk_groth16_prove_timing *timing);

/* Uploads set's points and (when it has one) its PCE's matrices and index
 * lists to the device now, as the first proof with them would (a daemon's
 * preload: the first proof then starts at once). msg (may be NULL) says
 * why on failure, and on success the device's free memory and the set's
 * plan. Safe while workers prove. */
int cuzk_gpu_device_preload(cuzk_gpu_device *dev, const cuzk_gpu_set *set, char *msg, size_t msg_len);

/* The device's copy of the set under key stands in for the host's point
 * arrays (h, l, a, b_g1, b_g2) from now on: their owner may discard their
 * contents (the engine gives their pages back to the kernel) or free them
 * and set them to NULL, keeping the sizes; proves go on from the device's
 * copy, which is never made again from those arrays. CUZK_ERR_NOT_READY
 * (nothing marked) when the device holds no whole copy under key (none, or
 * one that streams its points from the host), or is uploading a set right
 * now (it never waits for one: ask again later). After it, a job under key
 * whose arrays are neither NULL nor those uploaded is refused;
 * cuzk_gpu_device_release ends it. */
int cuzk_gpu_device_params_host_released(cuzk_gpu_device *dev, uint64_t key);

/* Drops whatever the device keeps under key (a set's points, a PCE's
 * matrices; no-op if nothing). No worker may be proving with it. */
void cuzk_gpu_device_release(cuzk_gpu_device *dev, uint64_t key);

/* ---- page-locked host memory -------------------------------------------- */

/*
 * Host arrays that are uploaded again and again (the engine's HOT parameter
 * sets) are page-locked, so that the cudaMemcpyAsync of an upload is a
 * direct DMA from them instead of a copy through CUDA's staging buffer.
 * cuzk_gpu_host_pin registers [ptr, ptr + len) with CUDA (portable: for
 * every device) when a CUDA device is usable; otherwise (no device, a build
 * without CUDA, registration refused) it falls back to mlock, which keeps
 * the pages in RAM but is not known to CUDA; when that fails too the memory
 * stays pageable. msg (may be NULL) says what happened unless it was CUDA.
 * The engine accounts the bytes against its pinned limit and reports how.
 */
typedef enum cuzk_gpu_pin_how {
    CUZK_GPU_PIN_NONE = 0,  /* pageable */
    CUZK_GPU_PIN_CUDA = 1,  /* cudaHostRegister: direct DMA */
    CUZK_GPU_PIN_MLOCK = 2  /* mlock only (best effort without CUDA) */
} cuzk_gpu_pin_how;

cuzk_gpu_pin_how cuzk_gpu_host_pin(void *ptr, size_t len, char *msg, size_t msg_len);
/* Undoes cuzk_gpu_host_pin (how as it returned; NONE: no-op). */
void cuzk_gpu_host_unpin(void *ptr, size_t len, cuzk_gpu_pin_how how);
/* 1 when CUDA knows ptr as page-locked host memory, else 0 (always 0
 * without CUDA). For tests on the device machine. */
int cuzk_gpu_host_is_registered(const void *ptr);
/* "cuda", "mlock" or "none". */
const char *cuzk_gpu_pin_name(cuzk_gpu_pin_how how);

/* The CUDA half of cuzk_gpu_host_pin (src/gpu/host_pin.cu; the stub refuses
 * with "built without CUDA" in msg). Use cuzk_gpu_host_pin. */
int cuzk_gpu_host_register(void *ptr, size_t len, char *msg, size_t msg_len);
void cuzk_gpu_host_unregister(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
