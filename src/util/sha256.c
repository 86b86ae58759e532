/* SHA-256 (include/cuzk/util/sha256.h), over OpenSSL's EVP interface. */
#include "cuzk/util/sha256.h"

#include <openssl/evp.h>
#include <string.h>

#include "cuzk/util/error.h"

int cuzk_sha256_hash(uint8_t out[32], const void *data, size_t len)
{
    static const uint8_t none[1];
    unsigned n = 32;
    if (EVP_Digest(data ? data : none, len, out, &n, EVP_sha256(), NULL) == 1 && n == 32) return CUZK_OK;
    memset(out, 0, 32);
    return CUZK_ERR_NO_MEMORY;
}

int cuzk_sha256_hash_parts(uint8_t out[32], const void *const *parts, const size_t *lens, size_t n)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned len = 0;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    for (size_t i = 0; ok && i < n; i++) ok = EVP_DigestUpdate(c, parts[i], lens[i]);
    ok = ok && EVP_DigestFinal_ex(c, out, &len) && len == 32;
    EVP_MD_CTX_free(c);
    if (ok) return CUZK_OK;
    memset(out, 0, 32);
    return CUZK_ERR_NO_MEMORY;
}
