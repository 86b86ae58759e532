/*
 * Point arithmetic shared by G1 (over Fp) and G2 (over Fp2), instantiated by
 * g1.c / g2.c with macros (like src/ff/field_impl.h):
 *   EC_FN(x)  public name, e.g. cuzk_g1_##x
 *   EC_AFF, EC_JAC, EC_XYZZ  the point types
 *   FE, FE_ADD, FE_SUB, FE_DBL, FE_NEG, FE_MUL, FE_SQR, FE_INV, FE_IS_ZERO,
 *   FE_EQ, FE_ZERO, FE_ONE   the coordinate field
 *   EC_B      pointer to the curve constant b (y^2 = x^3 + b, a = 0)
 * Formulas: explicit-formulas database (hyperelliptic.org/EFD), short
 * Weierstrass a = 0: Jacobian dbl-2009-l, add-2007-bl, madd-2007-bl; XYZZ
 * dbl-2008-s-1, mdbl-2008-s-1, add-2008-s, madd-2008-s. The EFD formulas
 * are not complete, so P+P, P+(-P) and infinity are dispatched explicitly.
 * Outputs may alias inputs: every function computes into locals first.
 */

/* ---- affine ------------------------------------------------------------ */

bool EC_FN(affine_is_infinity)(const EC_AFF *p)
{
    return FE_IS_ZERO(&p->x) && FE_IS_ZERO(&p->y);
}

bool EC_FN(affine_is_on_curve)(const EC_AFF *p)
{
    if (EC_FN(affine_is_infinity)(p)) return true;
    FE l, r;
    FE_SQR(&l, &p->y);
    FE_SQR(&r, &p->x);
    FE_MUL(&r, &r, &p->x);
    FE_ADD(&r, &r, EC_B);
    return FE_EQ(&l, &r);
}

bool EC_FN(affine_eq)(const EC_AFF *a, const EC_AFF *b)
{
    return FE_EQ(&a->x, &b->x) && FE_EQ(&a->y, &b->y);
}

void EC_FN(affine_neg)(EC_AFF *r, const EC_AFF *p)
{
    r->x = p->x;
    FE_NEG(&r->y, &p->y); /* -0 = 0 keeps infinity as (0,0) */
}

/* ---- Jacobian ---------------------------------------------------------- */

void EC_FN(jac_set_infinity)(EC_JAC *r)
{
    r->x = FE_ONE;
    r->y = FE_ONE;
    r->z = FE_ZERO;
}

bool EC_FN(jac_is_infinity)(const EC_JAC *p) { return FE_IS_ZERO(&p->z); }

void EC_FN(jac_from_affine)(EC_JAC *r, const EC_AFF *p)
{
    if (EC_FN(affine_is_infinity)(p)) {
        EC_FN(jac_set_infinity)(r);
        return;
    }
    r->x = p->x;
    r->y = p->y;
    r->z = FE_ONE;
}

void EC_FN(jac_to_affine)(EC_AFF *r, const EC_JAC *p)
{
    if (EC_FN(jac_is_infinity)(p)) {
        r->x = FE_ZERO;
        r->y = FE_ZERO;
        return;
    }
    FE zi, zi2, zi3;
    FE_INV(&zi, &p->z);
    FE_SQR(&zi2, &zi);
    FE_MUL(&zi3, &zi2, &zi);
    FE_MUL(&r->x, &p->x, &zi2);
    FE_MUL(&r->y, &p->y, &zi3);
}

void EC_FN(jac_batch_to_affine)(EC_AFF *out, const EC_JAC *in, size_t n)
{
    /* Montgomery's trick; out[i].x holds the prefix product of the nonzero
     * Z's before i, so no scratch memory is needed. */
    FE acc = FE_ONE, inv;
    for (size_t i = 0; i < n; i++) {
        if (FE_IS_ZERO(&in[i].z)) continue;
        out[i].x = acc;
        FE_MUL(&acc, &acc, &in[i].z);
    }
    FE_INV(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FE_IS_ZERO(&in[i].z)) {
            out[i].x = FE_ZERO;
            out[i].y = FE_ZERO;
            continue;
        }
        FE zi, zi2;
        FE_MUL(&zi, &inv, &out[i].x);
        FE_MUL(&inv, &inv, &in[i].z);
        FE_SQR(&zi2, &zi);
        FE_MUL(&out[i].x, &in[i].x, &zi2);
        FE_MUL(&zi2, &zi2, &zi);
        FE_MUL(&out[i].y, &in[i].y, &zi2);
    }
}

bool EC_FN(jac_eq)(const EC_JAC *a, const EC_JAC *b)
{
    bool ia = EC_FN(jac_is_infinity)(a), ib = EC_FN(jac_is_infinity)(b);
    if (ia || ib) return ia == ib;
    FE z1z1, z2z2, t1, t2;
    FE_SQR(&z1z1, &a->z);
    FE_SQR(&z2z2, &b->z);
    FE_MUL(&t1, &a->x, &z2z2);
    FE_MUL(&t2, &b->x, &z1z1);
    if (!FE_EQ(&t1, &t2)) return false;
    FE_MUL(&z1z1, &z1z1, &a->z);
    FE_MUL(&z2z2, &z2z2, &b->z);
    FE_MUL(&t1, &a->y, &z2z2);
    FE_MUL(&t2, &b->y, &z1z1);
    return FE_EQ(&t1, &t2);
}

bool EC_FN(jac_is_on_curve)(const EC_JAC *p)
{
    if (EC_FN(jac_is_infinity)(p)) return true;
    /* Y^2 = X^3 + b Z^6 */
    FE l, r, z6;
    FE_SQR(&l, &p->y);
    FE_SQR(&r, &p->x);
    FE_MUL(&r, &r, &p->x);
    FE_SQR(&z6, &p->z);
    FE_MUL(&z6, &z6, &p->z);
    FE_SQR(&z6, &z6);
    FE_MUL(&z6, &z6, EC_B);
    FE_ADD(&r, &r, &z6);
    return FE_EQ(&l, &r);
}

void EC_FN(jac_neg)(EC_JAC *r, const EC_JAC *p)
{
    r->x = p->x;
    FE_NEG(&r->y, &p->y);
    r->z = p->z;
}

void EC_FN(jac_dbl)(EC_JAC *r, const EC_JAC *p)
{
    /* dbl-2009-l; Z = 0 stays 0 and Y = 0 (2-torsion) gives Z3 = 0. */
    FE A, B, C, D, E, F, t;
    FE_SQR(&A, &p->x);
    FE_SQR(&B, &p->y);
    FE_SQR(&C, &B);
    FE_ADD(&t, &p->x, &B);
    FE_SQR(&t, &t);
    FE_SUB(&t, &t, &A);
    FE_SUB(&t, &t, &C);
    FE_DBL(&D, &t);
    FE_DBL(&E, &A);
    FE_ADD(&E, &E, &A);
    FE_SQR(&F, &E);
    EC_JAC o;
    FE_MUL(&o.z, &p->y, &p->z);
    FE_DBL(&o.z, &o.z);
    FE_DBL(&t, &D);
    FE_SUB(&o.x, &F, &t);
    FE_SUB(&t, &D, &o.x);
    FE_MUL(&o.y, &E, &t);
    FE_DBL(&C, &C);
    FE_DBL(&C, &C);
    FE_DBL(&C, &C);
    FE_SUB(&o.y, &o.y, &C);
    *r = o;
}

void EC_FN(jac_add)(EC_JAC *r, const EC_JAC *a, const EC_JAC *b)
{
    if (EC_FN(jac_is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (EC_FN(jac_is_infinity)(b)) {
        *r = *a;
        return;
    }
    /* add-2007-bl */
    FE z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    FE_SQR(&z1z1, &a->z);
    FE_SQR(&z2z2, &b->z);
    FE_MUL(&u1, &a->x, &z2z2);
    FE_MUL(&u2, &b->x, &z1z1);
    FE_MUL(&s1, &a->y, &b->z);
    FE_MUL(&s1, &s1, &z2z2);
    FE_MUL(&s2, &b->y, &a->z);
    FE_MUL(&s2, &s2, &z1z1);
    FE_SUB(&h, &u2, &u1);
    FE_SUB(&rr, &s2, &s1);
    if (FE_IS_ZERO(&h)) {
        if (FE_IS_ZERO(&rr))
            EC_FN(jac_dbl)(r, a);
        else
            EC_FN(jac_set_infinity)(r);
        return;
    }
    FE_DBL(&rr, &rr);
    FE_DBL(&i, &h);
    FE_SQR(&i, &i);
    FE_MUL(&j, &h, &i);
    FE_MUL(&v, &u1, &i);
    EC_JAC o;
    FE_ADD(&t, &a->z, &b->z);
    FE_SQR(&t, &t);
    FE_SUB(&t, &t, &z1z1);
    FE_SUB(&t, &t, &z2z2);
    FE_MUL(&o.z, &t, &h);
    FE_SQR(&o.x, &rr);
    FE_SUB(&o.x, &o.x, &j);
    FE_DBL(&t, &v);
    FE_SUB(&o.x, &o.x, &t);
    FE_SUB(&t, &v, &o.x);
    FE_MUL(&o.y, &rr, &t);
    FE_MUL(&t, &s1, &j);
    FE_DBL(&t, &t);
    FE_SUB(&o.y, &o.y, &t);
    *r = o;
}

void EC_FN(jac_add_affine)(EC_JAC *r, const EC_JAC *a, const EC_AFF *b)
{
    if (EC_FN(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (EC_FN(jac_is_infinity)(a)) {
        EC_FN(jac_from_affine)(r, b);
        return;
    }
    /* madd-2007-bl */
    FE z1z1, u2, s2, h, hh, i, j, rr, v, t;
    FE_SQR(&z1z1, &a->z);
    FE_MUL(&u2, &b->x, &z1z1);
    FE_MUL(&s2, &b->y, &a->z);
    FE_MUL(&s2, &s2, &z1z1);
    FE_SUB(&h, &u2, &a->x);
    FE_SUB(&rr, &s2, &a->y);
    if (FE_IS_ZERO(&h)) {
        if (FE_IS_ZERO(&rr))
            EC_FN(jac_dbl)(r, a);
        else
            EC_FN(jac_set_infinity)(r);
        return;
    }
    FE_DBL(&rr, &rr);
    FE_SQR(&hh, &h);
    FE_DBL(&i, &hh);
    FE_DBL(&i, &i);
    FE_MUL(&j, &h, &i);
    FE_MUL(&v, &a->x, &i);
    EC_JAC o;
    FE_ADD(&t, &a->z, &h);
    FE_SQR(&t, &t);
    FE_SUB(&t, &t, &z1z1);
    FE_SUB(&o.z, &t, &hh);
    FE_SQR(&o.x, &rr);
    FE_SUB(&o.x, &o.x, &j);
    FE_DBL(&t, &v);
    FE_SUB(&o.x, &o.x, &t);
    FE_SUB(&t, &v, &o.x);
    FE_MUL(&o.y, &rr, &t);
    FE_MUL(&t, &a->y, &j);
    FE_DBL(&t, &t);
    FE_SUB(&o.y, &o.y, &t);
    *r = o;
}

#define EC_WNAF_W 5
#define EC_WNAF_TABLE (1 << (EC_WNAF_W - 2)) /* odd multiples P, 3P, ..., 15P */

/* Width-5 NAF of the 256-bit k: digits odd in (-16, 16) or 0, at least
 * 4 zeros between nonzero digits. Returns the number of digits (<= 257). */
static int EC_FN(wnaf_)(int8_t naf[258], const uint64_t k[4])
{
    uint64_t e[5] = {k[0], k[1], k[2], k[3], 0};
    int n = 0;
    while (e[0] | e[1] | e[2] | e[3] | e[4]) {
        int d = 0;
        if (e[0] & 1) {
            d = (int)(e[0] & ((1u << EC_WNAF_W) - 1));
            if (d >= (1 << (EC_WNAF_W - 1))) d -= 1 << EC_WNAF_W;
            /* e -= d (e + |d| when d < 0), with carry/borrow */
            if (d > 0) {
                uint64_t bw = (uint64_t)d;
                for (int i = 0; i < 5 && bw; i++) {
                    uint64_t o = e[i];
                    e[i] = o - bw;
                    bw = o < bw;
                }
            } else {
                uint64_t c = (uint64_t)(-d);
                for (int i = 0; i < 5 && c; i++) {
                    e[i] += c;
                    c = e[i] < c;
                }
            }
        }
        naf[n++] = (int8_t)d;
        for (int i = 0; i < 4; i++) e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[4] >>= 1;
    }
    return n;
}

void EC_FN(jac_mul)(EC_JAC *r, const EC_JAC *p, const uint64_t k[4])
{
    int8_t naf[258];
    int n = EC_FN(wnaf_)(naf, k);
    EC_JAC tab[EC_WNAF_TABLE], p2, acc;
    tab[0] = *p;
    EC_FN(jac_dbl)(&p2, p);
    for (int i = 1; i < EC_WNAF_TABLE; i++) EC_FN(jac_add)(&tab[i], &tab[i - 1], &p2);
    EC_FN(jac_set_infinity)(&acc);
    for (int i = n - 1; i >= 0; i--) {
        EC_FN(jac_dbl)(&acc, &acc);
        int d = naf[i];
        if (d > 0) {
            EC_FN(jac_add)(&acc, &acc, &tab[(d - 1) / 2]);
        } else if (d < 0) {
            EC_JAC t;
            EC_FN(jac_neg)(&t, &tab[(-d - 1) / 2]);
            EC_FN(jac_add)(&acc, &acc, &t);
        }
    }
    *r = acc;
}

void EC_FN(jac_mul_fr)(EC_JAC *r, const EC_JAC *p, const cuzk_fr *k)
{
    uint64_t e[4];
    cuzk_fr_to_limbs(e, k);
    EC_FN(jac_mul)(r, p, e);
}

/* tab[i] = (2i+1)·p for i < EC_WNAF_TABLE, affine (one inversion). */
__attribute__((unused)) static void EC_FN(odd_multiples_)(EC_AFF tab[EC_WNAF_TABLE], const EC_AFF *p)
{
    EC_JAC t[EC_WNAF_TABLE], p2;
    EC_FN(jac_from_affine)(&t[0], p);
    EC_FN(jac_dbl)(&p2, &t[0]);
    for (int i = 1; i < EC_WNAF_TABLE; i++) EC_FN(jac_add)(&t[i], &t[i - 1], &p2);
    EC_FN(jac_batch_to_affine)(tab, t, EC_WNAF_TABLE);
}

/* r = sum over j < nb of k_j·B_j on one doubling chain (Straus): tab[j] the odd multiples of
 * B_j (odd_multiples_), naf[j] the width-5 NAF of k_j with len[j] digits; mixed additions. */
__attribute__((unused)) static void EC_FN(straus_)(EC_JAC *r, const EC_AFF (*tab)[EC_WNAF_TABLE],
                                                   const int8_t (*naf)[258], const int *len, int nb)
{
    int top = 0;
    for (int j = 0; j < nb; j++) top = len[j] > top ? len[j] : top;
    EC_JAC acc;
    EC_FN(jac_set_infinity)(&acc);
    for (int i = top - 1; i >= 0; i--) {
        EC_FN(jac_dbl)(&acc, &acc);
        for (int j = 0; j < nb; j++) {
            int d = i < len[j] ? naf[j][i] : 0;
            if (!d) continue;
            EC_AFF t = tab[j][(d < 0 ? -d : d) / 2];
            if (d < 0) EC_FN(affine_neg)(&t, &t);
            EC_FN(jac_add_affine)(&acc, &acc, &t);
        }
    }
    *r = acc;
}

/* r = k·p for a small public k by double-and-add (subgroup checks). */
__attribute__((unused)) static void EC_FN(jac_mul_u64_)(EC_JAC *r, const EC_JAC *p, uint64_t k)
{
    EC_JAC acc, base = *p;
    EC_FN(jac_set_infinity)(&acc);
    for (int i = 63; i >= 0; i--) {
        EC_FN(jac_dbl)(&acc, &acc);
        if ((k >> i) & 1) EC_FN(jac_add)(&acc, &acc, &base);
    }
    *r = acc;
}

/* As jac_mul_u64_ for an affine base: mixed additions are cheaper. */
__attribute__((unused)) static void EC_FN(affine_mul_u64_)(EC_JAC *r, const EC_AFF *p, uint64_t k)
{
    EC_JAC acc;
    EC_FN(jac_set_infinity)(&acc);
    for (int i = 63; i >= 0; i--) {
        EC_FN(jac_dbl)(&acc, &acc);
        if ((k >> i) & 1) EC_FN(jac_add_affine)(&acc, &acc, p);
    }
    *r = acc;
}

/* ---- XYZZ -------------------------------------------------------------- */

void EC_FN(xyzz_set_infinity)(EC_XYZZ *r)
{
    r->x = FE_ONE;
    r->y = FE_ONE;
    r->zz = FE_ZERO;
    r->zzz = FE_ZERO;
}

bool EC_FN(xyzz_is_infinity)(const EC_XYZZ *p) { return FE_IS_ZERO(&p->zz); }

void EC_FN(xyzz_from_affine)(EC_XYZZ *r, const EC_AFF *p)
{
    if (EC_FN(affine_is_infinity)(p)) {
        EC_FN(xyzz_set_infinity)(r);
        return;
    }
    r->x = p->x;
    r->y = p->y;
    r->zz = FE_ONE;
    r->zzz = FE_ONE;
}

void EC_FN(xyzz_to_jac)(EC_JAC *r, const EC_XYZZ *p)
{
    if (EC_FN(xyzz_is_infinity)(p)) {
        EC_FN(jac_set_infinity)(r);
        return;
    }
    /* ZZ = z^2, ZZZ = z^3: take Z = ZZZ, so X = x·ZZZ^2 = X'·ZZ^2, Y = Y'·ZZZ^2. */
    EC_JAC o;
    FE t;
    FE_SQR(&t, &p->zz);
    FE_MUL(&o.x, &p->x, &t);
    FE_SQR(&t, &p->zzz);
    FE_MUL(&o.y, &p->y, &t);
    o.z = p->zzz;
    *r = o;
}

void EC_FN(xyzz_dbl)(EC_XYZZ *r, const EC_XYZZ *p)
{
    /* dbl-2008-s-1 (a = 0); Y = 0 gives ZZ3 = 0, infinity stays infinity. */
    FE u, v, w, s, m, t;
    FE_DBL(&u, &p->y);
    FE_SQR(&v, &u);
    FE_MUL(&w, &u, &v);
    FE_MUL(&s, &p->x, &v);
    FE_SQR(&t, &p->x);
    FE_DBL(&m, &t);
    FE_ADD(&m, &m, &t);
    EC_XYZZ o;
    FE_SQR(&o.x, &m);
    FE_DBL(&t, &s);
    FE_SUB(&o.x, &o.x, &t);
    FE_SUB(&t, &s, &o.x);
    FE_MUL(&o.y, &m, &t);
    FE_MUL(&t, &w, &p->y);
    FE_SUB(&o.y, &o.y, &t);
    FE_MUL(&o.zz, &v, &p->zz);
    FE_MUL(&o.zzz, &w, &p->zzz);
    *r = o;
}

/* mdbl-2008-s-1: 2·b for affine b (not infinity). */
static void EC_FN(xyzz_dbl_affine_)(EC_XYZZ *r, const EC_AFF *b)
{
    FE u, v, w, s, m, t;
    FE_DBL(&u, &b->y);
    FE_SQR(&v, &u);
    FE_MUL(&w, &u, &v);
    FE_MUL(&s, &b->x, &v);
    FE_SQR(&t, &b->x);
    FE_DBL(&m, &t);
    FE_ADD(&m, &m, &t);
    EC_XYZZ o;
    FE_SQR(&o.x, &m);
    FE_DBL(&t, &s);
    FE_SUB(&o.x, &o.x, &t);
    FE_SUB(&t, &s, &o.x);
    FE_MUL(&o.y, &m, &t);
    FE_MUL(&t, &w, &b->y);
    FE_SUB(&o.y, &o.y, &t);
    o.zz = v;
    o.zzz = w;
    *r = o;
}

void EC_FN(xyzz_add)(EC_XYZZ *r, const EC_XYZZ *a, const EC_XYZZ *b)
{
    if (EC_FN(xyzz_is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (EC_FN(xyzz_is_infinity)(b)) {
        *r = *a;
        return;
    }
    /* add-2008-s */
    FE u1, u2, s1, s2, pp, ppp, q, P, R, t;
    FE_MUL(&u1, &a->x, &b->zz);
    FE_MUL(&u2, &b->x, &a->zz);
    FE_MUL(&s1, &a->y, &b->zzz);
    FE_MUL(&s2, &b->y, &a->zzz);
    FE_SUB(&P, &u2, &u1);
    FE_SUB(&R, &s2, &s1);
    if (FE_IS_ZERO(&P)) {
        if (FE_IS_ZERO(&R))
            EC_FN(xyzz_dbl)(r, a);
        else
            EC_FN(xyzz_set_infinity)(r);
        return;
    }
    FE_SQR(&pp, &P);
    FE_MUL(&ppp, &P, &pp);
    FE_MUL(&q, &u1, &pp);
    EC_XYZZ o;
    FE_SQR(&o.x, &R);
    FE_SUB(&o.x, &o.x, &ppp);
    FE_DBL(&t, &q);
    FE_SUB(&o.x, &o.x, &t);
    FE_SUB(&t, &q, &o.x);
    FE_MUL(&o.y, &R, &t);
    FE_MUL(&t, &s1, &ppp);
    FE_SUB(&o.y, &o.y, &t);
    FE_MUL(&o.zz, &a->zz, &b->zz);
    FE_MUL(&o.zz, &o.zz, &pp);
    FE_MUL(&o.zzz, &a->zzz, &b->zzz);
    FE_MUL(&o.zzz, &o.zzz, &ppp);
    *r = o;
}

void EC_FN(xyzz_add_affine)(EC_XYZZ *r, const EC_XYZZ *a, const EC_AFF *b)
{
    if (EC_FN(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (EC_FN(xyzz_is_infinity)(a)) {
        EC_FN(xyzz_from_affine)(r, b);
        return;
    }
    /* madd-2008-s */
    FE u2, s2, pp, ppp, q, P, R, t;
    FE_MUL(&u2, &b->x, &a->zz);
    FE_MUL(&s2, &b->y, &a->zzz);
    FE_SUB(&P, &u2, &a->x);
    FE_SUB(&R, &s2, &a->y);
    if (FE_IS_ZERO(&P)) {
        if (FE_IS_ZERO(&R))
            EC_FN(xyzz_dbl_affine_)(r, b);
        else
            EC_FN(xyzz_set_infinity)(r);
        return;
    }
    FE_SQR(&pp, &P);
    FE_MUL(&ppp, &P, &pp);
    FE_MUL(&q, &a->x, &pp);
    EC_XYZZ o;
    FE_SQR(&o.x, &R);
    FE_SUB(&o.x, &o.x, &ppp);
    FE_DBL(&t, &q);
    FE_SUB(&o.x, &o.x, &t);
    FE_SUB(&t, &q, &o.x);
    FE_MUL(&o.y, &R, &t);
    FE_MUL(&t, &a->y, &ppp);
    FE_SUB(&o.y, &o.y, &t);
    FE_MUL(&o.zz, &a->zz, &pp);
    FE_MUL(&o.zzz, &a->zzz, &ppp);
    *r = o;
}
