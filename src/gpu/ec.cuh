/*
 * Device G1 / G2 point arithmetic, one template over the coordinate field
 * (fp_t for G1, fp2_t for G2). Layouts match the CPU structs (cuzk_g1_affine,
 * cuzk_g1_xyzz, and the G2 ones): affine (x, y) with (0, 0) the point at
 * infinity; XYZZ (X, Y, ZZ, ZZZ) with ZZ = 0 the point at infinity. The
 * formulas are the ones the CPU uses (madd-2008-s, add-2008-s, dbl-2008-s-1),
 * so partial sums that download are ordinary cuzk_g*_xyzz values.
 */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include <string.h>

#include "ff.cuh"

namespace cuzk_gpu {

template <class F> struct affine_t {
    F x, y;
};
template <class F> struct xyzz_t {
    F x, y, zz, zzz;
};
typedef affine_t<fp_t> g1_affine;
typedef xyzz_t<fp_t> g1_xyzz;
typedef affine_t<fp2_t> g2_affine;
typedef xyzz_t<fp2_t> g2_xyzz;

template <class F> CUZK_FD bool aff_is_inf(const affine_t<F> &a)
{
    return f_is_zero(a.x) && f_is_zero(a.y);
}
template <class F> __device__ __forceinline__ void xyzz_set_inf(xyzz_t<F> &r)
{
    f_zero(r.x), f_zero(r.y), f_zero(r.zz), f_zero(r.zzz);
}
template <class F> __device__ __forceinline__ bool xyzz_is_inf(const xyzz_t<F> &p) { return f_is_zero(p.zz); }

template <class F> __device__ __forceinline__ void xyzz_from_aff(xyzz_t<F> &r, const affine_t<F> &a)
{
    if (aff_is_inf(a)) {
        xyzz_set_inf(r);
        return;
    }
    r.x = a.x, r.y = a.y;
    f_one(r.zz), f_one(r.zzz);
}

/* o = a·b - c·d with t as scratch (b may be t). */
template <class F> CUZK_FD void ec_mul_sub(F &o, const F &a, const F &b, F &t, const F &c, const F &d)
{
    f_mul(o, a, b);
    f_mul(t, c, d);
    f_sub(o, o, t);
}

/* dbl-2008-s-1 (a = 0); infinity (ZZ = 0) stays infinity. */
template <class F> __device__ __noinline__ void xyzz_dbl(xyzz_t<F> &r, const xyzz_t<F> &p)
{
    F u, v, w, s, m, t;
    f_dbl(u, p.y);
    f_sqr(v, u);
    f_mul(w, u, v);
    f_mul(s, p.x, v);
    f_sqr(t, p.x);
    f_dbl(m, t);
    f_add(m, m, t);
    xyzz_t<F> o;
    f_sqr(o.x, m);
    f_dbl(t, s);
    f_sub(o.x, o.x, t);
    f_sub(t, s, o.x);
    ec_mul_sub(o.y, m, t, t, w, p.y);
    f_mul(o.zz, v, p.zz);
    f_mul(o.zzz, w, p.zzz);
    r = o;
}

/* r = a + b for affine b (madd-2008-s); every special case handled.
 * _body is the inline form for hot loops with registers to spare (G1); the
 * plain name is an out-of-line call (G2's larger points would spill). */
template <class F>
__device__ __forceinline__ void xyzz_add_aff_body(xyzz_t<F> &r, const xyzz_t<F> &a, const affine_t<F> &b)
{
    if (aff_is_inf(b)) {
        r = a;
        return;
    }
    if (xyzz_is_inf(a)) {
        xyzz_from_aff(r, b);
        return;
    }
    F u2, s2, pp, ppp, q, P, R, t;
    f_mul(u2, b.x, a.zz);
    f_mul(s2, b.y, a.zzz);
    f_sub(P, u2, a.x);
    f_sub(R, s2, a.y);
    if (f_is_zero(P)) {
        xyzz_t<F> bb;
        xyzz_from_aff(bb, b);
        if (f_is_zero(R))
            xyzz_dbl(r, bb);
        else
            xyzz_set_inf(r);
        return;
    }
    f_sqr(pp, P);
    f_mul(ppp, P, pp);
    f_mul(q, a.x, pp);
    xyzz_t<F> o;
    f_sqr(o.x, R);
    f_sub(o.x, o.x, ppp);
    f_dbl(t, q);
    f_sub(o.x, o.x, t);
    f_sub(t, q, o.x);
    ec_mul_sub(o.y, R, t, t, a.y, ppp);
    f_mul(o.zz, a.zz, pp);
    f_mul(o.zzz, a.zzz, ppp);
    r = o;
}

template <class F> __device__ __noinline__ void xyzz_add_aff(xyzz_t<F> &r, const xyzz_t<F> &a, const affine_t<F> &b)
{
    xyzz_add_aff_body(r, a, b);
}

/* r = a + b (add-2008-s); _body inline as above. */
template <class F>
__device__ __forceinline__ void xyzz_add_body(xyzz_t<F> &r, const xyzz_t<F> &a, const xyzz_t<F> &b)
{
    if (xyzz_is_inf(a)) {
        r = b;
        return;
    }
    if (xyzz_is_inf(b)) {
        r = a;
        return;
    }
    F u1, u2, s1, s2, pp, ppp, q, P, R, t;
    f_mul(u1, a.x, b.zz);
    f_mul(u2, b.x, a.zz);
    f_mul(s1, a.y, b.zzz);
    f_mul(s2, b.y, a.zzz);
    f_sub(P, u2, u1);
    f_sub(R, s2, s1);
    if (f_is_zero(P)) {
        if (f_is_zero(R))
            xyzz_dbl(r, a);
        else
            xyzz_set_inf(r);
        return;
    }
    f_sqr(pp, P);
    f_mul(ppp, P, pp);
    f_mul(q, u1, pp);
    xyzz_t<F> o;
    f_sqr(o.x, R);
    f_sub(o.x, o.x, ppp);
    f_dbl(t, q);
    f_sub(o.x, o.x, t);
    f_sub(t, q, o.x);
    ec_mul_sub(o.y, R, t, t, s1, ppp);
    f_mul(o.zz, a.zz, b.zz);
    f_mul(o.zz, o.zz, pp);
    f_mul(o.zzz, a.zzz, b.zzz);
    f_mul(o.zzz, o.zzz, ppp);
    r = o;
}

template <class F> __device__ __noinline__ void xyzz_add(xyzz_t<F> &r, const xyzz_t<F> &a, const xyzz_t<F> &b)
{
    xyzz_add_body(r, a, b);
}

/* Whether the MSM's hot loops inline the additions (G1 yes; G2 would spill). */
template <class F> struct inline_adds {
    static constexpr bool value = false;
};
template <> struct inline_adds<fp_t> {
    static constexpr bool value = true;
};
template <class F> __device__ __forceinline__ void hot_add_aff(xyzz_t<F> &acc, const affine_t<F> &p)
{
    if constexpr (inline_adds<F>::value)
        xyzz_add_aff_body(acc, acc, p);
    else
        xyzz_add_aff(acc, acc, p);
}
template <class F> __device__ __forceinline__ void hot_add(xyzz_t<F> &acc, const xyzz_t<F> &p)
{
    if constexpr (inline_adds<F>::value)
        xyzz_add_body(acc, acc, p);
    else
        xyzz_add(acc, acc, p);
}

/* A point (or any 16-byte multiple) read with 16-byte loads through the
 * read-only path; the source must be 16-byte aligned (cudaMalloc'd arrays of
 * 96/192/384-byte points are). */
template <class T> __device__ __forceinline__ void load16(T &r, const T *p)
{
    static_assert(sizeof(T) % 16 == 0, "load16: size not a multiple of 16");
    uint4 v[sizeof(T) / 16];
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 16; i++) v[i] = __ldg(s + i);
    memcpy(&r, v, sizeof(T));
}

/* r = k·p for a small non-negative k (binary, most significant bit first). */
template <class F> __device__ void xyzz_mul_small(xyzz_t<F> &r, const xyzz_t<F> &p, uint32_t k)
{
    xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (int i = 31; i >= 0; i--) {
        if (!xyzz_is_inf(acc)) xyzz_dbl(acc, acc);
        if ((k >> i) & 1) xyzz_add(acc, acc, p);
    }
    r = acc;
}

} // namespace cuzk_gpu
#endif
