/*
 * EmptySectorUpdate (SnapDeals) partition circuit (storage-proofs-update
 * circuit.rs, gadgets.rs, constants.rs of rust-fil-proofs v19): the same
 * allocations and constraints in the same order.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/circuits/update.h"

int cuzk_update_config_for(cuzk_update_config *out, uint64_t sector_size)
{
    /* constants.rs: ALLOWED_SECTOR_SIZES and validate_tree_r_shape */
    static const struct {
        uint64_t size;
        unsigned sub, top;
    } T[] = {
        {1ull << 10, 4, 0}, {1ull << 11, 0, 0}, {1ull << 12, 2, 0}, {1ull << 13, 4, 0},
        {1ull << 14, 8, 0}, {1ull << 15, 8, 2}, {1ull << 23, 0, 0}, {1ull << 24, 2, 0},
        {1ull << 29, 0, 0}, {1ull << 35, 8, 0}, {1ull << 36, 8, 2},
    };
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        if (T[i].size != sector_size) continue;
        uint64_t n = sector_size / 32;
        memset(out, 0, sizeof *out);
        out->sector_size = sector_size;
        out->nodes = n;
        /* partition_count, challenge_count, apex_leaf_count, hs */
        out->partitions = n <= (1u << 8) ? 1 : n <= (1u << 10) ? 2 : n <= (1u << 19) ? 4 : 16;
        out->challenges = n <= (1u << 19) ? 10 : 86;
        out->apex_leaves = n <= (1u << 8) ? 8 : 128;
        for (unsigned j = 0; j < CUZK_UPDATE_NUM_HS; j++) out->hs[j] = n <= (1u << 10) ? 1 : 7 + j;
        out->challenge_bits = (unsigned)__builtin_ctzll(n);
        out->partition_bits = (unsigned)__builtin_ctz(out->partitions);
        out->apex_bits = (unsigned)__builtin_ctz(out->apex_leaves);
        out->apex_height = out->challenge_bits - out->partition_bits - out->apex_bits;
        out->tree = (cuzk_tree_shape){CUZK_TREE_POSEIDON, 8, T[i].sub, T[i].top};
        return 0;
    }
    return CUZK_ERR_INVALID_ARG;
}

int cuzk_update_k_and_h_select(cuzk_fr *out, const cuzk_update_config *cfg, unsigned k, unsigned h)
{
    for (unsigned j = 0; j < CUZK_UPDATE_NUM_HS; j++)
        if (cfg->hs[j] == h && k < cfg->partitions) {
            cuzk_fr_set_u64(out, (uint64_t)k | ((uint64_t)1 << j << cfg->partition_bits));
            return 0;
        }
    return CUZK_ERR_INVALID_ARG;
}

/* H_gen: Poseidon arity 2, HashType::Custom(CType::Arbitrary(1)) */
static void gen_tag(cuzk_fr *tag) { cuzk_poseidon_tag_custom(tag, 1); }

static void h_gen(cuzk_fr *out, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr tag, in[2] = {*a, *b};
    gen_tag(&tag);
    cuzk_poseidon_hash_tagged(out, 2, &tag, in, 2);
}

static unsigned digests_per_partition(unsigned challenges, unsigned bits)
{
    unsigned per = CUZK_FR_CAPACITY / bits;
    return (challenges + per - 1) / per;
}

int cuzk_update_challenges(uint64_t *out, const cuzk_update_config *cfg, const cuzk_fr *comm_r_new, unsigned k)
{
    unsigned bits = cfg->challenge_bits - cfg->partition_bits, per = CUZK_FR_CAPACITY / bits;
    unsigned nd = digests_per_partition(cfg->challenges, bits), c = 0;
    if (k >= cfg->partitions) return CUZK_ERR_INVALID_ARG;
    for (unsigned j = 0; j < nd; j++) {
        cuzk_fr idx, d;
        cuzk_fr_set_u64(&idx, (uint64_t)k * nd + j);
        h_gen(&d, comm_r_new, &idx);
        uint64_t limbs[CUZK_FR_LIMBS];
        cuzk_fr_to_limbs(limbs, &d);
        for (unsigned i = 0; i < per && c < cfg->challenges; i++, c++) {
            uint64_t v = 0;
            for (unsigned b = 0; b < bits; b++) {
                unsigned pos = i * bits + b;
                v |= ((limbs[pos / 64] >> (pos % 64)) & 1) << b;
            }
            out[c] = v | ((uint64_t)k << bits);
        }
    }
    return 0;
}

void cuzk_update_phi(cuzk_fr *phi, const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_old)
{
    h_gen(phi, comm_d_new, comm_r_old);
}

void cuzk_update_rho(cuzk_fr *rho, const cuzk_update_config *cfg, const cuzk_fr *phi, uint64_t node, unsigned h)
{
    cuzk_fr high;
    cuzk_fr_set_u64(&high, node >> (cfg->challenge_bits - h));
    h_gen(rho, phi, &high);
}

/* ---- circuit ------------------------------------------------------------ */

static cuzk_num alloc_f(cuzk_cs *cs, const cuzk_fr *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cuzk_num alloc_f(cuzk_cs *cs, const cuzk_fr *v, const char *fmt, ...)
{
    char name[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return cuzk_num_alloc_ns(cs, name, v);
}

static cuzk_num h_gen_circuit(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_fr tag;
    gen_tag(&tag);
    cuzk_num in[2] = {*a, *b};
    return cuzk_poseidon_hash_circuit(cs, 2, &tag, in);
}

/* a·b = c with a built by the caller (freed here), b and c single variables. */
static void enforce_lc_vars(cuzk_cs *cs, const char *name, cuzk_lc *a, cuzk_var b, cuzk_var c)
{
    cuzk_lc lb, lc;
    cuzk_lc_init(&lb);
    cuzk_lc_init(&lc);
    cuzk_lc_add_var(&lb, b);
    cuzk_lc_add_var(&lc, c);
    cuzk_cs_enforce(cs, name, a, &lb, &lc);
    cuzk_lc_free(a);
    cuzk_lc_free(&lb);
    cuzk_lc_free(&lc);
}

/* Σ 2^i·bit_i · ONE = num (A: the bits, C: num). */
static void enforce_decomp(cuzk_cs *cs, const char *name, const cuzk_bool *bits, size_t n, const cuzk_num *num)
{
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return;
    }
    cuzk_lc a;
    cuzk_lc_init(&a);
    cuzk_fr pow = cuzk_fr_one;
    for (size_t i = 0; i < n; i++) {
        cuzk_lc_add(&a, bits[i].var, &pow);
        cuzk_fr_dbl(&pow, &pow);
    }
    enforce_lc_vars(cs, name, &a, CUZK_CS_ONE, num->var);
}

void cuzk_update_num_to_bits(cuzk_cs *cs, const cuzk_num *num, cuzk_bool out[CUZK_FR_NUM_BITS])
{
    uint64_t limbs[CUZK_FR_LIMBS];
    cuzk_fr_to_limbs(limbs, &num->value);
    for (unsigned i = 0; i < CUZK_FR_NUM_BITS; i++) {
        cuzk_cs_push_ns(cs, "bit %u", i);
        out[i] = cuzk_bool_alloc(cs, (limbs[i / 64] >> (i % 64)) & 1);
        cuzk_cs_pop_ns(cs);
    }
    enforce_decomp(cs, "binary decomp", out, CUZK_FR_NUM_BITS, num);
}

void cuzk_update_gen_challenge_bits(cuzk_cs *cs, const cuzk_num *comm_r_new, const cuzk_num *partition,
                                    unsigned challenges, unsigned bits_per_challenge, cuzk_bool *out)
{
    unsigned per = CUZK_FR_CAPACITY / bits_per_challenge;
    unsigned nd = digests_per_partition(challenges, bits_per_challenge), c = 0;
    cuzk_bool bits[CUZK_FR_NUM_BITS];
    for (unsigned j = 0; j < nd; j++) {
        cuzk_fr ndf, jf, v;
        cuzk_fr_set_u64(&ndf, nd);
        cuzk_fr_set_u64(&jf, j);
        cuzk_fr_mul(&v, &partition->value, &ndf);
        cuzk_fr_add(&v, &v, &jf);
        cuzk_num idx = alloc_f(cs, &v, "digest_index_%u", j);
        char name[80];
        snprintf(name, sizeof name, "digest_index_%u == k * digests_per_partition + %u", j, j);
        if (cuzk_cs_skip_lcs(cs)) {
            cuzk_cs_enforce_skipped(cs);
        } else {
            cuzk_lc a;
            cuzk_lc_init(&a);
            cuzk_lc_add(&a, partition->var, &ndf);
            cuzk_lc_add(&a, CUZK_CS_ONE, &jf);
            enforce_lc_vars(cs, name, &a, CUZK_CS_ONE, idx.var);
        }
        cuzk_cs_push_ns(cs, "digest_%u", j);
        cuzk_num d = h_gen_circuit(cs, comm_r_new, &idx);
        cuzk_cs_pop_ns(cs);
        cuzk_cs_push_ns(cs, "digest_%u_bits", j);
        cuzk_update_num_to_bits(cs, &d, bits);
        cuzk_cs_pop_ns(cs);
        for (unsigned i = 0; i < per && c < challenges; i++, c++)
            memcpy(&out[(size_t)c * bits_per_challenge], &bits[i * bits_per_challenge],
                   sizeof(cuzk_bool) * bits_per_challenge);
    }
}

static const cuzk_tree_shape TREE_D = {CUZK_TREE_SHA256, 2, 0, 0};

void cuzk_update_apex_por(cuzk_cs *cs, const cuzk_num *apex_leaves, unsigned n, const cuzk_bool *partition_bits,
                          unsigned partition_bit_len, const cuzk_num *partition_path, const cuzk_num *comm_d)
{
    cuzk_num *row = malloc(sizeof(cuzk_num) * n);
    if (!row) {
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return;
    }
    memcpy(row, apex_leaves, sizeof(cuzk_num) * n);
    for (unsigned r = 0, len = n; len > 1; r++, len /= 2)
        for (unsigned i = 0; i < len / 2; i++) {
            cuzk_cs_push_ns(cs, "apex_tree generation hash (tree_row=%u, siblings=%u)", r, i);
            row[i] = cuzk_tree_hash_circuit(cs, CUZK_TREE_SHA256, &row[2 * i], 2);
            cuzk_cs_pop_ns(cs);
        }
    cuzk_cs_push_ns(cs, "partition-tree por");
    cuzk_por_no_challenge_input(cs, &TREE_D, (uint64_t)1 << partition_bit_len, partition_bits, &row[0],
                                partition_path, comm_d);
    cuzk_cs_pop_ns(cs);
    free(row);
}

/* get_challenge_high_bits: Σ_k h_select_k · pack(top hs[k] bits of c). */
static cuzk_num challenge_high(cuzk_cs *cs, const cuzk_bool *c_bits, unsigned bit_len, const cuzk_bool *h_select,
                               const unsigned *hs)
{
    cuzk_num or0[CUZK_UPDATE_NUM_HS];
    cuzk_fr sum = cuzk_fr_zero;
    for (unsigned k = 0; k < CUZK_UPDATE_NUM_HS; k++) {
        cuzk_cs_push_ns(cs, "c_high (h=%u, k=%u)", hs[k], k);
        cuzk_num high = cuzk_pack_bits(cs, &c_bits[bit_len - hs[k]], hs[k]);
        cuzk_cs_pop_ns(cs);
        or0[k] = alloc_f(cs, cuzk_bool_value(&h_select[k]) ? &high.value : &cuzk_fr_zero,
                         "c_high_or_zero (h=%u, k=%u)", hs[k], k);
        cuzk_fr_add(&sum, &sum, &or0[k].value);
        char name[80];
        snprintf(name, sizeof name, "c_high_or_zero == c_high * h_select_bit (h=%u, k=%u)", hs[k], k);
        if (cuzk_cs_skip_lcs(cs)) {
            cuzk_cs_enforce_skipped(cs);
            continue;
        }
        cuzk_lc a;
        cuzk_lc_init(&a);
        cuzk_lc_add_var(&a, high.var);
        enforce_lc_vars(cs, name, &a, h_select[k].var, or0[k].var);
    }
    cuzk_num sel = alloc_f(cs, &sum, "c_high_selected");
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return sel;
    }
    cuzk_lc a;
    cuzk_lc_init(&a);
    for (unsigned k = 0; k < CUZK_UPDATE_NUM_HS; k++) cuzk_lc_add_var(&a, or0[k].var);
    enforce_lc_vars(cs, "c_high_selected == dot(c_highs, h_select_bits)", &a, CUZK_CS_ONE, sel.var);
    return sel;
}

/* label_r_new: leaf_d_new·rho ("label_d_new * rho"), then (old + product)·ONE = new. */
static cuzk_num label_r_new(cuzk_cs *cs, const cuzk_num *old, const cuzk_num *d_new, const cuzk_num *rho)
{
    cuzk_cs_push_ns(cs, "label_d_new * rho");
    cuzk_num prod = cuzk_num_mul(cs, d_new, rho);
    cuzk_cs_pop_ns(cs);
    cuzk_fr v;
    cuzk_fr_add(&v, &old->value, &prod.value);
    cuzk_num r = alloc_f(cs, &v, "label_r_new");
    if (cuzk_cs_skip_lcs(cs)) {
        cuzk_cs_enforce_skipped(cs);
        return r;
    }
    cuzk_lc a;
    cuzk_lc_init(&a);
    cuzk_lc_add_var(&a, old->var);
    cuzk_lc_add_var(&a, prod.var);
    enforce_lc_vars(cs, "label_r_new == label_r_old + label_d_new * rho", &a, CUZK_CS_ONE, r.var);
    return r;
}

/* Allocates n siblings named "<what> sibling (c_index=c, tree_row=r[, sibling_index=s])". */
static void alloc_path(cuzk_cs *cs, cuzk_num *out, const cuzk_update_config *cfg, const char *what, unsigned c,
                       const cuzk_fr *vals)
{
    size_t levels = cuzk_tree_levels(&cfg->tree, cfg->nodes), k = 0;
    for (size_t r = 0; r < levels; r++) {
        unsigned ar = cuzk_tree_level_arity(&cfg->tree, cfg->nodes, r);
        for (unsigned s = 0; s + 1 < ar; s++, k++)
            out[k] = alloc_f(cs, vals ? &vals[k] : &cuzk_fr_zero,
                             "%s sibling (c_index=%u, tree_row=%zu, sibling_index=%u)", what, c, r, s);
    }
}

/* One challenge; apex NULL: the Poseidon variant (leaf_d_new in a tree-R-shaped tree D under comm_d_new). */
static int challenge_circuit(cuzk_cs *cs, const cuzk_update_config *cfg, unsigned ci, const cuzk_bool *c_bits,
                             const cuzk_bool *h_select, const cuzk_num *phi, const cuzk_num *root_r_old,
                             const cuzk_num *root_r_new, const cuzk_num *apex, const cuzk_num *comm_d_new,
                             const cuzk_update_challenge *pr, cuzk_num *path)
{
    const cuzk_fr *z = &cuzk_fr_zero;
    cuzk_cs_push_ns(cs, "get_challenge_high_bits (c_index=%u)", ci);
    cuzk_num high = challenge_high(cs, c_bits, cfg->challenge_bits, h_select, cfg->hs);
    cuzk_cs_pop_ns(cs);
    cuzk_cs_push_ns(cs, "rho (c_index=%u)", ci);
    cuzk_num rho = h_gen_circuit(cs, phi, &high);
    cuzk_cs_pop_ns(cs);
    cuzk_num old = alloc_f(cs, pr ? &pr->leaf_r_old : z, "leaf_r_old (c_index=%u)", ci);
    cuzk_num d_new = alloc_f(cs, pr ? &pr->leaf_d_new : z, "leaf_d_new (c_index=%u)", ci);
    cuzk_cs_push_ns(cs, "leaf_r_new (c_index=%u)", ci);
    cuzk_num r_new = label_r_new(cs, &old, &d_new, &rho);
    cuzk_cs_pop_ns(cs);

    alloc_path(cs, path, cfg, "path_r_old", ci, pr ? pr->path_r_old : NULL);
    cuzk_cs_push_ns(cs, "por tree_r_old (c_index=%u)", ci);
    cuzk_por_no_challenge_input(cs, &cfg->tree, cfg->nodes, c_bits, &old, path, root_r_old);
    cuzk_cs_pop_ns(cs);
    alloc_path(cs, path, cfg, "path_r_new", ci, pr ? pr->path_r_new : NULL);
    cuzk_cs_push_ns(cs, "por tree_r_new (c_index=%u)", ci);
    cuzk_por_no_challenge_input(cs, &cfg->tree, cfg->nodes, c_bits, &r_new, path, root_r_new);
    cuzk_cs_pop_ns(cs);

    if (!apex) {
        alloc_path(cs, path, cfg, "path_d_new", ci, pr ? pr->path_d_new : NULL);
        cuzk_cs_push_ns(cs, "por tree_d_new (c_index=%u)", ci);
        cuzk_por_no_challenge_input(cs, &cfg->tree, cfg->nodes, c_bits, &d_new, path, comm_d_new);
        cuzk_cs_pop_ns(cs);
        return cuzk_cs_error(cs);
    }
    unsigned to_apex = cfg->apex_height;
    cuzk_cs_push_ns(cs, "select_apex_leaf (c_index=%u)", ci);
    cuzk_num apex_leaf = cuzk_select(cs, apex, &c_bits[to_apex], cfg->apex_bits);
    cuzk_cs_pop_ns(cs);
    for (unsigned r = 0; r < to_apex; r++)
        path[r] = alloc_f(cs, pr ? &pr->path_d_new[r] : z, "path_to_apex_leaf sibling (c_index=%u, tree_row=%u)",
                          ci, r);
    cuzk_cs_push_ns(cs, "por to_apex_leaf (c_index=%u)", ci);
    cuzk_por_no_challenge_input(cs, &TREE_D, (uint64_t)1 << to_apex, c_bits, &d_new, path, &apex_leaf);
    cuzk_cs_pop_ns(cs);
    return cuzk_cs_error(cs);
}

typedef struct header {
    cuzk_num comm_r_old, comm_d_new, comm_r_new, phi, comm_c, root_r_old, root_r_new;
} header;

/* The three commitments (inputs), phi, and the private comm_c and tree R roots. */
static void header_alloc(cuzk_cs *cs, const cuzk_update_witness *w, header *h)
{
    const cuzk_fr *z = &cuzk_fr_zero;
    h->comm_r_old = alloc_f(cs, w ? &w->comm_r_old : z, "comm_r_old");
    cuzk_num_inputize_ns(cs, "comm_r_old_input", &h->comm_r_old);
    h->comm_d_new = alloc_f(cs, w ? &w->comm_d_new : z, "comm_d_new");
    cuzk_num_inputize_ns(cs, "comm_d_new_input", &h->comm_d_new);
    h->comm_r_new = alloc_f(cs, w ? &w->comm_r_new : z, "comm_r_new");
    cuzk_num_inputize_ns(cs, "comm_r_new_input", &h->comm_r_new);
    cuzk_cs_push_ns(cs, "phi");
    h->phi = h_gen_circuit(cs, &h->comm_d_new, &h->comm_r_old);
    cuzk_cs_pop_ns(cs);
    h->comm_c = alloc_f(cs, w ? &w->comm_c : z, "comm_c");
    h->root_r_old = alloc_f(cs, w ? &w->root_r_old : z, "root_r_old");
    h->root_r_new = alloc_f(cs, w ? &w->root_r_new : z, "root_r_new");
}

/* comm_r_old = H(comm_c, root_r_old), comm_r_new = H(comm_c, root_r_new) (calc in A). */
static void header_checks(cuzk_cs *cs, const header *h)
{
    cuzk_fr mtag;
    cuzk_poseidon_tag_merkle(&mtag, 2);
    cuzk_num pair[2] = {h->comm_c, h->root_r_old};
    cuzk_cs_push_ns(cs, "comm_r_old_calc");
    cuzk_num calc = cuzk_poseidon_hash_circuit(cs, 2, &mtag, pair);
    cuzk_cs_pop_ns(cs);
    cuzk_num_enforce_equal(cs, "enforce comm_r_old_calc == comm_r_old", &calc, &h->comm_r_old);
    pair[1] = h->root_r_new;
    cuzk_cs_push_ns(cs, "comm_r_new_calc");
    calc = cuzk_poseidon_hash_circuit(cs, 2, &mtag, pair);
    cuzk_cs_pop_ns(cs);
    cuzk_num_enforce_equal(cs, "enforce comm_r_new_calc == comm_r_new", &calc, &h->comm_r_new);
}

/* k_and_h_select (or h_select) input, its bits ("<name>_bit_i") and "<name> binary decomp". */
static cuzk_num select_input(cuzk_cs *cs, const char *name, const cuzk_fr *v, unsigned nbits, cuzk_bool *bits)
{
    cuzk_num n = alloc_f(cs, v, "%s", name);
    char ns[64];
    snprintf(ns, sizeof ns, "%s (public input)", name);
    cuzk_num_inputize_ns(cs, ns, &n);
    uint64_t l[CUZK_FR_LIMBS];
    cuzk_fr_to_limbs(l, v);
    for (unsigned i = 0; i < nbits; i++) {
        cuzk_cs_push_ns(cs, "%s_bit_%u", name, i);
        bits[i] = cuzk_bool_alloc(cs, (l[0] >> i) & 1);
        cuzk_cs_pop_ns(cs);
    }
    snprintf(ns, sizeof ns, "%s binary decomp", name);
    enforce_decomp(cs, ns, bits, nbits, &n);
    return n;
}

/* The challenges of one partition: they share only the header, the apex
 * leaves and the generated bits, so each can run on a fork. */
typedef struct upd_seg {
    const cuzk_update_config *cfg;
    const cuzk_update_witness *w;
    const cuzk_bool *gen, *khb;
    const header *hd;
    const cuzk_num *apex;
    size_t plen;
} upd_seg;

static int challenge_segment(cuzk_cs *cs, size_t c, void *vctx)
{
    const upd_seg *u = vctx;
    const cuzk_update_config *cfg = u->cfg;
    const unsigned pb = cfg->partition_bits, cb = cfg->challenge_bits;
    cuzk_bool *c_bits = malloc(sizeof(cuzk_bool) * cb);
    cuzk_num *path = malloc(sizeof(cuzk_num) * (u->plen > cb ? u->plen : cb));
    if (!c_bits || !path) {
        free(c_bits);
        free(path);
        return CUZK_ERR_NO_MEMORY;
    }
    /* the generated bits, then the partition bits */
    memcpy(c_bits, &u->gen[c * (cb - pb)], sizeof(cuzk_bool) * (cb - pb));
    memcpy(c_bits + cb - pb, u->khb, sizeof(cuzk_bool) * pb);
    int e = challenge_circuit(cs, cfg, (unsigned)c, c_bits, u->khb + pb, &u->hd->phi, &u->hd->root_r_old,
                              &u->hd->root_r_new, u->apex, &u->hd->comm_d_new, u->w ? &u->w->challenges[c] : NULL,
                              path);
    free(c_bits);
    free(path);
    return e ? e : cuzk_cs_error(cs);
}

int cuzk_update_circuit(cuzk_cs *cs, const cuzk_update_config *cfg, const cuzk_update_witness *w)
{
    const cuzk_fr *z = &cuzk_fr_zero;
    unsigned pb = cfg->partition_bits, cb = cfg->challenge_bits, nh = CUZK_UPDATE_NUM_HS;
    cuzk_fr khs = cuzk_fr_zero;
    if (w && cuzk_update_k_and_h_select(&khs, cfg, w->k, w->h)) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    if (!cuzk_tree_levels(&cfg->tree, cfg->nodes) || cb < pb + cfg->apex_bits + 1) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    size_t plen = cuzk_tree_path_len(&cfg->tree, cfg->nodes);
    cuzk_bool *gen = malloc(sizeof(cuzk_bool) * ((size_t)cfg->challenges * (cb - pb) + 1));
    cuzk_num *nums = malloc(sizeof(cuzk_num) * (cfg->apex_leaves + pb + 1));
    if (!gen || !nums) {
        free(gen);
        free(nums);
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_num *apex = nums, *ppath = nums + cfg->apex_leaves;

    cuzk_bool khb[64];
    select_input(cs, "k_and_h_select", &khs, pb + nh, khb);
    cuzk_cs_push_ns(cs, "pack partition bits");
    cuzk_num partition = cuzk_pack_bits(cs, khb, pb);
    cuzk_cs_pop_ns(cs);

    header hd;
    header_alloc(cs, w, &hd);
    for (unsigned i = 0; i < cfg->apex_leaves; i++) apex[i] = alloc_f(cs, w ? &w->apex_leaves[i] : z, "apex_leaf_%u", i);
    /* the partition path: the top partition_bits siblings of challenge 0's tree D path */
    for (unsigned i = 0; i < pb; i++)
        ppath[i] = alloc_f(cs, w ? &w->challenges[0].path_d_new[cb - pb + i] : z, "partition_path_sibling_%u", i);

    header_checks(cs, &hd);
    cuzk_cs_push_ns(cs, "apex_gadget");
    cuzk_update_apex_por(cs, apex, cfg->apex_leaves, khb, pb, ppath, &hd.comm_d_new);
    cuzk_cs_pop_ns(cs);
    cuzk_cs_push_ns(cs, "gen_challenge_bits");
    cuzk_update_gen_challenge_bits(cs, &hd.comm_r_new, &partition, cfg->challenges, cb - pb, gen);
    cuzk_cs_pop_ns(cs);

    /* the challenges on forks, cs's own thread count (cuzk_cs_set_threads),
     * in place in a WitnessCS after the first partition of a config */
    const uint64_t shape[] = {cfg->sector_size,    cfg->nodes,     cfg->partitions,      cfg->partition_bits,
                              cfg->challenges,     cb,             cfg->apex_leaves,     cfg->apex_bits,
                              cfg->tree.hash,      cfg->tree.base_arity, cfg->tree.sub_arity, cfg->tree.top_arity};
    upd_seg seg = {cfg, w, gen, khb, &hd, apex, plen};
    if (!cuzk_cs_error(cs))
        cuzk_cs_synthesize_parallel_keyed(cs, cfg->challenges, challenge_segment, &seg, 0, true,
                                          cuzk_cs_shape_key(shape, sizeof shape / sizeof *shape));
    free(gen);
    free(nums);
    return cuzk_cs_error(cs);
}

int cuzk_update_poseidon_circuit(cuzk_cs *cs, const cuzk_update_config *cfg, const cuzk_update_witness *w)
{
    unsigned cb = cfg->challenge_bits, nh = CUZK_UPDATE_NUM_HS, nc = cfg->challenges * cfg->partitions;
    cuzk_fr hs = cuzk_fr_zero;
    if ((w && cuzk_update_k_and_h_select(&hs, cfg, 0, w->h)) || !cuzk_tree_levels(&cfg->tree, cfg->nodes)) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    size_t plen = cuzk_tree_path_len(&cfg->tree, cfg->nodes);
    cuzk_bool *gen = malloc(sizeof(cuzk_bool) * nc * cb);
    cuzk_num *path = malloc(sizeof(cuzk_num) * plen);
    if (!gen || !path) {
        free(gen);
        free(path);
        cuzk_cs_set_error(cs, CUZK_ERR_NO_MEMORY);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_bool hb[CUZK_UPDATE_NUM_HS];
    select_input(cs, "h_select", &hs, nh, hb); /* k = 0: k_and_h_select is h_select */
    header hd;
    header_alloc(cs, w, &hd);
    header_checks(cs, &hd);
    cuzk_num partition = alloc_f(cs, &cuzk_fr_zero, "gen_challenge_bits partition zero");
    cuzk_cs_push_ns(cs, "gen_challenge_bits");
    cuzk_update_gen_challenge_bits(cs, &hd.comm_r_new, &partition, nc, cb, gen);
    cuzk_cs_pop_ns(cs);
    for (unsigned c = 0; c < nc && !cuzk_cs_error(cs); c++)
        challenge_circuit(cs, cfg, c, &gen[(size_t)c * cb], hb, &hd.phi, &hd.root_r_old, &hd.root_r_new, NULL,
                          &hd.comm_d_new, w ? &w->challenges[c] : NULL, path);
    free(gen);
    free(path);
    return cuzk_cs_error(cs);
}
