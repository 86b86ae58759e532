/*
 * The field operations shared by Fp and Fr, written once over the generic
 * Montgomery core (mont.h). Included by fp.c and fr.c after defining:
 *   FF_T         element type (cuzk_fp / cuzk_fr)
 *   FF_FN(x)     public name of operation x (cuzk_fp_##x)
 *   FF_N         limb count
 *   FF_MOD       modulus limbs (plain integer)
 *   FF_N0        -modulus^-1 mod 2^64
 *   FF_R2        2^(128·N) mod modulus (converts into Montgomery form)
 *   FF_ONE       1 in Montgomery form
 *   FF_BITS      bit length of the modulus
 *   FF_MUL_PORTABLE, FF_SQR_PORTABLE  names for the portable multiply/square
 *   FF_MUL_FAST(r,a,b), FF_SQR_FAST(r,a)  the fast multiplication, used when
 *                cuzk_ff_adx_on (define as the portable ones when absent)
 */
#include <string.h>

static inline void FF_MUL_PORTABLE(FF_T *r, const FF_T *a, const FF_T *b)
{
    mont_mul(r->l, a->l, b->l, FF_MOD, FF_N0, FF_N);
}

static inline void FF_SQR_PORTABLE(FF_T *r, const FF_T *a)
{
    mont_mul(r->l, a->l, a->l, FF_MOD, FF_N0, FF_N);
}

void FF_FN(add)(FF_T *r, const FF_T *a, const FF_T *b) { mont_add(r->l, a->l, b->l, FF_MOD, FF_N); }
void FF_FN(sub)(FF_T *r, const FF_T *a, const FF_T *b) { mont_sub(r->l, a->l, b->l, FF_MOD, FF_N); }
void FF_FN(dbl)(FF_T *r, const FF_T *a) { mont_add(r->l, a->l, a->l, FF_MOD, FF_N); }
void FF_FN(neg)(FF_T *r, const FF_T *a) { mont_neg(r->l, a->l, FF_MOD, FF_N); }

/* The dispatchers must stay thin: with the portable body inlined here, every
 * call pays its register saves even when the fast path is taken. */
static __attribute__((noinline)) void FF_FN(mul_portable_)(FF_T *r, const FF_T *a, const FF_T *b)
{
    FF_MUL_PORTABLE(r, a, b);
}

static __attribute__((noinline)) void FF_FN(sqr_portable_)(FF_T *r, const FF_T *a)
{
    FF_SQR_PORTABLE(r, a);
}

void FF_FN(mul)(FF_T *r, const FF_T *a, const FF_T *b)
{
    if (__builtin_expect(cuzk_ff_adx_on, 1))
        FF_MUL_FAST(r, a, b);
    else
        FF_FN(mul_portable_)(r, a, b);
}

void FF_FN(sqr)(FF_T *r, const FF_T *a)
{
    if (__builtin_expect(cuzk_ff_adx_on, 1))
        FF_SQR_FAST(r, a);
    else
        FF_FN(sqr_portable_)(r, a);
}

bool FF_FN(is_zero)(const FF_T *a) { return mont_is_zero(a->l, FF_N); }
bool FF_FN(is_one)(const FF_T *a) { return mont_eq(a->l, FF_ONE.l, FF_N); }
bool FF_FN(eq)(const FF_T *a, const FF_T *b) { return mont_eq(a->l, b->l, FF_N); }

/* Bit i of the little-endian integer e. */
static inline unsigned FF_FN(ebit)(const uint64_t *e, size_t i) { return (unsigned)(e[i / 64] >> (i % 64)) & 1; }

/* Sliding-window exponentiation (width 1..5 by exponent length); variable time in e. */
void FF_FN(pow)(FF_T *r, const FF_T *a, const uint64_t *e, size_t e_limbs)
{
    size_t top = 64 * e_limbs; /* number of bits up to the highest set one */
    while (top > 0 && !FF_FN(ebit)(e, top - 1)) top--;
    if (top == 0) {
        *r = FF_ONE;
        return;
    }
    const size_t width = top <= 8 ? 1 : top <= 24 ? 2 : top <= 80 ? 3 : top <= 240 ? 4 : 5;
    FF_T odd[16], a2; /* odd[k] = a^(2k+1) */
    odd[0] = *a;
    if (width > 1) {
        FF_FN(sqr)(&a2, a);
        for (size_t k = 1; k < ((size_t)1 << (width - 1)); k++) FF_FN(mul)(&odd[k], &odd[k - 1], &a2);
    }
    FF_T acc = FF_ONE;
    bool first = true;
    size_t i = top;
    while (i > 0) {
        if (!FF_FN(ebit)(e, i - 1)) {
            FF_FN(sqr)(&acc, &acc);
            i--;
            continue;
        }
        /* window [lo, i): at most width bits, ending in a set bit */
        size_t lo = i >= width ? i - width : 0;
        while (!FF_FN(ebit)(e, lo)) lo++;
        unsigned w = 0;
        for (size_t j = i; j-- > lo;) w = (w << 1) | FF_FN(ebit)(e, j);
        if (first) {
            acc = odd[w >> 1];
            first = false;
        } else {
            for (size_t j = lo; j < i; j++) FF_FN(sqr)(&acc, &acc);
            FF_FN(mul)(&acc, &acc, &odd[w >> 1]);
        }
        i = lo;
    }
    *r = acc;
}

/* ---- plain-integer helpers for the binary Jacobi symbol ---- */

/* a > b as N-limb integers. */
static inline bool FF_FN(gt)(const uint64_t *a, const uint64_t *b)
{
    for (size_t i = FF_N; i-- > 0;)
        if (a[i] != b[i]) return a[i] > b[i];
    return false;
}

/* a >>= k for any k < 64·N. */
static inline void FF_FN(shr)(uint64_t *a, unsigned k)
{
    if (k == 0) return;
    if (k < 64) { /* the common case in the GCD loops */
        for (size_t i = 0; i + 1 < FF_N; i++) a[i] = (a[i] >> k) | (a[i + 1] << (64 - k));
        a[FF_N - 1] >>= k;
        return;
    }
    unsigned w = k / 64, b = k % 64;
    for (size_t i = 0; i < FF_N; i++) {
        uint64_t lo = i + w < FF_N ? a[i + w] : 0;
        uint64_t hi = i + w + 1 < FF_N ? a[i + w + 1] : 0;
        a[i] = b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}

/* Trailing zeros of a nonzero N-limb integer. */
static inline unsigned FF_FN(ctz)(const uint64_t *a)
{
    size_t i = 0;
    while (a[i] == 0) i++;
    return (unsigned)(64 * i + (unsigned)__builtin_ctzll(a[i]));
}

/* ---- Bernstein-Yang inversion on signed 62-bit limbs ---- */

/* Limbs of 62 bits in int64 (the top one signed): |values| <= m fit. */
#define FF_L62 ((FF_BITS + 62) / 62)
#define FF_M62 ((1ULL << 62) - 1)

static inline void FF_FN(to62)(int64_t out[FF_L62], const uint64_t in[FF_N])
{
    for (size_t i = 0; i < FF_L62; i++) {
        size_t bit = 62 * i, w = bit / 64, off = bit % 64;
        uint64_t v = w < FF_N ? in[w] >> off : 0;
        if (off > 2 && w + 1 < FF_N) v |= in[w + 1] << (64 - off);
        out[i] = (int64_t)(v & FF_M62);
    }
}

/* Inverse of to62 for a value in [0, 2^(64N)) with normalised limbs. */
static inline void FF_FN(from62)(uint64_t out[FF_N], const int64_t in[FF_L62])
{
    memset(out, 0, 8 * FF_N);
    for (size_t i = 0; i < FF_L62; i++) {
        uint64_t v = (uint64_t)in[i];
        size_t bit = 62 * i, w = bit / 64, off = bit % 64;
        if (w < FF_N) out[w] |= v << off;
        if (off > 2 && w + 1 < FF_N) out[w + 1] |= v >> (64 - off);
    }
}

/* x += c·m (c = ±1), carrying into normalised limbs. */
static inline void FF_FN(add62_m)(int64_t x[FF_L62], const int64_t m[FF_L62], int64_t c)
{
    int64_t carry = 0;
    for (size_t i = 0; i + 1 < FF_L62; i++) {
        carry += x[i] + c * m[i];
        x[i] = (int64_t)((uint64_t)carry & FF_M62);
        carry >>= 62; /* arithmetic shift (GCC/Clang) */
    }
    x[FF_L62 - 1] += carry + c * m[FF_L62 - 1];
}

/*
 * Modular inverse by Bernstein-Yang divsteps, variable time:
 * (delta, f, g) -> (1-delta, g, (g-f)/2) if delta > 0 and g odd,
 *                  (1+delta, f, (g+f)/2) if g odd, else (1+delta, f, g/2).
 * 62 divsteps depend only on the low 62 bits of f and g, so each batch runs
 * on one word and yields a matrix [u v; q r] (|u|+|v|, |q|+|r| <= 2^62) with
 * 2^62·(f', g') = (u f + v g, q f + r g); it is then applied to the full f, g
 * and to the cofactors d, e (f = d·A, g = e·A mod m), dividing by 2^62 mod m
 * by adding the multiple of m that clears the low 62 bits. Starting from
 * f = m, g = A the loop ends at g = 0, f = ±1, so A^-1 = ±d.
 * A is the raw Montgomery limbs a·R: a^-1·R = A^-1·R^2 = mont(A^-1, R^3).
 */
void FF_FN(inv)(FF_T *r, const FF_T *a)
{
    if (FF_FN(is_zero)(a)) {
        *r = *a;
        return;
    }
    int64_t f[FF_L62], g[FF_L62], d[FF_L62] = {0}, e[FF_L62] = {1}, m62[FF_L62];
    FF_FN(to62)(m62, FF_MOD);
    FF_FN(to62)(g, a->l);
    memcpy(f, m62, sizeof f);
    int64_t delta = 1;
    for (;;) {
        bool g_zero = true;
        for (size_t i = 0; i < FF_L62; i++) g_zero &= g[i] == 0;
        if (g_zero) break;

        uint64_t fw = (uint64_t)f[0], gw = (uint64_t)g[0];
        int64_t u = 1, v = 0, q = 0, rr = 1;
        unsigned i = 0;
        while (i < 62) {
            if (!(gw & 1)) { /* a run of g/2 steps at once */
                unsigned z = gw ? (unsigned)__builtin_ctzll(gw) : 64;
                if (z > 62 - i) z = 62 - i;
                gw >>= z;
                u = (int64_t)((uint64_t)u << z);
                v = (int64_t)((uint64_t)v << z);
                delta += z;
                i += z;
                continue;
            }
            if (delta > 0) {
                uint64_t t = fw;
                fw = gw;
                gw = (gw - t) >> 1;
                int64_t tu = u, tv = v;
                u = 2 * q;
                v = 2 * rr;
                q -= tu;
                rr -= tv;
                delta = 1 - delta;
            } else {
                gw = (gw + fw) >> 1;
                q += u;
                rr += v;
                u *= 2;
                v *= 2;
                delta = 1 + delta;
            }
            i++;
        }

        /* (f, g) <- matrix·(f, g) / 2^62, exact */
        __int128 cf = (__int128)u * f[0] + (__int128)v * g[0];
        __int128 cg = (__int128)q * f[0] + (__int128)rr * g[0];
        cf >>= 62;
        cg >>= 62;
        for (size_t k = 1; k < FF_L62; k++) {
            cf += (__int128)u * f[k] + (__int128)v * g[k];
            cg += (__int128)q * f[k] + (__int128)rr * g[k];
            f[k - 1] = (int64_t)((uint64_t)cf & FF_M62);
            g[k - 1] = (int64_t)((uint64_t)cg & FF_M62);
            cf >>= 62;
            cg >>= 62;
        }
        f[FF_L62 - 1] = (int64_t)cf;
        g[FF_L62 - 1] = (int64_t)cg;

        /* (d, e) <- matrix·(d, e) / 2^62 mod m; d, e in [0, m) -> (-m, 2m) */
        __int128 cd = (__int128)u * d[0] + (__int128)v * e[0];
        __int128 ce = (__int128)q * d[0] + (__int128)rr * e[0];
        uint64_t kd = ((uint64_t)cd * FF_N0) & FF_M62; /* -m^-1 mod 2^62 */
        uint64_t ke = ((uint64_t)ce * FF_N0) & FF_M62;
        cd += (__int128)kd * m62[0];
        ce += (__int128)ke * m62[0];
        cd >>= 62;
        ce >>= 62;
        for (size_t k = 1; k < FF_L62; k++) {
            cd += (__int128)u * d[k] + (__int128)v * e[k] + (__int128)kd * m62[k];
            ce += (__int128)q * d[k] + (__int128)rr * e[k] + (__int128)ke * m62[k];
            d[k - 1] = (int64_t)((uint64_t)cd & FF_M62);
            e[k - 1] = (int64_t)((uint64_t)ce & FF_M62);
            cd >>= 62;
            ce >>= 62;
        }
        d[FF_L62 - 1] = (int64_t)cd;
        e[FF_L62 - 1] = (int64_t)ce;
        int64_t *de[2] = {d, e};
        for (int j = 0; j < 2; j++) { /* back into [0, m) */
            int64_t *x = de[j];
            if (x[FF_L62 - 1] < 0) {
                FF_FN(add62_m)(x, m62, 1);
            } else {
                int64_t t[FF_L62];
                memcpy(t, x, sizeof t);
                FF_FN(add62_m)(t, m62, -1);
                if (t[FF_L62 - 1] >= 0) memcpy(x, t, sizeof t);
            }
        }
    }
    /* f = ±1 */
    if (f[FF_L62 - 1] < 0) { /* d <- m - d */
        for (size_t i = 0; i < FF_L62; i++) d[i] = -d[i];
        FF_FN(add62_m)(d, m62, 1);
    }
    FF_T x, r3;
    FF_FN(from62)(x.l, d);
    mont_reduce_once(x.l, FF_MOD, FF_N); /* d = 0 cannot occur; keep canonical */
    FF_MUL_PORTABLE(&r3, &FF_R2, &FF_R2); /* R^3 mod m */
    FF_FN(mul)(r, &x, &r3);
}

void FF_FN(batch_inv)(FF_T *out, const FF_T *in, size_t n)
{
    FF_T acc = FF_ONE;
    for (size_t i = 0; i < n; i++) {
        out[i] = acc; /* product of the nonzero in[0..i-1] */
        if (!FF_FN(is_zero)(&in[i])) FF_FN(mul)(&acc, &acc, &in[i]);
    }
    FF_FN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FF_FN(is_zero)(&in[i])) {
            out[i] = in[i];
            continue;
        }
        FF_T t;
        FF_FN(mul)(&t, &acc, &out[i]);
        FF_FN(mul)(&acc, &acc, &in[i]);
        out[i] = t;
    }
}

/*
 * Legendre symbol as the Jacobi symbol (A/m) of the raw Montgomery limbs
 * A = a·R: R = 2^(64N) is a square, so (A/m) = (a/m). Binary algorithm:
 * strip factors 2 ((2/n) = -1 iff n = 3, 5 mod 8), swap with quadratic
 * reciprocity when A < n, subtract. Variable time.
 */
int FF_FN(legendre)(const FF_T *a)
{
    if (FF_FN(is_zero)(a)) return 0;
    uint64_t x[FF_N], n[FF_N];
    memcpy(x, a->l, sizeof x);
    memcpy(n, FF_MOD, sizeof n);
    int t = 1;
    while (!mont_is_zero(x, FF_N)) {
        unsigned z = FF_FN(ctz)(x);
        FF_FN(shr)(x, z);
        uint64_t n8 = n[0] & 7;
        if ((z & 1) && (n8 == 3 || n8 == 5)) t = -t;
        if (FF_FN(gt)(n, x)) {
            uint64_t tmp[FF_N];
            memcpy(tmp, x, sizeof x);
            memcpy(x, n, sizeof x);
            memcpy(n, tmp, sizeof n);
            if ((x[0] & 3) == 3 && (n[0] & 3) == 3) t = -t;
        }
        mont_sub_n(x, x, n, FF_N);
    }
    uint64_t one[FF_N] = {1};
    return mont_eq(n, one, FF_N) ? t : 0;
}

void FF_FN(set_u64)(FF_T *r, uint64_t v)
{
    FF_T t = {{v}};
    FF_MUL_PORTABLE(r, &t, &FF_R2);
}

int FF_FN(from_limbs)(FF_T *r, const uint64_t a[FF_N])
{
    if (!mont_lt(a, FF_MOD, FF_N)) return CUZK_ERR_NONCANONICAL;
    FF_T t;
    memcpy(t.l, a, sizeof t.l);
    FF_MUL_PORTABLE(r, &t, &FF_R2);
    return CUZK_OK;
}

void FF_FN(to_limbs)(uint64_t out[FF_N], const FF_T *a)
{
    FF_T one = {{1}}, t;
    FF_MUL_PORTABLE(&t, a, &one);
    memcpy(out, t.l, sizeof t.l);
}

void FF_FN(random)(FF_T *r, cuzk_rng *rng)
{
    const unsigned top_bits = FF_BITS - 64 * (FF_N - 1);
    uint64_t v[FF_N];
    do { /* rejection sampling: uniform below the modulus */
        cuzk_rng_bytes(rng, v, sizeof v);
        v[FF_N - 1] &= (top_bits == 64) ? ~0ULL : ((1ULL << top_bits) - 1);
    } while (!mont_lt(v, FF_MOD, FF_N));
    FF_T t;
    memcpy(t.l, v, sizeof v);
    FF_MUL_PORTABLE(r, &t, &FF_R2);
}

/* Big-endian bytes <-> limbs (len = 8·FF_N). */
static void FF_FN(limbs_from_be)(uint64_t out[FF_N], const uint8_t *in)
{
    for (size_t i = 0; i < FF_N; i++) {
        uint64_t w = 0;
        for (size_t j = 0; j < 8; j++) w = (w << 8) | in[8 * (FF_N - 1 - i) + j];
        out[i] = w;
    }
}

static void FF_FN(limbs_to_be)(uint8_t *out, const uint64_t in[FF_N])
{
    for (size_t i = 0; i < FF_N; i++)
        for (size_t j = 0; j < 8; j++) out[8 * (FF_N - 1 - i) + j] = (uint8_t)(in[i] >> (56 - 8 * j));
}
