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
 * buckets over m general scalars; xb: the bytes of one XYZZ point. A
 * shared batch (a chunked MSM's) has no buckets, segments or window sums
 * of its own. */
struct msm_batch {
    size_t Mmax, np0, bucket_bytes, part_bytes, seg_bytes, win_bytes;
    uint32_t nseg, S; /* bucket segments of S buckets: enough threads to fill the chip */
    unsigned gseg;    /* blocks of MSM_SEG_THREADS segments a window: one sum each */
    unsigned L;       /* level 0's chunk length */
    unsigned wb;      /* windows a batch */
    unsigned key_bits; /* the sort's: enough for wb·B keys */
};

/* The batches of nwin windows of B buckets over m general scalars, their
 * arrays reserved in s (fewer windows a batch when the device is short of
 * memory), and the sort's temporary storage: *bt, or the first error that
 * no narrower batch avoids. */
int msm_batch_plan(const ctx &c, msm_scratch *s, size_t m, uint32_t B, size_t xb, unsigned nwin, msm_batch *bt);

/* The same for a chunk of a chunked MSM, in the arrays msm_chunked_reserve
 * made (no buckets, segments or window sums of its own): as many windows a
 * batch as s->entries hold; level 0's runs lengthened until its partials
 * fit. */
int msm_batch_in_room(const ctx &c, msm_scratch *s, size_t m, uint32_t B, size_t xb, unsigned nwin, msm_batch *bt);

/* The general scalars among n (one count, one wait). */
int msm_count_general(const ctx &c, msm_scratch *s, const fr_t *scalars, size_t n, bool mont, size_t *m);

/* A chunked MSM's window width for its m general scalars (at most a->cap),
 * its buckets cleared, its ones' sum set to infinity. */
int msm_acc_plan(const ctx &c, const msm_scratch *s, msm_acc *a, size_t m, size_t xb);

/* Step 5's shape over every window of a chunked MSM (wb = nwin), the
 * segments' and window sums' arrays reserved. */
int msm_acc_reduce_plan(const ctx &c, msm_scratch *s, const msm_acc *a, size_t xb, msm_batch *bt);

/* Where a chunked MSM's buckets and its ones' running sum lie. */
static inline void *msm_acc_buckets(const msm_scratch *s, const msm_acc *a) { return (char *)s->acc_room.p + a->off; }
static inline void *msm_acc_sum(const msm_scratch *s, const msm_acc *a, size_t xb)
{
    return (char *)s->acc_sums.p + (size_t)(a - s->acc) * xb;
}

} // namespace cuzk_gpu
#endif
