/*
 * cuzk setup / prove / verify on the built-in test circuits
 * (include/cuzk/circuits/test_circuits.h), with bellperson-format files:
 *   <base>.params, <base>.vk   parameters (setup writes, prove / verify read)
 *   <base>.proof               count · 192 bytes, proofs concatenated
 *   <base>.public              count rows of the circuit's public inputs
 *                              (ONE excluded), 32-byte little-endian each
 * <base> names the circuit and its size unless --params/--vk/--proof/--public
 * say otherwise. Witness i of a prove run uses witness seed --seed + i.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/setup.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/size.h"
#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/circuits/test_circuits.h"

/* ---- circuit choice, shared by the three commands ----------------------- */

typedef enum { CIRC_SYNTHETIC, CIRC_SHA256 } circ_kind;

typedef struct circ {
    circ_kind kind;
    uint64_t constraints; /* synthetic; 0 until defaulted */
    uint32_t inputs;      /* synthetic */
    uint32_t length;      /* sha256 */
} circ;

typedef struct files {
    const char *params, *vk, *proof, *pub;
    char base[96];
    char dflt[4][128];
} files;

/* Options every command takes (values from getopt_long). */
enum {
    OPT_CIRCUIT = 256, OPT_CONSTRAINTS, OPT_INPUTS, OPT_LENGTH, OPT_PARAMS, OPT_VK, OPT_PROOF,
    OPT_PUBLIC, OPT_THREADS, OPT_SEED, OPT_COUNT, OPT_TRUSTED, OPT_HELP, OPT_KIND, OPT_SECTOR_SIZE, OPT_REG_PROOF,
    OPT_OUT, OPT_DEVICE
};

#define COMMON_OPTS                                                                                \
    {"circuit", required_argument, 0, OPT_CIRCUIT},                                                \
        {"constraints", required_argument, 0, OPT_CONSTRAINTS},                                    \
        {"inputs", required_argument, 0, OPT_INPUTS}, {"length", required_argument, 0, OPT_LENGTH}, \
        {"threads", required_argument, 0, OPT_THREADS}, {"help", no_argument, 0, OPT_HELP}

static const char circuit_help[] =
    "circuit (the same options for setup, prove and verify):\n"
    "  --circuit synthetic|sha256  built-in test circuit (default synthetic)\n"
    "  --constraints N   synthetic: constraints besides the input constraints\n"
    "                    (default: fill a 2^16 domain, 65536 - inputs - 1; K/M suffixes)\n"
    "  --inputs K        synthetic: public inputs besides ONE (default 4)\n"
    "  --length L        sha256: chained SHA-256 blocks (default 1, ~27K constraints each)\n"
    "  --threads N       worker threads (default: CUZK_THREADS or all CPUs)\n";

static const char files_help[] =
    "files (default names: <circuit>-<size>.{params,vk,proof,public} in the current directory):\n"
    "  --params FILE  --vk FILE  --proof FILE  --public FILE\n";

/* Handles a common option; returns 1 if handled, 0 if not one, -1 on a bad value. */
static int common_opt(int opt, const char *arg, circ *c, files *f, unsigned *threads)
{
    uint64_t v;
    switch (opt) {
    case OPT_CIRCUIT:
        if (!strcmp(arg, "synthetic")) c->kind = CIRC_SYNTHETIC;
        else if (!strcmp(arg, "sha256")) c->kind = CIRC_SHA256;
        else return cli_errorf("--circuit: unknown circuit '%s' (synthetic or sha256)", arg), -1;
        return 1;
    case OPT_CONSTRAINTS:
        if (!cli_parse_u64(arg, &v) || v == 0 || v >= (1ull << 32) - 64)
            return cli_errorf("--constraints: expected 1 .. 2^32-65, got '%s'", arg), -1;
        c->constraints = v;
        return 1;
    case OPT_INPUTS:
        if (!cli_parse_u64(arg, &v) || v > 1u << 20)
            return cli_errorf("--inputs: expected 0 .. 2^20, got '%s'", arg), -1;
        c->inputs = (uint32_t)v;
        return 1;
    case OPT_LENGTH:
        if (!cli_parse_u64(arg, &v) || v == 0 || v > 1u << 16)
            return cli_errorf("--length: expected 1 .. 65536, got '%s'", arg), -1;
        c->length = (uint32_t)v;
        return 1;
    case OPT_THREADS:
        if (!cli_parse_u64(arg, &v) || v == 0 || v > 1024)
            return cli_errorf("--threads: expected 1 .. 1024, got '%s'", arg), -1;
        *threads = (unsigned)v;
        return 1;
    case OPT_PARAMS: f->params = arg; return 1;
    case OPT_VK: f->vk = arg; return 1;
    case OPT_PROOF: f->proof = arg; return 1;
    case OPT_PUBLIC: f->pub = arg; return 1;
    default: return 0;
    }
}

static void circ_finish(circ *c, files *f)
{
    if (c->kind == CIRC_SYNTHETIC) {
        if (!c->constraints) c->constraints = 65536 - (uint64_t)c->inputs - 1;
        if (c->constraints < c->inputs) c->constraints = c->inputs;
        snprintf(f->base, sizeof f->base, "synthetic-c%" PRIu64 "-i%" PRIu32, c->constraints, c->inputs);
    } else {
        snprintf(f->base, sizeof f->base, "sha256-l%" PRIu32, c->length);
    }
    const char *ext[4] = {"params", "vk", "proof", "public"};
    const char **slot[4] = {&f->params, &f->vk, &f->proof, &f->pub};
    for (int i = 0; i < 4; i++) {
        snprintf(f->dflt[i], sizeof f->dflt[i], "%s.%s", f->base, ext[i]);
        if (!*slot[i]) *slot[i] = f->dflt[i];
    }
}

static size_t circ_num_inputs(const circ *c)
{
    return c->kind == CIRC_SYNTHETIC ? c->inputs : CUZK_SHA256_CHAIN_NUM_INPUTS;
}

static void circ_describe(const circ *c, char *buf, size_t len)
{
    if (c->kind == CIRC_SYNTHETIC)
        snprintf(buf, len, "synthetic, %" PRIu64 " constraints, %" PRIu32 " public inputs", c->constraints,
                 c->inputs);
    else
        snprintf(buf, len, "sha256 chain of %" PRIu32 " blocks, %d public inputs", c->length,
                 CUZK_SHA256_CHAIN_NUM_INPUTS);
}

/* A finalized system of the given kind for witness seed `seed`, or NULL. */
static cuzk_cs *circ_build(const circ *c, cuzk_cs_kind kind, uint64_t seed)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    if (!cs) return cli_errorf("out of memory"), NULL;
    int rc = cuzk_cs_alloc_one(cs);
    if (!rc) {
        if (c->kind == CIRC_SYNTHETIC) {
            cuzk_synthetic_spec s = {c->constraints, c->inputs, seed};
            rc = cuzk_synthetic_synthesize(cs, &s);
        } else {
            cuzk_sha256_chain_spec s = {c->length, seed};
            rc = cuzk_sha256_chain_synthesize(cs, &s);
        }
    }
    if (!rc) rc = cuzk_cs_finalize(cs);
    if (!rc) rc = cuzk_cs_error(cs);
    if (rc) {
        cli_errorf("synthesis failed: %s", cuzk_strerror(rc));
        cuzk_cs_free(cs);
        return NULL;
    }
    return cs;
}

static int circ_public_inputs(const circ *c, uint64_t seed, cuzk_fr *out)
{
    if (c->kind == CIRC_SYNTHETIC) {
        cuzk_synthetic_spec s = {c->constraints, c->inputs, seed};
        return cuzk_synthetic_public_inputs(out, &s);
    }
    cuzk_sha256_chain_spec s = {c->length, seed};
    return cuzk_sha256_chain_public_inputs(out, &s);
}

static int usage_error(const char *cmd)
{
    fprintf(stderr, "(cuzk %s --help for the options)\n", cmd);
    return 2;
}

/* ---- setup -------------------------------------------------------------- */

int cmd_setup_aggregation(int argc, char **argv);

int cmd_setup(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--aggregation")) return cmd_setup_aggregation(argc, argv);
    static const struct option opts[] = {COMMON_OPTS,
                                         {"params", required_argument, 0, OPT_PARAMS},
                                         {"vk", required_argument, 0, OPT_VK},
                                         {"kind", required_argument, 0, OPT_KIND},
                                         {"sector-size", required_argument, 0, OPT_SECTOR_SIZE},
                                         {"registered-proof", required_argument, 0, OPT_REG_PROOF},
                                         {"out", required_argument, 0, OPT_OUT},
                                         {"device", required_argument, 0, OPT_DEVICE},
                                         {0, 0, 0, 0}};
    circ c = {CIRC_SYNTHETIC, 0, 4, 1};
    const char *device = "cpu";
    files f = {0};
    cli_fil_setup fs = {0};
    bool builtin_opts = false;
    unsigned threads = cli_default_threads();
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (opt == OPT_HELP) {
            printf("usage: cuzk setup [options]\n"
                   "       cuzk setup --kind KIND (--sector-size SIZE | --registered-proof ID) [--out DIR]\n\n"
                   "Generates TEST Groth16 parameters from fresh random toxic waste and writes them\n"
                   "in bellperson's .params and .vk formats. Never a substitute for a ceremony.\n\n%s%s"
                   "Filecoin circuits (the blank circuit of one partition):\n"
                   "  --kind porep|window-post|winning-post|snap|snap-poseidon\n"
                   "  --sector-size SIZE     e.g. 2KiB (the V1_1 seal / Window V1_2 / Winning V1 proof of\n"
                   "                         that size)\n"
                   "  --registered-proof ID  the registered proof id (seal, PoSt or update ids)\n"
                   "  --out DIR              where v28-<cache id>.params/.vk/.meta go, under the names\n"
                   "                         rust-fil-proofs looks for (default: current directory)\n\n"
                   "  --device cpu|gpu[:N]   where the query points are computed (default cpu; gpu = GPU 0);\n"
                   "                         the parameters are the same bytes either way\n",
                   circuit_help, "files:\n  --params FILE  --vk FILE   (defaults: <circuit>-<size>.params/.vk)\n");
            return 0;
        }
        switch (opt) {
        case OPT_KIND: fs.kind = optarg; continue;
        case OPT_OUT: fs.out = optarg; continue;
        case OPT_DEVICE: device = optarg; continue;
        case OPT_SECTOR_SIZE:
            if (!cuzk_size_parse(optarg, &fs.sector_size) || !fs.sector_size)
                return cli_errorf("--sector-size: expected e.g. 2KiB, got '%s'", optarg), usage_error("setup");
            continue;
        case OPT_REG_PROOF:
            if (!cli_parse_u64(optarg, &fs.proof))
                return cli_errorf("--registered-proof: expected a number, got '%s'", optarg), usage_error("setup");
            fs.have_proof = true;
            continue;
        case OPT_THREADS: break;
        default: builtin_opts = true;
        }
        int h = common_opt(opt, optarg, &c, &f, &threads);
        if (h <= 0) return usage_error("setup");
    }
    if (optind < argc) return cli_errorf("unexpected argument '%s'", argv[optind]), usage_error("setup");
    if (fs.kind && builtin_opts)
        return cli_errorf("--kind takes no built-in circuit or file options (--circuit, --params, ...)"),
               usage_error("setup");
    if (!fs.kind && (fs.out || fs.sector_size || fs.have_proof))
        return cli_errorf("--sector-size, --registered-proof and --out need --kind"), usage_error("setup");
    cuzk_gpu_device *gd;
    cuzk_gpu_worker *gw;
    cuzk_groth16_fixed_base fb;
    int orc = cli_gpu_open("setup", device, &gd, &gw);
    if (orc) return orc == 2 ? usage_error("setup") : 1;
    if (gw) {
        cuzk_gpu_setup_fixed_base(&fb, gw);
        printf("setup: query points on %s\n", cuzk_gpu_device_describe(gd));
    }
    int rc;
    if (fs.kind) {
        rc = cli_setup_filecoin(&fs, threads, gw ? &fb : NULL);
        if (rc == 2) rc = usage_error("setup");
    } else {
        circ_finish(&c, &f);
        char desc[160];
        circ_describe(&c, desc, sizeof desc);
        fputs(cli_test_params_banner, stderr);
        printf("setup: %s, %u threads\n", desc, threads);

        double t0 = cuzk_now();
        cuzk_cs *cs = circ_build(&c, CUZK_CS_RECORDING, 0);
        rc = cs ? cli_setup_write(cs, f.params, f.vk, NULL, NULL, threads, gw ? &fb : NULL, t0) : 1;
    }
    cli_gpu_close(gd, gw);
    return rc;
}

/* ---- prove -------------------------------------------------------------- */

int cmd_prove(int argc, char **argv)
{
    static const struct option opts[] = {COMMON_OPTS,
                                         {"params", required_argument, 0, OPT_PARAMS},
                                         {"proof", required_argument, 0, OPT_PROOF},
                                         {"public", required_argument, 0, OPT_PUBLIC},
                                         {"seed", required_argument, 0, OPT_SEED},
                                         {"count", required_argument, 0, OPT_COUNT},
                                         {"trusted", no_argument, 0, OPT_TRUSTED},
                                         {0, 0, 0, 0}};
    circ c = {CIRC_SYNTHETIC, 0, 4, 1};
    files f = {0};
    unsigned threads = cli_default_threads();
    uint64_t seed = 0, count = 1;
    bool trusted = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (opt == OPT_HELP) {
            printf("usage: cuzk prove [options]\n\n"
                   "Synthesizes witnesses of a built-in circuit and proves them with the CPU prover\n"
                   "against parameters from `cuzk setup`; writes the proofs (192 bytes each,\n"
                   "concatenated) and the public inputs (32-byte little-endian, row per proof).\n\n"
                   "%s%s"
                   "proving:\n"
                   "  --seed S     witness seed of the first proof (default 0); proof i uses S + i\n"
                   "  --count N    proofs over one parameter set (default 1)\n"
                   "  --trusted    skip subgroup checks when loading the parameters (trusted file)\n",
                   circuit_help, files_help);
            return 0;
        }
        int h = common_opt(opt, optarg, &c, &f, &threads);
        if (h < 0) return usage_error("prove");
        if (h) continue;
        if (opt == OPT_SEED) {
            if (!cli_parse_u64(optarg, &seed))
                return cli_errorf("--seed: expected an unsigned integer, got '%s'", optarg), usage_error("prove");
        } else if (opt == OPT_COUNT) {
            if (!cli_parse_u64(optarg, &count) || count == 0 || count > 4096)
                return cli_errorf("--count: expected 1 .. 4096, got '%s'", optarg), usage_error("prove");
        } else if (opt == OPT_TRUSTED) {
            trusted = true;
        } else {
            return usage_error("prove");
        }
    }
    if (optind < argc) return cli_errorf("unexpected argument '%s'", argv[optind]), usage_error("prove");
    circ_finish(&c, &f);
    char desc[160];
    circ_describe(&c, desc, sizeof desc);
    printf("prove: %s, %" PRIu64 " proof(s) from seed %" PRIu64 ", %u threads\n", desc, count, seed, threads);

    int ret = 1;
    cuzk_groth16_params p;
    memset(&p, 0, sizeof p);
    cuzk_cs **cs = calloc(count, sizeof *cs);
    cuzk_groth16_proof *proofs = calloc(count, sizeof *proofs);
    cuzk_groth16_prove_timing *tm = calloc(count, sizeof *tm);
    const size_t npub = circ_num_inputs(&c);
    uint8_t *pub = malloc(count * npub * CUZK_FR_BYTES + 1);
    uint8_t *pbytes = malloc(count * CUZK_GROTH16_PROOF_BYTES);
    if (!cs || !proofs || !tm || !pub || !pbytes) {
        cli_errorf("out of memory");
        goto out;
    }

    double t0 = cuzk_now();
    cuzk_groth16_error err;
    int rc = cuzk_groth16_params_read_file(&p, f.params, trusted ? CUZK_GROTH16_TRUSTED : CUZK_GROTH16_VALIDATE,
                                           threads, &err);
    if (rc) {
        cli_errorf("%s", err.msg);
        goto out;
    }
    double t1 = cuzk_now();
    printf("prove: loaded %s (%s) in %.2f s\n", f.params, trusted ? "trusted, no subgroup checks" : "validated",
           t1 - t0);

    for (uint64_t i = 0; i < count; i++) {
        double ts = cuzk_now();
        if (!(cs[i] = circ_build(&c, CUZK_CS_PROVING, seed + i))) goto out;
        cuzk_groth16_assignment as;
        if (cuzk_groth16_assignment_from_cs(&as, (cuzk_proving_cs *)cs[i]) ||
            cuzk_groth16_check_sizes(&p, &as, NULL)) {
            cli_errorf("%s does not fit this circuit (%zu constraints, %zu inputs, %zu aux; params: h %zu, "
                       "ic %zu, l %zu): same circuit options as setup?",
                       f.params, cs[i]->num_constraints, cs[i]->num_inputs, cs[i]->num_aux, p.n_h, p.vk.n_ic, p.n_l);
            goto out;
        }
        /* The public inputs as the circuit allocated them (input 0 is ONE). */
        const cuzk_proving_cs *pc = (const cuzk_proving_cs *)cs[i];
        for (size_t k = 0; k < npub; k++)
            cuzk_fr_to_le32(pub + (i * npub + k) * CUZK_FR_BYTES, &pc->input.v[k + 1]);
        if (count <= 8 || i + 1 == count)
            printf("prove: witness %" PRIu64 " (seed %" PRIu64 ") synthesized in %.2f s\n", i, seed + i,
                   cuzk_now() - ts);
    }

    cuzk_rng rng;
    if (cuzk_rng_seed_os(&rng)) {
        cli_errorf("no OS entropy for r, s");
        goto out;
    }
    double t2 = cuzk_now();
    rc = cuzk_groth16_prove_many_timed(proofs, &p, (const cuzk_proving_cs *const *)cs, count, &rng, threads, tm);
    memset(&rng, 0, sizeof rng);
    double t3 = cuzk_now();
    if (rc) {
        cli_errorf("prove failed: %s", cuzk_strerror(rc));
        goto out;
    }
    /* the five MSMs run as one task list: one time for them */
    printf("prove: %-6s %8s %8s %8s   (seconds)\n", "proof", "NTT(H)", "MSMs", "total");
    for (uint64_t i = 0; i < count; i++)
        printf("prove: %-6" PRIu64 " %8.3f %8.3f %8.3f\n", i, tm[i].ntt_h_s, tm[i].msm_s, tm[i].total_s);
    printf("prove: %" PRIu64 " proof(s) in %.2f s (%.3f s each)\n", count, t3 - t2, (t3 - t2) / (double)count);

    for (uint64_t i = 0; i < count; i++) cuzk_groth16_proof_encode(pbytes + i * CUZK_GROTH16_PROOF_BYTES, &proofs[i]);
    if (cli_write_file(f.proof, pbytes, count * CUZK_GROTH16_PROOF_BYTES) ||
        cli_write_file(f.pub, pub, count * npub * CUZK_FR_BYTES))
        goto out;
    printf("prove: wrote %s (%" PRIu64 " bytes) and %s\n", f.proof, count * CUZK_GROTH16_PROOF_BYTES, f.pub);
    ret = 0;
out:
    if (cs)
        for (uint64_t i = 0; i < count; i++) cuzk_cs_free(cs[i]);
    free(cs), free(proofs), free(tm), free(pub), free(pbytes);
    cuzk_groth16_params_free(&p);
    return ret;
}

/* ---- verify ------------------------------------------------------------- */

int cmd_verify_filecoin(int argc, char **argv);

/* `cuzk verify --kind ...` (or --values FILE) is a Filecoin proof (cmd_verify_fil.c); without
 * them a test circuit's. */
static bool verify_is_filecoin(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--kind", 6) || !strncmp(argv[i], "--values", 8)) return true;
    return false;
}

int cmd_verify(int argc, char **argv)
{
    if (verify_is_filecoin(argc, argv)) return cmd_verify_filecoin(argc, argv);
    static const struct option opts[] = {COMMON_OPTS,
                                         {"vk", required_argument, 0, OPT_VK},
                                         {"proof", required_argument, 0, OPT_PROOF},
                                         {"public", required_argument, 0, OPT_PUBLIC},
                                         {"seed", required_argument, 0, OPT_SEED},
                                         {0, 0, 0, 0}};
    circ c = {CIRC_SYNTHETIC, 0, 4, 1};
    files f = {0};
    unsigned threads = cli_default_threads();
    uint64_t seed = 0;
    bool have_seed = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (opt == OPT_HELP) {
            printf("usage: cuzk verify [options]\n"
                   "       cuzk verify --kind porep|window-post|winning-post|snap ...  (a Filecoin proof:\n"
                   "       cuzk verify --kind porep --help)\n\n"
                   "Verifies proofs from `cuzk prove` against a .vk file. The public inputs are\n"
                   "recomputed natively from the circuit and --seed (never taken from the prover),\n"
                   "or read from --public FILE. Several proofs in one file are batch-verified.\n"
                   "Exit status 0 and OK when every proof verifies, 1 with the reason otherwise.\n\n"
                   "%s"
                   "files:\n  --vk FILE  --proof FILE   (defaults: <circuit>-<size>.vk/.proof)\n"
                   "  --public FILE  public inputs (32-byte little-endian, a row per proof)\n"
                   "inputs:\n"
                   "  --seed S     recompute the inputs of witness seeds S, S+1, ... (default 0\n"
                   "               unless --public is given)\n",
                   circuit_help);
            return 0;
        }
        int h = common_opt(opt, optarg, &c, &f, &threads);
        if (h < 0) return usage_error("verify");
        if (h) continue;
        if (opt == OPT_SEED) {
            if (!cli_parse_u64(optarg, &seed))
                return cli_errorf("--seed: expected an unsigned integer, got '%s'", optarg), usage_error("verify");
            have_seed = true;
        } else {
            return usage_error("verify");
        }
    }
    if (optind < argc) return cli_errorf("unexpected argument '%s'", argv[optind]), usage_error("verify");
    if (have_seed && f.pub) return cli_errorf("--seed and --public exclude each other"), usage_error("verify");
    const bool from_file = f.pub != NULL;
    circ_finish(&c, &f);
    char desc[160];
    circ_describe(&c, desc, sizeof desc);

    int ret = 1;
    double t0 = cuzk_now();
    cuzk_groth16_vk vk;
    cuzk_groth16_pvk pvk;
    memset(&vk, 0, sizeof vk);
    memset(&pvk, 0, sizeof pvk);
    uint8_t *pbytes = NULL, *pubbytes = NULL;
    cuzk_groth16_proof *proofs = NULL;
    cuzk_fr *x = NULL;
    cuzk_groth16_error err;
    if (cuzk_groth16_vk_read_file(&vk, f.vk, &err)) {
        cli_errorf("%s", err.msg);
        goto out;
    }
    const size_t npub = circ_num_inputs(&c);
    if (vk.n_ic != npub + 1) {
        cli_errorf("%s: the verifying key has %zu public inputs, the circuit (%s) %zu", f.vk, vk.n_ic - 1, desc,
                   npub);
        goto out;
    }
    size_t plen;
    if (!(pbytes = cli_read_file("verify", f.proof, &plen))) goto out;
    if (plen == 0 || plen % CUZK_GROTH16_PROOF_BYTES) {
        cli_errorf("%s: %zu bytes is not a positive multiple of %d (one proof)", f.proof, plen,
                   CUZK_GROTH16_PROOF_BYTES);
        goto out;
    }
    const size_t count = plen / CUZK_GROTH16_PROOF_BYTES;
    proofs = calloc(count, sizeof *proofs);
    x = calloc(count * npub + 1, sizeof *x);
    if (!proofs || !x) {
        cli_errorf("out of memory");
        goto out;
    }
    cuzk_groth16_proof_error perr;
    int rc = cuzk_groth16_proofs_decode(proofs, count, pbytes, plen, &perr);
    if (rc) {
        static const char part[] = "?ABC";
        cli_errorf("%s: proof %zu: point %c does not decode: %s", f.proof, perr.index, part[perr.part & 3],
                   cuzk_strerror(rc));
        goto out;
    }
    if (from_file) {
        size_t len;
        if (!(pubbytes = cli_read_file("verify", f.pub, &len))) goto out;
        if (len != count * npub * CUZK_FR_BYTES) {
            cli_errorf("%s: %zu bytes, expected %zu (%zu proofs x %zu inputs x 32)", f.pub, len,
                       count * npub * CUZK_FR_BYTES, count, npub);
            goto out;
        }
        for (size_t i = 0; i < count * npub; i++)
            if (cuzk_fr_from_le32(&x[i], pubbytes + i * CUZK_FR_BYTES)) {
                cli_errorf("%s: input %zu of proof %zu is not a canonical field element", f.pub, i % (npub ? npub : 1),
                           i / (npub ? npub : 1));
                goto out;
            }
    } else {
        for (size_t i = 0; i < count; i++)
            if ((rc = circ_public_inputs(&c, seed + i, x + i * npub))) {
                cli_errorf("public inputs: %s", cuzk_strerror(rc));
                goto out;
            }
    }
    if ((rc = cuzk_groth16_prepare_vk(&pvk, &vk))) {
        cli_errorf("%s: %s", f.vk, cuzk_strerror(rc));
        goto out;
    }
    double t1 = cuzk_now();
    rc = count == 1 ? cuzk_groth16_verify(&pvk, proofs, x, npub)
                    : cuzk_groth16_verify_batch(&pvk, proofs, count, x, npub);
    double t2 = cuzk_now();
    if (rc == CUZK_ERR_VERIFY_FAILED && count > 1) {
        /* Name the proofs that fail. */
        for (size_t i = 0; i < count; i++)
            if (cuzk_groth16_verify(&pvk, &proofs[i], x + i * npub, npub) != CUZK_OK)
                cli_errorf("%s: proof %zu does not verify", f.proof, i);
    }
    if (rc == CUZK_ERR_VERIFY_FAILED) {
        cli_errorf("verification FAILED: %zu proof(s) in %s against %s and inputs from %s", count, f.proof, f.vk,
                   from_file ? f.pub : "the circuit and seed");
        goto out;
    }
    if (rc) {
        cli_errorf("verify: %s", cuzk_strerror(rc));
        goto out;
    }
    printf("verify: %s, %zu proof(s), inputs %s%s\n", desc, count, from_file ? "from " : "recomputed from seed",
           from_file ? f.pub : "");
    printf("verify: load %.3f s, %s %.3f s\n", t1 - t0, count == 1 ? "verify" : "batch verify", t2 - t1);
    printf("OK\n");
    ret = 0;
out:
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_vk_free(&vk);
    free(pbytes), free(pubbytes), free(proofs), free(x);
    return ret;
}
