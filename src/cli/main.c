/*
 * cuzk: the command-line entry point. Dispatches `cuzk <command> ...` to the
 * command table below; each command parses its own options and has --help.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cuzk/util/error.h"

/* Command entry points (cmd_*.c). */
int cmd_version(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_aggregate(int argc, char **argv);
int cmd_circuit(int argc, char **argv);
int cmd_params(int argc, char **argv);
int cmd_pce(int argc, char **argv);
int cmd_circom(int argc, char **argv);
int cmd_gen_vanilla(int argc, char **argv);
int cmd_c1(int argc, char **argv);
#ifdef CUZK_HAVE_SERVER
int cmd_daemon(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
#endif

static const cuzk_cli_command commands[] = {
    {"version", cmd_version, "print the version and build features"},
    {"setup", cmd_setup, "TEST Groth16 parameters for a built-in circuit (.params, .vk)"},
    {"prove", cmd_prove, "prove witnesses of a built-in circuit on the CPU"},
    {"verify", cmd_verify, "verify proofs against a .vk and the circuit's public inputs"},
    {"aggregate", cmd_aggregate, "SnarkPack: Groth16 proofs (Filecoin PoRep C2 outputs) into one aggregate"},
    {"circuit", cmd_circuit, "circuit info: inputs, aux, constraints, nnz of a Filecoin circuit"},
    {"params", cmd_params, "Filecoin parameter files: check digests against parameters.json, list"},
    {"pce", cmd_pce, "pre-compiled circuit files: inspect"},
    {"gen-vanilla", cmd_gen_vanilla, "Filecoin test inputs: seal a sector, C1 JSON, PoSt and SnapDeals vanilla proofs"},
    {"c1", cmd_c1, "PoRep C1 output (vanilla proofs): check FILE (parse, vanilla verification)"},
    {"circom", cmd_circom, "circom/snarkjs: prove, verify, export-vk, check (BLS12-381)"},
#ifdef CUZK_HAVE_SERVER
    {"daemon", cmd_daemon, "run the proving daemon (gRPC; see docs/install.md)"},
    {"bench", cmd_bench, "client: prove, batch, stress, status, metrics, preload, evict, cancel"},
    {"cluster", cmd_cluster, "the cluster's PostgreSQL queue: status, a job's partitions, load generator"},
#endif
};

int cmd_version(int argc, char **argv)
{
    (void)argc, (void)argv;
#ifdef CUZK_HAVE_CUDA
    const char *cuda = "cuda";
#else
    const char *cuda = "no-cuda";
#endif
    printf("cuzk %s (%s)\n", CUZK_VERSION, cuda);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk <command> [options]   (cuzk <command> --help for its options)\n"
#ifdef CUZK_HAVE_SERVER
               "       cuzk --config FILE [-l ADDR] [--log-level L]   (the daemon, as curio runs it)\n"
#endif
               "\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    /* Line by line even into a file or pipe: a long command killed by a
     * timeout (a 32 GiB setup, a bench on a leased machine) keeps the lines
     * it printed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
#ifdef CUZK_HAVE_SERVER
    /* curio's invocation of its daemon, `cuzk --config FILE` (-c, -l/--listen,
     * --log-level): the daemon, with the same options as `cuzk daemon` */
    static const char *const daemon_flags[] = {"--config", "-c", "--listen", "-l", "--log-level", "--status-listen"};
    for (size_t i = 0; i < sizeof daemon_flags / sizeof daemon_flags[0]; i++) {
        size_t n = strlen(daemon_flags[i]);
        if (!strncmp(argv[1], daemon_flags[i], n) && (argv[1][n] == '\0' || argv[1][n] == '='))
            return cmd_daemon(argc, argv);
    }
#endif
    cli_errorf("unknown command '%s'", argv[1]);
    usage(stderr);
    return 2;
}
