/* Circuits for the PCE tests: every coefficient class (+1, -1, ±small,
 * boundary values 2^29 - 1 and 2^29, general, zero terms), long rows, and a
 * satisfiable variant (with an optional SHA-256 block) for proofs. Structure
 * and values are a function of the seed, so every constraint system sees the same. */
#ifndef TEST_PCE_CIRCUIT_H
#define TEST_PCE_CIRCUIT_H

#include <stdlib.h>

#include "cuzk/cs/cs.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/util/rng.h"

typedef struct pc_cfg {
    uint64_t seed;
    int rows;       /* random rows */
    int long_every; /* every n-th row is long (0: none) */
    bool satisfied; /* C is chosen so that A·B = C holds (proof circuits) */
    bool sha;       /* one SHA-256 block, output bits packed into inputs */
} pc_cfg;

/* A coefficient of a random class; big: magnitudes near 2^29. */
static void pc_coeff(cuzk_fr *c, cuzk_rng *r, bool big)
{
    uint64_t x = cuzk_rng_u64(r);
    uint64_t k = big ? (1ull << 29) - 1 - (x >> 40) % 8 : 2 + (x >> 20) % ((x & 64) ? 1000 : (1u << 29) - 2);
    switch (x % 9) {
    case 0: case 1: cuzk_fr_set_u64(c, 1); break;
    case 2: cuzk_fr_set_u64(c, 1), cuzk_fr_neg(c, c); break;
    case 3: cuzk_fr_set_u64(c, k); break;
    case 4: cuzk_fr_set_u64(c, k), cuzk_fr_neg(c, c); break;
    case 5: cuzk_fr_set_u64(c, (x & 128) ? (1u << 29) : (1u << 29) - 1); break; /* class boundary */
    case 6: cuzk_fr_set_u64(c, (x & 128) ? (1u << 29) : (1u << 29) - 1), cuzk_fr_neg(c, c); break;
    case 7: cuzk_fr_set_u64(c, 1ull << (x >> 58)), cuzk_fr_mul(c, c, c); break; /* powers of two up to 2^126 */
    default: cuzk_fr_random(c, r);
    }
    if (big && x % 9 < 3) cuzk_fr_set_u64(c, (1u << 29) - 1);
}

/* lc = sum of n random terms over vars (values in val); *v = its value. */
static void pc_lc(cuzk_lc *lc, cuzk_fr *v, cuzk_rng *r, const cuzk_var *vars, const cuzk_fr *val, size_t nv,
                  int n, bool big)
{
    cuzk_lc_clear(lc);
    *v = cuzk_fr_zero;
    for (int t = 0; t < n; t++) {
        size_t j = (size_t)(cuzk_rng_u64(r) % nv);
        cuzk_fr c, p;
        pc_coeff(&c, r, big);
        cuzk_lc_add(lc, vars[j], &c);
        cuzk_fr_mul(&p, &c, &val[j]);
        cuzk_fr_add(v, v, &p);
        if (cuzk_rng_u64(r) % 13 == 0) { /* a zero term: entry present, outside density */
            size_t z = (size_t)(cuzk_rng_u64(r) % nv);
            cuzk_lc_add(lc, vars[z], &c);
            cuzk_lc_sub(lc, vars[z], &c);
        }
    }
}

/* Synthesizes into cs (ONE allocated). Aux values are large random field
 * elements, so the lazy accumulators see full-size operands. */
static void pc_circuit(cuzk_cs *cs, const pc_cfg *cfg)
{
    cuzk_rng r;
    cuzk_rng_seed(&r, cfg->seed);
    size_t cap = 64 + 2 * (size_t)cfg->rows, nv = 0;
    cuzk_var *vars = malloc(cap * sizeof *vars);
    cuzk_fr *val = malloc(cap * sizeof *val);
    vars[nv] = CUZK_CS_ONE, val[nv++] = cuzk_fr_one;
    cuzk_lc a, b, c;
    cuzk_lc_init(&a), cuzk_lc_init(&b), cuzk_lc_init(&c);
    int nin = 1 + (int)(cuzk_rng_u64(&r) % 3);
    for (int i = 0; i < nin; i++) {
        cuzk_fr_random(&val[nv], &r);
        vars[nv] = cuzk_cs_alloc_input(cs, "in", &val[nv]);
        nv++;
    }
    for (int i = 0; i < 8; i++) { /* x_i, constrained by x_i * x_i = s_i */
        cuzk_fr_random(&val[nv], &r);
        vars[nv] = cuzk_cs_alloc(cs, "x", &val[nv]);
        cuzk_fr sq;
        cuzk_fr_sqr(&sq, &val[nv]);
        cuzk_var s = cuzk_cs_alloc(cs, "sq", &sq);
        cuzk_lc_clear(&a), cuzk_lc_add_var(&a, vars[nv]);
        cuzk_lc_clear(&c), cuzk_lc_add_var(&c, s);
        cuzk_cs_enforce(cs, "square", &a, &a, &c);
        nv++;
        vars[nv] = s, val[nv++] = sq;
    }
    for (int i = 0; i < cfg->rows; i++) {
        bool lng = cfg->long_every && i % cfg->long_every == 0;
        int na = lng ? 40 + (int)(cuzk_rng_u64(&r) % 40) : 1 + (int)(cuzk_rng_u64(&r) % 4);
        int nb = 1 + (int)(cuzk_rng_u64(&r) % 3);
        cuzk_fr va, vb, vw, k;
        pc_lc(&a, &va, &r, vars, val, nv, na, lng);
        pc_lc(&b, &vb, &r, vars, val, nv, nb, false);
        cuzk_fr_mul(&vw, &va, &vb);
        if (cfg->satisfied) {
            /* w = a·b / k, C = k·w (+ a zero term sometimes) */
            do pc_coeff(&k, &r, false);
            while (cuzk_fr_is_zero(&k));
            cuzk_fr ki;
            cuzk_fr_inv(&ki, &k);
            cuzk_fr_mul(&vw, &vw, &ki);
            vars[nv] = cuzk_cs_alloc(cs, "w", &vw);
            val[nv] = vw;
            cuzk_lc_clear(&c);
            cuzk_lc_add(&c, vars[nv], &k);
            nv++;
        } else {
            cuzk_fr vc;
            vars[nv] = cuzk_cs_alloc(cs, "w", &vw);
            val[nv++] = vw;
            pc_lc(&c, &vc, &r, vars, val, nv, 1 + (int)(cuzk_rng_u64(&r) % 5), false);
        }
        cuzk_cs_enforce(cs, "row", &a, &b, &c);
    }
    if (cfg->sha) {
        cuzk_bool in[512], out[256];
        for (int i = 0; i < 512; i++) in[i] = cuzk_bool_alloc(cs, cuzk_rng_u64(&r) & 1);
        cuzk_sha256_block_no_padding(cs, in, out);
        cuzk_pack_into_inputs(cs, out, 256);
    }
    cuzk_lc_free(&a), cuzk_lc_free(&b), cuzk_lc_free(&c);
    free(vars), free(val);
}

static cuzk_cs *pc_build(cuzk_cs_kind kind, const pc_cfg *cfg)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    if (!cs) return NULL;
    cuzk_cs_alloc_one(cs);
    pc_circuit(cs, cfg);
    if (cuzk_cs_finalize(cs) != 0) {
        cuzk_cs_free(cs);
        return NULL;
    }
    return cs;
}

#endif
