/*
 * Driver for the @noble/curves pairing cross-check (tests/pairing_noble.test.sh):
 *   tool_pairing_oracle gen FILE    write random pairings computed by cuzk
 *                                   for tests/oracle/pairing_oracle.mjs to check
 *   tool_pairing_oracle check FILE  recompute the pairings node wrote with noble
 * Line formats (hex; scalars 32 bytes big-endian, GT as cuzk_fp12_to_bytes =
 * noble's Fp12.toBytes):
 *   pair A B G1 G2 GT      GT = e(A·g1, B·g2); G1, G2 cuzk's compressed A·g1, B·g2
 *                          (gen only; check files carry "pair A B GT")
 *   multi A1 B1 A2 B2 GT   GT = e(A1·g1, B1·g2)·e(A2·g1, B2·g2) by one multi-pairing
 *   tampered A B GT        GT is deliberately NOT e(A·g1, B·g2); the reader must
 *                          find a mismatch
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ec/pairing.h"
#include "testutil.h"

static void put_hex(FILE *out, const uint8_t *b, size_t n)
{
    char h[2 * CUZK_FP12_BYTES + 1];
    tu_hex(h, b, n);
    fputc(' ', out);
    fputs(h, out);
}

static void put_fr(FILE *out, const cuzk_fr *k)
{
    uint8_t b[32];
    cuzk_fr_to_be32(b, k);
    put_hex(out, b, 32);
}

static void put_gt(FILE *out, const cuzk_gt *e)
{
    uint8_t b[CUZK_FP12_BYTES];
    cuzk_fp12_to_bytes(b, e);
    put_hex(out, b, sizeof b);
}

static void rand_nonzero(cuzk_fr *k, cuzk_rng *rng)
{
    do cuzk_fr_random(k, rng);
    while (cuzk_fr_is_zero(k));
}

static void pair_of(cuzk_gt *e, const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_g1_affine P;
    cuzk_g2_affine Q;
    tu_g1_mul_gen(&P, a);
    tu_g2_mul_gen(&Q, b);
    cuzk_pairing(e, &P, &Q);
}

static int gen(const char *path)
{
    cuzk_rng rng;
    tu_init(&rng, "tool_pairing_oracle");
    FILE *out = fopen(path, "w");
    if (!out) return 1;
    for (int i = 0; i < 10; i++) {
        cuzk_fr a, b;
        rand_nonzero(&a, &rng);
        rand_nonzero(&b, &rng);
        cuzk_g1_affine P;
        cuzk_g2_affine Q;
        tu_g1_mul_gen(&P, &a);
        tu_g2_mul_gen(&Q, &b);
        cuzk_gt e;
        cuzk_pairing(&e, &P, &Q);
        uint8_t c1[48], c2[96];
        cuzk_g1_compress(c1, &P);
        cuzk_g2_compress(c2, &Q);
        fputs("pair", out);
        put_fr(out, &a);
        put_fr(out, &b);
        put_hex(out, c1, 48);
        put_hex(out, c2, 96);
        put_gt(out, &e);
        fputc('\n', out);
    }
    for (int i = 0; i < 2; i++) {
        cuzk_fr k[4];
        cuzk_g1_affine P[2];
        cuzk_g2_affine Q[2];
        for (int j = 0; j < 4; j++) rand_nonzero(&k[j], &rng);
        tu_g1_mul_gen(&P[0], &k[0]);
        tu_g2_mul_gen(&Q[0], &k[1]);
        tu_g1_mul_gen(&P[1], &k[2]);
        tu_g2_mul_gen(&Q[1], &k[3]);
        cuzk_gt e;
        cuzk_pairing_multi(&e, P, Q, 2);
        fputs("multi", out);
        for (int j = 0; j < 4; j++) put_fr(out, &k[j]);
        put_gt(out, &e);
        fputc('\n', out);
    }
    /* tampered: e((a+1)·g1, b·g2) labelled as (a, b) */
    cuzk_fr a, b, a1;
    rand_nonzero(&a, &rng);
    rand_nonzero(&b, &rng);
    cuzk_fr_add(&a1, &a, &cuzk_fr_one);
    cuzk_gt e;
    pair_of(&e, &a1, &b);
    fputs("tampered", out);
    put_fr(out, &a);
    put_fr(out, &b);
    put_gt(out, &e);
    fputc('\n', out);
    return fclose(out) != 0;
}

static int read_fr(cuzk_fr *k, const char *hex)
{
    uint8_t b[32];
    if (!hex || strlen(hex) != 64 || tu_unhex(b, 32, hex)) return -1;
    return cuzk_fr_from_be32(k, b);
}

static int check(const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) return 1;
    static char line[4096];
    int pairs = 0, tampered = 0, multi = 0;
    while (fgets(line, sizeof line, in)) {
        char *tok[8];
        int n = 0;
        for (char *t = strtok(line, " \n"); t && n < 8; t = strtok(NULL, " \n")) tok[n++] = t;
        if (n == 0) continue;
        bool is_pair = !strcmp(tok[0], "pair"), is_tam = !strcmp(tok[0], "tampered");
        bool is_multi = !strcmp(tok[0], "multi");
        cuzk_gt want, got;
        uint8_t gb[CUZK_FP12_BYTES], wb[CUZK_FP12_BYTES];
        if ((is_pair || is_tam) && n == 4) {
            cuzk_fr a, b;
            CHECK(read_fr(&a, tok[1]) == CUZK_OK && read_fr(&b, tok[2]) == CUZK_OK);
            CHECK(strlen(tok[3]) == 2 * CUZK_FP12_BYTES && tu_unhex(wb, sizeof wb, tok[3]) == 0);
            CHECK(cuzk_fp12_from_bytes(&want, wb) == CUZK_OK);
            pair_of(&got, &a, &b);
        } else if (is_multi && n == 6) {
            cuzk_fr k[4];
            for (int j = 0; j < 4; j++) CHECK(read_fr(&k[j], tok[1 + j]) == CUZK_OK);
            CHECK(strlen(tok[5]) == 2 * CUZK_FP12_BYTES && tu_unhex(wb, sizeof wb, tok[5]) == 0);
            CHECK(cuzk_fp12_from_bytes(&want, wb) == CUZK_OK);
            cuzk_g1_affine P[2];
            cuzk_g2_affine Q[2];
            tu_g1_mul_gen(&P[0], &k[0]);
            tu_g2_mul_gen(&Q[0], &k[1]);
            tu_g1_mul_gen(&P[1], &k[2]);
            tu_g2_mul_gen(&Q[1], &k[3]);
            cuzk_pairing_multi(&got, P, Q, 2);
        } else {
            CHECK_MSG(0, "unknown line '%s' with %d fields", tok[0], n);
            continue;
        }
        cuzk_fp12_to_bytes(gb, &got);
        if (is_tam) {
            tampered++;
            CHECK_MSG(memcmp(gb, wb, sizeof gb) != 0, "tampered case matched");
        } else {
            if (is_pair) pairs++;
            else multi++;
            CHECK_MSG(memcmp(gb, wb, sizeof gb) == 0, "%s case differs from noble", tok[0]);
            CHECK(cuzk_gt_eq(&got, &want));
        }
    }
    fclose(in);
    CHECK_MSG(pairs >= 5 && tampered >= 1 && multi >= 1, "too few cases: %d pair, %d multi, %d tampered",
              pairs, multi, tampered);
    fprintf(stderr, "tool_pairing_oracle: checked %d pair, %d multi, %d tampered cases from noble\n", pairs,
            multi, tampered);
    return tu_finish("tool_pairing_oracle check");
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "gen")) return gen(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "check")) return check(argv[2]);
    fprintf(stderr, "usage: %s gen|check FILE\n", argv[0]);
    return 2;
}
