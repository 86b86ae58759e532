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

void FF_FN(pow)(FF_T *r, const FF_T *a, const uint64_t *e, size_t e_limbs)
{
    FF_T acc = FF_ONE, base = *a;
    for (size_t i = e_limbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            FF_FN(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1) FF_FN(mul)(&acc, &acc, &base);
        }
    *r = acc;
}

/* modulus - k for a small k, as an exponent. */
static void FF_FN(mod_minus_small)(uint64_t out[FF_N], uint64_t k)
{
    uint64_t kk[FF_N] = {k};
    mont_sub_n(out, FF_MOD, kk, FF_N);
}

void FF_FN(inv)(FF_T *r, const FF_T *a)
{
    uint64_t e[FF_N];
    FF_FN(mod_minus_small)(e, 2);
    FF_FN(pow)(r, a, e, FF_N); /* Fermat: a^(m-2); maps 0 to 0 */
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

int FF_FN(legendre)(const FF_T *a)
{
    if (FF_FN(is_zero)(a)) return 0;
    uint64_t e[FF_N];
    FF_FN(mod_minus_small)(e, 1);
    for (size_t i = 0; i < FF_N; i++) /* (m-1)/2 */
        e[i] = (e[i] >> 1) | (i + 1 < FF_N ? e[i + 1] << 63 : 0);
    FF_T t;
    FF_FN(pow)(&t, a, e, FF_N);
    return FF_FN(is_one)(&t) ? 1 : -1;
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
