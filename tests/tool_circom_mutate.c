/*
 * Malformed-input checks for the circom readers, run on real files made by
 * circom2 and snarkjs (tests/circom.test.sh):
 *   tool_circom_mutate zkey|r1cs|wtns|proof|vk|public FILE
 * The file itself must parse; every mutation of it (random truncations, a
 * duplicated section, the wrong curve, out-of-range numbers, points off the
 * curve or outside the subgroup, bad JSON shapes) must be rejected with the
 * expected error code. Seeded by CUZK_SEED (printed).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"
#include "cuzk/ff/fp2.h"
#include "testutil.h"

/* decimal p and r (the BLS12-381 moduli) */
static const char P_DEC[] = "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787";
static const char R_DEC[] = "52435875175126190479447740508185965837690552500527637822603658699938581184513";

static cuzk_rng rng;
static const char *kind;

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }
static void put_limbs(uint8_t *p, const uint64_t *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) p[8 * i + b] = (uint8_t)(l[i] >> (8 * b));
}

/* Offset and size of the section of a type in an iden3 container; 0 if absent. */
static size_t section(const uint8_t *b, size_t len, uint32_t type, size_t *size)
{
    size_t pos = 12;
    for (uint32_t i = 0, n = get32(b + 8); i < n && pos + 12 <= len; i++) {
        uint64_t sz = get64(b + pos + 4);
        if (get32(b + pos) == type) {
            *size = (size_t)sz;
            return pos + 12;
        }
        pos += 12 + (size_t)sz;
    }
    *size = 0;
    return 0;
}

static int parse_bin(const uint8_t *b, size_t len, cuzk_circom_mode mode, cuzk_circom_error *e)
{
    int rc;
    if (!strcmp(kind, "zkey")) {
        cuzk_circom_zkey z;
        rc = cuzk_circom_zkey_read_mem(&z, b, len, mode, 2, e);
        cuzk_circom_zkey_free(&z);
    } else if (!strcmp(kind, "r1cs")) {
        cuzk_circom_r1cs r;
        rc = cuzk_circom_r1cs_read_mem(&r, b, len, e);
        cuzk_circom_r1cs_free(&r);
    } else {
        cuzk_circom_wtns w;
        rc = cuzk_circom_wtns_read_mem(&w, b, len, e);
        cuzk_circom_wtns_free(&w);
    }
    return rc;
}

/* Applies nothing itself: parses m (a mutated copy) and checks the code. */
static void expect_bin(const uint8_t *m, size_t len, cuzk_circom_mode mode, int want, const char *what)
{
    cuzk_circom_error e = {0};
    int rc = parse_bin(m, len, mode, &e);
    CHECK_MSG(rc == want, "%s %s: got %d (%s), want %d", kind, what, rc, rc ? e.msg : "accepted", want);
    if (rc == want && rc) printf("  rejected %-34s %s\n", what, e.msg);
}

/* A point of E(Fp) (y^2 = x^3 + 4) or E'(Fp2) (y^2 = x^3 + 4(u+1)) almost
 * surely outside the order-r subgroup (the cofactors are about 2^126, 2^381). */
static void g1_off_subgroup(cuzk_g1_affine *p)
{
    cuzk_fp four, t;
    cuzk_fp_set_u64(&four, 4);
    do {
        cuzk_fp_random(&p->x, &rng);
        cuzk_fp_sqr(&t, &p->x);
        cuzk_fp_mul(&t, &t, &p->x);
        cuzk_fp_add(&t, &t, &four);
    } while (!cuzk_fp_sqrt(&p->y, &t) || cuzk_g1_affine_in_subgroup(p));
}

static void g2_off_subgroup(cuzk_g2_affine *p)
{
    cuzk_fp2 b, t;
    cuzk_fp_set_u64(&b.c0, 4);
    cuzk_fp_set_u64(&b.c1, 4);
    do {
        cuzk_fp2_random(&p->x, &rng);
        cuzk_fp2_sqr(&t, &p->x);
        cuzk_fp2_mul(&t, &t, &p->x);
        cuzk_fp2_add(&t, &t, &b);
    } while (!cuzk_fp2_sqrt(&p->y, &t) || cuzk_g2_affine_in_subgroup(p));
}

/* Index of a point slot (size sz) in a section that is not all zeros. */
static size_t nonzero_slot(const uint8_t *b, size_t off, size_t size, size_t sz)
{
    size_t n = size / sz, start = (size_t)(cuzk_rng_u64(&rng) % n);
    for (size_t k = 0; k < n; k++) {
        size_t i = (start + k) % n;
        for (size_t j = 0; j < sz; j++)
            if (b[off + i * sz + j]) return i;
    }
    return 0;
}

static void mutate_bin(const uint8_t *orig, size_t len)
{
    uint8_t *m = malloc(2 * len + 64);
    const cuzk_circom_mode V = CUZK_CIRCOM_VALIDATE, T = CUZK_CIRCOM_TRUSTED;
#define RESET() memcpy(m, orig, len)
    RESET();
    expect_bin(m, len, V, CUZK_OK, "the file itself");

    for (int i = 0; i < 24; i++) {
        size_t cut = (size_t)(cuzk_rng_u64(&rng) % len);
        char what[48];
        snprintf(what, sizeof what, "truncated to %zu bytes", cut);
        expect_bin(m, cut, V, CUZK_ERR_FORMAT, what);
    }
    /* the first section's record again at the end */
    size_t s1, o1 = section(orig, len, 1, &s1);
    memcpy(m + len, orig + o1 - 12, s1 + 12);
    put32(m + 8, get32(orig + 8) + 1);
    expect_bin(m, len + s1 + 12, V, CUZK_ERR_FORMAT, "section 1 duplicated");
    RESET();
    m[0] ^= 1;
    expect_bin(m, len, V, CUZK_ERR_FORMAT, "bad magic");
    RESET();
    put32(m + 4, get32(orig + 4) + 1);
    expect_bin(m, len, V, CUZK_ERR_UNSUPPORTED, "another version");

    const uint64_t *rmod = cuzk_fr_modulus;
    if (!strcmp(kind, "zkey")) {
        size_t s2, o2 = section(orig, len, 2, &s2);
        RESET();
        put32(m + o1, 2);
        expect_bin(m, len, V, CUZK_ERR_UNSUPPORTED, "protocol PLONK");
        RESET();
        m[o2 + 4] ^= 1; /* q */
        expect_bin(m, len, V, CUZK_ERR_UNSUPPORTED, "another base field prime");
        RESET();
        put32(m + o2 + 52, 40); /* n8r */
        expect_bin(m, len, V, CUZK_ERR_UNSUPPORTED, "scalar field of 40 bytes");
        RESET();
        put32(m + o2 + 96, get32(orig + o2 + 96) - 1); /* domain size */
        expect_bin(m, len, V, CUZK_ERR_FORMAT, "domain size not a power of 2");
        size_t s4, o4 = section(orig, len, 4, &s4);
        uint32_t nc = get32(orig + o4), k = (uint32_t)(cuzk_rng_u64(&rng) % nc);
        RESET();
        put_limbs(m + o4 + 4 + 44 * (size_t)k + 12, rmod, 4);
        expect_bin(m, len, V, CUZK_ERR_NONCANONICAL, "coefficient = r");
        RESET();
        put32(m + o4 + 4 + 44 * (size_t)k, 2);
        expect_bin(m, len, V, CUZK_ERR_FORMAT, "coefficient of matrix 2");
        RESET();
        put32(m + o4 + 4 + 44 * (size_t)k + 8, get32(orig + o2 + 88)); /* signal = nVars */
        expect_bin(m, len, V, CUZK_ERR_FORMAT, "coefficient of signal nVars");
        /* H point k: coordinate = p, y + 1 (off the curve), outside the subgroup */
        size_t s9, o9 = section(orig, len, 9, &s9), h = nonzero_slot(orig, o9, s9, 96);
        RESET();
        put_limbs(m + o9 + 96 * h, cuzk_fp_modulus, 6);
        expect_bin(m, len, V, CUZK_ERR_NONCANONICAL, "H point x = p");
        RESET();
        m[o9 + 96 * h + 48] ^= 1;
        expect_bin(m, len, V, CUZK_ERR_NOT_ON_CURVE, "H point y changed");
        cuzk_g1_affine q1;
        g1_off_subgroup(&q1);
        RESET();
        put_limbs(m + o9 + 96 * h, q1.x.l, 6); /* Montgomery limbs: the zkey layout */
        put_limbs(m + o9 + 96 * h + 48, q1.y.l, 6);
        expect_bin(m, len, V, CUZK_ERR_NOT_IN_SUBGROUP, "H point outside G1");
        expect_bin(m, len, T, CUZK_OK, "H point outside G1, trusted mode");
        size_t s7, o7 = section(orig, len, 7, &s7), b = nonzero_slot(orig, o7, s7, 192);
        cuzk_g2_affine q2;
        g2_off_subgroup(&q2);
        RESET();
        put_limbs(m + o7 + 192 * b, q2.x.c0.l, 6);
        put_limbs(m + o7 + 192 * b + 48, q2.x.c1.l, 6);
        put_limbs(m + o7 + 192 * b + 96, q2.y.c0.l, 6);
        put_limbs(m + o7 + 192 * b + 144, q2.y.c1.l, 6);
        expect_bin(m, len, V, CUZK_ERR_NOT_IN_SUBGROUP, "B2 point outside G2");
        /* the vk's delta_2 (always checked) off the curve */
        RESET();
        m[o2 + 100 + 96 + 96 + 192 + 192 + 96 + 100] ^= 4;
        expect_bin(m, len, T, CUZK_ERR_NOT_ON_CURVE, "delta_2 changed, trusted mode");
        RESET();
        put32(m + o2 + 92, get32(orig + o2 + 92) + 1); /* nPublic */
        expect_bin(m, len, V, CUZK_ERR_FORMAT, "nPublic + 1 (IC too short)");
    } else if (!strcmp(kind, "r1cs")) {
        RESET();
        m[o1 + 4] ^= 1;
        expect_bin(m, len, V, CUZK_ERR_UNSUPPORTED, "another prime (wrong curve)");
        RESET();
        put32(m + o1, 48);
        expect_bin(m, len, V, CUZK_ERR_UNSUPPORTED, "field size 48");
        size_t s2, o2 = section(orig, len, 2, &s2);
        uint32_t nw = get32(orig + o1 + 36);
        /* first combination with at least two terms */
        size_t pos = o2, lc2 = 0;
        while (pos < o2 + s2) {
            uint32_t nt = get32(orig + pos);
            if (nt >= 2) {
                lc2 = pos;
                break;
            }
            pos += 4 + 36 * (size_t)nt;
        }
        RESET();
        put_limbs(m + o2 + 8, rmod, 4); /* constraint 0's first A term (circom: A nonempty?) */
        if (get32(orig + o2) > 0) expect_bin(m, len, V, CUZK_ERR_NONCANONICAL, "coefficient = r");
        RESET();
        if (get32(orig + o2) > 0) {
            put32(m + o2 + 4, nw);
            expect_bin(m, len, V, CUZK_ERR_FORMAT, "wire = nWires");
        }
        if (lc2) {
            RESET();
            memcpy(m + lc2 + 4 + 36, orig + lc2 + 4, 4);
            expect_bin(m, len, V, CUZK_ERR_FORMAT, "a wire twice in one combination");
        }
        RESET();
        put32(m + o1 + 48, nw); /* private inputs = nWires */
        expect_bin(m, len, V, CUZK_ERR_FORMAT, "more inputs than wires");
    } else {
        RESET();
        m[o1 + 4] ^= 1;
        expect_bin(m, len, V, CUZK_ERR_UNSUPPORTED, "another prime (wrong curve)");
        RESET();
        put32(m + o1 + 36, get32(orig + o1 + 36) + 1);
        expect_bin(m, len, V, CUZK_ERR_FORMAT, "nWitness + 1");
        size_t s2, o2 = section(orig, len, 2, &s2);
        size_t i = (size_t)(cuzk_rng_u64(&rng) % (s2 / 32));
        RESET();
        put_limbs(m + o2 + 32 * i, rmod, 4);
        expect_bin(m, len, V, CUZK_ERR_NONCANONICAL, "a value = r");
    }
#undef RESET
    free(m);
}

/* ---- JSON ------------------------------------------------------------------ */

static int parse_json(const char *s, size_t len, cuzk_circom_error *e)
{
    int rc;
    if (!strcmp(kind, "proof")) {
        cuzk_groth16_proof p;
        rc = cuzk_circom_proof_read_json(&p, s, len, e);
    } else if (!strcmp(kind, "vk")) {
        cuzk_groth16_vk vk;
        rc = cuzk_circom_vk_read_json(&vk, s, len, e);
        if (!rc) cuzk_groth16_vk_free(&vk);
    } else {
        cuzk_fr *v = NULL;
        size_t n;
        rc = cuzk_circom_public_read_json(&v, &n, s, len, e);
        free(v);
    }
    return rc;
}

static void expect_text(const char *s, size_t len, int want, const char *what)
{
    cuzk_circom_error e = {0};
    int rc = parse_json(s, len, &e);
    CHECK_MSG(rc == want, "%s %s: got %d (%s), want %d", kind, what, rc, rc ? e.msg : "accepted", want);
    if (rc == want && rc) printf("  rejected %-34s %s\n", what, e.msg);
}

static void expect_json(json_t *j, int want, const char *what)
{
    char *s = json_dumps(j, 0);
    expect_text(s, strlen(s), want, what);
    free(s);
    json_decref(j);
}

/* A deep copy of the document with the member at path replaced by v. */
static json_t *with(json_t *doc, const char *key, int i0, int i1, json_t *v)
{
    json_t *d = json_deep_copy(doc), *t = key ? json_object_get(d, key) : d;
    if (i0 >= 0 && i1 >= 0) json_array_set_new(json_array_get(t, (size_t)i0), (size_t)i1, v);
    else if (i0 >= 0) json_array_set_new(t, (size_t)i0, v);
    else json_object_set_new(d, key, v);
    return d;
}

static void mutate_json(const char *text, size_t len)
{
    expect_text(text, len, CUZK_OK, "the file itself");
    size_t last = len; /* cuts before the closing bracket: a trailing newline is not a cut */
    while (last > 1 && text[last - 1] != '}' && text[last - 1] != ']') last--;
    for (int i = 0; i < 8; i++) {
        size_t cut = (size_t)(cuzk_rng_u64(&rng) % (last - 1));
        expect_text(text, cut, CUZK_ERR_FORMAT, "truncated text");
    }
    json_t *doc = json_loadb(text, len, 0, NULL);
    if (!strcmp(kind, "proof")) {
        expect_json(with(doc, "curve", -1, -1, json_string("bn128")), CUZK_ERR_UNSUPPORTED, "curve bn128");
        expect_json(with(doc, "pi_a", 0, -1, json_string(P_DEC)), CUZK_ERR_NONCANONICAL, "pi_a x = p");
        expect_json(with(doc, "pi_b", 2, 0, json_string("2")), CUZK_ERR_FORMAT, "pi_b z = 2");
        expect_json(with(doc, "pi_c", -1, -1, json_pack("[sss]", "0", "1", "0")), CUZK_ERR_FORMAT,
                    "pi_c at infinity");
        expect_json(with(doc, "pi_a", 1, -1, json_string("-1")), CUZK_ERR_FORMAT, "pi_a y = -1");
        /* points that parse but are wrong, rewritten through the writer */
        cuzk_groth16_proof p, q;
        cuzk_circom_proof_read_json(&p, text, len, NULL);
        q = p;
        cuzk_fp_add(&q.a.y, &q.a.y, &cuzk_fp_one);
        char *s = cuzk_circom_proof_to_json(&q);
        expect_text(s, strlen(s), CUZK_ERR_NOT_ON_CURVE, "pi_a y + 1");
        free(s);
        q = p;
        g1_off_subgroup(&q.c);
        s = cuzk_circom_proof_to_json(&q);
        expect_text(s, strlen(s), CUZK_ERR_NOT_IN_SUBGROUP, "pi_c outside G1");
        free(s);
        q = p;
        g2_off_subgroup(&q.b);
        s = cuzk_circom_proof_to_json(&q);
        expect_text(s, strlen(s), CUZK_ERR_NOT_IN_SUBGROUP, "pi_b outside G2");
        free(s);
    } else if (!strcmp(kind, "vk")) {
        expect_json(with(doc, "curve", -1, -1, json_string("bn128")), CUZK_ERR_UNSUPPORTED, "curve bn128");
        expect_json(with(doc, "protocol", -1, -1, json_string("plonk")), CUZK_ERR_UNSUPPORTED, "protocol plonk");
        json_int_t np = json_integer_value(json_object_get(doc, "nPublic"));
        expect_json(with(doc, "nPublic", -1, -1, json_integer(np + 1)), CUZK_ERR_FORMAT, "nPublic + 1");
        json_t *d = json_deep_copy(doc);
        json_t *ab = json_array_get(json_array_get(json_object_get(d, "vk_alphabeta_12"), 1), 2);
        json_array_set_new(ab, 0, json_string("12345"));
        expect_json(d, CUZK_ERR_FORMAT, "vk_alphabeta_12 changed");
        expect_json(with(doc, "IC", 0, 1, json_string("5")), CUZK_ERR_NOT_ON_CURVE, "IC[0] y = 5");
        expect_json(with(doc, "vk_delta_2", 0, 0, json_string(P_DEC)), CUZK_ERR_NONCANONICAL, "delta_2 x.c0 = p");
    } else {
        expect_json(with(doc, NULL, 0, -1, json_string(R_DEC)), CUZK_ERR_NONCANONICAL, "signal 0 = r");
        expect_json(with(doc, NULL, 0, -1, json_integer(5)), CUZK_ERR_FORMAT, "signal 0 a number");
        expect_json(with(doc, NULL, 0, -1, json_string("12a")), CUZK_ERR_FORMAT, "signal 0 = 12a");
        expect_text("{}", 2, CUZK_ERR_FORMAT, "an object");
    }
    json_decref(doc);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tool_circom_mutate zkey|r1cs|wtns|proof|vk|public FILE\n");
        return 2;
    }
    kind = argv[1];
    char name[64];
    snprintf(name, sizeof name, "circom_mutate_%s", kind);
    tu_init(&rng, name);
    size_t len;
    uint8_t *b = slurp(argv[2], &len);
    if (!b || len < 16) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    if (!strcmp(kind, "zkey") || !strcmp(kind, "r1cs") || !strcmp(kind, "wtns")) mutate_bin(b, len);
    else mutate_json((const char *)b, len);
    free(b);
    return tu_finish(name);
}
