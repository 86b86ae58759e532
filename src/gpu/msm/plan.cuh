/*
 * The device MSM's host side (src/gpu/msm.cu): the scalars' split (step 1),
 * the window width, and the window batches' plan: how many windows a batch
 * takes, its arrays in the device's scratch, the allocation retries of a
 * card short of memory, the sort's temporary storage. Group-independent
 * (an XYZZ point's bytes are a parameter); the launches that depend on the
 * group are run.cuh's.
 */
#ifndef CUZK_GPU_MSM_PLAN_CUH
#define CUZK_GPU_MSM_PLAN_CUH

#include "common.cuh"

namespace cuzk_gpu {

/* Step 1 over the n scalars: their plain form into *plain (work when the
 * caller lets it be overwritten, else the scratch's), the ones' indices
 * into s->ones and the general scalars' into s->gen; *m1 and *m their
 * counts. */
int msm_split(const ctx &c, msm_scratch *s, const fr_t *scalars, size_t n, bool mont, fr_t *work, fr_t **plain,
              size_t *m1, size_t *m);

/* Window bits for m general scalars (the cost model, or the hooks' msm_c). */
unsigned msm_window_bits(size_t m);

/* Accumulation chunk length for M sorted entries. */
unsigned msm_chunk_len(size_t M);

/* One window batch's shape and its arrays' bytes, for wb windows of B
 * buckets over m general scalars; xb: the bytes of one XYZZ point. */
struct msm_batch {
    size_t Mmax, np0, bucket_bytes, part_bytes, seg_bytes, win_bytes;
    uint32_t nseg, S; /* bucket segments of S buckets: enough threads to fill the chip */
    unsigned gseg;    /* blocks of MSM_SEG_THREADS segments a window: one sum each */
    unsigned L;       /* level 0's chunk length */
    unsigned wb;      /* windows a batch */
    unsigned key_bits; /* the sort's: enough for wb·B keys */
};

/* The batches of nwin windows of B buckets over m general scalars, their
 * arrays reserved in s, and the sort's temporary storage: *bt, or the
 * first error that no narrower batch avoids. */
int msm_batch_plan(const ctx &c, msm_scratch *s, size_t m, uint32_t B, size_t xb, unsigned nwin, msm_batch *bt);

} // namespace cuzk_gpu
#endif
