/* cuzk c1 check FILE: parse a PoRep C1 output (inner JSON or curio's wrapper), run the vanilla
 * verification with rebuilt public values (include/cuzk/filecoin/c1.h) and print a summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"

static int c1_check(int argc, char **argv)
{
    const char *file = NULL;
    uint64_t miner = UINT64_MAX, sector = UINT64_MAX, rp = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--miner-id") && i + 1 < argc && cli_parse_u64(argv[i + 1], &miner)) i++;
        else if (!strcmp(argv[i], "--sector-id") && i + 1 < argc && cli_parse_u64(argv[i + 1], &sector)) i++;
        else if (!strcmp(argv[i], "--registered-proof") && i + 1 < argc && cli_parse_u64(argv[i + 1], &rp)) i++;
        else if (argv[i][0] != '-' && !file) file = argv[i];
        else {
            cli_errorf("c1 check: bad argument %s", argv[i]);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "usage: cuzk c1 check FILE [--miner-id N --sector-id N] [--registered-proof ID]\n"
                        "  parses FILE (SealCommitPhase1Output JSON or curio's wrapper); with the miner and\n"
                        "  sector ids also runs the vanilla verification with rebuilt public inputs\n");
        return 2;
    }
    size_t len = 0;
    uint8_t *buf = cli_read_file("c1 check", file, &len);
    if (!buf) return 1;
    char err[512];
    cuzk_fil_c1 *c1;
    double t0 = cuzk_now();
    int rc = cuzk_fil_c1_parse_threads(buf, len, cli_default_threads(), &c1, err, sizeof err);
    free(buf);
    if (rc) {
        cli_errorf("c1 check: %s: %s", file, err);
        return 1;
    }
    printf("%s: %s%s, %llu bytes, %u partition(s) x %u challenges, %u layers (parsed in %.2f s)\n", file,
           c1->rp->name, c1->wrapped ? " (curio wrapper)" : "", (unsigned long long)c1->cfg.sector_size,
           c1->cfg.partitions, c1->cfg.challenges, c1->cfg.layers, cuzk_now() - t0);
    if (miner != UINT64_MAX && sector != UINT64_MAX) {
        t0 = cuzk_now();
        rc = cuzk_fil_c1_check_threads(c1, rp != UINT64_MAX ? rp : c1->registered_proof, miner, sector,
                                       cli_default_threads(), err, sizeof err);
        if (rc) cli_errorf("c1 check: %s: %s", file, err);
        else printf("vanilla verification passed with rebuilt replica_id, challenges and parents (%.2f s)\n",
                    cuzk_now() - t0);
    }
    cuzk_fil_c1_free(c1);
    return rc ? 1 : 0;
}

int cmd_c1(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "check")) return c1_check(argc - 1, argv + 1);
    fprintf(stderr, "usage: cuzk c1 check FILE [--miner-id N --sector-id N] [--registered-proof ID]\n");
    return 2;
}
