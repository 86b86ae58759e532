/*
 * cuzk circuit info: the size of a Filecoin circuit (inputs, aux, constraints,
 * matrix terms) by synthesizing its blank circuit on a counting constraint
 * system, so that it runs for 32 GiB sectors without storing the matrices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/size.h"
#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/circuits/post.h"
#include "cuzk/circuits/update.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk circuit info --kind porep|window-post|winning-post|update|update-poseidon\n"
               "                         --sector-size SIZE\n"
               "                         [--non-interactive] [--partitions] [--threads N]\n"
               "  SIZE: 2KiB 4KiB 16KiB 32KiB 8MiB 16MiB 512MiB 1GiB 32GiB 64GiB\n"
               "  (update, the SnapDeals circuit: also 1KiB 8KiB, not 1GiB)\n"
               "  prints inputs (with ONE), aux, constraints (without and with the one\n"
               "  constraint per input) and the terms of A, B, C for one partition;\n"
               "  --partitions also prints the totals over all partitions (PoRep);\n"
               "  --non-interactive: NI-PoRep; --threads: PoSt synthesis threads (0: all CPUs).\n");
}

static int circuit_info(int argc, char **argv)
{
    const char *kind = NULL;
    uint64_t size = 0;
    bool ni = false, parts = false;
    uint64_t threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
            kind = argv[++i];
        } else if (!strcmp(argv[i], "--sector-size") && i + 1 < argc) {
            if (!cuzk_size_parse(argv[++i], &size)) {
                cli_errorf("bad sector size '%s'", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--non-interactive")) {
            ni = true;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (!cli_parse_u64(argv[++i], &threads) || threads > 1024) {
                cli_errorf("bad thread count '%s'", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--partitions")) {
            parts = true;
        } else {
            cli_errorf("unknown option '%s'", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!kind || !size) {
        usage(stderr);
        return 2;
    }
    bool porep = !strcmp(kind, "porep"), window = !strcmp(kind, "window-post"), winning = !strcmp(kind, "winning-post");
    bool update = !strcmp(kind, "update"), update_p = !strcmp(kind, "update-poseidon");
    update |= update_p;
    if (!porep && !window && !winning && !update) {
        cli_errorf("circuit kind '%s' is not implemented (porep, window-post, winning-post, update, "
                   "update-poseidon)",
                   kind);
        return 1;
    }
    cuzk_porep_config cfg;
    cuzk_post_config pcfg;
    cuzk_update_config ucfg;
    if (porep    ? cuzk_porep_config_for(&cfg, size, ni)
        : update ? cuzk_update_config_for(&ucfg, size)
                 : cuzk_post_config_for(&pcfg, size, window ? CUZK_POST_WINDOW : CUZK_POST_WINNING)) {
        cli_errorf("sector size %llu is not a registered sector size", (unsigned long long)size);
        return 2;
    }
    cuzk_count_cs *k = cuzk_count_cs_new();
    if (!k) {
        cli_errorf("out of memory");
        return 1;
    }
    cuzk_cs *cs = &k->base;
    double t0 = cuzk_now();
    int e = cuzk_cs_alloc_one(cs);
    if (!e)
        e = porep    ? cuzk_porep_circuit(cs, &cfg, NULL)
            : update ? (update_p ? cuzk_update_poseidon_circuit(cs, &ucfg, NULL) : cuzk_update_circuit(cs, &ucfg, NULL))
                     : cuzk_post_circuit(cs, &pcfg, NULL, (unsigned)threads);
    size_t constraints = cs->num_constraints;
    if (!e) e = cuzk_cs_finalize(cs);
    double dt = cuzk_now() - t0;
    if (e) {
        cli_errorf("synthesis failed: %s", cuzk_strerror(e));
        cuzk_cs_free(cs);
        return 1;
    }
    if (porep) {
        printf("circuit      porep %s (%llu bytes, %u layers, %u challenges, tree %u-%u-%u)\n",
               ni ? "non-interactive" : "interactive", (unsigned long long)size, cfg.layers, cfg.challenges,
               cfg.tree.base_arity, cfg.tree.sub_arity, cfg.tree.top_arity);
        printf("partitions   %u\n", cfg.partitions);
    } else if (update) {
        printf("circuit      %s (%llu bytes, %u challenges, %u apex leaves, tree %u-%u-%u)\n", kind,
               (unsigned long long)size, update_p ? ucfg.challenges * ucfg.partitions : ucfg.challenges,
               update_p ? 0 : ucfg.apex_leaves, ucfg.tree.base_arity, ucfg.tree.sub_arity, ucfg.tree.top_arity);
        printf("partitions   %u\n", update_p ? 1 : ucfg.partitions);
    } else {
        printf("circuit      %s (%llu bytes, %u sectors x %u challenges, tree %u-%u-%u)\n", kind,
               (unsigned long long)size, pcfg.sectors, pcfg.challenges, pcfg.tree.base_arity, pcfg.tree.sub_arity,
               pcfg.tree.top_arity);
    }
    printf("inputs       %zu\n", cs->num_inputs);
    printf("aux          %zu\n", cs->num_aux);
    printf("constraints  %zu (+%zu input constraints = %zu)\n", constraints, cs->num_inputs,
           cs->num_constraints);
    printf("nnz A        %zu\nnnz B        %zu\nnnz C        %zu\n", k->nnz[0], k->nnz[1], k->nnz[2]);
    if (parts && porep)
        printf("all partitions: %zu constraints, %zu inputs\n", cs->num_constraints * cfg.partitions,
               cs->num_inputs * cfg.partitions);
    fprintf(stderr, "counted in %.1f s (%.2f M constraints/s)\n", dt, (double)cs->num_constraints / dt / 1e6);
    cuzk_cs_free(cs);
    return 0;
}

int cmd_circuit(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "info")) return circuit_info(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
