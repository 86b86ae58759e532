/*
 * TLS material for the gRPC listener and client: PEM files read whole and
 * checked with OpenSSL when the daemon (or `cuzk bench`) starts, so that a
 * wrong file is an error naming its key and what is wrong with it, rather
 * than a handshake that fails at every call with nothing in the log. The
 * gRPC core then gets the PEM text (grpc_adapter.h).
 */
#ifndef CUZK_SERVER_TLS_H
#define CUZK_SERVER_TLS_H

#include <stddef.h>

typedef struct tls_pem {
    char *cert; /* certificate chain, leaf first (NULL: none) */
    char *key;  /* its private key (NULL: none) */
    char *ca;   /* certificates to verify the other side with (NULL: none) */
} tls_pem;

/* Reads and checks the files; a NULL or "" path is left out. Checked: each
 * file is readable PEM of the right kind, the key belongs to the leaf
 * certificate, the certificates are within their validity dates, and a
 * certificate comes with its key. Errors start with the name given for the
 * file (names[0..2] for cert, key, ca: "daemon.tls_cert" or "--tls-cert"),
 * then the path. 0 on success; tls_pem_free out either way. */
int tls_load(const char *cert_path, const char *key_path, const char *ca_path, const char *const names[3],
             tls_pem *out, char *err, size_t errlen);
void tls_pem_free(tls_pem *p);

#endif
