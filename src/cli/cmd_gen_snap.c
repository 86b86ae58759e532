/*
 * cuzk gen-vanilla snap: SnapDeals for a sealed-sector directory (cmd_gen.c). New random data
 * from --seed is encoded into the replica (cuzk_fil_snap_generate, fil_gen.h); OUT becomes
 * the updated sector's directory (so PoSt can run on it) and holds the request that proves it:
 *   OUT/sector.json, data.bin, replica.bin   the updated sector (comm_d, comm_r new)
 *   OUT/vanilla-p<k>.bin                     partition k's vanilla proof (PartitionProof bincode)
 *   OUT/request.json                         the request file (include/cuzk/filecoin_gen/fil_request_file.h)
 * --synthetic: no sector directory; a stand-in update of --sector-size (any registered size,
 * e.g. 32GiB, which takes hours to seal) from --seed (cuzk_fil_snap_synthetic: trees of runs
 * of equal leaves, seconds at any size). OUT then holds only the vanilla proofs and
 * request.json, the same files the daemon's SnapDeals request is made of.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/size.h"
#include "cuzk/filecoin_gen/fil_gen.h"
#include "cuzk/filecoin_gen/fil_request_file.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: cuzk gen-vanilla snap --sector DIR --seed N --out DIR2\n"
            "       cuzk gen-vanilla snap --synthetic --sector-size SIZE --seed N --out DIR2 [--sector-id N]\n"
            "         [--miner ID]\n"
            "  DIR2 becomes the updated sector's directory, with its vanilla proofs and request.json\n"
            "  --synthetic  a stand-in update without a sector (any registered size, 32GiB in seconds):\n"
            "               DIR2 gets the vanilla proofs and request.json only; sector id (default 1)\n"
            "               and miner (default 1000) name it in the request\n");
}

static void progress(void *ctx, unsigned done, unsigned total)
{
    fprintf(stderr, "snap: partition %u/%u, %.1f s\n", done, total, cuzk_now() - *(double *)ctx);
}

/* OUT/vanilla-p<k>.bin for each blob and OUT/request.json naming them. */
static int write_request(const char *out, uint64_t size, uint64_t id, uint64_t sector, uint64_t miner,
                         const uint8_t comm_r_old[32], const uint8_t comm_r_new[32], const uint8_t comm_d_new[32],
                         uint8_t *const *blobs, const size_t *lens, size_t n)
{
    int rc = 0;
    char path[4096];
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) return 1;
    for (size_t k = 0; k < n && !rc; k++) {
        if (!(names[k] = malloc(48))) {
            rc = 1;
            break;
        }
        snprintf(names[k], 48, "vanilla-p%zu.bin", k);
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(blobs[k], 1, lens[k], f) != lens[k]) rc = 1;
        if (f && fclose(f)) rc = 1;
        if (rc) cli_errorf("%s: cannot write", path);
    }
    if (!rc) {
        cuzk_fil_request_file r = {.proof_kind = "snap",
                         .sector_size = size,
                         .registered_proof = id,
                         .sector_number = sector,
                         .miner_id = miner,
                         .present = CUZK_FIL_REQ_COMM_R_OLD | CUZK_FIL_REQ_COMM_R_NEW | CUZK_FIL_REQ_COMM_D_NEW,
                         .num_blobs = n,
                         .blob_files = names};
        memcpy(r.comm_r_old, comm_r_old, 32);
        memcpy(r.comm_r_new, comm_r_new, 32);
        memcpy(r.comm_d_new, comm_d_new, 32);
        snprintf(path, sizeof path, "%s/request.json", out);
        if (cuzk_fil_request_file_write(path, &r)) {
            cli_errorf("%s: cannot write", path);
            rc = 1;
        }
    }
    for (size_t k = 0; k < n; k++) free(names[k]);
    free(names);
    return rc;
}

static void free_blobs(uint8_t **blobs, size_t *lens, size_t n)
{
    for (size_t k = 0; blobs && k < n; k++) free(blobs[k]);
    free(blobs);
    free(lens);
}

static int gen_snap_synthetic(uint64_t size, uint64_t seed, uint64_t sector, uint64_t miner, const char *out)
{
    int64_t id = cuzk_fil_update_proof_for_size(size);
    if (id < 0) {
        cli_errorf("--sector-size %llu: no SnapDeals proof for that size", (unsigned long long)size);
        return 2;
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        cli_errorf("--out %s: %s", out, strerror(errno));
        return 1;
    }
    double t0 = cuzk_now();
    uint8_t **blobs = NULL, r_old[32], d_new[32], r_new[32];
    size_t *lens = NULL, n = 0;
    int rc = cuzk_fil_snap_synthetic(&blobs, &lens, &n, (uint64_t)id, sector, seed, r_old, d_new, r_new) ? 1 : 0;
    if (rc) cli_errorf("snap: synthetic generation failed");
    if (!rc) rc = write_request(out, size, (uint64_t)id, sector, miner, r_old, r_new, d_new, blobs, lens, n);
    if (!rc)
        fprintf(stderr, "snap: synthetic sector %llu (%llu bytes), %zu partitions into %s, %.1f s\n",
                (unsigned long long)sector, (unsigned long long)size, n, out, cuzk_now() - t0);
    free_blobs(blobs, lens, n);
    return rc;
}

int cmd_gen_snap(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    uint64_t seed = 0, size = 0, sector = 1, miner = 1000;
    bool have_seed = false, synthetic = false, have_sector = false, have_miner = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--synthetic")) {
            synthetic = true;
            continue;
        } else if (!strcmp(a, "--sector") && v) dir = v;
        else if (!strcmp(a, "--out") && v) out = v;
        else if (!strcmp(a, "--seed") && v) ok = have_seed = cli_parse_u64(v, &seed);
        else if (!strcmp(a, "--sector-size") && v) ok = cuzk_size_parse(v, &size);
        else if (!strcmp(a, "--sector-id") && v) ok = have_sector = cli_parse_u64(v, &sector);
        else if (!strcmp(a, "--miner") && v) ok = have_miner = cli_parse_u64(v, &miner);
        else ok = false;
        if (!ok) {
            cli_errorf("gen-vanilla snap: bad option %s", a);
            usage();
            return 2;
        }
        i++;
    }
    if (synthetic ? dir || !size : !dir || size || have_sector || have_miner) {
        cli_errorf(synthetic ? "gen-vanilla snap --synthetic: --sector-size and no --sector"
                             : "gen-vanilla snap: --sector DIR (or --synthetic with --sector-size)");
        usage();
        return 2;
    }
    if (!out || !have_seed) {
        usage();
        return 2;
    }
    if (synthetic) return gen_snap_synthetic(size, seed, sector, miner, out);
    if (!strcmp(dir, out)) {
        cli_errorf("--out must differ from --sector (the old replica is kept)");
        return 2;
    }
    cuzk_fil_sector old, nw = {0};
    char err[512];
    if (cuzk_fil_sector_read(&old, dir, err, sizeof err)) {
        cli_errorf("--sector %s: %s", dir, err);
        return 1;
    }
    int64_t id = cuzk_fil_update_proof_for_size(old.sector_size);
    if (id < 0) {
        cli_errorf("--sector %s: no SnapDeals proof for %llu-byte sectors", dir, (unsigned long long)old.sector_size);
        cuzk_fil_sector_free(&old);
        return 1;
    }
    cuzk_rng rng;
    cuzk_rng_seed(&rng, seed);
    double t0 = cuzk_now();
    uint8_t **blobs = NULL;
    size_t *lens = NULL, n = 0;
    int rc = cuzk_fil_snap_generate(&nw, &blobs, &lens, &n, &old, &rng, progress, &t0) ? 1 : 0;
    if (rc) cli_errorf("snap: encoding failed");
    if (!rc && cuzk_fil_sector_write(&nw, out)) {
        cli_errorf("--out %s: cannot write the updated sector", out);
        rc = 1;
    }
    if (!rc)
        rc = write_request(out, old.sector_size, (uint64_t)id, old.sector_id, cuzk_fil_prover_miner(old.prover_id),
                           old.comm_r, nw.comm_r, nw.comm_d, blobs, lens, n);
    fprintf(stderr, "snap: sector %llu updated into %s, %zu partitions, %.1f s\n", (unsigned long long)old.sector_id,
            out, n, cuzk_now() - t0);
    free_blobs(blobs, lens, n);
    cuzk_fil_sector_free(&old);
    cuzk_fil_sector_free(&nw);
    return rc;
}
