/* replica_id, PoRep and PoSt challenges (docs/filecoin.md gives the sources). */
#include <string.h>

#include <openssl/evp.h>

#include "cuzk/filecoin.h"

static void sha256_parts(uint8_t out[32], const void *const *parts, const size_t *lens, int n) {
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned len = 0;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    for (int i = 0; ok && i < n; i++) ok = EVP_DigestUpdate(c, parts[i], lens[i]);
    if (!ok || !EVP_DigestFinal_ex(c, out, &len)) memset(out, 0, 32);
    EVP_MD_CTX_free(c);
}

static void le64(uint8_t out[8], uint64_t v) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rd_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

void cuzk_fil_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                         const uint8_t ticket[32], const uint8_t comm_d[32],
                         const uint8_t porep_id[32]) {
    uint8_t sid[8];
    for (int i = 0; i < 8; i++) sid[i] = (uint8_t)(sector_id >> (56 - 8 * i)); /* big-endian */
    const void *p[5] = {prover_id, sid, ticket, comm_d, porep_id};
    const size_t l[5] = {32, 8, 32, 32, 32};
    sha256_parts(out, p, l, 5);
    out[31] &= 0x3f; /* bytes_into_fr_repr_safe */
}

/* 1 + (256-bit little-endian h mod (nodes - 1)). */
static uint64_t to_challenge(const uint8_t h[32], uint64_t nodes) {
    uint64_t m = nodes - 1;
    unsigned __int128 r = 0;
    for (int i = 31; i >= 0; i--) r = ((r << 8) | h[i]) % m;
    return (uint64_t)r + 1;
}

uint64_t cuzk_fil_porep_challenge(const uint8_t replica_id[32], const uint8_t seed[32],
                                  uint32_t j, uint64_t nodes) {
    uint8_t jb[4] = {(uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16), (uint8_t)(j >> 24)}, h[32];
    const void *p[3] = {replica_id, seed, jb};
    const size_t l[3] = {32, 32, 4};
    sha256_parts(h, p, l, 3);
    return to_challenge(h, nodes);
}

uint64_t cuzk_fil_porep_challenge_ni(const uint8_t replica_id[32], const uint8_t comm_r[32],
                                     uint32_t j, uint64_t nodes) {
    static const char tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
    uint8_t jb[4] = {(uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16), (uint8_t)(j >> 24)}, h[32];
    const void *p[4] = {tag, replica_id, comm_r, jb};
    const size_t l[4] = {sizeof tag - 1, 32, 32, 4};
    sha256_parts(h, p, l, 4);
    return to_challenge(h, nodes);
}

void cuzk_fil_porep_challenges(uint64_t *out, unsigned count, unsigned k,
                               const uint8_t replica_id[32], const uint8_t seed[32],
                               uint64_t nodes) {
    for (unsigned i = 0; i < count; i++)
        out[i] = cuzk_fil_porep_challenge(replica_id, seed, (uint32_t)(count * k + i), nodes);
}

uint64_t cuzk_fil_post_challenge_index(cuzk_fil_api_version v, uint64_t sector_index,
                                       uint64_t challenge_count, uint64_t n) {
    return v >= CUZK_FIL_API_V1_2_0 ? n : sector_index * challenge_count + n;
}

uint64_t cuzk_fil_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                      uint64_t challenge_index, uint64_t sector_nodes) {
    uint8_t s[8], c[8], h[32];
    le64(s, sector_id);
    le64(c, challenge_index);
    const void *p[3] = {randomness, s, c};
    const size_t l[3] = {32, 8, 8};
    sha256_parts(h, p, l, 3);
    return rd_le64(h) % sector_nodes;
}

uint64_t cuzk_fil_post_sector_challenge(const uint8_t randomness[32], uint64_t n,
                                        uint64_t sector_set_len, const uint8_t prover_id[32]) {
    uint8_t nb[8], h[32];
    le64(nb, n);
    const void *p[3] = {prover_id, randomness, nb};
    const size_t l[3] = {32, 32, 8};
    sha256_parts(h, p, l, 3);
    return rd_le64(h) % sector_set_len;
}
