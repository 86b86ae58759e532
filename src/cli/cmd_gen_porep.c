/*
 * cuzk gen-vanilla porep: seal a small sector natively and write its
 * directory (cmd_gen.c) with the C1 output in both encodings (c1.json, the
 * inner SealCommitPhase1Output JSON; c1-curio.json, curio's wrapper) and a
 * request file; or, with --synthetic, only the C1 of a full-size sector
 * (sparse trees, see include/cuzk/filecoin_gen/seal.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/size.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin_gen/seal.h"
#include "cuzk/filecoin_gen/fil_request_file.h"

typedef struct prog {
    double t0, last;
} prog;

static void on_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    prog *p = ctx;
    double t = cuzk_now();
    if (t - p->last < 1.0) return; /* quiet for runs under a second */
    p->last = t;
    fprintf(stderr, "porep: %-14s %5.1f%%  (%.1f s)\n", phase, total ? 100.0 * (double)done / (double)total : 0.0,
            t - p->t0);
}

/* StackedDrg<size>V1_1 for a registered size (V1_2_Feat_NonInteractivePoRep with ni); for the
 * test-only sizes the 2KiB proof. */
static uint64_t default_proof(uint64_t size, int ni)
{
    static const struct {
        uint64_t size;
        const char *name;
    } T[] = {{1ull << 11, "StackedDrg2KiBV1_1"},     {1ull << 23, "StackedDrg8MiBV1_1"},
             {1ull << 29, "StackedDrg512MiBV1_1"},   {1ull << 35, "StackedDrg32GiBV1_1"},
             {1ull << 36, "StackedDrg64GiBV1_1"}};
    const char *name = "StackedDrg2KiBV1_1";
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (T[i].size == size) name = T[i].name;
    char ni_name[64];
    /* "StackedDrg2KiBV1_1" -> "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep" */
    snprintf(ni_name, sizeof ni_name, "%.*sV1_2_Feat_NonInteractivePoRep", (int)(strlen(name) - 4), name);
    return cuzk_fil_seal_proof_by_name(ni ? ni_name : name)->id;
}

static int write_c1_files(const cuzk_fil_c1 *c1, const char *dir, uint64_t sector_id, uint64_t miner_id)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/c1.json", dir);
    FILE *f = fopen(path, "w");
    int rc = f ? cuzk_fil_c1_write(c1, f) : CUZK_ERR_IO;
    if (f && fclose(f)) rc = CUZK_ERR_IO;
    if (rc) return rc;
    snprintf(path, sizeof path, "%s/c1-curio.json", dir);
    f = fopen(path, "w");
    rc = f ? cuzk_fil_c1_write_wrapped(c1, sector_id, f) : CUZK_ERR_IO;
    if (f && fclose(f)) rc = CUZK_ERR_IO;
    if (rc) return rc;
    char *files[1] = {"c1.json"};
    int ni = c1->rp && c1->rp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE;
    cuzk_fil_request_file r = {.proof_kind = ni ? "ni-porep" : "porep",
                     .sector_size = c1->cfg.sector_size,
                     .registered_proof = c1->registered_proof,
                     .sector_number = sector_id,
                     .miner_id = miner_id,
                     .single = 1,
                     .num_blobs = 1,
                     .blob_files = files};
    snprintf(path, sizeof path, "%s/request.json", dir);
    return cuzk_fil_request_file_write(path, &r) ? CUZK_ERR_IO : 0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: cuzk gen-vanilla porep --sector-size SIZE --out DIR [--seed N] [--registered-proof ID]\n"
            "                              [--miner-id N] [--sector-id N] [--threads N] [--synthetic]\n"
            "                              [--non-interactive]\n"
            "  seals a sector (2KiB, 4KiB, 16KiB, 32KiB, 8MiB, 16MiB, 512MiB) natively into DIR\n"
            "  (sector.json, data.bin, replica.bin) and writes the C1 output of the seed's\n"
            "  challenges: DIR/c1.json (SealCommitPhase1Output), DIR/c1-curio.json (curio's\n"
            "  wrapper) and DIR/request.json. Test-only sizes (4KiB, 16KiB, 32KiB) have no C1 form.\n"
            "  --synthetic: only the C1 of a full-size sector (any registered size, e.g. 32GiB),\n"
            "  without sealing: random parent columns, sparse trees (for benchmarks).\n"
            "  --non-interactive: an NI-PoRep C1 (StackedDrg<size>V1_2_Feat_NonInteractivePoRep: its\n"
            "  challenges from replica_id and comm_r, 13 partitions at 2KiB), request kind ni-porep.\n"
            "  Deterministic given --seed (default 1). Registered proof default: StackedDrg<size>V1_1.\n");
}

int cmd_gen_porep(int argc, char **argv)
{
    cuzk_seal_params p = {.miner_id = 1000, .sector_id = 1, .seed = 1};
    uint64_t size = 0, rp = UINT64_MAX;
    const char *out = NULL;
    int synthetic = 0, ni = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--synthetic") || !strcmp(a, "--non-interactive")) {
            *(a[2] == 's' ? &synthetic : &ni) = 1;
            continue;
        } else if (!v) {
            usage();
            return 2;
        }
        i++;
        if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--sector-size") && cuzk_size_parse(v, &size)) continue;
        else if (!strcmp(a, "--seed") && cli_parse_u64(v, &p.seed)) continue;
        else if (!strcmp(a, "--registered-proof") && cli_parse_u64(v, &rp)) continue;
        else if (!strcmp(a, "--miner-id") && cli_parse_u64(v, &p.miner_id)) continue;
        else if (!strcmp(a, "--sector-id") && cli_parse_u64(v, &p.sector_id)) continue;
        else if (!strcmp(a, "--threads") && cli_parse_u64(v, &x) && x < 1024) p.nthreads = (unsigned)x;
        else {
            cli_errorf("gen-vanilla porep: bad option %s %s", a, v);
            return 2;
        }
    }
    if (!out || !size) {
        usage();
        return 2;
    }
    p.registered_proof = rp != UINT64_MAX ? rp : default_proof(size, ni);
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(p.registered_proof);
    if (!sp) {
        cli_errorf("gen-vanilla porep: unknown registered proof %llu", (unsigned long long)p.registered_proof);
        return 2;
    }
    if (ni && sp->feature != CUZK_FIL_FEAT_NON_INTERACTIVE) {
        cli_errorf("gen-vanilla porep: --non-interactive and %s, which is not an NI-PoRep proof", sp->name);
        return 2;
    }
    if (!p.nthreads) p.nthreads = cli_default_threads();
    p.sector_size = size;
    prog pr = {cuzk_now(), cuzk_now()};
    p.progress = on_progress;
    p.progress_ctx = &pr;
    cuzk_fil_c1 *c1 = NULL;
    int rc;
    if (synthetic) {
        if (sp->sector_size != size) {
            cli_errorf("gen-vanilla porep: %s is for %llu-byte sectors", sp->name, (unsigned long long)sp->sector_size);
            return 2;
        }
        rc = cuzk_seal_synthetic_c1(&p, &c1);
        if (rc) {
            cli_errorf("gen-vanilla porep: synthetic C1 failed (%d; interactive proofs only)", rc);
            return 1;
        }
        if (mkdir(out, 0777) && errno != EEXIST) {
            cli_errorf("gen-vanilla porep: cannot create %s", out);
            cuzk_fil_c1_free(c1);
            return 1;
        }
    } else {
        if (sp->sector_size != size && cuzk_fil_c1_size_key(size)) {
            cli_errorf("gen-vanilla porep: %s is for %llu-byte sectors", sp->name, (unsigned long long)sp->sector_size);
            return 2;
        }
        cuzk_sealed_sector s;
        rc = cuzk_seal(&s, &p);
        if (rc) {
            cli_errorf("gen-vanilla porep: cannot seal a %llu-byte sector (%d)", (unsigned long long)size, rc);
            return 1;
        }
        rc = cuzk_seal_write_dir(&s, out);
        if (!rc && cuzk_fil_c1_size_key(size)) rc = cuzk_seal_c1(&s, &c1);
        cuzk_sealed_sector_free(&s);
        if (rc) {
            cli_errorf("gen-vanilla porep: writing %s failed (%d)", out, rc);
            return 1;
        }
    }
    if (c1) {
        rc = write_c1_files(c1, out, p.sector_id, p.miner_id);
        if (rc) cli_errorf("gen-vanilla porep: writing the C1 into %s failed", out);
        else
            printf("%s: %s, %u partition(s) x %u challenges, miner %llu sector %llu (%.1f s)\n", out, sp->name,
                   c1->cfg.partitions, c1->cfg.challenges, (unsigned long long)p.miner_id,
                   (unsigned long long)p.sector_id, cuzk_now() - pr.t0);
        cuzk_fil_c1_free(c1);
    } else {
        printf("%s: sealed %llu bytes (test-only size: no C1 form)\n", out, (unsigned long long)size);
    }
    return rc ? 1 : 0;
}
