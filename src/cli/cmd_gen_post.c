/*
 * cuzk gen-vanilla window-post | winning-post: PoSt vanilla proofs for sealed-sector
 * directories (cmd_gen.c), laid out as filecoin-proofs-api's generate_single_vanilla_proof
 * returns them (fil_vanilla.h), plus the request that proves them:
 *   OUT/vanilla-<i>.bin  one per sector (WinningPoSt: the sector cuzk selects)
 *   OUT/request.json     the request file (include/cuzk/filecoin_gen/fil_request_file.h)
 *   OUT/sectors.json     {"sectors": [{"sector_id", "comm_r", "dir"}], "selected"} for verifiers
 * Deterministic: the randomness is --randomness or drawn from --seed.
 * --synthetic: no sector directories; the vanilla proofs of --sectors consistent stand-in sectors
 * of --sector-size (any registered size, e.g. 32GiB, which takes hours to seal), their openings
 * in sparse trees (cuzk_fil_post_vanilla_synthetic); sectors.json then carries their comm_r.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/size.h"
#include "cuzk/filecoin_gen/fil_gen.h"
#include "cuzk/util/hex.h"
#include "cuzk/filecoin_gen/fil_request_file.h"

#define MAX_SECTORS 4096

static void usage(const char *kind)
{
    fprintf(stderr,
            "usage: cuzk gen-vanilla %s --sector DIR [--sector DIR ...] (--randomness HEX | --seed N)\n"
            "         --out DIR [--proof ID] [--partition N] [--miner ID]\n"
            "       cuzk gen-vanilla %s --synthetic --sector-size SIZE [--sectors N] [--sector-id N]\n"
            "         (--randomness HEX | --seed N) --out DIR [--proof ID] [--partition N] [--miner ID]\n"
            "  --randomness  64 hex digits (32 bytes, a canonical field element, little-endian)\n"
            "  --proof       registered PoSt proof id (default: %s for the sectors' size)\n"
            "  --partition   WindowPoSt partition the sectors form (default 0)\n"
            "  --miner       actor id (default: from the first sector's prover_id; synthetic: 1000)\n"
            "  --synthetic   stand-in sectors without sealing: --sectors N of them (WindowPoSt default: a\n"
            "                full partition; WinningPoSt: 1), ids from --sector-id (default 1)\n",
            kind, kind, strcmp(kind, "winning-post") ? "StackedDrgWindow*V1_2" : "StackedDrgWinning*V1");
}

static int default_proof(uint64_t size, cuzk_fil_post_kind kind, uint64_t *id)
{
    for (uint64_t i = 15; i-- > 0;) { /* newest API first */
        const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(i);
        if (p && p->sector_size == size && p->kind == kind) {
            *id = i;
            return 0;
        }
    }
    return -1;
}

static int write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* OUT/vanilla-<k>.bin from the blob b (freed); its name into *name for the request. */
static int write_vanilla(const char *out, size_t k, char **name, uint8_t *b, size_t n)
{
    char path[4096];
    int rc = (*name = malloc(48)) ? 0 : 1;
    if (!rc) {
        snprintf(*name, 48, "vanilla-%zu.bin", k);
        snprintf(path, sizeof path, "%s/%s", out, *name);
        if (write_file(path, b, n)) {
            cli_errorf("%s: %s", path, strerror(errno));
            rc = 1;
        }
    }
    free(b);
    return rc;
}

/* Writes request.json (vanilla-<k>.bin for k < count) and sectors.json (ids, comm_r, dirs or NULL). */
static int write_outputs(const char *out, bool winning, const cuzk_fil_post_proof *p, uint64_t proof_id,
                         uint64_t miner, uint64_t partition, const uint8_t rnd[32], size_t count, char **names,
                         const uint64_t *ids, const uint8_t (*comm_r)[32], const char *const *dirs, long selected)
{
    int rc = 0;
    cuzk_fil_request_file r = {.proof_kind = winning ? "winning" : "wpost",
                     .sector_size = p->sector_size,
                     .registered_proof = proof_id,
                     .sector_number = ids[0],
                     .miner_id = miner,
                     .partition_index = (uint32_t)partition,
                     .present = CUZK_FIL_REQ_RANDOMNESS,
                     .num_blobs = count,
                     .blob_files = names};
    memcpy(r.randomness, rnd, 32);
    char path[4096];
    snprintf(path, sizeof path, "%s/request.json", out);
    if (cuzk_fil_request_file_write(path, &r)) {
        cli_errorf("%s: %s", path, strerror(errno));
        rc = 1;
    }
    json_t *o = json_object(), *a = json_array();
    for (size_t k = 0; k < count; k++) {
        char h[65];
        cuzk_hex_encode(h, comm_r[k], 32);
        json_t *e = json_pack("{s:I, s:s}", "sector_id", (json_int_t)ids[k], "comm_r", h);
        if (dirs) json_object_set_new(e, "dir", json_string(dirs[k]));
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "sectors", a);
    if (selected >= 0) json_object_set_new(o, "selected", json_integer((json_int_t)selected));
    if (!dirs) json_object_set_new(o, "synthetic", json_true());
    snprintf(path, sizeof path, "%s/sectors.json", out);
    if (json_dump_file(o, path, JSON_INDENT(2) | JSON_SORT_KEYS)) {
        cli_errorf("%s: cannot write", path);
        rc = 1;
    }
    json_decref(o);
    return rc;
}

/* --synthetic: count stand-in sectors (ids first, first + 1, ...) without sealing. */
static int gen_post_synthetic(const char *cmd, bool winning, uint64_t size, uint64_t count, uint64_t first,
                              const uint8_t rnd[32], uint64_t seed, const char *out, bool have_proof,
                              uint64_t proof_id, uint64_t partition, uint64_t miner)
{
    cuzk_post_config cfg;
    const cuzk_fil_post_proof *p = NULL;
    if (!have_proof && default_proof(size, winning ? CUZK_FIL_POST_WINNING : CUZK_FIL_POST_WINDOW, &proof_id)) {
        cli_errorf("--sector-size %llu: no %s proof for that size", (unsigned long long)size, cmd);
        return 2;
    }
    p = cuzk_fil_post_proof_get(proof_id);
    if (!p || p->sector_size != size || (p->kind == CUZK_FIL_POST_WINNING) != winning ||
        cuzk_post_config_for(&cfg, p->sector_size, winning ? CUZK_POST_WINNING : CUZK_POST_WINDOW)) {
        cli_errorf("--proof %llu: not a %s proof for %llu-byte sectors", (unsigned long long)proof_id, cmd,
                   (unsigned long long)size);
        return 2;
    }
    if (!count) count = winning ? 1 : cfg.sectors;
    if (winning ? count != 1 : count > cfg.sectors) {
        cli_errorf("--sectors %llu: %s holds %s %u", (unsigned long long)count, p->name,
                   winning ? "exactly" : "at most", winning ? 1u : cfg.sectors);
        return 2;
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        cli_errorf("--out %s: %s", out, strerror(errno));
        return 1;
    }
    char **names = calloc(count, sizeof *names);
    uint64_t *ids = malloc(count * sizeof *ids);
    uint8_t (*comm_r)[32] = malloc(count * 32);
    int rc = names && ids && comm_r ? 0 : 1;
    double t0 = cuzk_now();
    for (size_t k = 0; k < count && !rc; k++) {
        uint8_t *b;
        size_t n;
        ids[k] = first + k;
        uint64_t sector_index = winning ? 0 : partition * p->sector_count + k;
        if (cuzk_fil_post_vanilla_synthetic(&b, &n, proof_id, ids[k], rnd, sector_index, seed, comm_r[k])) {
            cli_errorf("sector %llu: generation failed", (unsigned long long)ids[k]);
            rc = 1;
            break;
        }
        rc = write_vanilla(out, k, &names[k], b, n);
        if (k + 1 == count || (k & 255) == 0)
            fprintf(stderr, "%s: synthetic sector %llu (%zu/%llu), %zu bytes, %.1f s\n", cmd,
                    (unsigned long long)ids[k], k + 1, (unsigned long long)count, n, cuzk_now() - t0);
    }
    if (!rc)
        rc = write_outputs(out, winning, p, proof_id, miner, partition, rnd, count, names, ids,
                           (const uint8_t(*)[32])comm_r, NULL, winning ? 0 : -1);
    for (size_t k = 0; names && k < count; k++) free(names[k]);
    free(names), free(ids), free(comm_r);
    return rc;
}

int cmd_gen_post(int argc, char **argv)
{
    bool winning = !strcmp(argv[0], "winning-post");
    const char *dirs[MAX_SECTORS], *out = NULL, *rhex = NULL;
    size_t nd = 0;
    uint64_t seed = 0, proof_id = 0, partition = 0, miner = 0;
    bool have_seed = false, have_proof = false, have_miner = false, synthetic = false;
    uint64_t syn_size = 0, syn_count = 0, syn_first = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(argv[0]);
            return 0;
        } else if (!strcmp(a, "--synthetic")) {
            synthetic = true;
            continue;
        } else if (!strcmp(a, "--sector") && v && nd < MAX_SECTORS) dirs[nd++] = v;
        else if (!strcmp(a, "--sector-size") && v) ok = cuzk_size_parse(v, &syn_size);
        else if (!strcmp(a, "--sectors") && v) ok = cli_parse_u64(v, &syn_count) && syn_count > 0;
        else if (!strcmp(a, "--sector-id") && v) ok = cli_parse_u64(v, &syn_first);
        else if (!strcmp(a, "--out") && v) out = v;
        else if (!strcmp(a, "--randomness") && v) rhex = v;
        else if (!strcmp(a, "--seed") && v) ok = have_seed = cli_parse_u64(v, &seed);
        else if (!strcmp(a, "--proof") && v) ok = have_proof = cli_parse_u64(v, &proof_id);
        else if (!strcmp(a, "--partition") && v) ok = cli_parse_u64(v, &partition) && partition < UINT32_MAX;
        else if (!strcmp(a, "--miner") && v) ok = have_miner = cli_parse_u64(v, &miner);
        else ok = false;
        if (!ok) {
            cli_errorf("gen-vanilla %s: bad option %s", argv[0], a);
            usage(argv[0]);
            return 2;
        }
        i++;
    }
    if (synthetic ? nd || !syn_size : !nd || syn_size || syn_count) {
        cli_errorf(synthetic ? "gen-vanilla %s --synthetic: --sector-size and no --sector"
                             : "gen-vanilla %s: --sector DIR (or --synthetic with --sector-size)", argv[0]);
        usage(argv[0]);
        return 2;
    }
    if (!out || !rhex == !have_seed) {
        usage(argv[0]);
        return 2;
    }
    uint8_t rnd[32];
    if (rhex) {
        cuzk_fr t;
        if (cuzk_hex_decode(rnd, 32, rhex) || cuzk_fr_from_le32(&t, rnd)) {
            cli_errorf("--randomness: not 64 hex digits of a canonical field element");
            return 2;
        }
    } else {
        cuzk_rng rng;
        cuzk_rng_seed(&rng, seed);
        cuzk_rng_bytes(&rng, rnd, 32);
        rnd[31] &= 0x3f;
    }
    if (synthetic) return gen_post_synthetic(argv[0], winning, syn_size, syn_count, syn_first, rnd, have_seed ? seed : 0,
                                             out, have_proof, proof_id, partition, have_miner ? miner : 1000);
    cuzk_fil_sector *sec = calloc(nd, sizeof *sec);
    int rc = sec ? 0 : 1;
    double t0 = cuzk_now();
    for (size_t i = 0; i < nd && !rc; i++) {
        char err[512];
        if (cuzk_fil_sector_read(&sec[i], dirs[i], err, sizeof err)) {
            cli_errorf("--sector %s: %s", dirs[i], err);
            rc = 1;
        } else if (sec[i].sector_size != sec[0].sector_size) {
            cli_errorf("--sector %s: sector size %llu, the first is %llu", dirs[i],
                       (unsigned long long)sec[i].sector_size, (unsigned long long)sec[0].sector_size);
            rc = 1;
        }
    }
    const cuzk_fil_post_proof *p = NULL;
    if (!rc) {
        if (!have_proof &&
            default_proof(sec[0].sector_size, winning ? CUZK_FIL_POST_WINNING : CUZK_FIL_POST_WINDOW, &proof_id))
            rc = 1;
        p = cuzk_fil_post_proof_get(proof_id);
        cuzk_post_config cfg;
        if (rc || !p || p->sector_size != sec[0].sector_size ||
            (p->kind == CUZK_FIL_POST_WINNING) != winning ||
            cuzk_post_config_for(&cfg, p->sector_size, winning ? CUZK_POST_WINNING : CUZK_POST_WINDOW)) {
            cli_errorf("--proof %llu: not a %s proof for %llu-byte sectors", (unsigned long long)proof_id, argv[0],
                       (unsigned long long)sec[0].sector_size);
            rc = 1;
        } else if (!winning && nd > cfg.sectors) {
            cli_errorf("%zu sectors: a WindowPoSt partition of %s holds at most %u", nd, p->name, cfg.sectors);
            rc = 1;
        }
    }
    if (!rc && !have_miner) miner = cuzk_fil_prover_miner(sec[0].prover_id);
    if (!rc && mkdir(out, 0777) && errno != EEXIST) {
        cli_errorf("--out %s: %s", out, strerror(errno));
        rc = 1;
    }
    /* WinningPoSt proves the one sector the randomness selects among those given */
    size_t first = 0, count = nd;
    if (!rc && winning) {
        first = cuzk_fil_winning_sector_index(rnd, miner, nd);
        count = 1;
        fprintf(stderr, "winning-post: sector %llu selected (index %zu of %zu)\n",
                (unsigned long long)sec[first].sector_id, first, nd);
    }
    char **names = calloc(nd, sizeof *names);
    for (size_t k = 0; k < count && !rc; k++) {
        size_t i = first + k;
        uint8_t *b;
        size_t n;
        /* the sector's position in the whole PoSt (API 1.0/1.1 challenges depend on it) */
        uint64_t sector_index = winning ? 0 : partition * p->sector_count + k;
        if (cuzk_fil_post_vanilla_generate(&b, &n, proof_id, &sec[i], rnd, sector_index)) {
            cli_errorf("sector %llu: generation failed", (unsigned long long)sec[i].sector_id);
            rc = 1;
            break;
        }
        rc = write_vanilla(out, k, &names[k], b, n);
        fprintf(stderr, "%s: sector %llu (%zu/%zu), %zu bytes, %.1f s\n", argv[0],
                (unsigned long long)sec[i].sector_id, k + 1, count, n, cuzk_now() - t0);
    }
    if (!rc) {
        uint64_t *ids = malloc(count * sizeof *ids);
        uint8_t (*comm_r)[32] = malloc(count * 32);
        rc = ids && comm_r ? 0 : 1;
        for (size_t k = 0; k < count && !rc; k++) {
            ids[k] = sec[first + k].sector_id;
            memcpy(comm_r[k], sec[first + k].comm_r, 32);
        }
        if (!rc)
            rc = write_outputs(out, winning, p, proof_id, miner, partition, rnd, count, names, ids,
                               (const uint8_t(*)[32])comm_r, dirs + first, winning ? (long)first : -1);
        free(ids), free(comm_r);
    }
    for (size_t i = 0; i < nd; i++) {
        if (sec) cuzk_fil_sector_free(&sec[i]);
        if (names) free(names[i]);
    }
    free(names);
    free(sec);
    return rc;
}
