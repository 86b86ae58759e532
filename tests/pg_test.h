/*
 * A real PostgreSQL for the cluster's tests (tests/pg.sh): the conninfo of
 * the database a test runs against, and a plain libpq connection for the
 * test's own SQL, with checked statements on it.
 */
#ifndef CUZK_TESTS_PG_TEST_H
#define CUZK_TESTS_PG_TEST_H

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"

/* $CUZK_PG; when unset, this program runs again under tests/pg.sh, which
 * sets it to a fresh database (on a private server unless $CUZK_PG_HOST
 * names one) and drops it afterwards. */
static inline const char *pg_test_conninfo(char **argv)
{
    const char *ci = getenv("CUZK_PG");
    if (ci) return ci;
    execlp("bash", "bash", CUZK_SOURCE_DIR "/tests/pg.sh", "run", argv[0], (char *)NULL);
    perror("bash tests/pg.sh");
    exit(1);
}

/* A connection for the test's own statements; a failed check if none. */
static inline PGconn *pg_test_sql(const char *conninfo)
{
    PGconn *c = PQconnectdb(conninfo);
    CHECK_MSG(PQstatus(c) == CONNECTION_OK, "psql connection: %s", PQerrorMessage(c));
    return c;
}

/* A statement of the test's own that must succeed (a failed check if not). */
static inline void pg_test_ok(PGconn *c, const char *q)
{
    PGresult *r = PQexec(c, q);
    CHECK_MSG(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", q,
              PQresultErrorMessage(r));
    PQclear(r);
}

/* The one value a query returns as a number; -1 and a failed check if it
 * returns anything else. */
static inline long pg_test_long(PGconn *c, const char *q)
{
    PGresult *r = PQexec(c, q);
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    CHECK_MSG(ok, "%s: %s", q, PQresultErrorMessage(r));
    long v = ok ? atol(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return v;
}

#endif
