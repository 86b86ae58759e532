/*
 * A Filecoin proof request as the engine's Filecoin kinds receive it: the
 * fields of cuzk.v1.SubmitProofRequest that a proof needs, flattened into one
 * byte string (the engine's job inputs must be plain bytes: they are copied,
 * compared for idempotency and outlive the RPC). Little-endian:
 *   "CZFR" | u32 version (1) | u32 proof_kind | u32 partition_index |
 *   u64 registered_proof | u64 sector_size | u64 sector_number | u64 miner_id |
 *   u32 present (bit 0 randomness, 1 comm_r_old, 2 comm_r_new, 3 comm_d_new) |
 *   4 x 32 bytes (randomness, comm_r_old, comm_r_new, comm_d_new; zero when absent) |
 *   u32 blob count | per blob: u64 length, bytes.
 * PoRep and NI-PoRep carry the C1 output as their one blob; PoSt one
 * vanilla proof per sector; SnapDeals one per partition.
 */
#ifndef CUZK_FIL_REQUEST_H
#define CUZK_FIL_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cuzk.v1.ProofKind numbers of the Filecoin kinds. */
typedef enum cuzk_fil_proof_kind {
    CUZK_FIL_KIND_POREP = 1,
    CUZK_FIL_KIND_SNAP = 2,
    CUZK_FIL_KIND_WINDOW_POST = 3,
    CUZK_FIL_KIND_WINNING_POST = 4,
    /* cuzk's addition: NI-PoRep C2 (a C1 of a NonInteractivePoRep registered proof),
     * answered with the SnarkPack v2 aggregate of its partition proofs */
    CUZK_FIL_KIND_NI_POREP = 110,
} cuzk_fil_proof_kind;

/* Whether k is one of the kinds above. */
static inline int cuzk_fil_proof_kind_known(cuzk_fil_proof_kind k)
{
    return (k >= CUZK_FIL_KIND_POREP && k <= CUZK_FIL_KIND_WINNING_POST) || k == CUZK_FIL_KIND_NI_POREP;
}

#define CUZK_FIL_REQ_RANDOMNESS 1u
#define CUZK_FIL_REQ_COMM_R_OLD 2u
#define CUZK_FIL_REQ_COMM_R_NEW 4u
#define CUZK_FIL_REQ_COMM_D_NEW 8u

typedef struct cuzk_fil_blob {
    const uint8_t *data;
    size_t len;
} cuzk_fil_blob;

typedef struct cuzk_fil_request {
    cuzk_fil_proof_kind kind;
    uint32_t partition_index;
    uint64_t registered_proof, sector_size, sector_number, miner_id;
    uint32_t present; /* CUZK_FIL_REQ_* */
    uint8_t randomness[32], comm_r_old[32], comm_r_new[32], comm_d_new[32];
    const cuzk_fil_blob *blobs; /* encode: the caller's; decode: malloc'd, pointing into the buffer */
    size_t num_blobs;
} cuzk_fil_request;

/* Bytes cuzk_fil_request_encode writes. */
size_t cuzk_fil_request_size(const cuzk_fil_request *r);
/* Writes the encoding into out (cuzk_fil_request_size bytes). */
void cuzk_fil_request_encode(const cuzk_fil_request *r, uint8_t *out);
/* Parses buf into *r; r->blobs points into buf (free it with cuzk_fil_request_clear).
 * 0 on success, else a CUZK_ERR_* with a message in err. */
int cuzk_fil_request_decode(cuzk_fil_request *r, const uint8_t *buf, size_t len, char *err, size_t err_len);
void cuzk_fil_request_clear(cuzk_fil_request *r);

#ifdef __cplusplus
}
#endif
#endif
