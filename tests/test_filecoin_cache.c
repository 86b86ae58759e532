/*
 * Whole SDR parent caches against the digests rust-fil-proofs publishes in
 * storage-proofs-porep/parent_cache.json: 8 MiB for API v1.1 (seconds; 2 KiB for both versions
 * is in test_filecoin). CUZK_FIL_LONG=1 adds 8 MiB v1.0 and 512 MiB (2^24 nodes, minutes).
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/filecoin.h"
#include "testutil.h"

static const struct { uint64_t proof; const char *name, *digest; int lng; } kat[] = {
    {1, "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
     "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce", 1},
    {6, "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
     "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab", 0},
    {2, "v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42",
     "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5", 1},
    {7, "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34",
     "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a", 1},
};

/* The 32 and 64 GiB cache names (the digests would need all 2^30 / 2^31 nodes). */
static const uint64_t big[] = {3, 8, 4, 9};
static const char *const big_names[] = {
    "v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117",
    "v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13",
    "v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b",
    "v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6"};

int main(void) {
    cuzk_rng rng;
    tu_init(&rng, "test_filecoin_cache");
    int lng = getenv("CUZK_FIL_LONG") && atoi(getenv("CUZK_FIL_LONG"));
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(kat[i].proof);
        uint8_t pid[32], d[32];
        char cid[CUZK_FIL_CACHE_ID_MAX], hx[65];
        cuzk_fil_graph g;
        cuzk_fil_porep_id(pid, sp->id, 0);
        CHECK(cuzk_fil_graph_init(&g, sp->sector_size / 32, pid, sp->api_version) == 0);
        CHECK(cuzk_fil_parent_cache_id(cid, &g, (uint32_t)g.nodes) > 0);
        CHECK_MSG(strcmp(cid, kat[i].name) == 0, "%s", cid);
        if (kat[i].lng && !lng) continue;
        CHECK(cuzk_fil_parent_cache_digest(d, &g) == 0);
        tu_hex(hx, d, 32);
        CHECK_MSG(strcmp(hx, kat[i].digest) == 0, "%s digest %s", sp->name, hx);
    }
    /* 32/64 GiB names: the published manifest has exactly one per API version; each of ours
     * must be one of them and the four must differ. */
    char seen[4][CUZK_FIL_CACHE_ID_MAX];
    for (int i = 0; i < 4; i++) {
        const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(big[i]);
        uint8_t pid[32];
        cuzk_fil_graph g;
        cuzk_fil_porep_id(pid, sp->id, 0);
        CHECK(cuzk_fil_graph_init(&g, sp->sector_size / 32, pid, sp->api_version) == 0);
        cuzk_fil_parent_cache_id(seen[i], &g, (uint32_t)g.nodes);
        int found = 0;
        for (int k = 0; k < 4; k++) found += strcmp(seen[i], big_names[k]) == 0;
        CHECK_MSG(found == 1, "%s: %s", sp->name, seen[i]);
        for (int k = 0; k < i; k++) CHECK(strcmp(seen[i], seen[k]) != 0);
    }
    return tu_finish("test_filecoin_cache");
}
