/* Groth16 parameter files: round trips, bellperson layout (checked by an
 * independent offset walk), every truncation, corrupted points, subgroup
 * checks by mode, point-at-infinity rejection, thread-count independence,
 * a file cut while it is read. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fp2.h"
#include "cuzk/groth16/groth16_params.h"
#include "testutil.h"

static cuzk_rng rng;

static void rand_g1(cuzk_g1_affine *out)
{
    cuzk_fr k;
    cuzk_g1_jac j;
    cuzk_fr_random(&k, &rng);
    cuzk_g1_jac_from_affine(&j, &cuzk_g1_generator);
    cuzk_g1_jac_mul_fr(&j, &j, &k);
    cuzk_g1_jac_to_affine(out, &j);
}

static void rand_g2(cuzk_g2_affine *out)
{
    cuzk_fr k;
    cuzk_g2_jac j;
    cuzk_fr_random(&k, &rng);
    cuzk_g2_jac_from_affine(&j, &cuzk_g2_generator);
    cuzk_g2_jac_mul_fr(&j, &j, &k);
    cuzk_g2_jac_to_affine(out, &j);
}

/* A point on y^2 = x^3 + 4 outside G1 (the cofactor is not cleared). */
static void rand_g1_outside(cuzk_g1_affine *out)
{
    cuzk_fp b, t;
    cuzk_fp_set_u64(&b, 4);
    for (;;) {
        cuzk_fp_random(&out->x, &rng);
        cuzk_fp_sqr(&t, &out->x);
        cuzk_fp_mul(&t, &t, &out->x);
        cuzk_fp_add(&t, &t, &b);
        if (cuzk_fp_sqrt(&out->y, &t) && !cuzk_g1_affine_in_subgroup(out)) return;
    }
}

/* A point on y^2 = x^3 + 4(1+u) outside G2. */
static void rand_g2_outside(cuzk_g2_affine *out)
{
    cuzk_fp2 b, t;
    cuzk_fp_set_u64(&b.c0, 4);
    cuzk_fp_set_u64(&b.c1, 4);
    for (;;) {
        cuzk_fp2_random(&out->x, &rng);
        cuzk_fp2_sqr(&t, &out->x);
        cuzk_fp2_mul(&t, &t, &out->x);
        cuzk_fp2_add(&t, &t, &b);
        if (cuzk_fp2_sqrt(&out->y, &t) && !cuzk_g2_affine_in_subgroup(out)) return;
    }
}

static size_t rnd(size_t lo, size_t hi) { return lo + cuzk_rng_u64(&rng) % (hi - lo + 1); }

static void make_params(cuzk_groth16_params *p, size_t maxn)
{
    memset(p, 0, sizeof *p);
    /* Occasionally an infinity in a fixed vk point: bellperson allows it. */
    rand_g1(&p->vk.alpha_g1);
    rand_g1(&p->vk.beta_g1);
    rand_g2(&p->vk.beta_g2);
    rand_g2(&p->vk.gamma_g2);
    rand_g1(&p->vk.delta_g1);
    rand_g2(&p->vk.delta_g2);
    if (rnd(0, 3) == 0) memset(&p->vk.beta_g1, 0, sizeof p->vk.beta_g1);
    p->vk.n_ic = rnd(1, maxn);
    p->n_h = rnd(0, maxn), p->n_l = rnd(1, maxn), p->n_a = rnd(1, maxn);
    p->n_b_g1 = rnd(0, maxn), p->n_b_g2 = rnd(1, maxn);
    p->vk.ic = malloc(p->vk.n_ic * sizeof *p->vk.ic);
    p->h = malloc((p->n_h + 1) * sizeof *p->h);
    p->l = malloc(p->n_l * sizeof *p->l);
    p->a = malloc(p->n_a * sizeof *p->a);
    p->b_g1 = malloc((p->n_b_g1 + 1) * sizeof *p->b_g1);
    p->b_g2 = malloc(p->n_b_g2 * sizeof *p->b_g2);
    for (size_t i = 0; i < p->vk.n_ic; i++) rand_g1(&p->vk.ic[i]);
    for (size_t i = 0; i < p->n_h; i++) rand_g1(&p->h[i]);
    for (size_t i = 0; i < p->n_l; i++) rand_g1(&p->l[i]);
    for (size_t i = 0; i < p->n_a; i++) rand_g1(&p->a[i]);
    for (size_t i = 0; i < p->n_b_g1; i++) rand_g1(&p->b_g1[i]);
    for (size_t i = 0; i < p->n_b_g2; i++) rand_g2(&p->b_g2[i]);
}

static bool g1s_eq(const cuzk_g1_affine *a, const cuzk_g1_affine *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!cuzk_g1_affine_eq(&a[i], &b[i])) return false;
    return true;
}

static bool vk_eq(const cuzk_groth16_vk *a, const cuzk_groth16_vk *b)
{
    return cuzk_g1_affine_eq(&a->alpha_g1, &b->alpha_g1) && cuzk_g1_affine_eq(&a->beta_g1, &b->beta_g1) &&
           cuzk_g2_affine_eq(&a->beta_g2, &b->beta_g2) && cuzk_g2_affine_eq(&a->gamma_g2, &b->gamma_g2) &&
           cuzk_g1_affine_eq(&a->delta_g1, &b->delta_g1) && cuzk_g2_affine_eq(&a->delta_g2, &b->delta_g2) &&
           a->n_ic == b->n_ic && g1s_eq(a->ic, b->ic, a->n_ic);
}

static bool params_eq(const cuzk_groth16_params *a, const cuzk_groth16_params *b)
{
    if (!vk_eq(&a->vk, &b->vk) || a->n_h != b->n_h || a->n_l != b->n_l || a->n_a != b->n_a ||
        a->n_b_g1 != b->n_b_g1 || a->n_b_g2 != b->n_b_g2)
        return false;
    if (!g1s_eq(a->h, b->h, a->n_h) || !g1s_eq(a->l, b->l, a->n_l) || !g1s_eq(a->a, b->a, a->n_a) ||
        !g1s_eq(a->b_g1, b->b_g1, a->n_b_g1))
        return false;
    for (size_t i = 0; i < a->n_b_g2; i++)
        if (!cuzk_g2_affine_eq(&a->b_g2[i], &b->b_g2[i])) return false;
    return true;
}

/* Independent layout walk (from the bellperson format, not the parser):
 * items of (offset, size, name). */
typedef struct item { size_t off, size; char name[32]; } item;

static size_t layout(const cuzk_groth16_params *p, bool vk_only, item *it)
{
    size_t n = 0, off = 0;
    static const char *fixed[6] = {"vk.alpha_g1", "vk.beta_g1", "vk.beta_g2", "vk.gamma_g2", "vk.delta_g1", "vk.delta_g2"};
    static const size_t fsz[6] = {96, 96, 192, 192, 96, 192};
    for (int k = 0; k < 6; k++) {
        it[n].off = off, it[n].size = fsz[k], snprintf(it[n].name, 32, "%s", fixed[k]), off += fsz[k], n++;
    }
    const char *names[6] = {"vk.ic", "h", "l", "a", "b_g1", "b_g2"};
    size_t cnt[6] = {p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    for (int k = 0; k < (vk_only ? 1 : 6); k++) {
        it[n].off = off, it[n].size = 4, snprintf(it[n].name, 32, "%s count", names[k]), off += 4, n++;
        for (size_t i = 0; i < cnt[k]; i++) {
            it[n].off = off, it[n].size = k == 5 ? 192 : 96;
            snprintf(it[n].name, 32, "%s[%zu]", names[k], i);
            off += it[n].size, n++;
        }
    }
    it[n].off = off; /* end marker */
    return n;
}

static uint8_t *ser(const cuzk_groth16_params *p, size_t *len)
{
    *len = cuzk_groth16_params_serialized_size(p);
    uint8_t *b = malloc(*len + 100);
    CHECK(cuzk_groth16_params_write_mem(p, b, *len, NULL) == CUZK_OK);
    return b;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*len + 1);
    if (fread(b, 1, *len, f) != *len) *len = 0;
    fclose(f);
    return b;
}

static char dir[64];

static void test_roundtrip(size_t maxn)
{
    cuzk_groth16_params p, q, r, s;
    make_params(&p, maxn);
    size_t len;
    uint8_t *buf = ser(&p, &len);
    /* Layout: the walk ends exactly at the serialized size, and counts are
     * big-endian u32 at the walked offsets. */
    item *it = malloc((6 + 6 + p.vk.n_ic + p.n_h + p.n_l + p.n_a + p.n_b_g1 + p.n_b_g2 + 1) * sizeof *it);
    size_t ni = layout(&p, false, it);
    CHECK(it[ni].off == len);
    size_t cnt[6] = {p.vk.n_ic, p.n_h, p.n_l, p.n_a, p.n_b_g1, p.n_b_g2}, k = 0;
    for (size_t i = 0; i < ni; i++)
        if (it[i].size == 4) {
            const uint8_t *c = buf + it[i].off;
            CHECK(((size_t)c[0] << 24 | (size_t)c[1] << 16 | (size_t)c[2] << 8 | c[3]) == cnt[k]);
            k++;
        }
    CHECK(k == 6);
    uint8_t e[192];
    cuzk_g2_serialize(e, &p.vk.gamma_g2);
    CHECK(memcmp(buf + 96 * 2 + 192, e, 192) == 0);
    if (p.n_b_g2) {
        cuzk_g2_serialize(e, &p.b_g2[p.n_b_g2 - 1]);
        CHECK(memcmp(buf + len - 192, e, 192) == 0);
    }

    char path[128];
    snprintf(path, sizeof path, "%s/p.params", dir);
    cuzk_groth16_error err;
    CHECK(cuzk_groth16_params_write_file(&p, path, &err) == CUZK_OK);
    size_t flen = 0;
    uint8_t *fb = slurp(path, &flen);
    CHECK(fb && flen == len && memcmp(fb, buf, len) == 0);
    free(fb);

    CHECK_MSG(cuzk_groth16_params_read_file(&q, path, CUZK_GROTH16_VALIDATE, 1, &err) == CUZK_OK, "%s", err.msg);
    CHECK(params_eq(&p, &q));
    CHECK(cuzk_groth16_params_read_file(&r, path, CUZK_GROTH16_TRUSTED, 2, &err) == CUZK_OK);
    CHECK(params_eq(&q, &r));
    CHECK(cuzk_groth16_params_read_mem(&s, buf, len, CUZK_GROTH16_VALIDATE, 7, NULL, &err) == CUZK_OK);
    CHECK(params_eq(&q, &s));
    /* Re-written bytes are identical. */
    snprintf(path, sizeof path, "%s/q.params", dir);
    CHECK(cuzk_groth16_params_write_file(&r, path, &err) == CUZK_OK);
    fb = slurp(path, &flen);
    CHECK(fb && flen == len && memcmp(fb, buf, len) == 0);
    free(fb);
    /* Trailing bytes are ignored, as bellperson does; consumed says where it ended. */
    memset(buf + len, 0xee, 100);
    size_t used = 0;
    cuzk_groth16_params_free(&s);
    CHECK(cuzk_groth16_params_read_mem(&s, buf, len + 100, CUZK_GROTH16_TRUSTED, 2, &used, &err) == CUZK_OK);
    CHECK(used == len && params_eq(&p, &s));

    /* vk alone: a prefix of the params serialization. */
    snprintf(path, sizeof path, "%s/p.vk", dir);
    CHECK(cuzk_groth16_vk_write_file(&p.vk, path, &err) == CUZK_OK);
    size_t vlen = cuzk_groth16_vk_serialized_size(&p.vk);
    fb = slurp(path, &flen);
    CHECK(fb && flen == vlen && memcmp(fb, buf, vlen) == 0);
    free(fb);
    cuzk_groth16_vk vk;
    CHECK(cuzk_groth16_vk_read_file(&vk, path, &err) == CUZK_OK);
    CHECK(vk_eq(&vk, &p.vk));
    cuzk_groth16_vk_free(&vk);
    CHECK(cuzk_groth16_vk_read_mem(&vk, buf, len, &used, &err) == CUZK_OK && used == vlen);
    cuzk_groth16_vk_free(&vk);

    free(it);
    free(buf);
    cuzk_groth16_params_free(&q), cuzk_groth16_params_free(&r), cuzk_groth16_params_free(&s);
    cuzk_groth16_params_free(&p);
}

/* Every prefix fails with FORMAT, naming the item where input ends, at its offset. */
static void test_truncation(void)
{
    cuzk_groth16_params p, q;
    make_params(&p, 3);
    size_t len;
    uint8_t *buf = ser(&p, &len);
    item *it = malloc(64 * sizeof *it);
    size_t ni = layout(&p, false, it);
    size_t bad = 0, j = 0;
    for (size_t L = 0; L < len; L++) {
        while (it[j].off + it[j].size <= L) j++;
        cuzk_groth16_error err;
        memset(&err, 0, sizeof err);
        /* Exact copies so ASan sees reads past the end. */
        uint8_t *cp = malloc(L ? L : 1);
        memcpy(cp, buf, L);
        int rc = cuzk_groth16_params_read_mem(&q, cp, L, (L & 1) ? CUZK_GROTH16_TRUSTED : CUZK_GROTH16_VALIDATE, 2,
                                              NULL, &err);
        free(cp);
        bool ok = rc == CUZK_ERR_FORMAT && err.code == rc &&
                  (err.fail == CUZK_GROTH16_FAIL_TRUNCATED || err.fail == CUZK_GROTH16_FAIL_COUNT) &&
                  strcmp(err.section, it[j].name) == 0 && err.offset == it[j].off &&
                  strstr(err.msg, it[j].name) != NULL && q.h == NULL && q.vk.ic == NULL;
        if (!ok && bad++ < 5)
            fprintf(stderr, "truncate %zu: rc %d section '%s' (want '%s') off %llu: %s\n", L, rc, err.section,
                    it[j].name, (unsigned long long)err.offset, err.msg);
        CHECK(ok);
    }
    (void)ni;
    /* vk alone, every prefix. */
    size_t vlen = cuzk_groth16_vk_serialized_size(&p.vk);
    layout(&p, true, it);
    j = 0;
    for (size_t L = 0; L < vlen; L++) {
        while (it[j].off + it[j].size <= L) j++;
        cuzk_groth16_vk vk;
        cuzk_groth16_error err;
        int rc = cuzk_groth16_vk_read_mem(&vk, buf, L, NULL, &err);
        CHECK(rc == CUZK_ERR_FORMAT && strcmp(err.section, it[j].name) == 0 && vk.ic == NULL);
    }
    /* A count far beyond the input is rejected (before allocating). */
    size_t hoff = 864 + 4 + 96 * p.vk.n_ic;
    memset(buf + hoff, 0xff, 4);
    cuzk_groth16_error err;
    CHECK(cuzk_groth16_params_read_mem(&q, buf, len, CUZK_GROTH16_VALIDATE, 1, NULL, &err) == CUZK_ERR_FORMAT);
    CHECK(err.fail == CUZK_GROTH16_FAIL_COUNT && strncmp(err.section, "h[", 2) == 0);
    /* Missing file: IO error naming the path. */
    char path[128];
    snprintf(path, sizeof path, "%s/missing.params", dir);
    CHECK(cuzk_groth16_params_read_file(&q, path, CUZK_GROTH16_VALIDATE, 1, &err) == CUZK_ERR_IO);
    CHECK(strstr(err.msg, path) != NULL);
    /* Empty file. */
    snprintf(path, sizeof path, "%s/empty.params", dir);
    FILE *f = fopen(path, "wb");
    fclose(f);
    CHECK(cuzk_groth16_params_read_file(&q, path, CUZK_GROTH16_VALIDATE, 1, &err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err.msg, path) != NULL && strcmp(err.section, "vk.alpha_g1") == 0);
    free(it);
    free(buf);
    cuzk_groth16_params_free(&p);
}

/* Parse buf in both modes and 1/2 threads; all four must give the same
 * code, section and offset. Returns the VALIDATE result. */
static int parse4(const uint8_t *buf, size_t len, cuzk_groth16_error *ev, cuzk_groth16_error *et, int *rc_t)
{
    cuzk_groth16_params q;
    cuzk_groth16_error e2;
    int rv = cuzk_groth16_params_read_mem(&q, buf, len, CUZK_GROTH16_VALIDATE, 1, NULL, ev);
    cuzk_groth16_params_free(&q);
    int rv2 = cuzk_groth16_params_read_mem(&q, buf, len, CUZK_GROTH16_VALIDATE, 3, NULL, &e2);
    cuzk_groth16_params_free(&q);
    CHECK(rv == rv2 && (rv == 0 || (strcmp(ev->msg, e2.msg) == 0)));
    *rc_t = cuzk_groth16_params_read_mem(&q, buf, len, CUZK_GROTH16_TRUSTED, 1, NULL, et);
    cuzk_groth16_params_free(&q);
    int rt2 = cuzk_groth16_params_read_mem(&q, buf, len, CUZK_GROTH16_TRUSTED, 2, NULL, &e2);
    cuzk_groth16_params_free(&q);
    CHECK(*rc_t == rt2 && (rt2 == 0 || strcmp(et->msg, e2.msg) == 0));
    return rv;
}

static void test_corrupt(void)
{
    cuzk_groth16_params p;
    make_params(&p, 40);
    size_t len;
    uint8_t *buf = ser(&p, &len);
    item *it = malloc((13 + p.vk.n_ic + p.n_h + p.n_l + p.n_a + p.n_b_g1 + p.n_b_g2) * sizeof *it);
    size_t ni = layout(&p, false, it);
    uint8_t *cp = malloc(len);
    for (int round = 0; round < 24; round++) {
        size_t j;
        do j = rnd(0, ni - 1); while (it[j].size == 4);
        bool list = j >= 6; /* vk.ic and the parameter lists */
        bool g2 = it[j].size == 192;
        size_t o = it[j].off;
        cuzk_groth16_error ev, et;
        int rt;
        int kind = round % 5;
        memcpy(cp, buf, len);
        int want;
        if (kind == 0) { /* x >= p (top bits clear, rest all ones) */
            cp[o] = 0x1f;
            memset(cp + o + 1, 0xff, 47);
            want = CUZK_ERR_NONCANONICAL;
        } else if (kind == 1) { /* compression flag in an uncompressed encoding */
            cp[o] |= 0x80;
            want = CUZK_ERR_BAD_FLAGS;
        } else if (kind == 2) { /* y changed in its last byte */
            cp[o + it[j].size - 1] ^= (uint8_t)rnd(1, 255);
            /* On an infinity (vk.beta_g1 sometimes is) a nonzero byte
             * contradicts the infinity flag instead. */
            want = (cp[o] & 0x40) ? CUZK_ERR_BAD_FLAGS : CUZK_ERR_NOT_ON_CURVE;
        } else if (kind == 3) { /* the point at infinity */
            memset(cp + o, 0, it[j].size);
            cp[o] = 0x40;
            want = list ? CUZK_ERR_FORMAT : CUZK_OK;
        } else { /* on the curve, outside the subgroup */
            if (g2) {
                cuzk_g2_affine q;
                rand_g2_outside(&q);
                cuzk_g2_serialize(cp + o, &q);
            } else {
                cuzk_g1_affine q;
                rand_g1_outside(&q);
                cuzk_g1_serialize(cp + o, &q);
            }
            want = CUZK_ERR_NOT_IN_SUBGROUP;
        }
        int rv = parse4(cp, len, &ev, &et, &rt);
        CHECK_MSG(rv == want, "kind %d item %s: got %d (%s)", kind, it[j].name, rv, ev.msg);
        if (want != CUZK_OK) {
            CHECK_MSG(strcmp(ev.section, it[j].name) == 0 && ev.offset == o && strstr(ev.msg, it[j].name),
                      "kind %d: %s", kind, ev.msg);
            CHECK(ev.fail == (kind == 3 ? CUZK_GROTH16_FAIL_INFINITY : CUZK_GROTH16_FAIL_POINT));
        }
        /* TRUSTED: same, except list entries outside the subgroup pass
         * (the fixed vk points and vk.ic are always checked). */
        bool trusted_ok = kind == 4 && j >= 6 + 1 + p.vk.n_ic;
        int want_t = trusted_ok ? CUZK_OK : want;
        CHECK_MSG(rt == want_t, "trusted kind %d item %s: got %d (%s)", kind, it[j].name, rt, et.msg);
    }
    /* Two bad entries: the first in file order is reported, for any thread count. */
    memcpy(cp, buf, len);
    size_t j1 = ni - 1, j0 = 6 + 1 + p.vk.n_ic + 1 + p.n_h + 1; /* last b_g2, first l */
    cp[it[j1].off] |= 0x80;
    cp[it[j0].off + 95] ^= 1;
    cuzk_groth16_error ev, et;
    int rt;
    CHECK(parse4(cp, len, &ev, &et, &rt) == CUZK_ERR_NOT_ON_CURVE && strcmp(ev.section, "l[0]") == 0);
    free(cp);
    free(it);
    free(buf);
    cuzk_groth16_params_free(&p);
}

/* A .vk of the .params' own setup equals the key inside the .params; a
 * .vk with one byte flipped (anywhere, a random bit) never does: the
 * reader refuses it, or vk_equal names the item the byte is in (a changed
 * ic count decodes, short or long, as another count). */
static void test_vk_equal_tampered(void)
{
    cuzk_groth16_params p;
    make_params(&p, 12);
    size_t plen, vlen = cuzk_groth16_vk_serialized_size(&p.vk);
    uint8_t *pbuf = ser(&p, &plen), *vbuf = malloc(vlen + 200), *cp = malloc(vlen + 200);
    CHECK(cuzk_groth16_vk_write_mem(&p.vk, vbuf, vlen, NULL) == CUZK_OK);
    CHECK(memcmp(pbuf, vbuf, vlen) == 0); /* a .params starts with its vk */
    /* ic entries past the end, for a count flipped upwards: valid points */
    for (size_t i = 0; i < 2; i++) {
        cuzk_g1_affine q;
        rand_g1(&q);
        cuzk_g1_serialize(vbuf + vlen + i * 96, &q);
    }
    cuzk_groth16_params in;
    cuzk_groth16_vk vk;
    char what[64] = "";
    CHECK(cuzk_groth16_params_read_mem(&in, pbuf, plen, CUZK_GROTH16_TRUSTED, 1, NULL, NULL) == CUZK_OK);
    CHECK(cuzk_groth16_vk_read_mem(&vk, vbuf, vlen, NULL, NULL) == CUZK_OK);
    CHECK_MSG(cuzk_groth16_vk_equal(&in.vk, &vk, what, sizeof what), "the same key differs at %s", what);
    cuzk_groth16_vk_free(&vk);
    item *it = malloc((8 + p.vk.n_ic) * sizeof *it);
    size_t ni = layout(&p, true, it);
    unsigned refused = 0, differ = 0;
    for (int round = 0; round < 400; round++) {
        size_t at = rnd(0, vlen - 1);
        unsigned bit = (unsigned)rnd(0, 7);
        memcpy(cp, vbuf, vlen + 192);
        cp[at] ^= (uint8_t)(1u << bit);
        size_t j = 0;
        while (j + 1 < ni && it[j + 1].off <= at) j++;
        cuzk_groth16_error err;
        if (cuzk_groth16_vk_read_mem(&vk, cp, vlen + 192, NULL, &err) != CUZK_OK) {
            refused++;
            continue;
        }
        bool same = cuzk_groth16_vk_equal(&in.vk, &vk, what, sizeof what);
        /* a count's 4 bytes name "vk.ic count"; vk_equal says "vk.ic count (n, m)" */
        CHECK_MSG(!same && !strncmp(what, it[j].name, strlen(it[j].name)),
                  "byte %zu bit %u (in %s) flipped: the .vk decodes and %s", at, bit, it[j].name,
                  same ? "equals the .params' key" : what);
        differ++;
        cuzk_groth16_vk_free(&vk);
    }
    CHECK(refused + differ == 400);
    printf("vk_equal: 400 one-bit tampers: %u refused by the reader, %u decoded and told apart\n", refused, differ);
    /* another valid point in one place (what a .vk of another setup, or a
     * damaged one that still decodes, is): named exactly */
    for (int round = 0; round < 24; round++) {
        size_t j;
        do j = rnd(0, ni - 1); while (it[j].size == 4);
        memcpy(cp, vbuf, vlen);
        if (it[j].size == 192) {
            cuzk_g2_affine q;
            rand_g2(&q);
            cuzk_g2_serialize(cp + it[j].off, &q);
        } else {
            cuzk_g1_affine q;
            rand_g1(&q);
            cuzk_g1_serialize(cp + it[j].off, &q);
        }
        if (cuzk_groth16_vk_read_mem(&vk, cp, vlen, NULL, NULL) != CUZK_OK) {
            CHECK_MSG(0, "a valid point in %s: refused", it[j].name);
            continue;
        }
        bool same = cuzk_groth16_vk_equal(&in.vk, &vk, what, sizeof what);
        CHECK_MSG(!same && !strcmp(what, it[j].name), "another point in %s: %s", it[j].name,
                  same ? "equal" : what);
        cuzk_groth16_vk_free(&vk);
    }
    /* another setup altogether: differs from its first point */
    cuzk_groth16_params other;
    make_params(&other, 12);
    CHECK(!cuzk_groth16_vk_equal(&in.vk, &other.vk, what, sizeof what) && !strcmp(what, "vk.alpha_g1"));
    CHECK(cuzk_groth16_vk_equal(&other.vk, &other.vk, NULL, 0));
    cuzk_groth16_params_free(&other);
    cuzk_groth16_params_free(&in);
    cuzk_groth16_params_free(&p);
    free(it);
    free(cp);
    free(vbuf);
    free(pbuf);
}

/* Sections longer than the writer's chunk (8192 points): the streamed file
 * equals the in-memory serialization and reads back (TRUSTED, 2 threads). */
static void test_large(void)
{
    cuzk_groth16_params p, q;
    make_params(&p, 3);
    free(p.h), free(p.b_g2);
    p.n_h = 8192 * 2 + rnd(1, 100), p.n_b_g2 = 8192 + rnd(1, 100);
    p.h = malloc(p.n_h * sizeof *p.h);
    p.b_g2 = malloc(p.n_b_g2 * sizeof *p.b_g2);
    cuzk_g1_affine g1[8];
    cuzk_g2_affine g2[8];
    for (int i = 0; i < 8; i++) rand_g1(&g1[i]), rand_g2(&g2[i]);
    for (size_t i = 0; i < p.n_h; i++) p.h[i] = g1[cuzk_rng_u64(&rng) % 8];
    for (size_t i = 0; i < p.n_b_g2; i++) p.b_g2[i] = g2[cuzk_rng_u64(&rng) % 8];
    size_t len, flen = 0;
    uint8_t *buf = ser(&p, &len);
    char path[128];
    snprintf(path, sizeof path, "%s/p.params", dir);
    cuzk_groth16_error err;
    CHECK(cuzk_groth16_params_write_file(&p, path, &err) == CUZK_OK);
    uint8_t *fb = slurp(path, &flen);
    CHECK(fb && flen == len && memcmp(fb, buf, len) == 0);
    CHECK_MSG(cuzk_groth16_params_read_file(&q, path, CUZK_GROTH16_TRUSTED, 2, &err) == CUZK_OK, "%s", err.msg);
    CHECK(params_eq(&p, &q));
    free(fb);
    free(buf);
    cuzk_groth16_params_free(&q);
    cuzk_groth16_params_free(&p);
}

/* Bytes a thread has read (rchar of /proc/self/task/<tid>/io); 0 if unknown. */
static uint64_t thread_rchar(pid_t tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/io", (int)tid);
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %llu", &v) == 1) break;
    if (f) fclose(f);
    return v;
}

typedef struct cut_reader {
    const char *path;
    cuzk_groth16_params q;
    cuzk_groth16_error err;
    int rc, done;
    pid_t tid;
} cut_reader;

static void *cut_reader_main(void *arg)
{
    cut_reader *r = arg;
    __atomic_store_n(&r->tid, gettid(), __ATOMIC_RELEASE);
    r->rc = cuzk_groth16_params_read_file(&r->q, r->path, CUZK_GROTH16_VALIDATE, 1, &r->err);
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* A file cut while it is read: once the reader (one thread, subgroup
 * checks: a fraction of a second per MiB) has read its first MiB of h, the
 * file is cut at a random byte of h past 3 MiB. The read must stop there
 * with CUZK_ERR_IO naming the entry and the byte (layout() computes them),
 * not fault; should the reader have passed the cut already, what it read
 * must equal what was written. */
static void test_cut_while_read(void)
{
    cuzk_groth16_params p;
    make_params(&p, 3);
    free(p.h);
    p.n_h = ((size_t)5 << 20) / 96 + rnd(0, 4096);
    p.h = malloc(p.n_h * sizeof *p.h);
    cuzk_g1_affine g1[8];
    for (int i = 0; i < 8; i++) rand_g1(&g1[i]);
    for (size_t i = 0; i < p.n_h; i++) p.h[i] = g1[cuzk_rng_u64(&rng) % 8];
    char path[128];
    snprintf(path, sizeof path, "%s/cut.params", dir);
    cuzk_groth16_error err;
    CHECK(cuzk_groth16_params_write_file(&p, path, &err) == CUZK_OK);
    const size_t len = cuzk_groth16_params_serialized_size(&p);
    item *it = malloc((p.vk.n_ic + p.n_h + p.n_l + p.n_a + p.n_b_g1 + p.n_b_g2 + 20) * sizeof *it);
    const size_t nit = layout(&p, false, it);
    size_t h0 = 0;
    while (h0 < nit && strcmp(it[h0].name, "h[0]")) h0++;
    const size_t cut = rnd((size_t)3 << 20, it[h0].off + p.n_h * 96 - 1);
    const size_t k = h0 + (cut - it[h0].off) / 96;
    cut_reader r = {.path = path};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, cut_reader_main, &r) == 0);
    const struct timespec nap = {0, 100000};
    while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) &&
           (!__atomic_load_n(&r.tid, __ATOMIC_ACQUIRE) || thread_rchar(r.tid) < ((uint64_t)1 << 20)))
        nanosleep(&nap, NULL);
    CHECK(truncate(path, (off_t)cut) == 0);
    pthread_join(th, NULL);
    char why[160];
    snprintf(why, sizeof why, "the file ends here, not at %zu bytes as when it was opened", len);
    if (r.rc == CUZK_OK) {
        CHECK_MSG(params_eq(&p, &r.q), "read whole before the cut at %zu: equal to what was written", cut);
        printf("groth16_params: the read passed byte %zu before the cut\n", cut);
    } else {
        CHECK_MSG(r.rc == CUZK_ERR_IO && r.err.fail == CUZK_GROTH16_FAIL_IO && r.err.offset == cut &&
                      !strcmp(r.err.section, it[k].name) && strstr(r.err.msg, why) && strstr(r.err.msg, path) == r.err.msg,
                  "cut at %zu (%s): rc %d: %s", cut, it[k].name, r.rc, r.err.msg);
    }
    cuzk_groth16_params_free(&r.q);
    cuzk_groth16_params_free(&p);
    free(it);
    unlink(path);
}

int main(void)
{
    tu_init(&rng, "groth16_params");
    snprintf(dir, sizeof dir, "/tmp/cuzk_params_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    for (int i = 0; i < 4; i++) test_roundtrip(i < 2 ? 5 : 50);
    test_truncation();
    test_corrupt();
    test_vk_equal_tampered();
    test_large();
    test_cut_while_read();
    const char *files[] = {"p.params", "q.params", "p.vk", "empty.params"};
    for (int i = 0; i < 4; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return tu_finish("groth16_params");
}
