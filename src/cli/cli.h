/*
 * The cuzk command line: one file per command family (cmd_*.c), each
 * exporting an entry point listed in the table in main.c; the helpers
 * below are in cli.c.
 */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/gpu/gpu.h"

/* A command's entry point: argv[0] is the command's own name. Returns the
 * process exit code (0 ok, 1 failure, 2 usage). */
typedef int (*cuzk_cli_fn)(int argc, char **argv);

typedef struct cuzk_cli_command {
    const char *name;
    cuzk_cli_fn fn;
    const char *summary;
} cuzk_cli_command;

/* Prints "cuzk: <msg>\n" on stderr. */
void cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole file (cuzk_file_read, NUL-terminated) or NULL after printing
 * "cuzk: <what>: cannot read <path>: <why>". free() it. */
uint8_t *cli_read_file(const char *what, const char *path, size_t *len);
/* Writes len bytes to path (created or truncated): 0, or -1 after printing why. */
int cli_write_file(const char *path, const void *buf, size_t len);
/* A count: an unsigned integer with an optional K/M/G multiplier (powers
 * of 1024: "--constraints 1M"). Byte sizes are cuzk_size_parse's
 * (include/cuzk/util/size.h: "2KiB", "32GiB"). */
bool cli_parse_u64(const char *s, uint64_t *out);
/* Worker threads: CUZK_THREADS or the online CPU count. */
unsigned cli_default_threads(void);
/* The parameter cache the environment names: $FIL_PROOFS_PARAMETER_CACHE,
 * NULL when unset or empty. */
const char *cli_param_cache_env(void);
/* --param-cache's default: cli_param_cache_env(), else rust-fil-proofs'
 * /var/tmp/filecoin-proof-parameters. */
const char *cli_param_cache_dir(void);
/* --device cpu | gpu | gpu:N: *dev and *w stay NULL for cpu, else CUDA device N (gpu: 0)
 * opened with one worker. 0; 2 after saying the value is not one of those; 1 after saying
 * why the device cannot be used (none, a build without CUDA, no worker). cmd names the
 * command in the messages. */
int cli_gpu_open(const char *cmd, const char *device, cuzk_gpu_device **dev, cuzk_gpu_worker **w);
void cli_gpu_close(cuzk_gpu_device *dev, cuzk_gpu_worker *w);

#endif
