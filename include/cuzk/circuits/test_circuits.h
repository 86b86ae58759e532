/*
 * Built-in test circuits for the CLI, the engine's test kinds, tests and
 * benchmarks. Both are real circuits (every witness satisfies them, every
 * aux variable is constrained), with public inputs computable natively so a
 * verifier never has to trust the prover's.
 *
 *  - synthetic: exactly num_constraints constraints (before the input
 *    constraints of cuzk_cs_finalize) in a mix shaped like Filecoin's
 *    circuits: about half boolean checks b·(1-b) = 0, products of recent
 *    variables, bit packings (sparse linear combinations with power-of-two
 *    coefficients) and linear steps through the public inputs. The
 *    structure depends only on (num_constraints, num_inputs); the values
 *    only on witness_seed, so one parameter set serves every witness. Its
 *    general form has products in the booleans' place: a witness of general
 *    values (tests of what depends on the witness's value classes).
 *  - sha256 chain: h_0 = 32 bytes from witness_seed, h_{i+1} = SHA-256(h_i)
 *    (one padded block per step), public inputs h_0 and h_k packed with
 *    multipack (2 + 2 field elements).
 *
 * Synthesis expects ONE already allocated (cuzk_cs_alloc_one) and leaves
 * finalizing to the caller.
 */
#ifndef CUZK_TEST_CIRCUITS_H
#define CUZK_TEST_CIRCUITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_synthetic_spec {
    uint64_t num_constraints; /* >= num_inputs, < 2^32 */
    uint32_t num_inputs;      /* public inputs besides ONE */
    uint64_t witness_seed;
} cuzk_synthetic_spec;

/* Synthesizes the circuit into cs. Returns CUZK_OK, CUZK_ERR_INVALID_ARG, or
 * the system's sticky error. */
int cuzk_synthetic_synthesize(cuzk_cs *cs, const cuzk_synthetic_spec *spec);
/* The same, in the general form when general_only (another circuit: its own parameters). */
int cuzk_synthetic_synthesize_form(cuzk_cs *cs, const cuzk_synthetic_spec *spec, bool general_only);
/* The spec->num_inputs public inputs (ONE excluded), natively. */
int cuzk_synthetic_public_inputs(cuzk_fr *out, const cuzk_synthetic_spec *spec);

typedef struct cuzk_sha256_chain_spec {
    uint32_t length; /* SHA-256 steps, >= 1 */
    uint64_t witness_seed;
} cuzk_sha256_chain_spec;

#define CUZK_SHA256_CHAIN_NUM_INPUTS 4
int cuzk_sha256_chain_synthesize(cuzk_cs *cs, const cuzk_sha256_chain_spec *spec);
/* The 4 public inputs: multipack(h_0 bits), multipack(h_k bits). */
int cuzk_sha256_chain_public_inputs(cuzk_fr out[CUZK_SHA256_CHAIN_NUM_INPUTS],
                                    const cuzk_sha256_chain_spec *spec);

#ifdef __cplusplus
}
#endif
#endif
