#!/usr/bin/env python3
"""Generates src/ff/mont_adx.h: N-limb Montgomery multiplication in GNU inline
asm with mulx and the two carry chains adcx (CF) / adox (OF).

Run: python3 src/ff/mont_gen_adx.py > src/ff/mont_adx.h

Scheme (operand scanning, reduction interleaved with each b[i] row):
  T = a*b[0]                          (N+1 words, plain mulx/adc)
  for i: q = T0*n0; T += q*m (T0 becomes 0); T >>= 64 (register rotation);
         if i < N-1: T += a*b[i+1]
  r = T < m ? T : T - m
Every partial sum stays below 2m*2^64 <= 2^(64(N+1)), so the carries out of
word N are zero and are dropped. The physical register holding each logical
word rotates after each reduction; the generator tracks it.
"""
import sys


def gen(name, mod, n0):
    n = len(mod)
    T = [f"t{k}" for k in range(n + 1)]  # logical word k -> operand name
    L = []
    e = L.append
    # row 0
    e("movq 0(%[b]), %%rdx")
    e(f"mulxq 0(%[a]), %[{T[0]}], %[{T[1]}]")
    for j in range(1, n):
        e(f"mulxq {8*j}(%[a]), %[lo], %[{T[j+1]}]")
        e(f"{'addq' if j == 1 else 'adcq'} %[lo], %[{T[j]}]")
    e(f"adcq $0, %[{T[n]}]")
    for i in range(n):
        # reduction row
        e(f"movq %[{T[0]}], %%rdx")
        e("imulq %[n0], %%rdx")
        e("xorl %k[lo], %k[lo]")  # clears CF and OF
        for j in range(n):
            e(f"mulxq {8*j}+%[m], %[lo], %[hi]")
            e(f"adoxq %[lo], %[{T[j]}]")
            e(f"adcxq %[hi], %[{T[j+1]}]")
        e(f"adoxq %[z], %[{T[n]}]")
        T = T[1:] + T[:1]  # old word 0 (now zero) becomes the new top word
        if i == n - 1:
            break
        # multiply row: T += a*b[i+1]
        e(f"movq {8*(i+1)}(%[b]), %%rdx")
        e(f"xorl %k[{T[n]}], %k[{T[n]}]")  # top word = 0, flags cleared
        for j in range(n):
            e(f"mulxq {8*j}(%[a]), %[lo], %[hi]")
            e(f"adcxq %[lo], %[{T[j]}]")
            e(f"adoxq %[hi], %[{T[j+1]}]")
        e(f"adcxq %[z], %[{T[n]}]")
    # final conditional subtraction: store T, subtract m, keep T on borrow
    for j in range(n):
        e(f"movq %[{T[j]}], {8*j}(%[r])")
    for j in range(n):
        e(f"{'subq' if j == 0 else 'sbbq'} {8*j}+%[m], %[{T[j]}]")
    for j in range(n):
        e(f"cmovcq {8*j}(%[r]), %[{T[j]}]")
    for j in range(n):
        e(f"movq %[{T[j]}], {8*j}(%[r])")
    out = []
    out.append(f"static inline void mont_mul_adx_{name}(uint64_t *r, const uint64_t *a, const uint64_t *b)")
    out.append("{")
    out.append("    /* constants as local statics: RIP-relative operands, no registers needed */")
    out.append(f"    static const uint64_t m[{n}] = {{" + ", ".join(f"0x{w:016x}ULL" for w in mod) + "};")
    out.append(f"    static const uint64_t n0 = 0x{n0:016x}ULL, z = 0;")
    out.append("    uint64_t " + ", ".join(f"t{k}" for k in range(n + 1)) + ", lo, hi;")
    out.append("    __asm__ volatile(")
    for line in L:
        out.append(f'        "{line}\\n\\t"')
    outs = ", ".join(f'[t{k}] "=&r"(t{k})' for k in range(n + 1))
    out.append(f'        : {outs}, [lo] "=&r"(lo), [hi] "=&r"(hi)')
    out.append(f'        : [r] "r"(r), [a] "r"(a), [b] "r"(b), [m] "m"(m),')
    out.append('          [n0] "m"(n0), [z] "m"(z)')
    out.append('        : "rdx", "cc", "memory");')
    out.append("}")
    return "\n".join(out)


def gen_sqr(name, mod, n0):
    """r = a^2/R mod m: the square 2N words via the off-diagonal triangle
    doubled plus the diagonal (into t[] on the stack), then REDC: the low
    half plus Q*m over N reduction rows gives U <= m, and U + high half < 2m
    takes one conditional subtraction."""
    n = len(mod)
    pool = [f"t{k}" for k in range(n + 1)]
    L = []
    e = L.append
    win = {}  # position -> operand name
    free = list(pool)
    # phase 1: S = sum_{i<j} a_i a_j 2^(64(i+j)) into t[1 .. 2n-2]
    for i in range(n - 1):
        e(f"movq {8*i}(%[a]), %%rdx")
        top = i + n  # new highest position of this row
        reg = free.pop(0)
        win[top] = reg
        e(f"xorl %k[{reg}], %k[{reg}]")
        for j in range(i + 1, n):
            lo_pos, hi_pos = i + j, i + j + 1
            if lo_pos not in win:  # first row: position not yet present
                r2 = free.pop(0)
                win[lo_pos] = r2
                e(f"xorl %k[{r2}], %k[{r2}]")  # note: also clears flags
            e(f"mulxq {8*j}(%[a]), %[lo], %[hi]")
            e(f"adoxq %[lo], %[{win[lo_pos]}]")
            if hi_pos not in win:
                r2 = free.pop(0)
                win[hi_pos] = r2
                e(f"movq $0, %[{r2}]")  # mov keeps the flags
            e(f"adcxq %[hi], %[{win[hi_pos]}]")
        e(f"adoxq %[z], %[{win[top]}]")
        # positions 2i+1 and 2i+2 are final
        for p in (2 * i + 1, 2 * i + 2):
            if p in win and p <= 2 * n - 2:
                e(f"movq %[{win[p]}], {8*p}(%[t])")
                free.append(win.pop(p))
    for p in sorted(win):
        e(f"movq %[{win[p]}], {8*p}(%[t])")
        free.append(win.pop(p))
    # phase 2: t = 2S + diagonal, two words at a time
    e("xorl %k[lo], %k[lo]")
    for i in range(n):
        w0, w1 = pool[0], pool[1]
        if i == 0:
            e(f"xorl %k[{w0}], %k[{w0}]")  # S_0 = 0 (flags: xor clears CF/OF, fine at start)
        else:
            e(f"movq {16*i}(%[t]), %[{w0}]")
        if i == n - 1:
            e(f"movq $0, %[{w1}]")  # S_(2n-1) = 0
        else:
            e(f"movq {16*i+8}(%[t]), %[{w1}]")
        e(f"movq {8*i}(%[a]), %%rdx")
        e(f"mulxq %%rdx, %[lo], %[hi]")
        e(f"adcxq %[{w0}], %[{w0}]")
        e(f"adcxq %[{w1}], %[{w1}]")
        e(f"adoxq %[lo], %[{w0}]")
        e(f"adoxq %[hi], %[{w1}]")
        e(f"movq %[{w0}], {16*i}(%[t])")
        e(f"movq %[{w1}], {16*i+8}(%[t])")
    # phase 3: REDC
    T = pool[:]
    for j in range(n):
        e(f"movq {8*j}(%[t]), %[{T[j]}]")
    e(f"xorl %k[{T[n]}], %k[{T[n]}]")
    for i in range(n):
        e(f"movq %[{T[0]}], %%rdx")
        e("imulq %[n0], %%rdx")
        e("xorl %k[lo], %k[lo]")
        for j in range(n):
            e(f"mulxq {8*j}+%[m], %[lo], %[hi]")
            e(f"adoxq %[lo], %[{T[j]}]")
            e(f"adcxq %[hi], %[{T[j+1]}]")
        e(f"adoxq %[z], %[{T[n]}]")
        T = T[1:] + T[:1]
    # U (n words; top is zero) + high half
    for j in range(n):
        e(f"{'addq' if j == 0 else 'adcq'} {8*(n+j)}(%[t]), %[{T[j]}]")
    for j in range(n):
        e(f"movq %[{T[j]}], {8*j}(%[r])")
    for j in range(n):
        e(f"{'subq' if j == 0 else 'sbbq'} {8*j}+%[m], %[{T[j]}]")
    for j in range(n):
        e(f"cmovcq {8*j}(%[r]), %[{T[j]}]")
    for j in range(n):
        e(f"movq %[{T[j]}], {8*j}(%[r])")
    out = []
    out.append(f"static inline void mont_sqr_adx_{name}(uint64_t *r, const uint64_t *a)")
    out.append("{")
    out.append("    /* constants as local statics: RIP-relative operands, no registers needed */")
    out.append(f"    static const uint64_t m[{n}] = {{" + ", ".join(f"0x{w:016x}ULL" for w in mod) + "};")
    out.append(f"    static const uint64_t n0 = 0x{n0:016x}ULL, z = 0;")
    out.append(f"    uint64_t t[{2*n}]; /* the full square */")
    out.append("    uint64_t " + ", ".join(f"t{k}" for k in range(n + 1)) + ", lo, hi;")
    out.append("    __asm__ volatile(")
    for line in L:
        out.append(f'        "{line}\\n\\t"')
    outs = ", ".join(f'[t{k}] "=&r"(t{k})' for k in range(n + 1))
    out.append(f'        : {outs}, [lo] "=&r"(lo), [hi] "=&r"(hi)')
    out.append('        : [r] "r"(r), [a] "r"(a), [t] "r"(t), [m] "m"(m), [n0] "m"(n0), [z] "m"(z)')
    out.append('        : "rdx", "cc", "memory");')
    out.append("}")
    return "\n".join(out)


print("""/*
 * GENERATED by src/ff/mont_gen_adx.py -- do not edit by hand.
 * x86-64 BMI2/ADX Montgomery multiplication r = a*b*2^(-64N) mod m and
 * squaring r = a^2*2^(-64N) mod m for Fr (N = 4) and Fp (N = 6), with mulx
 * and the two carry chains adcx (CF) / adox (OF). Needs m < 2^(64N-1),
 * inputs < m; output < m. r may alias a or b (written after all reads).
 * Callers must check CPU support (mont_select.c) before calling.
 */
#ifndef CUZK_SRC_FF_MONT_ADX_H
#define CUZK_SRC_FF_MONT_ADX_H
#if defined(__x86_64__)
#include <stdint.h>
#define CUZK_FF_HAVE_ADX 1
""")
def limbs(x, n):
    return [(x >> (64 * i)) & (2**64 - 1) for i in range(n)]


def n0_of(m):
    return (-pow(m, -1, 2**64)) % 2**64


P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
print(gen("fr", limbs(R, 4), n0_of(R)))
print()
print(gen("fp", limbs(P, 6), n0_of(P)))
print()
print(gen_sqr("fr", limbs(R, 4), n0_of(R)))
print()
print(gen_sqr("fp", limbs(P, 6), n0_of(P)))
print("""
#endif
#endif""")
