/* JSON documents whose nodes live in one arena.
 *
 * jansson allocates every value separately: a 32 GiB PoRep C1 (38 MB of
 * JSON, ~10 M small integers) costs ~2 s to load and free, most of it in
 * malloc, free and fresh-page faults. Loaded here, the document's nodes are
 * bump-allocated from a few large chunks and released at once with the arena.
 *
 * Rules: an arena document is read-only (no json_decref, no changes, no
 * references kept past cuzk_json_arena_free). Loading installs allocator
 * hooks into jansson once per process; outside a load they are malloc and
 * free, so every other jansson user is unaffected.
 */
#ifndef CUZK_JSON_ARENA_H
#define CUZK_JSON_ARENA_H

#include <jansson.h>
#include <stddef.h>

typedef struct cuzk_json_arena cuzk_json_arena;

/* json_loadb into a new arena: the document, *arena set (NULL on failure,
 * with je filled as json_loadb fills it). */
json_t *cuzk_json_loadb_arena(const char *buf, size_t len, size_t flags, json_error_t *je,
                              cuzk_json_arena **arena);
/* The arena and every node of its document. NULL is a no-op. */
void cuzk_json_arena_free(cuzk_json_arena *a);

#endif
