/*
 * Generic N-limb Montgomery arithmetic (portable, unsigned __int128).
 * Everything is static inline with N a compile-time constant at each call
 * site, so the compiler unrolls it; fp.c and fr.c instantiate it for N = 6
 * and N = 4. Moduli must leave the top bit of the top limb clear, which
 * both BLS12-381 moduli do (so a + b never overflows N limbs).
 */
#ifndef CUZK_SRC_FF_MONT_H
#define CUZK_SRC_FF_MONT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned __int128 u128;

/* n is a small constant at every call site: full unrolling keeps the limbs in
 * registers (about 30% faster portable multiplication with GCC -O3). */
#if defined(__clang__)
#define CUZK_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define CUZK_UNROLL _Pragma("GCC unroll 16")
#else
#define CUZK_UNROLL
#endif

#if defined(__x86_64__)
#include <x86intrin.h>
/* adc/sbb chains: the u128 formulation below compiles to much longer code. */
static inline uint64_t mont_sub_n(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
    unsigned char borrow = 0;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) {
        unsigned long long d;
        borrow = _subborrow_u64(borrow, a[i], b[i], &d);
        r[i] = d;
    }
    return borrow;
}

static inline uint64_t mont_add_n(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
    unsigned char carry = 0;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) {
        unsigned long long s;
        carry = _addcarry_u64(carry, a[i], b[i], &s);
        r[i] = s;
    }
    return carry;
}
#else
/* r = a - b over N limbs; returns the borrow (0 or 1). */
static inline uint64_t mont_sub_n(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t borrow = 0;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) {
        u128 d = (u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

static inline uint64_t mont_add_n(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t carry = 0;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) {
        u128 s = (u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
}
#endif

/* If a >= m then a -= m (branch-free select). */
static inline void mont_reduce_once(uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t t[8];
    uint64_t borrow = mont_sub_n(t, a, m, n);
    uint64_t mask = borrow - 1; /* all ones when a >= m */
    CUZK_UNROLL for (size_t i = 0; i < n; i++) a[i] = (t[i] & mask) | (a[i] & ~mask);
}

static inline void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            size_t n)
{
    uint64_t t[8];
    mont_add_n(t, a, b, n);
    mont_reduce_once(t, m, n);
    CUZK_UNROLL for (size_t i = 0; i < n; i++) r[i] = t[i];
}

static inline void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            size_t n)
{
    uint64_t t[8], d[8];
    uint64_t borrow = mont_sub_n(d, a, b, n);
    uint64_t mask = 0 - borrow;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) t[i] = m[i] & mask;
    mont_add_n(d, d, t, n);
    CUZK_UNROLL for (size_t i = 0; i < n; i++) r[i] = d[i];
}

static inline void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t nz = 0;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) nz |= a[i];
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    uint64_t t[8];
    mont_sub_n(t, m, a, n);
    CUZK_UNROLL for (size_t i = 0; i < n; i++) r[i] = t[i] & mask;
}

/*
 * CIOS Montgomery multiplication: r = a·b·2^(-64n) mod m, with
 * n0 = -m^-1 mod 2^64. Inputs < m give output < m.
 */
static inline void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                            uint64_t n0, size_t n)
{
    uint64_t t[10] = {0};
    CUZK_UNROLL for (size_t i = 0; i < n; i++) {
        uint64_t c = 0;
        CUZK_UNROLL for (size_t j = 0; j < n; j++) {
            u128 p = (u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        u128 s = (u128)t[n] + c;
        t[n] = (uint64_t)s;
        t[n + 1] = (uint64_t)(s >> 64);

        uint64_t q = t[0] * n0;
        u128 p = (u128)q * m[0] + t[0];
        c = (uint64_t)(p >> 64);
        CUZK_UNROLL for (size_t j = 1; j < n; j++) {
            p = (u128)q * m[j] + t[j] + c;
            t[j - 1] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        s = (u128)t[n] + c;
        t[n - 1] = (uint64_t)s;
        t[n] = t[n + 1] + (uint64_t)(s >> 64);
    }
    CUZK_UNROLL for (size_t i = 0; i < n; i++) r[i] = t[i];
    mont_reduce_once(r, m, n);
}

static inline bool mont_is_zero(const uint64_t *a, size_t n)
{
    uint64_t acc = 0;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) acc |= a[i];
    return acc == 0;
}

static inline bool mont_eq(const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t acc = 0;
    CUZK_UNROLL for (size_t i = 0; i < n; i++) acc |= a[i] ^ b[i];
    return acc == 0;
}

/* a < m as plain integers. */
static inline bool mont_lt(const uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t t[8];
    return mont_sub_n(t, a, m, n) != 0;
}

#endif
