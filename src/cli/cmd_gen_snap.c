/*
 * cuzk gen-vanilla snap: SnapDeals for a sealed-sector directory (cmd_gen.c). New random data
 * from --seed is encoded into the replica (cuzk_fil_snap_generate, fil_vanilla.h); OUT becomes
 * the updated sector's directory (so PoSt can run on it) and holds the request that proves it:
 *   OUT/sector.json, data.bin, replica.bin   the updated sector (comm_d, comm_r new)
 *   OUT/vanilla-p<k>.bin                     partition k's vanilla proof (PartitionProof bincode)
 *   OUT/request.json                         the request file (request_file.h)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/fil_vanilla.h"
#include "request_file.h"

static void usage(void)
{
    fprintf(stderr, "usage: cuzk gen-vanilla snap --sector DIR --seed N --out DIR2\n"
                    "  DIR2 becomes the updated sector's directory, with its vanilla proofs and request.json\n");
}

static void progress(void *ctx, unsigned done, unsigned total)
{
    fprintf(stderr, "snap: partition %u/%u, %.1f s\n", done, total, cli_now() - *(double *)ctx);
}

int cmd_gen_snap(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    uint64_t seed = 0;
    bool have_seed = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--sector") && v) dir = v;
        else if (!strcmp(a, "--out") && v) out = v;
        else if (!strcmp(a, "--seed") && v) ok = have_seed = cli_parse_u64(v, &seed);
        else ok = false;
        if (!ok) {
            cli_errorf("gen-vanilla snap: bad option %s", a);
            usage();
            return 2;
        }
        i++;
    }
    if (!dir || !out || !have_seed) {
        usage();
        return 2;
    }
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
    double t0 = cli_now();
    uint8_t **blobs = NULL;
    size_t *lens = NULL, n = 0;
    int rc = cuzk_fil_snap_generate(&nw, &blobs, &lens, &n, &old, &rng, progress, &t0) ? 1 : 0;
    if (rc) cli_errorf("snap: encoding failed");
    if (!rc && cuzk_fil_sector_write(&nw, out)) {
        cli_errorf("--out %s: cannot write the updated sector", out);
        rc = 1;
    }
    char **names = calloc(n ? n : 1, sizeof *names);
    for (size_t k = 0; k < n && !rc; k++) {
        char path[4096];
        names[k] = malloc(48);
        snprintf(names[k], 48, "vanilla-p%zu.bin", k);
        snprintf(path, sizeof path, "%s/%s", out, names[k]);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(blobs[k], 1, lens[k], f) != lens[k]) rc = 1;
        if (f && fclose(f)) rc = 1;
        if (rc) cli_errorf("%s: cannot write", path);
    }
    if (!rc) {
        uint64_t miner = cuzk_fil_prover_miner(old.prover_id);
        cli_request r = {.proof_kind = "snap",
                         .sector_size = old.sector_size,
                         .registered_proof = (uint64_t)id,
                         .sector_number = old.sector_id,
                         .miner_id = miner,
                         .present = CUZK_FIL_REQ_COMM_R_OLD | CUZK_FIL_REQ_COMM_R_NEW | CUZK_FIL_REQ_COMM_D_NEW,
                         .num_blobs = n,
                         .blob_files = names};
        memcpy(r.comm_r_old, old.comm_r, 32);
        memcpy(r.comm_r_new, nw.comm_r, 32);
        memcpy(r.comm_d_new, nw.comm_d, 32);
        char path[4096];
        snprintf(path, sizeof path, "%s/request.json", out);
        if (cli_request_write(path, &r)) {
            cli_errorf("%s: cannot write", path);
            rc = 1;
        }
    }
    fprintf(stderr, "snap: sector %llu updated into %s, %zu partitions, %.1f s\n", (unsigned long long)old.sector_id,
            out, n, cli_now() - t0);
    for (size_t k = 0; k < n; k++) {
        free(blobs[k]);
        free(names[k]);
    }
    free(blobs);
    free(lens);
    free(names);
    cuzk_fil_sector_free(&old);
    cuzk_fil_sector_free(&nw);
    return rc;
}
