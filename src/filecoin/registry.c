/* Registered proofs, porep_id, parameter-set identifiers and file names (docs/filecoin.md). */
#include <stdio.h>
#include <pthread.h>
#include <string.h>


#include "cuzk/filecoin/filecoin.h"
#include "cuzk/util/hex.h"
#include "cuzk/util/sha256.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/* filecoin-proofs constants: PoRep partitions / layers / minimum challenges per size. */
static int porep_constants(uint64_t size, unsigned *partitions, unsigned *layers,
                           unsigned *min_challenges, unsigned *ni_partitions,
                           unsigned *ni_min_challenges) {
    int big = size == 32 * GIB || size == 64 * GIB;
    if (!big && cuzk_fil_tree_shape(size, NULL, NULL, NULL) == 0) return 0;
    *partitions = big ? 10 : 1;
    *layers = big ? 11 : 2;
    *min_challenges = big ? 176 : 2;
    *ni_partitions = big ? 126 : 13;
    *ni_min_challenges = big ? 2253 : 26;
    return 1;
}

int cuzk_fil_tree_shape(uint64_t size, unsigned *base, unsigned *sub, unsigned *top) {
    unsigned s, t;
    switch (size) {
    case 2 * KIB: case 8 * MIB: case 512 * MIB: s = 0, t = 0; break;
    case 4 * KIB: case 16 * MIB: case 1 * GIB: s = 2, t = 0; break;
    case 16 * KIB: case 32 * GIB: s = 8, t = 0; break;
    case 32 * KIB: case 64 * GIB: s = 8, t = 2; break;
    default: return 0;
    }
    if (base) *base = 8;
    if (sub) *sub = s;
    if (top) *top = t;
    return 1;
}

static const uint64_t published_sizes[5] = {2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB};
static const char *const size_names[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};

static cuzk_fil_seal_proof seal_tab[20];
static cuzk_fil_post_proof post_tab[15];
static char seal_names[20][48], post_names[15][40];

static void build_tabs(void) {
    /* ids: V1 0-4, V1_1 5-9, V1_1_Feat_SyntheticPoRep 10-14, V1_2_Feat_NonInteractivePoRep
     * 15-19 (filecoin-proofs-api REGISTERED_PROOF_IDS). Synthetic's API version is 1.2.0. */
    static const char *const sfx[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                       "V1_2_Feat_NonInteractivePoRep"};
    for (unsigned g = 0; g < 4; g++)
        for (unsigned s = 0; s < 5; s++) {
            cuzk_fil_seal_proof *p = &seal_tab[g * 5 + s];
            unsigned part = 0, layers = 0, minc = 0, nip = 0, nic = 0;
            porep_constants(published_sizes[s], &part, &layers, &minc, &nip, &nic);
            snprintf(seal_names[g * 5 + s], sizeof seal_names[0], "StackedDrg%s%s", size_names[s],
                     sfx[g]);
            p->id = g * 5 + s;
            p->name = seal_names[g * 5 + s];
            p->sector_size = published_sizes[s];
            p->api_version = g == 0 ? CUZK_FIL_API_V1_0_0 : g == 1 ? CUZK_FIL_API_V1_1_0 : CUZK_FIL_API_V1_2_0;
            p->feature = g == 2 ? CUZK_FIL_FEAT_SYNTHETIC : g == 3 ? CUZK_FIL_FEAT_NON_INTERACTIVE : CUZK_FIL_FEAT_NONE;
            if (g == 3) part = nip, minc = nic;
            p->partitions = part;
            p->layers = layers;
            p->challenges_per_partition = (minc + part - 1) / part; /* div_ceil */
        }
    /* RegisteredPoStProof: Winning V1 0-4, Window V1 5-9, Window V1_2 10-14. */
    static const char *const pk[3] = {"Winning", "Window", "Window"};
    for (unsigned g = 0; g < 3; g++)
        for (unsigned s = 0; s < 5; s++) {
            cuzk_fil_post_proof *p = &post_tab[g * 5 + s];
            snprintf(post_names[g * 5 + s], sizeof post_names[0], "StackedDrg%s%s%s", pk[g],
                     size_names[s], g == 2 ? "V1_2" : "V1");
            p->id = g * 5 + s;
            p->name = post_names[g * 5 + s];
            p->sector_size = published_sizes[s];
            p->api_version = g == 2 ? CUZK_FIL_API_V1_2_0 : CUZK_FIL_API_V1_0_0;
            p->kind = g == 0 ? CUZK_FIL_POST_WINNING : CUZK_FIL_POST_WINDOW;
            if (g == 0) {
                /* winning: 66 challenges over 1 sector become 66 "sectors" of 1 challenge. */
                p->challenge_count = 1;
                p->sector_count = 66;
            } else {
                p->challenge_count = 10;
                p->sector_count = s == 3 ? 2349 : s == 4 ? 2300 : 2;
            }
        }
}

/* Built once, thread-safe: the engine and server look proofs up from many threads. */
static pthread_once_t tabs_once = PTHREAD_ONCE_INIT;
static void ensure_tabs(void) { pthread_once(&tabs_once, build_tabs); }

const cuzk_fil_seal_proof *cuzk_fil_seal_proof_get(uint64_t id) {
    ensure_tabs();
    return id < 20 ? &seal_tab[id] : NULL;
}

const cuzk_fil_seal_proof *cuzk_fil_seal_proof_by_name(const char *name) {
    ensure_tabs();
    for (unsigned i = 0; i < 20; i++)
        if (name && strcmp(name, seal_tab[i].name) == 0) return &seal_tab[i];
    return NULL;
}

const cuzk_fil_post_proof *cuzk_fil_post_proof_get(uint64_t id) {
    ensure_tabs();
    return id < 15 ? &post_tab[id] : NULL;
}

const cuzk_fil_post_proof *cuzk_fil_post_proof_by_name(const char *name) {
    ensure_tabs();
    for (unsigned i = 0; i < 15; i++)
        if (name && strcmp(name, post_tab[i].name) == 0) return &post_tab[i];
    return NULL;
}

uint64_t cuzk_fil_update_proof_sector_size(uint64_t id) {
    return id < 5 ? published_sizes[id] : 0;
}

void cuzk_fil_porep_id(uint8_t out[32], uint64_t id, uint64_t nonce) {
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(id >> (8 * i));
        out[8 + i] = (uint8_t)(nonce >> (8 * i));
    }
}

int cuzk_fil_api_supports(cuzk_fil_api_version v, cuzk_fil_feature f) {
    return f == CUZK_FIL_FEAT_NONE || v >= CUZK_FIL_API_V1_2_0;
}

const char *cuzk_fil_api_version_str(cuzk_fil_api_version v) {
    switch (v) {
    case CUZK_FIL_API_V1_0_0: return "1.0.0";
    case CUZK_FIL_API_V1_1_0: return "1.1.0";
    case CUZK_FIL_API_V1_2_0: return "1.2.0";
    }
    return "?";
}

/* Tree::display(): "merkletree-poseidon_hasher-<base>-<sub>-<top>". */
static int tree_display(char *out, size_t cap, uint64_t size) {
    unsigned b, s, t;
    if (!cuzk_fil_tree_shape(size, &b, &s, &t)) return 0;
    int n = snprintf(out, cap, "merkletree-poseidon_hasher-%u-%u-%u", b, s, t);
    return n > 0 && (size_t)n < cap;
}

static size_t fmt_ok(int n, size_t cap) { return n > 0 && (size_t)n < cap ? (size_t)n : 0; }

size_t cuzk_fil_porep_identifier(char *out, size_t cap, uint64_t size, unsigned layers,
                                 unsigned challenges) {
    char tree[64];
    if (!tree_display(tree, sizeof tree, size)) return 0;
    return fmt_ok(snprintf(out, cap,
                           "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph"
                           "{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %llu; "
                           "degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges "
                           "{ layers: %u, max_count: %u }, tree: %s }",
                           (unsigned long long)(size / 32), layers, challenges, tree),
                  cap);
}

size_t cuzk_fil_post_identifier(char *out, size_t cap, uint64_t size, unsigned challenge_count,
                                unsigned sector_count) {
    return fmt_ok(snprintf(out, cap,
                           "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, "
                           "sector_count: %u}",
                           (unsigned long long)size, challenge_count, sector_count),
                  cap);
}

/* "<prefix>-<hex sha256(identifier)>" (CacheableParameters::cache_identifier). */
static size_t cache_id(char out[CUZK_FIL_CACHE_ID_MAX], const char *prefix, const char *ident) {
    uint8_t h[32];
    if (cuzk_sha256_hash(h, ident, strlen(ident))) return 0;
    size_t p = strlen(prefix);
    if (p + 1 + 64 + 1 > CUZK_FIL_CACHE_ID_MAX) return 0;
    memcpy(out, prefix, p);
    out[p++] = '-';
    cuzk_hex_encode(out + p, h, 32);
    return p + 64;
}

size_t cuzk_fil_porep_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], uint64_t seal_proof_id) {
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(seal_proof_id);
    char ident[CUZK_FIL_IDENTIFIER_MAX], prefix[128], tree[64];
    if (!sp || !tree_display(tree, sizeof tree, sp->sector_size)) return 0;
    if (!cuzk_fil_porep_identifier(ident, sizeof ident, sp->sector_size, sp->layers,
                                   sp->challenges_per_partition))
        return 0;
    snprintf(prefix, sizeof prefix, "stacked-proof-of-replication-%s-sha256_hasher", tree);
    return cache_id(out, prefix, ident);
}

size_t cuzk_fil_post_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], uint64_t post_proof_id) {
    const cuzk_fil_post_proof *pp = cuzk_fil_post_proof_get(post_proof_id);
    char ident[CUZK_FIL_IDENTIFIER_MAX], prefix[128], tree[64];
    if (!pp || !tree_display(tree, sizeof tree, pp->sector_size)) return 0;
    if (!cuzk_fil_post_identifier(ident, sizeof ident, pp->sector_size, pp->challenge_count,
                                  pp->sector_count))
        return 0;
    snprintf(prefix, sizeof prefix, "proof-of-spacetime-fallback-%s", tree);
    return cache_id(out, prefix, ident);
}

size_t cuzk_fil_update_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], uint64_t update_proof_id,
                                int update_poseidon) {
    uint64_t size = cuzk_fil_update_proof_sector_size(update_proof_id);
    char ident[96], prefix[128], tree[64];
    if (!size || !tree_display(tree, sizeof tree, size)) return 0;
    snprintf(ident, sizeof ident, "empty_sector_update::PublicParams{ sector_nodes: %llu }",
             (unsigned long long)(size / 32));
    snprintf(prefix, sizeof prefix, "empty-sector-update-%s%s",
             update_poseidon ? "poseidon-" : "", tree);
    return cache_id(out, prefix, ident);
}

size_t cuzk_fil_param_file_name(char *out, size_t cap, const char *cid, const char *ext) {
    return fmt_ok(snprintf(out, cap, "v28-%s%s", cid, ext), cap);
}
