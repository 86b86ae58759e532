/* SnarkPack's Fiat-Shamir transcript and challenges (byte rules in cuzk/groth16/snarkpack.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/sha256.h"
#include "snarkpack_internal.h"

static void ts_put(sp_transcript *t, const void *p, size_t n)
{
    if (t->oom) return;
    if (t->len + n > t->cap) {
        size_t cap = (t->len + n) * 2 + 256;
        uint8_t *b = realloc(t->buf, cap);
        if (!b) {
            t->oom = 1;
            return;
        }
        t->buf = b, t->cap = cap;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
}

void sp_ts_init(sp_transcript *t, const char *tag)
{
    memset(t, 0, sizeof *t);
    ts_put(t, "snarkpack-v1", 12);
    ts_put(t, tag, strlen(tag));
}

void sp_ts_fr(sp_transcript *t, const cuzk_fr *x)
{
    uint8_t b[32];
    cuzk_fr_to_le32(b, x);
    ts_put(t, b, 32);
}

void sp_ts_g1(sp_transcript *t, const cuzk_g1_affine *p)
{
    uint8_t b[48];
    cuzk_g1_compress(b, p);
    ts_put(t, b, 48);
}

void sp_ts_g2(sp_transcript *t, const cuzk_g2_affine *p)
{
    uint8_t b[96];
    cuzk_g2_compress(b, p);
    ts_put(t, b, 96);
}

void sp_ts_gt(sp_transcript *t, const cuzk_gt *x)
{
    uint8_t b[CUZK_FP12_BYTES];
    cuzk_gt_to_le_bytes(b, x);
    ts_put(t, b, sizeof b);
}

void sp_ts_blob(sp_transcript *t, const uint8_t *b, size_t len)
{
    uint8_t n[8];
    for (int i = 0; i < 8; i++) n[i] = (uint8_t)((uint64_t)len >> (8 * i));
    ts_put(t, n, 8);
    if (len) ts_put(t, b, len);
}

int sp_ts_challenge(cuzk_fr *out, sp_transcript *t)
{
    int rc = t->oom ? CUZK_ERR_NO_MEMORY : CUZK_OK;
    for (uint64_t ctr = 1; !rc; ctr++) {
        uint8_t c[8], d[32];
        for (int i = 0; i < 8; i++) c[i] = (uint8_t)(ctr >> (56 - 8 * i));
        ts_put(t, c, 8);
        if (t->oom || cuzk_sha256_hash(d, t->buf, t->len)) rc = CUZK_ERR_NO_MEMORY;
        d[31] &= 0x7f; /* 256 - 255 bits shaved */
        if (!rc && !cuzk_fr_from_le32(out, d) && !cuzk_fr_is_zero(out) && !cuzk_fr_is_one(out)) break;
    }
    free(t->buf);
    memset(t, 0, sizeof *t);
    return rc;
}

static void ts_com(sp_transcript *t, const cuzk_snarkpack_com *c)
{
    sp_ts_gt(t, &c->t);
    sp_ts_gt(t, &c->u);
}

int sp_challenge_hcom(cuzk_fr *out, const cuzk_snarkpack_com *ab, const cuzk_snarkpack_com *c)
{
    sp_transcript t;
    sp_ts_init(&t, "hcom");
    ts_com(&t, ab);
    ts_com(&t, c);
    return sp_ts_challenge(out, &t);
}

int sp_challenge_r(cuzk_fr *out, const cuzk_fr *hcom, const uint8_t *include, size_t len)
{
    sp_transcript t;
    sp_ts_init(&t, "random-r");
    sp_ts_fr(&t, hcom);
    sp_ts_blob(&t, include, len);
    return sp_ts_challenge(out, &t);
}

int sp_challenge_gipa0(cuzk_fr *out, const cuzk_fr *hcom, const cuzk_gt *ip_ab, const cuzk_g1_affine *agg_c,
                       const cuzk_fr *r)
{
    sp_transcript t;
    sp_ts_init(&t, "gipa-0");
    sp_ts_fr(&t, hcom);
    sp_ts_gt(&t, ip_ab);
    sp_ts_g1(&t, agg_c);
    sp_ts_fr(&t, r);
    return sp_ts_challenge(out, &t);
}

/* A round's messages in transcript order: z_ab, z_c, then the T/U of comms_ab and comms_c. */
static void ts_round(sp_transcript *t, const cuzk_snarkpack_round *rd)
{
    sp_ts_gt(t, &rd->zab_l);
    sp_ts_gt(t, &rd->zab_r);
    sp_ts_g1(t, &rd->zc_l);
    sp_ts_g1(t, &rd->zc_r);
    ts_com(t, &rd->ab_l);
    ts_com(t, &rd->ab_r);
    ts_com(t, &rd->c_l);
    ts_com(t, &rd->c_r);
}

int sp_challenge_round(cuzk_fr *c_inv, unsigned i, const cuzk_snarkpack_round *rd, cuzk_snarkpack_version v)
{
    if (i == 0 && v == CUZK_SNARKPACK_V1) return CUZK_OK;
    char tag[24];
    snprintf(tag, sizeof tag, "gipa-%u", i);
    sp_transcript t;
    sp_ts_init(&t, tag);
    sp_ts_fr(&t, c_inv);
    ts_round(&t, rd);
    return sp_ts_challenge(c_inv, &t);
}

int sp_challenge_extra(cuzk_fr *out, const cuzk_fr *c_last, const cuzk_snarkpack_proof *p)
{
    const cuzk_snarkpack_round *rd = &p->round[p->rounds - 1];
    sp_transcript t;
    sp_ts_init(&t, "gipa-extra-link");
    sp_ts_fr(&t, c_last);
    sp_ts_g1(&t, &p->final_a);
    sp_ts_g2(&t, &p->final_b);
    sp_ts_g1(&t, &p->final_c);
    ts_round(&t, rd);
    return sp_ts_challenge(out, &t);
}

int sp_challenge_z(cuzk_fr *out, const cuzk_fr *first, const cuzk_snarkpack_proof *p, cuzk_snarkpack_version v)
{
    sp_transcript t;
    sp_ts_init(&t, "random-z");
    sp_ts_fr(&t, first);
    sp_ts_g2(&t, &p->final_vkey[0]);
    sp_ts_g2(&t, &p->final_vkey[1]);
    sp_ts_g1(&t, &p->final_wkey[0]);
    sp_ts_g1(&t, &p->final_wkey[1]);
    if (v == CUZK_SNARKPACK_V2) {
        sp_ts_g1(&t, &p->final_a);
        sp_ts_g2(&t, &p->final_b);
        sp_ts_g1(&t, &p->final_c);
    }
    return sp_ts_challenge(out, &t);
}

void sp_poly_eval_product(cuzk_fr *out, const cuzk_fr *t, size_t l, const cuzk_fr *z, const cuzk_fr *s)
{
    cuzk_fr pw, term;
    cuzk_fr_mul(&pw, z, s);
    *out = cuzk_fr_one;
    for (size_t j = 0; j < l; j++) {
        if (j) cuzk_fr_sqr(&pw, &pw);
        cuzk_fr_mul(&term, &t[j], &pw);
        cuzk_fr_add(&term, &term, &cuzk_fr_one);
        cuzk_fr_mul(out, out, &term);
    }
}

void sp_poly_coeffs(cuzk_fr *out, const cuzk_fr *t, size_t l, const cuzk_fr *s)
{
    cuzk_fr pw = *s, k;
    size_t len = 1;
    out[0] = cuzk_fr_one;
    for (size_t j = 0; j < l; j++, len *= 2) {
        if (j) cuzk_fr_sqr(&pw, &pw);
        cuzk_fr_mul(&k, &t[j], &pw);
        for (size_t i = 0; i < len; i++) cuzk_fr_mul(&out[len + i], &out[i], &k);
    }
}

void sp_fr_pow_u64(cuzk_fr *out, const cuzk_fr *v, uint64_t e)
{
    cuzk_fr_pow(out, v, &e, 1);
}
