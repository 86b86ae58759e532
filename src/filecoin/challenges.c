/* replica_id, PoRep and PoSt challenges (docs/filecoin.md gives the sources). */
#include <string.h>


#include "cuzk/util/blake2b.h"
#include "cuzk/filecoin/filecoin.h"
#include "filecoin_internal.h"

static void le64(uint8_t out[8], uint64_t v) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

void cuzk_fil_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                         const uint8_t ticket[32], const uint8_t comm_d[32],
                         const uint8_t porep_id[32]) {
    uint8_t sid[8];
    for (int i = 0; i < 8; i++) sid[i] = (uint8_t)(sector_id >> (56 - 8 * i)); /* big-endian */
    const void *p[5] = {prover_id, sid, ticket, comm_d, porep_id};
    const size_t l[5] = {32, 8, 32, 32, 32};
    cuzk_sha256_hash_parts(out, p, l, 5);
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
    cuzk_sha256_hash_parts(h, p, l, 3);
    return to_challenge(h, nodes);
}

uint64_t cuzk_fil_porep_challenge_ni(const uint8_t replica_id[32], const uint8_t comm_r[32],
                                     uint32_t j, uint64_t nodes) {
    static const char tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
    uint8_t jb[4] = {(uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16), (uint8_t)(j >> 24)}, h[32];
    const void *p[4] = {tag, replica_id, comm_r, jb};
    const size_t l[4] = {sizeof tag - 1, 32, 32, 4};
    cuzk_sha256_hash_parts(h, p, l, 4);
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
    cuzk_sha256_hash_parts(h, p, l, 3);
    return fil_rd_le64(h) % sector_nodes;
}

uint64_t cuzk_fil_post_sector_challenge(const uint8_t randomness[32], uint64_t n,
                                        uint64_t sector_set_len, const uint8_t prover_id[32]) {
    uint8_t nb[8], h[32];
    le64(nb, n);
    const void *p[3] = {prover_id, randomness, nb};
    const size_t l[3] = {32, 32, 8};
    cuzk_sha256_hash_parts(h, p, l, 3);
    return fil_rd_le64(h) % sector_set_len;
}

/* ---- Synthetic PoRep (storage-proofs-porep challenges.rs `synthetic`) ---- */
/* Blake2b with a 32-byte output, keyed by `key` (the blake2b_simd Params the source uses). */
static int blake2b32_keyed(uint8_t out[32], const char *key, const uint8_t a[32],
                           const uint8_t b[32]) {
    cuzk_blake2b_state st;
    if (cuzk_blake2b_init(&st, 32, key, strlen(key))) return -1;
    cuzk_blake2b_update(&st, a, 32);
    cuzk_blake2b_update(&st, b, 32);
    cuzk_blake2b_final(&st, out);
    return 0;
}

/* IETF ChaCha20 keystream bytes [pos, pos + n) under key, nonce "synth-porep\0": word 12 is the
 * 32-bit block counter, words 13-15 the nonce, which is our 64-bit counter/stream split. */
static void synth_keystream(uint8_t *out, size_t n, const uint8_t key[32], uint64_t pos) {
    static const uint8_t nonce[12] = "synth-porep";
    uint64_t n0 = 0, n12 = 0;
    for (int i = 3; i >= 0; i--) n0 = n0 << 8 | nonce[i];
    for (int i = 11; i >= 4; i--) n12 = n12 << 8 | nonce[i];
    while (n) {
        uint32_t w[16];
        uint64_t block = pos / 64;
        cuzk_fil_chacha_block(w, key, (block & 0xffffffffu) | n0 << 32, n12, 20);
        for (size_t off = pos % 64; off < 64 && n; off++, pos++, n--)
            *out++ = (uint8_t)(w[off / 4] >> (8 * (off % 4)));
    }
}

int cuzk_fil_synth_init(cuzk_fil_synth *s, const uint8_t replica_id[32], const uint8_t comm_r[32],
                        uint64_t nodes, uint64_t num_synth) {
    memset(s, 0, sizeof *s);
    if (nodes < 2 || nodes >= (1ull << 32)) return -1;
    s->nodes = nodes;
    s->num_synth = num_synth ? num_synth : (nodes < (1u << 18) ? nodes : (1u << 18));
    memcpy(s->replica_id, replica_id, 32);
    return blake2b32_keyed(s->gen_key, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id,
                           comm_r);
}

uint64_t cuzk_fil_synth_challenge(const cuzk_fil_synth *s, uint64_t i) {
    uint8_t r[32];
    synth_keystream(r, 32, s->gen_key, 32 * i);
    return to_challenge(r, s->nodes);
}

int cuzk_fil_synth_porep_challenges(const cuzk_fil_synth *s, const uint8_t rand[32],
                                    unsigned count, unsigned k, uint64_t *indexes,
                                    uint64_t *challenges) {
    uint8_t key[32], b[4];
    if (blake2b32_keyed(key, "filecoin.io|PoRep|1|Synthetic|1|Selection", s->replica_id, rand))
        return -1;
    for (unsigned i = 0; i < count; i++) {
        synth_keystream(b, 4, key, 4 * ((uint64_t)k * count + i));
        uint64_t idx = ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                        (uint32_t)b[3] << 24) % s->num_synth;
        if (indexes) indexes[i] = idx;
        if (challenges) challenges[i] = cuzk_fil_synth_challenge(s, idx);
    }
    return 0;
}

int cuzk_fil_porep_partition_challenges(uint64_t *out, const cuzk_fil_seal_proof *rp, const cuzk_porep_config *c,
                                   const uint8_t replica_id[32], const uint8_t comm_r[32], const uint8_t seed[32],
                                   unsigned k) {
    if (rp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE) {
        for (unsigned i = 0; i < c->challenges; i++)
            out[i] = cuzk_fil_porep_challenge_ni(replica_id, comm_r, k * c->challenges + i, c->nodes);
        return 0;
    }
    if (rp->feature == CUZK_FIL_FEAT_SYNTHETIC) {
        cuzk_fil_synth s;
        if (cuzk_fil_synth_init(&s, replica_id, comm_r, c->nodes, 0)) return -1;
        return cuzk_fil_synth_porep_challenges(&s, seed, c->challenges, k, NULL, out);
    }
    cuzk_fil_porep_challenges(out, c->challenges, k, replica_id, seed, c->nodes);
    return 0;
}
