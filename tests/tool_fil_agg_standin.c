/*
 * NI-PoRep sectors for the daemon's aggregation tests (fil_aggregate_ni.test.sh), made without
 * sealing or the 2.7M-constraint PoRep circuit: fresh random values (comm_r, comm_d, ticket,
 * seed, sector number) for N 2KiB NI-PoRep sectors of one miner, each sector's 13 partition
 * proofs made with the stand-in circuit of fil_agg_standin.h (its public inputs the rows
 * cuzk_fil_porep_public_inputs derives), and that stand-in's parameters written under the 2KiB
 * PoRep's Filecoin names, so that a daemon whose param cache is DIR registers its PoRep kinds
 * (the .params file's presence) and aggregate-seal, which verifies aggregates of them (the .vk);
 * no PoRep is proved with them.
 *   build/tool_fil_agg_standin DIR SEED MINER N
 * Writes DIR/<PoRep 2KiB .params and .vk names>, DIR/sectors.json ({"registered_proof", "miner", "sectors":
 * [{"sector_number", "comm_r", "comm_d", "ticket", "seed" (hex), "proof" (file name)}]}) and
 * DIR/ni-<i>.proof (13 x 192 bytes). Exit 0, or 1 saying why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/filecoin.h"
#include "cuzk/util/hex.h"
#include "fil_agg_standin.h"

static void hex32(FILE *f, const char *key, const uint8_t b[32], const char *sep)
{
    char h[65];
    cuzk_hex_encode(h, b, 32);
    fprintf(f, "\"%s\": \"%s\"%s", key, h, sep);
}

static int write_file(const char *dir, const char *name, const uint8_t *b, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    return ok ? 0 : (fprintf(stderr, "tool_fil_agg_standin: cannot write %s\n", path), 1);
}

/* DIR/sectors.json and the proof files. */
static int write_sectors(const char *dir, const cuzk_fil_agg_values *v, uint64_t miner, uint8_t *const *c2,
                         const size_t *len)
{
    char path[4096], name[64];
    snprintf(path, sizeof path, "%s/sectors.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return fprintf(stderr, "tool_fil_agg_standin: cannot write %s\n", path), 1;
    fprintf(f, "{\"registered_proof\": %llu, \"miner\": %llu, \"sectors\": [\n",
            (unsigned long long)v->registered_proof, (unsigned long long)miner);
    int rc = 0;
    for (size_t i = 0; !rc && i < v->num_sectors; i++) {
        const cuzk_fil_agg_sector *s = &v->sectors[i];
        snprintf(name, sizeof name, "ni-%zu.proof", i);
        fprintf(f, "{\"sector_number\": %llu, ", (unsigned long long)s->sector_number);
        hex32(f, "comm_r", s->comm_r, ", "), hex32(f, "comm_d", s->comm_d, ", ");
        hex32(f, "ticket", s->ticket, ", "), hex32(f, "seed", s->seed, ", ");
        fprintf(f, "\"proof\": \"%s\"}%s\n", name, i + 1 < v->num_sectors ? "," : "");
        rc = write_file(dir, name, c2[i], len[i]);
    }
    fprintf(f, "]}\n");
    return fclose(f) || rc ? 1 : 0;
}

/* The stand-in's parameters under the PoRep's Filecoin names (ext ".params" or ".vk"). */
static int write_params(const char *dir, uint64_t rp, const cuzk_groth16_params *p, const char *ext)
{
    char cache_id[CUZK_FIL_CACHE_ID_MAX], file[CUZK_FIL_CACHE_ID_MAX + 16], path[4096];
    cuzk_groth16_error ge;
    if (!cuzk_fil_porep_cache_id(cache_id, rp) || !cuzk_fil_param_file_name(file, sizeof file, cache_id, ext))
        return fprintf(stderr, "tool_fil_agg_standin: no %s name for %llu\n", ext, (unsigned long long)rp), 1;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = strcmp(ext, ".vk") ? cuzk_groth16_params_write_file(p, path, &ge)
                                : cuzk_groth16_vk_write_file(&p->vk, path, &ge);
    if (rc)
        return fprintf(stderr, "tool_fil_agg_standin: %s: %s\n", path, ge.msg), 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) return fprintf(stderr, "usage: tool_fil_agg_standin DIR SEED MINER N\n"), 1;
    const char *dir = argv[1];
    uint64_t miner = strtoull(argv[3], NULL, 0);
    size_t n = strtoul(argv[4], NULL, 0);
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_by_name("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
    if (!sp || !n || n > 1024) return fprintf(stderr, "tool_fil_agg_standin: N: 1 to 1024\n"), 1;
    cuzk_rng rng;
    cuzk_rng_seed(&rng, strtoull(argv[2], NULL, 0));
    cuzk_fil_agg_sector *s = calloc(n, sizeof *s);
    uint8_t **c2 = calloc(n, sizeof *c2);
    size_t *len = calloc(n, sizeof *len), ni;
    cuzk_fil_agg_values v = {.registered_proof = sp->id, .version = CUZK_SNARKPACK_V2, .sectors = s, .num_sectors = n};
    cuzk_fil_prover_id(v.prover_id, miner);
    for (size_t i = 0; s && i < n; i++) {
        cuzk_fr x;
        s[i].sector_number = 1 + i + (cuzk_rng_u64(&rng) % 1000000) * 1024;
        cuzk_fr_random(&x, &rng), cuzk_fr_to_le32(s[i].comm_r, &x);
        cuzk_fr_random(&x, &rng), cuzk_fr_to_le32(s[i].comm_d, &x);
        cuzk_rng_bytes(&rng, s[i].ticket, 32), cuzk_rng_bytes(&rng, s[i].seed, 32);
    }
    uint32_t parts;
    char err[256];
    cuzk_groth16_params p;
    int rc = s && c2 && len ? cuzk_fil_agg_shape(&v, &parts, &ni, err, sizeof err) : CUZK_ERR_NO_MEMORY;
    if (!rc) rc = standin_setup(&p, ni, &rng);
    if (!rc) rc = standin_prove_sectors(c2, len, &p, &v, parts, ni, &rng);
    if (rc) return fprintf(stderr, "tool_fil_agg_standin: %s\n", cuzk_strerror(rc)), 1;
    rc = write_params(dir, sp->id, &p, ".vk") || write_params(dir, sp->id, &p, ".params") ||
         write_sectors(dir, &v, miner, c2, len);
    for (size_t i = 0; i < n; i++) free(c2[i]);
    free(c2), free(len), free(s);
    cuzk_groth16_params_free(&p);
    return rc;
}
