/* The SDR parent graph: DRG bucket sampling (ChaCha8) and the Feistel expander, per node. */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "cuzk/util/blake2b.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/util/hex.h"
#include "filecoin_internal.h"

/* derive_porep_domain_seed: SHA-256(tag || porep_id). */
static void sha256_dst(uint8_t out[32], const char *dst, const uint8_t porep_id[32]) {
    const void *p[2] = {dst, porep_id};
    const size_t l[2] = {strlen(dst), 32};
    cuzk_sha256_hash_parts(out, p, l, 2);
}

int cuzk_fil_graph_init(cuzk_fil_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                        cuzk_fil_api_version v) {
    memset(g, 0, sizeof *g);
    if (nodes < 2 || nodes > UINT32_MAX || nodes * (CUZK_FIL_DRG_DEGREE - 1) > (1ull << 54))
        return -1;
    g->nodes = nodes;
    g->api_version = v;
    uint8_t h[32];
    sha256_dst(h, "Filecoin_DRSample", porep_id);
    memcpy(g->drg_seed, h, 28);
    sha256_dst(h, "Filecoin_Feistel", porep_id);
    for (int i = 0; i < 4; i++) g->feistel_keys[i] = fil_rd_le64(h + 8 * i);
    /* feistel::precompute over nodes * EXP_DEGREE elements: smallest power of 4 >= n (>= 4). */
    uint64_t n = nodes * CUZK_FIL_EXP_DEGREE, pow4 = 4, log4 = 1;
    while (pow4 < n) pow4 *= 4, log4++;
    g->half_bits = log4;
    g->right_mask = (1ull << log4) - 1;
    g->left_mask = g->right_mask << log4;
    return 0;
}

void cuzk_fil_graph_drg_parents(const cuzk_fil_graph *g, uint32_t node,
                                uint32_t out[CUZK_FIL_DRG_DEGREE]) {
    const uint64_t m_prime = CUZK_FIL_DRG_DEGREE - 1;
    if (node < 2) {
        memset(out, 0, CUZK_FIL_DRG_DEGREE * sizeof *out);
        return;
    }
    uint8_t seed[32];
    memcpy(seed, g->drg_seed, 28);
    for (int i = 0; i < 4; i++) seed[28 + i] = (uint8_t)(node >> (8 * i));
    cuzk_fil_chacha8_rng rng;
    cuzk_fil_chacha8_rng_init(&rng, seed);
    uint64_t meta = (uint64_t)node * m_prime;
    /* ceil(log2(meta)) as rust computes it through f64; equal to the integer form below while
     * meta < 2^45 (graph_init caps nodes at 2^32, so meta < 2^35). */
    uint64_t n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1);
    /* V1_0_0 fills parents[0..5) and puts node-1 at [5]; later versions put node-1 at [0]. */
    uint32_t *other = g->api_version == CUZK_FIL_API_V1_0_0 ? out : out + 1;
    for (uint64_t k = 0; k < m_prime; k++) {
        uint64_t bucket = cuzk_fil_chacha8_next_u64(&rng) % n_buckets + 1;
        uint64_t largest = bucket >= 63 ? meta : (meta < (1ull << bucket) ? meta : 1ull << bucket);
        uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
        uint64_t dist = smallest + cuzk_fil_chacha8_next_u64(&rng) % (largest - smallest + 1);
        uint32_t p = (uint32_t)((meta - dist) / m_prime);
        other[k] = p == node ? node - 1 : p;
    }
    out[g->api_version == CUZK_FIL_API_V1_0_0 ? m_prime : 0] = node - 1;
}

/* Blake2b-512 of one 16-byte message: the one-block path of cuzk_blake2b (the expander calls
 * this ~6 times per parent; OpenSSL's EVP path costs more in dispatch than the compression). */
void cuzk_fil_blake2b512_16(uint8_t out[64], const uint8_t in[16]) { cuzk_blake2b(out, 64, in, 16, NULL, 0); }

/* Round function: Blake2b-512 of (right BE u64 || key BE u64), first 8 bytes BE, masked. */
static uint64_t feistel_f(uint64_t right, uint64_t key, uint64_t mask) {
    uint8_t d[16], h[64];
    for (int i = 0; i < 8; i++) {
        d[i] = (uint8_t)(right >> (56 - 8 * i));
        d[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    cuzk_fil_blake2b512_16(h, d);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) r = r << 8 | h[i];
    return r & mask;
}

static uint64_t encode(const cuzk_fil_graph *g, uint64_t index) {
    uint64_t left = (index & g->left_mask) >> g->half_bits, right = index & g->right_mask;
    for (int i = 0; i < 3; i++) {
        uint64_t l = right, r = left ^ feistel_f(right, g->feistel_keys[i], g->right_mask);
        left = l, right = r;
    }
    return left << g->half_bits | right;
}

static uint64_t decode(const cuzk_fil_graph *g, uint64_t index) {
    uint64_t left = (index & g->left_mask) >> g->half_bits, right = index & g->right_mask;
    for (int i = 2; i >= 0; i--) {
        uint64_t l = right ^ feistel_f(left, g->feistel_keys[i], g->right_mask), r = left;
        left = l, right = r;
    }
    return left << g->half_bits | right;
}

uint64_t cuzk_fil_feistel_permute(const cuzk_fil_graph *g, uint64_t n, uint64_t index) {
    uint64_t u = encode(g, index);
    while (u >= n) u = encode(g, u); /* cycle walking */
    return u;
}

uint64_t cuzk_fil_feistel_invert(const cuzk_fil_graph *g, uint64_t n, uint64_t index) {
    uint64_t u = decode(g, index);
    while (u >= n) u = decode(g, u);
    return u;
}

void cuzk_fil_graph_exp_parents(const cuzk_fil_graph *g, uint32_t node,
                                uint32_t out[CUZK_FIL_EXP_DEGREE]) {
    uint64_t n = g->nodes * CUZK_FIL_EXP_DEGREE;
    for (unsigned i = 0; i < CUZK_FIL_EXP_DEGREE; i++) {
        uint64_t t = cuzk_fil_feistel_permute(g, n, (uint64_t)node * CUZK_FIL_EXP_DEGREE + i);
        /* V1_0_0 casts to u32 before dividing (the "pathological" legacy graph). */
        out[i] = g->api_version == CUZK_FIL_API_V1_0_0 ? (uint32_t)t / CUZK_FIL_EXP_DEGREE
                                                       : (uint32_t)(t / CUZK_FIL_EXP_DEGREE);
    }
}

void cuzk_fil_graph_parents(const cuzk_fil_graph *g, uint32_t node, uint32_t out[CUZK_FIL_DEGREE]) {
    cuzk_fil_graph_drg_parents(g, node, out);
    cuzk_fil_graph_exp_parents(g, node, out + CUZK_FIL_DRG_DEGREE);
}

size_t cuzk_fil_parent_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], const cuzk_fil_graph *g,
                                uint32_t entries) {
    char ident[200];
    int n = snprintf(ident, sizeof ident,
                     "poseidon_hasher" /* H::name(), hashed first */
                     "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
                     "drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }",
                     (unsigned long long)g->nodes);
    if (n <= 0 || (size_t)n >= sizeof ident) return 0;
    uint8_t buf[256], h[32];
    memcpy(buf, ident, (size_t)n);
    size_t len = (size_t)n;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++) buf[len++] = (uint8_t)(g->feistel_keys[k] >> (8 * i));
    for (int i = 0; i < 4; i++) buf[len++] = (uint8_t)(entries >> (8 * i));
    if (cuzk_sha256_hash(h, buf, len)) return 0;
    size_t p = (size_t)snprintf(out, CUZK_FIL_CACHE_ID_MAX, "v28-sdr-parent-");
    cuzk_hex_encode(out + p, h, 32);
    return p + 64;
}

int cuzk_fil_parent_cache_digest(uint8_t out[32], const cuzk_fil_graph *g) {
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned len = 0;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    for (uint64_t v = 0; ok && v < g->nodes; v++) {
        uint32_t p[CUZK_FIL_DEGREE];
        uint8_t b[4 * CUZK_FIL_DEGREE];
        cuzk_fil_graph_parents(g, (uint32_t)v, p);
        for (int i = 0; i < CUZK_FIL_DEGREE; i++)
            for (int j = 0; j < 4; j++) b[4 * i + j] = (uint8_t)(p[i] >> (8 * j));
        ok = EVP_DigestUpdate(c, b, sizeof b);
    }
    ok = ok && EVP_DigestFinal_ex(c, out, &len);
    EVP_MD_CTX_free(c);
    return ok ? 0 : -1;
}
