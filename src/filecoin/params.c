/* Filecoin parameter files: circuits to names and paths, .meta, parameters.json, digests
 * (see include/cuzk/filecoin/fil_params.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/blake2b.h"
#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/circuits/post.h"
#include "cuzk/circuits/update.h"

static const char *const circuit_names[CUZK_FIL_CIRCUIT_COUNT] = {"porep", "window-post", "winning-post", "snap",
                                                                   "snap-poseidon"};

const char *cuzk_fil_circuit_name(cuzk_fil_circuit c) { return (unsigned)c < CUZK_FIL_CIRCUIT_COUNT ? circuit_names[c] : "?"; }

int cuzk_fil_circuit_parse(const char *name, cuzk_fil_circuit *out)
{
    for (int c = 0; name && c < CUZK_FIL_CIRCUIT_COUNT; c++)
        if (!strcmp(name, circuit_names[c])) {
            *out = (cuzk_fil_circuit)c;
            return 0;
        }
    return -1;
}

uint64_t cuzk_fil_circuit_proof_sector_size(cuzk_fil_circuit c, uint64_t id)
{
    switch (c) {
    case CUZK_FIL_CIRCUIT_POREP: {
        const cuzk_fil_seal_proof *p = cuzk_fil_seal_proof_get(id);
        return p ? p->sector_size : 0;
    }
    case CUZK_FIL_CIRCUIT_WINDOW_POST:
    case CUZK_FIL_CIRCUIT_WINNING_POST: {
        const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(id);
        cuzk_fil_post_kind want = c == CUZK_FIL_CIRCUIT_WINDOW_POST ? CUZK_FIL_POST_WINDOW : CUZK_FIL_POST_WINNING;
        return p && p->kind == want ? p->sector_size : 0;
    }
    case CUZK_FIL_CIRCUIT_SNAP:
    case CUZK_FIL_CIRCUIT_SNAP_POSEIDON: return cuzk_fil_update_proof_sector_size(id);
    default: return 0;
    }
}

int cuzk_fil_circuit_default_proof(cuzk_fil_circuit c, uint64_t sector_size, uint64_t *id)
{
    /* V1_1 seal proofs are 5..9, Window V1_2 10..14, Winning V1 0..4, updates 0..4 */
    uint64_t first = c == CUZK_FIL_CIRCUIT_POREP ? 5 : c == CUZK_FIL_CIRCUIT_WINDOW_POST ? 10 : 0;
    for (uint64_t i = first; i < first + 5; i++)
        if (sector_size && cuzk_fil_circuit_proof_sector_size(c, i) == sector_size) {
            *id = i;
            return 0;
        }
    return -1;
}

size_t cuzk_fil_circuit_cache_id(char out[CUZK_FIL_CACHE_ID_MAX], cuzk_fil_circuit c, uint64_t id)
{
    if (!cuzk_fil_circuit_proof_sector_size(c, id)) return 0;
    switch (c) {
    case CUZK_FIL_CIRCUIT_POREP: return cuzk_fil_porep_cache_id(out, id);
    case CUZK_FIL_CIRCUIT_WINDOW_POST:
    case CUZK_FIL_CIRCUIT_WINNING_POST: return cuzk_fil_post_cache_id(out, id);
    case CUZK_FIL_CIRCUIT_SNAP: return cuzk_fil_update_cache_id(out, id, 0);
    case CUZK_FIL_CIRCUIT_SNAP_POSEIDON: return cuzk_fil_update_cache_id(out, id, 1);
    default: return 0;
    }
}

int cuzk_fil_circuit_blank(cuzk_cs *cs, cuzk_fil_circuit c, uint64_t sector_size, unsigned nthreads)
{
    switch (c) {
    case CUZK_FIL_CIRCUIT_POREP: {
        cuzk_porep_config cfg;
        int rc = cuzk_porep_config_for(&cfg, sector_size, false);
        return rc ? rc : cuzk_porep_circuit_threads(cs, &cfg, NULL, nthreads);
    }
    case CUZK_FIL_CIRCUIT_WINDOW_POST:
    case CUZK_FIL_CIRCUIT_WINNING_POST: {
        cuzk_post_config cfg;
        int rc = cuzk_post_config_for(&cfg, sector_size,
                                      c == CUZK_FIL_CIRCUIT_WINDOW_POST ? CUZK_POST_WINDOW : CUZK_POST_WINNING);
        return rc ? rc : cuzk_post_circuit(cs, &cfg, NULL, nthreads);
    }
    case CUZK_FIL_CIRCUIT_SNAP:
    case CUZK_FIL_CIRCUIT_SNAP_POSEIDON: {
        cuzk_update_config cfg;
        int rc = cuzk_update_config_for(&cfg, sector_size);
        if (rc) return rc;
        return c == CUZK_FIL_CIRCUIT_SNAP ? cuzk_update_circuit(cs, &cfg, NULL)
                                          : cuzk_update_poseidon_circuit(cs, &cfg, NULL);
    }
    default: return CUZK_ERR_INVALID_ARG;
    }
}

/* ---- paths ---- */

int cuzk_fil_param_files_for(cuzk_fil_param_files *out, cuzk_fil_circuit c, uint64_t id, const char *dir)
{
    memset(out, 0, sizeof *out);
    if (!dir || !cuzk_fil_circuit_cache_id(out->cache_id, c, id)) return CUZK_ERR_INVALID_ARG;
    out->sector_size = cuzk_fil_circuit_proof_sector_size(c, id);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dl--; /* "/var/tmp/x/" as rust-fil-proofs' default */
    char *slot[3] = {out->params, out->vk, out->meta};
    static const char *const ext[3] = {".params", ".vk", ".meta"};
    for (int i = 0; i < 3; i++) {
        int n = snprintf(slot[i], CUZK_FIL_PATH_MAX, "%.*s/v28-%s%s", (int)dl, dir, out->cache_id, ext[i]);
        if (n < 0 || n >= CUZK_FIL_PATH_MAX) return CUZK_ERR_INVALID_ARG;
    }
    return CUZK_OK;
}

/* ---- .meta and parameters.json ---- */

/* a .meta or parameters.json that cannot be used: -1 and why */
#define failf(err, errlen, ...) cuzk_errf(err, errlen, -1, __VA_ARGS__)

size_t cuzk_fil_param_meta_json(char *out, size_t cap, uint64_t sector_size)
{
    int n = snprintf(out, cap, "{\"sector_size\":%llu}", (unsigned long long)sector_size);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

static json_t *load_json(const char *what, const char *json, size_t len, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json ? json_loadb(json, len, JSON_REJECT_DUPLICATES, &je) : NULL;
    if (!root) failf(err, errlen, "%s: line %d column %d: %s", what, je.line, je.column, json ? je.text : "no input");
    return root;
}

/* A non-negative integer field (JSON integer, not a float or a string). */
static int get_u64(json_t *obj, const char *field, uint64_t *out)
{
    json_t *v = json_object_get(obj, field);
    if (!v || !json_is_integer(v) || json_integer_value(v) < 0) return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

int cuzk_fil_param_meta_parse(const char *json, size_t len, uint64_t *sector_size, char *err, size_t errlen)
{
    json_t *root = load_json(".meta", json, len, err, errlen);
    if (!root) return -1;
    int rc = 0;
    if (!json_is_object(root)) rc = failf(err, errlen, ".meta: expected an object");
    else if (get_u64(root, "sector_size", sector_size))
        rc = failf(err, errlen, ".meta: sector_size: %s",
                   json_object_get(root, "sector_size") ? "expected a non-negative integer" : "missing");
    json_decref(root);
    return rc;
}

static bool plain_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= 256 || !strcmp(s, ".") || !strcmp(s, "..")) return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || s[i] == '/') return false;
    return true;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const cuzk_fil_manifest_entry *)a)->name, ((const cuzk_fil_manifest_entry *)b)->name);
}

int cuzk_fil_manifest_parse(cuzk_fil_manifest *out, const char *json, size_t len, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_t *root = load_json("parameters.json", json, len, err, errlen);
    if (!root) return -1;
    int rc = 0;
    if (!json_is_object(root)) {
        rc = failf(err, errlen, "parameters.json: expected an object of file names");
        goto done;
    }
    size_t n = json_object_size(root);
    out->e = calloc(n ? n : 1, sizeof *out->e);
    if (!out->e) {
        rc = failf(err, errlen, "parameters.json: out of memory");
        goto done;
    }
    const char *name;
    json_t *v;
    json_object_foreach(root, name, v) {
        if (!plain_name(name)) { /* (jansson refuses NUL bytes in keys and, by default, in strings) */
            rc = failf(err, errlen, "parameters.json: entry \"%.80s\": not a plain file name", name);
            goto done;
        }
        if (!json_is_object(v)) {
            rc = failf(err, errlen, "parameters.json: %.200s: expected an object", name);
            goto done;
        }
        cuzk_fil_manifest_entry *e = &out->e[out->n];
        json_t *cid = json_object_get(v, "cid"), *dg = json_object_get(v, "digest");
        if (!cid || !json_is_string(cid) || json_string_length(cid) == 0 || json_string_length(cid) > 255) {
            rc = failf(err, errlen, "parameters.json: %.200s: cid: %s", name,
                       cid ? "expected a non-empty string (< 256 bytes)" : "missing");
            goto done;
        }
        for (const char *p = json_string_value(cid); *p; p++)
            if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
                rc = failf(err, errlen, "parameters.json: %.200s: cid: not printable ASCII", name);
                goto done;
            }
        if (!dg || !json_is_string(dg) || json_string_length(dg) != CUZK_FIL_DIGEST_HEX) {
            rc = failf(err, errlen, "parameters.json: %.200s: digest: %s", name,
                       dg ? "expected 32 hex characters (128 bits)" : "missing");
            goto done;
        }
        for (int i = 0; i < CUZK_FIL_DIGEST_HEX; i++) {
            char ch = json_string_value(dg)[i];
            if (ch >= 'A' && ch <= 'F') ch = (char)(ch - 'A' + 'a');
            if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) {
                rc = failf(err, errlen, "parameters.json: %.200s: digest: not hexadecimal", name);
                goto done;
            }
            e->digest[i] = ch;
        }
        if (get_u64(v, "sector_size", &e->sector_size)) {
            rc = failf(err, errlen, "parameters.json: %.200s: sector_size: %s", name,
                       json_object_get(v, "sector_size") ? "expected a non-negative integer" : "missing");
            goto done;
        }
        e->name = strdup(name);
        e->cid = strdup(json_string_value(cid));
        out->n++;
        if (!e->name || !e->cid) {
            rc = failf(err, errlen, "parameters.json: out of memory");
            goto done;
        }
    }
    qsort(out->e, out->n, sizeof *out->e, entry_cmp);
done:
    json_decref(root);
    if (rc) cuzk_fil_manifest_free(out);
    return rc;
}

int cuzk_fil_manifest_load(cuzk_fil_manifest *out, const char *path, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    uint8_t *b;
    size_t len;
    int frc = cuzk_file_read(path, (size_t)64 << 20, &b, &len); /* a manifest is kilobytes */
    if (frc == CUZK_ERR_BAD_LENGTH) return failf(err, errlen, "%s: larger than 64 MiB: not a parameters.json", path);
    if (frc) return failf(err, errlen, "%s: %s", path, frc == CUZK_ERR_IO ? strerror(errno) : cuzk_strerror(frc));
    char *buf = (char *)b;
    char inner[300];
    int rc = cuzk_fil_manifest_parse(out, buf, len, inner, sizeof inner);
    if (rc) failf(err, errlen, "%s: %s", path, inner);
    free(buf);
    return rc;
}

extern const unsigned char cuzk_fil_parameters_json[];
extern const size_t cuzk_fil_parameters_json_len;

int cuzk_fil_manifest_builtin(cuzk_fil_manifest *out, char *err, size_t errlen)
{
    return cuzk_fil_manifest_parse(out, (const char *)cuzk_fil_parameters_json, cuzk_fil_parameters_json_len, err,
                                   errlen);
}

const cuzk_fil_manifest_entry *cuzk_fil_manifest_find(const cuzk_fil_manifest *m, const char *name)
{
    if (!m || !name || !m->n) return NULL;
    cuzk_fil_manifest_entry key = {.name = (char *)name};
    return bsearch(&key, m->e, m->n, sizeof *m->e, entry_cmp);
}

void cuzk_fil_manifest_free(cuzk_fil_manifest *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) free(m->e[i].name), free(m->e[i].cid);
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* ---- digests ---- */

#define DIGEST_CHUNK ((size_t)4 << 20)

/* parameters.json's digest: Blake2b-512's first 16 bytes in lowercase hex */
static void digest_hex(char hex[CUZK_FIL_DIGEST_HEX + 1], cuzk_blake2b_state *s)
{
    uint8_t h[64];
    cuzk_blake2b_final(s, h);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < CUZK_FIL_DIGEST_HEX / 2; i++) hex[2 * i] = digits[h[i] >> 4], hex[2 * i + 1] = digits[h[i] & 15];
    hex[CUZK_FIL_DIGEST_HEX] = 0;
}

int cuzk_fil_param_digest(char hex[CUZK_FIL_DIGEST_HEX + 1], const char *path, cuzk_fil_digest_progress fn,
                          void *ctx, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return failf(err, errlen, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return failf(err, errlen, "%s: not a regular file", path);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    uint8_t *buf = malloc(DIGEST_CHUNK);
    if (!buf) {
        close(fd);
        return failf(err, errlen, "%s: out of memory", path);
    }
    cuzk_blake2b_state s;
    cuzk_blake2b_init(&s, 64, NULL, 0);
    uint64_t done = 0, total = (uint64_t)st.st_size;
    int rc = 0;
    for (;;) {
        ssize_t r = read(fd, buf, DIGEST_CHUNK);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = failf(err, errlen, "%s: read at byte %llu: %s", path, (unsigned long long)done, strerror(errno));
            break;
        }
        if (r == 0) break;
        cuzk_blake2b_update(&s, buf, (size_t)r);
        done += (uint64_t)r;
        if (fn) fn(ctx, done, total);
    }
    free(buf);
    close(fd);
    if (rc) return rc;
    digest_hex(hex, &s);
    return 0;
}

void cuzk_fil_param_digest_mem(char hex[CUZK_FIL_DIGEST_HEX + 1], const void *buf, size_t len)
{
    cuzk_blake2b_state s;
    cuzk_blake2b_init(&s, 64, NULL, 0);
    cuzk_blake2b_update(&s, buf, len);
    digest_hex(hex, &s);
}

bool cuzk_fil_param_listed(const cuzk_fil_manifest *m, const char *name, const void *buf, size_t len, char *note,
                           size_t note_len)
{
    cuzk_fil_manifest builtin = {0};
    char why[200];
    if (!m && cuzk_fil_manifest_builtin(&builtin, why, sizeof why) != 0) {
        /* test_fil_params parses the embedded manifest: out of memory only */
        cuzk_errf(note, note_len, 0, "the embedded parameters.json: %s", why);
        return false;
    }
    const cuzk_fil_manifest_entry *e = cuzk_fil_manifest_find(m ? m : &builtin, name);
    char hex[CUZK_FIL_DIGEST_HEX + 1];
    cuzk_fil_param_digest_mem(hex, buf, len);
    bool listed = e && !strcmp(e->digest, hex);
    if (!e) cuzk_errf(note, note_len, 0, "digest %s; %s is not in parameters.json", hex, name);
    else if (listed) cuzk_errf(note, note_len, 0, "digest %s matches parameters.json", hex);
    else cuzk_errf(note, note_len, 0, "digest %s, parameters.json lists %s", hex, e->digest);
    cuzk_fil_manifest_free(&builtin);
    return listed;
}
