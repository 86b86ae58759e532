/* TLS files, read and checked (see tls.h). */
#include "server/tls.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "cuzk/util/error.h"

#define MAX_PEM (1 << 20)

static int failf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuzk_verrf(err, errlen, -1, fmt, ap);
    va_end(ap);
    ERR_clear_error(); /* no stale reason for the next file's failure */
    return -1;
}

/* OpenSSL's reason for the last failure, or a plain word. */
static const char *ssl_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    return r ? r : "no PEM data of that kind";
}

/* The whole file as a NUL-terminated string (malloc'd), or NULL with err set. */
static char *read_pem(const char *name, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) return failf(err, errlen, "%s: %s: %s", name, path, strerror(errno)), NULL;
    char *buf = malloc(MAX_PEM + 1);
    size_t n = buf ? fread(buf, 1, MAX_PEM + 1, f) : 0;
    int bad = !buf ? ENOMEM : ferror(f) ? EIO : 0;
    fclose(f);
    if (bad || n > MAX_PEM || n == 0) {
        free(buf);
        return failf(err, errlen, "%s: %s: %s", name, path, bad ? strerror(bad) : n ? "larger than 1 MiB" : "empty"),
               NULL;
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        free(buf);
        return failf(err, errlen, "%s: %s: a NUL byte: not a PEM file (DER? convert it with openssl x509 -outform PEM)",
                     name, path),
               NULL;
    }
    return buf;
}

/* Every certificate in pem parses and is within its dates; the first (the
 * leaf, in a chain) is returned in *leaf when leaf is not NULL. */
static int check_certs(const char *name, const char *path, const char *pem, X509 **leaf, char *err, size_t errlen)
{
    ERR_clear_error();
    BIO *bio = BIO_new_mem_buf(pem, -1);
    if (!bio) return failf(err, errlen, "%s: out of memory", name);
    int n = 0, rc = 0;
    X509 *x;
    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
        n++;
        char subject[256];
        X509_NAME_oneline(X509_get_subject_name(x), subject, sizeof subject);
        if (X509_cmp_current_time(X509_get0_notAfter(x)) < 0)
            rc = failf(err, errlen, "%s: %s: certificate %d (%s) has expired", name, path, n, subject);
        else if (X509_cmp_current_time(X509_get0_notBefore(x)) > 0)
            rc = failf(err, errlen, "%s: %s: certificate %d (%s) is not valid yet (check the clock)", name, path, n,
                       subject);
        if (rc == 0 && n == 1 && leaf) *leaf = x;
        else X509_free(x);
        if (rc) break;
    }
    /* the loop ends on end of data (PEM_R_NO_START_LINE) or on a bad block */
    unsigned long e = ERR_peek_last_error();
    bool at_end = n > 0 && ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
    if (rc == 0 && n == 0)
        rc = failf(err, errlen, "%s: %s: no PEM certificate in it (\"-----BEGIN CERTIFICATE-----\")", name, path);
    else if (rc == 0 && e && !at_end)
        rc = failf(err, errlen, "%s: %s: certificate %d does not parse: %s", name, path, n + 1, ssl_reason());
    BIO_free(bio);
    ERR_clear_error();
    if (rc && leaf && *leaf) {
        X509_free(*leaf);
        *leaf = NULL;
    }
    return rc;
}

/* No passphrase prompt on the terminal: gRPC needs the key in clear. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf, (void)size, (void)rwflag, (void)u;
    return -1;
}

static int check_key(const char *name, const char *path, const char *pem, X509 *leaf, const char *cert_name,
                     char *err, size_t errlen)
{
    if (strstr(pem, "ENCRYPTED"))
        return failf(err, errlen, "%s: %s: the key is encrypted; the gRPC core needs it without a passphrase "
                     "(openssl pkey -in KEY -out KEY.plain, then protect the file by its mode, 0600)", name, path);
    BIO *bio = BIO_new_mem_buf(pem, -1);
    EVP_PKEY *k = bio ? PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL) : NULL;
    BIO_free(bio);
    int rc = 0;
    if (!k) rc = failf(err, errlen, "%s: %s: no private key in it: %s", name, path, ssl_reason());
    else if (leaf && X509_check_private_key(leaf, k) != 1)
        rc = failf(err, errlen, "%s: %s: this key does not belong to the certificate in %s", name, path, cert_name);
    EVP_PKEY_free(k);
    ERR_clear_error();
    return rc;
}

void tls_pem_free(tls_pem *p)
{
    free(p->cert);
    free(p->key);
    free(p->ca);
    p->cert = p->key = p->ca = NULL;
}

int tls_load(const char *cert_path, const char *key_path, const char *ca_path, const char *const names[3],
             tls_pem *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    bool has_cert = cert_path && *cert_path, has_key = key_path && *key_path, has_ca = ca_path && *ca_path;
    if (has_cert != has_key)
        return failf(err, errlen, "%s: set with %s (a certificate and its key go together)",
                     has_cert ? names[0] : names[1], has_cert ? names[1] : names[0]);
    X509 *leaf = NULL;
    int rc = 0;
    if (has_cert) {
        if (!(out->cert = read_pem(names[0], cert_path, err, errlen)) ||
            check_certs(names[0], cert_path, out->cert, &leaf, err, errlen) ||
            !(out->key = read_pem(names[1], key_path, err, errlen)) ||
            check_key(names[1], key_path, out->key, leaf, cert_path, err, errlen))
            rc = -1;
    }
    if (!rc && has_ca &&
        (!(out->ca = read_pem(names[2], ca_path, err, errlen)) || check_certs(names[2], ca_path, out->ca, NULL, err, errlen)))
        rc = -1;
    X509_free(leaf);
    if (rc) tls_pem_free(out);
    return rc;
}
