/* The optional HTTP status listener ([daemon] status_listen): GET /metrics
 * (Prometheus text) and GET /status (JSON). HTTP/1.0, one request per
 * connection, for scrapers and people with curl. */
#ifndef CUZK_SERVER_HTTP_STATUS_H
#define CUZK_SERVER_HTTP_STATUS_H

#include <stddef.h>

#include "server/service.h"

typedef struct http_status http_status;

http_status *http_status_start(const char *hostport, srv_service *svc, char *err, size_t errlen);
void http_status_stop(http_status *h);

/* Parses the request line of a GET or HEAD request in buf[0..len) into path
 * (query string dropped). Returns 0, 1 when the line is incomplete, 400 for
 * a malformed request, 405 for another method, 414 for a path too long. */
int http_parse_request(const char *buf, size_t len, char *path, size_t pathcap, int *is_head);

#endif
