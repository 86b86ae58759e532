/* libFuzzer: request files (request.json, src/filecoin_gen/request_file.c) — any
 * bytes must give a request or a clear error, never a crash or a leak. The
 * vanilla-proof files it names are looked up beside it (mostly absent). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/filecoin_gen/fil_request_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/cuzk-fuzz-request-%d", (int)getpid());
        if (mkdir(dir, 0700) && errno != EEXIST) return 0;
        /* one file a request may name */
        char p[128];
        snprintf(p, sizeof p, "%s/v.bin", dir);
        FILE *f = fopen(p, "wb");
        if (f) fputs("vanilla", f), fclose(f);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/request.json", dir);
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    cuzk_fil_request_file r;
    char err[512];
    if (cuzk_fil_request_file_read(path, &r, err, sizeof err) == 0) cuzk_fil_request_file_free(&r);
    return 0;
}
