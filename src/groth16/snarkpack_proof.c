/* SnarkPack proof bytes: AggregateProof::write's layout (cuzk/groth16/snarkpack.h). */
#include <stdio.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "snarkpack_internal.h"

#define GT_B CUZK_GT_COMPRESSED_BYTES
#define HEAD_BYTES (5 * GT_B + 48) /* com_ab, com_c, ip_ab, agg_c */
#define ROUND_BYTES (8 * GT_B + 2 * GT_B + 2 * 48)
#define TAIL_BYTES (48 + 96 + 48 + 2 * 96 + 2 * 48 + 2 * 96 + 2 * 48)

size_t cuzk_snarkpack_proof_size(uint32_t nproofs)
{
    unsigned l = 0;
    while (l < 32 && (1ull << l) < nproofs) l++;
    return HEAD_BYTES + 4 + (size_t)l * ROUND_BYTES + TAIL_BYTES;
}

uint32_t cuzk_snarkpack_proof_count(const uint8_t *in, size_t len)
{
    if (!in || len < HEAD_BYTES + 4) return 0;
    const uint8_t *b = in + HEAD_BYTES;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* ---- writing ---- */

typedef struct { uint8_t *p; int rc; } wr;

static void w_gt(wr *w, const cuzk_gt *x)
{
    if (cuzk_gt_compress(w->p, x)) w->rc = CUZK_ERR_INVALID_ARG;
    w->p += GT_B;
}

static void w_com(wr *w, const cuzk_snarkpack_com *c) { w_gt(w, &c->t), w_gt(w, &c->u); }
static void w_g1(wr *w, const cuzk_g1_affine *a) { cuzk_g1_compress(w->p, a), w->p += 48; }
static void w_g2(wr *w, const cuzk_g2_affine *a) { cuzk_g2_compress(w->p, a), w->p += 96; }

static void w_tail(wr *w, const cuzk_snarkpack_proof *p)
{
    w_g1(w, &p->final_a), w_g2(w, &p->final_b), w_g1(w, &p->final_c);
    w_g2(w, &p->final_vkey[0]), w_g2(w, &p->final_vkey[1]);
    w_g1(w, &p->final_wkey[0]), w_g1(w, &p->final_wkey[1]);
    w_g2(w, &p->vkey_opening[0]), w_g2(w, &p->vkey_opening[1]);
    w_g1(w, &p->wkey_opening[0]), w_g1(w, &p->wkey_opening[1]);
}

int cuzk_snarkpack_proof_encode(uint8_t *out, size_t len, const cuzk_snarkpack_proof *p)
{
    if (!out || !p || len < cuzk_snarkpack_proof_size(p->nproofs)) return CUZK_ERR_BAD_LENGTH;
    wr w = {out, CUZK_OK};
    w_com(&w, &p->com_ab), w_com(&w, &p->com_c), w_gt(&w, &p->ip_ab), w_g1(&w, &p->agg_c);
    for (int i = 0; i < 4; i++) *w.p++ = (uint8_t)(p->nproofs >> (8 * i));
    for (unsigned i = 0; i < p->rounds; i++) w_com(&w, &p->round[i].ab_l), w_com(&w, &p->round[i].ab_r);
    for (unsigned i = 0; i < p->rounds; i++) w_com(&w, &p->round[i].c_l), w_com(&w, &p->round[i].c_r);
    for (unsigned i = 0; i < p->rounds; i++) w_gt(&w, &p->round[i].zab_l), w_gt(&w, &p->round[i].zab_r);
    for (unsigned i = 0; i < p->rounds; i++) w_g1(&w, &p->round[i].zc_l), w_g1(&w, &p->round[i].zc_r);
    w_tail(&w, p);
    return w.rc;
}

/* ---- reading ---- */

typedef struct {
    const uint8_t *base, *p;
    int rc;
    char *err;
    size_t err_len;
} rd;

/* gt: a GT value, whose subgroup is GT (the point decoders' messages say "point"). */
static void r_fail(rd *r, int code, const char *what, unsigned i, int gt)
{
    if (r->rc) return;
    char idx[16] = "";
    if (i != ~0u) snprintf(idx, sizeof idx, "[%u]", i);
    const char *why = gt && code == CUZK_ERR_NOT_IN_SUBGROUP ? "not an element of GT (blstrs' compressed form)"
                      : gt ? "a coefficient is not a canonical Fp element" : cuzk_strerror(code);
    r->rc = cuzk_errf(r->err, r->err_len, code, "aggregate proof: %s%s at byte %zu: %s", what, idx,
                      (size_t)(r->p - r->base), why);
}

static void r_gt(rd *r, cuzk_gt *x, const char *what, unsigned i)
{
    int rc = r->rc ? 0 : cuzk_gt_uncompress(x, r->p);
    if (rc) r_fail(r, rc, what, i, 1);
    r->p += GT_B;
}

static void r_g1(rd *r, cuzk_g1_affine *a, const char *what, unsigned i)
{
    int rc = r->rc ? 0 : cuzk_g1_uncompress(a, r->p);
    if (rc) r_fail(r, rc, what, i, 0);
    r->p += 48;
}

static void r_g2(rd *r, cuzk_g2_affine *a, const char *what, unsigned i)
{
    int rc = r->rc ? 0 : cuzk_g2_uncompress(a, r->p);
    if (rc) r_fail(r, rc, what, i, 0);
    r->p += 96;
}

static void r_com(rd *r, cuzk_snarkpack_com *c, const char *what, unsigned i)
{
    r_gt(r, &c->t, what, i);
    r_gt(r, &c->u, what, i);
}

static void r_rounds(rd *r, cuzk_snarkpack_proof *p)
{
    for (unsigned i = 0; i < p->rounds; i++) r_com(r, &p->round[i].ab_l, "comms_ab", i), r_com(r, &p->round[i].ab_r, "comms_ab", i);
    for (unsigned i = 0; i < p->rounds; i++) r_com(r, &p->round[i].c_l, "comms_c", i), r_com(r, &p->round[i].c_r, "comms_c", i);
    for (unsigned i = 0; i < p->rounds; i++) r_gt(r, &p->round[i].zab_l, "z_ab", i), r_gt(r, &p->round[i].zab_r, "z_ab", i);
    for (unsigned i = 0; i < p->rounds; i++) r_g1(r, &p->round[i].zc_l, "z_c", i), r_g1(r, &p->round[i].zc_r, "z_c", i);
}

static void r_tail(rd *r, cuzk_snarkpack_proof *p)
{
    const unsigned x = ~0u;
    r_g1(r, &p->final_a, "final_a", x), r_g2(r, &p->final_b, "final_b", x), r_g1(r, &p->final_c, "final_c", x);
    r_g2(r, &p->final_vkey[0], "final_vkey", 0), r_g2(r, &p->final_vkey[1], "final_vkey", 1);
    r_g1(r, &p->final_wkey[0], "final_wkey", 0), r_g1(r, &p->final_wkey[1], "final_wkey", 1);
    r_g2(r, &p->vkey_opening[0], "vkey_opening", 0), r_g2(r, &p->vkey_opening[1], "vkey_opening", 1);
    r_g1(r, &p->wkey_opening[0], "wkey_opening", 0), r_g1(r, &p->wkey_opening[1], "wkey_opening", 1);
}

/* nproofs and the length it gives; CUZK_OK or the code, err set. */
static int check_count(uint32_t n, size_t len, char *err, size_t err_len)
{
    if (len < HEAD_BYTES + 4)
        return cuzk_errf(err, err_len, CUZK_ERR_BAD_LENGTH, "aggregate proof: %zu bytes, shorter than its "
                         "%u-byte header", len, HEAD_BYTES + 4);
    if (n < 2 || n > (1u << CUZK_SNARKPACK_MAX_LOG) || (n & (n - 1)))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "aggregate proof: nproofs %u is not a power of two in "
                         "[2, 2^%d]", n, CUZK_SNARKPACK_MAX_LOG);
    if (len != cuzk_snarkpack_proof_size(n))
        return cuzk_errf(err, err_len, CUZK_ERR_BAD_LENGTH, "aggregate proof: %zu bytes, %u proofs make %zu "
                         "(truncated or padded)", len, n, cuzk_snarkpack_proof_size(n));
    return CUZK_OK;
}

int cuzk_snarkpack_proof_decode(cuzk_snarkpack_proof *p, const uint8_t *in, size_t len, char *err, size_t err_len)
{
    memset(p, 0, sizeof *p);
    uint32_t n = cuzk_snarkpack_proof_count(in, len);
    int rc = check_count(n, len, err, err_len);
    if (rc) return rc;
    rd r = {in, in, CUZK_OK, err, err_len};
    const unsigned x = ~0u;
    r_com(&r, &p->com_ab, "com_ab", x), r_com(&r, &p->com_c, "com_c", x), r_gt(&r, &p->ip_ab, "ip_ab", x);
    r_g1(&r, &p->agg_c, "agg_c", x);
    r.p += 4;
    p->nproofs = n;
    while ((1u << p->rounds) < n) p->rounds++;
    r_rounds(&r, p);
    r_tail(&r, p);
    if (r.rc) memset(p, 0, sizeof *p);
    return r.rc;
}
