/* PoSt vanilla proofs: parse, encode, challenges, public inputs, jobs (fil_vanilla.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "filecoin_internal.h"
#include "vanilla_internal.h"

static cuzk_post_kind post_kind(const cuzk_fil_post_proof *p)
{
    return p->kind == CUZK_FIL_POST_WINNING ? CUZK_POST_WINNING : CUZK_POST_WINDOW;
}

unsigned cuzk_fil_post_vanilla_challenges(const cuzk_fil_post_proof *p)
{
    /* WinningPoSt's one sector proof holds all 66 challenges (circuit: 66 slots of 1) */
    return p->kind == CUZK_FIL_POST_WINNING ? p->challenge_count * p->sector_count : p->challenge_count;
}

void cuzk_fil_post_vanilla_free(cuzk_fil_post_vanilla *v)
{
    free(v->proofs);
    free(v->store);
    memset(v, 0, sizeof *v);
}

static int post_alloc(cuzk_fil_post_vanilla *v, unsigned n, size_t plen)
{
    v->num_proofs = n;
    v->proofs = calloc(n, sizeof *v->proofs);
    v->store = malloc(sizeof(cuzk_fr) * n * plen + 1);
    if (!v->proofs || !v->store) return CUZK_ERR_NO_MEMORY;
    for (unsigned i = 0; i < n; i++) v->proofs[i].path = v->store + (size_t)i * plen;
    return 0;
}

int cuzk_fil_post_vanilla_alloc(cuzk_fil_post_vanilla *v, uint64_t post_proof_id)
{
    memset(v, 0, sizeof *v);
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(post_proof_id);
    vshape s;
    if (!p || vshape_tree_r(&s, p->sector_size)) return CUZK_ERR_INVALID_ARG;
    int rc = post_alloc(v, cuzk_fil_post_vanilla_challenges(p), s.path_len);
    if (rc) cuzk_fil_post_vanilla_free(v);
    return rc;
}

int cuzk_fil_post_vanilla_parse(cuzk_fil_post_vanilla *out, uint64_t post_proof_id, const uint8_t *buf,
                                size_t len, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(post_proof_id);
    vshape s;
    if (!p || vshape_tree_r(&s, p->sector_size)) {
        snprintf(err, err_len, "registered_proof: %llu is not a PoSt proof", (unsigned long long)post_proof_id);
        return CUZK_ERR_INVALID_ARG;
    }
    vrd r = {buf, len, 0, 0, err, err_len};
    out->sector_id = vrd_u64(&r, "sector_id");
    vrd_fr(&r, &out->comm_r, "comm_r");
    vrd_len(&r, 1, "vanilla_proof.sectors");
    unsigned nc = cuzk_fil_post_vanilla_challenges(p);
    if (vrd_len(&r, nc, "vanilla_proof.sectors[0].inclusion_proofs")) {
        if (post_alloc(out, nc, s.path_len)) {
            cuzk_fil_post_vanilla_free(out);
            snprintf(err, err_len, "out of memory");
            return CUZK_ERR_NO_MEMORY;
        }
        for (unsigned i = 0; i < nc && !r.rc; i++) {
            char f[96];
            snprintf(f, sizeof f, "vanilla_proof.sectors[0].inclusion_proofs[%u]", i);
            vrd_mproof(&r, &s, &out->proofs[i], f);
        }
    }
    vrd_fr(&r, &out->comm_c, "vanilla_proof.sectors[0].comm_c");
    vrd_fr(&r, &out->comm_r_last, "vanilla_proof.sectors[0].comm_r_last");
    vrd_end(&r);
    if (r.rc) cuzk_fil_post_vanilla_free(out);
    return r.rc;
}

int cuzk_fil_post_vanilla_encode(uint8_t **out, size_t *len, uint64_t post_proof_id, const cuzk_fil_post_vanilla *v)
{
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(post_proof_id);
    vshape s;
    if (!p || vshape_tree_r(&s, p->sector_size)) return CUZK_ERR_INVALID_ARG;
    vwr w = {0};
    vwr_u64(&w, v->sector_id);
    vwr_fr(&w, &v->comm_r);
    vwr_u64(&w, 1);
    vwr_u64(&w, v->num_proofs);
    for (unsigned i = 0; i < v->num_proofs; i++) vwr_mproof(&w, &s, &v->proofs[i]);
    vwr_fr(&w, &v->comm_c);
    vwr_fr(&w, &v->comm_r_last);
    return vwr_finish(&w, out, len);
}

void cuzk_fil_post_sector_challenges(uint64_t *out, const cuzk_fil_post_proof *p, const uint8_t randomness[32],
                                     uint64_t sector_id, uint64_t sector_index)
{
    /* generate_fallback_sector_challenges: the vanilla view (Winning: one sector, 66 challenges) */
    unsigned nc = cuzk_fil_post_vanilla_challenges(p);
    for (unsigned n = 0; n < nc; n++) {
        uint64_t ci = cuzk_fil_post_challenge_index(p->api_version, sector_index, nc, n);
        out[n] = cuzk_fil_post_leaf_challenge(randomness, sector_id, ci, p->sector_size / 32);
    }
}

int cuzk_fil_post_public_inputs(cuzk_fr *out, uint64_t post_proof_id, const uint8_t randomness[32],
                                uint32_t partition_index, const uint64_t *sector_ids, const cuzk_fr *comm_rs, size_t n)
{
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(post_proof_id);
    cuzk_post_config cfg;
    if (!p || cuzk_post_config_for(&cfg, p->sector_size, post_kind(p)) || n == 0) return CUZK_ERR_INVALID_ARG;
    bool winning = p->kind == CUZK_FIL_POST_WINNING;
    if (winning ? n != 1 : n > cfg.sectors) return CUZK_ERR_INVALID_ARG;
    /* FallbackPoStCompound::generate_public_inputs over the circuit's view (Winning: 66 slots
     * of the same sector, 1 challenge each); short partitions repeat the last sector */
    size_t k = 0;
    for (unsigned slot = 0; slot < cfg.sectors; slot++) {
        size_t i = winning ? 0 : slot < n ? slot : n - 1;
        uint64_t sector_index = (uint64_t)partition_index * cfg.sectors + (winning ? slot : i);
        out[k++] = comm_rs[i];
        for (unsigned c = 0; c < cfg.challenges; c++) {
            uint64_t ci = cuzk_fil_post_challenge_index(p->api_version, sector_index, cfg.challenges, c);
            cuzk_fr_set_u64(&out[k++], cuzk_fil_post_leaf_challenge(randomness, sector_ids[i], ci, cfg.nodes));
        }
    }
    return 0;
}

void cuzk_fil_post_partition_free(cuzk_fil_post_partition *job)
{
    for (size_t i = 0; i < job->nv; i++) cuzk_fil_post_vanilla_free(&job->v[i]);
    free(job->v);
    free(job->slots);
    free(job->challenges);
    free(job->leaves);
    free(job->inputs);
    free(job->sector_ids);
    free(job->comm_rs);
    memset(job, 0, sizeof *job);
}

/* The job freed, then rc: `return post_partition_freed(job, cuzk_errf(err, err_len, CODE, ...))`
 * writes the message first, while what it names is still held. */
static int post_partition_freed(cuzk_fil_post_partition *job, int rc)
{
    cuzk_fil_post_partition_free(job);
    return rc;
}

/* What every sector's check reads; each writes only its own entries. */
typedef struct sector_ctx {
    cuzk_fil_post_partition *job;
    const cuzk_fil_post_proof *p;
    const vshape *s;
    uint64_t post_proof_id;
    const uint8_t *randomness;
    uint32_t partition_index;
    const cuzk_fil_blob *blobs;
    const cuzk_fr *expected_comm_r;
    unsigned nc;
    int *parse_rc, *check_rc; /* per sector */
    char (*msg)[320];         /* per sector: why it failed (the longest message fits whole) */
} sector_ctx;

/* Sector i's own checks, after its parse (and the caller's duplicate check):
 * 0, or an error with why in msg. */
static int sector_check(const sector_ctx *x, size_t i, char *msg, size_t cap)
{
    cuzk_fil_post_partition *job = x->job;
    const cuzk_fil_post_vanilla *v = &job->v[i];
    job->sector_ids[i] = v->sector_id;
    job->comm_rs[i] = v->comm_r;
    if (x->expected_comm_r && !cuzk_fr_eq(&x->expected_comm_r[i], &v->comm_r))
        return cuzk_errf(msg, cap, CUZK_ERR_VERIFY_FAILED, "vanilla_proofs[%zu].comm_r: not the sector's comm_r", i);
    cuzk_fr h;
    cuzk_fil_comm_r(&h, &v->comm_c, &v->comm_r_last);
    if (!cuzk_fr_eq(&h, &v->comm_r))
        return cuzk_errf(msg, cap, CUZK_ERR_VERIFY_FAILED, "vanilla_proofs[%zu].comm_r: not H(comm_c, comm_r_last)",
                         i);
    const unsigned nc = x->nc;
    uint64_t *ch = &job->challenges[i * nc];
    cuzk_fil_post_sector_challenges(ch, x->p, x->randomness, v->sector_id,
                                    (uint64_t)x->partition_index * job->cfg.sectors + i);
    for (unsigned c = 0; c < nc; c++) {
        const cuzk_fil_mproof *m = &v->proofs[c];
        const char *f = "vanilla_proofs[%zu].vanilla_proof.sectors[0].inclusion_proofs[%u]: %s";
        if (m->index != ch[c])
            return cuzk_errf(msg, cap, CUZK_ERR_VERIFY_FAILED,
                             "vanilla_proofs[%zu].vanilla_proof.sectors[0].inclusion_proofs[%u]: opens leaf "
                             "%llu, the challenge is %llu",
                             i, c, (unsigned long long)m->index, (unsigned long long)ch[c]);
        if (!cuzk_fr_eq(&m->root, &v->comm_r_last))
            return cuzk_errf(msg, cap, CUZK_ERR_VERIFY_FAILED, f, i, c, "root is not comm_r_last");
        if (!mproof_ok(x->s, m)) return cuzk_errf(msg, cap, CUZK_ERR_VERIFY_FAILED, f, i, c, "path does not hash to its root");
        job->leaves[i * nc + c] = m->leaf;
    }
    return 0;
}

/* Sectors [lo, hi): parse, then their own checks. */
static void sectors_range(void *arg, unsigned worker, size_t lo, size_t hi)
{
    const sector_ctx *x = arg;
    (void)worker;
    for (size_t i = lo; i < hi; i++) {
        char e[200];
        x->parse_rc[i] = cuzk_fil_post_vanilla_parse(&x->job->v[i], x->post_proof_id, x->blobs[i].data,
                                                     x->blobs[i].len, e, sizeof e);
        if (x->parse_rc[i]) snprintf(x->msg[i], sizeof x->msg[i], "vanilla_proofs[%zu]: %s", i, e);
        else x->check_rc[i] = sector_check(x, i, x->msg[i], sizeof x->msg[i]);
    }
}

int cuzk_fil_post_prepare(cuzk_fil_post_partition *job, uint64_t post_proof_id, const uint8_t randomness[32],
                          uint32_t partition_index, const cuzk_fil_blob *blobs, size_t n,
                          const cuzk_fr *expected_comm_r, char *err, size_t err_len)
{
    return cuzk_fil_post_prepare_threads(job, post_proof_id, randomness, partition_index, blobs, n, expected_comm_r,
                                         1, err, err_len);
}

int cuzk_fil_post_prepare_threads(cuzk_fil_post_partition *job, uint64_t post_proof_id, const uint8_t randomness[32],
                                  uint32_t partition_index, const cuzk_fil_blob *blobs, size_t n,
                                  const cuzk_fr *expected_comm_r, unsigned nthreads, char *err, size_t err_len)
{
    memset(job, 0, sizeof *job);
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(post_proof_id);
    vshape s;
    if (!p || vshape_tree_r(&s, p->sector_size) || cuzk_post_config_for(&job->cfg, p->sector_size, post_kind(p)))
        return post_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "registered_proof: %llu is not a PoSt proof",
                                             (unsigned long long)post_proof_id));
    job->proof = p;
    cuzk_fr rnd;
    if (cuzk_fr_from_le32(&rnd, randomness) != 0)
        return post_partition_freed(
            job, cuzk_errf(err, err_len, CUZK_ERR_NONCANONICAL, "randomness: not a canonical field element"));
    bool winning = p->kind == CUZK_FIL_POST_WINNING;
    if (winning && partition_index != 0)
        return post_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "partition_index: %u, WinningPoSt has one partition", partition_index));
    size_t max = winning ? 1 : job->cfg.sectors;
    if (n == 0 || n > max)
        return post_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "vanilla_proofs: %zu proofs, want 1..%zu for %s", n, max, p->name));
    unsigned nc = cuzk_fil_post_vanilla_challenges(p);
    job->nv = n;
    job->v = calloc(n, sizeof *job->v);
    job->sector_ids = malloc(n * sizeof *job->sector_ids);
    job->comm_rs = malloc(n * sizeof *job->comm_rs);
    job->challenges = malloc(sizeof(uint64_t) * n * nc);
    job->leaves = malloc(sizeof(cuzk_fr) * n * nc);
    job->slots = calloc(winning ? job->cfg.sectors : n, sizeof *job->slots);
    job->num_inputs = cuzk_post_num_inputs(&job->cfg) - 1;
    job->inputs = malloc(sizeof(cuzk_fr) * job->num_inputs);
    sector_ctx x = {job, p, &s, post_proof_id, randomness, partition_index, blobs, expected_comm_r, nc,
                    calloc(n, sizeof(int)), calloc(n, sizeof(int)), calloc(n, sizeof *x.msg)};
    if (!job->v || !job->sector_ids || !job->comm_rs || !job->challenges || !job->leaves || !job->slots ||
        !job->inputs || !x.parse_rc || !x.check_rc || !x.msg) {
        free(x.parse_rc), free(x.check_rc), free(x.msg);
        return post_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "out of memory"));
    }
    /* The sectors are independent (2,349 of them, 23,490 inclusion proofs
     * for a 32 GiB WindowPoSt partition): parsed and checked on nthreads,
     * then read in order, so the error reported is the one a sequential
     * pass meets first, a repeated sector_id included. */
    cuzk_parallel_for(n, 0, nthreads ? nthreads : 1, sectors_range, &x);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = x.parse_rc[i];
        for (size_t j = 0; j < i && !rc; j++) /* every sector before i passed: its id is set */
            if (job->sector_ids[j] == job->v[i].sector_id)
                rc = cuzk_errf(x.msg[i], sizeof x.msg[i], CUZK_ERR_INVALID_ARG,
                               "vanilla_proofs[%zu].sector_id: %llu repeats vanilla_proofs[%zu]", i,
                               (unsigned long long)job->v[i].sector_id, j);
        if (!rc) rc = x.check_rc[i];
        if (rc) rc = post_partition_freed(job, cuzk_errf(err, err_len, rc, "%s", x.msg[i]));
    }
    free(x.parse_rc), free(x.check_rc), free(x.msg);
    if (rc) return rc;
    /* the circuit's slots: WindowPoSt one per sector (the circuit repeats the last), WinningPoSt
     * 66 slots of one challenge each over the one sector (single_partition_vanilla_proofs) */
    size_t nslots = winning ? job->cfg.sectors : n;
    for (size_t k = 0; k < nslots; k++) {
        const cuzk_fil_post_vanilla *v = &job->v[winning ? 0 : k];
        size_t base = winning ? k : k * nc;
        job->slots[k] = (cuzk_post_sector){v->comm_r, v->comm_c, v->comm_r_last, &job->challenges[base],
                                           &job->leaves[base], v->proofs[winning ? k : 0].path};
    }
    job->w = (cuzk_post_witness){job->slots, nslots};
    rc = cuzk_fil_post_public_inputs(job->inputs, post_proof_id, randomness, partition_index, job->sector_ids,
                                     job->comm_rs, n);
    if (rc) return post_partition_freed(job, cuzk_errf(err, err_len, rc, "public inputs"));
    return 0;
}

int cuzk_fil_post_prepare_request(cuzk_fil_post_partition *job, const cuzk_fil_request *r, char *err, size_t err_len)
{
    memset(job, 0, sizeof *job);
    if (r->kind != CUZK_FIL_KIND_WINDOW_POST && r->kind != CUZK_FIL_KIND_WINNING_POST)
        return post_partition_freed(
            job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "proof_kind: %d is not a PoSt kind", (int)r->kind));
    if (!(r->present & CUZK_FIL_REQ_RANDOMNESS))
        return post_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "randomness: missing"));
    const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(r->registered_proof);
    if (p && (p->kind == CUZK_FIL_POST_WINNING) != (r->kind == CUZK_FIL_KIND_WINNING_POST))
        return post_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                             "registered_proof: %s does not match proof_kind", p->name));
    if (p && r->sector_size && r->sector_size != p->sector_size)
        return post_partition_freed(job, cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG,
                                                   "sector_size: %llu, %s proves %llu",
                                                   (unsigned long long)r->sector_size, p->name,
                                                   (unsigned long long)p->sector_size));
    return cuzk_fil_post_prepare(job, r->registered_proof, r->randomness, r->partition_index, r->blobs, r->num_blobs,
                                 NULL, err, err_len);
}
