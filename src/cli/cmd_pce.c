/* cuzk pce: pre-compiled circuit files. `cuzk pce inspect FILE` checks a
 * file the way the cache would and prints what an operator wants to know. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/filecoin_gen/fil_request_file.h"
#include "cuzk/filecoin/fil_request.h"
#include "cuzk/kinds/kinds.h"
#include "cuzk/engine/engine.h"
#include "cuzk/util/error.h"
#include "cuzk/pce/pce.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk pce inspect [--no-verify] [--threads N] FILE\n"
               "       cuzk pce extract --circuit ID [--dir DIR] [--threads N] [--request FILE [--partition K]]\n\n"
               "  inspect    check a PCE file (header, section SHA-256s, content hash, structure)\n"
               "             and print its summary: counts, nnz per matrix, coefficient classes,\n"
               "             density, memory\n"
               "  --no-verify  skip the SHA-256 checks (structure is still checked)\n"
               "  --threads N  hashing and checking threads (default: CUZK_THREADS or all CPUs)\n"
               "  extract    the PCE of a Filecoin circuit (porep-32g, snap-2k, wpost-32g, winning-2k,\n"
               "             ...) into DIR/<ID>.pce exactly as the daemon's cache keeps it (same\n"
               "             fingerprint; DIR = the daemon's pce_dir or param_cache, default ., made if\n"
               "             missing): a valid file is\n"
               "             loaded, anything else re-extracted from the blank circuit and saved\n"
               "             atomically; then the file is inspected. No parameter file needed.\n"
               "  --request FILE  then one partition (K, default 0) of that request (`cuzk gen-vanilla`'s\n"
               "             request.json) through the PCE: parse, witness, a/b/c, the witness's public\n"
               "             inputs against the rebuilt ones and a*b = c for every constraint, timed.\n");
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static const char *human(char *buf, size_t n, double bytes)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (bytes >= 1024 && i < 4) bytes /= 1024, i++;
    snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", bytes, u[i]);
    return buf;
}

static int inspect(const char *path, bool verify, unsigned threads)
{
    cuzk_pce *p = NULL;
    cuzk_pce_error err;
    unsigned flags = CUZK_PCE_LOAD_ANY_LIBRARY | (verify ? 0 : CUZK_PCE_LOAD_NO_CHECKSUMS);
    double t0 = cuzk_now();
    int rc = cuzk_pce_load_file(&p, path, NULL, flags, threads, &err);
    double dt = cuzk_now() - t0;
    if (rc) {
        cli_errorf("%s (%s)", err.msg, cuzk_pce_fail_name(err.fail));
        return 1;
    }
    const double m = p->num_constraints ? (double)p->num_constraints : 1;
    char mem[32], fph[65], chh[65];
    hex(fph, p->fingerprint, 32);
    hex(chh, p->content_hash, 32);
    printf("inputs: %llu, aux: %llu, constraints: %llu, A: {nnz: %llu, avg/row: %.1f}, "
           "B: {nnz: %llu, avg/row: %.1f}, C: {nnz: %llu, avg/row: %.1f}, mem: %s\n",
           (unsigned long long)p->num_inputs, (unsigned long long)p->num_aux,
           (unsigned long long)p->num_constraints, (unsigned long long)p->m[0].nnz, p->m[0].nnz / m,
           (unsigned long long)p->m[1].nnz, p->m[1].nnz / m, (unsigned long long)p->m[2].nnz,
           p->m[2].nnz / m, human(mem, sizeof mem, (double)cuzk_pce_memory_bytes(p)));
    printf("file:         %s (%llu bytes, format v%u, written by cuzk %s%s)\n", path,
           (unsigned long long)p->image_len, p->format_version, p->library_version,
           strcmp(p->library_version, cuzk_pce_library_version()) ? "; this build would re-extract it" : "");
    printf("circuit:      %s\nfingerprint:  %s\ncontent hash: %s\n", p->circuit_id, fph, chh);
    printf("coefficients: %-10s %12s %12s %12s %12s %12s\n", "", "+1", "-1", "small", "general", "zero");
    static const char *names[3] = {"A", "B", "C"};
    for (int k = 0; k < 3; k++) {
        const uint64_t *h = p->m[k].hist;
        double n = p->m[k].nnz ? (double)p->m[k].nnz : 1;
        printf("  %-22s %12llu %12llu %12llu %12llu %12llu\n", names[k], (unsigned long long)h[CUZK_PCE_ONE],
               (unsigned long long)h[CUZK_PCE_NEG_ONE], (unsigned long long)h[CUZK_PCE_SMALL],
               (unsigned long long)h[CUZK_PCE_GENERAL], (unsigned long long)h[CUZK_PCE_HIST_ZERO]);
        printf("  %-22s %11.1f%% %11.1f%% %11.1f%% %11.1f%% %11.1f%%\n", "", 100 * h[0] / n, 100 * h[1] / n,
               100 * h[2] / n, 100 * h[3] / n, 100 * h[4] / n);
    }
    printf("general values: %llu distinct (side table)\n", (unsigned long long)p->num_coeffs);
    printf("density:      A aux %zu/%zu, B input %zu/%zu, B aux %zu/%zu\n", p->a_aux.total, p->a_aux.len,
           p->b_input.total, p->b_input.len, p->b_aux.total, p->b_aux.len);
    printf("row pointers: %s\n", p->m[0].row_ptr32 ? "u32" : "u64");
    printf("checked:      %s structure in %.3f s\n",
           verify ? "header, section and content checksums," : "(checksums skipped)", dt);
    cuzk_pce_free(p);
    return 0;
}

/* One partition of a request file through the PCE (cuzk_engine_filecoin_pce_check). */
static int check_request(const cuzk_pce *p, const char *circuit, const char *file, uint32_t partition,
                         unsigned threads)
{
    cuzk_fil_request_file q;
    char err[640] = "";
    if (cuzk_fil_request_file_read(file, &q, err, sizeof err)) return cli_errorf("pce extract: %s", err), 1;
    cuzk_fil_request fr = {.kind = q.kind,
                           .partition_index = q.partition_index, .registered_proof = q.registered_proof,
                           .sector_size = q.sector_size, .sector_number = q.sector_number, .miner_id = q.miner_id,
                           .present = q.present, .num_blobs = q.num_blobs};
    memcpy(fr.randomness, q.randomness, 32);
    memcpy(fr.comm_r_old, q.comm_r_old, 32);
    memcpy(fr.comm_r_new, q.comm_r_new, 32);
    memcpy(fr.comm_d_new, q.comm_d_new, 32);
    cuzk_fil_blob *blobs = calloc(q.num_blobs ? q.num_blobs : 1, sizeof *blobs);
    size_t len = 0;
    uint8_t *enc = NULL;
    int rc = 1;
    if (blobs) {
        for (size_t i = 0; i < q.num_blobs; i++) blobs[i] = (cuzk_fil_blob){q.blobs[i], q.blob_lens[i]};
        fr.blobs = blobs;
        len = cuzk_fil_request_size(&fr);
        enc = malloc(len);
    }
    if (enc) {
        cuzk_fil_request_encode(&fr, enc);
        cuzk_engine_pce_check c;
        int e = cuzk_engine_filecoin_pce_check(p, circuit, enc, len, partition, threads, &c, err, sizeof err);
        if (e) {
            cli_errorf("pce extract: %s, partition %u: %s", file, partition, err);
        } else {
            printf("request:      %s, partition %u: %zu constraints satisfied, public inputs as rebuilt\n", file,
                   partition, c.constraints);
            printf("timings:      parse %.2f s, witness %.2f s (%zu aux), PCE a/b/c %.2f s (%u threads), "
                   "a*b = c check %.2f s\n",
                   c.parse_s, c.witness_s, c.aux, c.eval_s, threads, c.check_s);
            rc = 0;
        }
    } else {
        cli_errorf("pce extract: out of memory");
    }
    free(enc);
    free(blobs);
    cuzk_fil_request_file_free(&q);
    return rc;
}

static int extract(int argc, char **argv)
{
    const char *circuit = NULL, *dir = ".", *request = NULL;
    uint32_t partition = 0;
    unsigned threads = cli_default_threads();
    for (int i = 2; i < argc; i++) {
        uint64_t v;
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--circuit") && val) {
            circuit = val, i++;
        } else if (!strcmp(a, "--dir") && val) {
            dir = val, i++;
        } else if (!strcmp(a, "--request") && val) {
            request = val, i++;
        } else if (!strcmp(a, "--partition") && val && cli_parse_u64(val, &v) && v < 1024) {
            partition = (uint32_t)v, i++;
        } else if (!strcmp(a, "--threads") && val && cli_parse_u64(val, &v) && v > 0 && v < 4096) {
            threads = (unsigned)v, i++;
        } else {
            cli_errorf("pce extract: unexpected argument '%s'", a);
            usage(stderr);
            return 2;
        }
    }
    if (!circuit) {
        cli_errorf("pce extract: --circuit is required (e.g. porep-32g)");
        return 2;
    }
    /* the directory made if missing, as the daemon makes its pce_dir */
    if (mkdir(dir, 0750) && errno != EEXIST) {
        cli_errorf("pce extract: %s: %s", dir, strerror(errno));
        return 1;
    }
    cuzk_pce *p = NULL;
    cuzk_pce_cache_outcome oc = 0;
    char err[512] = "";
    double t0 = cuzk_now();
    int rc = cuzk_engine_filecoin_pce(dir, circuit, threads, &p, &oc, err, sizeof err);
    if (rc) {
        cli_errorf("pce extract: %s", err);
        return rc == CUZK_ERR_INVALID_ARG ? 2 : 1;
    }
    printf("%s: %s in %.1f s (%u threads)\n", circuit,
           oc == CUZK_PCE_CACHE_LOADED ? "a valid cached file loaded" : "extracted and saved", cuzk_now() - t0,
           threads);
    rc = request ? check_request(p, circuit, request, partition, threads) : 0;
    cuzk_pce_free(p);
    if (rc) return rc;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.pce", dir, circuit);
    return inspect(path, true, threads);
}

int cmd_pce(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "extract")) return extract(argc, argv);
    if (strcmp(argv[1], "inspect")) {
        cli_errorf("pce: unknown subcommand '%s'", argv[1]);
        usage(stderr);
        return 2;
    }
    bool verify = true;
    unsigned threads = cli_default_threads();
    const char *file = NULL;
    for (int i = 2; i < argc; i++) {
        uint64_t v;
        if (!strcmp(argv[i], "--no-verify")) {
            verify = false;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc && cli_parse_u64(argv[i + 1], &v) && v > 0 &&
                   v < 4096) {
            threads = (unsigned)v, i++;
        } else if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || file) {
            cli_errorf("pce inspect: unexpected argument '%s'", argv[i]);
            usage(stderr);
            return 2;
        } else {
            file = argv[i];
        }
    }
    if (!file) {
        usage(stderr);
        return 2;
    }
    return inspect(file, verify, threads);
}
