/* A statement's values from text (fil_statement.h): one table of the values, one parser per
 * form (decimal, sizes, ID addresses, hex / base64 bytes, commitments as hex or CIDs), the
 * same for the command line and a JSON file. */
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/base64.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_statement.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/util/hex.h"
#include "cuzk/util/size.h"

typedef enum {
    T_KIND, T_PROOF, T_SIZE, T_MINER, T_PROVER_ID, T_U64, T_U32, T_SEALED, T_UNSEALED, T_BYTES32, T_SECTOR
} vtype;

static const struct value {
    const char *name;
    uint32_t bit;
    vtype type;
    size_t off; /* where in cuzk_fil_statement */
} values[] = {
    {"kind", CUZK_FIL_SV_KIND, T_KIND, 0},
    {"registered_proof", CUZK_FIL_SV_PROOF, T_PROOF, 0},
    {"sector_size", CUZK_FIL_SV_SIZE, T_SIZE, offsetof(cuzk_fil_statement, sector_size)},
    {"miner", CUZK_FIL_SV_PROVER, T_MINER, offsetof(cuzk_fil_statement, prover_id)},
    {"prover_id", CUZK_FIL_SV_PROVER, T_PROVER_ID, offsetof(cuzk_fil_statement, prover_id)},
    {"sector_number", CUZK_FIL_SV_SECTOR_NUMBER, T_U64, offsetof(cuzk_fil_statement, sector_number)},
    {"comm_r", CUZK_FIL_SV_COMM_R, T_SEALED, offsetof(cuzk_fil_statement, comm_r)},
    {"comm_d", CUZK_FIL_SV_COMM_D, T_UNSEALED, offsetof(cuzk_fil_statement, comm_d)},
    {"ticket", CUZK_FIL_SV_TICKET, T_BYTES32, offsetof(cuzk_fil_statement, ticket)},
    {"seed", CUZK_FIL_SV_SEED, T_BYTES32, offsetof(cuzk_fil_statement, seed)},
    {"randomness", CUZK_FIL_SV_RANDOMNESS, T_BYTES32, offsetof(cuzk_fil_statement, randomness)},
    {"comm_r_old", CUZK_FIL_SV_COMM_R_OLD, T_SEALED, offsetof(cuzk_fil_statement, comm_r_old)},
    {"comm_r_new", CUZK_FIL_SV_COMM_R_NEW, T_SEALED, offsetof(cuzk_fil_statement, comm_r_new)},
    {"comm_d_new", CUZK_FIL_SV_COMM_D_NEW, T_UNSEALED, offsetof(cuzk_fil_statement, comm_d_new)},
    {"sector", CUZK_FIL_SV_SECTORS, T_SECTOR, 0},
    {"partition", CUZK_FIL_SV_PARTITION, T_U32, offsetof(cuzk_fil_statement, partition)},
};

#define bad(err, err_len, ...) cuzk_errf(err, err_len, CUZK_ERR_FORMAT, __VA_ARGS__)

/* Decimal digits only (no sign, spaces or prefix), at most 2^64 - 1. */
static int dec_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* 32 bytes: 64 hex digits after an optional "0x" or "\x" (psql's bytea), or padded base64. */
static int bytes32(uint8_t out[32], const char *s, const char *name, char *err, size_t err_len)
{
    const char *hex = !strncmp(s, "0x", 2) || !strncmp(s, "\\x", 2) ? s + 2 : s;
    if (strlen(hex) == 64 && !cuzk_hex_decode(out, 32, hex)) return CUZK_OK;
    size_t n = strlen(s), len = 0;
    uint8_t *b = n == 44 ? cuzk_base64_decode(s, n, &len) : NULL;
    if (b && len == 32) memcpy(out, b, 32);
    free(b);
    if (len == 32) return CUZK_OK;
    return bad(err, err_len, "%s: \"%.80s\" is not 32 bytes (64 hex digits, or 44 characters of base64)", name, s);
}

/* An ID address ("f01000", "t01000") or the bare actor id, as the miner's prover id. */
static int miner(uint8_t out[32], const char *s, char *err, size_t err_len)
{
    uint64_t id;
    const char *d = (s[0] == 'f' || s[0] == 't') && s[1] == '0' ? s + 2 : s;
    if ((s[0] == 'f' || s[0] == 't') && s[1] >= '1' && s[1] <= '4')
        return bad(err, err_len, "miner: %.80s is not an ID address: give the miner actor's (f0...)", s);
    if (dec_u64(d, &id)) return bad(err, err_len, "miner: \"%.80s\" is not an ID address (f01000, t01000 or 1000)", s);
    cuzk_fil_prover_id(out, id);
    return CUZK_OK;
}

/* A prover id in hex: a canonical element, as filecoin-proofs' as_safe_commitment requires. */
static int prover_hex(uint8_t out[32], const char *s, char *err, size_t err_len)
{
    const char *hex = !strncmp(s, "0x", 2) ? s + 2 : s;
    cuzk_fr t;
    if (strlen(hex) != 64 || cuzk_hex_decode(out, 32, hex))
        return bad(err, err_len, "prover_id: \"%.80s\" is not 64 hex digits", s);
    if (cuzk_fr_from_le32(&t, out))
        return cuzk_errf(err, err_len, CUZK_ERR_NONCANONICAL, "prover_id: not a canonical field element");
    return CUZK_OK;
}

static int kind(cuzk_fil_statement *st, const char *s, char *err, size_t err_len)
{
    for (int k = CUZK_FIL_STMT_POREP; k <= CUZK_FIL_STMT_SNAP; k++)
        if (!strcmp(s, cuzk_fil_stmt_kind_name((cuzk_fil_stmt_kind)k))) return st->kind = (cuzk_fil_stmt_kind)k, 0;
    return bad(err, err_len, "kind: \"%.80s\" is none of porep, window-post, winning-post, snap", s);
}

/* A number, or a name finish resolves once the kind is known. */
static int proof(cuzk_fil_statement *st, const char *s, char *err, size_t err_len)
{
    if (!dec_u64(s, &st->registered_proof)) return CUZK_OK;
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof st->proof_name || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                          "0123456789_") != n)
        return bad(err, err_len, "registered_proof: \"%.80s\" is neither a number nor a proof name", s);
    memcpy(st->proof_name, s, n + 1);
    return CUZK_OK;
}

/* "NUMBER:COMM_R": a PoSt's challenged sector, appended. */
static int sector(cuzk_fil_statement *st, const char *s, char *err, size_t err_len)
{
    const char *colon = strchr(s, ':');
    char num[24];
    cuzk_fil_stmt_sector sec;
    if (!colon || colon - s >= (ptrdiff_t)sizeof num)
        return bad(err, err_len, "sector: \"%.80s\" is not NUMBER:COMM_R", s);
    memcpy(num, s, (size_t)(colon - s));
    num[colon - s] = 0;
    if (dec_u64(num, &sec.number)) return bad(err, err_len, "sector: \"%s\" is not a sector number", num);
    char name[48];
    snprintf(name, sizeof name, "sector %s: comm_r", num);
    int rc = cuzk_fil_commitment_text(sec.comm_r, colon + 1, 1, name, err, err_len);
    if (rc) return rc;
    if (st->num_sectors == CUZK_FIL_STMT_MAX_SECTORS)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "sector: more than %u", CUZK_FIL_STMT_MAX_SECTORS);
    if (st->num_sectors == st->cap_sectors) {
        size_t cap = st->cap_sectors ? 2 * st->cap_sectors : 16;
        cuzk_fil_stmt_sector *p = realloc(st->sectors, cap * sizeof *p);
        if (!p) return CUZK_ERR_NO_MEMORY;
        st->sectors = p, st->cap_sectors = cap;
    }
    st->sectors[st->num_sectors++] = sec;
    return CUZK_OK;
}

static int set_value(cuzk_fil_statement *st, const struct value *v, const char *s, char *err, size_t err_len)
{
    uint8_t *at = (uint8_t *)st + v->off;
    uint64_t u;
    switch (v->type) {
    case T_KIND: return kind(st, s, err, err_len);
    case T_PROOF: return proof(st, s, err, err_len);
    case T_SIZE:
        if (!cuzk_size_parse(s, &st->sector_size) || !st->sector_size)
            return bad(err, err_len, "sector_size: \"%.80s\" is not a size (2KiB, 32GiB, or bytes)", s);
        return CUZK_OK;
    case T_MINER: return miner(at, s, err, err_len);
    case T_PROVER_ID: return prover_hex(at, s, err, err_len);
    case T_U64:
    case T_U32:
        if (dec_u64(s, &u) || (v->type == T_U32 && u > UINT32_MAX))
            return bad(err, err_len, "%s: \"%.80s\" is not a decimal number%s", v->name, s,
                       v->type == T_U32 ? " below 2^32" : "");
        if (v->type == T_U32) *(uint32_t *)at = (uint32_t)u;
        else *(uint64_t *)at = u;
        return CUZK_OK;
    case T_SEALED:
    case T_UNSEALED: return cuzk_fil_commitment_text(at, s, v->type == T_SEALED, v->name, err, err_len);
    case T_BYTES32: return bytes32(at, s, v->name, err, err_len);
    case T_SECTOR: return sector(st, s, err, err_len);
    }
    return CUZK_ERR_INTERNAL;
}

int cuzk_fil_statement_set(cuzk_fil_statement *st, const char *field, const char *value, char *err,
                           size_t err_len)
{
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        const struct value *v = &values[i];
        if (strcmp(field, v->name)) continue;
        if ((st->given & v->bit) && v->type != T_SECTOR)
            return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%s: given twice%s", v->name,
                             v->bit == CUZK_FIL_SV_PROVER ? " (miner and prover_id are one value)" : "");
        int rc = set_value(st, v, value, err, err_len);
        if (!rc) st->given |= v->bit;
        return rc;
    }
    return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "%.80s: not a value of a Filecoin proof", field);
}

/* A JSON value as the text cuzk_fil_statement_set reads: a string, an integer, or a CID link
 * {"/": "..."}; NULL for anything else. */
static const char *json_text(json_t *j, char *buf, size_t cap)
{
    if (json_is_string(j)) return json_string_value(j);
    if (json_is_integer(j) && json_integer_value(j) >= 0) {
        snprintf(buf, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
        return buf;
    }
    json_t *link = json_is_object(j) && json_object_size(j) == 1 ? json_object_get(j, "/") : NULL;
    return json_is_string(link) ? json_string_value(link) : NULL;
}

/* One element of "sectors": "NUMBER:COMM_R" or {"sector_number": N, "comm_r": C}. */
static int json_sector(cuzk_fil_statement *st, json_t *e, size_t i, char *err, size_t err_len)
{
    char num[32], line[256];
    if (json_is_string(e)) return cuzk_fil_statement_set(st, "sector", json_string_value(e), err, err_len);
    bool pair = json_is_object(e) && json_object_size(e) == 2;
    const char *n = pair ? json_text(json_object_get(e, "sector_number"), num, sizeof num) : NULL;
    const char *c = n ? json_text(json_object_get(e, "comm_r"), line, sizeof line) : NULL;
    if (!c || strlen(n) + strlen(c) + 2 > sizeof line)
        return bad(err, err_len, "sectors[%zu]: expected \"NUMBER:COMM_R\" or {\"sector_number\": N, \"comm_r\": C}",
                   i);
    char joined[256 + 32];
    snprintf(joined, sizeof joined, "%s:%s", n, c);
    return cuzk_fil_statement_set(st, "sector", joined, err, err_len);
}

static int json_member(cuzk_fil_statement *st, const char *key, json_t *val, char *err, size_t err_len)
{
    if (!strcmp(key, "sectors")) {
        if (!json_is_array(val)) return bad(err, err_len, "sectors: expected an array");
        int rc = CUZK_OK;
        for (size_t i = 0; !rc && i < json_array_size(val); i++)
            rc = json_sector(st, json_array_get(val, i), i, err, err_len);
        return rc;
    }
    char buf[32];
    const char *text = json_text(val, buf, sizeof buf);
    if (!text) return bad(err, err_len, "%.80s: expected a string or a non-negative integer", key);
    return cuzk_fil_statement_set(st, key, text, err, err_len);
}

int cuzk_fil_statement_set_json(cuzk_fil_statement *st, const char *json, size_t len, char *err, size_t err_len)
{
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return bad(err, err_len, "JSON line %d column %d: %s", je.line, je.column, je.text);
    int rc = json_is_object(root) ? CUZK_OK : bad(err, err_len, "JSON: expected an object of values");
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (rc) break;
        rc = json_member(st, key, val, err, err_len);
    }
    json_decref(root);
    return rc;
}
