/*
 * What db.c and node.c share inside the cluster layer: payload files on
 * shared storage (payload.c) and libpq with bounded waits (pq.c).
 */
#ifndef CUZK_CLUSTER_INTERNAL_H
#define CUZK_CLUSTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#define PAYLOAD_NAME_LEN 64 /* a SHA-256 in hex */

/* SHA-256 of data; false only when OpenSSL cannot allocate. */
/* The file name of a payload: its SHA-256 in lower-case hex. */
void payload_name(const uint8_t sha[32], char name[PAYLOAD_NAME_LEN + 1]);

/* Makes dir/name hold data (whose SHA-256 is sha, name its hex): nothing to
 * do when the file is there with that digest; otherwise written to a
 * temporary name beside it, fsync'd, renamed over it and the directory
 * fsync'd, so no host ever reads a torn file. CUZK_ERR_IO with the path and
 * errno's words in err. */
int payload_write(const char *dir, const char *name, const uint8_t *data, size_t len, const uint8_t sha[32],
                  char *err, size_t errlen);
/* dir/name into a malloc'd buffer, checked: len bytes with SHA-256 sha.
 * CUZK_ERR_IO (missing, unreadable, another size or digest) with the path
 * and what is wrong; CUZK_ERR_NO_MEMORY. */
int payload_read(const char *dir, const char *name, const uint8_t sha[32], size_t len, uint8_t **out, char *err,
                 size_t errlen);
/* Removes dir/name; a file already gone is no error. */
int payload_remove(const char *dir, const char *name, char *err, size_t errlen);

/* ---- libpq with deadlines (pq.c) ---------------------------------------- */

/* A connection whose every wait (connecting, sending, the result) ends at a
 * deadline (cuzk_now() seconds); past it the connection is dropped and
 * made again, its setup included, at the next statement. */
typedef struct pq_conn pq_conn;

/* A statement's parameters as PQexecParams takes them. */
typedef struct pq_params {
    int n;
    const char *const *vals;
    const int *lens, *fmts;
    int binary_out;
} pq_params;

/* Connects (PQconnectStartParams with expand_dbname) and sends setup (SQL,
 * may be several statements; NULL: none) within connect_s seconds, or by
 * deadline if sooner (0: none); every later reconnection gets connect_s
 * too. CUZK_ERR_IO with libpq's words, or "timeout expired", in err. */
int pq_connect(const char *const *keys, const char *const *vals, const char *setup, double connect_s,
               double deadline, pq_conn **out, char *err, size_t errlen);
/* One statement (params NULL: a simple query). NULL with the reason in err
 * when the connection failed or the deadline passed; else the result,
 * which may be an SQL error. A broken connection is made again first,
 * within connect_s of pq_connect (or by the deadline if sooner). */
PGresult *pq_exec(pq_conn *pc, const char *sql, const pq_params *params, double deadline, char *err,
                  size_t errlen);
/* Connected and not dropped. */
bool pq_usable(const pq_conn *pc);
PGconn *pq_raw(pq_conn *pc);
void pq_close(pq_conn *pc); /* NULL-safe */

#endif
