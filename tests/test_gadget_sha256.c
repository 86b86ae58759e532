/* SHA-256 gadget: constraint counts equal bellpepper's, outputs equal
 * OpenSSL on random messages of many lengths, a flipped witness bit is
 * caught by TestCS and attributed to the right constraint. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs/cs.h"
#include "cuzk/gadgets/gadgets.h"
#include "testutil.h"

static void bits_to_bytes(uint8_t *out, const cuzk_bool *bits, size_t nbytes)
{
    for (size_t i = 0; i < nbytes; i++) {
        out[i] = 0;
        for (int j = 0; j < 8; j++) out[i] = (uint8_t)(out[i] << 1 | cuzk_bool_value(&bits[8 * i + j]));
    }
}

/* Message bits, allocated (or, with p_const, sometimes constant). */
static void msg_bits(cuzk_cs *cs, cuzk_bool *out, const uint8_t *msg, size_t n, cuzk_rng *rng, int p_const)
{
    bool *b = malloc(8 * n + 1);
    cuzk_bytes_to_bits(b, msg, n);
    for (size_t i = 0; i < 8 * n; i++) {
        if (p_const && (int)(cuzk_rng_u64(rng) % 100) < p_const) {
            out[i] = cuzk_bool_const(b[i]);
        } else {
            cuzk_cs_push_ns(cs, "input bit %zu", i);
            out[i] = cuzk_bool_alloc(cs, b[i]);
            cuzk_cs_pop_ns(cs);
        }
    }
    free(b);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gadget_sha256");

    /* bellpepper src/gadgets/sha256.rs test_full_block: 512 allocated input
     * bits + sha256_compression_function = 512 + 25840 constraints. Output
     * checked against OpenSSL's state after one block. */
    {
        cuzk_test_cs *t = cuzk_test_cs_new();
        cuzk_cs *cs = &t->base;
        cuzk_cs_alloc_one(cs);
        uint8_t msg[64];
        cuzk_rng_bytes(&rng, msg, 64);
        cuzk_bool in[512], out[256];
        msg_bits(cs, in, msg, 64, &rng, 0);
        cuzk_cs_push_ns(cs, "sha256");
        cuzk_sha256_block_no_padding(cs, in, out);
        cuzk_cs_pop_ns(cs);
        CHECK_MSG(cs->num_constraints - 512 == 25840, "block constraints %zu", cs->num_constraints - 512);
        CHECK(cuzk_test_cs_is_satisfied(t) && cs->err == 0);
        SHA256_CTX ctx;
        SHA256_Init(&ctx);
        SHA256_Update(&ctx, msg, 64); /* a full block is compressed immediately */
        uint8_t got[32], want[32];
        bits_to_bytes(got, out, 32);
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 4; j++) want[4 * i + j] = (uint8_t)(ctx.h[i] >> (24 - 8 * j));
        CHECK(memcmp(got, want, 32) == 0);
        cuzk_cs_free(cs);
    }

    /* bellpepper src/gadgets/sha256.rs test_full_hash: 512 allocated bits
     * through sha256 (with padding) = 512 + 44874 constraints. */
    {
        cuzk_test_cs *t = cuzk_test_cs_new();
        cuzk_cs *cs = &t->base;
        cuzk_cs_alloc_one(cs);
        uint8_t msg[64], want[32], got[32];
        cuzk_rng_bytes(&rng, msg, 64);
        cuzk_bool in[512], out[256];
        msg_bits(cs, in, msg, 64, &rng, 0);
        cuzk_cs_push_ns(cs, "sha256");
        cuzk_sha256(cs, in, 512, out);
        cuzk_cs_pop_ns(cs);
        CHECK_MSG(cs->num_constraints - 512 == 44874, "hash constraints %zu", cs->num_constraints - 512);
        CHECK(cuzk_test_cs_is_satisfied(t));
        SHA256(msg, 64, want);
        bits_to_bytes(got, out, 32);
        CHECK(memcmp(got, want, 32) == 0);
        cuzk_cs_free(cs);
    }

    /* bellpepper test_blank_hash: all-constant input gives 0 constraints. */
    {
        cuzk_test_cs *t = cuzk_test_cs_new();
        cuzk_cs *cs = &t->base;
        cuzk_cs_alloc_one(cs);
        cuzk_bool out[256];
        uint8_t got[32], want[32];
        cuzk_sha256(cs, NULL, 0, out);
        CHECK(cs->num_constraints == 0 && cs->num_aux == 0);
        SHA256((const uint8_t *)"", 0, want);
        bits_to_bytes(got, out, 32);
        CHECK(memcmp(got, want, 32) == 0);
        cuzk_cs_free(cs);
    }

    /* Random messages of many lengths (padding boundaries included), some
     * bits constant, on TestCS: satisfied and equal to OpenSSL. */
    {
        size_t lens[] = {1, 3, 31, 32, 55, 56, 63, 64, 65, 100, 119, 120, 128, 0};
        lens[13] = 1 + cuzk_rng_u64(&rng) % 200;
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            size_t n = lens[li];
            uint8_t *msg = malloc(n), want[32], got[32];
            cuzk_rng_bytes(&rng, msg, n);
            cuzk_bool *in = malloc(8 * n * sizeof *in), out[256];
            cuzk_test_cs *t = cuzk_test_cs_new();
            cuzk_cs *cs = &t->base;
            cuzk_cs_alloc_one(cs);
            msg_bits(cs, in, msg, n, &rng, li % 3 == 0 ? 30 : 0);
            cuzk_cs_push_ns(cs, "sha256");
            cuzk_sha256(cs, in, 8 * n, out);
            cuzk_cs_pop_ns(cs);
            SHA256(msg, n, want);
            bits_to_bytes(got, out, 32);
            CHECK_MSG(memcmp(got, want, 32) == 0, "length %zu", n);
            CHECK_MSG(cuzk_test_cs_is_satisfied(t) && cs->err == 0, "length %zu: %s", n,
                      t->first_unsat ? t->first_unsat : "");
            cuzk_cs_free(cs);
            free(in);
            free(msg);
        }
    }

    /* A flipped witness bit: TestCS reports the first unsatisfied
     * constraint, which must be the first row that the recorded matrices
     * reject under the same tampered witness. */
    for (int rep = 0; rep < 3; rep++) {
        uint8_t msg[40];
        cuzk_rng_bytes(&rng, msg, sizeof msg);
        cuzk_bool in[320], out[256];
        cuzk_recording_cs *r = cuzk_recording_cs_new();
        cuzk_proving_cs *p = cuzk_proving_cs_new();
        cuzk_cs *sys[2] = {&r->base, &p->base};
        for (int k = 0; k < 2; k++) {
            cuzk_cs_alloc_one(sys[k]);
            msg_bits(sys[k], in, msg, sizeof msg, &rng, 0);
            cuzk_sha256(sys[k], in, 320, out);
        }
        cuzk_cs_finalize(&r->base);
        size_t ni = p->input.len, na = p->aux.len;
        /* tamper a message bit or any later aux variable */
        size_t idx = rep == 0 ? cuzk_rng_u64(&rng) % 320 : cuzk_rng_u64(&rng) % na;
        cuzk_fr *z = malloc((ni + na) * sizeof *z);
        memcpy(z, p->input.v, ni * sizeof *z);
        memcpy(z + ni, p->aux.v, na * sizeof *z);
        cuzk_fr flipped;
        cuzk_fr_sub(&flipped, &cuzk_fr_one, &z[ni + idx]); /* 0 <-> 1 for bits */
        if (!cuzk_fr_is_zero(&z[ni + idx]) && !cuzk_fr_is_one(&z[ni + idx])) cuzk_fr_add(&flipped, &z[ni + idx], &cuzk_fr_one);
        z[ni + idx] = flipped;
        size_t first_bad = SIZE_MAX;
        for (size_t row = 0; row < r->base.num_constraints && first_bad == SIZE_MAX; row++) {
            cuzk_fr e[3], tt;
            for (int m = 0; m < 3; m++) {
                e[m] = cuzk_fr_zero;
                for (uint64_t i = r->m[m].row_ptr[row]; i < r->m[m].row_ptr[row + 1]; i++) {
                    cuzk_fr_mul(&tt, cuzk_recording_cs_val(r, m, i), &z[r->m[m].col[i]]);
                    cuzk_fr_add(&e[m], &e[m], &tt);
                }
            }
            cuzk_fr_mul(&tt, &e[0], &e[1]);
            if (!cuzk_fr_eq(&tt, &e[2])) first_bad = row;
        }
        cuzk_test_cs *t = cuzk_test_cs_new();
        t->tamper = true;
        t->tamper_index = idx;
        t->tamper_value = flipped;
        cuzk_cs_alloc_one(&t->base);
        cuzk_cs_push_ns(&t->base, "sha256");
        msg_bits(&t->base, in, msg, sizeof msg, &rng, 0);
        cuzk_sha256(&t->base, in, 320, out);
        cuzk_cs_pop_ns(&t->base);
        CHECK(!cuzk_test_cs_is_satisfied(t));
        CHECK(first_bad != SIZE_MAX);
        CHECK_MSG(t->first_unsat_index == first_bad, "first failure %zu vs %zu", t->first_unsat_index, first_bad);
        CHECK(t->first_unsat && strncmp(t->first_unsat, "sha256/", 7) == 0);
        if (rep == 0) fprintf(stderr, "flipped aux %zu -> first unsatisfied: %s\n", idx, t->first_unsat);
        cuzk_cs_free(&t->base);
        cuzk_cs_free(&r->base);
        cuzk_cs_free(&p->base);
        free(z);
    }
    return tu_finish("test_gadget_sha256");
}
