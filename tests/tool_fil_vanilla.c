/*
 * Driver for gen_vanilla.test.sh:
 *   tool_fil_vanilla sector DIR SEAL_PROOF_ID SECTOR_ID MINER_ID SEED
 *       writes a stand-in sealed sector (cuzk_fil_sector_random) as a directory;
 *   tool_fil_vanilla check REQUEST_JSON [PARTITION]
 *       reads a request file written by `cuzk gen-vanilla` and the vanilla proofs it names,
 *       prepares every partition (fil_vanilla.h) and checks that the witness satisfies TestCS
 *       with exactly the rebuilt public inputs (SnapDeals: only PARTITION on TestCS when given,
 *       e.g. one 81M-constraint 32 GiB partition); prints "ok KIND PARTITIONS CONSTRAINTS".
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/filecoin_gen/fil_gen.h"
#include "testutil.h"

static int unhex32(uint8_t out[32], json_t *o, const char *name)
{
    json_t *v = json_object_get(o, name);
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    return strlen(s) == 64 ? tu_unhex(out, 32, s) : -1;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

/* TestCS satisfied with inputs[0..n); returns constraints or 0. */
static size_t satisfied(int post, const void *job, const cuzk_fr *inputs, size_t n)
{
    cuzk_test_cs *t = cuzk_test_cs_new();
    cuzk_cs_alloc_one(&t->base);
    int rc;
    if (post) {
        const cuzk_fil_post_partition *j = job;
        rc = cuzk_post_circuit(&t->base, &j->cfg, &j->w, 1);
    } else {
        const cuzk_fil_snap_partition *j = job;
        rc = cuzk_update_circuit(&t->base, &j->cfg, &j->w);
    }
    size_t c = !rc && cuzk_test_cs_is_satisfied(t) && t->base.num_inputs == n + 1 &&
                       !memcmp(&t->input.v[1], inputs, n * sizeof *inputs)
                   ? t->base.num_constraints
                   : 0;
    if (!c) fprintf(stderr, "unsatisfied at %s\n", t->first_unsat ? t->first_unsat : "(inputs)");
    cuzk_cs_free(&t->base);
    return c;
}

static int check(const char *path, long only)
{
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o) {
        fprintf(stderr, "%s: %s\n", path, je.text);
        return 1;
    }
    const char *kind = json_string_value(json_object_get(o, "proof_kind"));
    uint64_t id = (uint64_t)json_integer_value(json_object_get(o, "registered_proof"));
    uint32_t part = (uint32_t)json_integer_value(json_object_get(o, "partition_index"));
    json_t *files = json_object_get(o, "vanilla_proofs");
    size_t n = json_array_size(files);
    cuzk_fil_blob *b = calloc(n ? n : 1, sizeof *b);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else strcpy(dir, ".");
    int rc = kind && n ? 0 : 1;
    for (size_t i = 0; i < n && !rc; i++) {
        char f[8192];
        snprintf(f, sizeof f, "%s/%s", dir, json_string_value(json_array_get(files, i)));
        size_t len = 0;
        b[i].data = slurp(f, &len);
        b[i].len = len;
        if (!b[i].data) rc = 1;
    }
    char err[512] = "";
    size_t cons = 0;
    if (!rc && (!strcmp(kind, "wpost") || !strcmp(kind, "winning"))) {
        uint8_t rnd[32];
        cuzk_fil_post_partition j;
        rc = unhex32(rnd, o, "randomness") || cuzk_fil_post_prepare(&j, id, rnd, part, b, n, NULL, err, sizeof err);
        if (!rc) {
            rc = !(cons = satisfied(1, &j, j.inputs, j.num_inputs));
            cuzk_fil_post_partition_free(&j);
        }
    } else if (!rc && !strcmp(kind, "snap")) {
        uint8_t ro[32], rn[32], dn[32];
        rc = unhex32(ro, o, "comm_r_old") || unhex32(rn, o, "comm_r_new") || unhex32(dn, o, "comm_d_new") ||
             (only >= 0 && (size_t)only >= n);
        for (size_t k = 0; k < n && !rc; k++) {
            cuzk_fil_snap_partition j;
            rc = cuzk_fil_snap_prepare(&j, id, (uint32_t)k, ro, rn, dn, b[k].data, b[k].len, err, sizeof err);
            if (!rc) {
                if (only < 0 || (size_t)only == k) rc = !(cons = satisfied(0, &j, j.inputs, 4));
                cuzk_fil_snap_partition_free(&j);
            }
        }
    } else {
        rc = 1;
    }
    if (rc) fprintf(stderr, "%s: refused: %s\n", path, err);
    else printf("ok %s %zu %zu\n", kind, n, cons);
    for (size_t i = 0; i < n; i++) free((void *)b[i].data);
    free(b);
    json_decref(o);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 7 && !strcmp(argv[1], "sector")) {
        cuzk_rng rng;
        cuzk_rng_seed(&rng, strtoull(argv[6], NULL, 0));
        cuzk_fil_sector s;
        if (cuzk_fil_sector_random(&s, strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
                                   strtoull(argv[5], NULL, 0), &rng) ||
            cuzk_fil_sector_write(&s, argv[2]))
            return 1;
        cuzk_fil_sector_free(&s);
        return 0;
    }
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "check"))
        return check(argv[2], argc == 4 ? strtol(argv[3], NULL, 10) : -1);
    fprintf(stderr, "usage: tool_fil_vanilla sector DIR SEAL_ID SECTOR_ID MINER SEED | check REQUEST_JSON [PARTITION]\n");
    return 2;
}
