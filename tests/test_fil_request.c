/* The flat Filecoin request encoding: random round trips; every truncation,
 * extension and corrupted header field is rejected with a message. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_request.h"
#include "testutil.h"

static void random_bytes(cuzk_rng *rng, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)cuzk_rng_u64(rng);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_fil_request");
    for (int round = 0; round < 50; round++) {
        cuzk_fil_request r = {
            .kind = (cuzk_fil_proof_kind)(1 + cuzk_rng_u64(&rng) % 4),
            .partition_index = (uint32_t)cuzk_rng_u64(&rng),
            .registered_proof = cuzk_rng_u64(&rng),
            .sector_size = cuzk_rng_u64(&rng),
            .sector_number = cuzk_rng_u64(&rng),
            .miner_id = cuzk_rng_u64(&rng),
            .present = (uint32_t)(cuzk_rng_u64(&rng) & 15),
        };
        random_bytes(&rng, r.randomness, 32);
        random_bytes(&rng, r.comm_r_old, 32);
        random_bytes(&rng, r.comm_r_new, 32);
        random_bytes(&rng, r.comm_d_new, 32);
        size_t nb = (size_t)(cuzk_rng_u64(&rng) % 4);
        cuzk_fil_blob blobs[4];
        uint8_t store[4][300];
        for (size_t i = 0; i < nb; i++) {
            size_t len = (size_t)(cuzk_rng_u64(&rng) % 300);
            random_bytes(&rng, store[i], len);
            blobs[i] = (cuzk_fil_blob){store[i], len};
        }
        r.blobs = blobs;
        r.num_blobs = nb;
        size_t n = cuzk_fil_request_size(&r);
        uint8_t *buf = malloc(n + 1);
        cuzk_fil_request_encode(&r, buf);

        cuzk_fil_request d;
        char err[160];
        CHECK(cuzk_fil_request_decode(&d, buf, n, err, sizeof err) == CUZK_OK);
        CHECK(d.kind == r.kind && d.partition_index == r.partition_index &&
              d.registered_proof == r.registered_proof && d.sector_size == r.sector_size &&
              d.sector_number == r.sector_number && d.miner_id == r.miner_id && d.present == r.present);
        CHECK(!memcmp(d.randomness, r.randomness, 32) && !memcmp(d.comm_r_old, r.comm_r_old, 32) &&
              !memcmp(d.comm_r_new, r.comm_r_new, 32) && !memcmp(d.comm_d_new, r.comm_d_new, 32));
        CHECK(d.num_blobs == nb);
        for (size_t i = 0; i < nb && i < d.num_blobs; i++)
            CHECK(d.blobs[i].len == blobs[i].len && !memcmp(d.blobs[i].data, blobs[i].data, blobs[i].len));
        cuzk_fil_request_clear(&d);

        /* every truncation and one extra byte are rejected */
        bool all_rejected = true;
        for (size_t cut = 0; cut < n; cut++) {
            err[0] = 0;
            if (cuzk_fil_request_decode(&d, buf, cut, err, sizeof err) == CUZK_OK || !err[0]) {
                all_rejected = false;
                cuzk_fil_request_clear(&d);
            }
        }
        CHECK_MSG(all_rejected, "a truncated request decoded (round %d)", round);
        buf[n] = 0;
        CHECK(cuzk_fil_request_decode(&d, buf, n + 1, err, sizeof err) == CUZK_ERR_FORMAT && strstr(err, "trailing"));
        /* header fields: magic, version, kind, presence bits */
        size_t offs[4] = {0, 4, 8, 48};
        for (int f = 0; f < 4; f++) {
            uint8_t *bad = malloc(n);
            memcpy(bad, buf, n);
            bad[offs[f]] ^= (f == 3 ? 0x30 : 0x41);
            CHECK_MSG(cuzk_fil_request_decode(&d, bad, n, err, sizeof err) == CUZK_ERR_FORMAT,
                      "corrupt header field %d accepted", f);
            free(bad);
        }
        free(buf);
    }
    return tu_finish("test_fil_request");
}
