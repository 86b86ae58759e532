/* JSON documents in one arena (cuzk/util/json_arena.h). */
#include "cuzk/util/json_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Chunks double from 1 MiB up to 64 MiB: small documents stay small, a
 * 38 MB C1 (~0.5 GB of nodes) takes a dozen chunks. */
#define CHUNK_MIN ((size_t)1 << 20)
#define CHUNK_MAX ((size_t)64 << 20)

typedef struct chunk {
    struct chunk *next;
    size_t size, used; /* bytes of data[] */
    _Alignas(16) unsigned char data[];
} chunk;

struct cuzk_json_arena {
    chunk *head; /* the chunk being filled; older ones behind it */
    size_t next_size;
    size_t total, max; /* bytes taken (chunks, or a plain load's requests) and the cap (0: none) */
    bool capped;       /* a request went past max */
    json_t *plain; /* under AddressSanitizer: a plain document, so that it sees every node */
};

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_PLAIN 1
#endif
#endif

/* The arena of the load running on this thread, if any. */
static _Thread_local cuzk_json_arena *tl_arena;

static int in_arena(const cuzk_json_arena *a, const void *p)
{
    for (const chunk *c = a->head; c; c = c->next)
        if ((const unsigned char *)p >= c->data && (const unsigned char *)p < c->data + c->size) return 1;
    return 0;
}

/* Whether n more bytes stay within the arena's cap (counting them if so). */
static bool arena_take(cuzk_json_arena *a, size_t n)
{
    if (a->max && (n > a->max || a->total > a->max - n)) {
        a->capped = true;
        return false;
    }
    a->total += n;
    return true;
}

static void *arena_malloc(size_t n)
{
    cuzk_json_arena *a = tl_arena;
    if (!a) return malloc(n);
#ifdef ARENA_PLAIN
    return arena_take(a, n) ? malloc(n) : NULL;
#endif
    n = (n + 15) & ~(size_t)15;
    chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t sz = a->next_size;
        while (sz < n) sz *= 2;
        /* near the cap: its last chunk is what is left (one chunk, not a
         * chunk per request: arena_free looks through the chunks) */
        if (a->max && a->total < a->max && a->total + sz > a->max && a->max - a->total >= n) sz = a->max - a->total;
        if (!arena_take(a, sz)) return NULL;
        if (a->next_size < CHUNK_MAX) a->next_size *= 2;
        if (!(c = malloc(sizeof *c + sz))) return NULL;
        c->size = sz, c->used = 0, c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

/* During a load jansson frees what it outgrew (string buffers, array and
 * hash tables): those bytes stay in the arena until it goes. A pointer from
 * outside the arena came from malloc, before a load or on another path. */
static void arena_free(void *p)
{
    cuzk_json_arena *a = tl_arena;
    if (p && (!a || !in_arena(a, p))) free(p);
}

static void install(void) { json_set_alloc_funcs(arena_malloc, arena_free); }

json_t *cuzk_json_loadb_arena(const char *buf, size_t len, size_t flags, json_error_t *je,
                              cuzk_json_arena **arena)
{
    return cuzk_json_loadb_arena_max(buf, len, flags, 0, je, arena, NULL);
}

json_t *cuzk_json_loadb_arena_max(const char *buf, size_t len, size_t flags, size_t max_bytes, json_error_t *je,
                                  cuzk_json_arena **arena, bool *capped)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
    *arena = NULL;
    cuzk_json_arena *a = calloc(1, sizeof *a);
    if (!a) {
        if (je) *je = (json_error_t){.line = -1, .column = -1, .text = "out of memory"};
        return NULL;
    }
    a->next_size = CHUNK_MIN;
    a->max = max_bytes;
    cuzk_json_arena *saved = tl_arena; /* a load never nests on one thread, but be exact */
    tl_arena = a;
    json_t *root = json_loadb(buf, len, flags, je);
    tl_arena = saved;
    if (capped) *capped = a->capped;
#ifdef ARENA_PLAIN
    a->plain = root; /* its nodes came from malloc: json_decref frees them */
#endif
    if (!root) {
        cuzk_json_arena_free(a);
        return NULL;
    }
    *arena = a;
    return root;
}

void cuzk_json_arena_free(cuzk_json_arena *a)
{
    if (!a) return;
    json_decref(a->plain);
    for (chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}
