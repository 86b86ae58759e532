/*
 * cuzk verify --kind porep|window-post|winning-post|snap: a Filecoin proof (the daemon's bytes,
 * one 192-byte Groth16 proof per partition) checked against the values filecoin-ffi's verifiers
 * take, its public inputs derived by cuzk (cuzk/filecoin/fil_statement.h, cuzk/kinds/fil_verify.h). Prints a
 * verdict per partition; exit 0 VALID, 1 INVALID, 2 bad input.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/filecoin/fil_statement.h"
#include "cuzk/kinds/fil_verify.h"
#include "cuzk/groth16/groth16_params.h"

/* Options that are statement values: --comm-r is "comm_r", ... (index = option value). */
static const char *const value_opts[] = {"kind", "registered-proof", "sector-size", "miner", "prover-id",
                                         "sector-number", "comm-r", "comm-d", "ticket", "seed", "randomness",
                                         "comm-r-old", "comm-r-new", "comm-d-new", "sector", "partition"};
#define NVALUE (sizeof value_opts / sizeof value_opts[0])
enum { OPT_VK = 300, OPT_PARAM_CACHE, OPT_PROOF, OPT_VALUES, OPT_PUBLIC_OUT, OPT_HELP };

static const char help[] =
    "usage: cuzk verify --kind porep|window-post|winning-post|snap --proof FILE [values] [--values FILE]\n"
    "       (--kind ni-porep and --kind aggregate: SnarkPack aggregates, see their --help)\n\n"
    "Verifies a Filecoin proof (one 192-byte Groth16 proof per partition, in partition order, as\n"
    "the daemon returns it) from the values filecoin-ffi's verify_seal, verify_window_post,\n"
    "verify_winning_post and verify_empty_sector_update_proof take; cuzk derives every public\n"
    "input. Prints VALID or INVALID per partition. Exit 0 VALID, 1 INVALID, 2 bad input.\n\n"
    "values (or the same names as a JSON object in --values FILE; see docs/filecoin.md):\n"
    "  --registered-proof ID|NAME  or --sector-size SIZE (the current proof of that size)\n"
    "  porep:         --miner f01000 (or --prover-id HEX) --sector-number N --comm-r --comm-d\n"
    "                 --ticket --seed\n"
    "  window-post:   --randomness --sector NUMBER:COMM_R (each challenged sector)\n"
    "  winning-post:  --randomness --sector NUMBER:COMM_R (the challenged sector)\n"
    "  snap:          --comm-r-old --comm-r-new --comm-d-new\n"
    "  --partition K  the proof holds partition K only (a daemon's per-partition answer)\n"
    "  commitments: 64 hex digits or the CID lotus prints (bagboea4b5abc..., baga6ea4seaq...);\n"
    "  ticket, seed, randomness: 64 hex digits or base64\n\n"
    "files:\n"
    "  --proof FILE        the proof bytes\n"
    "  --vk FILE           the verifying key (bellperson .vk); default: the Filecoin name in the\n"
    "  --param-cache DIR   parameter cache (default $FIL_PROOFS_PARAMETER_CACHE or\n"
    "                      /var/tmp/filecoin-proof-parameters)\n"
    "  --public-out FILE   also write the derived public inputs (32-byte little-endian, a row per proof)\n";

/* The statement from the options (the value options in order, --values FILE first); 0 or 2. */
static int read_statement(cuzk_fil_statement *st, int argc, char **argv, const char **files)
{
    static struct option opts[NVALUE + 7];
    for (size_t i = 0; i < NVALUE; i++) opts[i] = (struct option){value_opts[i], required_argument, 0, (int)i};
    const struct option more[] = {{"vk", required_argument, 0, OPT_VK},
                                  {"param-cache", required_argument, 0, OPT_PARAM_CACHE},
                                  {"proof", required_argument, 0, OPT_PROOF},
                                  {"values", required_argument, 0, OPT_VALUES},
                                  {"public-out", required_argument, 0, OPT_PUBLIC_OUT},
                                  {"help", no_argument, 0, OPT_HELP},
                                  {0, 0, 0, 0}};
    memcpy(opts + NVALUE, more, sizeof more);
    char err[512], name[32];
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (opt == OPT_HELP) return fputs(help, stdout), -1;
        if (opt >= OPT_VK && opt <= OPT_PUBLIC_OUT) {
            files[opt - OPT_VK] = optarg;
            continue;
        }
        if (opt < 0 || opt >= (int)NVALUE) return fprintf(stderr, "(cuzk verify --kind K --help for the options)\n"), 2;
        snprintf(name, sizeof name, "%s", value_opts[opt]);
        for (char *p = name; *p; p++) *p = *p == '-' ? '_' : *p;
        if (cuzk_fil_statement_set(st, name, optarg, err, sizeof err))
            return cli_errorf("--%s: %s", value_opts[opt], err), 2;
    }
    if (optind < argc) return cli_errorf("unexpected argument '%s'", argv[optind]), 2;
    return 0;
}

/* The JSON values of --values FILE; 0 or 2. */
static int read_values(cuzk_fil_statement *st, const char *path)
{
    size_t len;
    char err[512];
    uint8_t *b = cli_read_file("--values", path, &len);
    if (!b) return 2;
    int rc = cuzk_fil_statement_set_json(st, (const char *)b, len, err, sizeof err);
    free(b);
    if (rc) return cli_errorf("--values %s: %s", path, err), 2;
    return 0;
}

/* The verifying key (--vk, else the Filecoin name in the parameter cache) and whose it is. */
static int read_vk(cuzk_groth16_vk *vk, const cuzk_fil_statement *st, const char *path, const char *dir)
{
    cuzk_fil_param_files pf;
    if (cuzk_fil_param_files_for(&pf, st->circuit, st->registered_proof, dir))
        return cli_errorf("--param-cache: path too long"), 2;
    const char *file = path ? path : pf.vk, *base = strrchr(pf.vk, '/');
    size_t len;
    uint8_t *b = cli_read_file("vk", file, &len);
    if (!b) return 2;
    cuzk_groth16_error e;
    size_t used;
    int rc = cuzk_groth16_vk_read_mem(vk, b, len, &used, &e);
    if (!rc && used != len) rc = CUZK_ERR_FORMAT, snprintf(e.msg, sizeof e.msg, "%zu bytes after the key", len - used);
    char note[256] = "";
    bool ceremony = !rc && cuzk_fil_param_listed(NULL, base ? base + 1 : pf.vk, b, len, note, sizeof note);
    free(b);
    if (rc) return cli_errorf("vk %s: %s", file, e.msg), 2;
    printf("vk: %s: %s\n    %s\n", file, note,
           ceremony ? "the ceremony's key, the one the chain verifies with"
                    : "NOT the ceremony's key (TEST parameters?): a VALID here says nothing about the chain");
    return 0;
}

static int write_public(const cuzk_fil_statement *st, const char *path)
{
    uint32_t n = cuzk_fil_statement_proofs(st);
    cuzk_fr *x = malloc(sizeof *x * st->num_inputs);
    uint8_t *out = malloc((size_t)n * st->num_inputs * 32 + 1);
    int rc = x && out ? 0 : CUZK_ERR_NO_MEMORY;
    for (uint32_t i = 0; !rc && i < n; i++) {
        rc = cuzk_fil_statement_inputs(st, i, x);
        for (size_t j = 0; !rc && j < st->num_inputs; j++)
            cuzk_fr_to_le32(out + ((size_t)i * st->num_inputs + j) * 32, &x[j]);
    }
    if (rc) cli_errorf("--public-out: %s", cuzk_strerror(rc));
    else rc = cli_write_file(path, out, (size_t)n * st->num_inputs * 32);
    free(x), free(out);
    return rc ? 2 : 0;
}

/* Prints the verdicts; the exit status. */
static int report(const cuzk_fil_statement *st, int rc, const cuzk_fil_verdict *v, const char *err)
{
    if (rc && rc != CUZK_ERR_VERIFY_FAILED) return cli_errorf("%s", err), 2;
    for (uint32_t i = 0; i < cuzk_fil_statement_proofs(st); i++)
        printf("partition %u: %s%s%s\n", v[i].partition, v[i].valid ? "VALID" : "INVALID", v[i].valid ? "" : ": ",
               v[i].why);
    puts(rc ? "INVALID" : "VALID");
    return rc ? 1 : 0;
}

int cmd_verify_aggregate(int argc, char **argv);
int cmd_verify_ni(int argc, char **argv);

/* --kind K (or --kind=K) given. */
static bool kind_is(int argc, char **argv, const char *k)
{
    char eq[32];
    snprintf(eq, sizeof eq, "--kind=%s", k);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], eq) || (!strcmp(argv[i], "--kind") && i + 1 < argc && !strcmp(argv[i + 1], k)))
            return true;
    return false;
}

int cmd_verify_filecoin(int argc, char **argv)
{
    /* SnarkPack aggregates: cmd_aggregate.c */
    if (kind_is(argc, argv, "aggregate")) return cmd_verify_aggregate(argc, argv);
    if (kind_is(argc, argv, "ni-porep")) return cmd_verify_ni(argc, argv);
    cuzk_fil_statement st;
    cuzk_fil_statement_init(&st);
    const char *files[5] = {0}; /* vk, param cache, proof, values, public out */
    char err[512];
    cuzk_groth16_vk vk = {0};
    uint8_t *proof = NULL;
    cuzk_fil_verdict *v = NULL;
    int ret = read_statement(&st, argc, argv, files);
    if (ret) goto out;
    if (!files[2]) ret = 2, cli_errorf("--proof FILE: missing");
    else if (files[3]) ret = read_values(&st, files[3]);
    if (!ret && cuzk_fil_statement_finish(&st, err, sizeof err)) ret = 2, cli_errorf("%s", err);
    if (ret) goto out;
    printf("verify: %s, registered proof %llu, %llu-byte sectors, %u of %u partition(s), %zu public inputs each\n",
           cuzk_fil_stmt_kind_name(st.kind), (unsigned long long)st.registered_proof,
           (unsigned long long)st.sector_size, cuzk_fil_statement_proofs(&st), st.partitions, st.num_inputs);
    size_t len;
    if ((ret = read_vk(&vk, &st, files[0], files[1] ? files[1] : cli_param_cache_dir()))) goto out;
    if (!(proof = cli_read_file("--proof", files[2], &len))) {
        ret = 2;
        goto out;
    }
    if (files[4] && (ret = write_public(&st, files[4]))) goto out;
    v = calloc(cuzk_fil_statement_proofs(&st), sizeof *v);
    int rc = v ? cuzk_fil_verify(&st, &vk, proof, len, v, err, sizeof err) : CUZK_ERR_NO_MEMORY;
    if (!v) snprintf(err, sizeof err, "out of memory");
    ret = report(&st, rc, v, err);
out:
    if (ret == -1) ret = 0; /* --help */
    cuzk_groth16_vk_free(&vk);
    cuzk_fil_statement_free(&st);
    free(proof), free(v);
    return ret;
}
