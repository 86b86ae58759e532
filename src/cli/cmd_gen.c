/*
 * cuzk gen-vanilla: Filecoin inputs for tests, demos and benchmarks, made
 * without lotus or Rust. Each kind lives in its own file (cmd_gen_*.c).
 *
 * A sealed sector is a directory (written by `gen-vanilla porep`, read by
 * the PoSt and SnapDeals generators):
 *   sector.json  {"sector_size", "registered_proof", "sector_id", "prover_id",
 *                 "ticket", "comm_d", "comm_r", "comm_c", "comm_r_last",
 *                 "replica_id"}; 32-byte values as 64 hex digits of their
 *                 little-endian (Fr repr) bytes
 *   data.bin     nodes x 32 bytes: the unsealed (fr32) data, leaf order
 *   replica.bin  nodes x 32 bytes: the replica, i.e. the leaves of tree R
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_gen_porep(int argc, char **argv);
int cmd_gen_post(int argc, char **argv);
int cmd_gen_snap(int argc, char **argv);

static const cuzk_cli_command gen_commands[] = {
    {"porep", cmd_gen_porep, "seal a sector natively and write its C1 output (JSON)"},
    {"window-post", cmd_gen_post, "WindowPoSt vanilla proofs for sealed sectors"},
    {"winning-post", cmd_gen_post, "WinningPoSt vanilla proof for a sealed sector"},
    {"snap", cmd_gen_snap, "SnapDeals: re-encode a sealed sector with new data (or --synthetic), vanilla proofs"},
};

int cmd_gen_vanilla(int argc, char **argv)
{
    if (argc >= 2) {
        for (size_t i = 0; i < sizeof gen_commands / sizeof gen_commands[0]; i++)
            if (!strcmp(argv[1], gen_commands[i].name)) return gen_commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "usage: cuzk gen-vanilla <kind> [options]   (--help after a kind for its options)\n");
    for (size_t i = 0; i < sizeof gen_commands / sizeof gen_commands[0]; i++)
        fprintf(stderr, "  %-13s %s\n", gen_commands[i].name, gen_commands[i].summary);
    return 2;
}
