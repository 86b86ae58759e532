/*
 * snarkjs's JSON files for BLS12-381 Groth16 (facts from snarkjs
 * src/groth16_prove.js, groth16_verify.js, zkey_export_verificationkey.js
 * and ffjavascript's toObject/fromObject): numbers are decimal strings,
 * points are projective triples with z = 1 (affine) or the point at
 * infinity [0, 1, 0]; Fp2 elements are [c0, c1].
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "circom/circom_internal.h"
#include "cuzk/util/error.h"
#include "cuzk/ff/fp.h"
#include "cuzk/ec/pairing.h"

/* ---- decimal strings <-> little-endian limbs -------------------------------- */

/* Parses a decimal string of at most n limbs; false on anything else. */
static bool dec_parse(uint64_t *out, size_t n, const char *s)
{
    memset(out, 0, n * sizeof *out);
    if (!s || !*s) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 v = (unsigned __int128)out[i] * 10 + carry;
            out[i] = (uint64_t)v;
            carry = v >> 64;
        }
        if (carry) return false;
    }
    return true;
}

/* Decimal text of an n-limb integer (n <= 6) into buf (>= 120 bytes). */
static void dec_format(char *buf, const uint64_t *in, size_t n)
{
    uint64_t x[6];
    memcpy(x, in, n * sizeof *x);
    char tmp[128];
    size_t len = 0;
    for (;;) {
        /* x /= 10^19, remainder into 19 digits */
        unsigned __int128 rem = 0;
        bool zero = true;
        for (size_t i = n; i-- > 0;) {
            unsigned __int128 cur = (rem << 64) | x[i];
            x[i] = (uint64_t)(cur / 10000000000000000000ULL);
            rem = cur % 10000000000000000000ULL;
            zero &= x[i] == 0;
        }
        uint64_t r = (uint64_t)rem;
        for (int d = 0; d < 19; d++) {
            tmp[len++] = (char)('0' + r % 10);
            r /= 10;
            if (zero && r == 0) break;
        }
        if (zero) break;
    }
    while (len > 1 && tmp[len - 1] == '0') len--;
    for (size_t i = 0; i < len; i++) buf[i] = tmp[len - 1 - i];
    buf[len] = 0;
}

static json_t *js_fp(const cuzk_fp *x)
{
    uint64_t l[6];
    char buf[128];
    cuzk_fp_to_limbs(l, x);
    dec_format(buf, l, 6);
    return json_string(buf);
}

static json_t *js_u64s(const uint64_t *l, size_t n)
{
    char buf[128];
    dec_format(buf, l, n);
    return json_string(buf);
}

static json_t *js_fp2(const cuzk_fp2 *x) { return json_pack("[oo]", js_fp(&x->c0), js_fp(&x->c1)); }

static json_t *js_g1(const cuzk_g1_affine *p)
{
    if (cuzk_g1_affine_is_infinity(p)) return json_pack("[sss]", "0", "1", "0");
    return json_pack("[oos]", js_fp(&p->x), js_fp(&p->y), "1");
}

static json_t *js_g2(const cuzk_g2_affine *p)
{
    if (cuzk_g2_affine_is_infinity(p)) return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
    return json_pack("[oo[ss]]", js_fp2(&p->x), js_fp2(&p->y), "1", "0");
}

static char *dump(json_t *j)
{
    if (!j) return NULL;
    char *s = json_dumps(j, JSON_INDENT(1));
    json_decref(j);
    return s;
}

/* ---- reading ----------------------------------------------------------------- */

typedef struct {
    cuzk_circom_error *err;
    const char *file; /* "proof", "public", "vk" */
} rd;

static int bad(rd *c, int code, const char *fmt, const char *what) __attribute__((format(printf, 3, 0)));
static int bad(rd *c, int code, const char *fmt, const char *what)
{
    char m[160];
    snprintf(m, sizeof m, fmt, what);
    return circom_fail(c->err, code, 0, "%s json: %s", c->file, m);
}

static int rd_fp(rd *c, cuzk_fp *out, json_t *j, const char *what)
{
    uint64_t l[6];
    if (!json_is_string(j) || !dec_parse(l, 6, json_string_value(j)))
        return bad(c, CUZK_ERR_FORMAT, "%s: not a decimal string", what);
    if (cuzk_fp_from_limbs(out, l)) return bad(c, CUZK_ERR_NONCANONICAL, "%s: coordinate >= p", what);
    return CUZK_OK;
}

static int rd_fp2(rd *c, cuzk_fp2 *out, json_t *j, const char *what)
{
    if (!json_is_array(j) || json_array_size(j) != 2)
        return bad(c, CUZK_ERR_FORMAT, "%s: Fp2 element is not [c0, c1]", what);
    int rc = rd_fp(c, &out->c0, json_array_get(j, 0), what);
    return rc ? rc : rd_fp(c, &out->c1, json_array_get(j, 1), what);
}

/* z coordinate: 1 -> affine, 0 -> infinity; anything else rejected. */
static int rd_z(rd *c, bool *inf, const cuzk_fp *z0, const cuzk_fp *z1, const char *what)
{
    if (z1 && !cuzk_fp_is_zero(z1)) return bad(c, CUZK_ERR_FORMAT, "%s: z is not 0 or 1", what);
    if (cuzk_fp_is_one(z0)) *inf = false;
    else if (cuzk_fp_is_zero(z0)) *inf = true;
    else return bad(c, CUZK_ERR_FORMAT, "%s: z is not 0 or 1 (only affine points are written)", what);
    return CUZK_OK;
}

static int rd_g1(rd *c, cuzk_g1_affine *out, json_t *j, const char *what)
{
    size_t n = json_array_size(j);
    if (!json_is_array(j) || (n != 2 && n != 3))
        return bad(c, CUZK_ERR_FORMAT, "%s: G1 point is not [x, y, z]", what);
    cuzk_fp z = cuzk_fp_one;
    int rc;
    if ((rc = rd_fp(c, &out->x, json_array_get(j, 0), what)) || (rc = rd_fp(c, &out->y, json_array_get(j, 1), what)) ||
        (n == 3 && (rc = rd_fp(c, &z, json_array_get(j, 2), what))))
        return rc;
    bool inf;
    if ((rc = rd_z(c, &inf, &z, NULL, what))) return rc;
    if (inf) {
        if (!cuzk_fp_is_zero(&out->x) || !cuzk_fp_is_one(&out->y))
            return bad(c, CUZK_ERR_FORMAT, "%s: point at infinity not written as [0, 1, 0]", what);
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    if (cuzk_g1_affine_is_infinity(out) || !cuzk_g1_affine_is_on_curve(out))
        return bad(c, CUZK_ERR_NOT_ON_CURVE, "%s: not on the curve", what);
    if (!cuzk_g1_affine_in_subgroup(out))
        return bad(c, CUZK_ERR_NOT_IN_SUBGROUP, "%s: not in the prime-order subgroup", what);
    return CUZK_OK;
}

static int rd_g2(rd *c, cuzk_g2_affine *out, json_t *j, const char *what)
{
    size_t n = json_array_size(j);
    if (!json_is_array(j) || (n != 2 && n != 3))
        return bad(c, CUZK_ERR_FORMAT, "%s: G2 point is not [x, y, z]", what);
    cuzk_fp2 z = cuzk_fp2_one;
    int rc;
    if ((rc = rd_fp2(c, &out->x, json_array_get(j, 0), what)) || (rc = rd_fp2(c, &out->y, json_array_get(j, 1), what)) ||
        (n == 3 && (rc = rd_fp2(c, &z, json_array_get(j, 2), what))))
        return rc;
    bool inf;
    if ((rc = rd_z(c, &inf, &z.c0, &z.c1, what))) return rc;
    if (inf) {
        if (!cuzk_fp2_is_zero(&out->x) || !cuzk_fp2_is_one(&out->y))
            return bad(c, CUZK_ERR_FORMAT, "%s: point at infinity not written as [[0,0], [1,0], [0,0]]", what);
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    if (cuzk_g2_affine_is_infinity(out) || !cuzk_g2_affine_is_on_curve(out))
        return bad(c, CUZK_ERR_NOT_ON_CURVE, "%s: not on the curve", what);
    if (!cuzk_g2_affine_in_subgroup(out))
        return bad(c, CUZK_ERR_NOT_IN_SUBGROUP, "%s: not in the prime-order subgroup", what);
    return CUZK_OK;
}

static int rd_load(rd *c, json_t **out, const char *buf, size_t len)
{
    json_error_t je;
    *out = buf ? json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je) : NULL;
    if (!*out)
        return circom_fail(c->err, CUZK_ERR_FORMAT, buf ? (uint64_t)je.position : 0,
                           "%s json: %s (line %d)", c->file, buf ? je.text : "no input", buf ? je.line : 0);
    return CUZK_OK;
}

/* A string member that must equal want when present (required: must be there). */
static int rd_tag(rd *c, json_t *o, const char *key, const char *want, bool required)
{
    json_t *v = json_object_get(o, key);
    if (!v) return required ? bad(c, CUZK_ERR_FORMAT, "\"%s\" missing", key) : CUZK_OK;
    if (!json_is_string(v) || strcmp(json_string_value(v), want)) {
        char m[96];
        snprintf(m, sizeof m, "\"%s\" is not \"%s\"", key, want);
        return bad(c, CUZK_ERR_UNSUPPORTED, "%s", m);
    }
    return CUZK_OK;
}

int cuzk_circom_proof_read_json(cuzk_groth16_proof *out, const char *buf, size_t len,
                                cuzk_circom_error *err)
{
    rd c = {err, "proof"};
    if (!out) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "proof json: no output");
    memset(out, 0, sizeof *out);
    json_t *j;
    int rc = rd_load(&c, &j, buf, len);
    if (rc) return rc;
    if (!json_is_object(j)) rc = bad(&c, CUZK_ERR_FORMAT, "%s", "not an object");
    if (!rc) rc = rd_tag(&c, j, "protocol", "groth16", false);
    if (!rc) rc = rd_tag(&c, j, "curve", "bls12381", false);
    if (!rc) rc = rd_g1(&c, &out->a, json_object_get(j, "pi_a"), "pi_a");
    if (!rc) rc = rd_g2(&c, &out->b, json_object_get(j, "pi_b"), "pi_b");
    if (!rc) rc = rd_g1(&c, &out->c, json_object_get(j, "pi_c"), "pi_c");
    if (!rc && (cuzk_g1_affine_is_infinity(&out->a) || cuzk_g2_affine_is_infinity(&out->b) ||
                cuzk_g1_affine_is_infinity(&out->c)))
        rc = bad(&c, CUZK_ERR_FORMAT, "%s", "a proof point is the point at infinity");
    json_decref(j);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}

char *cuzk_circom_proof_to_json(const cuzk_groth16_proof *p)
{
    return dump(json_pack("{s:o, s:o, s:o, s:s, s:s}", "pi_a", js_g1(&p->a), "pi_b", js_g2(&p->b), "pi_c",
                          js_g1(&p->c), "protocol", "groth16", "curve", "bls12381"));
}

int cuzk_circom_public_read_json(cuzk_fr **out, size_t *n, const char *buf, size_t len,
                                 cuzk_circom_error *err)
{
    rd c = {err, "public"};
    if (!out || !n) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "public json: no output");
    *out = NULL, *n = 0;
    json_t *j;
    int rc = rd_load(&c, &j, buf, len);
    if (rc) return rc;
    if (!json_is_array(j)) {
        json_decref(j);
        return bad(&c, CUZK_ERR_FORMAT, "%s", "not an array of decimal strings");
    }
    size_t m = json_array_size(j);
    cuzk_fr *v = malloc((m ? m : 1) * sizeof *v);
    if (!v) {
        json_decref(j);
        return circom_fail(err, CUZK_ERR_NO_MEMORY, 0, "public json: out of memory");
    }
    for (size_t i = 0; i < m && !rc; i++) {
        uint64_t l[4];
        json_t *e = json_array_get(j, i);
        char what[48];
        snprintf(what, sizeof what, "signal %zu", i);
        if (!json_is_string(e) || !dec_parse(l, 4, json_string_value(e)))
            rc = bad(&c, CUZK_ERR_FORMAT, "%s: not a decimal string", what);
        else if (cuzk_fr_from_limbs(&v[i], l))
            rc = bad(&c, CUZK_ERR_NONCANONICAL, "%s: value >= r", what);
    }
    json_decref(j);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v, *n = m;
    return CUZK_OK;
}

char *cuzk_circom_public_to_json(const uint64_t (*values)[4], size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, js_u64s(values[i], 4))) {
            json_decref(a);
            return NULL;
        }
    return dump(a);
}

static json_t *js_gt(const cuzk_gt *g)
{
    const cuzk_fp6 *h[2] = {&g->c0, &g->c1};
    json_t *o = json_array();
    for (int i = 0; i < 2; i++)
        json_array_append_new(o, json_pack("[ooo]", js_fp2(&h[i]->c0), js_fp2(&h[i]->c1), js_fp2(&h[i]->c2)));
    return o;
}

char *cuzk_circom_vk_to_json(const cuzk_groth16_vk *vk)
{
    if (!vk || !vk->n_ic || !vk->ic) return NULL;
    cuzk_gt ab;
    cuzk_pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
    json_t *ic = json_array();
    for (size_t i = 0; ic && i < vk->n_ic; i++) json_array_append_new(ic, js_g1(&vk->ic[i]));
    return dump(json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "protocol", "groth16", "curve",
                          "bls12381", "nPublic", (json_int_t)(vk->n_ic - 1), "vk_alpha_1", js_g1(&vk->alpha_g1),
                          "vk_beta_2", js_g2(&vk->beta_g2), "vk_gamma_2", js_g2(&vk->gamma_g2), "vk_delta_2",
                          js_g2(&vk->delta_g2), "vk_alphabeta_12", js_gt(&ab), "IC", ic));
}

static int rd_gt(rd *c, cuzk_gt *out, json_t *j)
{
    const char *what = "vk_alphabeta_12";
    cuzk_fp6 *h[2] = {&out->c0, &out->c1};
    if (!json_is_array(j) || json_array_size(j) != 2)
        return bad(c, CUZK_ERR_FORMAT, "%s: not [c0, c1] of Fp6", what);
    for (int i = 0; i < 2; i++) {
        json_t *e = json_array_get(j, i);
        if (!json_is_array(e) || json_array_size(e) != 3)
            return bad(c, CUZK_ERR_FORMAT, "%s: Fp6 element is not [c0, c1, c2]", what);
        cuzk_fp2 *f[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
        for (int k = 0; k < 3; k++) {
            int rc = rd_fp2(c, f[k], json_array_get(e, k), what);
            if (rc) return rc;
        }
    }
    return CUZK_OK;
}

int cuzk_circom_vk_read_json(cuzk_groth16_vk *out, const char *buf, size_t len,
                             cuzk_circom_error *err)
{
    rd c = {err, "vk"};
    if (!out) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "vk json: no output");
    memset(out, 0, sizeof *out);
    json_t *j;
    int rc = rd_load(&c, &j, buf, len);
    if (rc) return rc;
    json_t *np = json_object_get(j, "nPublic"), *ic = json_object_get(j, "IC");
    cuzk_gt ab_file, ab;
    if (!json_is_object(j)) rc = bad(&c, CUZK_ERR_FORMAT, "%s", "not an object");
    if (!rc) rc = rd_tag(&c, j, "protocol", "groth16", true);
    if (!rc) rc = rd_tag(&c, j, "curve", "bls12381", true);
    if (!rc && (!json_is_integer(np) || json_integer_value(np) < 0 || !json_is_array(ic) ||
                json_array_size(ic) != (size_t)json_integer_value(np) + 1))
        rc = bad(&c, CUZK_ERR_FORMAT, "%s", "nPublic is not an integer n >= 0 with n + 1 IC points");
    if (!rc) rc = rd_g1(&c, &out->alpha_g1, json_object_get(j, "vk_alpha_1"), "vk_alpha_1");
    if (!rc) rc = rd_g2(&c, &out->beta_g2, json_object_get(j, "vk_beta_2"), "vk_beta_2");
    if (!rc) rc = rd_g2(&c, &out->gamma_g2, json_object_get(j, "vk_gamma_2"), "vk_gamma_2");
    if (!rc) rc = rd_g2(&c, &out->delta_g2, json_object_get(j, "vk_delta_2"), "vk_delta_2");
    if (!rc) rc = rd_gt(&c, &ab_file, json_object_get(j, "vk_alphabeta_12"));
    if (!rc) {
        cuzk_pairing(&ab, &out->alpha_g1, &out->beta_g2);
        if (!cuzk_gt_eq(&ab, &ab_file))
            rc = bad(&c, CUZK_ERR_FORMAT, "%s", "vk_alphabeta_12 is not e(vk_alpha_1, vk_beta_2)");
    }
    if (!rc) {
        out->n_ic = json_array_size(ic);
        if (!(out->ic = malloc(out->n_ic * sizeof *out->ic)))
            rc = circom_fail(err, CUZK_ERR_NO_MEMORY, 0, "vk json: out of memory");
        for (size_t i = 0; !rc && i < out->n_ic; i++) {
            char what[32];
            snprintf(what, sizeof what, "IC[%zu]", i);
            rc = rd_g1(&c, &out->ic[i], json_array_get(ic, i), what);
        }
    }
    json_decref(j);
    if (rc) cuzk_groth16_vk_free(out);
    return rc;
}
