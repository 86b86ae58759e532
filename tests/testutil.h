/*
 * Minimal test harness: CHECK records failures without stopping, each test
 * program prints "N passed, N failed" and exits non-zero on any failure.
 * Every test seeds its randomness with cuzk_test_seed() (printed, replayable).
 */
#ifndef CUZK_TESTUTIL_H
#define CUZK_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk/ff/fr.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/util/rng.h"

extern unsigned long tu_passed, tu_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            tu_passed++;                                                                           \
        } else {                                                                                   \
            tu_failed++;                                                                           \
            if (tu_failed <= 20)                                                                   \
                fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (cond) {                                                                                \
            tu_passed++;                                                                           \
        } else {                                                                                   \
            tu_failed++;                                                                           \
            if (tu_failed <= 20) {                                                                 \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);           \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Seeds rng from $CUZK_SEED or the OS and prints the seed. */
void tu_init(cuzk_rng *rng, const char *test_name);
/* Prints the summary line; returns the process exit code. */
int tu_finish(const char *test_name);
/* What did not run and why: prints "<test>: SKIPPED: <why>" and returns
 * TU_SKIP, which CTest reports as Skipped (SKIP_RETURN_CODE). A test that
 * checked something before it had to stop passes those checks' verdict:
 * a failure stays a failure. */
#define TU_SKIP 77
int tu_skip(const char *test_name, const char *why);
/* out = k·G for the standard generators (test points with known discrete logs). */
void tu_g1_mul_gen(cuzk_g1_affine *out, const cuzk_fr *k);
void tu_g2_mul_gen(cuzk_g2_affine *out, const cuzk_fr *k);
/* A fresh TEST setup of a synthetic circuit (cuzk/circuits/test_circuits.h) of nc constraints
 * and ni public inputs into *params, then n proofs of fresh witnesses into pf and their inputs
 * into in (n rows of ni), all from rng on 2 threads: what the aggregation tests aggregate.
 * 0, or -1 (params freed by the caller either way). */
struct cuzk_groth16_params;
struct cuzk_groth16_proof;
int tu_synthetic_proofs(struct cuzk_groth16_params *params, struct cuzk_groth16_proof *pf, cuzk_fr *in, size_t n,
                        size_t ni, uint64_t nc, cuzk_rng *rng);
/* Hex helpers for messages and oracle files. */
void tu_hex(char *out, const uint8_t *in, size_t len);
int tu_unhex(uint8_t *out, size_t len, const char *hex);

#endif
