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
 *   FF_MUL_FAST(r,a,b), FF_SQR_FAST(r,a)  the fast back end, used when
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

void FF_FN(mul)(FF_T *r, const FF_T *a, const FF_T *b)
{
    if (cuzk_ff_adx_on)
        FF_MUL_FAST(r, a, b);
    else
        FF_MUL_PORTABLE(r, a, b);
}

void FF_FN(sqr)(FF_T *r, const FF_T *a)
{
    if (cuzk_ff_adx_on)
        FF_SQR_FAST(r, a);
    else
        FF_SQR_PORTABLE(r, a);
}

bool FF_FN(is_zero)(const FF_T *a) { return mont_is_zero(a->l, FF_N); }
bool FF_FN(is_one)(const FF_T *a) { return mont_eq(a->l, FF_ONE.l, FF_N); }
bool FF_FN(eq)(const FF_T *a, const FF_T *b) { return mont_eq(a->l, b->l, FF_N); }

/* Bit i of the little-endian integer e. */
static inline unsigned FF_FN(ebit)(const uint64_t *e, size_t i) { return (unsigned)(e[i / 64] >> (i % 64)) & 1; }

/* Sliding-window (width 5) exponentiation; variable time in e. */
void FF_FN(pow)(FF_T *r, const FF_T *a, const uint64_t *e, size_t e_limbs)
{
    size_t top = 64 * e_limbs; /* number of bits up to the highest set one */
    while (top > 0 && !FF_FN(ebit)(e, top - 1)) top--;
    if (top == 0) {
        *r = FF_ONE;
        return;
    }
    FF_T odd[16], a2; /* odd[k] = a^(2k+1) */
    odd[0] = *a;
    FF_FN(sqr)(&a2, a);
    for (int k = 1; k < 16; k++) FF_FN(mul)(&odd[k], &odd[k - 1], &a2);
    FF_T acc = FF_ONE;
    bool first = true;
    size_t i = top;
    while (i > 0) {
        if (!FF_FN(ebit)(e, i - 1)) {
            FF_FN(sqr)(&acc, &acc);
            i--;
            continue;
        }
        /* window [lo, i): at most 5 bits, ending in a set bit */
        size_t lo = i >= 5 ? i - 5 : 0;
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

/* ---- plain-integer helpers for the binary GCD and Jacobi symbol ---- */

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

/* a <<= k for any k < 64·N (the caller knows the result fits). */
static inline void FF_FN(shl)(uint64_t *a, unsigned k)
{
    if (k == 0) return;
    if (k < 64) {
        for (size_t i = FF_N - 1; i > 0; i--) a[i] = (a[i] << k) | (a[i - 1] >> (64 - k));
        a[0] <<= k;
        return;
    }
    unsigned w = k / 64, b = k % 64;
    for (size_t i = FF_N; i-- > 0;) {
        uint64_t hi = i >= w ? a[i - w] : 0;
        uint64_t lo = i >= w + 1 ? a[i - w - 1] : 0;
        a[i] = b ? (hi << b) | (lo >> (64 - b)) : hi;
    }
}

/* Trailing zeros of a nonzero N-limb integer. */
static inline unsigned FF_FN(ctz)(const uint64_t *a)
{
    size_t i = 0;
    while (a[i] == 0) i++;
    return (unsigned)(64 * i + (unsigned)__builtin_ctzll(a[i]));
}

/* x = x·2^(-k) mod m for x < m (Montgomery reduction by up to 64 bits a step). */
static inline void FF_FN(div_2k)(uint64_t *x, unsigned k)
{
    while (k > 0) {
        unsigned j = k < 64 ? k : 64;
        uint64_t q = x[0] * FF_N0;
        if (j < 64) q &= (1ULL << j) - 1; /* x + q·m = 0 mod 2^j */
        uint64_t t[FF_N + 1], c = 0;
        for (size_t i = 0; i < FF_N; i++) {
            u128 p = (u128)q * FF_MOD[i] + x[i] + c;
            t[i] = (uint64_t)p;
            c = (uint64_t)(p >> 64);
        }
        t[FF_N] = c;
        for (size_t i = 0; i < FF_N; i++) x[i] = j < 64 ? (t[i] >> j) | (t[i + 1] << (64 - j)) : t[i + 1];
        mont_reduce_once(x, FF_MOD, FF_N); /* (x + q·m)/2^j < 2m */
        k -= j;
    }
}

/*
 * Inversion by the binary extended GCD (Kaliski's almost Montgomery inverse,
 * shifting whole runs of zero bits at once). Variable time. On the raw
 * Montgomery limbs A = a·R it yields x = A^-1·2^k (n·64 <= k <= 2·n·64 bits);
 * the wanted a^-1·R = x·R^2·2^-k is x·R^3 (one Montgomery product) over 2^k.
 * Invariant: u·s + v·r = m, so s <= m and r <= 2m fit in N limbs.
 */
void FF_FN(inv)(FF_T *r, const FF_T *a)
{
    if (FF_FN(is_zero)(a)) {
        *r = *a;
        return;
    }
    uint64_t u[FF_N], v[FF_N], x[FF_N] = {0}, s[FF_N] = {1};
    memcpy(u, FF_MOD, sizeof u);
    memcpy(v, a->l, sizeof v);
    unsigned k = FF_FN(ctz)(v);
    FF_FN(shr)(v, k);
    for (;;) { /* u, v odd here */
        if (FF_FN(gt)(u, v)) {
            mont_sub_n(u, u, v, FF_N);
            mont_add_n(x, x, s, FF_N);
            unsigned z = FF_FN(ctz)(u);
            FF_FN(shr)(u, z);
            FF_FN(shl)(s, z);
            k += z;
        } else if (FF_FN(gt)(v, u)) {
            mont_sub_n(v, v, u, FF_N);
            mont_add_n(s, s, x, FF_N);
            unsigned z = FF_FN(ctz)(v);
            FF_FN(shr)(v, z);
            FF_FN(shl)(x, z);
            k += z;
        } else { /* u = v = gcd = 1: last step, v becomes 0 */
            FF_FN(shl)(x, 1);
            k++;
            break;
        }
    }
    mont_reduce_once(x, FF_MOD, FF_N); /* x <= 2m -> x <= m; x != 0, m */
    mont_sub_n(x, FF_MOD, x, FF_N);    /* m - x = A^-1·2^k */
    FF_T t, r3;
    memcpy(t.l, x, sizeof x);
    FF_MUL_PORTABLE(&r3, &FF_R2, &FF_R2); /* R^3 mod m */
    FF_FN(mul)(&t, &t, &r3);
    FF_FN(div_2k)(t.l, k);
    *r = t;
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
