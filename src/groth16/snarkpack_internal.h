/* SnarkPack's shared pieces inside src/groth16: the Fiat-Shamir transcript (cuzk/groth16/snarkpack.h
 * gives its byte rules), the challenges prover and verifier both derive, and the parallel
 * helpers over inner pairing products and point vectors. */
#ifndef CUZK_SNARKPACK_INTERNAL_H
#define CUZK_SNARKPACK_INTERNAL_H

#include "cuzk/ec/pairing.h"
#include "cuzk/groth16/snarkpack.h"

typedef struct sp_transcript {
    uint8_t *buf;
    size_t len, cap;
    int oom;
} sp_transcript;

void sp_ts_init(sp_transcript *t, const char *tag);
void sp_ts_fr(sp_transcript *t, const cuzk_fr *x);
void sp_ts_g1(sp_transcript *t, const cuzk_g1_affine *p);
void sp_ts_g2(sp_transcript *t, const cuzk_g2_affine *p);
void sp_ts_gt(sp_transcript *t, const cuzk_gt *x);
void sp_ts_blob(sp_transcript *t, const uint8_t *b, size_t len);
/* The challenge; releases t. CUZK_OK or CUZK_ERR_NO_MEMORY. */
int sp_ts_challenge(cuzk_fr *out, sp_transcript *t);

/* The challenges of the protocol (cuzk/groth16/snarkpack.h). */
int sp_challenge_hcom(cuzk_fr *out, const cuzk_snarkpack_com *ab, const cuzk_snarkpack_com *c);
int sp_challenge_r(cuzk_fr *out, const cuzk_fr *hcom, const uint8_t *include, size_t len);
int sp_challenge_gipa0(cuzk_fr *out, const cuzk_fr *hcom, const cuzk_gt *ip_ab, const cuzk_g1_affine *agg_c,
                       const cuzk_fr *r);
/* Round i's c_inv from the previous one (for i = 0: gipa0's) and the round's messages; V1 keeps
 * gipa0's for round 0. */
int sp_challenge_round(cuzk_fr *c_inv, unsigned i, const cuzk_snarkpack_round *rd, cuzk_snarkpack_version v);
int sp_challenge_extra(cuzk_fr *out, const cuzk_fr *c_last, const cuzk_snarkpack_proof *p);
/* The KZG point: first is the last round's c (V1) or the extra link (V2). */
int sp_challenge_z(cuzk_fr *out, const cuzk_fr *first, const cuzk_snarkpack_proof *p, cuzk_snarkpack_version v);

/* prod_j (1 + t[j]·(s·z)^(2^j)): the KZG polynomials' values from the reversed challenges. */
void sp_poly_eval_product(cuzk_fr *out, const cuzk_fr *t, size_t l, const cuzk_fr *z, const cuzk_fr *s);
/* Their coefficients (2^l of them): c = [1]; c <- c || c·t[j]·s^(2^j). */
void sp_poly_coeffs(cuzk_fr *out, const cuzk_fr *t, size_t l, const cuzk_fr *s);

/* out[k] = the pairing products of the groups' pairs sent to k, k < nprod (cuzk/ec/pairing.h's
 * groups: a G2 point's lines serve all its pairs): the groups' Miller loops in chunks over
 * nthreads, then one final exponentiation per product, the products over the threads too. */
/* acc (NULL: none) takes the Miller loops when the groups hold at least its min_n pairs. */
int sp_pairing_groups(cuzk_gt *out, size_t nprod, const cuzk_pairing_group *g, size_t ng, unsigned nthreads,
                      const cuzk_snarkpack_accel *acc);
/* cuzk_msm_batch, on acc when its longest job has at least acc->min_n points. */
int sp_msm_batch(const cuzk_msm_job *jobs, size_t nj, unsigned nthreads, const cuzk_snarkpack_accel *acc);
/* out = sum k[i]·P[i] */
int sp_g1_msm(cuzk_g1_affine *out, const cuzk_g1_affine *P, const cuzk_fr *k, size_t n, unsigned nthreads,
              const cuzk_snarkpack_accel *acc);
/* One vector's fold over i < half: a[i] = a[i] + s·a[i + half] (k NULL), or a[i] = k[i]·a[i]
 * (the first half scaled in place); g1 or g2 names the vector. */
typedef struct {
    cuzk_g1_affine *g1;
    cuzk_g2_affine *g2;
    const cuzk_fr *s, *k;
} sp_fold_job;
/* All the jobs' points in one pass over nthreads, by the endomorphisms (the points are subgroup
 * points: proofs checked on decoding, SRS keys, and their folds). CUZK_ERR_NO_MEMORY or OK. */
int sp_fold(const sp_fold_job *jobs, size_t nj, size_t half, unsigned nthreads);
/* v^e for a small exponent. */
void sp_fr_pow_u64(cuzk_fr *out, const cuzk_fr *v, uint64_t e);

#endif
