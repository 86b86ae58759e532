/* SHA-256 circuit, constraint-exact with bellpepper's gadgets/sha256.rs:
 * same message schedule, deferred additions for a and e, MultiEq batching
 * of the modular additions. */
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gadgets/gadgets.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* A value that is either concrete or a pending sum of operands. */
typedef struct maybe_u32 {
    bool deferred;
    size_t n;
    cuzk_u32 ops[10];
} maybe_u32;

static cuzk_u32 maybe_compute(cuzk_multieq *m, maybe_u32 *x, const char *ns, const cuzk_u32 *extra,
                              size_t nextra)
{
    if (!x->deferred) return x->ops[0];
    for (size_t k = 0; k < nextra; k++) x->ops[x->n++] = extra[k];
    cuzk_cs_push_ns(m->cs, "%s", ns);
    cuzk_u32 r = cuzk_u32_addmany(m, x->ops, x->n);
    cuzk_cs_pop_ns(m->cs);
    return r;
}

static cuzk_u32 addmany_ns(cuzk_multieq *m, const char *ns, const cuzk_u32 *ops, size_t n)
{
    cuzk_cs_push_ns(m->cs, "%s", ns);
    cuzk_u32 r = cuzk_u32_addmany(m, ops, n);
    cuzk_cs_pop_ns(m->cs);
    return r;
}

static cuzk_u32 xor_ns(cuzk_cs *cs, const char *ns, const cuzk_u32 *a, const cuzk_u32 *b)
{
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_u32 r = cuzk_u32_xor(cs, a, b);
    cuzk_cs_pop_ns(cs);
    return r;
}

void cuzk_sha256_compression(cuzk_cs *cs, const cuzk_bool in[512], const cuzk_u32 cur[8],
                             cuzk_u32 out[8])
{
    cuzk_u32 w[64];
    for (int i = 0; i < 16; i++) w[i] = cuzk_u32_from_bits_be(&in[32 * i]);
    cuzk_multieq m;
    cuzk_multieq_init(&m, cs);
    for (int i = 16; i < 64; i++) {
        cuzk_cs_push_ns(cs, "w extension %d", i);
        cuzk_u32 t1 = cuzk_u32_rotr(&w[i - 15], 7), t2 = cuzk_u32_rotr(&w[i - 15], 18);
        cuzk_u32 s0 = xor_ns(cs, "first xor for s0", &t1, &t2);
        t2 = cuzk_u32_shr(&w[i - 15], 3);
        s0 = xor_ns(cs, "second xor for s0", &s0, &t2);
        t1 = cuzk_u32_rotr(&w[i - 2], 17);
        t2 = cuzk_u32_rotr(&w[i - 2], 19);
        cuzk_u32 s1 = xor_ns(cs, "first xor for s1", &t1, &t2);
        t2 = cuzk_u32_shr(&w[i - 2], 10);
        s1 = xor_ns(cs, "second xor for s1", &s1, &t2);
        cuzk_u32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
        w[i] = addmany_ns(&m, "computation of w[i]", ops, 4);
        cuzk_cs_pop_ns(cs);
    }

    maybe_u32 a = {.deferred = false, .n = 1}, e = {.deferred = false, .n = 1};
    a.ops[0] = cur[0];
    e.ops[0] = cur[4];
    cuzk_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    for (int i = 0; i < 64; i++) {
        cuzk_cs_push_ns(cs, "compression round %d", i);
        cuzk_u32 new_e = maybe_compute(&m, &e, "deferred e computation", NULL, 0);
        cuzk_u32 t1 = cuzk_u32_rotr(&new_e, 6), t2 = cuzk_u32_rotr(&new_e, 11);
        cuzk_u32 s1 = xor_ns(cs, "first xor for s1", &t1, &t2);
        t2 = cuzk_u32_rotr(&new_e, 25);
        s1 = xor_ns(cs, "second xor for s1", &s1, &t2);
        cuzk_cs_push_ns(cs, "ch");
        cuzk_u32 ch = cuzk_u32_sha256_ch(cs, &new_e, &f, &g);
        cuzk_cs_pop_ns(cs);
        cuzk_u32 kc = cuzk_u32_constant(K[i]);

        cuzk_u32 new_a = maybe_compute(&m, &a, "deferred a computation", NULL, 0);
        t1 = cuzk_u32_rotr(&new_a, 2);
        t2 = cuzk_u32_rotr(&new_a, 13);
        cuzk_u32 s0 = xor_ns(cs, "first xor for s0", &t1, &t2);
        t2 = cuzk_u32_rotr(&new_a, 22);
        s0 = xor_ns(cs, "second xor for s0", &s0, &t2);
        cuzk_cs_push_ns(cs, "maj");
        cuzk_u32 maj = cuzk_u32_sha256_maj(cs, &new_a, &b, &c);
        cuzk_cs_pop_ns(cs);

        /* temp1 = [h, s1, ch, K, w]; e := d + temp1; a := temp1 + [s0, maj] */
        cuzk_u32 temp1[5] = {h, s1, ch, kc, w[i]};
        h = g;
        g = f;
        f = new_e;
        e.deferred = true;
        e.n = 6;
        memcpy(e.ops, temp1, sizeof temp1);
        e.ops[5] = d;
        d = c;
        c = b;
        b = new_a;
        a.deferred = true;
        a.n = 7;
        memcpy(a.ops, temp1, sizeof temp1);
        a.ops[5] = s0;
        a.ops[6] = maj;
        cuzk_cs_pop_ns(cs);
    }
    out[0] = maybe_compute(&m, &a, "deferred h0 computation", &cur[0], 1);
    cuzk_u32 p2[2];
    p2[0] = cur[1], p2[1] = b;
    out[1] = addmany_ns(&m, "new h1", p2, 2);
    p2[0] = cur[2], p2[1] = c;
    out[2] = addmany_ns(&m, "new h2", p2, 2);
    p2[0] = cur[3], p2[1] = d;
    out[3] = addmany_ns(&m, "new h3", p2, 2);
    out[4] = maybe_compute(&m, &e, "deferred h4 computation", &cur[4], 1);
    p2[0] = cur[5], p2[1] = f;
    out[5] = addmany_ns(&m, "new h5", p2, 2);
    p2[0] = cur[6], p2[1] = g;
    out[6] = addmany_ns(&m, "new h6", p2, 2);
    p2[0] = cur[7], p2[1] = h;
    out[7] = addmany_ns(&m, "new h7", p2, 2);
    cuzk_multieq_finish(&m);
}

void cuzk_sha256_block_no_padding(cuzk_cs *cs, const cuzk_bool in[512], cuzk_bool out[256])
{
    cuzk_u32 iv[8], h[8];
    for (int i = 0; i < 8; i++) iv[i] = cuzk_u32_constant(IV[i]);
    cuzk_sha256_compression(cs, in, iv, h);
    for (int i = 0; i < 8; i++) cuzk_u32_into_bits_be(&h[i], &out[32 * i]);
}

void cuzk_sha256(cuzk_cs *cs, const cuzk_bool *in, size_t nbits, cuzk_bool out[256])
{
    if (nbits % 8) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return;
    }
    cuzk_u32 cur[8], nxt[8];
    for (int i = 0; i < 8; i++) cur[i] = cuzk_u32_constant(IV[i]);
    /* padded length: nbits + 1 + zeros + 64, a multiple of 512 */
    size_t total = nbits + 1;
    while ((total + 64) % 512) total++;
    total += 64;
    cuzk_bool blk[512];
    for (size_t base = 0, bi = 0; base < total; base += 512, bi++) {
        for (size_t k = 0; k < 512; k++) {
            size_t pos = base + k;
            if (pos < nbits) blk[k] = in[pos];
            else if (pos == nbits) blk[k] = cuzk_bool_const(true);
            else if (pos < total - 64) blk[k] = cuzk_bool_const(false);
            else blk[k] = cuzk_bool_const(((uint64_t)nbits >> (63 - (pos - (total - 64)))) & 1);
        }
        cuzk_cs_push_ns(cs, "block %zu", bi);
        cuzk_sha256_compression(cs, blk, cur, nxt);
        cuzk_cs_pop_ns(cs);
        memcpy(cur, nxt, sizeof cur);
    }
    for (int i = 0; i < 8; i++) cuzk_u32_into_bits_be(&cur[i], &out[32 * i]);
}
