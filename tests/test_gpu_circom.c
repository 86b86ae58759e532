/* GPU circom prover (cuzk_circom_prove_gpu) against the CPU one:
 *   - synthetic zkeys (tests/circom_synth.h: random points, so no proof
 *     verifies) at domains 2^1..2^12: the GPU proof equals the CPU proof byte
 *     for byte for the same r, s; a second call (zkey resident) too, and
 *     with a changed witness value; size errors are refused; a zkey freed
 *     and another built at the same address is not mistaken for it;
 *   - real keys, when $CUZK_CIRCOM_FIXTURES names a directory of NAME.zkey +
 *     NAME.wtns pairs made by snarkjs (scripts/gpu_circom_fixtures.sh):
 *     GPU == CPU bytes, the proof verifies under the zkey's key with cuzk's
 *     verifier, a tampered proof and a tampered public input are rejected.
 *     With $CUZK_CIRCOM_OUT set, NAME.gpu.proof.json and NAME.gpu.public.json
 *     are written there for snarkjs to verify on another machine.
 * Without a CUDA device: "SKIPPED: no CUDA device" (CTest: Skipped). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "circom_synth.h"
#include "cuzk/circom/circom.h"
#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "gpu_hooks_env.h"
#include "testutil.h"

static cuzk_rng rng;

static bool proof_eq(const cuzk_groth16_proof *a, const cuzk_groth16_proof *b)
{
    return cuzk_g1_affine_eq(&a->a, &b->a) && cuzk_g2_affine_eq(&a->b, &b->b) &&
           cuzk_g1_affine_eq(&a->c, &b->c);
}

/* GPU and CPU proofs for the same fresh r, s; true when both succeed and agree. */
static bool prove_both(cuzk_gpu_worker *gw, cuzk_groth16_proof *gp, const cuzk_circom_zkey *z,
                       const cuzk_circom_wtns *w, const char *what)
{
    cuzk_fr r, s;
    cuzk_fr_random(&r, &rng), cuzk_fr_random(&s, &rng);
    cuzk_groth16_proof cp;
    cuzk_circom_prove_timing tm;
    int rc = cuzk_circom_prove_gpu(gw, gp, z, w, &r, &s, &tm);
    CHECK_MSG(rc == CUZK_OK, "%s: gpu prove %d: %s", what, rc, cuzk_gpu_worker_error(gw));
    int rc2 = cuzk_circom_prove_rs(&cp, z, w, &r, &s, CUZK_CIRCOM_CPU, 2, NULL);
    CHECK_MSG(rc2 == CUZK_OK, "%s: cpu prove %d", what, rc2);
    bool eq = rc == CUZK_OK && rc2 == CUZK_OK && proof_eq(gp, &cp);
    CHECK_MSG(eq, "%s: GPU proof differs from the CPU proof", what);
    printf("  %-16s domain 2^%-2u gpu %.4f s (ntt %.4f, msm H %.4f C %.4f A %.4f B1 %.4f B2 %.4f)%s\n", what,
           z->log_n, tm.total_s, tm.ntt_s, tm.msm_h_s, tm.msm_c_s, tm.msm_a_s, tm.msm_b_g1_s, tm.msm_b_g2_s,
           eq ? "" : "  MISMATCH");
    return eq;
}

static void synthetic(cuzk_gpu_device *dev, cuzk_gpu_worker *gw)
{
    const unsigned logs[] = {1, 2, 5, 9, 12};
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        cuzk_circom_zkey z;
        cuzk_circom_wtns w;
        const uint32_t npub = logs[i] == 1 ? 0 : 1 + (uint32_t)(cuzk_rng_u64(&rng) % 3);
        synth_circom(&z, &w, logs[i], npub, &rng);
        char what[32];
        snprintf(what, sizeof what, "synthetic 2^%u", logs[i]);
        cuzk_groth16_proof p1, p2;
        prove_both(gw, &p1, &z, &w, what);
        prove_both(gw, &p2, &z, &w, "  (resident)");
        /* another private value (fresh, < r): the two provers still agree */
        uint64_t save[4];
        memcpy(save, w.values[w.n - 1], sizeof save);
        cuzk_fr v;
        cuzk_fr_random(&v, &rng);
        cuzk_fr_to_limbs(w.values[w.n - 1], &v);
        prove_both(gw, &p2, &z, &w, "  (changed)");
        memcpy(w.values[w.n - 1], save, sizeof save);
        /* refused: witness length, ONE wire != 1 */
        cuzk_fr r, s;
        cuzk_fr_random(&r, &rng), cuzk_fr_random(&s, &rng);
        w.n--;
        CHECK(cuzk_circom_prove_gpu(gw, &p2, &z, &w, &r, &s, NULL) == CUZK_ERR_INVALID_ARG);
        w.n++;
        w.values[0][0] = 2;
        CHECK(cuzk_circom_prove_gpu(gw, &p2, &z, &w, &r, &s, NULL) == CUZK_ERR_INVALID_ARG);
        w.values[0][0] = 1;
        cuzk_gpu_device_release(dev, z.key);
        cuzk_circom_zkey_free(&z);
        cuzk_circom_wtns_free(&w);
    }
}

/* Two different zkeys built in turn in one struct, the first never
 * released: the second is a new zkey under a new key, proved as itself;
 * rebuilt under the first's key (other sizes and arrays than the device's
 * copy), refused, the device's copy never taken for it. */
static void same_address(cuzk_gpu_device *dev, cuzk_gpu_worker *gw)
{
    cuzk_circom_zkey z;
    cuzk_circom_wtns w;
    cuzk_groth16_proof p;
    synth_circom(&z, &w, 3, 1, &rng);
    const uint64_t first = z.key;
    prove_both(gw, &p, &z, &w, "reused addr 1");
    cuzk_circom_zkey_free(&z);
    cuzk_circom_wtns_free(&w);
    synth_circom(&z, &w, 6, 2, &rng);
    CHECK(z.key != first);
    prove_both(gw, &p, &z, &w, "reused addr 2");
    const uint64_t second = z.key;
    cuzk_circom_zkey_free(&z);
    cuzk_circom_wtns_free(&w);
    synth_circom(&z, &w, 5, 1, &rng);
    z.key = first;
    cuzk_fr r, s;
    cuzk_fr_random(&r, &rng), cuzk_fr_random(&s, &rng);
    int rc = cuzk_circom_prove_gpu(gw, &p, &z, &w, &r, &s, NULL);
    CHECK_MSG(rc == CUZK_ERR_INVALID_ARG && strstr(cuzk_gpu_worker_error(gw), "other"),
              "other arrays under a key in use: %d %s", rc, cuzk_gpu_worker_error(gw));
    cuzk_gpu_device_release(dev, first), cuzk_gpu_device_release(dev, second);
    prove_both(gw, &p, &z, &w, "key released, reused"); /* nothing under it now: uploaded anew */
    cuzk_gpu_device_release(dev, first);
    cuzk_circom_zkey_free(&z);
    cuzk_circom_wtns_free(&w);
}

static int verify(const cuzk_circom_zkey *z, const cuzk_groth16_proof *p, const cuzk_circom_wtns *w,
                  int tamper_input)
{
    cuzk_groth16_vk vk;
    cuzk_groth16_pvk pvk;
    if (cuzk_circom_zkey_vk(&vk, z) || cuzk_groth16_prepare_vk(&pvk, &vk)) return -1;
    cuzk_fr *in = malloc((z->n_public + 1) * sizeof *in);
    for (uint32_t i = 0; i < z->n_public; i++) cuzk_fr_from_limbs(&in[i], w->values[1 + i]);
    if (tamper_input && z->n_public) cuzk_fr_add(&in[0], &in[0], &cuzk_fr_one);
    int rc = cuzk_groth16_verify(&pvk, p, in, z->n_public);
    free(in);
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_vk_free(&vk);
    return rc;
}

static void write_json(const char *dir, const char *name, const char *kind, char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.gpu.%s.json", dir, name, kind);
    FILE *f = fopen(path, "w");
    CHECK_MSG(f && text && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
    free(text);
}

static void fixtures(cuzk_gpu_device *dev, cuzk_gpu_worker *gw, const char *dir)
{
    DIR *d = opendir(dir);
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d) return;
    const char *out = getenv("CUZK_CIRCOM_OUT");
    int seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".zkey")) continue;
        char name[256], path[1024];
        snprintf(name, sizeof name, "%.*s", (int)(l - 5), e->d_name);
        cuzk_circom_zkey z;
        cuzk_circom_wtns w;
        cuzk_circom_error err;
        snprintf(path, sizeof path, "%s/%s.zkey", dir, name);
        int rc = cuzk_circom_zkey_read_file(&z, path, CUZK_CIRCOM_VALIDATE, 4, &err);
        CHECK_MSG(rc == CUZK_OK, "%s: %s", path, err.msg);
        if (rc) continue;
        snprintf(path, sizeof path, "%s/%s.wtns", dir, name);
        rc = cuzk_circom_wtns_read_file(&w, path, &err);
        CHECK_MSG(rc == CUZK_OK, "%s: %s", path, err.msg);
        if (rc) {
            cuzk_circom_zkey_free(&z);
            continue;
        }
        seen++;
        cuzk_groth16_proof p;
        if (prove_both(gw, &p, &z, &w, name)) {
            CHECK_MSG(verify(&z, &p, &w, 0) == CUZK_OK, "%s: the GPU proof does not verify", name);
            CHECK_MSG(verify(&z, &p, &w, 1) == CUZK_ERR_VERIFY_FAILED || z.n_public == 0,
                      "%s: accepted with a tampered public input", name);
            cuzk_groth16_proof bad = p;
            cuzk_g1_affine_neg(&bad.c, &bad.c);
            CHECK_MSG(verify(&z, &bad, &w, 0) == CUZK_ERR_VERIFY_FAILED, "%s: accepted a tampered proof", name);
            if (out) {
                write_json(out, name, "proof", cuzk_circom_proof_to_json(&p));
                write_json(out, name, "public", cuzk_circom_public_to_json(w.values + 1, z.n_public));
            }
        }
        cuzk_gpu_device_release(dev, z.key);
        cuzk_circom_zkey_free(&z);
        cuzk_circom_wtns_free(&w);
    }
    closedir(d);
    CHECK_MSG(seen > 0, "no NAME.zkey + NAME.wtns in %s", dir);
    printf("  %d snarkjs fixtures\n", seen);
}

int main(void)
{
    tu_init(&rng, "test_gpu_circom");
    gpu_hooks_from_env();
    int count = 0;
    if (cuzk_gpu_device_count(&count) != CUZK_OK || count == 0) {
        return tu_skip("test_gpu_circom", "no CUDA device");
    }
    char msg[256];
    cuzk_gpu_device *dev;
    int rc = cuzk_gpu_device_open(&dev, 0, msg, sizeof msg);
    CHECK_MSG(rc == CUZK_OK, "open: %s", msg);
    if (rc) return tu_finish("test_gpu_circom");
    cuzk_gpu_worker *gw;
    CHECK(cuzk_gpu_worker_create(&gw, dev) == CUZK_OK);
    printf("device %s\n", cuzk_gpu_device_describe(dev));
    synthetic(dev, gw);
    same_address(dev, gw);
    const char *fx = getenv("CUZK_CIRCOM_FIXTURES");
    if (fx) fixtures(dev, gw, fx);
    else printf("  no $CUZK_CIRCOM_FIXTURES: snarkjs keys not tried\n");
    cuzk_gpu_worker_destroy(gw);
    cuzk_gpu_device_close(dev);
    return tu_finish("test_gpu_circom");
}
