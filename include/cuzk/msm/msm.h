/*
 * Multi-scalar multiplication on the CPU: out = sum_i k_i · bases[i] for G1
 * and G2, the bulk of a Groth16 proof (A, B, C, H and L queries).
 *
 * Method (Pippenger / bucket method):
 *   - Scalars 0 are skipped; bases whose scalar is exactly 1 are summed
 *     apart (Filecoin witnesses are mostly bits): in chunks of 2^14, by
 *     rounds of pairwise affine additions sharing one inversion per round
 *     (a chain of mixed XYZZ additions under 64 points, or in the reference
 *     method); only the remaining m "general" scalars go through the
 *     buckets.
 *   - Each general scalar is cut into nwin windows of c bits, recoded as
 *     signed Booth digits d in [-2^(c-1), 2^(c-1)] (a digit is its c bits
 *     plus the top bit of the window below, minus 2^c times its own top
 *     bit; no carries between windows), so a window needs only 2^(c-1)
 *     buckets: d·P goes into bucket |d| as ±P.
 *     nwin = ceil((bits + 1) / c), bits = 255 for cuzk_fr scalars (< r) and
 *     256 for plain scalars (128 for both after the GLV split below).
 *   - GLV: every general scalar k (reduced mod r) is split as
 *     k = k1 + k2·x^2 with k1, k2 < 2^128 (x the BLS parameter; two
 *     divisions by |x|), and x^2·P costs one Fp multiplication on G1
 *     ((beta·x, -y): phi acts as -x^2) and two psi maps on G2 (psi acts as
 *     x): 2m entries of 128-bit scalars, so half the windows and half the
 *     bucket sums. Needs bases in the prime-order subgroup (G1 / G2), as
 *     every caller guarantees (parameters and proofs are subgroup-checked).
 *   - Buckets are affine, filled by batches of affine additions that share
 *     one field inversion (Montgomery's trick: 6 multiplications per
 *     addition against 10 for a mixed XYZZ addition); a point whose bucket
 *     already has an addition in the open batch waits in a small queue for
 *     the next batch, and P + P / P + (-P) (or a full queue) go to a
 *     per-bucket XYZZ overflow. When the affine model's window has fewer
 *     than 2^8 buckets (G1; 2^6 for G2, whose inversion is relatively
 *     cheaper) the batches cannot pay for the inversion: XYZZ buckets with
 *     the XYZZ model's window. A window is then sum_j j·B_j by a running
 *     sum (2 additions per bucket), and the windows are joined by Horner's
 *     rule (c doublings each).
 *   - Cost model, in point additions: nwin(c) · (m + 2^c) for XYZZ
 *     buckets (cuzk_msm_window_bits, the reference method), and
 *     nwin(c) · (2m + 2·2^c) with 128-bit digits for the default (the
 *     running sum's two additions cost about four affine ones). E.g. the
 *     reference:
 *       m      c  nwin  additions      (Fr scalars, bits = 255)
 *       2^10   8   32      40,960
 *       2^12  10   26     133,120
 *       2^14  11   24     442,368
 *       2^15  12   22     811,008
 *       2^16  13   20   1,474,560
 *       2^20  16   16  17,825,792
 *       2^27  20   13   1.76e9
 *     bench/bench_msm measures each method (msm_internal.h selects them)
 *     against the multiplication count above.
 *     Bucket memory per thread: 2^(c-1) XYZZ points plus, for the affine
 *     buckets, 2^(c-1) affine points (c = 16: 9 MiB for G1, 18 MiB for G2);
 *     scalar scratch is 4 bytes per scalar 1 and per general scalar, plus
 *     per general scalar 64 bytes and one affine point for GLV (made from
 *     the caller's scalars) or a 32-byte copy without; the pairwise
 *     scalar-1 sum takes up to 2^14 affine points per thread (1.5 MiB G1,
 *     3 MiB G2).
 *   - Threads: the windows and fixed chunks of 2^14 scalar-1 bases are
 *     independent tasks pulled by nthreads pthreads from a shared counter
 *     (cuzk_msm_batch below puts several MSMs' tasks in one list);
 *     the task results are joined in a fixed order, so the output is
 *     bit-for-bit the same Jacobian point for every nthreads. Windows are
 *     not split by point ranges, so threads beyond the task count (about
 *     nwin: 7..17 with GLV, 13..32 without) have nothing to do.
 *
 * All functions return CUZK_OK, CUZK_ERR_INVALID_ARG (out NULL, bases or
 * scalars NULL with n > 0, n >= 2^32) or CUZK_ERR_NO_MEMORY (then *out is
 * untouched). n = 0 gives infinity. nthreads 0 means 1. Bases may include
 * infinity (0,0) and repeats; they must lie in G1 / G2 (not checked).
 * If a thread cannot be started, its work is done by the others.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scalars as cuzk_fr (Montgomery form, as the field API keeps them). */
int cuzk_g1_msm(cuzk_g1_jac *out, const cuzk_g1_affine *bases, const cuzk_fr *scalars, size_t n,
                unsigned nthreads);
int cuzk_g2_msm(cuzk_g2_jac *out, const cuzk_g2_affine *bases, const cuzk_fr *scalars, size_t n,
                unsigned nthreads);

/* Scalars as plain little-endian 256-bit integers (any value, not reduced
 * mod r; provers convert from Montgomery once). out = sum k_i · bases[i]
 * mod r (the bases being subgroup points). */
int cuzk_g1_msm_plain(cuzk_g1_jac *out, const cuzk_g1_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads);
int cuzk_g2_msm_plain(cuzk_g2_jac *out, const cuzk_g2_affine *bases, const uint64_t (*scalars)[4],
                      size_t n, unsigned nthreads);

/*
 * Several MSMs as one: the five of a Groth16 proof (H, L, A, B1 in G1, B2
 * in G2) run separately leave threads idle at the end of each MSM, as GLV
 * leaves only 7..17 windows per MSM (on 2 threads one thread often waits
 * for the other's last window, five times a proof).
 *
 * Method:
 *   - Prepare: each job's scalars are classified (0 / 1 / general), one
 *     job per thread at a time (largest n first); then the GLV entries
 *     (x^2·P and the split of k, read again from the caller's scalars) are
 *     made in chunks of 4096 general scalars pulled by all threads.
 *   - One task list: every job's windows and scalar-1 chunks, ordered by an
 *     estimated cost, largest first (a window: its bucket additions plus
 *     its running sum, in Fp multiplications; a G2 window costs ~3× a G1
 *     window of the same size), so the small tasks fill the end; nthreads
 *     threads pull them from one shared counter.
 *   - Each task writes its own slot; each job's slots are joined in the
 *     same fixed order as the single MSM's, so every output is bit-for-bit
 *     the Jacobian point cuzk_g{1,2}_msm{,_plain} gives, for every
 *     nthreads and every mix of jobs.
 *   - Memory: one block of bucket scratch per thread, allocated once and
 *     sized for the largest job (the G1 and G2 views share it); the
 *     classified scalars of all jobs are held at once, shrunk to the
 *     general and scalar-1 counts: 4 bytes per scalar 1 and per general
 *     scalar, plus per general scalar 64 bytes and one affine point (GLV),
 *     or a 32-byte copy without GLV. (The one-by-one MSMs reuse one MSM's
 *     memory for the next: where fresh pages are dear, as in a microVM at
 *     ~15 µs a page fault, the batch's larger footprint costs time.)
 *
 * A job is G1 (g1_out, g1_bases set, g2_* NULL) or G2 (g2_*), with scalars
 * either as cuzk_fr (fr, as cuzk_g{1,2}_msm) or as plain 256-bit integers
 * (plain, as cuzk_g{1,2}_msm_plain); exactly one of fr / plain when n > 0.
 * Jobs may share bases or scalars; outputs must not alias each other or the
 * inputs. Returns CUZK_OK, CUZK_ERR_INVALID_ARG (jobs NULL with njobs > 0,
 * a job with both or neither of g1_out / g2_out, bases or scalars missing
 * for n > 0, both fr and plain, n >= 2^32) or CUZK_ERR_NO_MEMORY; on an
 * error no output is written. njobs 0 does nothing; nthreads 0 means 1.
 */
typedef struct cuzk_msm_job {
    cuzk_g1_jac *g1_out;
    const cuzk_g1_affine *g1_bases;
    cuzk_g2_jac *g2_out;
    const cuzk_g2_affine *g2_bases;
    const cuzk_fr *fr;          /* Montgomery form */
    const uint64_t (*plain)[4]; /* or plain little-endian integers */
    size_t n;
} cuzk_msm_job;

int cuzk_msm_batch(const cuzk_msm_job *jobs, size_t njobs, unsigned nthreads);

/* Window width c chosen for m general scalars of the given bit length
 * (255 or 256) and the cost nwin·(m + 2^c) in point additions (cost may be
 * NULL). m = 0 gives c = 0 (no windows). */
unsigned cuzk_msm_window_bits(size_t m, unsigned bits, uint64_t *cost);

#ifdef __cplusplus
}
#endif
#endif
