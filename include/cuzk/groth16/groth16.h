/*
 * Groth16 test setup and prover over BLS12-381, in bellperson's layout.
 *
 * Setup (facts from filecoin-project/bellperson src/groth16/generator.rs):
 *   - domain size n = the smallest power of two >= the number of constraints
 *     (input constraints included, see cuzk_cs_finalize); the rows above the
 *     constraints are zero;
 *   - h[i] = tau^i · Z(tau) / delta · G1 for i < n - 1, Z(x) = x^n - 1;
 *   - with u_j, v_j, w_j the A, B, C columns evaluated at tau through the
 *     Lagrange coefficients (the inverse NTT of the powers of tau):
 *     ic[i] = (beta·u_i + alpha·v_i + w_i) / gamma · G1 for inputs,
 *     l[j]  = (beta·u_j + alpha·v_j + w_j) / delta · G1 for aux;
 *   - a = u·G1, b_g1 = v·G1, b_g2 = v·G2 over inputs then aux, with the
 *     points at infinity (u or v zero) removed, so a prover picks its
 *     scalars with the density bitmaps of cuzk_proving_cs;
 *   - an aux variable whose l entry would be infinity (it occurs in no
 *     constraint) is refused, as bellperson's UnconstrainedVariable.
 *
 * THESE ARE TEST PARAMETERS: the toxic waste (alpha, beta, gamma, delta,
 * tau) is drawn from the caller's rng and only wiped from memory afterwards.
 * Anyone who knows the rng state can forge proofs. Never a substitute for a
 * multi-party ceremony (Filecoin's parameter files).
 *
 * Prover (bellperson src/groth16/prover): with fresh random r, s,
 *   A  = alpha_g1 + sum a-query · (inputs, aux where A-density) + r·delta_g1
 *   B  = beta_g2  + sum b_g2-query · (inputs/aux where B-density) + s·delta_g2
 *   B1 = beta_g1  + sum b_g1-query · (same scalars) + s·delta_g1
 *   C  = s·A + r·B1 - r·s·delta_g1 + sum h·H + sum l·aux
 * where H holds the n - 1 coefficients of (A·B - C)/Z (cuzk_ntt_groth16_h,
 * domain generator 7). bellperson computes C as
 * r·s·delta + s·alpha + r·beta_g1 + s·ΣA + r·ΣB1 + H + L, the same point.
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"
#include "cuzk/ff/fr_packed.h"
#include "cuzk/groth16/groth16_params.h"
#include "cuzk/groth16/groth16_verify.h"
#include "cuzk/util/rng.h"

struct cuzk_pce; /* cuzk/pce/pce.h */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Test parameters for a finalized RecordingCS (see the warning above).
 * *out is overwritten; free with cuzk_groth16_params_free. nthreads 0 means 1.
 * Returns CUZK_OK, CUZK_ERR_INVALID_ARG (NULL, not finalized, a system with
 * a sticky error, no ONE input, more than 2^CUZK_NTT_MAX_LOG constraints, or
 * an unconstrained aux variable), CUZK_ERR_NO_MEMORY (*out zeroed then).
 */
int cuzk_groth16_setup(cuzk_groth16_params *out, const cuzk_recording_cs *cs, cuzk_rng *rng,
                       unsigned nthreads);

/*
 * Progress of a long setup: called on the calling thread after each slice
 * of fixed-base multiplications with the points written so far and the
 * total (ic, l, h, a, b_g1, and b_g2 counted 3 times: a G2 point costs
 * about three G1 points). phase names the query ("h", "b_g2", ...).
 */
typedef void (*cuzk_groth16_progress_fn)(void *ctx, const char *phase, uint64_t done,
                                         uint64_t total);

/* As cuzk_groth16_setup, reporting progress through fn (may be NULL). */
int cuzk_groth16_setup_progress(cuzk_groth16_params *out, const cuzk_recording_cs *cs,
                                cuzk_rng *rng, unsigned nthreads, cuzk_groth16_progress_fn fn,
                                void *ctx);

/*
 * Where a setup's fixed-base multiplications run: out[i] = k[i]·base for
 * i < n (affine, bit-identical to the CPU comb; k in Montgomery form, 0 gives
 * infinity), returning a cuzk_err. NULL members (or a NULL struct) mean the
 * CPU comb. include/cuzk/gpu/gpu.h's cuzk_gpu_setup_fixed_base fills one for a
 * GPU; this layer only calls through the pointers.
 */
typedef struct cuzk_groth16_fixed_base {
    int (*g1)(void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *base, const cuzk_fr *k, size_t n);
    int (*g2)(void *ctx, cuzk_g2_affine *out, const cuzk_g2_affine *base, const cuzk_fr *k, size_t n);
    void *ctx;
} cuzk_groth16_fixed_base;

/* As cuzk_groth16_setup_progress with the query points computed by fb; the
 * backend's error code is returned as is (and *out zeroed). */
int cuzk_groth16_setup_with(cuzk_groth16_params *out, const cuzk_recording_cs *cs, cuzk_rng *rng,
                            unsigned nthreads, cuzk_groth16_progress_fn fn, void *ctx,
                            const cuzk_groth16_fixed_base *fb);

/* The toxic waste of a setup. */
typedef struct cuzk_groth16_toxic {
    cuzk_fr alpha, beta, gamma, delta, tau;
} cuzk_groth16_toxic;

/*
 * As cuzk_groth16_setup with the caller's toxic waste (tests that check the
 * parameters against an independent computation). CUZK_ERR_INVALID_ARG also
 * when gamma or delta is zero or tau is a root of Z (tau^n = 1).
 */
int cuzk_groth16_setup_toxic(cuzk_groth16_params *out, const cuzk_recording_cs *cs,
                             const cuzk_groth16_toxic *toxic, unsigned nthreads);
/* The same with the query points computed by fb (tests compare backends). */
int cuzk_groth16_setup_toxic_with(cuzk_groth16_params *out, const cuzk_recording_cs *cs,
                                  const cuzk_groth16_toxic *toxic, unsigned nthreads,
                                  const cuzk_groth16_fixed_base *fb);

/*
 * One proof for a finalized cuzk_proving_cs against params made for the
 * same circuit (the sizes are checked: n_ic = inputs, n_l = aux, n_h = n-1,
 * n_a, n_b_g1, n_b_g2 equal to the density counts). r and s are drawn from
 * rng (seed it from the OS for real proofs). An unsatisfied assignment gives
 * a proof that does not verify; it is not detected here (as bellperson).
 * Returns CUZK_OK, CUZK_ERR_INVALID_ARG (NULL, not finalized, sticky error,
 * size mismatch, delta at infinity), CUZK_ERR_NO_MEMORY.
 */
int cuzk_groth16_prove(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                       const cuzk_proving_cs *cs, cuzk_rng *rng, unsigned nthreads);

/* As cuzk_groth16_prove with the caller's r and s (deterministic tests). */
int cuzk_groth16_prove_rs(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                          const cuzk_proving_cs *cs, const cuzk_fr *r, const cuzk_fr *s,
                          unsigned nthreads);

/* Seconds spent per phase of one proof (wall clock). */
typedef struct cuzk_groth16_prove_timing {
    double ntt_h_s;                  /* H = (A·B - C)/Z, 7 NTTs */
    double msm_s;                    /* the five MSMs together */
    /* Per MSM: the GPU prover only. The CPU prover runs the five as one
     * task list (cuzk_msm_batch), where they have no separate times; 0. */
    double msm_h_s, msm_l_s, msm_a_s; /* G1 MSMs */
    double msm_b_g1_s, msm_b_g2_s;
    double total_s;                  /* including copies and the final combination */
    /* a, b, c evaluated from a PCE by the prover (the assignment's pce):
     * the witness upload (GPU) and the evaluation; 0 otherwise. */
    double upload_s, eval_s;
    /* GPU: waiting for the device while another worker's kernel region ran */
    double wait_s;
    /* GPU, points streamed from the host (the device-memory plan): bytes
     * copied, the copy engine's time for them, and the part of it the MSMs
     * waited for (the rest was hidden under kernels); 0 when none were. */
    uint64_t stream_bytes;
    double stream_copy_s, stream_wait_s;
} cuzk_groth16_prove_timing;

/* As cuzk_groth16_prove_rs, filling *timing (may be NULL). */
int cuzk_groth16_prove_timed(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                             const cuzk_proving_cs *cs, const cuzk_fr *r, const cuzk_fr *s,
                             unsigned nthreads, cuzk_groth16_prove_timing *timing);

/*
 * What a prover consumes, however it was produced (a ProvingAssignment, a
 * witness times a pre-compiled circuit, a snarkjs witness): the witness and
 * the per-constraint evaluations a_i = <A_i, w>, b_i, c_i. A view: nothing is
 * owned. input[0] is ONE; the density bitmaps are bellperson's (aux in A,
 * inputs in B, aux in B) and select the scalars of the A and B queries.
 */
typedef struct cuzk_groth16_assignment {
    size_t num_constraints, num_inputs, num_aux;
    const cuzk_fr *a, *b, *c;  /* num_constraints each */
    const cuzk_fr *input, *aux; /* num_inputs, num_aux */
    const cuzk_density *a_aux, *b_input, *b_aux;
    /*
     * Optional (NULL: not given). a, b, c already lie in the prover's NTT
     * input layout: abc[0, n) = a, abc[n, 2n) = b, abc[2n, 3n) = c with
     * n the domain size and rows past num_constraints zero (a, b, c must
     * then equal abc, abc + n, abc + 2n). The GPU prover uploads the block
     * as it is (one DMA when pinned); the CPU prover transforms it in place
     * when abc_consumable (a, b, c are then garbage afterwards: evaluate
     * again before another proof) and copies it in one piece otherwise.
     */
    cuzk_fr *abc;
    bool abc_consumable;
    /*
     * Optional (NULL: not given). a, b, c are not evaluated yet (a, b, c and
     * abc are NULL): they are pce·(input | aux), computed by the prover that
     * takes the assignment: into a scratch block by cuzk_pce_eval_raw on the
     * CPU, by a sparse product on the device from the PCE's matrices kept
     * resident there on the GPU (only the witness travels). The density
     * bitmaps must be the PCE's. The PCE must outlive the prove call.
     */
    const struct cuzk_pce *pce;
    /* Optional (NULL: not given): the aux packed by value class instead of
     * aux (then NULL), as cuzk_groth16_job's aux_packed. */
    const cuzk_fr_packed *aux_packed;
} cuzk_groth16_assignment;

/* The view of a finalized ProvingAssignment (CUZK_ERR_INVALID_ARG otherwise). */
int cuzk_groth16_assignment_from_cs(cuzk_groth16_assignment *out, const cuzk_proving_cs *cs);

/*
 * Checks that an assignment fits params (same rules as cuzk_groth16_prove)
 * and gives log2 of the evaluation domain. CUZK_OK or CUZK_ERR_INVALID_ARG.
 */
int cuzk_groth16_check_sizes(const cuzk_groth16_params *params, const cuzk_groth16_assignment *as,
                             unsigned *log_n);

/* One proof from an assignment: the prover behind every cuzk_groth16_prove*
 * (cuzk_groth16_job_init, then cuzk_groth16_prove_job). */
int cuzk_groth16_prove_assignment(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                                  const cuzk_groth16_assignment *as, const cuzk_fr *r,
                                  const cuzk_fr *s, unsigned nthreads,
                                  cuzk_groth16_prove_timing *timing);

/* ---- the prove pipeline ----------------------------------------------------
 *
 * Every Groth16 prover runs one sequence: the rows a, b, c (given, or
 * evaluated from a pre-compiled circuit), H by NTTs, the A and B scalars
 * gathered from the witness, five MSMs (H, L, A, B in G1 and in G2) and the
 * final combination with r, s. A cuzk_groth16_job describes its inputs; the
 * back ends are cuzk_groth16_prove_job (CPU, here) and cuzk_gpu_prove_job
 * (include/cuzk/gpu/gpu.h). The sources build jobs: cuzk_groth16_job_init from
 * bellperson parameters and an assignment (a ProvingAssignment, a witness
 * and its PCE), the circom layer from a snarkjs zkey and witness.
 */

/* Which H: bellperson's (domain generator 7, the coset g·omega^i, divided by
 * Z, the n - 1 coefficients of H) or snarkjs's (generator 5, A·B - C at the
 * n odd points of the doubled domain, cuzk_ntt_groth16_h_odd). */
typedef enum cuzk_groth16_h_form { CUZK_GROTH16_H_COSET = 0, CUZK_GROTH16_H_ODD = 1 } cuzk_groth16_h_form;

/* The n scalars of a query, in its points' order, picked from the witness
 * (input | aux): by index into it (idx), or, with idx NULL, by density: the
 * inputs whose bit is set in input (NULL: every input), then the aux whose
 * bit is set in aux. */
typedef struct cuzk_groth16_query {
    size_t n;
    const uint32_t *idx;
    const cuzk_density *input, *aux;
} cuzk_groth16_query;

/* A view: nothing is owned, everything must outlive the prove call. */
typedef struct cuzk_groth16_job {
    unsigned log_n;                  /* the domain: n = 2^log_n >= num_constraints */
    cuzk_groth16_h_form form;
    size_t num_constraints, num_inputs, num_aux;
    /* The witness (input[0] is ONE): Montgomery form, or plain integers when
     * plain (the scalars of L, A and B are then taken as they are). */
    const cuzk_fr *input, *aux;
    bool plain;
    /* Or the aux witness packed by value class (cuzk/ff/fr_packed.h; aux NULL):
     * 103 MB instead of 4.17 GB for a 32 GiB PoRep partition. A GPU expands
     * it on the device after a small upload; the CPU back end and the GPU's
     * host-gathered path unpack it first. Its n is num_aux, its plain plain. */
    const cuzk_fr_packed *aux_packed;
    /* The rows, from exactly one of: a, b, c; abc (then also a, b, c) with
     * abc_consumable; pce. As in cuzk_groth16_assignment. */
    const cuzk_fr *a, *b, *c;
    cuzk_fr *abc;
    bool abc_consumable;
    const struct cuzk_pce *pce;      /* (the queries are then its densities) */
    /* All three by index or all three by density; q_b_g2 equal to q_b_g1
     * member for member means one set of B scalars for both MSMs. Indices
     * must lie below num_inputs + num_aux (not checked: the source's). */
    cuzk_groth16_query q_a, q_b_g1, q_b_g2;
    /* The points (h: n - 1 for COSET, n for ODD; l: num_aux; a, b_g1, b_g2:
     * their query's n) and the key elements of the final combination (vk's
     * alpha, beta, delta; ic unused). key is the handle of the points (and
     * the index lists), pce_key the PCE's (cuzk/util/handle.h): a back end
     * that keeps copies (a GPU) keeps them under these; the CPU's ignores
     * them. */
    const cuzk_groth16_params *params;
    uint64_t key, pce_key;
} cuzk_groth16_job;

/* The job of an assignment against bellperson parameters, checked as
 * cuzk_groth16_check_sizes says (CUZK_ERR_INVALID_ARG); its keys 0, for the
 * caller to set. */
int cuzk_groth16_job_init(cuzk_groth16_job *job, const cuzk_groth16_params *params,
                          const cuzk_groth16_assignment *as);
/* The checks every back end makes: sizes agree, one row source, queries
 * well formed (a PCE's are its densities). CUZK_OK or CUZK_ERR_INVALID_ARG. */
int cuzk_groth16_job_check(const cuzk_groth16_job *job);
/* For a job with a packed aux: *u <- the job with aux unpacked into *aux
 * (malloc'ed; the caller wipes and frees it, cuzk_groth16_job_unpacked_free);
 * otherwise *u <- *j and *aux NULL. CUZK_OK or CUZK_ERR_NO_MEMORY. */
int cuzk_groth16_job_unpacked(cuzk_groth16_job *u, cuzk_fr **aux, const cuzk_groth16_job *j);
void cuzk_groth16_job_unpacked_free(cuzk_fr *aux, size_t num_aux);
/* Whether B's G2 MSM takes the scalars of B's G1 MSM (see q_b_g2). */
static inline bool cuzk_groth16_job_b_shared(const cuzk_groth16_job *j)
{
    return j->q_b_g2.n == j->q_b_g1.n && j->q_b_g2.idx == j->q_b_g1.idx &&
           j->q_b_g2.input == j->q_b_g1.input && j->q_b_g2.aux == j->q_b_g1.aux;
}
/* dst (q->n) <- the scalars of query q. */
void cuzk_groth16_gather(cuzk_fr *dst, const cuzk_groth16_job *job, const cuzk_groth16_query *q);

/* The CPU back end: one proof of a job. timing's eval_s is the PCE
 * evaluation when the job has one; upload_s and wait_s stay 0. */
int cuzk_groth16_prove_job(cuzk_groth16_proof *out, const cuzk_groth16_job *job, const cuzk_fr *r,
                           const cuzk_fr *s, unsigned nthreads, cuzk_groth16_prove_timing *timing);

/* The last step of every back end: the proof from the five MSM sums with
 * randomisers r, s (only params->vk's alpha, beta and delta are read). */
typedef struct cuzk_groth16_msm_sums {
    cuzk_g1_jac h, l, a, b_g1; /* Σh·H, Σl·aux, ΣA, ΣB (G1) */
    cuzk_g2_jac b_g2;          /* ΣB (G2) */
} cuzk_groth16_msm_sums;
void cuzk_groth16_finish(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                         const cuzk_groth16_msm_sums *sums, const cuzk_fr *r, const cuzk_fr *s);

/* n proofs, circuit i from cs[i], all against one parameter set (each with
 * its own r, s from rng). Stops at the first error and returns it; out[i]
 * for earlier i are then valid. Proofs are made one after the other (no
 * batching of the MSMs yet). */
int cuzk_groth16_prove_many(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                            const cuzk_proving_cs *const *cs, size_t n, cuzk_rng *rng,
                            unsigned nthreads);

/* As cuzk_groth16_prove_many, filling timing[i] (n entries; may be NULL)
 * for proof i. r, s are drawn from rng in the same order. */
int cuzk_groth16_prove_many_timed(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                                  const cuzk_proving_cs *const *cs, size_t n, cuzk_rng *rng,
                                  unsigned nthreads, cuzk_groth16_prove_timing *timing);

#ifdef __cplusplus
}
#endif
#endif
