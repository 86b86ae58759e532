/* A Filecoin proof's statement (fil_statement.h): which values each kind takes, the registered
 * proof resolved, the partitions counted, and every partition's public inputs derived by the
 * functions proving uses. Parsing the values' text is statement_parse.c's. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_statement.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/circuits/post.h"
#include "filecoin_internal.h"

/* Values every kind takes: which one, and its registered proof (or size). */
#define SV_COMMON (CUZK_FIL_SV_KIND | CUZK_FIL_SV_PROOF | CUZK_FIL_SV_SIZE | CUZK_FIL_SV_PARTITION)

static const struct stmt_rule {
    const char *name;
    uint32_t need, take; /* take: besides need and SV_COMMON */
    cuzk_fil_circuit circuit;
} rules[] = {
    [CUZK_FIL_STMT_POREP] = {"porep",
                             CUZK_FIL_SV_PROVER | CUZK_FIL_SV_SECTOR_NUMBER | CUZK_FIL_SV_COMM_R | CUZK_FIL_SV_COMM_D |
                                 CUZK_FIL_SV_TICKET | CUZK_FIL_SV_SEED,
                             0, CUZK_FIL_CIRCUIT_POREP},
    /* a PoSt's public inputs hold no prover id (fallback PoSt challenges are drawn from the
     * randomness and the sector numbers), yet filecoin-ffi takes it: accepted, not used */
    [CUZK_FIL_STMT_WINDOW_POST] = {"window-post", CUZK_FIL_SV_RANDOMNESS | CUZK_FIL_SV_SECTORS, CUZK_FIL_SV_PROVER,
                                   CUZK_FIL_CIRCUIT_WINDOW_POST},
    [CUZK_FIL_STMT_WINNING_POST] = {"winning-post", CUZK_FIL_SV_RANDOMNESS | CUZK_FIL_SV_SECTORS, CUZK_FIL_SV_PROVER,
                                    CUZK_FIL_CIRCUIT_WINNING_POST},
    [CUZK_FIL_STMT_SNAP] = {"snap", CUZK_FIL_SV_COMM_R_OLD | CUZK_FIL_SV_COMM_R_NEW | CUZK_FIL_SV_COMM_D_NEW, 0,
                            CUZK_FIL_CIRCUIT_SNAP},
};

/* The value names of bits, for messages (statement_parse.c's table order). */
static const char *const sv_names[] = {"kind", "registered_proof", "sector_size", "miner/prover_id",
                                       "sector_number", "comm_r", "comm_d", "ticket", "seed", "randomness",
                                       "comm_r_old", "comm_r_new", "comm_d_new", "sector", "partition"};

const char *cuzk_fil_stmt_kind_name(cuzk_fil_stmt_kind k)
{
    return k >= CUZK_FIL_STMT_POREP && k <= CUZK_FIL_STMT_SNAP ? rules[k].name : NULL;
}

void cuzk_fil_statement_init(cuzk_fil_statement *st) { memset(st, 0, sizeof *st); }

void cuzk_fil_statement_free(cuzk_fil_statement *st)
{
    free(st->sectors);
    memset(st, 0, sizeof *st);
}

/* Every value the kind needs given, none it does not take. */
static int check_given(const cuzk_fil_statement *st, const struct stmt_rule *r, char *err, size_t err_len)
{
    for (unsigned b = 0; b < sizeof sv_names / sizeof sv_names[0]; b++) {
        uint32_t bit = 1u << b;
        if ((r->need & bit) && !(st->given & bit))
            return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%s: missing (a %s proof needs it)", sv_names[b],
                             r->name);
        if ((st->given & bit) && !((r->need | r->take | SV_COMMON) & bit))
            return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%s: not a value of a %s proof", sv_names[b],
                             r->name);
    }
    if (!(st->given & (CUZK_FIL_SV_PROOF | CUZK_FIL_SV_SIZE)))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "registered_proof or sector_size: missing");
    return CUZK_OK;
}

/* A registered proof given by name: its id. */
static int proof_by_name(cuzk_fil_statement *st, char *err, size_t err_len)
{
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_by_name(st->proof_name);
    const cuzk_fil_post_proof *pp = cuzk_fil_post_proof_by_name(st->proof_name);
    if (st->kind == CUZK_FIL_STMT_POREP && sp) st->registered_proof = sp->id;
    else if ((st->kind == CUZK_FIL_STMT_WINDOW_POST || st->kind == CUZK_FIL_STMT_WINNING_POST) && pp)
        st->registered_proof = pp->id;
    else
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "registered_proof: \"%s\" is not the name of a %s "
                         "proof%s", st->proof_name, rules[st->kind].name,
                         st->kind == CUZK_FIL_STMT_SNAP ? " (give an update proof by number, 0-4)" : "");
    return CUZK_OK;
}

/* registered_proof: the given one (a proof of the kind's circuit) or the size's current one. */
static int resolve_proof(cuzk_fil_statement *st, char *err, size_t err_len)
{
    cuzk_fil_circuit c = rules[st->kind].circuit;
    int rc = st->proof_name[0] ? proof_by_name(st, err, err_len) : CUZK_OK;
    if (rc) return rc;
    if (st->given & CUZK_FIL_SV_PROOF) {
        uint64_t size = cuzk_fil_circuit_proof_sector_size(c, st->registered_proof);
        if (!size)
            return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "registered_proof: %llu is not a %s proof",
                             (unsigned long long)st->registered_proof, rules[st->kind].name);
        if ((st->given & CUZK_FIL_SV_SIZE) && size != st->sector_size)
            return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "sector_size: %llu bytes, registered proof %llu is "
                             "of %llu", (unsigned long long)st->sector_size, (unsigned long long)st->registered_proof,
                             (unsigned long long)size);
        st->sector_size = size;
    } else if (cuzk_fil_circuit_default_proof(c, st->sector_size, &st->registered_proof)) {
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "sector_size: no %s proof has %llu-byte sectors",
                         rules[st->kind].name, (unsigned long long)st->sector_size);
    }
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(st->registered_proof);
    if (st->kind == CUZK_FIL_STMT_POREP && sp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE)
        return cuzk_errf(err, err_len, CUZK_ERR_UNSUPPORTED, "registered_proof: %s is NI-PoRep, whose proofs are "
                         "SnarkPack aggregates (not verified here)", sp->name);
    return CUZK_OK;
}

static int sector_cmp(const void *a, const void *b)
{
    uint64_t x = ((const cuzk_fil_stmt_sector *)a)->number, y = ((const cuzk_fil_stmt_sector *)b)->number;
    return (x > y) - (x < y);
}

/* A PoSt's sectors sorted by number (filecoin-ffi's BTreeMap order), none twice; its partitions. */
static int post_shape(cuzk_fil_statement *st, char *err, size_t err_len)
{
    cuzk_post_config cfg;
    bool win = st->kind == CUZK_FIL_STMT_WINNING_POST;
    if (cuzk_post_config_for(&cfg, st->sector_size, win ? CUZK_POST_WINNING : CUZK_POST_WINDOW))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "sector_size: no PoSt of %llu-byte sectors",
                         (unsigned long long)st->sector_size);
    qsort(st->sectors, st->num_sectors, sizeof *st->sectors, sector_cmp);
    for (size_t i = 1; i < st->num_sectors; i++)
        if (st->sectors[i].number == st->sectors[i - 1].number)
            return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "sector: %llu given twice",
                             (unsigned long long)st->sectors[i].number);
    if (win && st->num_sectors != 1)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "sector: a winning-post proves its one challenged "
                         "sector, %zu given", st->num_sectors);
    st->partitions = (uint32_t)((st->num_sectors + cfg.sectors - 1) / cfg.sectors);
    st->num_inputs = cuzk_post_num_inputs(&cfg) - 1;
    return CUZK_OK;
}

/* partitions and num_inputs of a seal or an update. */
static int seal_or_update_shape(cuzk_fil_statement *st, char *err, size_t err_len)
{
    static const uint8_t zero[32];
    if (st->kind == CUZK_FIL_STMT_SNAP) {
        st->partitions = cuzk_fil_snap_partitions(st->registered_proof);
        st->num_inputs = 4;
        return CUZK_OK;
    }
    if (!memcmp(st->comm_r, zero, 32) || !memcmp(st->comm_d, zero, 32))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%s: all zero (verify_seal refuses it)",
                         memcmp(st->comm_r, zero, 32) ? "comm_d" : "comm_r");
    cuzk_porep_config cfg;
    if (cuzk_porep_config_for(&cfg, st->sector_size, false)) return CUZK_ERR_INTERNAL;
    st->partitions = cfg.partitions;
    st->num_inputs = cuzk_porep_num_inputs(&cfg) - 1;
    return CUZK_OK;
}

int cuzk_fil_statement_finish(cuzk_fil_statement *st, char *err, size_t err_len)
{
    st->finished = 0;
    if (!cuzk_fil_stmt_kind_name(st->kind))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "kind: missing (porep, window-post, winning-post, snap)");
    const struct stmt_rule *r = &rules[st->kind];
    int rc = check_given(st, r, err, err_len);
    if (!rc) rc = resolve_proof(st, err, err_len);
    if (rc) return rc;
    st->circuit = r->circuit;
    bool post = st->kind == CUZK_FIL_STMT_WINDOW_POST || st->kind == CUZK_FIL_STMT_WINNING_POST;
    rc = post ? post_shape(st, err, err_len) : seal_or_update_shape(st, err, err_len);
    if (rc) return rc;
    if ((st->given & CUZK_FIL_SV_PARTITION) && st->partition >= st->partitions)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "partition: %u, this %s proof has %u (0-%u)",
                         st->partition, r->name, st->partitions, st->partitions - 1);
    st->randomness[31] &= 0x3f;
    st->finished = 1;
    return CUZK_OK;
}

uint32_t cuzk_fil_statement_proofs(const cuzk_fil_statement *st)
{
    return st->given & CUZK_FIL_SV_PARTITION ? 1 : st->partitions;
}

uint32_t cuzk_fil_statement_partition_of(const cuzk_fil_statement *st, uint32_t i)
{
    return st->given & CUZK_FIL_SV_PARTITION ? st->partition : i;
}

/* PoSt partition k: its slice of the sorted sectors through cuzk_fil_post_public_inputs. */
static int post_inputs(const cuzk_fil_statement *st, uint32_t k, cuzk_fr *out)
{
    cuzk_post_config cfg;
    bool win = st->kind == CUZK_FIL_STMT_WINNING_POST;
    if (cuzk_post_config_for(&cfg, st->sector_size, win ? CUZK_POST_WINNING : CUZK_POST_WINDOW))
        return CUZK_ERR_INVALID_ARG;
    size_t per = win ? 1 : cfg.sectors;
    size_t lo = (size_t)k * per, n = st->num_sectors - lo < per ? st->num_sectors - lo : per;
    uint64_t *ids = malloc(sizeof *ids * n);
    cuzk_fr *comm_rs = malloc(sizeof *comm_rs * n);
    int rc = ids && comm_rs ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; !rc && i < n; i++) {
        ids[i] = st->sectors[lo + i].number;
        if (cuzk_fr_from_le32(&comm_rs[i], st->sectors[lo + i].comm_r)) rc = CUZK_ERR_NONCANONICAL;
    }
    if (!rc) rc = cuzk_fil_post_public_inputs(out, st->registered_proof, st->randomness, k, ids, comm_rs, n);
    free(ids);
    free(comm_rs);
    return rc;
}

static int snap_inputs(const cuzk_fil_statement *st, uint32_t k, cuzk_fr *out)
{
    cuzk_fr ro, rn, dn;
    if (cuzk_fr_from_le32(&ro, st->comm_r_old) || cuzk_fr_from_le32(&rn, st->comm_r_new) ||
        cuzk_fr_from_le32(&dn, st->comm_d_new))
        return CUZK_ERR_NONCANONICAL;
    return cuzk_fil_snap_public_inputs(out, st->registered_proof, k, &ro, &dn, &rn);
}

int cuzk_fil_statement_inputs(const cuzk_fil_statement *st, uint32_t i, cuzk_fr *out)
{
    if (!st->finished || i >= cuzk_fil_statement_proofs(st)) return CUZK_ERR_INVALID_ARG;
    uint32_t k = cuzk_fil_statement_partition_of(st, i);
    switch (st->kind) {
    case CUZK_FIL_STMT_POREP: {
        cuzk_fil_seal_values v = {.registered_proof = st->registered_proof, .sector_id = st->sector_number};
        memcpy(v.prover_id, st->prover_id, 32);
        memcpy(v.ticket, st->ticket, 32);
        memcpy(v.seed, st->seed, 32);
        memcpy(v.comm_d, st->comm_d, 32);
        memcpy(v.comm_r, st->comm_r, 32);
        return cuzk_fil_porep_public_inputs(out, &v, k);
    }
    case CUZK_FIL_STMT_WINDOW_POST:
    case CUZK_FIL_STMT_WINNING_POST: return post_inputs(st, k, out);
    case CUZK_FIL_STMT_SNAP: return snap_inputs(st, k, out);
    default: return CUZK_ERR_INVALID_ARG;
    }
}
