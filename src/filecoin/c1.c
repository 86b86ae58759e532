/* PoRep C1 output: serde_json layout of SealCommitPhase1Output (docs/filecoin.md gives the
 * sources), the parser, the writer and the vanilla verification with rebuilt public values. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cuzk/base64.h"
#include "cuzk/c1.h"
#include "cuzk/error.h"
#include "cuzk/json_arena.h"
#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"
#include "filecoin_internal.h"

#define NCOL (1 + CUZK_POREP_BASE_DEGREE + CUZK_POREP_EXP_DEGREE)
#define NPAR CUZK_POREP_TOTAL_PARENTS

static const cuzk_tree_shape TREE_D = {CUZK_TREE_SHA256, 2, 0, 0};

const char *cuzk_fil_c1_size_key(uint64_t sector_size)
{
    switch (sector_size) {
    case 1ull << 11: return "StackedDrg2KiBV1";
    case 1ull << 23: return "StackedDrg8MiBV1";
    case 1ull << 29: return "StackedDrg512MiBV1";
    case 1ull << 35: return "StackedDrg32GiBV1";
    case 1ull << 36: return "StackedDrg64GiBV1";
    default: return NULL;
    }
}

size_t cuzk_fil_c1_path_d(const cuzk_porep_config *cfg) { return cuzk_tree_path_len(&TREE_D, cfg->nodes); }
size_t cuzk_fil_c1_path_r(const cuzk_porep_config *cfg) { return cuzk_tree_path_len(&cfg->tree, cfg->nodes); }

static size_t per_proof(const cuzk_porep_config *c)
{
    size_t pr = cuzk_fil_c1_path_r(c);
    return cuzk_fil_c1_path_d(c) + pr + NCOL * (c->layers + pr) + (size_t)(c->layers + 1) * NPAR;
}

int cuzk_fil_c1_alloc(cuzk_fil_c1 **out, uint64_t registered_proof, uint64_t sector_size)
{
    *out = NULL;
    const cuzk_fil_seal_proof *rp = cuzk_fil_seal_proof_get(registered_proof);
    cuzk_porep_config cfg;
    if (!rp || cuzk_porep_config_for(&cfg, sector_size ? sector_size : rp->sector_size,
                                     rp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE))
        return CUZK_ERR_INVALID_ARG;
    cuzk_fil_c1 *c = calloc(1, sizeof *c);
    size_t n = (size_t)cfg.partitions * cfg.challenges, pp = per_proof(&cfg);
    if (!c) return CUZK_ERR_NO_MEMORY;
    c->registered_proof = registered_proof;
    c->rp = rp;
    c->cfg = cfg;
    c->proofs = calloc(n, sizeof *c->proofs);
    c->arena_len = n * pp;
    c->arena = calloc(c->arena_len, sizeof(cuzk_fr));
    if (!c->proofs || !c->arena) {
        cuzk_fil_c1_free(c);
        return CUZK_ERR_NO_MEMORY;
    }
    size_t pd = cuzk_fil_c1_path_d(&cfg), pr = cuzk_fil_c1_path_r(&cfg), L = cfg.layers;
    for (size_t i = 0; i < n; i++) {
        cuzk_fil_vproof *v = &c->proofs[i];
        cuzk_fr *p = c->arena + i * pp;
        v->comm_d.path = p, p += pd;
        v->comm_r_last.path = p, p += pr;
        for (unsigned j = 0; j < NCOL; j++) {
            cuzk_fil_column *col = j == 0 ? &v->c_x : j <= 6 ? &v->drg[j - 1] : &v->exp[j - 7];
            col->rows = p, p += L;
            col->proof.path = p, p += pr;
        }
        v->lab_parents = p, p += L * NPAR;
        v->enc_parents = p, p += NPAR;
    }
    *out = c;
    return CUZK_OK;
}

void cuzk_fil_c1_free(cuzk_fil_c1 *c)
{
    if (!c) return;
    free(c->proofs);
    free(c->arena);
    free(c);
}

/* ---- writer ------------------------------------------------------------------------------ */

typedef struct wr {
    FILE *f;
    int err;
} wr;

static void ws(wr *w, const char *s)
{
    if (fputs(s, w->f) < 0) w->err = 1;
}

static void wu(wr *w, uint64_t v)
{
    if (fprintf(w->f, "%llu", (unsigned long long)v) < 0) w->err = 1;
}

static void wbytes(wr *w, const uint8_t b[32])
{
    char buf[32 * 4 + 3], *p = buf;
    *p++ = '[';
    for (int i = 0; i < 32; i++) {
        if (i) *p++ = ',';
        unsigned v = b[i];
        if (v >= 100) *p++ = (char)('0' + v / 100);
        if (v >= 10) *p++ = (char)('0' + v / 10 % 10);
        *p++ = (char)('0' + v % 10);
    }
    *p++ = ']';
    *p = 0;
    ws(w, buf);
}

static void wfr(wr *w, const cuzk_fr *x)
{
    uint8_t b[32];
    cuzk_fr_to_le32(b, x);
    wbytes(w, b);
}

static void wfrs(wr *w, const cuzk_fr *x, size_t n)
{
    ws(w, "[");
    for (size_t i = 0; i < n; i++) {
        if (i) ws(w, ",");
        wfr(w, &x[i]);
    }
    ws(w, "]");
}

/* InclusionPath {"path":[{"hashes":[..],"index":pos},..]} over levels [l0, l1). */
static void wpath(wr *w, const cuzk_tree_shape *s, uint64_t nodes, const cuzk_fil_mproof *m, size_t l0, size_t l1)
{
    uint64_t idx = m->index;
    const cuzk_fr *sib = m->path;
    for (size_t l = 0; l < l0; l++) {
        unsigned a = cuzk_tree_level_arity(s, nodes, l);
        idx /= a;
        sib += a - 1;
    }
    ws(w, "{\"path\":[");
    for (size_t l = l0; l < l1; l++) {
        unsigned a = cuzk_tree_level_arity(s, nodes, l);
        if (l > l0) ws(w, ",");
        ws(w, "{\"hashes\":");
        wfrs(w, sib, a - 1);
        ws(w, ",\"index\":");
        wu(w, idx % a);
        ws(w, "}");
        idx /= a;
        sib += a - 1;
    }
    ws(w, "]}");
}

static void wmproof(wr *w, const cuzk_tree_shape *s, uint64_t nodes, const cuzk_fil_mproof *m)
{
    size_t lv = cuzk_tree_levels(s, nodes), bl = cuzk_tree_base_levels(s, nodes);
    ws(w, "{\"data\":{");
    if (!s->sub_arity) {
        ws(w, "\"Single\":{\"root\":");
        wfr(w, &m->root);
        ws(w, ",\"leaf\":");
        wfr(w, &m->leaf);
        ws(w, ",\"path\":");
        wpath(w, s, nodes, m, 0, lv);
    } else {
        ws(w, s->top_arity ? "\"Top\":{\"base_proof\":" : "\"Sub\":{\"base_proof\":");
        wpath(w, s, nodes, m, 0, bl);
        ws(w, ",\"sub_proof\":");
        wpath(w, s, nodes, m, bl, bl + 1);
        if (s->top_arity) {
            ws(w, ",\"top_proof\":");
            wpath(w, s, nodes, m, bl + 1, bl + 2);
        }
        ws(w, ",\"root\":");
        wfr(w, &m->root);
        ws(w, ",\"leaf\":");
        wfr(w, &m->leaf);
    }
    ws(w, "}}}");
}

static void wcolumn(wr *w, const cuzk_porep_config *c, const cuzk_fil_column *col)
{
    ws(w, "{\"column\":{\"index\":");
    wu(w, col->index);
    ws(w, ",\"rows\":");
    wfrs(w, col->rows, c->layers);
    ws(w, ",\"_h\":null},\"inclusion_proof\":");
    wmproof(w, &c->tree, c->nodes, &col->proof);
    ws(w, "}");
}

static void wlabel(wr *w, const cuzk_fr *parents, unsigned layer, uint64_t node)
{
    ws(w, "{\"parents\":");
    wfrs(w, parents, NPAR);
    ws(w, ",\"layer_index\":");
    wu(w, layer);
    ws(w, ",\"node\":");
    wu(w, node);
    ws(w, "}");
}

static void wproof(wr *w, const cuzk_porep_config *c, const cuzk_fil_vproof *v)
{
    ws(w, "{\"comm_d_proofs\":");
    wmproof(w, &TREE_D, c->nodes, &v->comm_d);
    ws(w, ",\"comm_r_last_proof\":");
    wmproof(w, &c->tree, c->nodes, &v->comm_r_last);
    ws(w, ",\"replica_column_proofs\":{\"c_x\":");
    wcolumn(w, c, &v->c_x);
    ws(w, ",\"drg_parents\":[");
    for (int j = 0; j < CUZK_POREP_BASE_DEGREE; j++) {
        if (j) ws(w, ",");
        wcolumn(w, c, &v->drg[j]);
    }
    ws(w, "],\"exp_parents\":[");
    for (int j = 0; j < CUZK_POREP_EXP_DEGREE; j++) {
        if (j) ws(w, ",");
        wcolumn(w, c, &v->exp[j]);
    }
    ws(w, "]},\"labeling_proofs\":[");
    for (unsigned l = 0; l < c->layers; l++) {
        if (l) ws(w, ",");
        wlabel(w, &v->lab_parents[(size_t)l * NPAR], l + 1, v->node);
    }
    ws(w, "],\"encoding_proof\":");
    wlabel(w, v->enc_parents, c->layers, v->node);
    ws(w, "}");
}

int cuzk_fil_c1_write(const cuzk_fil_c1 *c1, FILE *f)
{
    wr w = {f, 0};
    const cuzk_porep_config *c = &c1->cfg;
    ws(&w, "{\"registered_proof\":\"");
    ws(&w, c1->rp->name);
    ws(&w, "\",\"vanilla_proofs\":{\"");
    ws(&w, cuzk_fil_c1_size_key(c->sector_size));
    ws(&w, "\":[");
    for (unsigned k = 0; k < c->partitions && !w.err; k++) {
        ws(&w, k ? ",[" : "[");
        for (unsigned i = 0; i < c->challenges; i++) {
            if (i) ws(&w, ",");
            wproof(&w, c, &c1->proofs[(size_t)k * c->challenges + i]);
        }
        ws(&w, "]");
    }
    ws(&w, "]},\"comm_r\":");
    wbytes(&w, c1->comm_r);
    ws(&w, ",\"comm_d\":");
    wbytes(&w, c1->comm_d);
    ws(&w, ",\"replica_id\":");
    wbytes(&w, c1->replica_id);
    ws(&w, ",\"seed\":");
    wbytes(&w, c1->seed);
    ws(&w, ",\"ticket\":");
    wbytes(&w, c1->ticket);
    ws(&w, "}");
    return w.err || ferror(f) ? CUZK_ERR_IO : CUZK_OK;
}

int cuzk_fil_c1_write_wrapped(const cuzk_fil_c1 *c1, uint64_t sector_num, FILE *f)
{
    char *inner = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&inner, &n);
    if (!m) return CUZK_ERR_NO_MEMORY;
    int rc = cuzk_fil_c1_write(c1, m);
    if (fclose(m) || rc) {
        free(inner);
        return rc ? rc : CUZK_ERR_IO;
    }
    /* Go's json.Marshal: fields in struct order, []byte as standard padded base64 */
    char *b64 = malloc(cuzk_base64_len(n) + 1);
    if (!b64) {
        free(inner);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_base64_encode(b64, (const uint8_t *)inner, n);
    free(inner);
    int bad = fprintf(f, "{\"SectorNum\":%llu,\"Phase1Out\":\"%s\",\"SectorSize\":%llu}",
                      (unsigned long long)sector_num, b64, (unsigned long long)c1->cfg.sector_size) < 0;
    free(b64);
    return bad || ferror(f) ? CUZK_ERR_IO : CUZK_OK;
}

/* ---- parser ------------------------------------------------------------------------------ */

typedef struct pctx {
    char path[384];
    size_t len;
    char *err;
    size_t errcap;
    const cuzk_porep_config *cfg;
} pctx;

static size_t push(pctx *p, const char *fmt, ...)
{
    size_t old = p->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p->path + p->len, sizeof p->path - p->len, fmt, ap);
    va_end(ap);
    if (n > 0) p->len = p->len + (size_t)n < sizeof p->path ? p->len + (size_t)n : sizeof p->path - 1;
    return old;
}

static void pop(pctx *p, size_t old)
{
    p->len = old;
    p->path[old] = 0;
}

static int fail(pctx *p, const char *fmt, ...)
{
    if (p->err && p->errcap) {
        int n = snprintf(p->err, p->errcap, "%s: ", p->len ? p->path : "(top)");
        if (n >= 0 && (size_t)n < p->errcap) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + n, p->errcap - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return CUZK_ERR_FORMAT;
}

static const char *jtype(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* obj must be an object whose keys are all in the NULL-terminated list (and present unless optional). */
static int want_obj(pctx *p, const json_t *o, const char *const *keys, const char *optional)
{
    if (!json_is_object(o)) return fail(p, "expected an object, got %s", jtype(o));
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        int ok = optional && !strcmp(k, optional);
        for (const char *const *q = keys; *q && !ok; q++) ok = !strcmp(*q, k);
        if (!ok) return fail(p, "unknown field \"%s\"", k);
    }
    for (const char *const *q = keys; *q; q++)
        if (!json_object_get(o, *q)) return fail(p, "missing field \"%s\"", *q);
    return 0;
}

static int get_u64(pctx *p, const json_t *o, const char *key, uint64_t max, uint64_t *out)
{
    const json_t *v = json_object_get(o, key);
    size_t old = push(p, ".%s", key);
    if (!json_is_integer(v)) return fail(p, "expected an integer, got %s", v ? jtype(v) : "nothing");
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x > max) return fail(p, "%lld out of range [0, %llu]", (long long)x, (unsigned long long)max);
    pop(p, old);
    *out = (uint64_t)x;
    return 0;
}

static int get_bytes(pctx *p, const json_t *a, uint8_t out[32])
{
    if (!json_is_array(a)) return fail(p, "expected an array of 32 bytes, got %s", a ? jtype(a) : "nothing");
    if (json_array_size(a) != 32) return fail(p, "expected 32 bytes, got %zu", json_array_size(a));
    for (size_t i = 0; i < 32; i++) {
        const json_t *v = json_array_get(a, i);
        json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
        if (x < 0 || x > 255) return fail(p, "element %zu is not a byte", i);
        out[i] = (uint8_t)x;
    }
    return 0;
}

static int get_fr(pctx *p, const json_t *a, cuzk_fr *out)
{
    uint8_t b[32];
    int rc = get_bytes(p, a, b);
    if (rc) return rc;
    if (cuzk_fr_from_le32(out, b) != 0) return fail(p, "not a canonical field element");
    return 0;
}

static int field_fr(pctx *p, const json_t *o, const char *key, cuzk_fr *out)
{
    size_t old = push(p, ".%s", key);
    int rc = get_fr(p, json_object_get(o, key), out);
    if (!rc) pop(p, old);
    return rc;
}

static int field_frs(pctx *p, const json_t *o, const char *key, cuzk_fr *out, size_t n)
{
    size_t old = push(p, ".%s", key);
    const json_t *a = json_object_get(o, key);
    if (!json_is_array(a)) return fail(p, "expected an array, got %s", a ? jtype(a) : "nothing");
    if (json_array_size(a) != n) return fail(p, "expected %zu elements, got %zu", n, json_array_size(a));
    for (size_t i = 0; i < n; i++) {
        size_t o2 = push(p, "[%zu]", i);
        int rc = get_fr(p, json_array_get(a, i), &out[i]);
        if (rc) return rc;
        pop(p, o2);
    }
    pop(p, old);
    return 0;
}

/* InclusionPath over levels [l0, l1): siblings into m->path at the level's offset, positions into m->index. */
static int ppath(pctx *p, const json_t *o, const char *key, const cuzk_tree_shape *s, uint64_t nodes,
                 cuzk_fil_mproof *m, size_t l0, size_t l1, uint64_t *mult)
{
    static const char *const k_path[] = {"path", NULL}, *const k_el[] = {"hashes", "index", NULL};
    size_t old = push(p, ".%s", key);
    const json_t *ip = json_object_get(o, key);
    int rc = want_obj(p, ip, k_path, NULL);
    if (rc) return rc;
    push(p, ".path");
    const json_t *arr = json_object_get(ip, "path");
    if (!json_is_array(arr)) return fail(p, "expected an array, got %s", jtype(arr));
    if (json_array_size(arr) != l1 - l0)
        return fail(p, "expected %zu levels, got %zu", l1 - l0, json_array_size(arr));
    cuzk_fr *sib = m->path;
    for (size_t l = 0; l < l0; l++) sib += cuzk_tree_level_arity(s, nodes, l) - 1;
    for (size_t l = l0; l < l1; l++) {
        unsigned a = cuzk_tree_level_arity(s, nodes, l);
        size_t o2 = push(p, "[%zu]", l - l0);
        const json_t *el = json_array_get(arr, l - l0);
        uint64_t pos;
        if ((rc = want_obj(p, el, k_el, NULL)) || (rc = field_frs(p, el, "hashes", sib, a - 1)) ||
            (rc = get_u64(p, el, "index", a - 1, &pos)))
            return rc;
        m->index += pos * *mult;
        *mult *= a;
        sib += a - 1;
        pop(p, o2);
    }
    pop(p, old);
    return 0;
}

/* MerkleProof {"data":{"Single"|"Sub"|"Top":{..}}}, the variant fixed by the tree shape. */
static int pmproof(pctx *p, const json_t *o, const char *key, const cuzk_tree_shape *s, uint64_t nodes,
                   cuzk_fil_mproof *m)
{
    static const char *const k_data[] = {"data", NULL}, *const k_single[] = {"root", "leaf", "path", NULL},
                             *const k_sub[] = {"base_proof", "sub_proof", "root", "leaf", NULL},
                             *const k_top[] = {"base_proof", "sub_proof", "top_proof", "root", "leaf", NULL};
    size_t old = push(p, ".%s", key);
    const json_t *mp = json_object_get(o, key);
    int rc = want_obj(p, mp, k_data, NULL);
    if (rc) return rc;
    push(p, ".data");
    const json_t *d = json_object_get(mp, "data");
    const char *variant = !s->sub_arity ? "Single" : !s->top_arity ? "Sub" : "Top";
    static const char *const *const keys_of[3] = {k_single, k_sub, k_top};
    const char *const vk[] = {variant, NULL};
    if ((rc = want_obj(p, d, vk, NULL)))
        return json_is_object(d) ? fail(p, "expected the %s variant for this tree shape", variant) : rc;
    push(p, ".%s", variant);
    const json_t *b = json_object_get(d, variant);
    int vi = !s->sub_arity ? 0 : !s->top_arity ? 1 : 2;
    if ((rc = want_obj(p, b, keys_of[vi], NULL))) return rc;
    size_t lv = cuzk_tree_levels(s, nodes), bl = cuzk_tree_base_levels(s, nodes);
    uint64_t mult = 1;
    m->index = 0;
    if (vi == 0) rc = ppath(p, b, "path", s, nodes, m, 0, lv, &mult);
    else {
        rc = ppath(p, b, "base_proof", s, nodes, m, 0, bl, &mult);
        if (!rc) rc = ppath(p, b, "sub_proof", s, nodes, m, bl, bl + 1, &mult);
        if (!rc && vi == 2) rc = ppath(p, b, "top_proof", s, nodes, m, bl + 1, bl + 2, &mult);
    }
    if (rc || (rc = field_fr(p, b, "root", &m->root)) || (rc = field_fr(p, b, "leaf", &m->leaf))) return rc;
    pop(p, old);
    return 0;
}

static int pcolumn(pctx *p, const json_t *o, cuzk_fil_column *col)
{
    static const char *const k_cp[] = {"column", "inclusion_proof", NULL}, *const k_col[] = {"index", "rows", NULL};
    const cuzk_porep_config *c = p->cfg;
    int rc = want_obj(p, o, k_cp, NULL);
    if (rc) return rc;
    size_t old = push(p, ".column");
    const json_t *cj = json_object_get(o, "column");
    uint64_t idx;
    if ((rc = want_obj(p, cj, k_col, "_h"))) return rc;
    const json_t *h = json_object_get(cj, "_h");
    if (h && !json_is_null(h)) return fail(p, "field \"_h\" must be null");
    if ((rc = get_u64(p, cj, "index", c->nodes - 1, &idx)) || (rc = field_frs(p, cj, "rows", col->rows, c->layers)))
        return rc;
    col->index = (uint32_t)idx;
    pop(p, old);
    return pmproof(p, o, "inclusion_proof", &c->tree, c->nodes, &col->proof);
}

/* LabelingProof / EncodingProof {"parents":[37],"layer_index":l,"node":n}. */
static int plabel(pctx *p, const json_t *o, cuzk_fr *parents, unsigned layer, uint64_t *node)
{
    static const char *const k_lp[] = {"parents", "layer_index", "node", NULL};
    uint64_t li, n;
    int rc;
    if ((rc = want_obj(p, o, k_lp, NULL)) || (rc = field_frs(p, o, "parents", parents, NPAR)) ||
        (rc = get_u64(p, o, "layer_index", UINT32_MAX, &li)) || (rc = get_u64(p, o, "node", p->cfg->nodes - 1, &n)))
        return rc;
    if (li != layer) {
        push(p, ".layer_index");
        return fail(p, "expected layer %u, got %llu", layer, (unsigned long long)li);
    }
    if (*node != UINT64_MAX && n != *node) {
        push(p, ".node");
        return fail(p, "node %llu differs from the proof's node %llu", (unsigned long long)n,
                    (unsigned long long)*node);
    }
    *node = n;
    return 0;
}

static int pproof(pctx *p, const json_t *o, cuzk_fil_vproof *v)
{
    static const char *const k_pr[] = {"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs",
                                       "labeling_proofs", "encoding_proof", NULL},
                             *const k_rcp[] = {"c_x", "drg_parents", "exp_parents", NULL};
    const cuzk_porep_config *c = p->cfg;
    int rc;
    if ((rc = want_obj(p, o, k_pr, NULL)) || (rc = pmproof(p, o, "comm_d_proofs", &TREE_D, c->nodes, &v->comm_d)) ||
        (rc = pmproof(p, o, "comm_r_last_proof", &c->tree, c->nodes, &v->comm_r_last)))
        return rc;
    size_t old = push(p, ".replica_column_proofs");
    const json_t *r = json_object_get(o, "replica_column_proofs");
    if ((rc = want_obj(p, r, k_rcp, NULL))) return rc;
    size_t o2 = push(p, ".c_x");
    if ((rc = pcolumn(p, json_object_get(r, "c_x"), &v->c_x))) return rc;
    pop(p, o2);
    static const char *const names[2] = {"drg_parents", "exp_parents"};
    for (int t = 0; t < 2; t++) {
        size_t n = t ? CUZK_POREP_EXP_DEGREE : CUZK_POREP_BASE_DEGREE;
        o2 = push(p, ".%s", names[t]);
        const json_t *a = json_object_get(r, names[t]);
        if (!json_is_array(a)) return fail(p, "expected an array, got %s", jtype(a));
        if (json_array_size(a) != n) return fail(p, "expected %zu parents, got %zu", n, json_array_size(a));
        for (size_t j = 0; j < n; j++) {
            size_t o3 = push(p, "[%zu]", j);
            if ((rc = pcolumn(p, json_array_get(a, j), t ? &v->exp[j] : &v->drg[j]))) return rc;
            pop(p, o3);
        }
        pop(p, o2);
    }
    pop(p, old);
    old = push(p, ".labeling_proofs");
    const json_t *lp = json_object_get(o, "labeling_proofs");
    if (!json_is_array(lp)) return fail(p, "expected an array, got %s", jtype(lp));
    if (json_array_size(lp) != c->layers) return fail(p, "expected %u layers, got %zu", c->layers, json_array_size(lp));
    v->node = UINT64_MAX;
    for (unsigned l = 0; l < c->layers; l++) {
        o2 = push(p, "[%u]", l);
        if ((rc = plabel(p, json_array_get(lp, l), &v->lab_parents[(size_t)l * NPAR], l + 1, &v->node))) return rc;
        pop(p, o2);
    }
    pop(p, old);
    push(p, ".encoding_proof");
    if ((rc = plabel(p, json_object_get(o, "encoding_proof"), v->enc_parents, c->layers, &v->node))) return rc;
    pop(p, old);
    return 0;
}

static int parse_inner(pctx *p, const json_t *root, cuzk_fil_c1 **out)
{
    static const char *const k_top[] = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                        "replica_id", "seed", "ticket", NULL};
    const size_t base = p->len;
    int rc = want_obj(p, root, k_top, NULL);
    if (rc) return rc;
    const json_t *rpj = json_object_get(root, "registered_proof");
    push(p, "registered_proof");
    if (!json_is_string(rpj)) return fail(p, "expected a string, got %s", jtype(rpj));
    const cuzk_fil_seal_proof *rp = cuzk_fil_seal_proof_by_name(json_string_value(rpj));
    if (!rp) return fail(p, "unknown registered proof \"%s\"", json_string_value(rpj));
    pop(p, base);
    const char *key = cuzk_fil_c1_size_key(rp->sector_size);
    if (!key || (rc = cuzk_fil_c1_alloc(out, rp->id, 0)) == CUZK_ERR_INVALID_ARG) {
        push(p, "registered_proof");
        return fail(p, "%s has no C1 form", rp->name);
    }
    if (rc) return rc;
    cuzk_fil_c1 *c1 = *out;
    p->cfg = &c1->cfg;
    static const char *const names[5] = {"comm_r", "comm_d", "replica_id", "seed", "ticket"};
    uint8_t *dst[5] = {c1->comm_r, c1->comm_d, c1->replica_id, c1->seed, c1->ticket};
    for (int i = 0; i < 5; i++) {
        push(p, "%s", names[i]);
        if ((rc = get_bytes(p, json_object_get(root, names[i]), dst[i]))) return rc;
        pop(p, base);
    }
    push(p, "vanilla_proofs");
    const json_t *vp = json_object_get(root, "vanilla_proofs");
    const char *const vk[] = {key, NULL};
    if ((rc = want_obj(p, vp, vk, NULL)))
        return json_is_object(vp) ? fail(p, "the size class must be \"%s\" for %s", key, rp->name) : rc;
    push(p, ".%s", key);
    const json_t *parts = json_object_get(vp, key);
    const cuzk_porep_config *c = &c1->cfg;
    if (!json_is_array(parts)) return fail(p, "expected an array, got %s", jtype(parts));
    if (json_array_size(parts) != c->partitions)
        return fail(p, "expected %u partitions, got %zu", c->partitions, json_array_size(parts));
    for (unsigned k = 0; k < c->partitions; k++) {
        size_t o1 = push(p, "[%u]", k);
        const json_t *pa = json_array_get(parts, k);
        if (!json_is_array(pa)) return fail(p, "expected an array, got %s", jtype(pa));
        if (json_array_size(pa) != c->challenges)
            return fail(p, "expected %u challenges, got %zu", c->challenges, json_array_size(pa));
        for (unsigned i = 0; i < c->challenges; i++) {
            size_t o2 = push(p, "[%u]", i);
            if ((rc = pproof(p, json_array_get(pa, i), &c1->proofs[(size_t)k * c->challenges + i]))) return rc;
            pop(p, o2);
        }
        pop(p, o1);
    }
    return 0;
}

static int parse_json(const uint8_t *buf, size_t len, pctx *p, cuzk_fil_c1 **out, int depth)
{
    json_error_t je;
    cuzk_json_arena *arena; /* ~10 M nodes for a 32 GiB C1: one arena, not 10 M mallocs */
    json_t *root = cuzk_json_loadb_arena((const char *)buf, len, JSON_REJECT_DUPLICATES, &je, &arena);
    if (!root) return fail(p, "malformed JSON at line %d column %d: %s", je.line, je.column, je.text);
    int rc;
    const json_t *ph = json_is_object(root) ? json_object_get(root, "Phase1Out") : NULL;
    if (ph && depth == 0) {
        static const char *const k_wrap[] = {"SectorNum", "Phase1Out", "SectorSize", NULL};
        uint64_t num = 0, size = 0;
        size_t n = 0;
        uint8_t *inner = NULL;
        rc = want_obj(p, root, k_wrap, NULL);
        if (!rc) rc = get_u64(p, root, "SectorNum", INT64_MAX, &num);
        if (!rc) rc = get_u64(p, root, "SectorSize", UINT64_MAX, &size);
        if (!rc) {
            push(p, "Phase1Out");
            if (!json_is_string(ph)) rc = fail(p, "expected a base64 string, got %s", jtype(ph));
            else if (!(inner = cuzk_base64_decode(json_string_value(ph), json_string_length(ph), &n)))
                rc = fail(p, "not valid base64");
        }
        if (!rc) {
            push(p, "/");
            rc = parse_json(inner, n, p, out, 1);
        }
        free(inner);
        if (!rc) {
            (*out)->wrapped = 1;
            (*out)->wrap_sector_num = num;
            (*out)->wrap_sector_size = size;
            if (size != (*out)->cfg.sector_size) {
                pop(p, 0);
                push(p, "SectorSize");
                rc = fail(p, "%llu differs from %s's sector size", (unsigned long long)size, (*out)->rp->name);
            }
        }
    } else {
        rc = parse_inner(p, root, out);
    }
    cuzk_json_arena_free(arena);
    return rc;
}

int cuzk_fil_c1_parse(const uint8_t *buf, size_t len, cuzk_fil_c1 **out, char *err, size_t errcap)
{
    pctx p = {.err = err, .errcap = errcap};
    if (err && errcap) err[0] = 0;
    *out = NULL;
    if (!buf) return CUZK_ERR_INVALID_ARG;
    int rc = parse_json(buf, len, &p, out, 0);
    if (rc) {
        cuzk_fil_c1_free(*out);
        *out = NULL;
    }
    return rc;
}

/* ---- vanilla verification ---------------------------------------------------------------- */

static int vfail(char *err, size_t cap, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return CUZK_ERR_VERIFY_FAILED;
}

static int path_ok(const cuzk_tree_shape *s, uint64_t nodes, const cuzk_fil_mproof *m, const cuzk_fr *root)
{
    cuzk_fr r;
    return cuzk_fr_eq(&m->root, root) && !cuzk_merkle_path_root(&r, s, nodes, m->index, &m->leaf, m->path) &&
           cuzk_fr_eq(&r, root);
}

/* Challenges of partition k as the registered proof's variant derives them. */
static int challenges_of(const cuzk_fil_c1 *c1, unsigned k, uint64_t *out)
{
    const cuzk_porep_config *c = &c1->cfg;
    if (c1->rp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE) {
        for (unsigned i = 0; i < c->challenges; i++)
            out[i] = cuzk_fil_porep_challenge_ni(c1->replica_id, c1->comm_r, k * c->challenges + i, c->nodes);
        return 0;
    }
    if (c1->rp->feature == CUZK_FIL_FEAT_SYNTHETIC) {
        cuzk_fil_synth s;
        if (cuzk_fil_synth_init(&s, c1->replica_id, c1->comm_r, c->nodes, 0)) return -1;
        return cuzk_fil_synth_porep_challenges(&s, c1->seed, c->challenges, k, NULL, out);
    }
    cuzk_fil_porep_challenges(out, c->challenges, k, c1->replica_id, c1->seed, c->nodes);
    return 0;
}

int cuzk_fil_c1_check(cuzk_fil_c1 *c1, uint64_t registered_proof, uint64_t miner_id, uint64_t sector_id, char *err,
                      size_t errcap)
{
    if (!c1) return CUZK_ERR_INVALID_ARG;
    c1->checked = 0;
    const cuzk_porep_config *c = &c1->cfg;
    const unsigned L = c->layers;
    if (registered_proof != c1->registered_proof)
        return vfail(err, errcap, "registered_proof: the C1 is %s, the request %llu", c1->rp->name,
                     (unsigned long long)registered_proof);
    if (c1->wrapped && c1->wrap_sector_num != sector_id)
        return vfail(err, errcap, "SectorNum: %llu differs from the sector number %llu",
                     (unsigned long long)c1->wrap_sector_num, (unsigned long long)sector_id);
    uint8_t prover[32], porep_id[32], rid[32];
    cuzk_fil_prover_id(prover, miner_id);
    cuzk_fil_porep_id(porep_id, c1->registered_proof, 0);
    cuzk_fil_replica_id(rid, prover, sector_id, c1->ticket, c1->comm_d, porep_id);
    if (memcmp(rid, c1->replica_id, 32))
        return vfail(err, errcap, "replica_id: differs from the one rebuilt from miner %llu, sector %llu, ticket, "
                     "comm_d and porep_id", (unsigned long long)miner_id, (unsigned long long)sector_id);
    cuzk_fr comm_d, comm_r, comm_c, comm_r_last, t;
    if (cuzk_fr_from_le32(&comm_d, c1->comm_d)) return vfail(err, errcap, "comm_d: not a field element");
    if (cuzk_fr_from_le32(&comm_r, c1->comm_r)) return vfail(err, errcap, "comm_r: not a field element");
    cuzk_fr_from_le32(&c1->replica_id_fr, rid);
    comm_c = c1->proofs[0].c_x.proof.root;
    comm_r_last = c1->proofs[0].comm_r_last.root;
    cuzk_fr pair[2] = {comm_c, comm_r_last};
    cuzk_poseidon_hash(&t, 2, pair);
    if (!cuzk_fr_eq(&t, &comm_r)) return vfail(err, errcap, "comm_r: not H(comm_c, comm_r_last) of the proofs' roots");
    cuzk_fil_graph g;
    if (cuzk_fil_graph_init(&g, c->nodes, porep_id, c1->rp->api_version))
        return vfail(err, errcap, "registered_proof: no graph for %llu nodes", (unsigned long long)c->nodes);
    uint64_t *chs = malloc(sizeof(uint64_t) * c->challenges);
    cuzk_fr *parents = malloc(sizeof(cuzk_fr) * NPAR);
    int rc = chs && parents ? 0 : CUZK_ERR_NO_MEMORY;
    for (unsigned k = 0; k < c->partitions && !rc; k++) {
        if (challenges_of(c1, k, chs)) {
            rc = vfail(err, errcap, "challenges of partition %u could not be derived", k);
            break;
        }
        for (unsigned i = 0; i < c->challenges && !rc; i++) {
            const cuzk_fil_vproof *v = &c1->proofs[(size_t)k * c->challenges + i];
            char where[64];
            snprintf(where, sizeof where, "vanilla_proofs[%u][%u]", k, i);
            uint64_t node = chs[i];
            if (v->node != node || v->comm_d.index != node || v->comm_r_last.index != node || v->c_x.index != node ||
                v->c_x.proof.index != node) {
                rc = vfail(err, errcap, "%s: proves node %llu, the challenge is %llu", where,
                           (unsigned long long)v->node, (unsigned long long)node);
                break;
            }
            uint32_t par[CUZK_FIL_DEGREE];
            cuzk_fil_graph_parents(&g, (uint32_t)node, par);
            const cuzk_fil_column *cols[CUZK_FIL_DEGREE + 1];
            cols[0] = &v->c_x;
            for (int j = 0; j < CUZK_FIL_DEGREE; j++) {
                cols[j + 1] = j < 6 ? &v->drg[j] : &v->exp[j - 6];
                if (cols[j + 1]->index != par[j] || cols[j + 1]->proof.index != par[j]) {
                    rc = vfail(err, errcap, "%s.replica_column_proofs.%s[%d]: column %u, the graph's parent is %u",
                               where, j < 6 ? "drg_parents" : "exp_parents", j < 6 ? j : j - 6,
                               (unsigned)cols[j + 1]->proof.index, par[j]);
                    break;
                }
            }
            if (rc) break;
            if (!path_ok(&TREE_D, c->nodes, &v->comm_d, &comm_d)) {
                rc = vfail(err, errcap, "%s.comm_d_proofs: does not open comm_d", where);
                break;
            }
            if (!path_ok(&c->tree, c->nodes, &v->comm_r_last, &comm_r_last)) {
                rc = vfail(err, errcap, "%s.comm_r_last_proof: does not open comm_r_last", where);
                break;
            }
            for (int j = 0; j <= CUZK_FIL_DEGREE && !rc; j++) {
                cuzk_poseidon_hash(&t, L, cols[j]->rows);
                if (!cuzk_fr_eq(&t, &cols[j]->proof.leaf) || !path_ok(&c->tree, c->nodes, &cols[j]->proof, &comm_c))
                    rc = vfail(err, errcap, "%s.replica_column_proofs: column %u does not open comm_c", where,
                               (unsigned)cols[j]->index);
            }
            for (unsigned l = 1; l <= L && !rc; l++) {
                cuzk_fr drg[6], exp[8];
                for (int j = 0; j < 6; j++) drg[j] = v->drg[j].rows[l - 1];
                for (int j = 0; j < 8; j++) exp[j] = l > 1 ? v->exp[j].rows[l - 2] : cuzk_fr_zero;
                cuzk_porep_expand_parents(parents, l, drg, exp);
                if (memcmp(parents, &v->lab_parents[(size_t)(l - 1) * NPAR], sizeof(cuzk_fr) * NPAR))
                    rc = vfail(err, errcap, "%s.labeling_proofs[%u].parents: not the parent columns' labels", where, l - 1);
                else if (cuzk_porep_label(&t, &c1->replica_id_fr, l, node, parents), !cuzk_fr_eq(&t, &v->c_x.rows[l - 1]))
                    rc = vfail(err, errcap, "%s.labeling_proofs[%u]: the label of node %llu is wrong", where, l - 1,
                               (unsigned long long)node);
            }
            if (rc) break;
            if (memcmp(v->enc_parents, &v->lab_parents[(size_t)(L - 1) * NPAR], sizeof(cuzk_fr) * NPAR)) {
                rc = vfail(err, errcap, "%s.encoding_proof.parents: differ from the last layer's", where);
                break;
            }
            cuzk_fr_add(&t, &v->c_x.rows[L - 1], &v->comm_d.leaf);
            if (!cuzk_fr_eq(&t, &v->comm_r_last.leaf))
                rc = vfail(err, errcap, "%s.comm_r_last_proof.leaf: not the encoding of the data", where);
        }
    }
    free(chs);
    free(parents);
    if (rc) return rc;
    c1->comm_d_fr = comm_d;
    c1->comm_r_fr = comm_r;
    c1->comm_c_fr = comm_c;
    c1->comm_r_last_fr = comm_r_last;
    c1->checked = 1;
    return CUZK_OK;
}

int cuzk_fil_c1_witness(const cuzk_fil_c1 *c1, unsigned k, cuzk_porep_witness *w, cuzk_porep_challenge **chs)
{
    *chs = NULL;
    if (!c1 || !c1->checked || k >= c1->cfg.partitions) return CUZK_ERR_INVALID_ARG;
    const unsigned C = c1->cfg.challenges;
    cuzk_porep_challenge *ch = calloc(C, sizeof *ch);
    if (!ch) return CUZK_ERR_NO_MEMORY;
    for (unsigned i = 0; i < C; i++) {
        const cuzk_fil_vproof *v = &c1->proofs[(size_t)k * C + i];
        cuzk_porep_challenge *x = &ch[i];
        x->node = v->node;
        x->data_leaf = v->comm_d.leaf;
        x->comm_d_path = v->comm_d.path;
        for (int j = 0; j < CUZK_POREP_BASE_DEGREE; j++)
            x->drg[j] = (cuzk_porep_column){v->drg[j].index, v->drg[j].rows, v->drg[j].proof.path};
        for (int j = 0; j < CUZK_POREP_EXP_DEGREE; j++)
            x->exp[j] = (cuzk_porep_column){v->exp[j].index, v->exp[j].rows, v->exp[j].proof.path};
        x->comm_r_last_path = v->comm_r_last.path;
        x->comm_c_path = v->c_x.proof.path;
    }
    *w = (cuzk_porep_witness){c1->replica_id_fr, c1->comm_d_fr, c1->comm_r_fr, c1->comm_r_last_fr, c1->comm_c_fr, ch};
    *chs = ch;
    return CUZK_OK;
}

size_t cuzk_fil_c1_public_inputs(const cuzk_fil_c1 *c1, unsigned k, cuzk_fr *out)
{
    cuzk_porep_witness w;
    cuzk_porep_challenge *ch;
    if (cuzk_fil_c1_witness(c1, k, &w, &ch)) return 0;
    size_t n = cuzk_porep_public_inputs(out, &c1->cfg, &w);
    free(ch);
    return n;
}
