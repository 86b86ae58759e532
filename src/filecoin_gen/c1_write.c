/* PoRep C1 output written as SealCommitPhase1Output's serde_json (the layout c1_parse.c reads):
 * test inputs from natively sealed sectors, and curio's wrapper around them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/base64.h"
#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/gadgets/merkle.h"
#include "cuzk/filecoin_gen/seal.h"

/* Tree D: binary SHA-256 over the unsealed data. */
static const cuzk_tree_shape TREE_D = {CUZK_TREE_SHA256, 2, 0, 0};

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
    wfrs(w, parents, CUZK_POREP_TOTAL_PARENTS);
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
        wlabel(w, &v->lab_parents[(size_t)l * CUZK_POREP_TOTAL_PARENTS], l + 1, v->node);
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
