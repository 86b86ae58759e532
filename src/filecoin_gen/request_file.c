/* Request files (include/cuzk/filecoin_gen/fil_request_file.h). */
#include "cuzk/filecoin_gen/fil_request_file.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/filecoin/fil_request.h"
#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/util/hex.h"

static const char *const value_names[4] = {"randomness", "comm_r_old", "comm_r_new", "comm_d_new"};

static uint8_t *value_ptr(cuzk_fil_request_file *r, int i)
{
    uint8_t *p[4] = {r->randomness, r->comm_r_old, r->comm_r_new, r->comm_d_new};
    return p[i];
}

static int fail(char *err, size_t err_len, const char *path, const char *fmt, const char *what)
{
    char m[256];
    snprintf(m, sizeof m, fmt, what);
    snprintf(err, err_len, "%s: %s", path, m);
    return -1;
}

static int u64_field(json_t *o, const char *name, uint64_t *out, char *err, size_t err_len, const char *path)
{
    json_t *v = json_object_get(o, name);
    if (!v) return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0) return fail(err, err_len, path, "%s: not a non-negative integer", name);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int cuzk_fil_request_file_read(const char *path, cuzk_fil_request_file *r, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    json_error_t je;
    json_t *o = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        snprintf(err, err_len, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    int rc = -1;
    if (!json_is_object(o)) {
        fail(err, err_len, path, "%s", "not a JSON object");
        goto out;
    }
    json_t *k = json_object_get(o, "proof_kind");
    static const struct {
        const char *name;
        cuzk_fil_proof_kind kind;
    } kinds[] = {{"porep", CUZK_FIL_KIND_POREP},
                 {"snap", CUZK_FIL_KIND_SNAP},
                 {"wpost", CUZK_FIL_KIND_WINDOW_POST},
                 {"winning", CUZK_FIL_KIND_WINNING_POST},
                 {"ni-porep", CUZK_FIL_KIND_NI_POREP}};
    for (size_t i = 0; k && json_is_string(k) && i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(json_string_value(k), kinds[i].name)) {
            r->proof_kind = kinds[i].name;
            r->kind = kinds[i].kind;
        }
    if (!r->proof_kind) {
        fail(err, err_len, path, "%s: must be porep, ni-porep, snap, wpost or winning", "proof_kind");
        goto out;
    }
    uint64_t part = 0;
    if (u64_field(o, "sector_size", &r->sector_size, err, err_len, path) ||
        u64_field(o, "registered_proof", &r->registered_proof, err, err_len, path) ||
        u64_field(o, "sector_number", &r->sector_number, err, err_len, path) ||
        u64_field(o, "miner_id", &r->miner_id, err, err_len, path) ||
        u64_field(o, "partition_index", &part, err, err_len, path))
        goto out;
    if (part > UINT32_MAX) {
        fail(err, err_len, path, "%s: too large", "partition_index");
        goto out;
    }
    r->partition_index = (uint32_t)part;
    for (int i = 0; i < 4; i++) {
        json_t *v = json_object_get(o, value_names[i]);
        if (!v) continue;
        if (!json_is_string(v) || cuzk_hex_decode(value_ptr(r, i), 32, json_string_value(v))) {
            fail(err, err_len, path, "%s: not 64 hex digits", value_names[i]);
            goto out;
        }
        r->present |= 1u << i;
    }
    json_t *one = json_object_get(o, "vanilla_proof"), *many = json_object_get(o, "vanilla_proofs");
    if (!one == !many || (one && !json_is_string(one)) || (many && (!json_is_array(many) || !json_array_size(many) ||
                                                                   json_array_size(many) > CUZK_FIL_REQ_FILE_MAX_BLOBS))) {
        fail(err, err_len, path, "%s", "exactly one of vanilla_proof (a file name) or vanilla_proofs (1-4096 file names)");
        goto out;
    }
    r->single = one != NULL;
    r->num_blobs = one ? 1 : json_array_size(many);
    r->blob_files = calloc(r->num_blobs, sizeof *r->blob_files);
    r->blobs = calloc(r->num_blobs, sizeof *r->blobs);
    r->blob_lens = calloc(r->num_blobs, sizeof *r->blob_lens);
    if (!r->blob_files || !r->blobs || !r->blob_lens) {
        fail(err, err_len, path, "%s", "out of memory");
        goto out;
    }
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 1;
    const char *dir = slash ? path : ".";
    for (size_t i = 0; i < r->num_blobs; i++) {
        json_t *f = one ? one : json_array_get(many, i);
        if (!json_is_string(f) || !*json_string_value(f)) {
            fail(err, err_len, path, "%s: entries must be file names", "vanilla_proofs");
            goto out;
        }
        const char *name = json_string_value(f);
        r->blob_files[i] = strdup(name);
        char full[4096];
        if (name[0] == '/') snprintf(full, sizeof full, "%s", name);
        else snprintf(full, sizeof full, "%.*s/%s", dirlen, dir, name);
        int frc = r->blob_files[i] ? cuzk_file_read(full, 0, &r->blobs[i], &r->blob_lens[i]) : CUZK_ERR_NO_MEMORY;
        if (frc) {
            snprintf(err, err_len, "%s: cannot read %s: %s", path, full,
                     frc == CUZK_ERR_IO ? strerror(errno) : cuzk_strerror(frc));
            goto out;
        }
    }
    rc = 0;
out:
    json_decref(o);
    if (rc) cuzk_fil_request_file_free(r);
    return rc;
}

int cuzk_fil_request_file_write(const char *path, const cuzk_fil_request_file *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "proof_kind", json_string(r->proof_kind));
    json_object_set_new(o, "sector_size", json_integer((json_int_t)r->sector_size));
    json_object_set_new(o, "registered_proof", json_integer((json_int_t)r->registered_proof));
    json_object_set_new(o, "sector_number", json_integer((json_int_t)r->sector_number));
    json_object_set_new(o, "miner_id", json_integer((json_int_t)r->miner_id));
    json_object_set_new(o, "partition_index", json_integer(r->partition_index));
    for (int i = 0; i < 4; i++)
        if (r->present & (1u << i)) {
            char h[65];
            cuzk_hex_encode(h, value_ptr((cuzk_fil_request_file *)r, i), 32);
            json_object_set_new(o, value_names[i], json_string(h));
        }
    if (r->single) {
        json_object_set_new(o, "vanilla_proof", json_string(r->blob_files[0]));
    } else {
        json_t *a = json_array();
        for (size_t i = 0; i < r->num_blobs; i++) json_array_append_new(a, json_string(r->blob_files[i]));
        json_object_set_new(o, "vanilla_proofs", a);
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int rc = json_dump_file(o, tmp, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(o);
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc) unlink(tmp);
    return rc ? -1 : 0;
}

void cuzk_fil_request_file_free(cuzk_fil_request_file *r)
{
    for (size_t i = 0; i < r->num_blobs; i++) {
        if (r->blob_files) free(r->blob_files[i]);
        if (r->blobs) free(r->blobs[i]);
    }
    free(r->blob_files);
    free(r->blobs);
    free(r->blob_lens);
    memset(r, 0, sizeof *r);
}
