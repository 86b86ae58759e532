/*
 * The Filecoin kinds' one table (cuzk/kinds/fil_kinds.h): which kinds exist, their
 * names, sector sizes and parameter files' registered proofs, and how a
 * request names one. kinds_filecoin.c registers its entries with the engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_kinds.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/filecoin/filecoin.h"

static const struct {
    uint64_t bytes;
    const char *tag;
} fil_sizes[] = {{2048ull, "2k"}, {8ull << 20, "8m"}, {512ull << 20, "512m"}, {32ull << 30, "32g"}, {64ull << 30, "64g"}};

#define FIL_SIZES (sizeof fil_sizes / sizeof fil_sizes[0])

/* The proof kinds, in the table's inner order, and their names' prefixes. */
static const struct {
    cuzk_fil_proof_kind kind;
    const char *prefix;
} fil_proof_kinds[] = {{CUZK_FIL_KIND_POREP, "porep"},
                       {CUZK_FIL_KIND_SNAP, "snap"},
                       {CUZK_FIL_KIND_WINDOW_POST, "wpost"},
                       {CUZK_FIL_KIND_WINNING_POST, "winning"},
                       {CUZK_FIL_KIND_NI_POREP, "ni-porep"}};

#define FIL_PROOF_KINDS (sizeof fil_proof_kinds / sizeof fil_proof_kinds[0])
_Static_assert(CUZK_FIL_KINDS == FIL_SIZES * FIL_PROOF_KINDS, "one kind per proof kind and sector size");

/* The registered proof whose parameter file a kind uses (every variant of a
 * size shares it): PoRep V1_1 (seal ids 5..9), NI-PoRep
 * V1_2_Feat_NonInteractivePoRep (15..19: the same file, its partitions
 * holding as many challenges as the interactive ones'), WindowPoSt V1
 * (5..9), WinningPoSt V1 (0..4), SnapDeals (update ids 0..4); s is the
 * size's index. */
static uint64_t kind_proof_id(cuzk_fil_proof_kind kind, size_t s)
{
    if (kind == CUZK_FIL_KIND_NI_POREP) return 15 + s;
    return kind == CUZK_FIL_KIND_POREP || kind == CUZK_FIL_KIND_WINDOW_POST ? 5 + s : s;
}

void cuzk_fil_kind_at(cuzk_fil_kind_entry *out, size_t i)
{
    size_t s = i / FIL_PROOF_KINDS % FIL_SIZES, k = i % FIL_PROOF_KINDS;
    memset(out, 0, sizeof *out);
    out->kind = fil_proof_kinds[k].kind;
    out->sector_size = fil_sizes[s].bytes;
    out->proof_id = kind_proof_id(out->kind, s);
    snprintf(out->name, sizeof out->name, "%s-%s", fil_proof_kinds[k].prefix, fil_sizes[s].tag);
    /* NI-PoRep proves the PoRep circuit: its parameters, PCE and residency are porep-<size>'s */
    snprintf(out->circuit_id, sizeof out->circuit_id, "%s-%s",
             out->kind == CUZK_FIL_KIND_NI_POREP ? "porep" : fil_proof_kinds[k].prefix, fil_sizes[s].tag);
}

int cuzk_fil_kind_by_name(cuzk_fil_kind_entry *out, const char *name)
{
    for (size_t i = 0; i < CUZK_FIL_KINDS; i++) {
        cuzk_fil_kind_at(out, i);
        if (!strcmp(out->name, name)) return 0;
    }
    return -1;
}

/* The sector size of r's registered proof, into r->sector_size; false with
 * the reason when the proof says none (or, for SnapDeals, disagrees with the
 * number of vanilla proofs: one per partition). */
static bool size_from_proof(cuzk_fil_request *r, char *why, size_t why_len)
{
    uint64_t id = r->registered_proof, size = 0;
    const char *what = "seal proof";
    if (r->kind == CUZK_FIL_KIND_POREP || r->kind == CUZK_FIL_KIND_NI_POREP) {
        const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(id);
        size = sp ? sp->sector_size : 0;
    } else if (r->kind == CUZK_FIL_KIND_SNAP) {
        size = cuzk_fil_update_proof_sector_size(id);
        what = "update proof";
        unsigned parts = size ? cuzk_fil_snap_partitions(id) : 0;
        if (parts && r->num_blobs && r->num_blobs != parts) {
            snprintf(why, why_len,
                     "sector_size is not set and registered_proof %llu (a %llu-byte update proof, %u partitions) "
                     "disagrees with the %zu vanilla_proofs",
                     (unsigned long long)id, (unsigned long long)size, parts, r->num_blobs);
            return false;
        }
    } else {
        const cuzk_fil_post_proof *pp = cuzk_fil_post_proof_get(id);
        size = pp ? pp->sector_size : 0;
        what = "PoSt proof";
    }
    if (!size) {
        snprintf(why, why_len, "sector_size is not set and registered_proof %llu is not a known %s to derive it from",
                 (unsigned long long)id, what);
        return false;
    }
    r->sector_size = size;
    return true;
}

/* "sector_size N is not a Filecoin sector size (2048, ... or 68719476736)" */
static void size_unknown(char *why, size_t why_len, uint64_t size)
{
    int n = snprintf(why, why_len, "sector_size %llu is not a Filecoin sector size (", (unsigned long long)size);
    for (size_t s = 0; s < FIL_SIZES && n >= 0 && (size_t)n < why_len; s++)
        n += snprintf(why + n, why_len - (size_t)n, "%s%llu", s == 0 ? "" : s + 1 < FIL_SIZES ? ", " : " or ",
                      (unsigned long long)fil_sizes[s].bytes);
    if (n >= 0 && (size_t)n < why_len) snprintf(why + n, why_len - (size_t)n, ")");
}

int cuzk_fil_kind_of(cuzk_fil_request *r, cuzk_fil_kind_entry *out, char *why, size_t why_len)
{
    if (r->kind == 0) return cuzk_errf(why, why_len, CUZK_ERR_INVALID_ARG, "proof_kind is not set");
    if (!cuzk_fil_proof_kind_known(r->kind))
        return cuzk_errf(why, why_len, CUZK_ERR_INVALID_ARG, "unknown proof_kind %d", (int)r->kind);
    if (r->sector_size == 0 && !size_from_proof(r, why, why_len)) return CUZK_ERR_INVALID_ARG;
    /* a PoRep C1 of an NI-PoRep registered proof is an NI-PoRep request (a
     * client that knows no NI_POREP_SEAL_COMMIT sends it so) */
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(r->registered_proof);
    cuzk_fil_proof_kind want = r->kind;
    if (want == CUZK_FIL_KIND_POREP && sp && sp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE)
        want = CUZK_FIL_KIND_NI_POREP;
    for (size_t i = 0; i < CUZK_FIL_KINDS; i++) {
        cuzk_fil_kind_at(out, i);
        if (out->kind == want && out->sector_size == r->sector_size) {
            r->kind = want;
            return CUZK_OK;
        }
    }
    size_unknown(why, why_len, r->sector_size);
    return CUZK_ERR_INVALID_ARG;
}

uint8_t *cuzk_fil_kind_encode(const cuzk_fil_request *r, size_t *len)
{
    *len = cuzk_fil_request_size(r);
    uint8_t *out = malloc(*len);
    if (out) cuzk_fil_request_encode(r, out);
    return out;
}
