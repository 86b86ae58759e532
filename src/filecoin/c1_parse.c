/* PoRep C1 output parsed from SealCommitPhase1Output's serde_json (or curio's wrapper, or
 * base64 of either): every field's type and length checked, errors naming the JSON path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cuzk/util/base64.h"
#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/util/json_arena.h"
#include "cuzk/gadgets/merkle.h"
#include "cuzk/util/parallel.h"
#include "filecoin_internal.h"

typedef struct pctx {
    char path[384];
    size_t len;
    char *err;
    size_t errcap;
    const cuzk_porep_config *cfg;
    unsigned nthreads; /* > 1: large documents may take parse_fast */
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
    if ((rc = want_obj(p, o, k_lp, NULL)) || (rc = field_frs(p, o, "parents", parents, FIL_C1_NPAR)) ||
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
    if ((rc = want_obj(p, o, k_pr, NULL)) || (rc = pmproof(p, o, "comm_d_proofs", &fil_c1_tree_d, c->nodes, &v->comm_d)) ||
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
        if ((rc = plabel(p, json_array_get(lp, l), &v->lab_parents[(size_t)l * FIL_C1_NPAR], l + 1, &v->node))) return rc;
        pop(p, o2);
    }
    pop(p, old);
    push(p, ".encoding_proof");
    if ((rc = plabel(p, json_object_get(o, "encoding_proof"), v->enc_parents, c->layers, &v->node))) return rc;
    pop(p, old);
    return 0;
}

/* Everything but the proofs: the C1 allocated, *parts its array of partitions. */
static int parse_head(pctx *p, const json_t *root, cuzk_fil_c1 **out, const json_t **parts_out)
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
    if (!json_is_array(parts)) return fail(p, "expected an array, got %s", jtype(parts));
    *parts_out = parts;
    return 0;
}

static int parse_inner(pctx *p, const json_t *root, cuzk_fil_c1 **out)
{
    const json_t *parts = NULL;
    int rc = parse_head(p, root, out, &parts);
    if (rc) return rc;
    const cuzk_fil_c1 *c1 = *out;
    const cuzk_porep_config *c = &c1->cfg;
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

/* ---- the proofs on several threads ------------------------------------------------
 *
 * A 32 GiB C1 is 38 MB of JSON, ~10 M nodes, parsed at submit before the
 * job's first partition can start. Its proofs (176 objects) are
 * independent: a structural scan (strings and nesting only) finds each
 * one's text, jansson parses the document without them (a skeleton) and
 * each proof on its own, on several threads. Anything unexpected (a
 * scan that does not fit, a proof that fails) hands the input to the
 * checked parse (below: the same pieces one by one, with messages), which
 * then decides and words any error: this path only ever produces what that
 * parse would, faster. */

/* curio's wrapper: its fields, for both parses of it */
static const char *const k_wrap[] = {"SectorNum", "Phase1Out", "SectorSize", NULL};

typedef struct span {
    size_t a, b;
} span;

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* The end of the value at s[i] (strings, nesting, scalars up to a
 * delimiter), or 0 when the structure does not close. */
static size_t value_end(const char *s, size_t n, size_t i)
{
    if (i >= n) return 0;
    if (s[i] != '{' && s[i] != '[' && s[i] != '"') {
        size_t j = i;
        while (j < n && s[j] != ',' && s[j] != ']' && s[j] != '}' && s[j] != ' ' && s[j] != '\t' &&
               s[j] != '\n' && s[j] != '\r')
            j++;
        return j > i ? j : 0;
    }
    size_t depth = 0;
    for (; i < n; i++) {
        const char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            if (i >= n) return 0;
            if (!depth) return i + 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (!depth) return 0;
            if (!--depth) return i + 1;
        }
    }
    return 0;
}

/* The items of the array at s[i] == '[': up to max spans into out (may be
 * NULL), their number in *count; the index after the array, or 0. */
static size_t array_items(const char *s, size_t n, size_t i, span *out, size_t max, size_t *count)
{
    size_t k = 0;
    i = skip_ws(s, n, i + 1);
    if (i < n && s[i] == ']') {
        *count = 0;
        return i + 1;
    }
    for (;;) {
        const size_t e = value_end(s, n, i);
        if (!e) return 0;
        if (out && k < max) out[k] = (span){i, e};
        k++;
        i = skip_ws(s, n, e);
        if (i >= n) return 0;
        if (s[i] == ']') {
            *count = k;
            return i + 1;
        }
        if (s[i] != ',') return 0;
        i = skip_ws(s, n, i + 1);
    }
}

/* The member of the object at s[i] == '{' whose key is `key` (quoted, as
 * written, no escapes; NULL: any key): its value in *value, the number of
 * such members in *matches; 0 on a well-formed object, -1 otherwise. */
static int object_member(const char *s, size_t n, size_t i, const char *key, span *value, unsigned *matches)
{
    const size_t klen = key ? strlen(key) : 0;
    *matches = 0;
    i = skip_ws(s, n, i + 1);
    if (i < n && s[i] == '}') return 0;
    for (;;) {
        if (i >= n || s[i] != '"') return -1;
        const size_t ks = i, ke = value_end(s, n, i);
        if (!ke) return -1;
        i = skip_ws(s, n, ke);
        if (i >= n || s[i] != ':') return -1;
        const size_t vs = skip_ws(s, n, i + 1), ve = value_end(s, n, vs);
        if (!ve) return -1;
        if (!key || (ke - ks == klen && !memcmp(s + ks, key, klen))) {
            ++*matches;
            *value = (span){vs, ve};
        }
        i = skip_ws(s, n, ve);
        if (i < n && s[i] == '}') return 0;
        if (i >= n || s[i] != ',') return -1;
        i = skip_ws(s, n, i + 1);
    }
}

/* Caps on the nodes one load may build (cuzk_json_loadb_arena_max), so that
 * a parse's memory is bounded whatever the document holds: a 32 GiB C1's
 * proof takes ~3 MB of nodes and its skeleton a few KB, while jansson's
 * nodes for a whole document cost 15 (a C1) to 75 (`[{},{},...]`) bytes per
 * byte of text. A whole document is loaded only when its shape is not a
 * C1's (curio's wrapper among them: jansson copies its 51 MB base64 string
 * and outgrows two buffers while lexing it, hence 4 bytes per byte). */
#define PROOF_NODES_MAX ((size_t)16 << 20)
#define SKELETON_NODES_MAX ((size_t)16 << 20)
static size_t whole_nodes_max(size_t n) { return SKELETON_NODES_MAX + 4 * n; }

enum { MAX_PARTS = 4096, MAX_PROOFS = 65536 };

/* The partitions of a document shaped as a C1 output: *arr the array that
 * vanilla_proofs' one member holds, *parts (malloc'd) its items' spans; 0,
 * or -1 when the document is not of that shape. */
static int split_parts(const char *s, size_t n, span *arr, span **parts, size_t *nparts)
{
    *parts = NULL;
    size_t i = skip_ws(s, n, 0);
    span vp;
    unsigned m;
    if (i >= n || s[i] != '{' || object_member(s, n, i, "\"vanilla_proofs\"", &vp, &m) || m != 1 || s[vp.a] != '{' ||
        object_member(s, n, vp.a, NULL, arr, &m) || m != 1 || s[arr->a] != '[')
        return -1;
    if (!(*parts = malloc(sizeof **parts * MAX_PARTS)) || !array_items(s, n, arr->a, *parts, MAX_PARTS, nparts) ||
        *nparts > MAX_PARTS) {
        free(*parts);
        *parts = NULL;
        return -1;
    }
    return 0;
}

/* The document with an empty array of partitions, in *skel (malloc'd),
 * loaded; NULL with je filled (*capped: past its cap) when it does not load. */
static json_t *load_skeleton(const char *s, size_t n, span arr, char **skel, json_error_t *je,
                             cuzk_json_arena **arena, bool *capped)
{
    const size_t head = arr.a + 1, tail = n - (arr.b - 1);
    *arena = NULL;
    *capped = false;
    if (!(*skel = malloc(head + tail))) {
        *je = (json_error_t){.text = "out of memory"};
        return NULL;
    }
    memcpy(*skel, s, head);
    memcpy(*skel + head, s + arr.b - 1, tail);
    return cuzk_json_loadb_arena_max(*skel, head + tail, JSON_REJECT_DUPLICATES, SKELETON_NODES_MAX, je, arena, capped);
}

typedef struct fast_job {
    const char *s;
    const span *proofs; /* partitions x challenges, in order */
    cuzk_fil_c1 *c1;
    int *rc;
} fast_job;

static void fast_proofs(void *arg, unsigned worker, size_t lo, size_t hi)
{
    const fast_job *f = arg;
    (void)worker;
    for (size_t q = lo; q < hi; q++) {
        json_error_t je;
        cuzk_json_arena *arena;
        const span sp = f->proofs[q];
        json_t *o = cuzk_json_loadb_arena_max(f->s + sp.a, sp.b - sp.a, JSON_REJECT_DUPLICATES, PROOF_NODES_MAX, &je,
                                              &arena, NULL);
        pctx lp = {.cfg = &f->c1->cfg}; /* no message: a failure goes to the checked parse */
        f->rc[q] = o ? pproof(&lp, o, &f->c1->proofs[q]) : CUZK_ERR_FORMAT;
        cuzk_json_arena_free(arena);
    }
}

/* 0 with *out the C1 that parse_checked would give, or -1: not taken. */
static int parse_fast(const char *s, size_t n, unsigned nthreads, cuzk_fil_c1 **out)
{
    *out = NULL;
    /* one scan of each array: the partitions, then each one's proofs into
     * their places (the first counted beforehand) */
    size_t nparts = 0, nch = 0;
    span arr, *parts;
    if (split_parts(s, n, &arr, &parts, &nparts)) return -1;
    if (nparts == 0 || s[parts[0].a] != '[' || !array_items(s, n, parts[0].a, NULL, 0, &nch) || nch == 0 ||
        nch > MAX_PROOFS) {
        free(parts);
        return -1;
    }
    span *proofs = malloc(sizeof *proofs * nparts * nch);
    int *rcs = calloc(nparts * nch, sizeof *rcs);
    int rc = proofs && rcs ? 0 : -1;
    for (size_t k = 0; k < nparts && !rc; k++) {
        size_t c = 0;
        if (s[parts[k].a] != '[' || !array_items(s, n, parts[k].a, proofs + k * nch, nch, &c) || c != nch) rc = -1;
    }
    json_error_t je;
    cuzk_json_arena *arena = NULL;
    char *skel = NULL;
    bool capped;
    json_t *root = rc ? NULL : load_skeleton(s, n, arr, &skel, &je, &arena, &capped);
    const json_t *pj = NULL;
    pctx hp = {0};
    if (!root || parse_head(&hp, root, out, &pj) || json_array_size(pj) != 0 || nparts != (*out)->cfg.partitions ||
        nch != (*out)->cfg.challenges)
        rc = -1;
    if (!rc) {
        fast_job fj = {s, proofs, *out, rcs};
        cuzk_parallel_for(nparts * nch, 1, nthreads, fast_proofs, &fj);
        for (size_t q = 0; q < nparts * nch && !rc; q++)
            if (rcs[q]) rc = -1;
    }
    cuzk_json_arena_free(arena);
    free(skel);
    free(proofs);
    free(rcs);
    free(parts);
    if (rc) {
        cuzk_fil_c1_free(*out);
        *out = NULL;
    }
    return rc;
}

/* ---- the checked parse, piece by piece ---------------------------------------------
 *
 * What decides and words an error, in bounded memory: the syntax of the
 * whole text first (no nodes built), then, for a document shaped as a C1,
 * its skeleton and each proof on its own, in the order the checks of
 * parse_inner meet them, with the same messages. */

/* A value's type from its text, as jtype names a loaded one. */
static const char *text_type(const char *s, span v)
{
    switch (s[v.a]) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return memchr(s + v.a, '.', v.b - v.a) || memchr(s + v.a, 'e', v.b - v.a) ||
                            memchr(s + v.a, 'E', v.b - v.a)
                        ? "a number"
                        : "an integer";
    }
}

/* The byte jansson read last before its error, in the text it loaded. */
static size_t load_error_at(const json_error_t *je) { return je->position > 0 ? (size_t)je->position - 1 : 0; }

/* jansson's error for a piece of the document, its byte off of the document. */
static int fail_load(pctx *p, const char *s, size_t off, const json_error_t *je)
{
    int line, col;
    cuzk_json_line_col(s, off, &line, &col);
    return fail(p, "malformed JSON at line %d column %d: %s", line, col, je->text);
}

static int fail_syntax(pctx *p, const char *s, size_t n)
{
    size_t off = 0;
    const char *what = NULL;
    if (!cuzk_json_syntax(s, n, &off, &what)) return 0;
    int line, col;
    cuzk_json_line_col(s, off, &line, &col);
    return fail(p, "malformed JSON at line %d column %d: %s", line, col, what);
}

/* Partition k's proofs (their spans in sp, challenges of them), each loaded
 * and checked on its own. */
static int pieces_partition(pctx *p, const char *s, size_t n, span part, span *sp, cuzk_fil_c1 *c1, unsigned k)
{
    const cuzk_porep_config *c = &c1->cfg;
    size_t count = 0;
    if (s[part.a] != '[') return fail(p, "expected an array, got %s", text_type(s, part));
    if (!array_items(s, n, part.a, sp, c->challenges, &count) || count != c->challenges)
        return fail(p, "expected %u challenges, got %zu", c->challenges, count);
    for (unsigned i = 0; i < c->challenges; i++) {
        size_t o2 = push(p, "[%u]", i);
        if (s[sp[i].a] != '{') return fail(p, "expected an object, got %s", text_type(s, sp[i])); /* unloaded */
        json_error_t je;
        cuzk_json_arena *arena;
        bool capped = false;
        json_t *o = cuzk_json_loadb_arena_max(s + sp[i].a, sp[i].b - sp[i].a, JSON_REJECT_DUPLICATES,
                                              PROOF_NODES_MAX, &je, &arena, &capped);
        int rc = o ? pproof(p, o, &c1->proofs[(size_t)k * c->challenges + i])
                 : capped ? fail(p, "more values than a proof holds (over %zu MiB of nodes to load)",
                                 PROOF_NODES_MAX >> 20)
                          : fail_load(p, s, sp[i].a + load_error_at(&je), &je);
        cuzk_json_arena_free(arena);
        if (rc) return rc;
        pop(p, o2);
    }
    return 0;
}

/* The checked parse of a document the scan splits (see above); -1 when it
 * does not split, or its skeleton does not load (the whole document then). */
static int parse_pieces(pctx *p, const char *s, size_t n, cuzk_fil_c1 **out)
{
    span arr, *parts = NULL, *sp = NULL;
    size_t nparts = 0;
    if (split_parts(s, n, &arr, &parts, &nparts)) return -1;
    json_error_t je;
    cuzk_json_arena *arena = NULL;
    char *skel = NULL;
    bool capped;
    const json_t *pj = NULL;
    json_t *root = load_skeleton(s, n, arr, &skel, &je, &arena, &capped);
    /* a skeleton's error (a duplicate key, say) at its byte in the document */
    const size_t head = arr.a + 1, pos = load_error_at(&je);
    int rc = root     ? parse_head(p, root, out, &pj)
             : capped ? -1
                      : fail_load(p, s, pos < head ? pos : pos + arr.b - 1 - head, &je);
    if (!rc && nparts != (*out)->cfg.partitions)
        rc = fail(p, "expected %u partitions, got %zu", (*out)->cfg.partitions, nparts);
    if (!rc && !(sp = malloc(sizeof *sp * (*out)->cfg.challenges))) rc = CUZK_ERR_NO_MEMORY;
    for (unsigned k = 0; !rc && k < nparts; k++) {
        size_t o1 = push(p, "[%u]", k);
        rc = pieces_partition(p, s, n, parts[k], sp, *out, k);
        if (!rc) pop(p, o1);
    }
    cuzk_json_arena_free(arena);
    free(skel);
    free(sp);
    free(parts);
    return rc;
}

/* The wrapper's fields onto the C1 it carried; 0 when its SectorSize is the
 * C1's own. */
static int wrap_finish(cuzk_fil_c1 *c1, uint64_t num, uint64_t size)
{
    c1->wrapped = 1;
    c1->wrap_sector_num = num;
    c1->wrap_sector_size = size;
    return size == c1->cfg.sector_size ? 0 : -1;
}

static int parse_json(const uint8_t *buf, size_t len, pctx *p, cuzk_fil_c1 **out, int depth);

/* curio's wrapper the same way: its Phase1Out (51 MB of base64, which has
 * no escapes: strict base64 is plain JSON string text) decoded straight from
 * the document, the rest parsed as a skeleton with an empty string there.
 * 0 with *out, or -1: not taken. */
static int parse_wrapped_fast(const char *s, size_t n, unsigned nthreads, cuzk_fil_c1 **out)
{
    *out = NULL;
    size_t i = skip_ws(s, n, 0);
    span ph;
    unsigned m;
    if (i >= n || s[i] != '{' || object_member(s, n, i, "\"Phase1Out\"", &ph, &m) || m != 1 || s[ph.a] != '"')
        return -1;
    size_t inner_len = 0;
    uint8_t *inner = cuzk_base64_decode(s + ph.a + 1, ph.b - ph.a - 2, &inner_len);
    char *skel = malloc(n - (ph.b - ph.a) + 2);
    int rc = inner && skel ? 0 : -1;
    json_error_t je;
    cuzk_json_arena *arena = NULL;
    json_t *root = NULL;
    if (!rc) {
        memcpy(skel, s, ph.a);
        memcpy(skel + ph.a, "\"\"", 2);
        memcpy(skel + ph.a + 2, s + ph.b, n - ph.b);
        root = cuzk_json_loadb_arena_max(skel, n - (ph.b - ph.a) + 2, JSON_REJECT_DUPLICATES, SKELETON_NODES_MAX, &je,
                                         &arena, NULL);
    }
    uint64_t num = 0, size = 0;
    pctx q = {.nthreads = nthreads}; /* no message: a failure goes to the checked parse */
    if (!root || want_obj(&q, root, k_wrap, NULL) || get_u64(&q, root, "SectorNum", INT64_MAX, &num) ||
        get_u64(&q, root, "SectorSize", UINT64_MAX, &size) || !json_is_string(json_object_get(root, "Phase1Out")) ||
        /* the inner document by the fast path alone: where that is not taken,
         * the checked parse does the inner's checked parse once
         * (it used to run here first as well, twice on a bad C1) */
        parse_fast((const char *)inner, inner_len, nthreads, out))
        rc = -1;
    if (!rc && wrap_finish(*out, num, size)) rc = -1;
    if (arena) cuzk_json_arena_free(arena);
    free(skel);
    free(inner);
    if (rc) {
        cuzk_fil_c1_free(*out);
        *out = NULL;
    }
    return rc;
}

/* The whole document in one load (under its cap): for a document whose
 * shape is not a C1's, curio's wrapper among them. */
static int parse_whole(pctx *p, const char *s, size_t n, cuzk_fil_c1 **out, int depth)
{
    json_error_t je;
    cuzk_json_arena *arena; /* one arena, not a malloc per node */
    bool capped = false;
    json_t *root = cuzk_json_loadb_arena_max(s, n, JSON_REJECT_DUPLICATES, whole_nodes_max(n), &je, &arena, &capped);
    if (!root && capped)
        return fail(p, "not a C1 output: more values than one holds (over %zu MiB of nodes to load)",
                    whole_nodes_max(n) >> 20);
    if (!root) return fail_load(p, s, load_error_at(&je), &je);
    int rc;
    const json_t *ph = json_is_object(root) ? json_object_get(root, "Phase1Out") : NULL;
    if (ph && depth == 0) {
        uint64_t num = 0, size = 0;
        size_t inner_len = 0;
        uint8_t *inner = NULL;
        rc = want_obj(p, root, k_wrap, NULL);
        if (!rc) rc = get_u64(p, root, "SectorNum", INT64_MAX, &num);
        if (!rc) rc = get_u64(p, root, "SectorSize", UINT64_MAX, &size);
        if (!rc) {
            push(p, "Phase1Out");
            if (!json_is_string(ph)) rc = fail(p, "expected a base64 string, got %s", jtype(ph));
            else if (!(inner = cuzk_base64_decode(json_string_value(ph), json_string_length(ph), &inner_len)))
                rc = fail(p, "not valid base64");
        }
        cuzk_json_arena_free(arena); /* the inner document is all that is left to parse */
        arena = NULL;
        if (!rc) {
            push(p, "/");
            rc = parse_json(inner, inner_len, p, out, 1);
        }
        free(inner);
        if (!rc && wrap_finish(*out, num, size)) {
            pop(p, 0);
            push(p, "SectorSize");
            rc = fail(p, "%llu differs from %s's sector size", (unsigned long long)size, (*out)->rp->name);
        }
    } else {
        rc = parse_inner(p, root, out);
    }
    cuzk_json_arena_free(arena);
    return rc;
}

/* What decides and words every error: the syntax, then the document piece
 * by piece where it has a C1's shape, else whole. */
static int parse_checked(pctx *p, const char *s, size_t n, cuzk_fil_c1 **out, int depth)
{
    int rc = fail_syntax(p, s, n);
    if (rc) return rc;
    const size_t i = skip_ws(s, n, 0);
    if (s[i] != '{') return fail(p, "expected an object, got %s", text_type(s, (span){i, n}));
    /* a Phase1Out member makes the document curio's wrapper (parse_whole
     * says what else it holds) */
    span ph;
    unsigned m = 0;
    const bool wrapper = depth == 0 && !object_member(s, n, i, "\"Phase1Out\"", &ph, &m) && m;
    rc = wrapper ? -1 : parse_pieces(p, s, n, out);
    return rc >= 0 ? rc : parse_whole(p, s, n, out, depth);
}

static int parse_json(const uint8_t *buf, size_t len, pctx *p, cuzk_fil_c1 **out, int depth)
{
    /* on several threads when that path fits (see above); any size, so
     * that the fuzz target's small inputs exercise it as well */
    if (p->nthreads > 1 &&
        (!parse_fast((const char *)buf, len, p->nthreads, out) ||
         (depth == 0 && !parse_wrapped_fast((const char *)buf, len, p->nthreads, out))))
        return 0;
    return parse_checked(p, (const char *)buf, len, out, depth);
}

int cuzk_fil_c1_parse(const uint8_t *buf, size_t len, cuzk_fil_c1 **out, char *err, size_t errcap)
{
    return cuzk_fil_c1_parse_threads(buf, len, 1, out, err, errcap);
}

int cuzk_fil_c1_parse_threads(const uint8_t *buf, size_t len, unsigned nthreads, cuzk_fil_c1 **out, char *err,
                              size_t errcap)
{
    pctx p = {.err = err, .errcap = errcap, .nthreads = nthreads};
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
