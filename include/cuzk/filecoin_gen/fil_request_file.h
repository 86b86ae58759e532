/*
 * A proof request kept in a file: what `cuzk gen-vanilla` writes beside the
 * vanilla proofs it makes, and what `cuzk bench --request` sends. JSON:
 *   {"proof_kind": "porep"|"ni-porep"|"snap"|"wpost"|"winning", "sector_size": 2048,
 *    "registered_proof": 5, "sector_number": 1, "miner_id": 1000,
 *    "partition_index": 0, "randomness": HEX64, "comm_r_old": HEX64,
 *    "comm_r_new": HEX64, "comm_d_new": HEX64,
 *    "vanilla_proof": FILE | "vanilla_proofs": [FILE, ...]}
 * 32-byte values are 64 hex digits of the bytes in wire order; FILEs are
 * relative to the request file's directory. Absent fields are zero/empty.
 */
#ifndef CUZK_FIL_REQUEST_FILE_H
#define CUZK_FIL_REQUEST_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_request.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_FIL_REQ_FILE_MAX_BLOBS 4096

typedef struct cuzk_fil_request_file {
    const char *proof_kind; /* "porep", "ni-porep", "snap", "wpost", "winning" */
    cuzk_fil_proof_kind kind; /* read: proof_kind as the engine's enum */
    uint64_t sector_size, registered_proof, sector_number, miner_id;
    uint32_t partition_index;
    uint32_t present; /* CUZK_FIL_REQ_* bits: which of the 32-byte values are set */
    uint8_t randomness[32], comm_r_old[32], comm_r_new[32], comm_d_new[32];
    int single; /* 1: "vanilla_proof" (PoRep's C1), 0: "vanilla_proofs" */
    size_t num_blobs;
    char **blob_files;  /* as written in the file (write: the names to record) */
    uint8_t **blobs;    /* read: the files' contents */
    size_t *blob_lens;
} cuzk_fil_request_file;

/* Reads path and the files it names. 0, or -1 with a message in err. */
int cuzk_fil_request_file_read(const char *path, cuzk_fil_request_file *r, char *err, size_t err_len);
/* Writes r to path (atomically: temporary, rename). 0, or -1 with errno set. */
int cuzk_fil_request_file_write(const char *path, const cuzk_fil_request_file *r);
void cuzk_fil_request_file_free(cuzk_fil_request_file *r);

#ifdef __cplusplus
}
#endif

#endif
