/*
 * The helpers every command shares (cli/cli.h): the error line, whole-file
 * reads and writes, counts with K/M/G, the default thread count. Kept apart
 * from main.c's command table, which calls the commands that call these.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/util/parallel.h"
#include "cuzk/filecoin/fil_params.h"

void cli_errorf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuzk: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

uint8_t *cli_read_file(const char *what, const char *path, size_t *len)
{
    uint8_t *b;
    int rc = cuzk_file_read(path, 0, &b, len);
    if (rc) cli_errorf("%s: cannot read %s: %s", what, path, rc == CUZK_ERR_IO ? strerror(errno) : cuzk_strerror(rc));
    return rc ? NULL : b;
}

int cli_write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cli_errorf("%s: cannot create: %s", path, strerror(errno)), -1;
    bool ok = fwrite(buf, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok) return cli_errorf("%s: write failed", path), -1;
    return 0;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || s[0] == '-') return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, end++;
    else if (*end == 'M' || *end == 'm') shift = 20, end++;
    else if (*end == 'G' || *end == 'g') shift = 30, end++;
    if (*end) return false;
    if (shift && v > (UINT64_MAX >> shift)) return false;
    *out = (uint64_t)v << shift;
    return true;
}

unsigned cli_default_threads(void)
{
    const char *e = getenv("CUZK_THREADS");
    uint64_t v;
    if (e && cli_parse_u64(e, &v) && v > 0 && v < 4096) return (unsigned)v;
    return cuzk_parallel_cpus();
}

const char *cli_param_cache_env(void)
{
    const char *e = getenv(CUZK_FIL_PARAM_CACHE_ENV);
    return e && *e ? e : NULL;
}

const char *cli_param_cache_dir(void)
{
    const char *e = cli_param_cache_env();
    return e ? e : CUZK_FIL_PARAM_CACHE_DEFAULT;
}

/* The ordinal --device names: -1 for cpu, -2 when it names nothing. */
static int device_ordinal(const char *device)
{
    if (!strcmp(device, "cpu")) return -1;
    if (!strcmp(device, "gpu")) return 0;
    if (strncmp(device, "gpu:", 4) || device[4] < '0' || device[4] > '9') return -2;
    char *end;
    long n = strtol(device + 4, &end, 10);
    return *end || n > 1024 ? -2 : (int)n;
}

int cli_gpu_open(const char *cmd, const char *device, cuzk_gpu_device **dev, cuzk_gpu_worker **w)
{
    *dev = NULL, *w = NULL;
    int ordinal = device_ordinal(device);
    if (ordinal == -1) return 0;
    if (ordinal == -2) return cli_errorf("%s: --device: expected cpu, gpu or gpu:N, got '%s'", cmd, device), 2;
    char msg[256];
    int count = 0;
#ifdef CUZK_HAVE_CUDA
    snprintf(msg, sizeof msg, "no CUDA device found");
#else
    snprintf(msg, sizeof msg, "no CUDA device: a build without CUDA");
#endif
    if (!cuzk_gpu_device_count(&count) && ordinal >= count)
        snprintf(msg, sizeof msg, "no CUDA device %d (%d found)", ordinal, count);
    if (cuzk_gpu_device_count(&count) || ordinal >= count || cuzk_gpu_device_open(dev, ordinal, msg, sizeof msg))
        return *dev = NULL, cli_errorf("%s: --device %s: %s", cmd, device, msg), 1;
    if (cuzk_gpu_worker_create(w, *dev)) {
        cli_errorf("%s: --device %s: cannot create a worker on %s", cmd, device, cuzk_gpu_device_describe(*dev));
        return cuzk_gpu_device_close(*dev), *dev = NULL, *w = NULL, 1;
    }
    return 0;
}

void cli_gpu_close(cuzk_gpu_device *dev, cuzk_gpu_worker *w)
{
    if (w) cuzk_gpu_worker_destroy(w);
    if (dev) cuzk_gpu_device_close(dev);
}
