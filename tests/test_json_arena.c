/*
 * JSON documents in one arena (cuzk/util/json_arena.h) against jansson's own
 * loader: random documents (nested objects and arrays, integers, strings
 * with escapes, reals, literals) printed by jansson, loaded both ways and
 * compared with json_equal; malformed text (a random cut or a byte
 * replaced) rejected by both alike, and by the syntax check without a
 * document (cuzk_json_syntax) exactly where jansson rejects it; loads under
 * a cap refused past it; plain jansson objects made and freed
 * around the loads (the allocator hooks must leave them to malloc); four
 * threads loading at once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/json_arena.h"
#include "testutil.h"

static json_t *gen(cuzk_rng *r, int depth)
{
    unsigned t = (unsigned)(cuzk_rng_u64(r) % (depth > 4 ? 5 : 7));
    switch (t) {
    case 0: return json_integer((json_int_t)cuzk_rng_u64(r) >> (cuzk_rng_u64(r) % 64));
    case 1: {
        char s[40];
        size_t n = (size_t)(cuzk_rng_u64(r) % sizeof s);
        for (size_t i = 0; i < n; i++) s[i] = (char)(1 + cuzk_rng_u64(r) % 126); /* controls and quotes: escaped */
        return json_stringn(s, n);
    }
    case 2: return json_real((double)(int64_t)cuzk_rng_u64(r) / 1024.0);
    case 3: return (cuzk_rng_u64(r) & 1) ? json_true() : json_null();
    case 4: return json_integer((json_int_t)(cuzk_rng_u64(r) % 256)); /* a C1's bytes */
    case 5: {
        json_t *a = json_array();
        size_t n = (size_t)(cuzk_rng_u64(r) % 40);
        for (size_t i = 0; i < n; i++) json_array_append_new(a, gen(r, depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        size_t n = (size_t)(cuzk_rng_u64(r) % 12);
        for (size_t i = 0; i < n; i++) {
            char k[24];
            snprintf(k, sizeof k, "k%llu", (unsigned long long)(cuzk_rng_u64(r) % 1000));
            json_object_set_new(o, k, gen(r, depth + 1));
        }
        return o;
    }
    }
}

static void one_round(cuzk_rng *r)
{
    json_t *doc = gen(r, 0);
    char *text = json_dumps(doc, JSON_ENCODE_ANY | JSON_COMPACT);
    CHECK(text != NULL);
    if (!text) return;
    size_t len = strlen(text);
    json_error_t je1, je2;
    cuzk_json_arena *a;
    json_t *got = cuzk_json_loadb_arena(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je1, &a);
    CHECK_MSG(got && json_equal(got, doc), "arena document differs from %.80s", text);
    cuzk_json_arena_free(a);
    /* malformed: cut short, or one byte replaced */
    char *bad = malloc(len + 1);
    memcpy(bad, text, len + 1);
    size_t blen = len;
    if (cuzk_rng_u64(r) & 1) blen = (size_t)(cuzk_rng_u64(r) % (len ? len : 1));
    else if (len) bad[cuzk_rng_u64(r) % len] = "]}\",:x\x01"[cuzk_rng_u64(r) % 7];
    json_t *p = json_loadb(bad, blen, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je2);
    json_t *q = cuzk_json_loadb_arena(bad, blen, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je1, &a);
    CHECK_MSG(!p == !q, "plain %s, arena %s on %.80s", p ? "ok" : "error", q ? "ok" : "error", bad);
    CHECK(q ? a != NULL : a == NULL);
    if (p && q) CHECK(json_equal(p, q));
    if (!p && !q) CHECK_MSG(je1.line == je2.line && je1.column == je2.column && !strcmp(je1.text, je2.text),
                            "errors differ: %s / %s", je1.text, je2.text);
    cuzk_json_arena_free(a);
    json_decref(p);
    /* the syntax alone: jansson (duplicates allowed, which are no syntax) is the oracle */
    size_t off = 0;
    const char *what = NULL;
    CHECK_MSG(cuzk_json_syntax(text, len, &off, &what) == 0, "syntax refused %.80s: %s", text, what ? what : "");
    p = json_loadb(bad, blen, JSON_DECODE_ANY, &je2);
    const int syn = cuzk_json_syntax(bad, blen, &off, &what);
    CHECK_MSG((syn == 0) == (p != NULL), "jansson %s (%s), syntax %s (%s) on %.80s", p ? "ok" : "error",
              p ? "" : je2.text, syn ? "error" : "ok", syn ? what : "", bad);
    if (syn) CHECK(off <= blen && what && what[0]);
    json_decref(p);
    free(bad);
    free(text);
    json_decref(doc); /* made outside any arena: freed by free() through the hooks */
}

static void *worker(void *arg)
{
    cuzk_rng r;
    cuzk_rng_seed(&r, *(uint64_t *)arg);
    for (int i = 0; i < 200; i++) one_round(&r);
    return NULL;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_json_arena");
    json_t *before = json_pack("{s:[i,i],s:s}", "a", 1, 2, "b", "made before the hooks");
    for (int i = 0; i < 400; i++) one_round(&rng);
    CHECK(json_integer_value(json_array_get(json_object_get(before, "a"), 1)) == 2);
    json_decref(before); /* malloc'ed before the hooks were installed */
    /* a large document: the chunks grow past their 1 MiB start */
    json_t *big = json_array();
    for (int i = 0; i < 200000; i++) json_array_append_new(big, json_integer(i));
    char *t = json_dumps(big, JSON_COMPACT);
    cuzk_json_arena *a;
    json_error_t je;
    json_t *got = cuzk_json_loadb_arena(t, strlen(t), 0, &je, &a);
    CHECK(got && json_equal(got, big));
    cuzk_json_arena_free(a);
    /* under a cap: refused past it (and said so), loaded within it */
    bool capped = false;
    const size_t cap = (size_t)(1 + cuzk_rng_u64(&rng) % 4) << 20; /* 200000 nodes take more */
    got = cuzk_json_loadb_arena_max(t, strlen(t), 0, cap, &je, &a, &capped);
    CHECK_MSG(!got && !a && capped, "a %zu-byte cap: %s", cap, got ? "loaded" : "refused, not capped");
    got = cuzk_json_loadb_arena_max(t, strlen(t), 0, (size_t)64 << 20, &je, &a, &capped);
    CHECK(got && json_equal(got, big) && !capped);
    cuzk_json_arena_free(a);
    got = cuzk_json_loadb_arena_max("[1,", 3, 0, (size_t)64 << 20, &je, &a, &capped);
    CHECK(!got && !capped); /* malformed, not capped */
    /* nesting: jansson's limit of 2048 levels, refused alike */
    for (int depth = 2047; depth <= 2049; depth++) {
        char *deep = malloc(2 * (size_t)depth + 1);
        memset(deep, '[', (size_t)depth);
        memset(deep + depth, ']', (size_t)depth);
        size_t off;
        const char *what;
        json_t *p = json_loadb(deep, 2 * (size_t)depth, 0, &je);
        CHECK_MSG(!p == !!cuzk_json_syntax(deep, 2 * (size_t)depth, &off, &what), "depth %d", depth);
        json_decref(p);
        free(deep);
    }
    free(t);
    json_decref(big);
    pthread_t th[4];
    uint64_t seeds[4];
    for (int i = 0; i < 4; i++) {
        seeds[i] = cuzk_rng_u64(&rng);
        pthread_create(&th[i], NULL, worker, &seeds[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    return tu_finish("test_json_arena");
}
