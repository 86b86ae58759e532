/*
 * Filecoin parameter files (cuzk/filecoin/fil_params.h): file names and paths for
 * every circuit and registered proof (cross-checked against the embedded
 * parameters.json, an independent source of the names), the default
 * param_cache, .meta bytes, the parameters.json parser (and its refusals,
 * each naming the field), digests against python3's hashlib (an independent
 * Blake2b), a flipped byte changing the digest, a .vk's bytes judged by the
 * digest parameters.json lists for its name, and test parameters of the
 * blank 2 KiB Window PoSt circuit written under their Filecoin names that
 * load and match the circuit's counts. CUZK_PARAMS_LONG=1 adds the other
 * 2 KiB kinds (PoRep takes minutes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/groth16/groth16.h"
#include "testutil.h"

static char tmpdir[256];

static void test_names(void)
{
    cuzk_fil_manifest m;
    char err[300];
    CHECK_MSG(cuzk_fil_manifest_builtin(&m, err, sizeof err) == 0, "builtin: %s", err);
    size_t nparams = 0;
    for (size_t i = 0; i < m.n; i++) nparams += strstr(m.e[i].name, ".params") != NULL;
    CHECK_MSG(m.n == 44 && nparams == 22, "builtin manifest: %zu entries, %zu .params", m.n, nparams);
    /* every published file is named by some (circuit, registered proof), with the manifest's sector
     * size; every registered proof's name is published except the small Poseidon updates */
    size_t named = 0;
    for (int c = 0; c < CUZK_FIL_CIRCUIT_COUNT; c++)
        for (uint64_t id = 0; id < 20; id++) {
            cuzk_fil_param_files f;
            if (cuzk_fil_param_files_for(&f, (cuzk_fil_circuit)c, id, "/pc/") != CUZK_OK) continue;
            named++;
            char want[300];
            snprintf(want, sizeof want, "/pc/v28-%s.params", f.cache_id);
            CHECK_MSG(!strcmp(f.params, want), "%s", f.params);
            CHECK(strstr(f.vk, ".vk") && strstr(f.meta, ".meta") && !strncmp(f.meta, "/pc/v28-", 8));
            const cuzk_fil_manifest_entry *e = cuzk_fil_manifest_find(&m, f.params + 4);
            const cuzk_fil_manifest_entry *v = cuzk_fil_manifest_find(&m, f.vk + 4);
            bool published = !(c == CUZK_FIL_CIRCUIT_SNAP_POSEIDON && f.sector_size < (32ull << 30));
            CHECK_MSG((e != NULL) == published && (v != NULL) == published, "%s %llu: %s",
                      cuzk_fil_circuit_name((cuzk_fil_circuit)c), (unsigned long long)id, f.params);
            if (e) CHECK(e->sector_size == f.sector_size && v->sector_size == f.sector_size);
        }
    CHECK(named == 20 + 5 + 10 + 5 + 5);
    /* ids of another family are refused */
    cuzk_fil_param_files f;
    CHECK(cuzk_fil_param_files_for(&f, CUZK_FIL_CIRCUIT_WINDOW_POST, 0, NULL) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_fil_param_files_for(&f, CUZK_FIL_CIRCUIT_WINNING_POST, 5, NULL) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_fil_param_files_for(&f, CUZK_FIL_CIRCUIT_POREP, 20, NULL) == CUZK_ERR_INVALID_ARG);
    /* the 2 KiB defaults, and the name the issue quotes */
    uint64_t id;
    CHECK(cuzk_fil_circuit_default_proof(CUZK_FIL_CIRCUIT_POREP, 2048, &id) == 0 && id == 5);
    CHECK(cuzk_fil_param_files_for(&f, CUZK_FIL_CIRCUIT_POREP, id, "d") == CUZK_OK);
    CHECK(!strcmp(f.params, "d/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                            "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params"));
    CHECK(cuzk_fil_circuit_default_proof(CUZK_FIL_CIRCUIT_POREP, 4096, &id) == -1);
    CHECK(cuzk_fil_circuit_default_proof(CUZK_FIL_CIRCUIT_WINDOW_POST, 2048, &id) == 0 && id == 10);
    CHECK(cuzk_fil_circuit_default_proof(CUZK_FIL_CIRCUIT_WINNING_POST, 32ull << 30, &id) == 0 && id == 3);
    cuzk_fil_circuit c;
    CHECK(cuzk_fil_circuit_parse("snap-poseidon", &c) == 0 && c == CUZK_FIL_CIRCUIT_SNAP_POSEIDON);
    CHECK(cuzk_fil_circuit_parse("update", &c) == -1);
    cuzk_fil_manifest_free(&m);

    /* the directory is the caller's (the library reads no environment), a
     * trailing '/' as rust-fil-proofs' default has it dropped; none is refused */
    CHECK(cuzk_fil_param_files_for(&f, CUZK_FIL_CIRCUIT_SNAP, 0, CUZK_FIL_PARAM_CACHE_DEFAULT "/") == CUZK_OK &&
          !strncmp(f.params, "/var/tmp/filecoin-proof-parameters/v28-empty-sector-update-", 59));
    CHECK(cuzk_fil_param_files_for(&f, CUZK_FIL_CIRCUIT_SNAP, 0, "/srv/p//") == CUZK_OK && !strncmp(f.params, "/srv/p/v28-", 11));
    CHECK(cuzk_fil_param_files_for(&f, CUZK_FIL_CIRCUIT_SNAP, 0, NULL) == CUZK_ERR_INVALID_ARG);
}

static void expect_manifest_error(const char *json, const char *want)
{
    cuzk_fil_manifest m;
    char err[300] = "";
    int rc = cuzk_fil_manifest_parse(&m, json, strlen(json), err, sizeof err);
    CHECK_MSG(rc == -1 && m.n == 0 && strstr(err, want), "<<%s>>: rc %d err '%s', wanted '%s'", json, rc, err, want);
}

static void test_meta_and_manifest(void)
{
    char b[64];
    CHECK(cuzk_fil_param_meta_json(b, sizeof b, 2048) == 20 && !strcmp(b, "{\"sector_size\":2048}"));
    char small[10];
    CHECK(cuzk_fil_param_meta_json(small, sizeof small, 2048) == 0);
    uint64_t ss = 0;
    char err[300];
    CHECK(cuzk_fil_param_meta_parse(b, strlen(b), &ss, err, sizeof err) == 0 && ss == 2048);
    const char *bad_meta[][2] = {{"[]", "expected an object"},
                                 {"{}", "sector_size: missing"},
                                 {"{\"sector_size\":-1}", "sector_size: expected"},
                                 {"{\"sector_size\":1.5}", "sector_size: expected"},
                                 {"{\"sector_size\":\"2048\"}", "sector_size: expected"},
                                 {"{\"sector_size\":2048", "line 1"}};
    for (size_t i = 0; i < sizeof bad_meta / sizeof bad_meta[0]; i++) {
        err[0] = 0;
        CHECK_MSG(cuzk_fil_param_meta_parse(bad_meta[i][0], strlen(bad_meta[i][0]), &ss, err, sizeof err) == -1 &&
                      strstr(err, bad_meta[i][1]),
                  "meta <<%s>>: '%s'", bad_meta[i][0], err);
    }

    const char *good = "{\"b.vk\": {\"cid\": \"Qm1\", \"digest\": \"00112233445566778899AABBCCDDEEFF\", "
                       "\"sector_size\": 2048, \"extra\": true}, \"a.params\": {\"cid\": \"Qm2\", "
                       "\"digest\": \"ffffffffffffffffffffffffffffffff\", \"sector_size\": 0}}";
    cuzk_fil_manifest m;
    CHECK(cuzk_fil_manifest_parse(&m, good, strlen(good), err, sizeof err) == 0 && m.n == 2);
    const cuzk_fil_manifest_entry *e = cuzk_fil_manifest_find(&m, "b.vk");
    CHECK(e && !strcmp(e->digest, "00112233445566778899aabbccddeeff") && e->sector_size == 2048 && !strcmp(e->cid, "Qm1"));
    CHECK(cuzk_fil_manifest_find(&m, "a.params") && !cuzk_fil_manifest_find(&m, "c.params"));
    cuzk_fil_manifest_free(&m);

    expect_manifest_error("[1]", "expected an object of file names");
    expect_manifest_error("{\"x\": 1}", "x: expected an object");
    expect_manifest_error("{\"a/b\": {}}", "\"a/b\": not a plain file name");
    expect_manifest_error("{\"..\": {}}", "not a plain file name");
    expect_manifest_error("{\"x\": {\"digest\": \"00112233445566778899aabbccddeeff\", \"sector_size\": 1}}",
                          "x: cid: missing");
    expect_manifest_error("{\"x\": {\"cid\": \"\", \"digest\": \"00112233445566778899aabbccddeeff\", \"sector_size\": 1}}",
                          "x: cid: expected");
    expect_manifest_error("{\"x\": {\"cid\": \"a b\", \"digest\": \"00112233445566778899aabbccddeeff\", \"sector_size\": 1}}",
                          "x: cid: not printable");
    expect_manifest_error("{\"x\": {\"cid\": \"Q\", \"sector_size\": 1}}", "x: digest: missing");
    expect_manifest_error("{\"x\": {\"cid\": \"Q\", \"digest\": \"0011\", \"sector_size\": 1}}", "x: digest: expected 32");
    expect_manifest_error("{\"x\": {\"cid\": \"Q\", \"digest\": \"0011223344556677889gaabbccddeeff\", \"sector_size\": 1}}",
                          "x: digest: not hexadecimal");
    expect_manifest_error("{\"x\": {\"cid\": \"Q\", \"digest\": \"00112233445566778899aabbccddeeff\"}}",
                          "x: sector_size: missing");
    expect_manifest_error("{\"x\": {\"cid\": \"Q\", \"digest\": \"00112233445566778899aabbccddeeff\", \"sector_size\": -2}}",
                          "x: sector_size: expected a non-negative integer");
    expect_manifest_error("{\"x\": {}, \"x\": {}}", "duplicate");
    expect_manifest_error("{\"x\": {\"cid\": \"Q\",", "line 1");
    expect_manifest_error("", "line");
    /* a file that is not there */
    CHECK(cuzk_fil_manifest_load(&m, "/nonexistent/parameters.json", err, sizeof err) == -1 &&
          strstr(err, "/nonexistent/parameters.json"));
}

/* python3's hashlib as the oracle for a file's digest; NULL when python3 is missing. */
static bool python_digest(char out[33], const char *path)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import hashlib,sys; print(hashlib.blake2b(open(sys.argv[1],\"rb\").read()).hexdigest()[:32])' %s",
             path);
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    char line[80] = "";
    bool ok = fgets(line, sizeof line, p) != NULL;
    line[strcspn(line, "\n")] = 0;
    ok = ok && strlen(line) == 32;
    if (ok) memcpy(out, line, 33);
    return pclose(p) == 0 && ok;
}

static void test_digest(cuzk_rng *rng)
{
    char path[300];
    snprintf(path, sizeof path, "%s/blob.params", tmpdir);
    /* over the 4 MiB read chunk, not a multiple of the 128-byte block */
    size_t n = ((size_t)4 << 20) + 1 + (size_t)(cuzk_rng_u64(rng) % 300000);
    uint8_t *buf = malloc(n);
    cuzk_rng_bytes(rng, buf, n);
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    char hex[33], py[33], err[300];
    uint64_t calls = 0;
    CHECK(cuzk_fil_param_digest(hex, path, NULL, NULL, err, sizeof err) == 0 && strlen(hex) == 32);
    if (python_digest(py, path)) CHECK_MSG(!strcmp(hex, py), "digest %s, python %s", hex, py);
    else printf("test_fil_params: python3 missing: digest oracle skipped\n");
    /* one flipped bit anywhere changes it */
    size_t at = (size_t)(cuzk_rng_u64(rng) % n);
    buf[at] ^= (uint8_t)(1u << (cuzk_rng_u64(rng) % 8));
    f = fopen(path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    char hex2[33];
    CHECK(cuzk_fil_param_digest(hex2, path, NULL, NULL, err, sizeof err) == 0 && strcmp(hex, hex2));
    (void)calls;
    CHECK(cuzk_fil_param_digest(hex, "/nonexistent.params", NULL, NULL, err, sizeof err) == -1 &&
          strstr(err, "/nonexistent.params"));
    CHECK(cuzk_fil_param_digest(hex, tmpdir, NULL, NULL, err, sizeof err) == -1); /* a directory */
    unlink(path);
    free(buf);
}

/* Whose .vk: bytes whose digest parameters.json lists under their name are
 * the ceremony's; one flipped bit (a random one), another name, or the
 * embedded v28 manifest for a TEST .vk say no, and the note gives both
 * digests. The in-memory digest is the file digest. */
static void test_listed(cuzk_rng *rng)
{
    size_t n = 700 + (size_t)(cuzk_rng_u64(rng) % 4000);
    uint8_t *vk = malloc(n);
    cuzk_rng_bytes(rng, vk, n);
    char hex[33], fhex[33], note[300], err[300], path[300], json[400];
    cuzk_fil_param_digest_mem(hex, vk, n);
    snprintf(path, sizeof path, "%s/blob.vk", tmpdir);
    FILE *f = fopen(path, "wb");
    fwrite(vk, 1, n, f);
    fclose(f);
    CHECK(cuzk_fil_param_digest(fhex, path, NULL, NULL, err, sizeof err) == 0 && !strcmp(hex, fhex));
    unlink(path);
    snprintf(json, sizeof json, "{\"v28-t.vk\": {\"cid\": \"Q\", \"digest\": \"%s\", \"sector_size\": 2048}}", hex);
    cuzk_fil_manifest m;
    CHECK(cuzk_fil_manifest_parse(&m, json, strlen(json), err, sizeof err) == 0);
    CHECK_MSG(cuzk_fil_param_listed(&m, "v28-t.vk", vk, n, note, sizeof note) && strstr(note, "matches") &&
                  strstr(note, hex),
              "%s", note);
    CHECK(!cuzk_fil_param_listed(&m, "v28-u.vk", vk, n, note, sizeof note) && strstr(note, "not in parameters.json"));
    size_t at = (size_t)(cuzk_rng_u64(rng) % n);
    vk[at] ^= (uint8_t)(1u << (cuzk_rng_u64(rng) % 8));
    cuzk_fil_param_digest_mem(fhex, vk, n);
    snprintf(json, sizeof json, "digest %s, parameters.json lists %s", fhex, hex);
    CHECK_MSG(!cuzk_fil_param_listed(&m, "v28-t.vk", vk, n, note, sizeof note) && !strcmp(note, json),
              "byte %zu flipped: %s", at, note);
    cuzk_fil_manifest_free(&m);
    /* a TEST .vk under a real name of the embedded manifest */
    CHECK(cuzk_fil_manifest_builtin(&m, err, sizeof err) == 0);
    const cuzk_fil_manifest_entry *e = NULL;
    for (size_t i = 0; i < m.n && !e; i++)
        if (strstr(m.e[i].name, ".vk")) e = &m.e[i];
    CHECK(e != NULL);
    if (e)
        CHECK_MSG(!cuzk_fil_param_listed(NULL, e->name, vk, n, note, sizeof note) && strstr(note, e->digest),
                  "%s: %s", e->name, note);
    cuzk_fil_manifest_free(&m);
    free(vk);
}

/* Test parameters of one blank 2 KiB circuit under its Filecoin names: they load, parse, and
 * their sizes are the circuit's. */
static void setup_kind(cuzk_fil_circuit c, cuzk_rng *rng)
{
    const char *name = cuzk_fil_circuit_name(c);
    uint64_t id;
    CHECK(cuzk_fil_circuit_default_proof(c, 2048, &id) == 0);
    cuzk_fil_param_files pf;
    CHECK(cuzk_fil_param_files_for(&pf, c, id, tmpdir) == CUZK_OK);
    cuzk_cs *cs = cuzk_cs_new(CUZK_CS_RECORDING);
    int rc = cuzk_cs_alloc_one(cs);
    if (!rc) rc = cuzk_fil_circuit_blank(cs, c, 2048, 2);
    if (!rc) rc = cuzk_cs_finalize(cs);
    CHECK_MSG(rc == CUZK_OK, "%s: blank circuit %d", name, rc);
    if (rc) return cuzk_cs_free(cs);
    cuzk_groth16_params p;
    CHECK_MSG(cuzk_groth16_setup(&p, (const cuzk_recording_cs *)cs, rng, 2) == CUZK_OK, "%s: setup", name);
    cuzk_groth16_error ge;
    CHECK(cuzk_groth16_params_write_file(&p, pf.params, &ge) == CUZK_OK);
    CHECK(cuzk_groth16_vk_write_file(&p.vk, pf.vk, &ge) == CUZK_OK);
    cuzk_groth16_params_free(&p);
    cuzk_groth16_params q;
    cuzk_groth16_vk vk;
    CHECK_MSG(cuzk_groth16_params_read_file(&q, pf.params, CUZK_GROTH16_VALIDATE, 2, &ge) == CUZK_OK, "%s: %s", name,
              ge.msg);
    CHECK_MSG(cuzk_groth16_vk_read_file(&vk, pf.vk, &ge) == CUZK_OK, "%s: %s", name, ge.msg);
    size_t n = 1;
    while (n < cs->num_constraints) n <<= 1;
    CHECK_MSG(q.vk.n_ic == cs->num_inputs && vk.n_ic == cs->num_inputs && q.n_l == cs->num_aux && q.n_h == n - 1,
              "%s: params (ic %zu, l %zu, h %zu) against the circuit (inputs %zu, aux %zu, domain %zu)", name,
              q.vk.n_ic, q.n_l, q.n_h, cs->num_inputs, cs->num_aux, n);
    cuzk_groth16_params_free(&q);
    cuzk_groth16_vk_free(&vk);
    cuzk_cs_free(cs);
    unlink(pf.params), unlink(pf.vk);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_fil_params");
    snprintf(tmpdir, sizeof tmpdir, "%s/cuzk_fil_params.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) return 1;
    test_names();
    test_meta_and_manifest();
    test_digest(&rng);
    test_listed(&rng);
    setup_kind(CUZK_FIL_CIRCUIT_WINDOW_POST, &rng);
    if (getenv("CUZK_PARAMS_LONG") && atoi(getenv("CUZK_PARAMS_LONG"))) {
        setup_kind(CUZK_FIL_CIRCUIT_WINNING_POST, &rng);
        setup_kind(CUZK_FIL_CIRCUIT_SNAP, &rng);
        setup_kind(CUZK_FIL_CIRCUIT_SNAP_POSEIDON, &rng);
        setup_kind(CUZK_FIL_CIRCUIT_POREP, &rng);
    }
    rmdir(tmpdir);
    return tu_finish("test_fil_params");
}
