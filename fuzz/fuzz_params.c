/* libFuzzer: arbitrary bytes parsed as a Groth16 vk and as parameters, in
 * both modes. Accepted input must re-serialize to the bytes consumed;
 * rejected input must leave nothing allocated (LeakSanitizer checks). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16_params.h"

static void parse_all(const uint8_t *d, size_t n, unsigned nthreads)
{
    cuzk_groth16_error err;
    size_t used = 0;
    cuzk_groth16_vk vk;
    if (cuzk_groth16_vk_read_mem(&vk, d, n, &used, &err) == CUZK_OK) {
        size_t len = cuzk_groth16_vk_serialized_size(&vk);
        uint8_t *b = malloc(len);
        if (len != used || cuzk_groth16_vk_write_mem(&vk, b, len, NULL) != CUZK_OK || memcmp(b, d, len)) abort();
        free(b);
        cuzk_groth16_vk_free(&vk);
    } else if (vk.ic || err.msg[0] == 0) {
        abort();
    }
    for (int mode = 0; mode < 2; mode++) {
        cuzk_groth16_params p;
        if (cuzk_groth16_params_read_mem(&p, d, n, (cuzk_groth16_read_mode)mode, nthreads, &used, &err) == CUZK_OK) {
            size_t len = cuzk_groth16_params_serialized_size(&p);
            uint8_t *b = malloc(len);
            if (len != used || cuzk_groth16_params_write_mem(&p, b, len, NULL) != CUZK_OK || memcmp(b, d, len))
                abort();
            free(b);
            cuzk_groth16_params_free(&p);
        } else if (p.h || p.vk.ic || p.b_g2 || err.msg[0] == 0) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 0 && data[0] == 0xa5) {
        /* Structured mode: a valid file (generator multiples, counts from
         * data[1..6] mod 4), then xor edits at (2-byte position, mask)
         * triples, so near-valid files are explored too. */
        cuzk_groth16_params p;
        memset(&p, 0, sizeof p);
        size_t c[6];
        for (int k = 0; k < 6; k++) c[k] = (size_t)(k + 1 < (int)size ? data[k + 1] % 4 : 1);
        /* 2^i multiples of the generators, computed once. */
        static cuzk_g1_affine g1[16];
        static cuzk_g2_affine g2[4];
        static int ready;
        if (!ready) {
            cuzk_g1_jac j1;
            cuzk_g2_jac j2;
            cuzk_g1_jac_from_affine(&j1, &cuzk_g1_generator);
            cuzk_g2_jac_from_affine(&j2, &cuzk_g2_generator);
            for (int i = 0; i < 16; i++) {
                cuzk_g1_jac_to_affine(&g1[i], &j1);
                cuzk_g1_jac_dbl(&j1, &j1);
            }
            for (int i = 0; i < 4; i++) {
                cuzk_g2_jac_to_affine(&g2[i], &j2);
                cuzk_g2_jac_dbl(&j2, &j2);
            }
            ready = 1;
        }
        p.vk.alpha_g1 = g1[0], p.vk.beta_g1 = g1[1], p.vk.delta_g1 = g1[2];
        p.vk.beta_g2 = g2[0], p.vk.gamma_g2 = g2[1], p.vk.delta_g2 = g2[2];
        p.vk.ic = g1, p.vk.n_ic = c[0];
        p.h = g1 + 3, p.n_h = c[1];
        p.l = g1 + 6, p.n_l = c[2];
        p.a = g1 + 9, p.n_a = c[3];
        p.b_g1 = g1 + 12, p.n_b_g1 = c[4];
        p.b_g2 = g2, p.n_b_g2 = c[5];
        size_t len = cuzk_groth16_params_serialized_size(&p);
        uint8_t *b = malloc(len);
        cuzk_groth16_params_write_mem(&p, b, len, NULL);
        for (size_t i = 7; i + 2 < size; i += 3) b[((size_t)data[i] << 8 | data[i + 1]) % len] ^= data[i + 2];
        size_t cut = size > 7 && (data[7] & 1) ? len - (size_t)data[7] % len : len;
        parse_all(b, cut, 1 + (size & 1));
        free(b);
        return 0;
    }
    /* Raw input, copied so reads past the end are caught by ASan. */
    uint8_t *d = malloc(size ? size : 1);
    memcpy(d, data, size);
    parse_all(d, size, 1 + (size & 1));
    free(d);
    return 0;
}
