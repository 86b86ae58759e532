/* PoRep C1 output (SealCommitPhase1Output; docs/filecoin.md gives the sources): the object,
 * its allocation, and what the circuit takes from a checked one (witness, public inputs).
 * Parsing: c1_parse.c; the vanilla verification: c1_check.c; writing (test inputs):
 * src/filecoin_gen/c1_write.c. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/gadgets/merkle.h"
#include "filecoin_internal.h"

const cuzk_tree_shape fil_c1_tree_d = {CUZK_TREE_SHA256, 2, 0, 0};

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

size_t cuzk_fil_c1_path_d(const cuzk_porep_config *cfg) { return cuzk_tree_path_len(&fil_c1_tree_d, cfg->nodes); }
size_t cuzk_fil_c1_path_r(const cuzk_porep_config *cfg) { return cuzk_tree_path_len(&cfg->tree, cfg->nodes); }

static size_t per_proof(const cuzk_porep_config *c)
{
    size_t pr = cuzk_fil_c1_path_r(c);
    return cuzk_fil_c1_path_d(c) + pr + FIL_C1_NCOL * (c->layers + pr) + (size_t)(c->layers + 1) * FIL_C1_NPAR;
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
        for (unsigned j = 0; j < FIL_C1_NCOL; j++) {
            cuzk_fil_column *col = j == 0 ? &v->c_x : j <= 6 ? &v->drg[j - 1] : &v->exp[j - 7];
            col->rows = p, p += L;
            col->proof.path = p, p += pr;
        }
        v->lab_parents = p, p += L * FIL_C1_NPAR;
        v->enc_parents = p, p += FIL_C1_NPAR;
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

/* The challenged nodes of partition k and their parents: what the public inputs read of a witness. */
static int porep_challenge_nodes(cuzk_porep_challenge *ch, const cuzk_fil_seal_proof *rp, const cuzk_porep_config *c,
                                 const uint8_t porep_id[32], const uint8_t replica_id[32],
                                 const cuzk_fil_seal_values *v, unsigned k)
{
    cuzk_fil_graph g;
    uint64_t *nodes = malloc(sizeof *nodes * c->challenges);
    int rc = nodes ? 0 : CUZK_ERR_NO_MEMORY;
    if (!rc && (cuzk_fil_graph_init(&g, c->nodes, porep_id, rp->api_version) ||
                cuzk_fil_porep_partition_challenges(nodes, rp, c, replica_id, v->comm_r, v->seed, k)))
        rc = CUZK_ERR_INVALID_ARG;
    for (unsigned i = 0; !rc && i < c->challenges; i++) {
        uint32_t par[CUZK_FIL_DEGREE];
        cuzk_fil_graph_parents(&g, (uint32_t)nodes[i], par);
        ch[i].node = nodes[i];
        for (int j = 0; j < CUZK_POREP_BASE_DEGREE; j++) ch[i].drg[j].node = par[j];
        for (int j = 0; j < CUZK_POREP_EXP_DEGREE; j++) ch[i].exp[j].node = par[CUZK_POREP_BASE_DEGREE + j];
    }
    free(nodes);
    return rc;
}

int cuzk_fil_porep_public_inputs(cuzk_fr *out, const cuzk_fil_seal_values *v, unsigned k)
{
    const cuzk_fil_seal_proof *rp = cuzk_fil_seal_proof_get(v->registered_proof);
    cuzk_porep_config c;
    if (!rp || cuzk_porep_config_for(&c, rp->sector_size, rp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE) ||
        k >= c.partitions)
        return CUZK_ERR_INVALID_ARG;
    cuzk_porep_witness w = {0};
    if (cuzk_fr_from_le32(&w.comm_d, v->comm_d) || cuzk_fr_from_le32(&w.comm_r, v->comm_r))
        return CUZK_ERR_NONCANONICAL;
    uint8_t porep_id[32], rid[32];
    cuzk_fil_porep_id(porep_id, rp->id, 0);
    cuzk_fil_replica_id(rid, v->prover_id, v->sector_id, v->ticket, v->comm_d, porep_id);
    cuzk_fr_from_le32(&w.replica_id, rid); /* canonical: its top two bits are cleared */
    cuzk_porep_challenge *ch = calloc(c.challenges, sizeof *ch);
    int rc = ch ? porep_challenge_nodes(ch, rp, &c, porep_id, rid, v, k) : CUZK_ERR_NO_MEMORY;
    w.challenges = ch;
    if (!rc) cuzk_porep_public_inputs(out, &c, &w);
    free(ch);
    return rc;
}
