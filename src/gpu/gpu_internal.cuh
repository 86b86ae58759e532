/*
 * Host-side plumbing shared by the CUDA translation units: the per-call
 * context (device ordinal, stream, where the error message goes), the error
 * macro that turns a failed CUDA call into a cuzk error naming device and
 * call, and growable device buffers. C++ only, never a public header.
 */
#ifndef CUZK_GPU_INTERNAL_CUH
#define CUZK_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fr.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "ff.cuh"
#include "gpu_test_hooks.h"

/* hooks.c: the tests' hooks and the trace flags in force */
extern "C" const cuzk_gpu_test_hooks *cuzk_gpu_hooks_now(void);
extern "C" unsigned cuzk_gpu_trace_flags(void);

namespace cuzk_gpu {

struct ctx {
    int ordinal;
    cudaStream_t st;
    char *err;      /* message buffer of the caller (worker or device) */
    size_t errlen;
    int *failed;    /* set when the CUDA context can no longer be trusted */
    int *oom;       /* set when the device's memory ran out (not the host's) */
};

/* Records "cuda device N: call: reason" and maps the CUDA error to a cuzk
 * code (worker.cu). */
int fail(const ctx &c, cudaError_t e, const char *call);
int fail_msg(const ctx &c, int code, const char *msg);

#define GPU_TRY(c, call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return ::cuzk_gpu::fail((c), e_, #call);                            \
    } while (0)
/* Kernel trace (trace.cu; CUZK_GPU_TRACE_KERNELS, for benchmarks): each mark records an
 * event on the stream, and at the end of a kernel region the time between
 * consecutive marks is printed, summed by name, to stderr, so a region's
 * time splits into its kernels without a profiler. Work with no mark of its
 * own (a CUB sort, a copy) counts toward the next mark. Off: one branch. */
void trace_mark(const ctx &c, const char *name);
void trace_region_start(cudaStream_t st, int ordinal);
void trace_region_end(const char *what);
/* After a kernel launch: launch errors (bad configuration, sticky faults). */
#define GPU_LAUNCHED(c, name)                                                                      \
    do {                                                                                           \
        cudaError_t l_ = cudaPeekAtLastError(); /* named: a launch fails out of memory when the */ \
        if (l_ != cudaSuccess) return ::cuzk_gpu::fail((c), l_, (name)); /* driver can't reserve */ \
        ::cuzk_gpu::trace_mark((c), (name)); /* its stack for every thread the chip holds */       \
    } while (0)

/* A device buffer that only grows (freed by buf_free). Its bytes count
 * against its card's budget (cuzk_gpu_device_set_memory_limit) from
 * buf_reserve to buf_free (ledger.cu). */
struct dbuf {
    void *p;
    size_t cap;
    int dev; /* the ordinal whose budget holds cap */
};
int buf_reserve(const ctx &c, dbuf *b, size_t bytes, const char *what);
void buf_free(dbuf *b);
/* The bytes an allocation on the current card may still take: the
 * driver's free memory, or what the card's budget leaves if less (or the
 * hooks' msm_free bytes, tests: a card short of memory without one). */
bool device_free_bytes(const ctx &c, size_t *freeb);
template <class T> static inline T *bp(const dbuf &b) { return (T *)b.p; }
/* A device object of the card opened (its first measures the driver's free
 * memory as the card's budget, capped by the limit) and closed (its last
 * forgets the limit). */
void ledger_open(int ordinal);
void ledger_close(int ordinal);

/* ---- NTT (ntt.cu) ------------------------------------------------------ */
/* Per generator (domains differ: omega_n of generator 7 is not generator
 * 5's): twiddles omega^j and omega^-j, j < 2^(log_max-1), of the largest
 * domain asked for so far, and per-size scaling tables; owned by the device
 * lock. */
enum { NTT_GEN_FILECOIN, NTT_GEN_SNARKJS, NTT_GENS };
/* g^i, n^-1·g^-i, n^-1, n^-1·g^i, n^-1·w^i (w the 2n-th root of unity) */
enum {
    NTT_SCALE_COSET,
    NTT_SCALE_INV_COSET,
    NTT_SCALE_INV,
    NTT_SCALE_INV_THEN_COSET,
    NTT_SCALE_INV_THEN_ODD,
    NTT_SCALE_KINDS
};
struct ntt_gen_tables {
    unsigned log_max;
    unsigned tw_S; /* 0: tw[j] = omega^j; else compact: lo (2^tw_S) then hi, omega^j = lo·hi */
    dbuf tw, tw_inv;
    dbuf scale[NTT_SCALE_KINDS][CUZK_FR_TWO_ADICITY + 1]; /* (kind, log_n) */
};
struct ntt_tables {
    ntt_gen_tables g[NTT_GENS];
    bool compact; /* twiddles as two short tables (the plan's, for a card the full ones do not fit) */
};
void ntt_tables_free(ntt_tables *t);

/* flags as cuzk_gpu_ntt (include/cuzk/gpu/gpu.h); x and tmp device arrays of
 * 2^log_n elements (tmp only used when a reorder pass is needed). */
int ntt_run(const ctx &c, ntt_tables *t, fr_t *x, fr_t *tmp, unsigned log_n, unsigned flags);
/* Groth16 H on device arrays a, b, c (2^log_n each, evaluations on the
 * domain); the coefficients land in *out (b today; callers take *out, not b), natural order. */
int ntt_groth16_h(const ctx &c, ntt_tables *t, fr_t *a, fr_t *b, fr_t *cc, unsigned log_n,
                  fr_t **out);
/* H over two vectors, for a, b, c that come one after another (a PCE
 * evaluates c into b's room once a·b is made): ntt_groth16_h_ab leaves
 * a·b on the coset in a; ntt_groth16_h_c takes c (natural, on the domain)
 * and leaves H's coefficients in c, natural order. The same limbs as
 * ntt_groth16_h. */
int ntt_groth16_h_ab(const ctx &c, ntt_tables *t, fr_t *a, fr_t *b, unsigned log_n);
int ntt_groth16_h_c(const ctx &c, ntt_tables *t, fr_t *ab, fr_t *cc, unsigned log_n);
/* The tables ntt_groth16_h reads at 2^log_n (twiddles both ways, its two
 * scalings), built now rather than inside the first proof's kernel region. */
int ntt_groth16_h_tables(const ctx &c, ntt_tables *t, unsigned log_n);
/* snarkjs's H (cuzk_ntt_groth16_h_odd) on the domain of generator 5: a
 * receives A·B - C at the odd points w·omega^i of the doubled domain, in
 * natural order; b and c are overwritten. */
int ntt_groth16_h_odd(const ctx &c, ntt_tables *t, fr_t *a, fr_t *b, fr_t *cc, unsigned log_n);

/* ---- MSM (msm/, msm.cu, msm_g1.cu, msm_g2.cu) -------------------------- */
/* An MSM taken in chunks of its points (a set that streams): one window
 * width for all its general scalars, one set of buckets every chunk adds
 * to, reduced once after the last chunk, and the ones' running sum, all on
 * the device (msm/chunked.cuh), in the scratch's room that
 * msm_chunked_reserve made to the plan's sizes (cuzk/gpu/gpu.h). */
struct msm_acc {
    size_t off;     /* its buckets' offset in the scratch's acc_room */
    unsigned cap;   /* its widest window, bits (the plan's) */
    unsigned cw, nwin;
    uint32_t B;
    bool gen, ones; /* a chunk had general scalars, ones */
};
#define MSM_ACC_MAX 5 /* chunked MSMs in progress at once: a prove's five */
struct msm_scratch {
    /* kv: the class flags and prefix sums (16 bytes a scalar), then the
     * window batch's keys, values and their sorted copies (16 a sorted entry) */
    dbuf plain, kv, ones, gen, cub, buckets, part_k[2], part_p[2], segs, wins, onesp, count;
    dbuf acc_room, acc_sums; /* the chunked MSMs' buckets, their ones' sums (one XYZZ point each) */
    size_t entries;          /* sorted entries a chunked window batch of G1 holds (G2: half) */
    msm_acc acc[MSM_ACC_MAX];
};
void msm_scratch_free(msm_scratch *s);
/* out = sum scalars[i]·bases[i]; bases and scalars on the device, scalars in
 * Montgomery form when mont, plain integers (a plain witness) if not. work:
 * where the scalars' plain form goes, n words; scalars itself when the
 * caller lets them be overwritten (the prover's dead arrays: no scratch
 * copy of n words), NULL for the device's MSM scratch. */
int msm_g1(const ctx &c, msm_scratch *s, cuzk_g1_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work);
int msm_g2(const ctx &c, msm_scratch *s, cuzk_g2_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work);
/* The chunked MSMs' arrays at the plan's sizes, made once (they only grow):
 * window batches of entries sorted G1 entries, buckets' room of room bytes,
 * each MSM's buckets in it at a->off, at most a->cap bits wide. */
int msm_chunked_reserve(const ctx &c, msm_scratch *s, size_t entries, size_t room);
/* The same sum as msm_g1 / msm_g2 over chunks of the points: begin over all
 * n scalars (their general ones counted, the window width chosen, a's
 * buckets cleared), add each chunk (its points, its scalars: work as
 * above) with nothing waited for after its launches, end (one reduction,
 * the sum on the host). The chunks may come in any order and interleave
 * with other MSMs' of other msm_acc. */
int msm_g1_chunked_begin(const ctx &c, msm_scratch *s, msm_acc *a, const fr_t *scalars, size_t n, bool mont);
/* begin for scalars whose general ones the caller counted (m): a packed
 * vector's general values */
int msm_g1_chunked_begin_counted(const ctx &c, msm_scratch *s, msm_acc *a, size_t m);
int msm_g1_chunked_add(const ctx &c, msm_scratch *s, msm_acc *a, const void *bases, const fr_t *scalars, size_t n,
                       bool mont, fr_t *work);
int msm_g1_chunked_end(const ctx &c, msm_scratch *s, msm_acc *a, cuzk_g1_jac *out);
int msm_g2_chunked_begin(const ctx &c, msm_scratch *s, msm_acc *a, const fr_t *scalars, size_t n, bool mont);
int msm_g2_chunked_add(const ctx &c, msm_scratch *s, msm_acc *a, const void *bases, const fr_t *scalars, size_t n,
                       bool mont, fr_t *work);
int msm_g2_chunked_end(const ctx &c, msm_scratch *s, msm_acc *a, cuzk_g2_jac *out);

/* ---- pre-compiled circuits (pce_spmv.cu) -------------------------------- */
struct wit_dev; /* witness.cuh */
/* Rows with more entries than this take a warp each (their indices listed). */
#define PCE_SPMV_LONG 32u
/* out[i] = row i of one PCE matrix (CSR: row_ptr u64 when wide, else u32)
 * times the unified witness w (inputs, then aux; plain or packed:
 * witness.cuh), for i < rows; long_rows
 * lists the n_long rows longer than PCE_SPMV_LONG; all device arrays.
 * Bit-identical to cuzk_pce_eval. A block of rows streamed from the host
 * (row r0 on): row_ptr its rows' pointers as in the matrix (entry indices
 * from e0), col and code its entries from e0, long_rows the matrix's own
 * numbers (from r0); whole, e0 = r0 = 0. */
int pce_spmv(const ctx &c, fr_t *out, const void *row_ptr, bool wide, const uint32_t *col, const uint32_t *code,
             const fr_t *coeffs, const wit_dev &w, size_t rows, const uint32_t *long_rows, size_t n_long,
             uint64_t e0 = 0, uint32_t r0 = 0);

/* ---- fixed-base multiplications (fixed_base.cu) ------------------------- */
#define CUZK_GPU_FB_NWIN 32 /* comb windows of 8 bits */
#define CUZK_GPU_FB_DIG 255 /* table entries per window: d·2^(8w)·G, d = 1..255 */
struct fixed_base_bufs {
    dbuf tab, k, x, a;
};
void fixed_base_bufs_free(fixed_base_bufs *b);
/* out[i] = k[i]·G (affine, host arrays; k in Montgomery form), given the
 * comb table tab[w·255 + d - 1] = d·2^(8w)·G (host, affine). */
int fixed_base_g1(const ctx &c, fixed_base_bufs *b, cuzk_g1_affine *out, const cuzk_g1_affine *tab,
                  const cuzk_fr *k, size_t n);
int fixed_base_g2(const ctx &c, fixed_base_bufs *b, cuzk_g2_affine *out, const cuzk_g2_affine *tab,
                  const cuzk_fr *k, size_t n);

} // namespace cuzk_gpu
#endif
