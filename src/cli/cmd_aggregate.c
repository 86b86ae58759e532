/*
 * SnarkPack on the command line (cuzk/groth16/snarkpack.h, cuzk/kinds/fil_aggregate.h):
 *   cuzk setup --aggregation --out DIR [--max N]   a TEST SRS under Filecoin's file name
 *   cuzk aggregate ...                              Groth16 proofs into one aggregate
 *   cuzk verify --kind aggregate ...                an aggregate checked
 *   cuzk verify --kind ni-porep ...                 an NI-PoRep C2 proof (its partitions' aggregate)
 * Filecoin form: the values filecoin-ffi's aggregate_seal_proofs / verify_aggregate_seal_proof
 * take (registered proof, prover, per sector NUMBER:COMM_R:COMM_D:TICKET:SEED, version); plain
 * form: any circuit's proofs with --public rows and --include transcript bytes.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/gpu/snarkpack_gpu.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_aggregate.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/filecoin/fil_statement.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/util/hex.h"
#include "cuzk/util/size.h"

/* --proof files: a ProveCommitAggregate's 819 sectors, FIP-0092's 65 NI-PoRep sectors */
#define AGG_MAX_FILES 1024

enum { O_SRS = 400, O_VK, O_PROOF, O_OUT, O_VERSION, O_RP, O_MINER, O_PROVER, O_SECTOR, O_PUBLIC, O_INCLUDE,
       O_THREADS, O_MAX, O_AGG, O_KIND, O_DEVICE, O_HELP };

typedef struct {
    const char *srs, *vk, *out, *pub, *include, *device;
    const char *proof[AGG_MAX_FILES];
    size_t nproof;
    int version;
    unsigned threads;
    uint64_t max;
    cuzk_fil_agg_values v;
    cuzk_fil_agg_sector *sectors;
    int have_rp, have_prover;
} agg_args;

static const struct option agg_opts[] = {
    {"srs", required_argument, 0, O_SRS}, {"vk", required_argument, 0, O_VK},
    {"proof", required_argument, 0, O_PROOF}, {"out", required_argument, 0, O_OUT},
    {"aggregate-version", required_argument, 0, O_VERSION}, {"registered-proof", required_argument, 0, O_RP},
    {"miner", required_argument, 0, O_MINER}, {"prover-id", required_argument, 0, O_PROVER},
    {"sector", required_argument, 0, O_SECTOR}, {"public", required_argument, 0, O_PUBLIC},
    {"include", required_argument, 0, O_INCLUDE}, {"threads", required_argument, 0, O_THREADS},
    {"max", required_argument, 0, O_MAX}, {"aggregation", no_argument, 0, O_AGG},
    {"kind", required_argument, 0, O_KIND}, {"device", required_argument, 0, O_DEVICE},
    {"help", no_argument, 0, O_HELP}, {0, 0, 0, 0}};

/* One statement value parsed as `cuzk verify` parses it (hex, CID, base64, ID address). */
static int parse_value(const char *field, const char *text, uint8_t out[32], const char *opt)
{
    cuzk_fil_statement st;
    char err[256];
    cuzk_fil_statement_init(&st);
    int rc = cuzk_fil_statement_set(&st, field, text, err, sizeof err);
    if (!rc) {
        const uint8_t *src = !strcmp(field, "comm_r") ? st.comm_r : !strcmp(field, "comm_d") ? st.comm_d
                             : !strcmp(field, "ticket") ? st.ticket : !strcmp(field, "seed") ? st.seed : st.prover_id;
        memcpy(out, src, 32);
    }
    cuzk_fil_statement_free(&st);
    if (rc) cli_errorf("--%s: %s", opt, err);
    return rc ? 2 : 0;
}

/* NUMBER:COMM_R:COMM_D:TICKET:SEED */
static int parse_sector(agg_args *a, const char *text)
{
    static const char *const f[4] = {"comm_r", "comm_d", "ticket", "seed"};
    char *s = strdup(text), *save = NULL, *tok = strtok_r(s, ":", &save);
    cuzk_fil_agg_sector *n = realloc(a->sectors, (a->v.num_sectors + 1) * sizeof *n), *x;
    int rc = s && n ? 0 : 2;
    if (n) a->sectors = n;
    x = n ? &n[a->v.num_sectors] : NULL;
    uint64_t num;
    if (!rc && (!tok || !cli_parse_u64(tok, &num))) rc = 2, cli_errorf("--sector: expected NUMBER:COMM_R:COMM_D:TICKET:SEED");
    if (!rc) x->sector_number = num;
    uint8_t *dst[4] = {x ? x->comm_r : NULL, x ? x->comm_d : NULL, x ? x->ticket : NULL, x ? x->seed : NULL};
    for (int i = 0; !rc && i < 4; i++) {
        tok = strtok_r(NULL, ":", &save);
        if (!tok) rc = 2, cli_errorf("--sector %s: missing %s (NUMBER:COMM_R:COMM_D:TICKET:SEED)", text, f[i]);
        else rc = parse_value(f[i], tok, dst[i], "sector");
    }
    if (!rc && strtok_r(NULL, ":", &save)) rc = 2, cli_errorf("--sector %s: more than five values", text);
    if (!rc) a->v.num_sectors++;
    free(s);
    return rc;
}

static int parse_rp(agg_args *a, const char *text)
{
    uint64_t id;
    const cuzk_fil_seal_proof *sp = cli_parse_u64(text, &id) ? cuzk_fil_seal_proof_get(id)
                                                             : cuzk_fil_seal_proof_by_name(text);
    if (!sp) return cli_errorf("--registered-proof: '%s' is not a seal proof (a number or e.g. StackedDrg32GiBV1_1)", text), 2;
    a->v.registered_proof = sp->id, a->have_rp = 1;
    return 0;
}

/* One option into a; 0, or 2 after saying why (-1: --help). */
static int agg_opt(agg_args *a, int opt, const char *arg)
{
    switch (opt) {
    case O_SRS: a->srs = arg; return 0;
    case O_VK: a->vk = arg; return 0;
    case O_OUT: a->out = arg; return 0;
    case O_PUBLIC: a->pub = arg; return 0;
    case O_INCLUDE: a->include = arg; return 0;
    case O_DEVICE: a->device = arg; return 0;
    case O_AGG: case O_KIND: return 0;
    case O_HELP: return -1;
    case O_PROOF:
        if (a->nproof == AGG_MAX_FILES) return cli_errorf("--proof: at most %d files", AGG_MAX_FILES), 2;
        a->proof[a->nproof++] = arg;
        return 0;
    case O_VERSION:
        a->version = !strcmp(arg, "1") ? 1 : !strcmp(arg, "2") ? 2 : 0;
        return a->version ? 0 : (cli_errorf("--aggregate-version: 1 or 2 (SnarkPackV1, V2), got '%s'", arg), 2);
    case O_THREADS: case O_MAX: {
        uint64_t x;
        if (!cli_parse_u64(arg, &x) || !x) return cli_errorf("--%s: expected a positive number", opt == O_MAX ? "max" : "threads"), 2;
        if (opt == O_MAX) a->max = x;
        else a->threads = (unsigned)x;
        return 0;
    }
    case O_RP: return parse_rp(a, arg);
    case O_MINER: case O_PROVER:
        a->have_prover = 1;
        return parse_value("miner", arg, a->v.prover_id, opt == O_MINER ? "miner" : "prover-id");
    case O_SECTOR: return parse_sector(a, arg);
    default: return 2;
    }
}

static int agg_parse(agg_args *a, int argc, char **argv, const char *help)
{
    memset(a, 0, sizeof *a);
    a->version = 2, a->threads = cli_default_threads(), a->max = 1024, a->device = "cpu";
    int opt, rc = 0;
    optind = 1;
    while (!rc && (opt = getopt_long(argc, argv, "", agg_opts, NULL)) != -1) rc = agg_opt(a, opt, optarg);
    if (rc == -1) return fputs(help, stdout), -1;
    if (!rc && optind < argc) rc = 2, cli_errorf("unexpected argument '%s'", argv[optind]);
    a->v.sectors = a->sectors, a->v.version = (cuzk_snarkpack_version)a->version;
    if (!rc && a->v.num_sectors && !(a->have_rp && a->have_prover))
        rc = 2, cli_errorf("--sector needs --registered-proof and --miner (or --prover-id)");
    return rc;
}

static int read_srs(cuzk_snarkpack_srs *srs, const agg_args *a)
{
    char err[512];
    if (!a->srs) return cli_errorf("--srs FILE: missing (%s)", CUZK_SNARKPACK_SRS_NAME), 2;
    double t = cuzk_now();
    int rc = cuzk_snarkpack_srs_read_file(srs, a->srs, CUZK_SNARKPACK_FIL_READ_LEN, a->threads, err, sizeof err);
    if (rc) return cli_errorf("%s", err), 2;
    printf("srs: %s: %zu powers read (of %u), up to %u proofs, %.2f s%s\n", a->srs, srs->len[0], srs->file_len[0],
           cuzk_snarkpack_srs_max_proofs(srs), cuzk_now() - t,
           srs->test ? "\n     TEST SRS (cuzk setup --aggregation): NOT the ceremony's; a VALID here says nothing "
                       "about the chain" : "");
    return 0;
}

static const char setup_help[] =
    "usage: cuzk setup --aggregation --out DIR [--max N] [--threads T]\n\n"
    "Writes DIR/" CUZK_SNARKPACK_SRS_NAME ": a TEST SnarkPack SRS in the format of Filecoin's\n"
    "(bellperson GenericSRS: g^a^i, g^b^i, h^a^i, h^b^i), from a fresh random alpha and beta drawn on\n"
    "this machine and wiped: NEVER a ceremony, never for the chain. --max N: the most proofs one\n"
    "aggregate may hold (a power of two; 2N powers each; default 1024: seconds on 2 cores, 590 KB;\n"
    "Filecoin's file holds 2^19 powers and rust-fil-proofs reads 2^15 + 1 of them).\n";

int cmd_setup_aggregation(int argc, char **argv)
{
    agg_args a;
    int rc = agg_parse(&a, argc, argv, setup_help);
    if (rc) return free(a.sectors), rc == -1 ? 0 : rc;
    if (!a.out) return cli_errorf("--out DIR: missing"), 2;
    if (a.max < 2 || (a.max & (a.max - 1)) || a.max > (1u << 19))
        return cli_errorf("--max: a power of two in [2, 2^19], got %llu", (unsigned long long)a.max), 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", a.out, CUZK_SNARKPACK_SRS_NAME);
    mkdir(a.out, 0755);
    fputs("**********************************************************************\n"
          "* TEST SnarkPack SRS. alpha and beta were drawn on this machine and  *\n"
          "* only wiped from memory: whoever read them can forge aggregates.    *\n"
          "* Never a substitute for Filecoin's ceremony file.                   *\n"
          "**********************************************************************\n", stdout);
    cuzk_rng rng;
    cuzk_snarkpack_srs srs;
    double t = cuzk_now();
    if (cuzk_rng_seed_os(&rng)) return cli_errorf("no OS entropy for the secret"), 1;
    if ((rc = cuzk_snarkpack_srs_setup_test(&srs, a.max, &rng, a.threads))) return cli_errorf("setup: %s", cuzk_strerror(rc)), 1;
    size_t len;
    uint8_t *b = cuzk_snarkpack_srs_serialize(&srs, 1, &len);
    rc = b ? cli_write_file(path, b, len) : -1;
    free(b);
    cuzk_snarkpack_srs_free(&srs);
    if (rc) return 1;
    printf("setup: %s: 2 x %llu G1 and 2 x %llu G2 powers, up to %llu proofs, %zu bytes, %.2f s, %u threads.\n"
           "These are TEST powers, not a ceremony.\n", path, (unsigned long long)(2 * a.max),
           (unsigned long long)(2 * a.max), (unsigned long long)a.max, len, cuzk_now() - t, a.threads);
    return 0;
}

static const char aggregate_help[] =
    "usage: cuzk aggregate --srs FILE --proof FILE [--proof FILE ...] --out FILE [--aggregate-version 1|2]\n"
    "         (--registered-proof ID|NAME --miner f0N --sector NUMBER:COMM_R:COMM_D:TICKET:SEED ...\n"
    "          | [--include HEX])\n\n"
    "Aggregates Groth16 proofs into one SnarkPack proof (bellperson's bytes): on the CPU, or with\n"
    "--device gpu[:N] its Miller loops and MSMs on a GPU (the same bytes).\n"
    "Filecoin (filecoin-ffi aggregate_seal_proofs): one --proof per --sector, each that sector's C2\n"
    "proof (192 bytes per partition); the transcript hashes every sector's seed and comm_r.\n"
    "NI-PoRep (FIP-0092, 1 to 65 sectors): each sector's partition proofs (13 x 192 bytes at 2KiB),\n"
    "not its NI C2 output; the transcript hashes the comm_rs alone (SEED is read and ignored).\n"
    "Plain: the proofs of all files in order, any circuit, --include the transcript bytes (hex).\n"
    "Either way the count is padded to a power of two by repeating the last proof.\n"
    "  --srs FILE  " CUZK_SNARKPACK_SRS_NAME " (Filecoin's, or cuzk setup --aggregation's TEST one)\n"
    "  --aggregate-version 1|2  SnarkPackV1 / V2 (default 2)   --threads T   --device cpu|gpu[:N]\n";

/* The plain form: every file's proofs, padded; the aggregate into *out. */
static int aggregate_plain(const agg_args *a, const cuzk_snarkpack_srs *srs, const cuzk_snarkpack_ctl *ctl,
                           uint8_t **out, size_t *out_len)
{
    size_t n = 0, len;
    cuzk_groth16_proof *pf = NULL;
    for (size_t i = 0; i < a->nproof; i++) {
        uint8_t *b = cli_read_file("--proof", a->proof[i], &len);
        cuzk_groth16_proof_error pe;
        size_t k = len / CUZK_GROTH16_PROOF_BYTES;
        cuzk_groth16_proof *np = b ? realloc(pf, (n + k + 1) * sizeof *pf) : NULL;
        int rc = np ? cuzk_groth16_proofs_decode(np + n, k, b, len, &pe) : CUZK_ERR_NO_MEMORY;
        if (np) pf = np;
        free(b);
        if (rc) return free(pf), cli_errorf("--proof %s: %s", a->proof[i], cuzk_strerror(rc)), 2;
        n += k;
    }
    uint32_t target = cuzk_fil_agg_target(n);
    cuzk_groth16_proof *np = n ? realloc(pf, target * sizeof *pf) : NULL;
    if (!np) return free(pf), cli_errorf("no proofs"), 2;
    pf = np;
    for (size_t i = n; i < target; i++) pf[i] = pf[n - 1];
    uint8_t inc[1024];
    size_t inc_len = a->include ? strlen(a->include) / 2 : 0;
    if (a->include && (inc_len > sizeof inc || cuzk_hex_decode(inc, inc_len, a->include)))
        return free(pf), cli_errorf("--include: up to 1024 bytes in hex"), 2;
    char err[512];
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    int rc = p ? cuzk_snarkpack_aggregate(p, srs, pf, target, inc, inc_len, (cuzk_snarkpack_version)a->version,
                                          ctl, a->threads, err, sizeof err) : CUZK_ERR_NO_MEMORY;
    if (!rc) *out_len = cuzk_snarkpack_proof_size(target), *out = malloc(*out_len);
    if (!rc) rc = *out ? cuzk_snarkpack_proof_encode(*out, *out_len, p) : CUZK_ERR_NO_MEMORY;
    free(p), free(pf);
    if (rc) return cli_errorf("aggregate: %s", rc == CUZK_ERR_NO_MEMORY ? "out of memory" : err), 1;
    printf("aggregate: %zu proof(s) padded to %u\n", n, target);
    return 0;
}

/* The Filecoin form: one C2 proof file per sector. */
static int aggregate_fil(const agg_args *a, const cuzk_snarkpack_srs *srs, const cuzk_snarkpack_ctl *ctl,
                         uint8_t **out, size_t *out_len)
{
    if (a->nproof != a->v.num_sectors)
        return cli_errorf("%zu --proof files for %zu --sector values: one C2 proof per sector", a->nproof,
                          a->v.num_sectors), 2;
    uint8_t *c2[AGG_MAX_FILES] = {0};
    size_t len[AGG_MAX_FILES];
    int rc = 0;
    for (size_t i = 0; !rc && i < a->nproof; i++)
        if (!(c2[i] = cli_read_file("--proof", a->proof[i], &len[i]))) rc = 2;
    char err[512];
    if (!rc && (rc = cuzk_fil_aggregate(out, out_len, &a->v, (const uint8_t *const *)c2, len, srs, ctl, a->threads, err,
                                        sizeof err)))
        cli_errorf("aggregate: %s", err), rc = rc == CUZK_ERR_NO_MEMORY ? 1 : 2;
    for (size_t i = 0; i < a->nproof; i++) free(c2[i]);
    return rc;
}

int cmd_aggregate(int argc, char **argv)
{
    agg_args a;
    int rc = agg_parse(&a, argc, argv, aggregate_help);
    cuzk_snarkpack_srs srs = {0};
    uint8_t *out = NULL;
    size_t len = 0;
    cuzk_gpu_device *gd = NULL;
    cuzk_gpu_worker *gw = NULL;
    cuzk_snarkpack_accel acc;
    cuzk_snarkpack_ctl ctl = {0};
    if (!rc && (!a.out || !a.nproof)) rc = 2, cli_errorf("--proof FILE and --out FILE are needed");
    if (!rc) rc = cli_gpu_open("aggregate", a.device, &gd, &gw);
    if (!rc && gw) cuzk_gpu_snarkpack_accel(&acc, gw, 0), ctl.accel = &acc;
    if (!rc) rc = read_srs(&srs, &a);
    double t = cuzk_now();
    if (!rc) rc = a.v.num_sectors ? aggregate_fil(&a, &srs, &ctl, &out, &len) : aggregate_plain(&a, &srs, &ctl, &out, &len);
    if (!rc && cli_write_file(a.out, out, len)) rc = 1;
    if (!rc) printf("aggregate: %s: %zu bytes, SnarkPack v%d, %.2f s, %u threads%s%s\n", a.out, len, a.version,
                    cuzk_now() - t, a.threads, gd ? ", " : "", gd ? cuzk_gpu_device_describe(gd) : "");
    free(out), free(a.sectors);
    cuzk_snarkpack_srs_free(&srs);
    cli_gpu_close(gd, gw);
    return rc == -1 ? 0 : rc;
}

static const char verify_help[] =
    "usage: cuzk verify --kind aggregate --srs FILE --vk FILE --proof FILE [--aggregate-version 1|2]\n"
    "         (--registered-proof ID|NAME --miner f0N --sector NUMBER:COMM_R:COMM_D:TICKET:SEED ...\n"
    "          | --public FILE [--include HEX])\n\n"
    "Verifies a SnarkPack aggregate (bellperson's bytes) on the CPU. Filecoin: the values filecoin-ffi's\n"
    "verify_aggregate_seal_proof takes, every sector in the aggregate's order; cuzk derives each\n"
    "partition's public inputs and the transcript. Plain: --public rows (32-byte little-endian, a row\n"
    "per proof, padded rows included). Prints VALID or INVALID and why (the relation that failed, a\n"
    "point off its group). Exit 0 VALID, 1 INVALID, 2 bad input (counts, lengths, files).\n"
    "  --vk FILE   the circuit's verifying key (bellperson .vk; Filecoin: the PoRep .vk)\n";

static int verify_plain(const agg_args *a, const cuzk_groth16_vk *vk, const cuzk_snarkpack_srs *srs,
                        const uint8_t *proof, size_t len, char *err, size_t err_len)
{
    size_t plen, ni = vk->n_ic - 1;
    uint8_t inc[1024], *pb = a->pub ? cli_read_file("--public", a->pub, &plen) : NULL;
    size_t inc_len = a->include ? strlen(a->include) / 2 : 0;
    if (!pb) return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "--public FILE (or --sector values) missing");
    if (a->include && (inc_len > sizeof inc || cuzk_hex_decode(inc, inc_len, a->include)))
        return free(pb), cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "--include: up to 1024 bytes in hex");
    size_t rows = ni ? plen / (32 * ni) : 0;
    cuzk_fr *x = malloc(rows * ni * sizeof *x + 1);
    int rc = x && rows * ni * 32 == plen ? CUZK_OK : CUZK_ERR_BAD_LENGTH;
    for (size_t i = 0; !rc && i < rows * ni; i++) rc = cuzk_fr_from_le32(&x[i], pb + 32 * i);
    if (rc) cuzk_errf(err, err_len, rc, "--public %s: not rows of %zu field elements", a->pub, ni);
    cuzk_snarkpack_proof *p = rc ? NULL : malloc(sizeof *p);
    cuzk_snarkpack_vk svk;
    if (!rc) rc = p ? cuzk_snarkpack_proof_decode(p, proof, len, err, err_len) : CUZK_ERR_NO_MEMORY;
    if (!rc) rc = cuzk_snarkpack_vk_for(&svk, srs, p->nproofs, err, err_len);
    if (!rc) rc = cuzk_snarkpack_verify(p, &svk, vk, x, rows, ni, inc, inc_len, (cuzk_snarkpack_version)a->version,
                                        NULL, a->threads, err, err_len);
    free(p), free(x), free(pb);
    return rc;
}

/* The verdict and the exit status: a relation or a point that fails is INVALID, the rest bad input. */
static int verdict(int rc, const char *err)
{
    if (rc == CUZK_OK) return puts("VALID"), 0;
    if (rc == CUZK_ERR_VERIFY_FAILED || rc == CUZK_ERR_NOT_ON_CURVE || rc == CUZK_ERR_NOT_IN_SUBGROUP ||
        rc == CUZK_ERR_NONCANONICAL || rc == CUZK_ERR_BAD_FLAGS || rc == CUZK_ERR_NOT_A_SQUARE)
        return printf("INVALID: %s\n", err), 1;
    return cli_errorf("%s", err), 2;
}

int cmd_verify_aggregate(int argc, char **argv)
{
    agg_args a;
    int rc = agg_parse(&a, argc, argv, verify_help);
    cuzk_snarkpack_srs srs = {0};
    cuzk_groth16_vk vk = {0};
    cuzk_groth16_error ve;
    uint8_t *proof = NULL;
    size_t len;
    char err[1024] = "";
    if (!rc && (!a.vk || a.nproof != 1)) rc = 2, cli_errorf("--vk FILE and one --proof FILE are needed");
    if (!rc && cuzk_groth16_vk_read_file(&vk, a.vk, &ve)) rc = 2, cli_errorf("vk %s: %s", a.vk, ve.msg);
    if (!rc) rc = read_srs(&srs, &a);
    if (!rc && !(proof = cli_read_file("--proof", a.proof[0], &len))) rc = 2;
    if (!rc) {
        double t = cuzk_now();
        int v = a.v.num_sectors ? cuzk_fil_aggregate_verify(&a.v, &vk, &srs, proof, len, a.threads, err, sizeof err)
                                : verify_plain(&a, &vk, &srs, proof, len, err, sizeof err);
        printf("verify: %u proofs, SnarkPack v%d, %.2f s\n", cuzk_snarkpack_proof_count(proof, len), a.version,
               cuzk_now() - t);
        rc = verdict(v, err);
    }
    free(proof), free(a.sectors);
    cuzk_groth16_vk_free(&vk);
    cuzk_snarkpack_srs_free(&srs);
    return rc == -1 ? 0 : rc;
}

static const char verify_ni_help[] =
    "usage: cuzk verify --kind ni-porep --proof FILE --registered-proof ID|NAME (or --sector-size SIZE)\n"
    "         --miner f0N (or --prover-id HEX) --sector-number N --comm-r C --comm-d C --ticket T\n"
    "         [--seed S] [--srs FILE] [--vk FILE] [--param-cache DIR] [--threads T]\n\n"
    "Verifies an NI-PoRep C2 proof (the SnarkPack v2 aggregate of its partition proofs, as\n"
    "seal_commit_phase2 and the daemon return it) from the values filecoin-ffi's verify_seal takes.\n"
    "cuzk derives every partition's public inputs (NI-PoRep's challenges from replica_id and comm_r:\n"
    "the seed is not used) and the transcript SHA-256(comm_r). The SRS and the PoRep .vk default to\n"
    "the Filecoin names in the parameter cache ($FIL_PROOFS_PARAMETER_CACHE or\n"
    "/var/tmp/filecoin-proof-parameters); the SRS's digest says whether it is the ceremony's.\n"
    "Exit 0 VALID, 1 INVALID, 2 bad input.\n";

enum { N_SIZE = 500, N_NUMBER, N_COMM_R, N_COMM_D, N_TICKET, N_SEED, N_CACHE };

/* The NI-PoRep values into a (one sector, version 2); 0, 2, or -1 for --help. */
static int ni_parse(agg_args *a, const char **cache, int argc, char **argv)
{
    static const struct option opts[] = {
        {"srs", required_argument, 0, O_SRS}, {"vk", required_argument, 0, O_VK},
        {"proof", required_argument, 0, O_PROOF}, {"registered-proof", required_argument, 0, O_RP},
        {"miner", required_argument, 0, O_MINER}, {"prover-id", required_argument, 0, O_PROVER},
        {"threads", required_argument, 0, O_THREADS}, {"kind", required_argument, 0, O_KIND},
        {"help", no_argument, 0, O_HELP}, {"sector-size", required_argument, 0, N_SIZE},
        {"sector-number", required_argument, 0, N_NUMBER}, {"comm-r", required_argument, 0, N_COMM_R},
        {"comm-d", required_argument, 0, N_COMM_D}, {"ticket", required_argument, 0, N_TICKET},
        {"seed", required_argument, 0, N_SEED}, {"param-cache", required_argument, 0, N_CACHE}, {0, 0, 0, 0}};
    static const char *const field[] = {"comm_r", "comm_d", "ticket", "seed"};
    static const char *const name[] = {"comm-r", "comm-d", "ticket", "seed"};
    memset(a, 0, sizeof *a);
    a->version = 2, a->threads = cli_default_threads();
    if (!(a->sectors = calloc(1, sizeof *a->sectors))) return cli_errorf("out of memory"), 2;
    a->v.sectors = a->sectors, a->v.num_sectors = 1, a->v.version = CUZK_SNARKPACK_V2;
    uint8_t *dst[4] = {a->sectors->comm_r, a->sectors->comm_d, a->sectors->ticket, a->sectors->seed};
    int opt, rc = 0, have = 0;
    optind = 1;
    while (!rc && (opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        uint64_t x;
        if (opt == N_CACHE) *cache = optarg;
        else if (opt == N_NUMBER) rc = cli_parse_u64(optarg, &x) ? (a->sectors->sector_number = x, have |= 1, 0)
                                                                  : (cli_errorf("--sector-number: expected a number"), 2);
        else if (opt >= N_COMM_R && opt <= N_SEED) {
            rc = parse_value(field[opt - N_COMM_R], optarg, dst[opt - N_COMM_R], name[opt - N_COMM_R]);
            have |= 2 << (opt - N_COMM_R);
        }
        else if (opt == N_SIZE) {
            uint64_t size;
            const cuzk_fil_seal_proof *sp = NULL;
            for (uint64_t id = 15; id < 20 && cuzk_size_parse(optarg, &size); id++)
                if (cuzk_fil_seal_proof_get(id)->sector_size == size) sp = cuzk_fil_seal_proof_get(id);
            if (!sp) rc = 2, cli_errorf("--sector-size: '%s' is not a Filecoin sector size", optarg);
            else a->v.registered_proof = sp->id, a->have_rp = 1;
        } else rc = agg_opt(a, opt, optarg);
    }
    if (rc == -1) return fputs(verify_ni_help, stdout), -1;
    if (!rc && optind < argc) rc = 2, cli_errorf("unexpected argument '%s'", argv[optind]);
    if (!rc && (!a->have_rp || !a->have_prover || (have & 15) != 15 || a->nproof != 1))
        rc = 2, cli_errorf("--proof, --registered-proof (or --sector-size), --miner, --sector-number, --comm-r, "
                           "--comm-d and --ticket are needed (cuzk verify --kind ni-porep --help)");
    const cuzk_fil_seal_proof *sp = rc ? NULL : cuzk_fil_seal_proof_get(a->v.registered_proof);
    if (sp && sp->feature != CUZK_FIL_FEAT_NON_INTERACTIVE)
        rc = 2, cli_errorf("--registered-proof: %s is not an NI-PoRep proof (V1_2_Feat_NonInteractivePoRep); "
                           "--kind porep verifies it", sp->name);
    return rc;
}

/* The SRS (--srs, else the parameter cache's, its digest checked) for aggregates of n proofs. */
static int ni_srs(cuzk_snarkpack_srs *srs, const agg_args *a, const char *cache, uint32_t n)
{
    if (a->srs) return read_srs(srs, a);
    char note[4400], err[4400];
    cuzk_fil_srs_origin origin;
    if (cuzk_fil_agg_srs_load(srs, &origin, cache, n, 1, a->threads, note, sizeof note, err, sizeof err))
        return cli_errorf("%s", err), 2;
    printf("srs: %s\n%s", note, origin == CUZK_FIL_SRS_TEST ? "     a VALID here says nothing about the chain\n" : "");
    return 0;
}

int cmd_verify_ni(int argc, char **argv)
{
    agg_args a;
    const char *cache = NULL;
    int rc = ni_parse(&a, &cache, argc, argv);
    cuzk_snarkpack_srs srs = {0};
    cuzk_groth16_vk vk = {0};
    cuzk_groth16_error ve;
    cuzk_fil_param_files pf;
    uint8_t *proof = NULL;
    size_t len = 0, ni;
    uint32_t parts = 0;
    char err[1024] = "";
    if (!cache) cache = cli_param_cache_dir();
    if (!rc && cuzk_fil_agg_shape(&a.v, &parts, &ni, err, sizeof err)) rc = 2, cli_errorf("%s", err);
    if (!rc && !a.vk && cuzk_fil_param_files_for(&pf, CUZK_FIL_CIRCUIT_POREP, a.v.registered_proof, cache))
        rc = 2, cli_errorf("--param-cache: path too long");
    const char *vk_path = a.vk ? a.vk : pf.vk;
    if (!rc) printf("verify: ni-porep, registered proof %llu, %u partitions aggregated (padded to %u), vk %s\n",
                    (unsigned long long)a.v.registered_proof, parts, cuzk_fil_agg_target(parts), vk_path);
    if (!rc && cuzk_groth16_vk_read_file(&vk, vk_path, &ve)) rc = 2, cli_errorf("vk %s: %s", vk_path, ve.msg);
    if (!rc) rc = ni_srs(&srs, &a, cache, cuzk_fil_agg_target(parts));
    if (!rc && !(proof = cli_read_file("--proof", a.proof[0], &len))) rc = 2;
    if (!rc) {
        double t = cuzk_now();
        int v = cuzk_fil_aggregate_verify(&a.v, &vk, &srs, proof, len, a.threads, err, sizeof err);
        printf("verify: %u proofs, SnarkPack v2, %.2f s\n", cuzk_snarkpack_proof_count(proof, len), cuzk_now() - t);
        rc = verdict(v, err);
    }
    free(proof), free(a.sectors);
    cuzk_groth16_vk_free(&vk);
    cuzk_snarkpack_srs_free(&srs);
    return rc == -1 ? 0 : rc;
}
