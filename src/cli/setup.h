/* TEST parameter setup shared by `cuzk setup`'s two forms (setup.c). */
#ifndef CUZK_CLI_SETUP_H
#define CUZK_CLI_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/groth16/groth16.h"

/* Printed on stderr before every setup. */
extern const char cli_test_params_banner[];

/* Setup of a recorded circuit (freed here; t0: when its recording began, for the times
 * printed), then .params, .vk and, with meta_path, .meta holding meta_json. fb: the query
 * points' fixed-base multiplications on a GPU, or NULL for the CPU. Returns the exit code. */
int cli_setup_write(cuzk_cs *cs, const char *params_path, const char *vk_path, const char *meta_path,
                    const char *meta_json, unsigned threads, const cuzk_groth16_fixed_base *fb, double t0);

/* Options of `cuzk setup --kind`: a Filecoin circuit under its rust-fil-proofs file names. */
typedef struct cli_fil_setup {
    const char *kind, *out;
    uint64_t sector_size, proof;
    bool have_proof;
} cli_fil_setup;

/* The blank circuit of one partition, recorded and set up into out; 2 on a usage error. */
int cli_setup_filecoin(const cli_fil_setup *o, unsigned threads, const cuzk_groth16_fixed_base *fb);

#endif
