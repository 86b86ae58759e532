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
#include <stdbool.h>
#include <stddef.h>

typedef struct cuzk_json_arena cuzk_json_arena;

/* json_loadb into a new arena: the document, *arena set (NULL on failure,
 * with je filled as json_loadb fills it). */
json_t *cuzk_json_loadb_arena(const char *buf, size_t len, size_t flags, json_error_t *je,
                              cuzk_json_arena **arena);
/* The same with the arena's bytes capped at max_bytes (0: none): a document
 * whose nodes (and the buffers jansson outgrows while loading) need more
 * fails as if memory ran out, with *capped set (may be NULL). The cap holds
 * under AddressSanitizer too, where a load is plain: there it counts the
 * bytes jansson asks for. */
json_t *cuzk_json_loadb_arena_max(const char *buf, size_t len, size_t flags, size_t max_bytes, json_error_t *je,
                                  cuzk_json_arena **arena, bool *capped);
/* The arena and every node of its document. NULL is a no-op. */
void cuzk_json_arena_free(cuzk_json_arena *a);


/*
 * Whether buf is one JSON value (RFC 8259) with only whitespace around it,
 * without building anything: 0, or -1 with *offset the byte where it stops
 * being JSON and *what why. Nesting deeper than jansson's limit (2048) is
 * refused as jansson refuses it. Strings are checked for their escapes and
 * control bytes, not for UTF-8 (jansson's load checks that).
 */
int cuzk_json_syntax(const char *buf, size_t len, size_t *offset, const char **what);
/* The 1-based line and byte column of buf[offset]. */
void cuzk_json_line_col(const char *buf, size_t offset, int *line, int *column);

#endif
