/*
 * FallbackPoSt partition circuit (storage-proofs-post fallback/circuit.rs and
 * compound.rs of rust-fil-proofs v19): the same allocations and constraints
 * in the same order.
 */
#include <stdlib.h>

#include "cuzk/util/error.h"
#include "cuzk/circuits/post.h"
#include "cuzk/circuits/porep.h"

int cuzk_post_config_for(cuzk_post_config *out, uint64_t sector_size, cuzk_post_kind kind)
{
    /* filecoin-proofs constants.rs: tree shapes and WINDOW_POST_SECTOR_COUNT */
    static const struct {
        uint64_t size;
        unsigned sub, top, window_sectors;
    } T[] = {
        {1ull << 11, 0, 0, 2}, {1ull << 12, 2, 0, 2}, {1ull << 14, 8, 0, 2},    {1ull << 15, 8, 2, 2},
        {1ull << 23, 0, 0, 2}, {1ull << 24, 2, 0, 2}, {1ull << 29, 0, 0, 2},    {1ull << 30, 2, 0, 2},
        {1ull << 35, 8, 0, 2349}, {1ull << 36, 8, 2, 2300},
    };
    if (kind != CUZK_POST_WINDOW && kind != CUZK_POST_WINNING) return CUZK_ERR_INVALID_ARG;
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        if (T[i].size != sector_size) continue;
        *out = (cuzk_post_config){
            .sector_size = sector_size,
            .nodes = sector_size / 32,
            /* WINDOW_POST_CHALLENGE_COUNT 10; WinningPoSt: WINNING_POST_CHALLENGE_COUNT 66 over
             * WINNING_POST_SECTOR_COUNT 1 becomes 66 slots of 1 challenge */
            .sectors = kind == CUZK_POST_WINDOW ? T[i].window_sectors : 66,
            .challenges = kind == CUZK_POST_WINDOW ? 10 : 1,
            .tree = {CUZK_TREE_POSEIDON, 8, T[i].sub, T[i].top},
        };
        return 0;
    }
    return CUZK_ERR_INVALID_ARG;
}

size_t cuzk_post_num_inputs(const cuzk_post_config *cfg)
{
    return 1 + (size_t)cfg->sectors * (1 + cfg->challenges);
}

/* Slot i's sector: the witness's, the last one for padding slots, NULL when blank. */
static const cuzk_post_sector *slot_sector(const cuzk_post_witness *w, size_t i)
{
    if (!w) return NULL;
    return &w->sectors[i < w->num_sectors ? i : w->num_sectors - 1];
}

/* Sector::synthesize */
static int sector_circuit(cuzk_cs *cs, const cuzk_post_config *cfg, const cuzk_post_sector *s)
{
    const cuzk_fr *z = &cuzk_fr_zero;
    cuzk_num comm_r_last = cuzk_num_alloc_ns(cs, "comm_r_last", s ? &s->comm_r_last : z);
    cuzk_num comm_c = cuzk_num_alloc_ns(cs, "comm_c", s ? &s->comm_c : z);
    cuzk_num comm_r = cuzk_num_alloc_ns(cs, "comm_r", s ? &s->comm_r : z);
    cuzk_cs_push_ns(cs, "comm_r_input");
    cuzk_num_inputize(cs, &comm_r);
    cuzk_cs_pop_ns(cs);

    cuzk_comm_r_circuit(cs, "enforce_comm_c_comm_r_last_hash_comm_r", &comm_r, &comm_c, &comm_r_last);

    size_t plen = cuzk_tree_path_len(&cfg->tree, cfg->nodes);
    for (unsigned j = 0; j < cfg->challenges && !cuzk_cs_error(cs); j++) {
        cuzk_por_io io = {.shape = cfg->tree,
                          .leaves = cfg->nodes,
                          .challenge = s ? s->challenges[j] : 0,
                          .siblings = s ? &s->paths[plen * j] : NULL,
                          .leaf = NULL,
                          .leaf_value = s ? s->leaves[j] : cuzk_fr_zero,
                          .root = &comm_r_last,
                          .private_root = true};
        cuzk_cs_push_ns(cs, "challenge_inclusion_%u", j);
        cuzk_por_circuit(cs, &io);
        cuzk_cs_pop_ns(cs);
    }
    return cuzk_cs_error(cs);
}

typedef struct group_ctx {
    const cuzk_post_config *cfg;
    const cuzk_post_witness *w;
    size_t group; /* slots per segment */
} group_ctx;

static int slot_group(cuzk_cs *cs, size_t g, void *vctx)
{
    const group_ctx *c = vctx;
    size_t end = (g + 1) * c->group < c->cfg->sectors ? (g + 1) * c->group : c->cfg->sectors;
    for (size_t i = g * c->group; i < end; i++) {
        cuzk_cs_push_ns(cs, "sector_%zu", i);
        int e = sector_circuit(cs, c->cfg, slot_sector(c->w, i));
        cuzk_cs_pop_ns(cs);
        if (e) return e;
    }
    return 0;
}

int cuzk_post_circuit(cuzk_cs *cs, const cuzk_post_config *cfg, const cuzk_post_witness *w, unsigned nthreads)
{
    if (!cfg || cfg->sectors < 1 || cfg->challenges < 1 || !cuzk_tree_levels(&cfg->tree, cfg->nodes) ||
        (w && (w->num_sectors < 1 || w->num_sectors > cfg->sectors || !w->sectors))) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    nthreads = cuzk_cs_threads(cs, nthreads);
    /* synthesize_extendable: chunks of max(sectors / cpus, 1) slots, each in a fresh system */
    group_ctx ctx = {cfg, w, cfg->sectors / nthreads ? cfg->sectors / nthreads : 1};
    size_t groups = (cfg->sectors + ctx.group - 1) / ctx.group;
    if (nthreads == 1) {
        cuzk_cs_push_ns(cs, "outer namespace");
        slot_group(cs, 0, &ctx);
        cuzk_cs_pop_ns(cs);
        return cuzk_cs_error(cs);
    }
    const uint64_t shape[] = {cfg->sector_size,   cfg->nodes,          cfg->sectors,        cfg->challenges,
                              cfg->tree.hash,     cfg->tree.base_arity, cfg->tree.sub_arity, cfg->tree.top_arity,
                              ctx.group};
    return cuzk_cs_synthesize_parallel_keyed(cs, groups, slot_group, &ctx, nthreads, false,
                                             cuzk_cs_shape_key(shape, sizeof shape / sizeof *shape));
}

size_t cuzk_post_public_inputs(cuzk_fr *out, const cuzk_post_config *cfg, const cuzk_post_witness *w)
{
    size_t k = 0;
    for (size_t i = 0; i < cfg->sectors; i++) {
        const cuzk_post_sector *s = slot_sector(w, i);
        out[k++] = s->comm_r;
        /* each PoR's input is its packed path bits = the leaf index */
        for (unsigned j = 0; j < cfg->challenges; j++) cuzk_fr_set_u64(&out[k++], s->challenges[j]);
    }
    return k;
}
