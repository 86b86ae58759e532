/* Fuzz the status listener's request-line parser. */
#include <stdlib.h>
#include <string.h>

#include "server/http_status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int head = -1;
    int rc = http_parse_request((const char *)data, size, path, sizeof path, &head);
    if (rc == 0 && (path[0] != '/' || strlen(path) >= sizeof path || (head != 0 && head != 1))) abort();
    if (rc != 0 && rc != 1 && rc != 400 && rc != 405 && rc != 414) abort();
    return 0;
}
