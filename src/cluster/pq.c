/*
 * libpq with every wait bounded (cluster_internal.h). libpq's blocking calls
 * wait for ever on a server that accepts and then says nothing: a stopped
 * (SIGSTOP) or wedged PostgreSQL keeps its sockets open and the kernel keeps
 * acknowledging, so neither TCP keepalives nor tcp_user_timeout end the wait,
 * and a unix socket has neither. Here the connection is non-blocking and
 * every step (connecting, sending, waiting for the result) polls its socket
 * against a deadline; past it the connection is dropped (its state is
 * unknown: a statement may be in flight) and made again on the next use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_internal.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"

struct pq_conn {
    PGconn *conn;
    bool broken; /* dropped at a deadline: reset before the next statement */
    char *setup; /* SET statements, sent after every (re)connection */
    double connect_s; /* the longest a (re)connection, its setup included, may take */
};

/* The end of a connection attempt starting now: connect_s from now, or the
 * caller's deadline if sooner (0: none). libpq's own connect_timeout acts
 * only in its blocking calls, never in PQconnectPoll's. */
static double connect_deadline(double connect_s, double deadline)
{
    double own = cuzk_now() + connect_s;
    return deadline > 0 && deadline < own ? deadline : own;
}

/* Waits until the socket can be read (or written, or either) or the
 * deadline passes. false: the deadline, or the socket failed. */
static bool sock_wait(PGconn *c, short events, double deadline)
{
    int fd = PQsocket(c);
    if (fd < 0) return false;
    for (;;) {
        double left = deadline - cuzk_now();
        if (left <= 0) return false;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
        if (r > 0) return true;
        if (r < 0 && errno != EINTR) return false;
    }
}

/* libpq's first line of its last error. */
static void conn_error(PGconn *c, const char *what, char *err, size_t errlen)
{
    const char *m = c ? PQerrorMessage(c) : "out of memory";
    cuzk_errf(err, errlen, 0, "%s%.*s", what, (int)strcspn(m, "\n"), m);
}

/* Drives PQconnectPoll or PQresetPoll to the end or the deadline. */
static bool connect_poll(PGconn *c, bool reset, double deadline, char *err, size_t errlen)
{
    PostgresPollingStatusType st = PGRES_POLLING_WRITING; /* libpq's rule for the first wait */
    for (;;) {
        if (st == PGRES_POLLING_OK) return true;
        if (st == PGRES_POLLING_FAILED) {
            conn_error(c, "", err, errlen);
            return false;
        }
        if (!sock_wait(c, st == PGRES_POLLING_WRITING ? POLLOUT : POLLIN, deadline)) {
            cuzk_errf(err, errlen, 0, "timeout expired (no answer from the server)");
            return false;
        }
        st = reset ? PQresetPoll(c) : PQconnectPoll(c);
    }
}

/* Sends what libpq buffered; reads meanwhile, as libpq asks. */
static bool flush_all(PGconn *c, double deadline, bool *late)
{
    for (;;) {
        int f = PQflush(c);
        if (f == 0) return true;
        if (f < 0) return false;
        if (!sock_wait(c, POLLIN | POLLOUT, deadline)) return *late = cuzk_now() >= deadline, false;
        if (!PQconsumeInput(c)) return false;
    }
}

/* The results of the command sent, the last kept (an error wins over a
 * later one); NULL with *late at the deadline. */
static PGresult *collect(PGconn *c, double deadline, bool *late)
{
    PGresult *keep = NULL;
    for (;;) {
        while (PQisBusy(c)) {
            if (!sock_wait(c, POLLIN, deadline)) {
                *late = cuzk_now() >= deadline;
                PQclear(keep);
                return NULL;
            }
            if (!PQconsumeInput(c)) {
                PQclear(keep);
                return NULL;
            }
        }
        PGresult *r = PQgetResult(c);
        if (!r) return keep;
        ExecStatusType st = PQresultStatus(r);
        bool failed = st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK;
        if (keep && !failed && PQresultStatus(keep) == PGRES_FATAL_ERROR) {
            PQclear(r);
            continue;
        }
        PQclear(keep);
        keep = r;
    }
}

/* One command (params NULL: a simple query, which may hold several). */
static PGresult *send_and_collect(pq_conn *pc, const char *sql, const pq_params *params, double deadline,
                                  char *err, size_t errlen)
{
    PGconn *c = pc->conn;
    int sent = params ? PQsendQueryParams(c, sql, params->n, NULL, params->vals, params->lens, params->fmts,
                                          params->binary_out)
                      : PQsendQuery(c, sql);
    bool late = false;
    PGresult *r = sent && flush_all(c, deadline, &late) ? collect(c, deadline, &late) : NULL;
    if (r) return r;
    if (late) {
        /* a statement may still be in flight: this connection is done */
        pc->broken = true;
        cuzk_errf(err, errlen, 0, "no answer within the deadline (the server is stopped, overloaded or "
                                  "unreachable); the connection is dropped");
    } else {
        conn_error(c, "", err, errlen);
    }
    return NULL;
}

/* Brings a broken or dropped connection back, settings included, by
 * connect_s or the statement's deadline, whichever comes first: a server
 * that accepts and never answers costs a statement no more than a
 * connection's bound. */
static bool revive(pq_conn *pc, double deadline, char *err, size_t errlen)
{
    if (!pc->broken && PQstatus(pc->conn) == CONNECTION_OK) return true;
    deadline = connect_deadline(pc->connect_s, deadline);
    char why[400] = "";
    if (!PQresetStart(pc->conn) || !connect_poll(pc->conn, true, deadline, why, sizeof why)) {
        pc->broken = true;
        if (!why[0]) conn_error(pc->conn, "", why, sizeof why);
        cuzk_errf(err, errlen, 0, "connecting again: %s", why);
        return false;
    }
    pc->broken = false;
    PQsetnonblocking(pc->conn, 1);
    PGresult *r = pc->setup ? send_and_collect(pc, pc->setup, NULL, deadline, err, errlen) : NULL;
    bool ok = !pc->setup || (r && PQresultStatus(r) == PGRES_COMMAND_OK);
    if (r && !ok) conn_error(pc->conn, "", err, errlen);
    PQclear(r);
    if (!ok) pc->broken = true;
    return ok;
}

int pq_connect(const char *const *keys, const char *const *vals, const char *setup, double connect_s,
               double deadline, pq_conn **out, char *err, size_t errlen)
{
    *out = NULL;
    pq_conn *pc = calloc(1, sizeof *pc);
    if (!pc || !(pc->setup = strdup(setup ? setup : ""))) {
        free(pc);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    pc->connect_s = connect_s;
    deadline = connect_deadline(connect_s, deadline);
    pc->conn = PQconnectStartParams(keys, vals, 1); /* expand_dbname: the conninfo may be a URI */
    err[0] = '\0';
    bool ok = pc->conn && PQstatus(pc->conn) != CONNECTION_BAD && connect_poll(pc->conn, false, deadline, err, errlen);
    if (ok) {
        PQsetnonblocking(pc->conn, 1);
        PGresult *r = send_and_collect(pc, pc->setup, NULL, deadline, err, errlen);
        ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
        if (r && !ok) conn_error(pc->conn, "", err, errlen);
        PQclear(r);
    } else if (!err[0]) {
        conn_error(pc->conn, "", err, errlen);
    }
    if (!ok) {
        pq_close(pc);
        return CUZK_ERR_IO;
    }
    *out = pc;
    return CUZK_OK;
}

PGresult *pq_exec(pq_conn *pc, const char *sql, const pq_params *params, double deadline, char *err, size_t errlen)
{
    err[0] = '\0';
    if (!revive(pc, deadline, err, errlen)) return NULL;
    return send_and_collect(pc, sql, params, deadline, err, errlen);
}

bool pq_usable(const pq_conn *pc) { return !pc->broken && PQstatus(pc->conn) == CONNECTION_OK; }

PGconn *pq_raw(pq_conn *pc) { return pc->conn; }

void pq_close(pq_conn *pc)
{
    if (!pc) return;
    if (pc->conn) PQfinish(pc->conn);
    free(pc->setup);
    free(pc);
}
