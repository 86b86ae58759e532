/*
 * The StackedDrg PoRep partition circuit (storage-proofs-porep
 * stacked/circuit/proof.rs and params.rs of rust-fil-proofs v19): the same
 * allocations and constraints in the same order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/gadgets/poseidon.h"

int cuzk_porep_config_for(cuzk_porep_config *out, uint64_t sector_size, bool non_interactive)
{
    /* filecoin-proofs constants.rs: shapes, LAYERS, POREP_PARTITIONS, minimum challenges */
    static const struct {
        uint64_t size;
        unsigned sub, top, layers, partitions, min_challenges;
    } T[] = {
        {1ull << 11, 0, 0, 2, 1, 2},   {1ull << 12, 2, 0, 2, 1, 2},   {1ull << 14, 8, 0, 2, 1, 2},
        {1ull << 15, 8, 2, 2, 1, 2},   {1ull << 23, 0, 0, 2, 1, 2},   {1ull << 24, 2, 0, 2, 1, 2},
        {1ull << 29, 0, 0, 2, 1, 2},   {1ull << 30, 2, 0, 2, 1, 2},   {1ull << 35, 8, 0, 11, 10, 176},
        {1ull << 36, 8, 2, 11, 10, 176},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        if (T[i].size != sector_size) continue;
        bool big = T[i].layers == 11;
        unsigned parts = non_interactive ? (big ? 126 : 13) : T[i].partitions;
        unsigned minc = non_interactive ? (big ? 2253 : 26) : T[i].min_challenges;
        *out = (cuzk_porep_config){
            .sector_size = sector_size,
            .nodes = sector_size / 32,
            .layers = T[i].layers,
            .partitions = parts,
            .challenges = (minc + parts - 1) / parts,
            .tree = {CUZK_TREE_POSEIDON, 8, T[i].sub, T[i].top},
        };
        return 0;
    }
    return CUZK_ERR_INVALID_ARG;
}

size_t cuzk_porep_num_inputs(const cuzk_porep_config *cfg)
{
    return 4 + (size_t)(2 + CUZK_POREP_BASE_DEGREE + CUZK_POREP_EXP_DEGREE + 2) * cfg->challenges;
}

void cuzk_comm_r_circuit(cuzk_cs *cs, const char *name, const cuzk_num *comm_r, const cuzk_num *comm_c,
                         const cuzk_num *comm_r_last)
{
    cuzk_num pair[2] = {*comm_c, *comm_r_last};
    cuzk_fr tag;
    cuzk_poseidon_tag_merkle(&tag, 2);
    cuzk_cs_push_ns(cs, "H_comm_c_comm_r_last");
    cuzk_num h = cuzk_poseidon_hash_circuit(cs, 2, &tag, pair);
    cuzk_cs_pop_ns(cs);
    cuzk_num_enforce_equal(cs, name, comm_r, &h);
}

/* enforce_inclusion: PoRCircuit with allocated leaf and root, private root. */
static void inclusion(cuzk_cs *cs, const char *ns, const cuzk_tree_shape *shape, uint64_t leaves,
                      uint64_t index, const cuzk_fr *path, const cuzk_num *root, const cuzk_num *leaf)
{
    cuzk_por_io io = {.shape = *shape,
                      .leaves = leaves,
                      .challenge = index,
                      .siblings = path,
                      .leaf = leaf,
                      .root = root,
                      .private_root = true};
    cuzk_cs_push_ns(cs, "%s", ns);
    cuzk_por_circuit(cs, &io);
    cuzk_cs_pop_ns(cs);
}

static cuzk_num column_hash(cuzk_cs *cs, const cuzk_num *rows, unsigned layers)
{
    cuzk_fr tag;
    cuzk_poseidon_tag_merkle(&tag, layers);
    return cuzk_poseidon_hash_circuit(cs, layers, &tag, rows);
}

/* Column::alloc ("column/column_num_row_j"), its hash and its inclusion in tree C. */
static void parent_column(cuzk_cs *cs, const cuzk_porep_config *cfg, const char *kind, unsigned i,
                          const cuzk_porep_column *col, const cuzk_num *comm_c, cuzk_num *rows)
{
    cuzk_cs_push_ns(cs, "%s_parent_%u_num", kind, i);
    cuzk_cs_push_ns(cs, "column");
    for (unsigned j = 0; j < cfg->layers; j++) {
        cuzk_cs_push_ns(cs, "column_num_row_%u", j);
        rows[j] = cuzk_num_alloc(cs, col ? &col->rows[j] : &cuzk_fr_zero);
        cuzk_cs_pop_ns(cs);
    }
    cuzk_cs_pop_ns(cs);
    cuzk_cs_pop_ns(cs);
    cuzk_cs_push_ns(cs, "%s_parent_%u_constraint", kind, i);
    cuzk_num h = column_hash(cs, rows, cfg->layers);
    cuzk_cs_pop_ns(cs);
    char ns[48];
    snprintf(ns, sizeof ns, "%s_parent_%u_inclusion", kind, i);
    inclusion(cs, ns, &cfg->tree, cfg->nodes, col ? col->node : 0, col ? col->path : NULL, comm_c, &h);
}

/* to_bits_le of a parent's label, renumbered as bytes MSB first. */
static void parent_bits(cuzk_cs *cs, const char *kind, size_t k, const cuzk_num *v, cuzk_bool out[256])
{
    cuzk_bool le[CUZK_FR_NUM_BITS];
    cuzk_cs_push_ns(cs, "%s_parent_%zu_bits", kind, k);
    cuzk_num_to_bits_le(cs, v, le);
    cuzk_cs_pop_ns(cs);
    cuzk_reverse_bit_numbering(out, le);
}

typedef struct shared {
    cuzk_num comm_d, comm_c, comm_r_last;
    cuzk_bool replica_id[256];
} shared;

static const cuzk_tree_shape TREE_D = {CUZK_TREE_SHA256, 2, 0, 0};

static int challenge_proof(cuzk_cs *cs, const cuzk_porep_config *cfg, const shared *sh,
                           const cuzk_porep_challenge *pr)
{
    const unsigned L = cfg->layers, nd = CUZK_POREP_BASE_DEGREE, ne = CUZK_POREP_EXP_DEGREE;
    cuzk_num *drg = malloc(sizeof(cuzk_num) * L * (nd + ne)), *exp = drg ? drg + (size_t)L * nd : NULL;
    cuzk_num *labels = malloc(sizeof(cuzk_num) * L);
    cuzk_bool *pbits = malloc(sizeof(cuzk_bool) * 256 * (nd + ne));
    if (!drg || !labels || !pbits) {
        free(drg);
        free(labels);
        free(pbits);
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_num data_leaf = cuzk_num_alloc_ns(cs, "data_leaf", pr ? &pr->data_leaf : &cuzk_fr_zero);
    inclusion(cs, "comm_d_inclusion", &TREE_D, cfg->nodes, pr ? pr->node : 0, pr ? pr->comm_d_path : NULL,
              &sh->comm_d, &data_leaf);
    for (unsigned i = 0; i < nd; i++)
        parent_column(cs, cfg, "drg", i, pr ? &pr->drg[i] : NULL, &sh->comm_c, &drg[(size_t)i * L]);
    for (unsigned i = 0; i < ne; i++)
        parent_column(cs, cfg, "exp", i, pr ? &pr->exp[i] : NULL, &sh->comm_c, &exp[(size_t)i * L]);

    /* the challenge: UInt64::alloc ("allocated bit i") packed into one input */
    uint64_t node = pr ? pr->node : 0;
    cuzk_bool nbits[64];
    cuzk_cs_push_ns(cs, "challenge");
    for (unsigned i = 0; i < 64; i++) {
        cuzk_cs_push_ns(cs, "allocated bit %u", i);
        nbits[i] = cuzk_bool_alloc(cs, (node >> i) & 1);
        cuzk_cs_pop_ns(cs);
    }
    cuzk_cs_pop_ns(cs);
    cuzk_cs_push_ns(cs, "challenge input");
    cuzk_pack_into_inputs(cs, nbits, 64);
    cuzk_cs_pop_ns(cs);

    for (unsigned layer = 1; layer <= L; layer++) {
        cuzk_cs_push_ns(cs, "labeling_%u", layer);
        size_t np = 0;
        for (unsigned i = 0; i < nd; i++, np++)
            parent_bits(cs, "drg", np, &drg[(size_t)i * L + layer - 1], &pbits[256 * np]);
        if (layer > 1)
            for (unsigned i = 0; i < ne; i++, np++)
                parent_bits(cs, "exp", np, &exp[(size_t)i * L + layer - 2], &pbits[256 * np]);
        const cuzk_bool *expanded[CUZK_POREP_TOTAL_PARENTS];
        for (unsigned i = 0; i < CUZK_POREP_TOTAL_PARENTS; i++) expanded[i] = &pbits[256 * (i % np)];
        cuzk_cs_push_ns(cs, "create_label");
        labels[layer - 1] = cuzk_porep_label_circuit(cs, sh->replica_id, expanded, layer, nbits);
        cuzk_cs_pop_ns(cs);
        cuzk_cs_pop_ns(cs);
    }

    cuzk_cs_push_ns(cs, "encode_node");
    cuzk_num encoded = cuzk_porep_encode_circuit(cs, &labels[L - 1], &data_leaf);
    cuzk_cs_pop_ns(cs);
    inclusion(cs, "comm_r_last_data_inclusion", &cfg->tree, cfg->nodes, node, pr ? pr->comm_r_last_path : NULL,
              &sh->comm_r_last, &encoded);

    cuzk_cs_push_ns(cs, "c_x_column_hash");
    cuzk_num ch = column_hash(cs, labels, L);
    cuzk_cs_pop_ns(cs);
    inclusion(cs, "c_x_inclusion", &cfg->tree, cfg->nodes, node, pr ? pr->comm_c_path : NULL, &sh->comm_c, &ch);
    free(drg);
    free(labels);
    free(pbits);
    return cuzk_cs_error(cs);
}

typedef struct seg_ctx {
    const cuzk_porep_config *cfg;
    const shared *sh;
    const cuzk_porep_witness *w;
} seg_ctx;

static int challenge_segment(cuzk_cs *cs, size_t i, void *vctx)
{
    const seg_ctx *c = vctx;
    cuzk_cs_push_ns(cs, "challenge_%zu", i);
    int e = challenge_proof(cs, c->cfg, c->sh, c->w ? &c->w->challenges[i] : NULL);
    cuzk_cs_pop_ns(cs);
    return e;
}

int cuzk_porep_circuit(cuzk_cs *cs, const cuzk_porep_config *cfg, const cuzk_porep_witness *w)
{
    return cuzk_porep_circuit_threads(cs, cfg, w, 1);
}

int cuzk_porep_circuit_threads(cuzk_cs *cs, const cuzk_porep_config *cfg, const cuzk_porep_witness *w,
                               unsigned nthreads)
{
    if (!cfg || cfg->layers < 1 || cfg->layers > CUZK_POSEIDON_MAX_ARITY || cfg->challenges < 1 ||
        !cuzk_tree_levels(&cfg->tree, cfg->nodes) || !cuzk_tree_levels(&TREE_D, cfg->nodes)) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    const cuzk_fr *z = &cuzk_fr_zero;
    shared sh;
    cuzk_num replica_id = cuzk_num_alloc_ns(cs, "replica_id", w ? &w->replica_id : z);
    cuzk_num_inputize_ns(cs, "replica_id_input", &replica_id);
    cuzk_bool le[CUZK_FR_NUM_BITS];
    cuzk_cs_push_ns(cs, "replica_id_bits");
    cuzk_num_to_bits_le(cs, &replica_id, le);
    cuzk_cs_pop_ns(cs);
    cuzk_reverse_bit_numbering(sh.replica_id, le);

    sh.comm_d = cuzk_num_alloc_ns(cs, "comm_d", w ? &w->comm_d : z);
    cuzk_num_inputize_ns(cs, "comm_d_input", &sh.comm_d);
    cuzk_num comm_r = cuzk_num_alloc_ns(cs, "comm_r", w ? &w->comm_r : z);
    cuzk_num_inputize_ns(cs, "comm_r_input", &comm_r);
    sh.comm_r_last = cuzk_num_alloc_ns(cs, "comm_r_last", w ? &w->comm_r_last : z);
    sh.comm_c = cuzk_num_alloc_ns(cs, "comm_c", w ? &w->comm_c : z);

    cuzk_comm_r_circuit(cs, "enforce comm_r = H(comm_c || comm_r_last)", &comm_r, &sh.comm_c, &sh.comm_r_last);

    /* challenges only share the variables above: one fork each when threaded */
    seg_ctx ctx = {cfg, &sh, w};
    /* every partition of a config has the same shape: segments in place */
    const uint64_t shape[] = {cfg->sector_size, cfg->nodes,          cfg->layers,         cfg->partitions,
                              cfg->challenges,  cfg->tree.hash,      cfg->tree.base_arity, cfg->tree.sub_arity,
                              cfg->tree.top_arity};
    if (!cuzk_cs_error(cs))
        cuzk_cs_synthesize_parallel_keyed(cs, cfg->challenges, challenge_segment, &ctx, nthreads, true,
                                          cuzk_cs_shape_key(shape, sizeof shape / sizeof *shape));
    return cuzk_cs_error(cs);
}

size_t cuzk_porep_public_inputs(cuzk_fr *out, const cuzk_porep_config *cfg, const cuzk_porep_witness *w)
{
    size_t k = 0;
    out[k++] = w->replica_id;
    out[k++] = w->comm_d;
    out[k++] = w->comm_r;
    for (unsigned i = 0; i < cfg->challenges; i++) {
        const cuzk_porep_challenge *c = &w->challenges[i];
        /* every inclusion proof's input is its packed path bits = the leaf index */
        cuzk_fr_set_u64(&out[k++], c->node);
        for (unsigned j = 0; j < CUZK_POREP_BASE_DEGREE; j++) cuzk_fr_set_u64(&out[k++], c->drg[j].node);
        for (unsigned j = 0; j < CUZK_POREP_EXP_DEGREE; j++) cuzk_fr_set_u64(&out[k++], c->exp[j].node);
        cuzk_fr_set_u64(&out[k++], c->node);
        cuzk_fr_set_u64(&out[k++], c->node);
        cuzk_fr_set_u64(&out[k++], c->node);
    }
    return k;
}
