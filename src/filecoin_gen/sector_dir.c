/* Sealed-sector directories (sector.json, data.bin, replica.bin; src/cli/cmd_gen.c) and
 * stand-in random sectors for the generators (fil_gen.h). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin_gen/fil_gen.h"
#include "cuzk/util/hex.h"

static const char *const hex_names[7] = {"prover_id", "ticket", "comm_d", "comm_r", "comm_c", "comm_r_last",
                                         "replica_id"};

static uint8_t *hex_field(cuzk_fil_sector *s, int i)
{
    uint8_t *p[7] = {s->prover_id, s->ticket, s->comm_d, s->comm_r, s->comm_c, s->comm_r_last, s->replica_id};
    return p[i];
}

void cuzk_fil_sector_free(cuzk_fil_sector *s)
{
    free(s->data);
    free(s->replica);
    memset(s, 0, sizeof *s);
}

/* nodes x 32 bytes of canonical field elements; NULL with err on failure. */
static cuzk_fr *read_nodes(const char *dir, const char *name, uint64_t nodes, int optional, int *rc, char *err,
                           size_t err_len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (!optional) {
            snprintf(err, err_len, "%s: %s", path, strerror(errno));
            *rc = CUZK_ERR_IO;
        }
        return NULL;
    }
    cuzk_fr *v = malloc(sizeof(cuzk_fr) * nodes);
    uint8_t b[32];
    uint64_t i = 0;
    for (; v && i < nodes && fread(b, 1, 32, f) == 32; i++)
        if (cuzk_fr_from_le32(&v[i], b) != 0) break;
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (!v || i != nodes || extra) {
        if (!v) snprintf(err, err_len, "%s: out of memory", path);
        else if (i == nodes) snprintf(err, err_len, "%s: longer than the sector", path);
        else snprintf(err, err_len, "%s: short, or node %llu is not a canonical field element", path,
                      (unsigned long long)i);
        *rc = v ? CUZK_ERR_FORMAT : CUZK_ERR_NO_MEMORY;
        free(v);
        return NULL;
    }
    return v;
}

int cuzk_fil_sector_read(cuzk_fil_sector *s, const char *dir, char *err, size_t err_len)
{
    memset(s, 0, sizeof *s);
    char path[4096];
    snprintf(path, sizeof path, "%s/sector.json", dir);
    json_error_t je;
    json_t *o = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!o || !json_is_object(o)) {
        snprintf(err, err_len, "%s: %s", path, o ? "not a JSON object" : je.text);
        json_decref(o);
        return CUZK_ERR_FORMAT;
    }
    int rc = 0;
    const char *ints[3] = {"sector_size", "registered_proof", "sector_id"};
    uint64_t *iv[3] = {&s->sector_size, &s->registered_proof, &s->sector_id};
    for (int i = 0; i < 3 && !rc; i++) {
        json_t *v = json_object_get(o, ints[i]);
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            snprintf(err, err_len, "%s: %s: not a non-negative integer", path, ints[i]);
            rc = CUZK_ERR_FORMAT;
        } else {
            *iv[i] = (uint64_t)json_integer_value(v);
        }
    }
    for (int i = 0; i < 7 && !rc; i++) {
        json_t *v = json_object_get(o, hex_names[i]);
        if (!json_is_string(v) || cuzk_hex_decode(hex_field(s, i), 32, json_string_value(v))) {
            snprintf(err, err_len, "%s: %s: not 64 hex digits", path, hex_names[i]);
            rc = CUZK_ERR_FORMAT;
        }
    }
    json_decref(o);
    cuzk_tree_shape tree_r;
    if (!rc && cuzk_fil_tree_r(&tree_r, s->sector_size)) {
        snprintf(err, err_len, "%s: sector_size: %llu is not a Filecoin sector size", path,
                 (unsigned long long)s->sector_size);
        rc = CUZK_ERR_FORMAT;
    }
    if (rc) return rc;
    s->nodes = s->sector_size / 32;
    s->replica = read_nodes(dir, "replica.bin", s->nodes, 0, &rc, err, err_len);
    if (!rc) s->data = read_nodes(dir, "data.bin", s->nodes, 1, &rc, err, err_len);
    if (rc) {
        cuzk_fil_sector_free(s);
        return rc;
    }
    cuzk_merkle_tree t;
    rc = cuzk_merkle_tree_build(&t, &tree_r, s->replica, s->nodes);
    if (!rc) {
        cuzk_fr c, cl, cr, h;
        uint8_t root[32];
        cuzk_fr_to_le32(root, &t.root);
        if (cuzk_fr_from_le32(&c, s->comm_c) || cuzk_fr_from_le32(&cl, s->comm_r_last) ||
            cuzk_fr_from_le32(&cr, s->comm_r) || memcmp(root, s->comm_r_last, 32)) {
            snprintf(err, err_len, "%s: comm_r_last: not the root of tree R over replica.bin", path);
            rc = CUZK_ERR_FORMAT;
        } else {
            cuzk_fil_comm_r(&h, &c, &cl);
            if (!cuzk_fr_eq(&h, &cr)) {
                snprintf(err, err_len, "%s: comm_r: not H(comm_c, comm_r_last)", path);
                rc = CUZK_ERR_FORMAT;
            }
        }
        cuzk_merkle_tree_free(&t);
    }
    if (rc) cuzk_fil_sector_free(s);
    return rc;
}

static int write_nodes(const char *dir, const char *name, const cuzk_fr *v, uint64_t n)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return CUZK_ERR_IO;
    int ok = 1;
    for (uint64_t i = 0; i < n && ok; i++) {
        uint8_t b[32];
        cuzk_fr_to_le32(b, &v[i]);
        ok = fwrite(b, 1, 32, f) == 32;
    }
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path)) {
        remove(tmp);
        return CUZK_ERR_IO;
    }
    return 0;
}

int cuzk_fil_sector_write(const cuzk_fil_sector *s, const char *dir)
{
    if (mkdir(dir, 0777) && errno != EEXIST) return CUZK_ERR_IO;
    json_t *o = json_object();
    json_object_set_new(o, "sector_size", json_integer((json_int_t)s->sector_size));
    json_object_set_new(o, "registered_proof", json_integer((json_int_t)s->registered_proof));
    json_object_set_new(o, "sector_id", json_integer((json_int_t)s->sector_id));
    for (int i = 0; i < 7; i++) {
        char h[65];
        const uint8_t *b = hex_field((cuzk_fil_sector *)s, i);
        for (int j = 0; j < 32; j++) snprintf(h + 2 * j, 3, "%02x", b[j]);
        json_object_set_new(o, hex_names[i], json_string(h));
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/sector.json", dir);
    int rc = json_dump_file(o, path, JSON_INDENT(1) | JSON_SORT_KEYS) ? CUZK_ERR_IO : 0;
    json_decref(o);
    if (!rc && s->data) rc = write_nodes(dir, "data.bin", s->data, s->nodes);
    if (!rc) rc = write_nodes(dir, "replica.bin", s->replica, s->nodes);
    return rc;
}

int cuzk_fil_sector_random(cuzk_fil_sector *s, uint64_t seal_proof_id, uint64_t sector_id, uint64_t miner_id,
                           cuzk_rng *rng)
{
    memset(s, 0, sizeof *s);
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(seal_proof_id);
    cuzk_tree_shape tree_r;
    if (!sp || cuzk_fil_tree_r(&tree_r, sp->sector_size)) return CUZK_ERR_INVALID_ARG;
    s->sector_size = sp->sector_size;
    s->registered_proof = seal_proof_id;
    s->sector_id = sector_id;
    s->nodes = sp->sector_size / 32;
    cuzk_fil_prover_id(s->prover_id, miner_id);
    s->data = malloc(sizeof(cuzk_fr) * s->nodes);
    s->replica = malloc(sizeof(cuzk_fr) * s->nodes);
    if (!s->data || !s->replica) {
        cuzk_fil_sector_free(s);
        return CUZK_ERR_NO_MEMORY;
    }
    for (uint64_t i = 0; i < s->nodes; i++) {
        cuzk_fr_random(&s->data[i], rng);
        cuzk_fr_random(&s->replica[i], rng);
    }
    cuzk_rng_bytes(rng, s->ticket, 32);
    s->ticket[31] &= 0x3f;
    cuzk_fr c, h;
    cuzk_fr_random(&c, rng);
    cuzk_fr_to_le32(s->comm_c, &c);
    cuzk_tree_shape td = {CUZK_TREE_SHA256, 2, 0, 0};
    cuzk_merkle_tree t;
    int rc = cuzk_merkle_tree_build(&t, &td, s->data, s->nodes);
    if (!rc) {
        cuzk_fr_to_le32(s->comm_d, &t.root);
        cuzk_merkle_tree_free(&t);
        rc = cuzk_merkle_tree_build(&t, &tree_r, s->replica, s->nodes);
    }
    if (!rc) {
        cuzk_fr_to_le32(s->comm_r_last, &t.root);
        cuzk_fil_comm_r(&h, &c, &t.root);
        cuzk_fr_to_le32(s->comm_r, &h);
        cuzk_merkle_tree_free(&t);
        uint8_t porep_id[32];
        cuzk_fil_porep_id(porep_id, seal_proof_id, 0);
        cuzk_fil_replica_id(s->replica_id, s->prover_id, sector_id, s->ticket, s->comm_d, porep_id);
    }
    if (rc) cuzk_fil_sector_free(s);
    return rc;
}
