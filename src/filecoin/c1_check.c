/* PoRep C1 output: the vanilla verification, every opening and label against public values
 * rebuilt here (replica_id, challenges, commitments), as storage-proofs-porep's verifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/gadgets/merkle.h"
#include "cuzk/util/parallel.h"
#include "cuzk/gadgets/poseidon.h"
#include "filecoin_internal.h"

/* a C1 that does not check out: CUZK_ERR_VERIFY_FAILED and why */
#define vfail(err, cap, ...) cuzk_errf(err, cap, CUZK_ERR_VERIFY_FAILED, __VA_ARGS__)

static int path_ok(const cuzk_tree_shape *s, uint64_t nodes, const cuzk_fil_mproof *m, const cuzk_fr *root)
{
    cuzk_fr r;
    return cuzk_fr_eq(&m->root, root) && !cuzk_merkle_path_root(&r, s, nodes, m->index, &m->leaf, m->path) &&
           cuzk_fr_eq(&r, root);
}

/* What every challenge's check reads. */
typedef struct check_ctx {
    const cuzk_fil_c1 *c1;
    const cuzk_fil_graph *g;
    const uint64_t *chs; /* partitions x challenges */
    cuzk_fr comm_d, comm_c, comm_r_last;
    int *rc;             /* per challenge */
} check_ctx;

/* Challenge q (partition q / challenges, index q % challenges): 0 or
 * CUZK_ERR_VERIFY_FAILED with why in err (err may be NULL). */
static int check_one(const check_ctx *x, size_t q, cuzk_fr *parents, char *err, size_t errcap)
{
    const cuzk_fil_c1 *c1 = x->c1;
    const cuzk_porep_config *c = &c1->cfg;
    const unsigned L = c->layers;
    const cuzk_fil_vproof *v = &c1->proofs[q];
    char where[64];
    snprintf(where, sizeof where, "vanilla_proofs[%zu][%zu]", q / c->challenges, q % c->challenges);
    const uint64_t node = x->chs[q];
    if (v->node != node || v->comm_d.index != node || v->comm_r_last.index != node || v->c_x.index != node ||
        v->c_x.proof.index != node)
        return vfail(err, errcap, "%s: proves node %llu, the challenge is %llu", where, (unsigned long long)v->node,
                     (unsigned long long)node);
    uint32_t par[CUZK_FIL_DEGREE];
    cuzk_fil_graph_parents(x->g, (uint32_t)node, par);
    const cuzk_fil_column *cols[CUZK_FIL_DEGREE + 1];
    cols[0] = &v->c_x;
    for (int j = 0; j < CUZK_FIL_DEGREE; j++) {
        cols[j + 1] = j < 6 ? &v->drg[j] : &v->exp[j - 6];
        if (cols[j + 1]->index != par[j] || cols[j + 1]->proof.index != par[j])
            return vfail(err, errcap, "%s.replica_column_proofs.%s[%d]: column %u, the graph's parent is %u", where,
                         j < 6 ? "drg_parents" : "exp_parents", j < 6 ? j : j - 6, (unsigned)cols[j + 1]->proof.index,
                         par[j]);
    }
    if (!path_ok(&fil_c1_tree_d, c->nodes, &v->comm_d, &x->comm_d))
        return vfail(err, errcap, "%s.comm_d_proofs: does not open comm_d", where);
    if (!path_ok(&c->tree, c->nodes, &v->comm_r_last, &x->comm_r_last))
        return vfail(err, errcap, "%s.comm_r_last_proof: does not open comm_r_last", where);
    cuzk_fr t;
    for (int j = 0; j <= CUZK_FIL_DEGREE; j++) {
        cuzk_poseidon_hash(&t, L, cols[j]->rows);
        if (!cuzk_fr_eq(&t, &cols[j]->proof.leaf) || !path_ok(&c->tree, c->nodes, &cols[j]->proof, &x->comm_c))
            return vfail(err, errcap, "%s.replica_column_proofs: column %u does not open comm_c", where,
                         (unsigned)cols[j]->index);
    }
    for (unsigned l = 1; l <= L; l++) {
        cuzk_fr drg[6], exp[8];
        for (int j = 0; j < 6; j++) drg[j] = v->drg[j].rows[l - 1];
        for (int j = 0; j < 8; j++) exp[j] = l > 1 ? v->exp[j].rows[l - 2] : cuzk_fr_zero;
        cuzk_porep_expand_parents(parents, l, drg, exp);
        if (memcmp(parents, &v->lab_parents[(size_t)(l - 1) * FIL_C1_NPAR], sizeof(cuzk_fr) * FIL_C1_NPAR))
            return vfail(err, errcap, "%s.labeling_proofs[%u].parents: not the parent columns' labels", where, l - 1);
        cuzk_porep_label(&t, &c1->replica_id_fr, l, node, parents);
        if (!cuzk_fr_eq(&t, &v->c_x.rows[l - 1]))
            return vfail(err, errcap, "%s.labeling_proofs[%u]: the label of node %llu is wrong", where, l - 1,
                         (unsigned long long)node);
    }
    if (memcmp(v->enc_parents, &v->lab_parents[(size_t)(L - 1) * FIL_C1_NPAR], sizeof(cuzk_fr) * FIL_C1_NPAR))
        return vfail(err, errcap, "%s.encoding_proof.parents: differ from the last layer's", where);
    cuzk_fr_add(&t, &v->c_x.rows[L - 1], &v->comm_d.leaf);
    if (!cuzk_fr_eq(&t, &v->comm_r_last.leaf))
        return vfail(err, errcap, "%s.comm_r_last_proof.leaf: not the encoding of the data", where);
    return 0;
}

static void check_range(void *arg, unsigned worker, size_t lo, size_t hi)
{
    const check_ctx *x = arg;
    cuzk_fr *parents = malloc(sizeof(cuzk_fr) * FIL_C1_NPAR);
    for (size_t q = lo; q < hi; q++) x->rc[q] = parents ? check_one(x, q, parents, NULL, 0) : CUZK_ERR_NO_MEMORY;
    free(parents);
}

int cuzk_fil_c1_check(cuzk_fil_c1 *c1, uint64_t registered_proof, uint64_t miner_id, uint64_t sector_id, char *err,
                      size_t errcap)
{
    return cuzk_fil_c1_check_threads(c1, registered_proof, miner_id, sector_id, 1, err, errcap);
}

int cuzk_fil_c1_check_threads(cuzk_fil_c1 *c1, uint64_t registered_proof, uint64_t miner_id, uint64_t sector_id,
                              unsigned nthreads, char *err, size_t errcap)
{
    if (!c1) return CUZK_ERR_INVALID_ARG;
    c1->checked = 0;
    const cuzk_porep_config *c = &c1->cfg;
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
    const size_t nq = (size_t)c->partitions * c->challenges;
    check_ctx x = {c1, &g, NULL, comm_d, comm_c, comm_r_last, NULL};
    uint64_t *chs = malloc(sizeof(uint64_t) * nq);
    int *rcs = calloc(nq, sizeof *rcs);
    cuzk_fr *parents = malloc(sizeof(cuzk_fr) * FIL_C1_NPAR);
    int rc = chs && rcs && parents ? 0 : CUZK_ERR_NO_MEMORY;
    for (unsigned k = 0; k < c->partitions && !rc; k++)
        if (cuzk_fil_porep_partition_challenges(chs + (size_t)k * c->challenges, c1->rp, c, c1->replica_id, c1->comm_r,
                                           c1->seed, k))
            rc = vfail(err, errcap, "challenges of partition %u could not be derived", k);
    if (!rc) {
        /* the challenges are independent: checked on nthreads, and the
         * first that fails, in file order, checked again for its message */
        x.chs = chs, x.rc = rcs;
        cuzk_parallel_for(nq, 0, nthreads ? nthreads : 1, check_range, &x);
        for (size_t q = 0; q < nq && !rc; q++)
            if (rcs[q]) rc = rcs[q] == CUZK_ERR_NO_MEMORY ? rcs[q] : check_one(&x, q, parents, err, errcap);
    }
    free(chs);
    free(rcs);
    free(parents);
    if (rc) return rc;
    c1->comm_d_fr = comm_d;
    c1->comm_r_fr = comm_r;
    c1->comm_c_fr = comm_c;
    c1->comm_r_last_fr = comm_r_last;
    c1->checked = 1;
    return CUZK_OK;
}
