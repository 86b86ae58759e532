/*
 * cuzk params check | list: Filecoin parameter files in a param_cache
 * directory against filecoin-proofs' parameters.json (embedded, or
 * --parameters-json), by the digest paramfetch checks (first 128 bits of
 * Blake2b-512, include/cuzk/filecoin/fil_params.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_params.h"

enum { OPT_CACHE = 256, OPT_JSON, OPT_NAME, OPT_HELP };

static const char usage_text[] =
    "usage: cuzk params check [--param-cache DIR] [--parameters-json FILE] [--name NAME ...]\n"
    "       cuzk params list  [--param-cache DIR] [--parameters-json FILE]\n\n"
    "check  hashes each parameter file present in DIR (or each --name, which must then be\n"
    "       present) and compares the first 128 bits of its Blake2b-512 with parameters.json;\n"
    "       exits 1 naming every file that differs or cannot be read.\n"
    "list   the .params/.vk files the registered proofs use (and the .meta beside them):\n"
    "       present or missing, and whether parameters.json knows them.\n\n"
    "  --param-cache DIR       default $" CUZK_FIL_PARAM_CACHE_ENV " or " CUZK_FIL_PARAM_CACHE_DEFAULT "\n"
    "  --parameters-json FILE  default: the v28 parameters.json built into cuzk\n";

typedef struct progress {
    const char *name;
    double t0, last;
} progress;

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress *p = ctx;
    double t = cuzk_now();
    if (t - p->last < 2.0) return; /* a line every 2 s on big files */
    p->last = t;
    fprintf(stderr, "  %s: %5.1f%% of %.2f GB (%.2f GB/s)\n", p->name, 100.0 * (double)done / (double)(total ? total : 1),
            (double)total / 1e9, (double)done / (t - p->t0) / 1e9);
}

static bool is_file(const char *path, uint64_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (size) *size = (uint64_t)st.st_size;
    return true;
}

static int load_manifest(cuzk_fil_manifest *m, const char *json)
{
    char err[512];
    int rc = json ? cuzk_fil_manifest_load(m, json, err, sizeof err) : cuzk_fil_manifest_builtin(m, err, sizeof err);
    if (rc) cli_errorf("%s", err);
    return rc;
}

static int check(const char *dir, const cuzk_fil_manifest *m, char **names, size_t nnames)
{
    size_t checked = 0, bad = 0;
    char path[CUZK_FIL_PATH_MAX];
    for (size_t i = 0; i < (nnames ? nnames : m->n); i++) {
        const char *name = nnames ? names[i] : m->e[i].name;
        const cuzk_fil_manifest_entry *e = cuzk_fil_manifest_find(m, name);
        if (!e) {
            printf("BAD  %s: not in parameters.json\n", name);
            bad++;
            continue;
        }
        if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
            printf("BAD  %s: path too long\n", name);
            bad++;
            continue;
        }
        uint64_t size = 0;
        if (!is_file(path, &size)) {
            if (nnames) { /* asked for by name: must be there */
                printf("BAD  %s: missing in %s\n", name, dir);
                bad++;
            }
            continue;
        }
        char hex[CUZK_FIL_DIGEST_HEX + 1], err[512];
        progress p = {name, cuzk_now(), cuzk_now()};
        checked++;
        if (cuzk_fil_param_digest(hex, path, on_progress, &p, err, sizeof err)) {
            printf("BAD  %s: %s\n", name, err);
            bad++;
        } else if (strcmp(hex, e->digest)) {
            printf("BAD  %s: digest %s, parameters.json says %s\n", name, hex, e->digest);
            bad++;
        } else {
            double dt = cuzk_now() - p.t0;
            printf("ok   %s (%llu bytes, %.1f s)\n", name, (unsigned long long)size, dt);
        }
    }
    printf("%zu file%s checked in %s, %zu bad\n", checked, checked == 1 ? "" : "s", dir, bad);
    if (bad) {
        cli_errorf("%zu parameter file%s failed the check (named above)", bad, bad == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

static int list(const char *dir, const cuzk_fil_manifest *m)
{
    /* every circuit's files for every registered proof, each cache id once */
    char seen[64][CUZK_FIL_CACHE_ID_MAX];
    size_t nseen = 0, present = 0, missing = 0;
    printf("%-13s %-7s %-8s %-9s %s\n", "circuit", "size", "file", "state", "name");
    for (int c = 0; c < CUZK_FIL_CIRCUIT_COUNT; c++)
        for (uint64_t id = 0; id < 20; id++) {
            cuzk_fil_param_files f;
            if (cuzk_fil_param_files_for(&f, (cuzk_fil_circuit)c, id, dir)) continue;
            bool dup = false;
            for (size_t k = 0; k < nseen && !dup; k++) dup = !strcmp(seen[k], f.cache_id);
            if (dup || nseen == 64) continue;
            snprintf(seen[nseen++], CUZK_FIL_CACHE_ID_MAX, "%s", f.cache_id);
            const char *paths[3] = {f.params, f.vk, f.meta};
            for (int k = 0; k < 3; k++) {
                const char *base = strrchr(paths[k], '/') + 1;
                bool here = is_file(paths[k], NULL), known = cuzk_fil_manifest_find(m, base) != NULL;
                char sz[16];
                if (f.sector_size >= (1ull << 30)) snprintf(sz, sizeof sz, "%lluGiB", (unsigned long long)(f.sector_size >> 30));
                else if (f.sector_size >= (1ull << 20)) snprintf(sz, sizeof sz, "%lluMiB", (unsigned long long)(f.sector_size >> 20));
                else snprintf(sz, sizeof sz, "%lluKiB", (unsigned long long)(f.sector_size >> 10));
                printf("%-13s %-7s %-8s %-9s %s%s\n", cuzk_fil_circuit_name((cuzk_fil_circuit)c), sz, strrchr(base, '.') + 1,
                       here ? "present" : "missing", base,
                       k < 2 && !known ? "  (not in parameters.json)" : "");
                if (k < 2) here ? present++ : missing++;
            }
        }
    printf("%s: %zu of %zu .params/.vk files present\n", dir, present, present + missing);
    return 0;
}

int cmd_params(int argc, char **argv)
{
    static const struct option opts[] = {{"param-cache", required_argument, 0, OPT_CACHE},
                                         {"parameters-json", required_argument, 0, OPT_JSON},
                                         {"name", required_argument, 0, OPT_NAME},
                                         {"help", no_argument, 0, OPT_HELP},
                                         {0, 0, 0, 0}};
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    bool is_check = !strcmp(sub, "check"), is_list = !strcmp(sub, "list");
    if (!is_check && !is_list) {
        cli_errorf("params: unknown subcommand '%s' (check, list)", sub);
        return 2;
    }
    const char *dir = cli_param_cache_dir(), *json = NULL;
    char **names = calloc((size_t)argc, sizeof *names);
    size_t nnames = 0;
    if (!names) return cli_errorf("out of memory"), 1;
    int opt, rc = 0;
    optind = 2;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case OPT_CACHE: dir = optarg; break;
        case OPT_JSON: json = optarg; break;
        case OPT_NAME:
            if (!is_check) rc = 2;
            else names[nnames++] = optarg;
            break;
        case OPT_HELP: fputs(usage_text, stdout); free(names); return 0;
        default: rc = 2;
        }
    }
    if (!rc && optind < argc) cli_errorf("unexpected argument '%s'", argv[optind]), rc = 2;
    if (rc) {
        fputs(usage_text, stderr);
        free(names);
        return 2;
    }
    cuzk_fil_manifest m;
    if (load_manifest(&m, json)) {
        free(names);
        return 1;
    }
    rc = is_check ? check(dir, &m, names, nnames) : list(dir, &m);
    cuzk_fil_manifest_free(&m);
    free(names);
    return rc;
}
