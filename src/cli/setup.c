/* TEST parameter setup for the command line: a recorded circuit into bellperson's .params and
 * .vk files (`cuzk setup`), and the Filecoin circuits' setup under the file names
 * rust-fil-proofs looks for (`cuzk setup --kind`). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/setup.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/gpu/gpu.h"

static unsigned log2_ceil(uint64_t m)
{
    unsigned k = 0;
    while (((uint64_t)1 << k) < m) k++;
    return k;
}

static void setup_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    double *last = ctx, t = cuzk_now();
    if (t - last[0] < 2.0 && done < total) return; /* at most one line every 2 s */
    last[0] = t;
    fprintf(stderr, "setup: %5.1f%% (%s) %.1f s\n", 100.0 * (double)done / (double)(total ? total : 1),
            phase, t - last[1]);
}

const char cli_test_params_banner[] =
    "**********************************************************************\n"
    "* TEST PARAMETERS. The toxic waste was drawn on this machine and only *\n"
    "* wiped from memory: whoever could read it can forge proofs. Never a  *\n"
    "* substitute for a multi-party ceremony (Filecoin's parameter files). *\n"
    "**********************************************************************\n";

int cli_setup_write(cuzk_cs *cs, const char *params_path, const char *vk_path, const char *meta_path,
                    const char *meta_json, unsigned threads, const cuzk_groth16_fixed_base *fb, double t0)
{
    double t1 = cuzk_now();
    printf("setup: recorded %zu constraints, %zu inputs, %zu aux, domain 2^%u in %.2f s\n", cs->num_constraints,
           cs->num_inputs, cs->num_aux, log2_ceil(cs->num_constraints), t1 - t0);
    cuzk_rng rng;
    if (cuzk_rng_seed_os(&rng)) return cli_errorf("no OS entropy for the toxic waste"), cuzk_cs_free(cs), 1;
    cuzk_groth16_params p;
    double last[2] = {t1, t1};
    int rc = cuzk_groth16_setup_with(&p, (const cuzk_recording_cs *)cs, &rng, threads, setup_progress, last, fb);
    if (rc && fb) cli_errorf("GPU: %s", cuzk_gpu_worker_error((cuzk_gpu_worker *)fb->ctx));
    memset(&rng, 0, sizeof rng);
    cuzk_cs_free(cs);
    if (rc) return cli_errorf("setup failed: %s", cuzk_strerror(rc)), 1;
    double t2 = cuzk_now();
    printf("setup: parameters (h %zu, l %zu, a %zu, b %zu) in %.2f s\n", p.n_h, p.n_l, p.n_a, p.n_b_g1, t2 - t1);

    cuzk_groth16_error err;
    rc = cuzk_groth16_params_write_file(&p, params_path, &err);
    if (!rc) rc = cuzk_groth16_vk_write_file(&p.vk, vk_path, &err);
    if (rc) cli_errorf("%s", err.msg);
    if (!rc && meta_path) rc = cli_write_file(meta_path, (const uint8_t *)meta_json, strlen(meta_json));
    double t3 = cuzk_now();
    if (!rc) {
        printf("setup: wrote %s (%zu bytes) and %s (%zu bytes)%s%s in %.2f s\n", params_path,
               cuzk_groth16_params_serialized_size(&p), vk_path, cuzk_groth16_vk_serialized_size(&p.vk),
               meta_path ? " and " : "", meta_path ? meta_path : "", t3 - t2);
        printf("setup: total %.2f s. These are TEST parameters, not a ceremony.\n", t3 - t0);
    }
    cuzk_groth16_params_free(&p);
    return rc ? 1 : 0;
}

int cli_setup_filecoin(const cli_fil_setup *o, unsigned threads, const cuzk_groth16_fixed_base *fb)
{
    cuzk_fil_circuit c;
    if (cuzk_fil_circuit_parse(o->kind, &c))
        return cli_errorf("--kind: unknown '%s' (porep, window-post, winning-post, snap, snap-poseidon)", o->kind), 2;
    uint64_t id = o->proof, size = o->sector_size;
    if (o->have_proof) {
        uint64_t ps = cuzk_fil_circuit_proof_sector_size(c, id);
        if (!ps) return cli_errorf("--registered-proof: %llu is not a %s proof", (unsigned long long)id, o->kind), 2;
        if (size && size != ps)
            return cli_errorf("--sector-size %llu differs from registered proof %llu's %llu bytes",
                              (unsigned long long)size, (unsigned long long)id, (unsigned long long)ps), 2;
        size = ps;
    } else if (!size) {
        return cli_errorf("--kind needs --sector-size or --registered-proof"), 2;
    } else if (cuzk_fil_circuit_default_proof(c, size, &id)) {
        return cli_errorf("--sector-size: no registered %s proof has %llu-byte sectors", o->kind,
                          (unsigned long long)size), 2;
    }
    const char *dir = o->out ? o->out : ".";
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) return cli_errorf("%s: cannot create: %m", dir), 1;
    cuzk_fil_param_files pf;
    if (cuzk_fil_param_files_for(&pf, c, id, dir)) return cli_errorf("%s: path too long", dir), 1;
    char meta[64];
    cuzk_fil_param_meta_json(meta, sizeof meta, size);
    fputs(cli_test_params_banner, stderr);
    printf("setup: %s, %llu-byte sectors (registered proof %llu), %u threads: TEST parameters under the\n"
           "       Filecoin name v28-%s\n",
           o->kind, (unsigned long long)size, (unsigned long long)id, threads, pf.cache_id);

    double t0 = cuzk_now();
    cuzk_cs *cs = cuzk_cs_new(CUZK_CS_RECORDING);
    if (!cs) return cli_errorf("out of memory"), 1;
    int rc = cuzk_cs_alloc_one(cs);
    if (!rc) rc = cuzk_fil_circuit_blank(cs, c, size, threads);
    if (!rc) rc = cuzk_cs_error(cs);
    if (!rc) rc = cuzk_cs_finalize(cs);
    if (rc) {
        cuzk_cs_free(cs);
        return cli_errorf("synthesis of the blank %s circuit failed: %s", o->kind, cuzk_strerror(rc)), 1;
    }
    return cli_setup_write(cs, pf.params, pf.vk, pf.meta, meta, threads, fb, t0);
}
