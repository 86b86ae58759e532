/* The flat encoding of a Filecoin proof request (include/cuzk/filecoin/fil_request.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_request.h"

#define HEADER_BYTES (4 + 4 + 4 + 4 + 4 * 8 + 4 + 4 * 32 + 4)

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

size_t cuzk_fil_request_size(const cuzk_fil_request *r)
{
    size_t n = HEADER_BYTES;
    for (size_t i = 0; i < r->num_blobs; i++) n += 8 + r->blobs[i].len;
    return n;
}

void cuzk_fil_request_encode(const cuzk_fil_request *r, uint8_t *out)
{
    uint8_t *p = out;
    memcpy(p, "CZFR", 4), p += 4;
    p = put32(p, 1);
    p = put32(p, (uint32_t)r->kind);
    p = put32(p, r->partition_index);
    p = put64(p, r->registered_proof);
    p = put64(p, r->sector_size);
    p = put64(p, r->sector_number);
    p = put64(p, r->miner_id);
    p = put32(p, r->present);
    const uint8_t *fields[4] = {r->randomness, r->comm_r_old, r->comm_r_new, r->comm_d_new};
    for (int i = 0; i < 4; i++) memcpy(p, fields[i], 32), p += 32;
    p = put32(p, (uint32_t)r->num_blobs);
    for (size_t i = 0; i < r->num_blobs; i++) {
        p = put64(p, r->blobs[i].len);
        if (r->blobs[i].len) memcpy(p, r->blobs[i].data, r->blobs[i].len);
        p += r->blobs[i].len;
    }
}

static int fail(char *err, size_t err_len, const char *msg, size_t off)
{
    if (err && err_len) snprintf(err, err_len, "request encoding: %s (offset %zu)", msg, off);
    return CUZK_ERR_FORMAT;
}

int cuzk_fil_request_decode(cuzk_fil_request *r, const uint8_t *buf, size_t len, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    if (!buf || len < HEADER_BYTES) return fail(err, err_len, "shorter than its header", len);
    if (memcmp(buf, "CZFR", 4)) return fail(err, err_len, "bad magic", 0);
    if (get32(buf + 4) != 1) return fail(err, err_len, "unknown version", 4);
    const uint8_t *p = buf + 8;
    r->kind = (cuzk_fil_proof_kind)get32(p), p += 4;
    if (!cuzk_fil_proof_kind_known(r->kind))
        return fail(err, err_len, "unknown proof kind", 8);
    r->partition_index = get32(p), p += 4;
    r->registered_proof = get64(p), p += 8;
    r->sector_size = get64(p), p += 8;
    r->sector_number = get64(p), p += 8;
    r->miner_id = get64(p), p += 8;
    r->present = get32(p), p += 4;
    if (r->present & ~15u) return fail(err, err_len, "unknown presence bits", (size_t)(p - 4 - buf));
    uint8_t *fields[4] = {r->randomness, r->comm_r_old, r->comm_r_new, r->comm_d_new};
    for (int i = 0; i < 4; i++) memcpy(fields[i], p, 32), p += 32;
    uint32_t n = get32(p);
    p += 4;
    size_t left = len - (size_t)(p - buf);
    if (n > left / 8) return fail(err, err_len, "blob count larger than the message", (size_t)(p - 4 - buf));
    cuzk_fil_blob *blobs = calloc(n ? n : 1, sizeof *blobs);
    if (!blobs) return CUZK_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        left = len - (size_t)(p - buf);
        if (left < 8) {
            free(blobs);
            return fail(err, err_len, "truncated blob length", (size_t)(p - buf));
        }
        uint64_t bl = get64(p);
        p += 8;
        if (bl > left - 8) {
            free(blobs);
            return fail(err, err_len, "blob longer than the message", (size_t)(p - 8 - buf));
        }
        blobs[i].data = p;
        blobs[i].len = (size_t)bl;
        p += bl;
    }
    if (p != buf + len) {
        free(blobs);
        return fail(err, err_len, "trailing bytes", (size_t)(p - buf));
    }
    r->blobs = blobs;
    r->num_blobs = n;
    return CUZK_OK;
}

void cuzk_fil_request_clear(cuzk_fil_request *r)
{
    free((void *)r->blobs);
    memset(r, 0, sizeof *r);
}
