/* The device field arithmetic's own source (src/gpu/ff.cuh) run on the host,
 * its PTX carry primitives emulated (CUZK_FF_HOST_EMU: each keeps PTX's
 * carry flag in a variable), against the CPU's Fp, Fr and Fp2: the single-
 * accumulator Montgomery product, addition, subtraction and negation in Fp
 * and Fr, the Fp2 product and square (Karatsuba over those), the point
 * formulas' a·b - c·d (ec_mul_sub), with edge values (0, 1, m - 1, m - 2, 2,
 * R^-1, a zero low word) and fresh random ones. No device needed: CI runs it.
 * The PTX-string code (the even/odd CIOS) and the kernels are test_gpu_ff's,
 * on a device. */
#define CUZK_FF_HOST_EMU 1
#define CUZK_GPU_MUL_EO 0 /* f_mul: the single-accumulator CIOS, written in primitives */
#include <stdlib.h>
#include <string.h>

#include "gpu/ec.cuh" /* ec_mul_sub */
extern "C" {
#include "cuzk/ff/fp.h"
#include "cuzk/ff/fp2.h"
#include "cuzk/ff/fr.h"
#include "testutil.h"
}
#include "ff_oracle.h"
#include "gpu_emu.h"

using namespace cuzk_gpu;

static_assert(sizeof(cuzk_fp) == sizeof(fp_t) && sizeof(cuzk_fp2) == sizeof(fp2_t) && sizeof(cuzk_fr) == sizeof(fr_t),
              "layouts differ");

enum { C_MUL, C_ADD, C_SUB, C_NEG, C_MUL_SUB, NC };
static const char *const check_name[NC] = {"f_mul_cios", "f_add", "f_sub", "f_neg", "ec_mul_sub"};

/* One pair in Fp or Fr: bit k set when check k differs. a·b - b·(a + b) for ec_mul_sub. */
template <class D, class T> static unsigned check_pair(const T &a, const T &b, const cpu_ops<T> &ops)
{
    unsigned bad = 0;
    T want, c, ab, bc;
    D r, t;
    ops.mul(&want, &a, &b);
    f_mul_cios(r, dv<D>(a), dv<D>(b));
    bad |= !same(r, want) << C_MUL;
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
    /* the oracle can fail: a product with one operand's limb flipped is seen */
    {
        cuzk_fp a = e[FF_EDGE_M1], b = e[FF_EDGE_M1], want;
        cuzk_fp_mul(&want, &a, &b);
        fp_t x = dv<fp_t>(a), r;
        x.l[3] ^= 1;
        f_mul_cios(r, x, dv<fp_t>(b));
        CHECK(!same(r, want));
    }
    return tu_finish("test_gpu_ff_emu");
}
