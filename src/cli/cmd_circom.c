/*
 * cuzk circom prove|verify|export-vk|check: circom circuits with snarkjs's
 * files (zkey, wtns, proof.json, public.json, verification_key.json).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/groth16_verify.h"

static const char usage_text[] =
    "usage: cuzk circom <subcommand> [options]\n\n"
    "  prove     --zkey C.zkey --wtns W.wtns --proof proof.json --public public.json\n"
    "            [--device cpu|gpu] [--threads N] [--trusted]\n"
    "            a Groth16 proof as snarkjs's `groth16 prove` makes it (fresh random r, s);\n"
    "            --trusted skips the subgroup checks of the zkey's query points\n"
    "  verify    --vk verification_key.json --public public.json --proof proof.json\n"
    "            prints OK and exits 0 when the proof is valid; exits 1 with the reason otherwise\n"
    "  export-vk --zkey C.zkey --out verification_key.json\n"
    "            the verification key as snarkjs's `zkey export verificationkey` writes it\n"
    "  check     --r1cs C.r1cs --wtns W.wtns\n"
    "            whether the witness satisfies the constraints (names the first failing one)\n\n"
    "Files must be for BLS12-381 (circom -p bls12381, snarkjs with a bls12381 ptau).\n"
    "Threads: --threads, else CUZK_THREADS, else all CPUs.\n";

typedef struct {
    const char *zkey, *wtns, *proof, *pub, *vk, *out, *r1cs, *device;
    unsigned threads;
    bool trusted;
} opts;

static int parse_opts(opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->threads = cli_default_threads();
    o->device = "cpu";
    struct { const char *name; const char **dst; } str[] = {
        {"--zkey", &o->zkey}, {"--wtns", &o->wtns}, {"--proof", &o->proof}, {"--public", &o->pub},
        {"--vk", &o->vk},     {"--out", &o->out},   {"--r1cs", &o->r1cs},   {"--device", &o->device}};
    for (int i = 2; i < argc; i++) {
        bool done = false;
        for (size_t k = 0; k < sizeof str / sizeof str[0] && !done; k++)
            if (!strcmp(argv[i], str[k].name)) {
                if (i + 1 >= argc) {
                    cli_errorf("circom: %s needs a value", argv[i]);
                    return 2;
                }
                *str[k].dst = argv[++i];
                done = true;
            }
        if (done) continue;
        if (!strcmp(argv[i], "--trusted")) {
            o->trusted = true;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            uint64_t v;
            if (!cli_parse_u64(argv[++i], &v) || v == 0 || v > 4096) {
                cli_errorf("circom: bad --threads '%s'", argv[i]);
                return 2;
            }
            o->threads = (unsigned)v;
        } else {
            cli_errorf("circom: unknown option '%s' (cuzk circom --help)", argv[i]);
            return 2;
        }
    }
    return 0;
}

static bool need(const char *v, const char *name)
{
    if (v) return true;
    cli_errorf("circom: %s is required (cuzk circom --help)", name);
    return false;
}

static bool spit(const char *path, const char *text)
{
    FILE *f = text ? fopen(path, "wb") : NULL;
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f)) ok = false;
    if (!ok) cli_errorf("circom: cannot write %s%s", path, text ? "" : " (out of memory)");
    return ok;
}

static int report(const char *path, const cuzk_circom_error *e)
{
    cli_errorf("%s: %s", path, e->msg);
    return 1;
}

static int do_prove(const opts *o)
{
    if (!need(o->zkey, "--zkey") || !need(o->wtns, "--wtns") || !need(o->proof, "--proof") ||
        !need(o->pub, "--public"))
        return 2;
    cuzk_circom_device dev;
    if (!strcmp(o->device, "cpu")) dev = CUZK_CIRCOM_CPU;
    else if (!strcmp(o->device, "gpu")) dev = CUZK_CIRCOM_GPU;
    else {
        cli_errorf("circom: --device must be cpu or gpu");
        return 2;
    }
    cuzk_gpu_device *gd;
    cuzk_gpu_worker *gw;
    /* the device first: say it is missing before reading a large zkey */
    if (cli_gpu_open("circom prove", o->device, &gd, &gw)) return 1;
    cuzk_circom_error e;
    cuzk_circom_zkey z;
    cuzk_circom_wtns w;
    double t0 = cuzk_now();
    if (cuzk_circom_zkey_read_file(&z, o->zkey, o->trusted ? CUZK_CIRCOM_TRUSTED : CUZK_CIRCOM_VALIDATE,
                                   o->threads, &e)) {
        cli_gpu_close(gd, gw);
        return report(o->zkey, &e);
    }
    double t_zkey = cuzk_now() - t0;
    t0 = cuzk_now();
    if (cuzk_circom_wtns_read_file(&w, o->wtns, &e)) {
        cuzk_circom_zkey_free(&z);
        cli_gpu_close(gd, gw);
        return report(o->wtns, &e);
    }
    double t_wtns = cuzk_now() - t0;
    int ret = 1;
    cuzk_groth16_proof proof;
    cuzk_circom_prove_timing tm;
    char threads_s[32];
    snprintf(threads_s, sizeof threads_s, "%u threads", o->threads);
    int rc;
    if (gw) {
        cuzk_fr rs[2];
        rc = cuzk_circom_random_rs(&rs[0], &rs[1]);
        if (!rc) rc = cuzk_circom_prove_gpu(gw, &proof, &z, &w, &rs[0], &rs[1], &tm);
        memset(rs, 0, sizeof rs);
        if (rc && rc != CUZK_ERR_INVALID_ARG && *cuzk_gpu_worker_error(gw))
            cli_errorf("circom prove: %s", cuzk_gpu_worker_error(gw));
    } else {
        rc = cuzk_circom_prove(&proof, &z, &w, dev, o->threads, &tm);
    }
    if (rc == CUZK_ERR_INVALID_ARG) {
        if (w.n != z.n_vars)
            cli_errorf("circom prove: the witness has %zu values, the zkey %u variables", w.n, z.n_vars);
        else
            cli_errorf("circom prove: witness value 0 (the ONE wire) is not 1");
    } else if (rc) {
        cli_errorf("circom prove: %s", cuzk_strerror(rc));
    } else {
        char *pj = cuzk_circom_proof_to_json(&proof);
        char *pub = cuzk_circom_public_to_json(w.values + 1, z.n_public);
        if (spit(o->proof, pj) && spit(o->pub, pub)) ret = 0;
        free(pj), free(pub);
        fprintf(stderr,
                "cuzk circom prove: %u constraints (domain 2^%u), %u variables, %s\n"
                "  read zkey %.3f s, wtns %.3f s; prove %.3f s: abc %.3f, ntt %.3f, msm %.3f",
                z.domain_size, z.log_n, z.n_vars, gd ? cuzk_gpu_device_describe(gd) : threads_s, t_zkey, t_wtns, tm.total_s, tm.abc_s, tm.ntt_s,
                tm.msm_s);
        if (gd) /* the CPU runs the five MSMs as one task list: no time per MSM */
            fprintf(stderr, " (A %.3f, B1 %.3f, B2 %.3f, C %.3f, H %.3f)", tm.msm_a_s, tm.msm_b_g1_s,
                    tm.msm_b_g2_s, tm.msm_c_s, tm.msm_h_s);
        fprintf(stderr, "\n");
    }
    cli_gpu_close(gd, gw);
    cuzk_circom_wtns_free(&w);
    cuzk_circom_zkey_free(&z);
    return ret;
}

static int do_verify(const opts *o)
{
    if (!need(o->vk, "--vk") || !need(o->pub, "--public") || !need(o->proof, "--proof")) return 2;
    size_t lv, lp, lq;
    char *bv = (char *)cli_read_file("circom", o->vk, &lv);
    char *bp = bv ? (char *)cli_read_file("circom", o->pub, &lp) : NULL;
    char *bq = bp ? (char *)cli_read_file("circom", o->proof, &lq) : NULL;
    int ret = 1;
    cuzk_circom_error e;
    cuzk_groth16_vk vk = {0};
    cuzk_groth16_pvk pvk = {0};
    cuzk_groth16_proof proof;
    cuzk_fr *in = NULL;
    size_t n = 0;
    if (!bq) goto out;
    if (cuzk_circom_vk_read_json(&vk, bv, lv, &e)) {
        report(o->vk, &e);
        goto out;
    }
    if (cuzk_circom_public_read_json(&in, &n, bp, lp, &e)) {
        report(o->pub, &e);
        goto out;
    }
    if (cuzk_circom_proof_read_json(&proof, bq, lq, &e)) {
        report(o->proof, &e);
        goto out;
    }
    if (n + 1 != vk.n_ic) {
        cli_errorf("circom verify: %zu public signals, the verification key expects %zu", n, vk.n_ic - 1);
        goto out;
    }
    int rc = cuzk_groth16_prepare_vk(&pvk, &vk);
    if (!rc) rc = cuzk_groth16_verify(&pvk, &proof, in, n);
    if (rc == CUZK_OK) {
        printf("OK\n");
        ret = 0;
    } else {
        cli_errorf("circom verify: %s", rc == CUZK_ERR_VERIFY_FAILED
                                            ? "invalid proof (the pairing check failed)"
                                            : cuzk_strerror(rc));
    }
out:
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_vk_free(&vk);
    free(in), free(bv), free(bp), free(bq);
    return ret;
}

static int do_export_vk(const opts *o)
{
    if (!need(o->zkey, "--zkey") || !need(o->out, "--out")) return 2;
    cuzk_circom_error e;
    cuzk_circom_zkey z;
    if (cuzk_circom_zkey_read_file(&z, o->zkey, o->trusted ? CUZK_CIRCOM_TRUSTED : CUZK_CIRCOM_VALIDATE,
                                   o->threads, &e))
        return report(o->zkey, &e);
    cuzk_groth16_vk vk;
    int ret = 1;
    if (cuzk_circom_zkey_vk(&vk, &z)) {
        cli_errorf("circom export-vk: out of memory");
    } else {
        char *j = cuzk_circom_vk_to_json(&vk);
        if (spit(o->out, j)) ret = 0;
        free(j);
        cuzk_groth16_vk_free(&vk);
    }
    cuzk_circom_zkey_free(&z);
    return ret;
}

static int do_check(const opts *o)
{
    if (!need(o->r1cs, "--r1cs") || !need(o->wtns, "--wtns")) return 2;
    cuzk_circom_error e;
    cuzk_circom_r1cs r;
    cuzk_circom_wtns w;
    if (cuzk_circom_r1cs_read_file(&r, o->r1cs, &e)) return report(o->r1cs, &e);
    if (cuzk_circom_wtns_read_file(&w, o->wtns, &e)) {
        cuzk_circom_r1cs_free(&r);
        return report(o->wtns, &e);
    }
    size_t first, nbad;
    int rc = cuzk_circom_check(&r, &w, &first, &nbad, &e);
    if (rc == CUZK_OK)
        printf("OK: the witness satisfies all %u constraints\n", r.n_constraints);
    else
        cli_errorf("circom check: %s", e.msg);
    cuzk_circom_wtns_free(&w);
    cuzk_circom_r1cs_free(&r);
    return rc ? 1 : 0;
}

int cmd_circom(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return 0;
        }
    opts o;
    int rc = parse_opts(&o, argc, argv);
    if (rc) return rc;
    const char *sub = argv[1];
    if (!strcmp(sub, "prove")) return do_prove(&o);
    if (!strcmp(sub, "verify")) return do_verify(&o);
    if (!strcmp(sub, "export-vk")) return do_export_vk(&o);
    if (!strcmp(sub, "check")) return do_check(&o);
    cli_errorf("circom: unknown subcommand '%s' (cuzk circom --help)", sub);
    return 2;
}
