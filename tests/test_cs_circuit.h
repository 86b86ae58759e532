/* A random circuit for constraint-system parity tests: structure and values are a
 * deterministic function of the seed, so every constraint system sees the same one. */
#ifndef TEST_CS_CIRCUIT_H
#define TEST_CS_CIRCUIT_H

#include "cuzk/cs/cs.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/util/rng.h"

#define RC_POOL 24

/* Synthesizes into cs (ONE already allocated). with_sha adds one SHA-256 block. */
static void rc_circuit(cuzk_cs *cs, uint64_t seed, int steps, bool with_sha)
{
    cuzk_rng r;
    cuzk_rng_seed(&r, seed);
    cuzk_bool bits[RC_POOL];
    cuzk_num nums[RC_POOL];
    cuzk_u32 words[8];
    for (int i = 0; i < RC_POOL; i++) {
        cuzk_cs_push_ns(cs, "bit %d", i);
        uint64_t x = cuzk_rng_u64(&r);
        bits[i] = (x & 6) == 0 ? cuzk_bool_const(x & 1) : cuzk_bool_alloc(cs, x & 1);
        if ((x & 24) == 0) bits[i] = cuzk_bool_not(&bits[i]);
        cuzk_cs_pop_ns(cs);
        cuzk_fr v;
        cuzk_fr_random(&v, &r);
        nums[i] = (x & 0x300) == 0 ? cuzk_num_alloc_input(cs, &v) : cuzk_num_alloc(cs, &v);
    }
    for (int i = 0; i < 8; i++) {
        cuzk_cs_push_ns(cs, "word %d", i);
        uint32_t v = (uint32_t)cuzk_rng_u64(&r);
        words[i] = (i == 0) ? cuzk_u32_constant(v) : cuzk_u32_alloc(cs, v);
        cuzk_cs_pop_ns(cs);
    }
    for (int s = 0; s < steps; s++) {
        uint64_t x = cuzk_rng_u64(&r);
        int i = (int)((x >> 8) % RC_POOL), j = (int)((x >> 16) % RC_POOL), k = (int)((x >> 24) % RC_POOL);
        int wi = (int)((x >> 32) % 8), wj = (int)((x >> 40) % 8), wk = (int)((x >> 48) % 8);
        cuzk_cs_push_ns(cs, "step %d", s);
        switch (x % 19) {
        case 0: bits[i] = cuzk_bool_xor(cs, &bits[j], &bits[k]); break;
        case 1: bits[i] = cuzk_bool_and(cs, &bits[j], &bits[k]); break;
        case 2: bits[i] = cuzk_bool_or(cs, &bits[j], &bits[k]); break;
        case 3: bits[i] = cuzk_bool_not(&bits[j]); break;
        case 4: bits[i] = cuzk_bool_sha256_ch(cs, &bits[i], &bits[j], &bits[k]); break;
        case 5: bits[i] = cuzk_bool_sha256_maj(cs, &bits[i], &bits[j], &bits[k]); break;
        case 6:
            if (cuzk_bool_value(&bits[i]) == cuzk_bool_value(&bits[j]))
                cuzk_bool_enforce_equal(cs, &bits[i], &bits[j]);
            break;
        case 7: nums[i] = cuzk_num_mul(cs, &nums[j], &nums[k]); break;
        case 8: nums[i] = cuzk_num_square(cs, &nums[j]); break;
        case 9: nums[i] = cuzk_num_add(cs, &nums[j], &nums[k]); break;
        case 10: cuzk_num_inputize(cs, &nums[j]); break;
        case 11: cuzk_num_conditionally_reverse(cs, &nums[j], &nums[k], &bits[i], &nums[j], &nums[k]); break;
        case 12: {
            cuzk_bool out[CUZK_FR_NUM_BITS];
            if (x & (1ull << 60)) cuzk_num_to_bits_le_strict(cs, &nums[j], out);
            else cuzk_num_to_bits_le(cs, &nums[j], out);
            bits[i] = out[x % 200];
            break;
        }
        case 13: words[wi] = cuzk_u32_xor(cs, &words[wj], &words[wk]); break;
        case 14: words[wi] = cuzk_u32_rotr(&words[wj], (unsigned)(x >> 56)); break;
        case 15: words[wi] = cuzk_u32_shr(&words[wj], (unsigned)(x >> 56)); break;
        case 16: {
            cuzk_multieq m;
            cuzk_multieq_init(&m, cs);
            size_t n = 2 + (x >> 56) % 4;
            cuzk_u32 ops[6];
            for (size_t t = 0; t < n; t++) ops[t] = words[(wj + t) % 8];
            words[wi] = cuzk_u32_addmany(&m, ops, n);
            ops[0] = words[wi];
            ops[1] = words[wk];
            words[wk] = cuzk_u32_addmany(&m, ops, 2);
            cuzk_multieq_finish(&m);
            break;
        }
        case 17: words[wi] = cuzk_u32_sha256_maj(cs, &words[wi], &words[wj], &words[wk]); break;
        case 18: cuzk_pack_into_inputs(cs, words[wi].bits, 32 - (x >> 59)); break;
        }
        cuzk_cs_pop_ns(cs);
    }
    if (with_sha) {
        cuzk_bool in[512], out[256];
        for (int i = 0; i < 16; i++) cuzk_u32_into_bits_be(&words[i % 8], &in[32 * i]);
        in[5] = bits[0];
        cuzk_cs_push_ns(cs, "sha256");
        cuzk_sha256_block_no_padding(cs, in, out);
        cuzk_cs_pop_ns(cs);
        cuzk_pack_into_inputs(cs, out, 256);
    }
}
#endif
