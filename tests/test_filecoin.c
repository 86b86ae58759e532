/*
 * Filecoin public-input derivations. Pinned to upstream published values: parent-cache names and
 * digests (storage-proofs-porep/parent_cache.json, 2 KiB here; 8 MiB in test_filecoin_cache),
 * parameter file names (parameters.json), identifier strings (rust-fil-proofs
 * test_public_params_identifier). Oracles: OpenSSL ChaCha20 for the block function, GMP for the
 * challenge reductions. Structure: DRG / expander properties from rust-fil-proofs' own tests.
 */
#include <stdio.h>
#include <string.h>

#include <gmp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "cuzk/filecoin/filecoin.h"
#include "testutil.h"

static void hex32(char out[65], const uint8_t *b) { tu_hex(out, b, 32); }

/* ---- ChaCha ---------------------------------------------------------------------------------- */
static void test_chacha(cuzk_rng *rng) {
    /* The block function at 20 rounds against OpenSSL's ChaCha20 (IV = counter32 || nonce96,
     * which is exactly state words 12..15 = our 64-bit counter || 64-bit stream). */
    for (int t = 0; t < 50; t++) {
        uint8_t key[32], iv[16], zero[64] = {0}, ks[64];
        cuzk_rng_bytes(rng, key, 32);
        cuzk_rng_bytes(rng, iv, 16);
        iv[4] = iv[5] = iv[6] = iv[7] = 0; /* keep counter < 2^32: OpenSSL carries differently */
        EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
        int len = 0;
        CHECK(EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv) == 1);
        CHECK(EVP_EncryptUpdate(c, ks, &len, zero, 64) == 1 && len == 64);
        EVP_CIPHER_CTX_free(c);
        uint64_t ctr = 0, stream = 0;
        for (int i = 7; i >= 0; i--) ctr = ctr << 8 | iv[i], stream = stream << 8 | iv[8 + i];
        uint32_t w[16];
        cuzk_fil_chacha_block(w, key, ctr, stream, 20);
        uint8_t mine[64];
        for (int i = 0; i < 64; i++) mine[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
        CHECK(memcmp(mine, ks, 64) == 0);
    }
    /* Blake2b-512 of 16 bytes (the Feistel hash) against OpenSSL. */
    for (int t = 0; t < 50; t++) {
        uint8_t in[16], mine[64], ref[64];
        unsigned len = 0;
        cuzk_rng_bytes(rng, in, 16);
        cuzk_fil_blake2b512_16(mine, in);
        CHECK(EVP_Digest(in, 16, ref, &len, EVP_blake2b512(), NULL) == 1 && len == 64);
        CHECK(memcmp(mine, ref, 64) == 0);
    }
    /* The ChaCha8 RNG stream: consecutive blocks from counter 0, u64 = low word first, and the
     * BlockRng straddle at index 63. */
    uint8_t seed[32];
    cuzk_rng_bytes(rng, seed, 32);
    uint32_t words[128];
    for (int b = 0; b < 8; b++) cuzk_fil_chacha_block(words + 16 * b, seed, (uint64_t)b, 0, 8);
    cuzk_fil_chacha8_rng r;
    cuzk_fil_chacha8_rng_init(&r, seed);
    CHECK(cuzk_fil_chacha8_next_u32(&r) == words[0]);
    uint64_t v = cuzk_fil_chacha8_next_u64(&r); /* words 1, 2 */
    CHECK(v == ((uint64_t)words[2] << 32 | words[1]));
    for (int i = 3; i < 63; i++) CHECK(cuzk_fil_chacha8_next_u32(&r) == words[i]);
    v = cuzk_fil_chacha8_next_u64(&r); /* word 63 then word 64 of the next refill */
    CHECK(v == ((uint64_t)words[64] << 32 | words[63]));
    CHECK(cuzk_fil_chacha8_next_u32(&r) == words[65]);
}

/* ---- registry and names ---------------------------------------------------------------------- */
/* From filecoin-proofs parameters.json (published ceremony files, .params names). */
static const char *const upstream_params[] = {
    "empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c",
    "empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63",
    "empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194",
    "empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
    "empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
    "empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
    "empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
    "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c",
    "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
    "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
    "stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
    "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
    "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
};
#define N_UPSTREAM (sizeof upstream_params / sizeof upstream_params[0])

static int is_upstream(const char *cid) {
    for (size_t i = 0; i < N_UPSTREAM; i++)
        if (strcmp(cid, upstream_params[i]) == 0) return (int)i;
    return -1;
}

static void test_registry(void) {
    /* ids and names as filecoin-proofs-api registers them */
    static const struct { uint64_t id; const char *name; uint64_t size; int api; } seal[] = {
        {0, "StackedDrg2KiBV1", 2048, 0},
        {3, "StackedDrg32GiBV1", 34359738368ull, 0},
        {5, "StackedDrg2KiBV1_1", 2048, 1},
        {8, "StackedDrg32GiBV1_1", 34359738368ull, 1},
        {9, "StackedDrg64GiBV1_1", 68719476736ull, 1},
        {13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 34359738368ull, 2},
        {18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 34359738368ull, 2},
    };
    for (size_t i = 0; i < sizeof seal / sizeof seal[0]; i++) {
        const cuzk_fil_seal_proof *p = cuzk_fil_seal_proof_by_name(seal[i].name);
        CHECK_MSG(p && p->id == seal[i].id && p->sector_size == seal[i].size &&
                      (int)p->api_version == seal[i].api && cuzk_fil_seal_proof_get(p->id) == p,
                  "%s", seal[i].name);
    }
    CHECK(cuzk_fil_seal_proof_get(20) == NULL && cuzk_fil_seal_proof_by_name("StackedDrg") == NULL);
    const cuzk_fil_seal_proof *p32 = cuzk_fil_seal_proof_get(8);
    CHECK(p32->partitions == 10 && p32->layers == 11 && p32->challenges_per_partition == 18);
    const cuzk_fil_seal_proof *ni = cuzk_fil_seal_proof_get(18);
    CHECK(ni->partitions == 126 && ni->challenges_per_partition == 18 &&
          ni->feature == CUZK_FIL_FEAT_NON_INTERACTIVE);
    CHECK(cuzk_fil_seal_proof_get(15)->partitions == 13 &&
          cuzk_fil_seal_proof_get(15)->challenges_per_partition == 2);
    CHECK(cuzk_fil_api_supports(CUZK_FIL_API_V1_2_0, CUZK_FIL_FEAT_SYNTHETIC));
    CHECK(!cuzk_fil_api_supports(CUZK_FIL_API_V1_1_0, CUZK_FIL_FEAT_NON_INTERACTIVE));
    const cuzk_fil_post_proof *w = cuzk_fil_post_proof_by_name("StackedDrgWindow32GiBV1_2");
    CHECK(w && w->id == 13 && w->api_version == CUZK_FIL_API_V1_2_0 && w->sector_count == 2349);
    CHECK(cuzk_fil_post_proof_by_name("StackedDrgWinning2KiBV1")->id == 0);

    /* porep_id: id u64 LE || nonce u64 LE || zeros */
    uint8_t pid[32], want[32] = {0};
    cuzk_fil_porep_id(pid, 8, 0x0102030405060708ull);
    want[0] = 8;
    for (int i = 0; i < 8; i++) want[8 + i] = (uint8_t)(8 - i);
    CHECK(memcmp(pid, want, 32) == 0);

    /* identifier strings pinned by rust-fil-proofs test_public_params_identifier */
    char id[CUZK_FIL_IDENTIFIER_MAX];
    CHECK(cuzk_fil_porep_identifier(id, sizeof id, 34359738368ull, 11, 18) > 0);
    CHECK(strcmp(id, "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 1073741824; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-0 }") == 0);
    CHECK(cuzk_fil_porep_identifier(id, sizeof id, 68719476736ull, 11, 18) > 0);
    CHECK(strcmp(id, "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 2147483648; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-2 }") == 0);
    CHECK(cuzk_fil_porep_identifier(id, 20, 34359738368ull, 11, 18) == 0); /* too small */
    CHECK(cuzk_fil_porep_identifier(id, sizeof id, 12345, 2, 2) == 0);    /* unknown size */

    /* Every published .params file is named by some registered proof, and every registered
     * proof whose size has a published file maps onto one of them. */
    int hit[N_UPSTREAM] = {0};
    char cid[CUZK_FIL_CACHE_ID_MAX];
    for (uint64_t i = 0; i < 20; i++) {
        CHECK(cuzk_fil_porep_cache_id(cid, i) > 0);
        int k = is_upstream(cid);
        CHECK_MSG(k >= 0, "seal proof %llu: %s", (unsigned long long)i, cid);
        if (k >= 0) hit[k] = 1;
    }
    for (uint64_t i = 0; i < 15; i++) {
        CHECK(cuzk_fil_post_cache_id(cid, i) > 0);
        int k = is_upstream(cid);
        CHECK_MSG(k >= 0, "post proof %llu: %s", (unsigned long long)i, cid);
        if (k >= 0) hit[k] = 1;
    }
    for (uint64_t i = 0; i < 5; i++)
        for (int pos = 0; pos < 2; pos++) {
            CHECK(cuzk_fil_update_cache_id(cid, i, pos) > 0);
            int k = is_upstream(cid);
            /* the poseidon update circuit is published only for 32 and 64 GiB */
            CHECK_MSG((k >= 0) == (!pos || i >= 3), "update %llu/%d: %s", (unsigned long long)i, pos, cid);
            if (k >= 0) hit[k] = 1;
        }
    for (size_t k = 0; k < N_UPSTREAM; k++) CHECK_MSG(hit[k], "unmatched %s", upstream_params[k]);
    /* the two names the issue quotes */
    cuzk_fil_porep_cache_id(cid, 0);
    CHECK(strstr(cid, "-032d3138d22506ec") != NULL);
    cuzk_fil_porep_cache_id(cid, 8);
    CHECK(strstr(cid, "-82a357d2f2ca81dc") != NULL);
    char fname[256];
    CHECK(cuzk_fil_param_file_name(fname, sizeof fname, cid, ".vk") > 0);
    CHECK(strncmp(fname, "v28-stacked-proof-of-replication-", 33) == 0 &&
          strcmp(fname + strlen(fname) - 3, ".vk") == 0);
    CHECK(cuzk_fil_param_file_name(fname, 10, cid, ".vk") == 0);
}

/* ---- parent cache (2 KiB, pinned to parent_cache.json) ---------------------------------------- */
static void test_parent_cache_2k(void) {
    static const struct { uint64_t proof; const char *name, *digest; } kat[] = {
        {0, "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
         "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
        {5, "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
         "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    };
    for (int i = 0; i < 2; i++) {
        const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(kat[i].proof);
        uint8_t pid[32], d[32];
        char cid[CUZK_FIL_CACHE_ID_MAX], hx[65];
        cuzk_fil_graph g;
        cuzk_fil_porep_id(pid, sp->id, 0);
        CHECK(cuzk_fil_graph_init(&g, sp->sector_size / 32, pid, sp->api_version) == 0);
        CHECK(cuzk_fil_parent_cache_id(cid, &g, (uint32_t)g.nodes) > 0);
        CHECK_MSG(strcmp(cid, kat[i].name) == 0, "%s", cid);
        CHECK(cuzk_fil_parent_cache_digest(d, &g) == 0);
        hex32(hx, d);
        CHECK_MSG(strcmp(hx, kat[i].digest) == 0, "%s digest %s", sp->name, hx);
        /* tamper: another porep_id (nonce 1) changes the digest */
        cuzk_fil_porep_id(pid, sp->id, 1);
        cuzk_fil_graph_init(&g, sp->sector_size / 32, pid, sp->api_version);
        cuzk_fil_parent_cache_digest(d, &g);
        hex32(hx, d);
        CHECK(strcmp(hx, kat[i].digest) != 0);
    }
}

/* ---- graph structure ------------------------------------------------------------------------- */
static void test_graph_structure(cuzk_rng *rng) {
    uint8_t pid[32];
    cuzk_rng_bytes(rng, pid, 32);
    static const uint64_t sizes[] = {4, 16, 256, 2048, 1ull << 30, 1ull << 31};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint64_t n = sizes[s];
        cuzk_fil_graph g0, g1, g2;
        CHECK(cuzk_fil_graph_init(&g0, n, pid, CUZK_FIL_API_V1_0_0) == 0);
        CHECK(cuzk_fil_graph_init(&g1, n, pid, CUZK_FIL_API_V1_1_0) == 0);
        CHECK(cuzk_fil_graph_init(&g2, n, pid, CUZK_FIL_API_V1_2_0) == 0);
        uint32_t z[6];
        cuzk_fil_graph_drg_parents(&g1, 0, z);
        CHECK(z[0] == 0 && z[5] == 0);
        cuzk_fil_graph_drg_parents(&g1, 1, z);
        CHECK(z[0] == 0 && z[5] == 0);
        for (int t = 0; t < 200; t++) {
            uint32_t v = n <= 2048 && (uint64_t)t + 2 < n ? (uint32_t)(t + 2)
                                                         : (uint32_t)(2 + cuzk_rng_u64(rng) % (n - 2));
            if (t == 0) v = (uint32_t)(n - 1);
            uint32_t a[14], b[14], c[14], a2[14];
            cuzk_fil_graph_parents(&g0, v, a);
            cuzk_fil_graph_parents(&g1, v, b);
            cuzk_fil_graph_parents(&g2, v, c);
            cuzk_fil_graph_parents(&g0, v, a2);
            CHECK(memcmp(a, a2, sizeof a) == 0); /* deterministic */
            CHECK(a[5] == v - 1 && b[0] == v - 1);
            /* same porep_id: v1.1 is v1.0 with the predecessor moved to the front */
            CHECK(memcmp(a, b + 1, 5 * sizeof *a) == 0);
            CHECK(memcmp(b, c, sizeof b) == 0); /* v1.1 == v1.2 */
            for (int i = 0; i < 6; i++) CHECK_MSG(a[i] < v, "node %u parent %u", v, a[i]);
            for (int i = 6; i < 14; i++) CHECK(b[i] < n && a[i] < n);
            if (n <= (1u << 29)) CHECK(memcmp(a + 6, b + 6, 8 * sizeof *a) == 0);
        }
    }
    /* Feistel: a permutation of [0, n) with its inverse, for n that are and aren't powers of 4 */
    cuzk_fil_graph g;
    cuzk_fil_graph_init(&g, 2, pid, CUZK_FIL_API_V1_1_0);
    static const uint64_t ns[] = {5, 6, 8, 12, 17, 256, 1000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint64_t n = ns[k], pow4 = 4, log4 = 1;
        while (pow4 < n) pow4 *= 4, log4++;
        g.half_bits = log4, g.right_mask = (1ull << log4) - 1, g.left_mask = g.right_mask << log4;
        unsigned char seen[1000] = {0};
        int ok = 1;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t p = cuzk_fil_feistel_permute(&g, n, i);
            ok &= p < n && !seen[p] && cuzk_fil_feistel_invert(&g, n, p) == i;
            if (p < n) seen[p] = 1;
        }
        CHECK_MSG(ok, "feistel n=%llu", (unsigned long long)n);
    }
    /* Legacy pathology (rust-fil-proofs test_graph_distribution_pathology): v1.0 expander
     * parents never reach the second half of a 32/64 GiB layer; v1.1 ones do, early. */
    static const struct { uint8_t id; uint64_t nodes; cuzk_fil_api_version v; int patho; } pt[] = {
        {3, 1ull << 30, CUZK_FIL_API_V1_0_0, 1}, {4, 1ull << 31, CUZK_FIL_API_V1_0_0, 1},
        {8, 1ull << 30, CUZK_FIL_API_V1_1_0, 0}, {9, 1ull << 31, CUZK_FIL_API_V1_2_0, 0}};
    for (int k = 0; k < 4; k++) {
        uint8_t p[32] = {pt[k].id};
        cuzk_fil_graph_init(&g, pt[k].nodes, p, pt[k].v);
        int large = 0;
        for (uint32_t v = 0; v < (pt[k].patho ? 300u : 1000u) && !large; v++) {
            uint32_t e[8];
            cuzk_fil_graph_exp_parents(&g, v, e);
            for (int i = 0; i < 8; i++) large |= e[i] >= pt[k].nodes / 2;
        }
        CHECK_MSG(large == !pt[k].patho, "pathology case %d", k);
    }
    /* distribution of DRG parents: bucket sampling favours near parents; over many nodes of a
     * 1 GiB-size graph about half of the non-predecessor parents lie within distance
     * 2^(log2(v)/2)-ish of v and some reach far back (< v/2). */
    cuzk_fil_graph_init(&g, 1ull << 25, pid, CUZK_FIL_API_V1_1_0);
    unsigned near = 0, far = 0, total = 0;
    for (int t = 0; t < 2000; t++) {
        uint32_t v = (uint32_t)((1ull << 24) + cuzk_rng_u64(rng) % (1ull << 24)), d[6];
        cuzk_fil_graph_drg_parents(&g, v, d);
        for (int i = 1; i < 6; i++, total++) {
            near += v - d[i] <= 1024;
            far += d[i] < v / 2;
        }
    }
    /* buckets are uniform over ~27 sizes: P(distance <= 1024) ~ 10/27, P(< v/2) ~ 1/27 */
    CHECK_MSG(near > total / 5 && near < total / 2, "near %u/%u", near, total);
    CHECK_MSG(far > total / 100 && far < total / 10, "far %u/%u", far, total);
    /* bad graph sizes */
    CHECK(cuzk_fil_graph_init(&g, 1, pid, CUZK_FIL_API_V1_1_0) != 0);
    CHECK(cuzk_fil_graph_init(&g, 1ull << 32, pid, CUZK_FIL_API_V1_1_0) != 0);
}

/* ---- replica id and challenges (oracle: one-shot SHA256 + GMP) -------------------------------- */
static uint64_t gmp_challenge(const uint8_t h[32], uint64_t nodes) {
    mpz_t z;
    mpz_init(z);
    mpz_import(z, 32, -1, 1, 0, 0, h); /* little-endian bytes */
    uint64_t r = mpz_fdiv_ui(z, (unsigned long)(nodes - 1)) + 1;
    mpz_clear(z);
    return r;
}

static void test_challenges(cuzk_rng *rng) {
    uint8_t prover[32], ticket[32], commd[32], commr[32], seed[32], pid[32], rid[32], buf[256], h[32];
    cuzk_rng_bytes(rng, prover, 32);
    cuzk_rng_bytes(rng, ticket, 32);
    cuzk_rng_bytes(rng, commd, 32);
    cuzk_rng_bytes(rng, commr, 32);
    cuzk_rng_bytes(rng, seed, 32);
    uint64_t sector = cuzk_rng_u64(rng);
    cuzk_fil_porep_id(pid, 8, 0);
    cuzk_fil_replica_id(rid, prover, sector, ticket, commd, pid);
    memcpy(buf, prover, 32);
    for (int i = 0; i < 8; i++) buf[32 + i] = (uint8_t)(sector >> (56 - 8 * i));
    memcpy(buf + 40, ticket, 32);
    memcpy(buf + 72, commd, 32);
    memcpy(buf + 104, pid, 32);
    SHA256(buf, 136, h);
    CHECK((rid[31] & 0xc0) == 0);
    h[31] &= 0x3f;
    CHECK(memcmp(h, rid, 32) == 0);
    uint8_t rid2[32];
    cuzk_fil_replica_id(rid2, prover, sector ^ 1, ticket, commd, pid);
    CHECK(memcmp(rid, rid2, 32) != 0);

    static const uint64_t nodes[] = {64, 1ull << 18, 1ull << 30, 1ull << 31};
    for (int s = 0; s < 4; s++) {
        uint64_t ch[18];
        cuzk_fil_porep_challenges(ch, 18, 3, rid, seed, nodes[s]);
        for (unsigned i = 0; i < 18; i++) {
            uint32_t j = 18 * 3 + i;
            memcpy(buf, rid, 32);
            memcpy(buf + 32, seed, 32);
            for (int b = 0; b < 4; b++) buf[64 + b] = (uint8_t)(j >> (8 * b));
            SHA256(buf, 68, h);
            CHECK(ch[i] == gmp_challenge(h, nodes[s]));
            CHECK(ch[i] >= 1 && ch[i] < nodes[s]); /* node 0 is never challenged */
            static const char tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
            size_t tl = sizeof tag - 1;
            memcpy(buf, tag, tl);
            memcpy(buf + tl, rid, 32);
            memcpy(buf + tl + 32, commr, 32);
            for (int b = 0; b < 4; b++) buf[tl + 64 + b] = (uint8_t)(j >> (8 * b));
            SHA256(buf, tl + 68, h);
            CHECK(cuzk_fil_porep_challenge_ni(rid, commr, j, nodes[s]) == gmp_challenge(h, nodes[s]));
        }
    }
    /* PoSt */
    uint8_t rand[32];
    cuzk_rng_bytes(rng, rand, 32);
    for (int t = 0; t < 20; t++) {
        uint64_t idx = cuzk_rng_u64(rng) % 100000, sn = 1ull << 30;
        memcpy(buf, rand, 32);
        for (int b = 0; b < 8; b++) buf[32 + b] = (uint8_t)(sector >> (8 * b)), buf[40 + b] = (uint8_t)(idx >> (8 * b));
        SHA256(buf, 48, h);
        uint64_t le = 0;
        for (int b = 7; b >= 0; b--) le = le << 8 | h[b];
        CHECK(cuzk_fil_post_leaf_challenge(rand, sector, idx, sn) == le % sn);
        memcpy(buf, prover, 32);
        memcpy(buf + 32, rand, 32);
        for (int b = 0; b < 8; b++) buf[64 + b] = (uint8_t)(idx >> (8 * b));
        SHA256(buf, 72, h);
        le = 0;
        for (int b = 7; b >= 0; b--) le = le << 8 | h[b];
        CHECK(cuzk_fil_post_sector_challenge(rand, idx, 2349, prover) == le % 2349);
    }
    CHECK(cuzk_fil_post_challenge_index(CUZK_FIL_API_V1_0_0, 3, 10, 7) == 37);
    CHECK(cuzk_fil_post_challenge_index(CUZK_FIL_API_V1_1_0, 3, 10, 7) == 37);
    CHECK(cuzk_fil_post_challenge_index(CUZK_FIL_API_V1_2_0, 3, 10, 7) == 7);
}

/* rust-fil-proofs test_synth_challenges_against_hardcoded (published vector). */
static void test_synth(void) {
    static const uint64_t want_synth[21] = {178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856,
                                            801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t want_porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    uint8_t rid[32] = {55}, commr[32] = {101}, rand[32];
    memset(rand, 1, 32);
    cuzk_fil_synth s;
    CHECK(cuzk_fil_synth_init(&s, rid, commr, 1 << 10, 21) == 0);
    for (int i = 20; i >= 0; i--)
        CHECK_MSG(cuzk_fil_synth_challenge(&s, (uint64_t)i) == want_synth[i], "synth %d", i);
    uint64_t ch[10], idx[10];
    CHECK(cuzk_fil_synth_porep_challenges(&s, rand, 10, 0, idx, ch) == 0);
    for (int i = 0; i < 10; i++) CHECK_MSG(ch[i] == want_porep[i], "porep %d: %llu", i, (unsigned long long)ch[i]);
    /* partition k of size c selects the same as positions k*c.. of one long selection */
    uint64_t all[20], part[5];
    cuzk_fil_synth_porep_challenges(&s, rand, 20, 0, all, NULL);
    cuzk_fil_synth_porep_challenges(&s, rand, 5, 2, part, NULL);
    CHECK(memcmp(all + 10, part, sizeof part) == 0);
    CHECK(cuzk_fil_synth_init(&s, rid, commr, 1ull << 30, 0) == 0 && s.num_synth == (1u << 18));
    commr[0] ^= 1; /* tampered comm_r changes the set */
    cuzk_fil_synth_init(&s, rid, commr, 1 << 10, 21);
    int same = 0;
    for (int i = 0; i < 21; i++) same += cuzk_fil_synth_challenge(&s, (uint64_t)i) == want_synth[i];
    CHECK(same < 5);
}

int main(void) {
    cuzk_rng rng;
    tu_init(&rng, "test_filecoin");
    test_chacha(&rng);
    test_registry();
    test_parent_cache_2k();
    test_graph_structure(&rng);
    test_challenges(&rng);
    test_synth();
    return tu_finish("test_filecoin");
}
