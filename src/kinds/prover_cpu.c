/*
 * The CPU prover: cuzk_groth16_prove_assignment on the host, no device
 * state. The engine proves on it when no GPU can be opened, and behind the
 * GPUs when every one has failed (cpu_fallback); cuzk_engine_create supplies
 * it in both places, as cuzk_engine_start takes a prover from its caller.
 */
#include <stdint.h>
#include <string.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/util/error.h"

static int cpu_prove(void *ctx, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                     const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                     cuzk_engine_prove_report *rep)
{
    unsigned threads = (unsigned)(uintptr_t)ctx;
    for (size_t i = 0; i < n; i++) {
        int err = cuzk_groth16_prove_assignment(&out[i], set->params, &as[i], &r[i], &s[i], threads, &rep->timing);
        if (err != CUZK_OK) return err;
    }
    rep->timed = true;
    return CUZK_OK;
}

void cuzk_engine_cpu_prover(cuzk_engine_prover *out, unsigned threads)
{
    memset(out, 0, sizeof *out);
    out->name = "cpu";
    out->devices = 1;
    out->prove = cpu_prove;
    out->ctx = (void *)(uintptr_t)(threads ? threads : 1);
}

int cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg)
{
    cuzk_engine_config c = cfg ? *cfg : (cuzk_engine_config){0};
    cuzk_engine_prover cpu, fallback; /* copied by the engine */
    if (!c.prover) {
        /* one device (its workers share the CPUs), unless the configuration counts more */
        cuzk_engine_cpu_prover(&cpu, cuzk_engine_prove_threads(&c, c.num_devices ? c.num_devices : 1));
        c.prover = &cpu;
        if (c.pin == CUZK_PIN_AUTO) c.pin = CUZK_PIN_OFF; /* nothing uploads the parameters */
    } else if (c.cpu_fallback) {
        /* one device of as many workers as one of the prover's */
        cuzk_engine_cpu_prover(&fallback, cuzk_engine_prove_threads(&c, 1));
        c.fallback = &fallback;
    }
    return cuzk_engine_start(out, &c);
}
