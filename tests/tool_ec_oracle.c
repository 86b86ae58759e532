/*
 * Driver for the @noble/curves cross-check (tests/ec_noble.test.sh):
 *   tool_ec_oracle gen FILE    write random G1/G2 cases computed by cuzk
 *                              (scalar mults, additions, valid and invalid
 *                              encodings) for tests/oracle/ec_oracle.mjs to check
 *   tool_ec_oracle check FILE  check the cases node wrote with noble
 * Line formats (hex, G = 1 or 2):
 *   mul G K COMP UNCOMP        K·generator, K 32 bytes big-endian
 *   add G A B SUMCOMP SUMUNCOMP  A, B any encodings
 *   good G ENC                 a valid encoding (must decode, re-encode identically)
 *   bad G CLASS ENC [NOBLE]    an invalid encoding; CLASS in offcurve, subgroup,
 *                              nosqrt, flags, noncanon, flags_lenient (the last two
 *                              are classes noble accepts by design: it reduces
 *                              coordinates mod p and ignores some flag bits)
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "testutil.h"

static cuzk_rng rng;
static FILE *out;

static void put_hex(const uint8_t *b, size_t n)
{
    char h[2 * 192 + 1];
    tu_hex(h, b, n);
    fputc(' ', out);
    fputs(h, out);
}

/* ---- one generic section per group, stamped out by a macro ------------- */

#define DEFINE_GROUP(NUM, G, AFF, JAC, FE, FE_RANDOM, FE_SQR, FE_MUL, FE_ADD, FE_SQRT, CB, UB)     \
    static FE b_##NUM;                                                                             \
    static void rand_sub_##NUM(AFF *r, uint64_t k[4])                                              \
    {                                                                                              \
        cuzk_fr f;                                                                                 \
        cuzk_fr_random(&f, &rng);                                                                  \
        if (k) cuzk_fr_to_limbs(k, &f);                                                            \
        JAC g;                                                                                     \
        G(jac_from_affine)(&g, &G(generator));                                                     \
        G(jac_mul_fr)(&g, &g, &f);                                                                 \
        G(jac_to_affine)(r, &g);                                                                   \
    }                                                                                              \
    /* random x; returns whether x^3 + b has a root (then *r is a curve point) */                 \
    static bool rand_x_##NUM(AFF *r)                                                               \
    {                                                                                              \
        FE rhs;                                                                                    \
        FE_RANDOM(&r->x, &rng);                                                                    \
        FE_SQR(&rhs, &r->x);                                                                       \
        FE_MUL(&rhs, &rhs, &r->x);                                                                 \
        FE_ADD(&rhs, &rhs, &b_##NUM);                                                              \
        r->y = r->x;                                                                               \
        return FE_SQRT(&r->y, &rhs);                                                               \
    }                                                                                              \
    static int decode_##NUM(AFF *r, const uint8_t *b, size_t n, bool checked)                      \
    {                                                                                              \
        if (n == CB) return checked ? G(uncompress)(r, b) : G(uncompress_unchecked)(r, b);         \
        if (n == UB) return checked ? G(deserialize)(r, b) : G(deserialize_unchecked)(r, b);      \
        return CUZK_ERR_BAD_LENGTH;                                                                \
    }                                                                                              \
    static void encode_##NUM(uint8_t *b, size_t n, const AFF *p)                                   \
    {                                                                                              \
        if (n == CB)                                                                               \
            G(compress)(b, p);                                                                     \
        else                                                                                       \
            G(serialize)(b, p);                                                                    \
    }                                                                                              \
    static void gen_##NUM(int nmul, int nadd, int nbad)                                            \
    {                                                                                              \
        uint8_t c[CB], u[UB], t[UB];                                                               \
        AFF p, q;                                                                                  \
        for (int i = 0; i < nmul; i++) {                                                           \
            uint64_t k[4];                                                                         \
            uint8_t kb[32];                                                                        \
            rand_sub_##NUM(&p, k);                                                                 \
            if (i == 0) { /* k = 1 */                                                              \
                memset(k, 0, sizeof k);                                                            \
                k[0] = 1;                                                                          \
                p = G(generator);                                                                  \
            }                                                                                      \
            for (int j = 0; j < 32; j++) kb[31 - j] = (uint8_t)(k[j / 8] >> (8 * (j % 8)));       \
            G(compress)(c, &p);                                                                    \
            G(serialize)(u, &p);                                                                   \
            fprintf(out, "mul %d", NUM);                                                           \
            put_hex(kb, 32);                                                                       \
            put_hex(c, CB);                                                                        \
            put_hex(u, UB);                                                                        \
            fputc('\n', out);                                                                      \
        }                                                                                          \
        for (int i = 0; i < nadd; i++) {                                                           \
            rand_sub_##NUM(&p, NULL);                                                              \
            rand_sub_##NUM(&q, NULL);                                                              \
            if (i % 5 == 1) q = p;                                                                 \
            if (i % 5 == 2) G(affine_neg)(&q, &p);                                                 \
            if (i % 5 == 3) memset(&q, 0, sizeof q);                                               \
            JAC s;                                                                                 \
            AFF sa;                                                                                \
            G(jac_from_affine)(&s, &p);                                                            \
            G(jac_add_affine)(&s, &s, &q);                                                         \
            G(jac_to_affine)(&sa, &s);                                                             \
            fprintf(out, "add %d", NUM);                                                           \
            G(serialize)(u, &p);                                                                   \
            put_hex(u, UB);                                                                        \
            G(compress)(c, &q);                                                                    \
            put_hex(c, CB);                                                                        \
            G(compress)(c, &sa);                                                                   \
            put_hex(c, CB);                                                                        \
            G(serialize)(u, &sa);                                                                  \
            put_hex(u, UB);                                                                        \
            fputc('\n', out);                                                                      \
        }                                                                                          \
        /* valid edge encodings: infinity in both forms, a negated point */                       \
        memset(&p, 0, sizeof p);                                                                   \
        G(compress)(c, &p);                                                                        \
        G(serialize)(u, &p);                                                                       \
        fprintf(out, "good %d", NUM), put_hex(c, CB), fputc('\n', out);                            \
        fprintf(out, "good %d", NUM), put_hex(u, UB), fputc('\n', out);                            \
        for (int i = 0; i < nbad; i++) {                                                           \
            size_t n = (i & 1) ? UB : CB;                                                          \
            /* off the curve (uncompressed only): y + 1 */                                         \
            rand_sub_##NUM(&p, NULL);                                                              \
            cuzk_fp_add((cuzk_fp *)&p.y, (cuzk_fp *)&p.y, &cuzk_fp_one);                           \
            G(serialize)(u, &p);                                                                   \
            fprintf(out, "bad %d offcurve", NUM), put_hex(u, UB), fputc('\n', out);                \
            /* on the curve, outside the subgroup */                                               \
            while (!rand_x_##NUM(&q)) {                                                            \
            }                                                                                      \
            if (i & 2) G(affine_neg)(&q, &q);                                                      \
            encode_##NUM(t, n, &q);                                                                \
            fprintf(out, "bad %d subgroup", NUM), put_hex(t, n), fputc('\n', out);                 \
            /* compressed x without a root */                                                      \
            while (rand_x_##NUM(&q)) {                                                             \
            }                                                                                      \
            G(compress)(c, &q);                                                                    \
            fprintf(out, "bad %d nosqrt", NUM), put_hex(c, CB), fputc('\n', out);                  \
            /* flags */                                                                            \
            rand_sub_##NUM(&p, NULL);                                                              \
            G(compress)(c, &p);                                                                    \
            G(serialize)(u, &p);                                                                   \
            c[0] &= 0x7f; /* compressed length without the compression bit */                     \
            fprintf(out, "bad %d flags", NUM), put_hex(c, CB), fputc('\n', out);                   \
            u[0] |= 0x80; /* uncompressed length with it */                                        \
            fprintf(out, "bad %d flags", NUM), put_hex(u, UB), fputc('\n', out);                   \
            u[0] &= 0x1f;                                                                          \
            u[0] |= 0x40; /* infinity bit on a real point */                                       \
            fprintf(out, "bad %d flags", NUM), put_hex(u, UB), fputc('\n', out);                   \
            c[0] |= 0xc0;                                                                          \
            fprintf(out, "bad %d flags", NUM), put_hex(c, CB), fputc('\n', out);                   \
            u[0] = (u[0] & 0x1f) | 0x20; /* sort bit on uncompressed */                           \
            fprintf(out, "bad %d %s", NUM, NUM == 1 ? "flags_lenient" : "flags"), put_hex(u, UB),  \
                fputc('\n', out);                                                                  \
            memset(c, 0, CB);                                                                      \
            c[0] = 0xe0; /* infinity with the sort bit */                                          \
            fprintf(out, "bad %d %s", NUM, NUM == 1 ? "flags_lenient" : "flags"), put_hex(c, CB),  \
                fputc('\n', out);                                                                  \
            /* non-canonical: a subgroup point's coordinate + p, when it fits in 381 bits */       \
            for (;;) {                                                                             \
                rand_sub_##NUM(&p, NULL);                                                          \
                encode_##NUM(t, n, &p);                                                            \
                uint8_t f = t[0] & 0xe0;                                                           \
                t[0] &= 0x1f;                                                                      \
                uint64_t v[6];                                                                     \
                for (int l = 0; l < 6; l++) {                                                      \
                    v[l] = 0;                                                                      \
                    for (int bb = 0; bb < 8; bb++) v[l] |= (uint64_t)t[47 - 8 * l - bb] << (8 * bb); \
                }                                                                                  \
                unsigned __int128 cy = 0;                                                          \
                for (int l = 0; l < 6; l++) {                                                      \
                    cy += (unsigned __int128)v[l] + cuzk_fp_modulus[l];                            \
                    v[l] = (uint64_t)cy;                                                           \
                    cy >>= 64;                                                                     \
                }                                                                                  \
                if (v[5] >> 61) continue; /* would collide with the flag bits */                  \
                for (int l = 0; l < 6; l++)                                                        \
                    for (int bb = 0; bb < 8; bb++) t[47 - 8 * l - bb] = (uint8_t)(v[l] >> (8 * bb)); \
                t[0] |= f;                                                                         \
                break;                                                                             \
            }                                                                                      \
            fprintf(out, "bad %d noncanon", NUM), put_hex(t, n), fputc('\n', out);                 \
        }                                                                                          \
    }                                                                                              \
    static unsigned long n_mul_##NUM, n_add_##NUM, n_good_##NUM, n_bad_##NUM;                      \
    static void check_line_##NUM(char **tok, int ntok)                                             \
    {                                                                                              \
        uint8_t b[4][UB];                                                                          \
        size_t len[4] = {0};                                                                       \
        int first = strcmp(tok[0], "bad") == 0 ? 3 : 2;                                            \
        for (int i = first; i < ntok && i - first < 4; i++) {                                      \
            len[i - first] = strlen(tok[i]) / 2;                                                   \
            if (len[i - first] > UB || tu_unhex(b[i - first], len[i - first], tok[i])) {           \
                len[i - first] = 0;                                                                \
                if (!(first == 3 && i == 4)) CHECK_MSG(0, "bad hex in %s line", tok[0]);           \
            }                                                                                      \
        }                                                                                          \
        AFF p, q;                                                                                  \
        JAC j;                                                                                     \
        uint8_t e[UB];                                                                             \
        if (!strcmp(tok[0], "mul") && ntok == 5) {                                                 \
            uint64_t k[4] = {0};                                                                   \
            for (int i = 0; i < 32; i++) k[i / 8] |= (uint64_t)b[0][31 - i] << (8 * (i % 8));     \
            G(jac_from_affine)(&j, &G(generator));                                                 \
            G(jac_mul)(&j, &j, k);                                                                 \
            G(jac_to_affine)(&p, &j);                                                              \
            G(compress)(e, &p);                                                                    \
            CHECK_MSG(len[1] == CB && !memcmp(e, b[1], CB), "G%d mul compressed %s", NUM, tok[3]); \
            G(serialize)(e, &p);                                                                   \
            CHECK_MSG(len[2] == UB && !memcmp(e, b[2], UB), "G%d mul uncompressed", NUM);          \
            CHECK(decode_##NUM(&q, b[1], len[1], true) == CUZK_OK && G(affine_eq)(&p, &q));       \
            CHECK(decode_##NUM(&q, b[2], len[2], true) == CUZK_OK && G(affine_eq)(&p, &q));       \
            n_mul_##NUM++;                                                                         \
        } else if (!strcmp(tok[0], "add") && ntok == 6) {                                          \
            int ea = decode_##NUM(&p, b[0], len[0], true);                                         \
            int eb = decode_##NUM(&q, b[1], len[1], true);                                         \
            CHECK_MSG(ea == CUZK_OK && eb == CUZK_OK, "G%d add operands: %d %d", NUM, ea, eb);     \
            G(jac_from_affine)(&j, &p);                                                            \
            G(jac_add_affine)(&j, &j, &q);                                                         \
            G(jac_to_affine)(&p, &j);                                                              \
            G(compress)(e, &p);                                                                    \
            CHECK_MSG(len[2] == CB && !memcmp(e, b[2], CB), "G%d add compressed", NUM);            \
            G(serialize)(e, &p);                                                                   \
            CHECK_MSG(len[3] == UB && !memcmp(e, b[3], UB), "G%d add uncompressed", NUM);          \
            n_add_##NUM++;                                                                         \
        } else if (!strcmp(tok[0], "good") && ntok == 3) {                                         \
            CHECK(decode_##NUM(&p, b[0], len[0], true) == CUZK_OK);                                \
            encode_##NUM(e, len[0], &p);                                                           \
            CHECK(!memcmp(e, b[0], len[0]));                                                       \
            n_good_##NUM++;                                                                        \
        } else if (!strcmp(tok[0], "bad") && ntok >= 4) {                                          \
            const char *cls = tok[2];                                                              \
            int ec = decode_##NUM(&p, b[0], len[0], true);                                         \
            int eu = decode_##NUM(&q, b[0], len[0], false);                                        \
            int want = !strcmp(cls, "offcurve")   ? CUZK_ERR_NOT_ON_CURVE                          \
                       : !strcmp(cls, "subgroup") ? CUZK_ERR_NOT_IN_SUBGROUP                       \
                       : !strcmp(cls, "nosqrt")   ? CUZK_ERR_NOT_A_SQUARE                          \
                       : !strcmp(cls, "noncanon") ? CUZK_ERR_NONCANONICAL                          \
                                                  : CUZK_ERR_BAD_FLAGS;                            \
            CHECK_MSG(ec == want, "G%d bad %s %s: got %d want %d", NUM, cls, tok[3], ec, want);   \
            CHECK_MSG(eu == (want == CUZK_ERR_NOT_IN_SUBGROUP ? CUZK_OK : want),                   \
                      "G%d bad %s unchecked: got %d", NUM, cls, eu);                               \
            n_bad_##NUM++;                                                                         \
        } else {                                                                                   \
            CHECK_MSG(0, "malformed line: %s (%d fields)", tok[0], ntok);                          \
        }                                                                                          \
    }

#define G1F(x) cuzk_g1_##x
#define G2F(x) cuzk_g2_##x
DEFINE_GROUP(1, G1F, cuzk_g1_affine, cuzk_g1_jac, cuzk_fp, cuzk_fp_random, cuzk_fp_sqr, cuzk_fp_mul,
             cuzk_fp_add, cuzk_fp_sqrt, 48, 96)
DEFINE_GROUP(2, G2F, cuzk_g2_affine, cuzk_g2_jac, cuzk_fp2, cuzk_fp2_random, cuzk_fp2_sqr,
             cuzk_fp2_mul, cuzk_fp2_add, cuzk_fp2_sqrt, 96, 192)

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "gen") && strcmp(argv[1], "check"))) {
        fprintf(stderr, "usage: %s gen|check FILE\n", argv[0]);
        return 2;
    }
    cuzk_fp_set_u64(&b_1, 4);
    cuzk_fp_set_u64(&b_2.c0, 4);
    cuzk_fp_set_u64(&b_2.c1, 4);
    if (!strcmp(argv[1], "gen")) {
        tu_init(&rng, "tool_ec_oracle");
        out = fopen(argv[2], "w");
        if (!out) return perror(argv[2]), 1;
        gen_1(80, 40, 12);
        gen_2(40, 20, 8);
        if (fclose(out)) return perror(argv[2]), 1;
        return 0;
    }
    FILE *in = fopen(argv[2], "r");
    if (!in) return perror(argv[2]), 1;
    static char line[4096];
    while (fgets(line, sizeof line, in)) {
        char *tok[8];
        int n = 0;
        for (char *s = strtok(line, " \n"); s && n < 8; s = strtok(NULL, " \n")) tok[n++] = s;
        if (n == 0) continue;
        if (n >= 2 && !strcmp(tok[1], "1"))
            check_line_1(tok, n);
        else if (n >= 2 && !strcmp(tok[1], "2"))
            check_line_2(tok, n);
        else
            CHECK_MSG(0, "malformed line %s", tok[0]);
    }
    fclose(in);
    fprintf(stderr, "tool_ec_oracle: checked noble's cases: G1 %lu mul %lu add %lu good %lu bad, "
                    "G2 %lu mul %lu add %lu good %lu bad\n",
            n_mul_1, n_add_1, n_good_1, n_bad_1, n_mul_2, n_add_2, n_good_2, n_bad_2);
    CHECK(n_mul_1 > 0 && n_add_1 > 0 && n_bad_1 > 0 && n_mul_2 > 0 && n_add_2 > 0 && n_bad_2 > 0);
    return tu_finish("tool_ec_oracle check");
}
