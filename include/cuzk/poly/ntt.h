/*
 * NTT over Fr on power-of-two evaluation domains, and the Groth16 H
 * computation built on it (bellperson's order of operations).
 *
 * A domain of size n = 2^log_n holds omega (a primitive n-th root of unity
 * derived from the chosen multiplicative generator, see fr.h), its inverse,
 * 1/n, the coset shift g (the generator itself: 7 for Filecoin, 5 for
 * snarkjs), 1/g, 1/(g^n - 1) and one twiddle table omega^j, j < n/2
 * (n/2 · 32 bytes: 2 GiB at n = 2^27; the inverse twiddles are read from the
 * same table as omega^-j = -omega^(n/2 - j)).
 *
 * All vectors are natural order, length n, transformed in place. Transforms
 * allocate nothing; nthreads > 1 creates that many pthreads per call (fewer
 * on small inputs). Results are bit-identical for every nthreads: field
 * arithmetic is exact and every element gets the same operations.
 *
 * Cost (see src/poly/ntt.c for the count and the network: radix-2 full
 * passes for the stages wider than a 2^12-element block, radix-4 inside the
 * blocks), (n/2)·log2 n - (n - 1) Fr multiplications per transform
 * (butterflies with twiddle 1 skip the multiply). Radix-4 does not lower
 * this in Fr: the multiplication by the 4th root of unity is a full Fr
 * multiplication, unlike the free multiplication by i of complex FFTs.
 */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stddef.h>

#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_NTT_MAX_LOG 28

typedef struct cuzk_ntt_domain {
    unsigned log_n;
    size_t n;
    cuzk_fr_generator gen;
    cuzk_fr omega, omega_inv; /* primitive n-th root and its inverse */
    cuzk_fr n_inv;            /* 1/n */
    cuzk_fr g, g_inv;         /* coset shift (the generator) and its inverse */
    cuzk_fr z_inv;            /* 1/(g^n - 1) = 1/Z(x) for every x on the coset */
    cuzk_fr *tw;              /* omega^j, j < n/2 (NULL when n = 1) */
} cuzk_ntt_domain;

/*
 * Builds the domain of size 2^log_n from generator gen (CUZK_FR_GEN_FILECOIN
 * or CUZK_FR_GEN_SNARKJS). log_n <= CUZK_NTT_MAX_LOG else CUZK_ERR_INVALID_ARG;
 * CUZK_ERR_NO_MEMORY if the twiddle table cannot be allocated. nthreads
 * parallelises the table. Free with cuzk_ntt_domain_free.
 */
int cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned log_n, cuzk_fr_generator gen,
                         unsigned nthreads);
void cuzk_ntt_domain_free(cuzk_ntt_domain *d);

/* x[i] <- sum_j x[j]·omega^(ij): coefficients to evaluations on the domain. */
void cuzk_ntt_forward(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads);
/* x[i] <- (1/n)·sum_j x[j]·omega^(-ij): evaluations to coefficients. */
void cuzk_ntt_inverse(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads);
/* x[i] <- g^i·x[i], then forward: coefficients to evaluations at g·omega^i. */
void cuzk_ntt_coset_forward(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads);
/* inverse, then x[i] <- g^-i·x[i]: evaluations at g·omega^i to coefficients. */
void cuzk_ntt_coset_inverse(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads);
/* x[i] <- x[i] / Z(g·omega^i) with Z(x) = x^n - 1, i.e. x[i]·z_inv. */
void cuzk_ntt_divide_by_z_on_coset(const cuzk_ntt_domain *d, cuzk_fr *x, unsigned nthreads);

/*
 * Groth16 H polynomial, as bellperson's prover: a, b, c are the n
 * evaluations of A, B, C on the domain (constraint rows, zero padded to n).
 *   a,b,c <- iNTT; a,b,c <- coset NTT; a <- a·b - c; a <- a / Z on the coset;
 *   a <- inverse coset NTT.
 * On return a[0..n-2] are the coefficients of H = (A·B - C)/Z and the count
 * n - 1 is returned: bellperson truncates the result to len - 1 (deg(A·B - C)
 * <= 2n - 2, so deg H <= n - 2) and the parameter file's H query has n - 1
 * points. a[n-1] is left as computed (0 when A·B - C vanishes on the domain).
 * b and c are overwritten (their coset evaluations). Uses the same operation
 * order as the separate calls, with the scalings 1/n, g^i, 1/Z fused.
 */
size_t cuzk_ntt_groth16_h(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                          unsigned nthreads);

/*
 * Groth16 H the snarkjs way (snarkjs src/groth16_prove.js): a, b, c are the
 * n evaluations of A, B, C on the domain. Each is interpolated (iNTT), its
 * coefficients scaled by w^i with w = the primitive 2n-th root of unity of
 * d->gen (w^2 = omega), and transformed forward: its evaluations at the odd
 * points w·omega^i of the doubled domain. On return a[i] = A·B - C at
 * w·omega^i for i < n. Nothing is divided by Z: Z(x) = x^n - 1 is the
 * constant w^n - 1 = -2 on these points, which the H query of a zkey
 * absorbs. b and c are overwritten. Needs log_n < CUZK_FR_TWO_ADICITY.
 */
void cuzk_ntt_groth16_h_odd(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                            unsigned nthreads);

#ifdef __cplusplus
}
#endif
#endif
