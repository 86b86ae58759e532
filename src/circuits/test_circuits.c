/* Built-in test circuits (see include/cuzk/circuits/test_circuits.h). */
#include <string.h>


#include "cuzk/util/error.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/util/rng.h"
#include "cuzk/util/sha256.h"
#include "cuzk/circuits/test_circuits.h"

/* ---- synthetic ---------------------------------------------------------- */

/* Recent variables a new constraint may read: a ring of the last RING. */
#define RING 64

/* The structure of constraint i: a fixed function of i (splitmix64). */
static uint64_t shape_of(uint64_t i)
{
    uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct ring {
    cuzk_var var[RING];
    cuzk_fr val[RING];
    bool is_bit[RING];
    size_t n; /* entries written so far */
} ring;

static void ring_push(ring *r, cuzk_var v, const cuzk_fr *val, bool is_bit)
{
    size_t k = r->n++ % RING;
    r->var[k] = v, r->val[k] = *val, r->is_bit[k] = is_bit;
}

/* The k-th most recent entry (k < min(n, RING)). */
static size_t ring_back(const ring *r, uint64_t k)
{
    size_t avail = r->n < RING ? r->n : RING;
    return (r->n - 1 - (size_t)(k % avail)) % RING;
}

/* A fresh boolean b with b·(1 - b) = 0. */
static void bool_step(cuzk_cs *cs, bool skip, cuzk_lc lcs[3], ring *r, cuzk_rng *wit)
{
    cuzk_fr v;
    cuzk_fr_set_u64(&v, cuzk_rng_u64(wit) & 1);
    cuzk_var bv = cuzk_cs_alloc(cs, "b", &v);
    if (skip) {
        cuzk_cs_enforce_skipped(cs);
    } else {
        for (int k = 0; k < 3; k++) cuzk_lc_clear(&lcs[k]);
        cuzk_lc_add_var(&lcs[0], bv), cuzk_lc_add_var(&lcs[1], CUZK_CS_ONE);
        cuzk_lc_sub_var(&lcs[1], bv);
        cuzk_cs_enforce(cs, "bool", &lcs[0], &lcs[1], &lcs[2]);
    }
    ring_push(r, bv, &v, true);
}

static void input_value(cuzk_fr *out, uint64_t seed, uint32_t i)
{
    cuzk_rng rng;
    cuzk_rng_seed(&rng, seed ^ (0x5bd1e995ull * (i + 1)));
    cuzk_fr_random(out, &rng);
}

int cuzk_synthetic_public_inputs(cuzk_fr *out, const cuzk_synthetic_spec *spec)
{
    if (!out || !spec) return CUZK_ERR_INVALID_ARG;
    for (uint32_t i = 0; i < spec->num_inputs; i++) input_value(&out[i], spec->witness_seed, i);
    return CUZK_OK;
}

int cuzk_synthetic_synthesize(cuzk_cs *cs, const cuzk_synthetic_spec *spec)
{
    return cuzk_synthetic_synthesize_form(cs, spec, false);
}

int cuzk_synthetic_synthesize_form(cuzk_cs *cs, const cuzk_synthetic_spec *spec, bool general_only)
{
    if (!cs || !spec || spec->num_constraints < spec->num_inputs ||
        spec->num_constraints >= (1ull << 32) || cs->num_inputs != 1)
        return CUZK_ERR_INVALID_ARG;
    const bool skip = cuzk_cs_skip_lcs(cs);
    cuzk_rng wit;
    cuzk_rng_seed(&wit, spec->witness_seed);
    cuzk_fr zero, pow2[8];
    cuzk_fr_set_u64(&zero, 0);
    for (int j = 0; j < 8; j++) cuzk_fr_set_u64(&pow2[j], 1ull << j);
    cuzk_lc lcs[3], *a = &lcs[0], *b = &lcs[1], *c = &lcs[2];
    cuzk_lc_init(a), cuzk_lc_init(b), cuzk_lc_init(c);
    ring local, *r = &local;
    r->n = 0;

    /* Inputs: each enters the ring through one constraint x·1 = y. */
    uint64_t left = spec->num_constraints;
    for (uint32_t i = 0; i < spec->num_inputs && !cuzk_cs_error(cs); i++, left--) {
        cuzk_fr x;
        input_value(&x, spec->witness_seed, i);
        cuzk_var xv = cuzk_cs_alloc_input(cs, "x", &x);
        cuzk_var yv = cuzk_cs_alloc(cs, "y", &x);
        if (skip) {
            cuzk_cs_enforce_skipped(cs);
        } else {
            cuzk_lc_clear(a), cuzk_lc_clear(b), cuzk_lc_clear(c);
            cuzk_lc_add_var(a, xv), cuzk_lc_add_var(b, CUZK_CS_ONE), cuzk_lc_add_var(c, yv);
            cuzk_cs_enforce(cs, "input", a, b, c);
        }
        ring_push(r, yv, &x, false);
    }
    if (r->n == 0) { /* no inputs: seed the ring with one boolean */
        if (left == 0) goto out;
        bool_step(cs, skip, lcs, r, &wit);
        left--;
    }

    for (uint64_t i = 0; i < left && !cuzk_cs_error(cs); i++) {
        uint64_t sh = shape_of(i);
        unsigned kind = (unsigned)(sh % 20);
        cuzk_fr v;
        if (kind < 10 && !general_only) { /* boolean: b·(1 - b) = 0 */
            bool_step(cs, skip, lcs, r, &wit);
        } else if (kind < 15) { /* product of two recent variables (and the booleans' place in the general form) */
            size_t p = ring_back(r, sh >> 8), q = ring_back(r, sh >> 20);
            cuzk_fr_mul(&v, &r->val[p], &r->val[q]);
            cuzk_var zv = cuzk_cs_alloc(cs, "z", &v);
            if (skip) {
                cuzk_cs_enforce_skipped(cs);
            } else {
                cuzk_lc_clear(a), cuzk_lc_clear(b), cuzk_lc_clear(c);
                cuzk_lc_add_var(a, r->var[p]), cuzk_lc_add_var(b, r->var[q]);
                cuzk_lc_add_var(c, zv);
                cuzk_cs_enforce(cs, "mul", a, b, c);
            }
            ring_push(r, zv, &v, false);
        } else if (kind < 18) { /* packing: Σ 2^j·x_j = w (sparse, power-of-two coefficients) */
            unsigned terms = 2 + (unsigned)((sh >> 8) % 7);
            size_t idx[8];
            v = zero;
            for (unsigned j = 0; j < terms; j++) {
                idx[j] = ring_back(r, (sh >> (12 + 6 * j)) & 63);
                cuzk_fr t;
                cuzk_fr_mul(&t, &r->val[idx[j]], &pow2[j]);
                cuzk_fr_add(&v, &v, &t);
            }
            cuzk_var wv = cuzk_cs_alloc(cs, "w", &v);
            if (skip) {
                cuzk_cs_enforce_skipped(cs);
            } else {
                cuzk_lc_clear(a), cuzk_lc_clear(b), cuzk_lc_clear(c);
                for (unsigned j = 0; j < terms; j++) cuzk_lc_add(a, r->var[idx[j]], &pow2[j]);
                cuzk_lc_add_var(b, CUZK_CS_ONE);
                cuzk_lc_add_var(c, wv);
                cuzk_cs_enforce(cs, "pack", a, b, c);
            }
            ring_push(r, wv, &v, false);
        } else { /* (x + y + k)·y' = z: a step with a general constant */
            size_t p = ring_back(r, sh >> 8), q = ring_back(r, sh >> 20), s = ring_back(r, sh >> 32);
            cuzk_fr k, t;
            cuzk_fr_set_u64(&k, (sh >> 40) | 1);
            cuzk_fr_add(&t, &r->val[p], &r->val[q]);
            cuzk_fr_add(&t, &t, &k);
            cuzk_fr_mul(&v, &t, &r->val[s]);
            cuzk_var zv = cuzk_cs_alloc(cs, "z", &v);
            if (skip) {
                cuzk_cs_enforce_skipped(cs);
            } else {
                cuzk_lc_clear(a), cuzk_lc_clear(b), cuzk_lc_clear(c);
                cuzk_lc_add_var(a, r->var[p]), cuzk_lc_add_var(a, r->var[q]);
                cuzk_lc_add(a, CUZK_CS_ONE, &k);
                cuzk_lc_add_var(b, r->var[s]);
                cuzk_lc_add_var(c, zv);
                cuzk_cs_enforce(cs, "affine-mul", a, b, c);
            }
            ring_push(r, zv, &v, false);
        }
    }
out:
    cuzk_lc_free(a), cuzk_lc_free(b), cuzk_lc_free(c);
    return cuzk_cs_error(cs);
}

/* ---- SHA-256 chain ---------------------------------------------------- */

static void chain_h0(uint8_t h[32], uint64_t seed)
{
    cuzk_rng rng;
    cuzk_rng_seed(&rng, seed);
    cuzk_rng_bytes(&rng, h, 32);
}

int cuzk_sha256_chain_public_inputs(cuzk_fr out[CUZK_SHA256_CHAIN_NUM_INPUTS],
                                    const cuzk_sha256_chain_spec *spec)
{
    if (!out || !spec || spec->length == 0) return CUZK_ERR_INVALID_ARG;
    uint8_t h0[32], h[32];
    chain_h0(h0, spec->witness_seed);
    memcpy(h, h0, 32);
    for (uint32_t i = 0; i < spec->length; i++) cuzk_sha256_hash(h, h, 32);
    bool bits[256];
    cuzk_bytes_to_bits(bits, h0, 32);
    cuzk_compute_multipacking(out, bits, 256);
    cuzk_bytes_to_bits(bits, h, 32);
    cuzk_compute_multipacking(out + 2, bits, 256);
    return CUZK_OK;
}

int cuzk_sha256_chain_synthesize(cuzk_cs *cs, const cuzk_sha256_chain_spec *spec)
{
    if (!cs || !spec || spec->length == 0 || cs->num_inputs != 1) return CUZK_ERR_INVALID_ARG;
    uint8_t h0[32];
    chain_h0(h0, spec->witness_seed);
    bool raw[256];
    cuzk_bytes_to_bits(raw, h0, 32);
    cuzk_bool cur[256], next[256];
    cuzk_cs_push_ns(cs, "h0");
    for (int i = 0; i < 256; i++) cur[i] = cuzk_bool_alloc(cs, raw[i]);
    cuzk_cs_pop_ns(cs);
    cuzk_pack_into_inputs(cs, cur, 256);
    for (uint32_t i = 0; i < spec->length && !cuzk_cs_error(cs); i++) {
        cuzk_cs_push_ns(cs, "step %u", i);
        cuzk_sha256(cs, cur, 256, next);
        cuzk_cs_pop_ns(cs);
        memcpy(cur, next, sizeof cur);
    }
    cuzk_pack_into_inputs(cs, cur, 256);
    return cuzk_cs_error(cs);
}
