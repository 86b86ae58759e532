/* bincode primitives, Merkle proofs, commitments and prover ids for the vanilla proofs
 * (fil_vanilla.h; formats in docs/filecoin.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/base32.h"
#include "cuzk/util/error.h"
#include "cuzk/util/hex.h"
#include "cuzk/gadgets/poseidon.h"
#include "filecoin_internal.h"
#include "vanilla_internal.h"

void vrd_fail(vrd *r, int rc, const char *fmt, ...)
{
    if (r->rc) return;
    r->rc = rc;
    va_list ap;
    va_start(ap, fmt);
    cuzk_verrf(r->err, r->err_len, rc, fmt, ap);
    va_end(ap);
}

static bool vrd_need(vrd *r, size_t k, const char *field)
{
    if (r->rc) return false;
    if (r->n - r->off < k) {
        vrd_fail(r, CUZK_ERR_FORMAT, "%s: truncated at byte %zu (%zu bytes)", field, r->off, r->n);
        return false;
    }
    return true;
}

uint64_t vrd_u64(vrd *r, const char *field)
{
    if (!vrd_need(r, 8, field)) return 0;
    uint64_t v = fil_rd_le64(r->p + r->off);
    r->off += 8;
    return v;
}

uint32_t vrd_u32(vrd *r, const char *field)
{
    if (!vrd_need(r, 4, field)) return 0;
    const uint8_t *p = r->p + r->off;
    r->off += 4;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void vrd_fr(vrd *r, cuzk_fr *out, const char *field)
{
    *out = cuzk_fr_zero;
    if (!vrd_need(r, 32, field)) return;
    if (cuzk_fr_from_le32(out, r->p + r->off) != 0)
        vrd_fail(r, CUZK_ERR_NONCANONICAL, "%s: not a canonical field element (byte %zu)", field, r->off);
    r->off += 32;
}

bool vrd_len(vrd *r, uint64_t want, const char *field)
{
    uint64_t n = vrd_u64(r, field);
    if (r->rc) return false;
    if (n != want) {
        vrd_fail(r, CUZK_ERR_FORMAT, "%s: %llu entries, want %llu", field, (unsigned long long)n,
                 (unsigned long long)want);
        return false;
    }
    return true;
}

void vrd_end(vrd *r)
{
    if (!r->rc && r->off != r->n) vrd_fail(r, CUZK_ERR_FORMAT, "%zu trailing bytes after the proof", r->n - r->off);
}

static void vwr_put(vwr *w, const void *src, size_t k)
{
    if (w->oom) return;
    if (w->cap - w->n < k) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap - w->n < k) cap *= 2;
        uint8_t *p = realloc(w->p, cap);
        if (!p) {
            w->oom = true;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->n, src, k);
    w->n += k;
}

void vwr_u64(vwr *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    vwr_put(w, b, 8);
}

void vwr_u32(vwr *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    vwr_put(w, b, 4);
}

void vwr_fr(vwr *w, const cuzk_fr *v)
{
    uint8_t b[32];
    cuzk_fr_to_le32(b, v);
    vwr_put(w, b, 32);
}

int vwr_finish(vwr *w, uint8_t **out, size_t *len)
{
    if (w->oom) {
        free(w->p);
        return CUZK_ERR_NO_MEMORY;
    }
    *out = w->p;
    *len = w->n;
    return 0;
}

int vshape_init(vshape *s, const cuzk_tree_shape *tree, uint64_t leaves)
{
    memset(s, 0, sizeof *s);
    s->tree = *tree;
    s->leaves = leaves;
    s->levels = cuzk_tree_levels(tree, leaves);
    if (!s->levels || s->levels > 64) return CUZK_ERR_INVALID_ARG;
    s->base_levels = cuzk_tree_base_levels(tree, leaves);
    s->path_len = cuzk_tree_path_len(tree, leaves);
    for (size_t l = 0; l < s->levels; l++) s->arity[l] = cuzk_tree_level_arity(tree, leaves, l);
    s->variant = tree->top_arity ? 2 : tree->sub_arity ? 1 : 0;
    return 0;
}

int cuzk_fil_tree_r(cuzk_tree_shape *out, uint64_t sector_size)
{
    unsigned b, sub, top;
    if (!cuzk_fil_tree_shape(sector_size, &b, &sub, &top)) return CUZK_ERR_INVALID_ARG;
    *out = (cuzk_tree_shape){CUZK_TREE_POSEIDON, b, sub, top};
    return 0;
}

int vshape_tree_r(vshape *s, uint64_t sector_size)
{
    cuzk_tree_shape t;
    return cuzk_fil_tree_r(&t, sector_size) ? CUZK_ERR_INVALID_ARG : vshape_init(s, &t, sector_size / 32);
}

/* InclusionPath levels [l0, l0 + count): siblings into path, positions into *index. */
static void vrd_ipath(vrd *r, const vshape *s, size_t l0, size_t count, cuzk_fr *path, uint64_t *index,
                      uint64_t *scale, const char *field)
{
    char f[320];
    snprintf(f, sizeof f, "%s.path", field);
    if (!vrd_len(r, count, f)) return;
    for (size_t l = l0; l < l0 + count && !r->rc; l++) {
        unsigned a = s->arity[l];
        snprintf(f, sizeof f, "%s.path[%zu].hashes", field, l - l0);
        if (!vrd_len(r, a - 1, f)) return;
        for (unsigned i = 0; i + 1 < a; i++) {
            snprintf(f, sizeof f, "%s.path[%zu].hashes[%u]", field, l - l0, i);
            vrd_fr(r, path++, f);
        }
        snprintf(f, sizeof f, "%s.path[%zu].index", field, l - l0);
        uint64_t pos = vrd_u64(r, f);
        if (!r->rc && pos >= a) vrd_fail(r, CUZK_ERR_FORMAT, "%s: %llu, not below the arity %u", f,
                                         (unsigned long long)pos, a);
        *index += pos * *scale;
        *scale *= a;
    }
}

void vrd_mproof(vrd *r, const vshape *s, cuzk_fil_mproof *out, const char *field)
{
    static const char *const names[3] = {"Single", "Sub", "Top"};
    char f[200];
    snprintf(f, sizeof f, "%s.data", field);
    uint32_t tag = vrd_u32(r, f);
    if (r->rc) return;
    if (tag != s->variant) {
        vrd_fail(r, CUZK_ERR_FORMAT, "%s: variant %u, want %u (%s) for tree %u-%u-%u", f, tag, s->variant,
                 names[s->variant], s->tree.base_arity, s->tree.sub_arity, s->tree.top_arity);
        return;
    }
    out->index = 0;
    uint64_t scale = 1;
    size_t off = 0;
    if (tag == 0) {
        snprintf(f, sizeof f, "%s.root", field);
        vrd_fr(r, &out->root, f);
        snprintf(f, sizeof f, "%s.leaf", field);
        vrd_fr(r, &out->leaf, f);
    }
    const char *parts[3] = {"base_proof", "sub_proof", "top_proof"};
    for (unsigned k = 0; k <= tag; k++) {
        size_t count = k == 0 ? s->base_levels : 1, l0 = k == 0 ? 0 : s->base_levels + k - 1;
        char g[200];
        if (tag == 0) snprintf(g, sizeof g, "%s", field);
        else snprintf(g, sizeof g, "%s.%s", field, parts[k]);
        vrd_ipath(r, s, l0, count, out->path + off, &out->index, &scale, g);
        for (size_t l = l0; l < l0 + count; l++) off += s->arity[l] - 1;
    }
    if (tag != 0) {
        snprintf(f, sizeof f, "%s.root", field);
        vrd_fr(r, &out->root, f);
        snprintf(f, sizeof f, "%s.leaf", field);
        vrd_fr(r, &out->leaf, f);
    }
}

static void vwr_ipath(vwr *w, const vshape *s, size_t l0, size_t count, const cuzk_fr *path, uint64_t index)
{
    for (size_t l = 0; l < l0; l++) index /= s->arity[l];
    vwr_u64(w, count);
    for (size_t l = l0; l < l0 + count; l++) {
        unsigned a = s->arity[l];
        vwr_u64(w, a - 1);
        for (unsigned i = 0; i + 1 < a; i++) vwr_fr(w, path++);
        vwr_u64(w, index % a);
        index /= a;
    }
}

void vwr_mproof(vwr *w, const vshape *s, const cuzk_fil_mproof *p)
{
    vwr_u32(w, s->variant);
    if (s->variant == 0) {
        vwr_fr(w, &p->root);
        vwr_fr(w, &p->leaf);
    }
    size_t off = 0;
    for (unsigned k = 0; k <= s->variant; k++) {
        size_t count = k == 0 ? s->base_levels : 1, l0 = k == 0 ? 0 : s->base_levels + k - 1;
        vwr_ipath(w, s, l0, count, p->path + off, p->index);
        for (size_t l = l0; l < l0 + count; l++) off += s->arity[l] - 1;
    }
    if (s->variant != 0) {
        vwr_fr(w, &p->root);
        vwr_fr(w, &p->leaf);
    }
}

bool mproof_ok(const vshape *s, const cuzk_fil_mproof *p)
{
    cuzk_fr root;
    if (p->index >= s->leaves) return false;
    if (cuzk_merkle_path_root(&root, &s->tree, s->leaves, p->index, &p->leaf, p->path) != 0) return false;
    return cuzk_fr_eq(&root, &p->root);
}

void cuzk_fil_comm_r(cuzk_fr *out, const cuzk_fr *comm_c, const cuzk_fr *comm_r_last)
{
    cuzk_fr in[2] = {*comm_c, *comm_r_last};
    cuzk_poseidon_hash(out, 2, in);
}

/* ---- commitments and prover ids -------------------------------------------------------------- */

static int uvarint(const uint8_t *in, size_t len, size_t *off, uint64_t *v)
{
    *v = 0;
    for (unsigned sh = 0; sh < 64 && *off < len; sh += 7) {
        uint8_t b = in[(*off)++];
        *v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

/* A commitment CID's codec and multihash (go-fil-commcid's two pairs). */
static const struct {
    uint64_t codec, mh;
    const char *what;
} comm_cid[2] = {
    [CUZK_FIL_COMM_SEALED] = {0xf102, 0xb401, "a sealed commitment (CommR: fil-commitment-sealed, poseidon)"},
    [CUZK_FIL_COMM_UNSEALED] = {0xf101, 0x1012, "an unsealed commitment (CommD/CommP: fil-commitment-unsealed, "
                                                "sha2-256-trunc254-padded)"},
};

/* The digest of a CIDv1 <codec> <multihash code> <digest length 32> <digest>
 * of the commitment kind, or NULL with err saying what the bytes are. */
static const uint8_t *commitment_cid(const uint8_t *in, size_t len, cuzk_fil_comm_kind kind, const char *name,
                                     char *err, size_t err_len)
{
    size_t off = 0;
    uint64_t ver, codec, mh, dl;
    if (uvarint(in, len, &off, &ver) || uvarint(in, len, &off, &codec) || uvarint(in, len, &off, &mh) ||
        uvarint(in, len, &off, &dl) || ver != 1 || dl != 32 || len - off != 32) {
        snprintf(err, err_len, "%s: %zu bytes, neither 32 raw bytes nor a Filecoin commitment CID", name, len);
        return NULL;
    }
    int is = -1;
    for (int k = 0; k < 2; k++)
        if (codec == comm_cid[k].codec && mh == comm_cid[k].mh) is = k;
    if (is < 0) {
        snprintf(err, err_len, "%s: a CID with codec 0x%llx and multihash 0x%llx, not a Filecoin commitment's "
                 "(0xf102 with 0xb401 sealed, 0xf101 with 0x1012 unsealed)", name, (unsigned long long)codec,
                 (unsigned long long)mh);
        return NULL;
    }
    if (is != (int)kind) {
        snprintf(err, err_len, "%s: the CID of %s, where %s is expected", name, comm_cid[is].what, comm_cid[kind].what);
        return NULL;
    }
    return in + off;
}

int cuzk_fil_commitment(uint8_t out[32], const uint8_t *in, size_t len, cuzk_fil_comm_kind kind, const char *name,
                        char *err, size_t err_len)
{
    if (kind != CUZK_FIL_COMM_SEALED && kind != CUZK_FIL_COMM_UNSEALED) return CUZK_ERR_INVALID_ARG;
    const uint8_t *digest = len == 32 ? in : commitment_cid(in, len, kind, name, err, err_len);
    if (!digest) return CUZK_ERR_FORMAT;
    cuzk_fr t;
    if (cuzk_fr_from_le32(&t, digest) != 0) {
        snprintf(err, err_len, "%s: not a canonical field element", name);
        return CUZK_ERR_NONCANONICAL;
    }
    memcpy(out, digest, 32);
    return 0;
}

/* A CID string's bytes: multibase 'b' (base32) only, the form lotus and curio print. */
static int cid_text(uint8_t **bytes, size_t *len, const char *s, const char *name, char *err, size_t err_len)
{
    size_t n = strlen(s);
    *bytes = s[0] == 'b' && n < 128 ? cuzk_base32_decode(s + 1, n - 1, len) : NULL;
    if (!*bytes)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: \"%.80s\" is neither 64 hex digits nor a CID in base32 "
                         "(\"bagboea4b5abc...\", \"baga6ea4seaq...\")", name, s);
    return 0;
}

int cuzk_fil_commitment_text(uint8_t out[32], const char *s, int sealed, const char *name, char *err,
                             size_t err_len)
{
    const cuzk_fil_comm_kind kind = sealed ? CUZK_FIL_COMM_SEALED : CUZK_FIL_COMM_UNSEALED;
    /* an unsealed CID's text is 64 characters too, never all hex digits ("baga6ea4...") */
    const char *hex = !strncmp(s, "0x", 2) ? s + 2 : s;
    uint8_t raw[32];
    if (strlen(hex) == 64 && !cuzk_hex_decode(raw, 32, hex)) return cuzk_fil_commitment(out, raw, 32, kind, name, err, err_len);
    uint8_t *b;
    size_t len;
    int rc = cid_text(&b, &len, s, name, err, err_len);
    if (rc) return rc;
    /* 32 bytes are never a CID (its prefix alone is 6 or 7): a base32 text of 32 bytes is not one */
    rc = len == 32 ? cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s: \"%.80s\" is not a commitment CID", name, s)
                   : cuzk_fil_commitment(out, b, len, kind, name, err, err_len);
    free(b);
    return rc;
}

void cuzk_fil_prover_id(uint8_t out[32], uint64_t miner_id)
{
    memset(out, 0, 32);
    size_t i = 0;
    do {
        uint8_t b = miner_id & 0x7f;
        miner_id >>= 7;
        out[i++] = b | (miner_id ? 0x80 : 0);
    } while (miner_id);
}

uint64_t cuzk_fil_prover_miner(const uint8_t prover_id[32])
{
    size_t off = 0;
    uint64_t v;
    return uvarint(prover_id, 10, &off, &v) ? 0 : v;
}

uint64_t cuzk_fil_winning_sector_index(const uint8_t randomness[32], uint64_t miner_id, uint64_t sector_set_len)
{
    uint8_t pid[32];
    cuzk_fil_prover_id(pid, miner_id);
    return cuzk_fil_post_sector_challenge(randomness, 0, sector_set_len, pid);
}

int64_t cuzk_fil_update_proof_for_size(uint64_t sector_size)
{
    for (uint64_t id = 0; id < 5; id++)
        if (cuzk_fil_update_proof_sector_size(id) == sector_size) return (int64_t)id;
    return -1;
}
