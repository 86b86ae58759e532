/* The device field arithmetic's own source (src/gpu/ff.cuh) run on the host,
 * its PTX carry primitives emulated (CUZK_FF_HOST_EMU: each keeps PTX's
 * carry flag in a variable), against the CPU's Fp, Fr and Fp2: the single-
 * accumulator Montgomery product, the FP64-pipe product (ff_dp.cuh: IEEE fma
 * is the same on the host), addition, subtraction and negation in Fp
 * and Fr, the Fp2 product and square (Karatsuba over those), the point
 * formulas' a·b - c·d (ec_mul_sub), the inversion by divsteps (ff_inv.cuh,
 * its d and e checked to stay in (-2p, p) on every update), the affine G1
 * addition over it as the affine rounds make it (aff_case, then aff_sum with
 * the inverse; every special case among them, against the CPU's Jacobian
 * addition), with edge values (0, 1, m - 1, m - 2, 2,
 * R^-1, a zero low word) and fresh random ones. No device needed: CI runs it.
 * The PTX-string code (the even/odd CIOS) and the kernels are test_gpu_ff's,
 * on a device. */
#define CUZK_FF_HOST_EMU 1
#define CUZK_GPU_MUL_EO 0 /* f_mul: the single-accumulator CIOS, written in primitives */
#include <stdlib.h>
#include <string.h>

#include "gpu/ec.cuh"    /* ec_mul_sub */
#include "gpu/ff_dp.cuh" /* f_mul_dp */
#include "gpu/ff_inv.cuh" /* f_inv_divsteps */
extern "C" {
#include "cuzk/fp.h"
#include "cuzk/fp2.h"
#include "cuzk/fr.h"
#include "cuzk/g1.h"
#include "testutil.h"
}
#include "ff_oracle.h"

using namespace cuzk_gpu;

static_assert(sizeof(cuzk_fp) == sizeof(fp_t) && sizeof(cuzk_fp2) == sizeof(fp2_t) && sizeof(cuzk_fr) == sizeof(fr_t),
              "layouts differ");

template <class D, class T> static D dv(const T &a)
{
    static_assert(sizeof(D) == sizeof(T), "layouts differ");
    D r;
    memcpy(&r, &a, sizeof r);
    return r;
}
template <class D, class T> static bool same(const D &a, const T &b) { return memcmp(&a, &b, sizeof a) == 0; }

enum { C_MUL, C_ADD, C_SUB, C_NEG, C_MUL_SUB, C_MUL_DP, NC };
static const char *const check_name[NC] = {"f_mul_cios", "f_add", "f_sub", "f_neg", "ec_mul_sub", "f_mul_dp"};

/* One pair in Fp or Fr: bit k set when check k differs. a·b - b·(a + b) for ec_mul_sub. */
template <class D, class T> static unsigned check_pair(const T &a, const T &b, const cpu_ops<T> &ops)
{
    unsigned bad = 0;
    T want, c, ab, bc;
    D r, t;
    ops.mul(&want, &a, &b);
    f_mul_cios(r, dv<D>(a), dv<D>(b));
    bad |= !same(r, want) << C_MUL;
    f_mul_dp(r, dv<D>(a), dv<D>(b));
    bad |= !same(r, want) << C_MUL_DP;
    ops.add(&want, &a, &b);
    f_add(r, dv<D>(a), dv<D>(b));
    bad |= !same(r, want) << C_ADD;
    ops.sub(&want, &a, &b);
    f_sub(r, dv<D>(a), dv<D>(b));
    bad |= !same(r, want) << C_SUB;
    ops.neg(&want, &a);
    f_neg(r, dv<D>(a));
    bad |= !same(r, want) << C_NEG;
    ops.add(&c, &a, &b);
    ops.mul(&ab, &a, &b);
    ops.mul(&bc, &b, &c);
    ops.sub(&want, &ab, &bc);
    const D x = dv<D>(a), y = dv<D>(b), z = dv<D>(c);
    ec_mul_sub(r, x, y, t, y, z);
    bad |= !same(r, want) << C_MUL_SUB;
    return bad;
}

/* Every pairing of the edges, then nr fresh pairs (every fifth beside an edge). */
template <class D, class T>
static void test_field(const char *field, const cpu_ops<T> &ops, unsigned long nr, cuzk_rng *rng)
{
    T e[FF_NEDGES];
    ff_edges(e, ops);
    unsigned long bad[NC] = {0}, n = 0;
    for (int i = 0; i < FF_NEDGES; i++)
        for (int j = 0; j < FF_NEDGES; j++, n++) {
            const unsigned b = check_pair<D>(e[i], e[j], ops);
            for (int k = 0; k < NC; k++) bad[k] += (b >> k) & 1;
        }
    for (unsigned long k = 0; k < nr; k++, n++) {
        T a, b;
        ops.random(&a, rng), ops.random(&b, rng);
        if (k % 5 == 1) a = e[FF_EDGE_M1 + k % 2]; /* m - 1 or m - 2 */
        if (k % 5 == 2) b = e[FF_EDGE_M1 + k % 2];
        const unsigned bb = check_pair<D>(a, b, ops);
        for (int q = 0; q < NC; q++) bad[q] += (bb >> q) & 1;
    }
    for (int k = 0; k < NC; k++) CHECK_MSG(bad[k] == 0, "%s %s: %lu of %lu differ", field, check_name[k], bad[k], n);
    printf("%s: %lu pairs, %d checks each\n", field, n, (int)NC);
}

/* Fp2: the product and the square against the CPU's */
static bool check_fp2(const cuzk_fp2 &a, const cuzk_fp2 &b)
{
    cuzk_fp2 want, sq;
    cuzk_fp2_mul(&want, &a, &b);
    cuzk_fp2_sqr(&sq, &a);
    fp2_t r, s;
    f_mul(r, dv<fp2_t>(a), dv<fp2_t>(b));
    f_sqr(s, dv<fp2_t>(a));
    return same(r, want) && same(s, sq);
}
/* The divsteps inversion of a, its loop run here step by step so that the
 * state's invariants are checked on the way: d, e in (-2p, p) after every
 * update, g = 0 and f = ±1 at the end. Returns false on any violation or
 * when the result is not the CPU's inverse. */
static int inv30_sign(const inv30_t &a) /* -1, 0, 1 */
{
    if (a.v[INV_L - 1] < 0) return -1;
    for (int i = 0; i < INV_L; i++)
        if (a.v[i]) return 1;
    return 0;
}
static bool in_range(const inv30_t &a) /* -2p < a < p */
{
    inv30_t lo = a, hi = a;
    inv_add_p(lo, -1, 1), inv_add_p(lo, -1, 1);
    inv_add_p(hi, -1, -1);
    return inv30_sign(lo) > 0 && inv30_sign(hi) < 0;
}
static bool check_inv(const cuzk_fp &a)
{
    cuzk_fp want;
    cuzk_fp_inv(&want, &a);
    fp_t r;
    f_inv_divsteps(r, dv<fp_t>(a));
    if (!same(r, want)) return false;
    inv30_t f, g, d, e;
    inv_start(f, g, d, e, dv<fp_t>(a));
    int32_t delta = 1, t[4];
    for (int b = 0; b < INV_BATCHES; b++) {
        delta = inv_divsteps(delta, inv_lo32(f), inv_lo32(g), t);
        const int64_t s0 = (int64_t)(t[0] < 0 ? -t[0] : t[0]) + (t[1] < 0 ? -t[1] : t[1]);
        const int64_t s1 = (int64_t)(t[2] < 0 ? -t[2] : t[2]) + (t[3] < 0 ? -t[3] : t[3]);
        if (s0 > (1 << INV_N) || s1 > (1 << INV_N)) return false; /* the matrix's bound */
        inv_update_de(d, e, t);
        inv_update_fg(f, g, t);
        if (!in_range(d) || !in_range(e)) return false;
    }
    if (inv30_sign(g) != 0) return false;
    if (cuzk_fp_is_zero(&a)) return true; /* f stays p, d stays 0: the result 0, checked above */
    /* f = 1: limbs 1, 0, ..., 0; f = -1: 2^30 - 1 in every limb but the
     * top one, -1 */
    const bool minus = f.v[INV_L - 1] < 0;
    for (int i = 0; i < INV_L; i++) {
        const int32_t want1 = minus ? (i < INV_L - 1 ? INV_M30 : -1) : (i == 0);
        if (f.v[i] != want1) return false;
    }
    return true;
}
/* aff_case and aff_sum over G1 with the divsteps inversion: batches of 16
 * pairs, random points k·G and in every batch a doubling, P + (-P), an
 * operand at infinity on either side and both, against the CPU's addition. */
static unsigned long test_aff_sum(int batches, cuzk_rng *rng, unsigned long *n)
{
    enum { KB = 16 };
    unsigned long bad = 0;
    cuzk_g1_jac g;
    cuzk_g1_jac_from_affine(&g, &cuzk_g1_generator);
    for (int b = 0; b < batches; b++) {
        cuzk_g1_affine P[KB], Q[KB], want[KB];
        for (int i = 0; i < KB; i++) {
            cuzk_g1_affine pt[2];
            for (int j = 0; j < 2; j++) {
                uint64_t k[4];
                for (int w = 0; w < 4; w++) k[w] = cuzk_rng_u64(rng);
                cuzk_g1_jac t;
                cuzk_g1_jac_mul(&t, &g, k);
                cuzk_g1_jac_to_affine(&pt[j], &t);
            }
            P[i] = pt[0], Q[i] = pt[1];
            switch (i) {
            case 1: Q[i] = P[i]; break;                         /* doubling */
            case 2: cuzk_g1_affine_neg(&Q[i], &P[i]); break;    /* infinity */
            case 3: memset(&P[i], 0, sizeof P[i]); break;       /* O + Q */
            case 4: memset(&Q[i], 0, sizeof Q[i]); break;       /* P + O */
            case 5: memset(&P[i], 0, sizeof P[i]), Q[i] = P[i]; break; /* O + O */
            }
            cuzk_g1_jac s;
            cuzk_g1_jac_from_affine(&s, &P[i]);
            cuzk_g1_jac_add_affine(&s, &s, &Q[i]);
            cuzk_g1_jac_to_affine(&want[i], &s);
        }
        for (int i = 0; i < KB; i++, (*n)++) {
            const affine_t<fp_t> dP = dv<affine_t<fp_t>>(P[i]), dQ = dv<affine_t<fp_t>>(Q[i]);
            fp_t d, id;
            const int cs = aff_case(dP, dQ, d);
            f_inv_divsteps(id, d);
            affine_t<fp_t> R;
            aff_sum(R, dP, dQ, cs, id);
            bad += !same(R, want[i]);
        }
    }
    return bad;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gpu_ff_emu");
    test_field<fp_t>("Fp", fp_oracle, 200000, &rng);
    test_field<fr_t>("Fr", fr_oracle, 200000, &rng);
    /* Fp2: every pair of edge-built values, then fresh ones */
    enum { NE = FF_NEDGES };
    cuzk_fp e[NE];
    ff_edges(e, fp_oracle);
    unsigned long bad2 = 0, n2 = 0;
    for (int i = 0; i < NE * NE; i++)
        for (int j = 0; j < NE * NE; j++, n2++) {
            const cuzk_fp2 x = {e[i / NE], e[i % NE]}, y = {e[j / NE], e[j % NE]};
            bad2 += !check_fp2(x, y);
        }
    for (int k = 0; k < 100000; k++, n2++) {
        cuzk_fp2 x, y;
        cuzk_fp2_random(&x, &rng), cuzk_fp2_random(&y, &rng);
        if (k & 1) y.c0 = e[FF_EDGE_M1 + (k >> 1) % 2]; /* p - 1 or p - 2 beside random */
        bad2 += !check_fp2(x, y);
    }
    CHECK_MSG(bad2 == 0, "Fp2 product or square: %lu of %lu differ", bad2, n2);
    printf("Fp2: %lu pairs, emulated carries\n", n2);
    /* the inversion by divsteps: every edge, 1 and small powers of 2 and
     * their negatives (long runs of even g), then fresh values */
    {
        unsigned long badi = 0, ni = 0;
        for (int i = 0; i < NE; i++, ni++) badi += !check_inv(e[i]);
        for (unsigned k = 0; k < 400; k++, ni++) {
            fp_t p2;
            memset(&p2, 0, sizeof p2);
            p2.l[k / 32 % 12] = 1u << (k % 32); /* 2^k as a stored value, k < 381 */
            cuzk_fp x = dv<cuzk_fp>(p2);
            if (k >= 381) cuzk_fp_random(&x, &rng);
            if (k & 1) cuzk_fp_neg(&x, &x);
            badi += !check_inv(x);
        }
        for (int k = 0; k < 20000; k++, ni++) {
            cuzk_fp x;
            cuzk_fp_random(&x, &rng);
            badi += !check_inv(x);
        }
        CHECK_MSG(badi == 0, "f_inv_divsteps: %lu of %lu differ or broke an invariant", badi, ni);
        printf("f_inv_divsteps: %lu values\n", ni);
        unsigned long na = 0, bada = test_aff_sum(200, &rng, &na);
        CHECK_MSG(bada == 0, "aff_case, aff_sum: %lu of %lu sums differ", bada, na);
        printf("aff_case, aff_sum: %lu sums\n", na);
    }
    /* the oracle can fail: a product with one operand's limb flipped is seen */
    {
        cuzk_fp a = e[FF_EDGE_M1], b = e[FF_EDGE_M1], want;
        cuzk_fp_mul(&want, &a, &b);
        fp_t x = dv<fp_t>(a), r;
        x.l[3] ^= 1;
        f_mul_cios(r, x, dv<fp_t>(b));
        CHECK(!same(r, want));
        f_mul_dp(r, x, dv<fp_t>(b));
        CHECK(!same(r, want));
    }
    { /* and in Fr */
        cuzk_fr er[FF_NEDGES], want;
        ff_edges(er, fr_oracle);
        cuzk_fr_mul(&want, &er[FF_EDGE_M1], &er[FF_EDGE_M1]);
        fr_t x = dv<fr_t>(er[FF_EDGE_M1]), r;
        x.l[5] ^= 1u << 20;
        f_mul_dp(r, x, dv<fr_t>(er[FF_EDGE_M1]));
        CHECK(!same(r, want));
    }
    return tu_finish("test_gpu_ff_emu");
}
