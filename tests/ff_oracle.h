/*
 * The CPU field as the oracle of the device field tests (test_gpu_ff on a
 * device, test_gpu_ff_emu on the host): its operations for an element type T
 * that has the device element's limbs, and the edge values every pairing of
 * which the tests check. C++ (the tests are .cu); include after the cuzk
 * field headers.
 */
#ifndef CUZK_TESTS_FF_ORACLE_H
#define CUZK_TESTS_FF_ORACLE_H

#include <string.h>

template <class T> struct cpu_ops {
    void (*mul)(T *, const T *, const T *);
    void (*sqr)(T *, const T *);
    void (*add)(T *, const T *, const T *);
    void (*sub)(T *, const T *, const T *);
    void (*neg)(T *, const T *);
    void (*random)(T *, cuzk_rng *);
    const T *one; /* Montgomery 1 */
};

static const cpu_ops<cuzk_fp> fp_oracle = {cuzk_fp_mul, cuzk_fp_sqr, cuzk_fp_add, cuzk_fp_sub,
                                           cuzk_fp_neg, cuzk_fp_random, &cuzk_fp_one};
static const cpu_ops<cuzk_fr> fr_oracle = {cuzk_fr_mul, cuzk_fr_sqr, cuzk_fr_add, cuzk_fr_sub,
                                           cuzk_fr_neg, cuzk_fr_random, &cuzk_fr_one};

/* The edges of a field, m its modulus: 0, Montgomery 1, m - 1, m - 2, 2,
 * R^-1 (limb 1), a zero low 32-bit word (a zero m in a reduction's first row). */
enum { FF_EDGE_M1 = 2, FF_EDGE_M2 = 3, FF_NEDGES = 7 };
template <class T> static void ff_edges(T e[FF_NEDGES], const cpu_ops<T> &ops)
{
    memset(e, 0, FF_NEDGES * sizeof *e);
    e[1] = *ops.one;
    ops.neg(&e[FF_EDGE_M1], &e[1]);
    ops.add(&e[FF_EDGE_M2], &e[FF_EDGE_M1], &e[FF_EDGE_M1]);
    ops.add(&e[4], &e[1], &e[1]);
    e[5].l[0] = 1;
    e[6].l[0] = (uint64_t)1 << 32;
}

#endif
