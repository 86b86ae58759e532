/* Optimal ate pairing on BLS12-381; see cuzk/ec/pairing.h for the choices made. */
#include "cuzk/ec/pairing.h"

/* |x| for the BLS parameter x = -0xd201000000010000 (bits 63, 62, 60, 57, 48, 16). */
static const uint64_t BLS_X_ABS = 0xd201000000010000ULL;

/* G2 point T = (X : Y : Z) in homogeneous projective coordinates, x = X/Z, y = Y/Z. */
typedef struct { cuzk_fp2 x, y, z; } g2_proj;

/* r = 3b'·a with b' = 4(u + 1): 12·a·(u + 1). */
static void mul_by_3b(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2 t;
    cuzk_fp2_mul_by_nonresidue(&t, a);
    cuzk_fp2_dbl(r, &t);
    cuzk_fp2_add(r, r, &t); /* 3 */
    cuzk_fp2_dbl(r, r);     /* 6 */
    cuzk_fp2_dbl(r, r);     /* 12 */
}

/*
 * T <- 2T and the coefficients of l_{T,T}: the line at P is l0 + (l1·xP) v + (l4·yP) v w
 * (line_apply). With the tangent slope s = 3x^2/(2y) the
 * untwisted line times w^3 is (s·x_T - y_T) - s·xP·v + yP·v·w; scaled by 2YZ
 * and simplified with Y^2 Z = X^3 + b'Z^3 it becomes
 *   l0 = Y^2 - 3b'Z^2, l1 = -3X^2·xP, l4 = 2YZ·yP.
 * The point uses the doubling formulas of Costello-Lange-Naehrig scaled by 4
 * (to avoid halving): X3 = 2XY(Y^2 - 9b'Z^2), Y3 = (Y^2 + 9b'Z^2)^2 - 12(3b'Z^2)^2,
 * Z3 = 8Y^3 Z.
 */
static void dbl_coeffs(g2_proj *T, cuzk_fp2 *l0, cuzk_fp2 *l1, cuzk_fp2 *l4)
{
    cuzk_fp2 t0, t1, t2, t3, t4, s;
    cuzk_fp2_sqr(&t0, &T->y);        /* Y^2 */
    cuzk_fp2_sqr(&t1, &T->z);        /* Z^2 */
    mul_by_3b(&t2, &t1);             /* 3b'Z^2 */
    cuzk_fp2_dbl(&t3, &t2);
    cuzk_fp2_add(&t3, &t3, &t2);     /* 9b'Z^2 */
    cuzk_fp2_add(&t4, &T->y, &T->z);
    cuzk_fp2_sqr(&t4, &t4);
    cuzk_fp2_sub(&t4, &t4, &t0);
    cuzk_fp2_sub(&t4, &t4, &t1);     /* 2YZ */
    /* line */
    cuzk_fp2_sub(l0, &t0, &t2);
    cuzk_fp2_sqr(&s, &T->x);
    cuzk_fp2_dbl(l1, &s);
    cuzk_fp2_add(l1, l1, &s);        /* 3X^2 */
    cuzk_fp2_neg(l1, l1);
    *l4 = t4;
    /* point */
    cuzk_fp2_mul(&s, &T->x, &T->y);
    cuzk_fp2_dbl(&s, &s);            /* 2XY */
    cuzk_fp2_sub(&T->x, &t0, &t3);
    cuzk_fp2_mul(&T->x, &T->x, &s);
    cuzk_fp2_mul(&T->z, &t0, &t4);
    cuzk_fp2_dbl(&T->z, &T->z);
    cuzk_fp2_dbl(&T->z, &T->z);      /* 4 Y^2 · 2YZ */
    cuzk_fp2_add(&s, &t0, &t3);
    cuzk_fp2_sqr(&s, &s);
    cuzk_fp2_sqr(&t2, &t2);          /* (3b'Z^2)^2 */
    cuzk_fp2_dbl(&t1, &t2);
    cuzk_fp2_add(&t1, &t1, &t2);
    cuzk_fp2_dbl(&t1, &t1);
    cuzk_fp2_dbl(&t1, &t1);          /* 12 (3b'Z^2)^2 */
    cuzk_fp2_sub(&T->y, &s, &t1);
}

/*
 * T <- T + Q (Q affine) and the coefficients of l_{T,Q}, as dbl_coeffs'. With theta = Y - yQ Z,
 * lambda = X - xQ Z (slope theta/lambda) the line through Q scaled by lambda is
 *   l0 = theta·xQ - lambda·yQ, l1 = -theta·xP, l4 = lambda·yP,
 * and with D = lambda^2, E = lambda^3, F = X·D, G = E + Z·theta^2 - 2F:
 *   X3 = lambda·G, Y3 = theta·(F - G) - Y·E, Z3 = Z·E.
 */
static void add_coeffs(g2_proj *T, cuzk_fp2 *l0, cuzk_fp2 *l1, cuzk_fp2 *l4, const cuzk_g2_affine *Q)
{
    cuzk_fp2 th, la, d, e, f, g, t;
    cuzk_fp2_mul(&th, &Q->y, &T->z);
    cuzk_fp2_sub(&th, &T->y, &th);
    cuzk_fp2_mul(&la, &Q->x, &T->z);
    cuzk_fp2_sub(&la, &T->x, &la);
    /* line */
    cuzk_fp2_mul(l0, &th, &Q->x);
    cuzk_fp2_mul(&t, &la, &Q->y);
    cuzk_fp2_sub(l0, l0, &t);
    cuzk_fp2_neg(l1, &th);
    *l4 = la;
    /* point */
    cuzk_fp2_sqr(&d, &la);
    cuzk_fp2_mul(&e, &d, &la);
    cuzk_fp2_mul(&f, &T->x, &d);
    cuzk_fp2_sqr(&g, &th);
    cuzk_fp2_mul(&g, &g, &T->z);
    cuzk_fp2_add(&g, &g, &e);
    cuzk_fp2_sub(&g, &g, &f);
    cuzk_fp2_sub(&g, &g, &f);
    cuzk_fp2_mul(&T->x, &la, &g);
    cuzk_fp2_sub(&t, &f, &g);
    cuzk_fp2_mul(&t, &t, &th);
    cuzk_fp2_mul(&T->y, &T->y, &e);
    cuzk_fp2_sub(&T->y, &t, &T->y);
    cuzk_fp2_mul(&T->z, &T->z, &e);
}

/* acc <- acc·l(P) for the line l = c0 + (c1·xP) v + (c4·yP) v w. */
static void line_apply(cuzk_fp12 *acc, const cuzk_fp2 *c0, const cuzk_fp2 *c1, const cuzk_fp2 *c4,
                       const cuzk_g1_affine *P)
{
    cuzk_fp2 l1, l4;
    cuzk_fp2_mul_fp(&l1, c1, &P->x);
    cuzk_fp2_mul_fp(&l4, c4, &P->y);
    cuzk_fp12_mul_by_014(acc, acc, c0, &l1, &l4);
}

/* Groups whose G2 state one pass of the bit loop keeps (stack: 288 bytes a group). */
#define MILLER_GROUP_BLOCK 32

/* acc[k] (k < nprod, all 1 on entry) <- the Miller loops of up to MILLER_GROUP_BLOCK groups
 * (finite points, n >= 1); only the products the block's pairs go to are squared. */
static void miller_group_block(cuzk_fp12 *acc, size_t nprod, const cuzk_pairing_group *g, size_t ng)
{
    g2_proj T[MILLER_GROUP_BLOCK];
    cuzk_fp2 c0, c1, c4;
    unsigned touched = 0;
    for (size_t j = 0; j < ng; j++) {
        T[j].x = g[j].q->x, T[j].y = g[j].q->y, T[j].z = cuzk_fp2_one;
        for (unsigned k = 0; k < g[j].n; k++) touched |= 1u << g[j].prod[k];
    }
    for (int bit = 62; bit >= 0; bit--) {
        for (size_t k = 0; k < nprod && bit != 62; k++)
            if ((touched >> k) & 1) cuzk_fp12_sqr(&acc[k], &acc[k]);
        for (size_t j = 0; j < ng; j++) {
            dbl_coeffs(&T[j], &c0, &c1, &c4);
            for (unsigned k = 0; k < g[j].n; k++) line_apply(&acc[g[j].prod[k]], &c0, &c1, &c4, g[j].p[k]);
        }
        if ((BLS_X_ABS >> bit) & 1)
            for (size_t j = 0; j < ng; j++) {
                add_coeffs(&T[j], &c0, &c1, &c4, g[j].q);
                for (unsigned k = 0; k < g[j].n; k++) line_apply(&acc[g[j].prod[k]], &c0, &c1, &c4, g[j].p[k]);
            }
    }
}

/* g's pairs without a point at infinity, or a product out of range (n = 0: nothing to do). */
static cuzk_pairing_group group_finite(const cuzk_pairing_group *g, size_t nprod)
{
    cuzk_pairing_group r = {g->q, {0}, {0}, 0};
    if (cuzk_g2_affine_is_infinity(g->q)) return r;
    for (unsigned k = 0; k < g->n && k < CUZK_PAIRING_GROUP_MAX; k++)
        if (g->prod[k] < nprod && !cuzk_g1_affine_is_infinity(g->p[k])) r.p[r.n] = g->p[k], r.prod[r.n++] = g->prod[k];
    return r;
}

/* acc[k] <- acc[k]·(the block's share of product k). */
static void miller_group_flush(cuzk_fp12 *acc, size_t nprod, const cuzk_pairing_group *blk, size_t m)
{
    cuzk_fp12 part[CUZK_PAIRING_PRODS_MAX];
    for (size_t k = 0; k < nprod; k++) part[k] = cuzk_fp12_one;
    miller_group_block(part, nprod, blk, m);
    for (size_t k = 0; k < nprod; k++)
        if (!cuzk_fp12_is_one(&part[k])) cuzk_fp12_mul(&acc[k], &acc[k], &part[k]);
}

void cuzk_pairing_miller_loop_groups(cuzk_fp12 *out, size_t nprod, const cuzk_pairing_group *g, size_t ng)
{
    cuzk_fp12 acc[CUZK_PAIRING_PRODS_MAX];
    cuzk_pairing_group blk[MILLER_GROUP_BLOCK];
    size_t m = 0;
    if (nprod > CUZK_PAIRING_PRODS_MAX) nprod = CUZK_PAIRING_PRODS_MAX;
    for (size_t k = 0; k < nprod; k++) acc[k] = cuzk_fp12_one;
    for (size_t i = 0; i < ng; i++) {
        blk[m] = group_finite(&g[i], nprod);
        if (blk[m].n && ++m == MILLER_GROUP_BLOCK) miller_group_flush(acc, nprod, blk, m), m = 0;
    }
    if (m) miller_group_flush(acc, nprod, blk, m);
    /* x < 0: f_{x,Q} = 1/f_{|x|,Q} up to a vertical line, and 1/f ~ conj(f) after the easy part */
    for (size_t k = 0; k < nprod; k++) cuzk_fp12_conjugate(&out[k], &acc[k]);
}

/* Each pair a group of its own, in blocks sharing one product's squarings. */
void cuzk_pairing_miller_loop(cuzk_fp12 *r, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n)
{
    cuzk_pairing_group g[MILLER_GROUP_BLOCK];
    cuzk_fp12 f = cuzk_fp12_one, part;
    for (size_t i = 0; i < n; i += MILLER_GROUP_BLOCK) {
        size_t m = n - i < MILLER_GROUP_BLOCK ? n - i : MILLER_GROUP_BLOCK;
        for (size_t j = 0; j < m; j++) g[j] = (cuzk_pairing_group){&Q[i + j], {&P[i + j]}, {0}, 1};
        cuzk_pairing_miller_loop_groups(&part, 1, g, m);
        cuzk_fp12_mul(&f, &f, &part);
    }
    *r = f;
}

/* r = a^x = conj(a^|x|) for a in the cyclotomic subgroup. */
static void cyclotomic_exp_x(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp12_cyclotomic_pow(r, a, &BLS_X_ABS, 1);
    cuzk_fp12_conjugate(r, r);
}

void cuzk_pairing_final_exp(cuzk_gt *r, const cuzk_fp12 *f)
{
    cuzk_fp12 t, a, b, c, s;
    /* easy part: t = f^((p^6 - 1)(p^2 + 1)), in the cyclotomic subgroup afterwards */
    cuzk_fp12_inv(&a, f);
    cuzk_fp12_conjugate(&t, f);
    cuzk_fp12_mul(&t, &t, &a);
    cuzk_fp12_frobenius(&a, &t, 2);
    cuzk_fp12_mul(&t, &t, &a);
    /* hard part: t^((x-1)^2 (x+p)(x^2+p^2-1) + 3); conj is the inverse here */
    cyclotomic_exp_x(&a, &t);
    cuzk_fp12_conjugate(&s, &t);
    cuzk_fp12_mul(&a, &a, &s);          /* t^(x-1) */
    cyclotomic_exp_x(&b, &a);
    cuzk_fp12_conjugate(&s, &a);
    cuzk_fp12_mul(&a, &b, &s);          /* t^((x-1)^2) */
    cyclotomic_exp_x(&b, &a);
    cuzk_fp12_frobenius(&s, &a, 1);
    cuzk_fp12_mul(&b, &b, &s);          /* a^(x+p) */
    cyclotomic_exp_x(&c, &b);
    cyclotomic_exp_x(&c, &c);           /* b^(x^2) */
    cuzk_fp12_frobenius(&s, &b, 2);
    cuzk_fp12_mul(&c, &c, &s);
    cuzk_fp12_conjugate(&s, &b);
    cuzk_fp12_mul(&c, &c, &s);          /* b^(x^2+p^2-1) */
    cuzk_fp12_cyclotomic_sqr(&s, &t);
    cuzk_fp12_mul(&s, &s, &t);          /* t^3 */
    cuzk_fp12_mul(r, &c, &s);
}

void cuzk_pairing(cuzk_gt *r, const cuzk_g1_affine *P, const cuzk_g2_affine *Q)
{
    cuzk_pairing_multi(r, P, Q, 1);
}

void cuzk_pairing_multi(cuzk_gt *r, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n)
{
    cuzk_fp12 f;
    cuzk_pairing_miller_loop(&f, P, Q, n);
    cuzk_pairing_final_exp(r, &f);
}

bool cuzk_pairing_check(const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n)
{
    cuzk_gt r;
    cuzk_pairing_multi(&r, P, Q, n);
    return cuzk_gt_is_one(&r);
}

bool cuzk_gt_eq(const cuzk_gt *a, const cuzk_gt *b) { return cuzk_fp12_eq(a, b); }
bool cuzk_gt_is_one(const cuzk_gt *a) { return cuzk_fp12_is_one(a); }
void cuzk_gt_mul(cuzk_gt *r, const cuzk_gt *a, const cuzk_gt *b) { cuzk_fp12_mul(r, a, b); }
void cuzk_gt_inv(cuzk_gt *r, const cuzk_gt *a) { cuzk_fp12_conjugate(r, a); }
void cuzk_gt_pow(cuzk_gt *r, const cuzk_gt *a, const uint64_t k[4]) { cuzk_fp12_cyclotomic_pow(r, a, k, 4); }
