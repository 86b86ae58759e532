/*
 * A C view of a TOML document, parsed by toml++ (the one C++ translation
 * unit in cuzk: Debian has no maintained C TOML parser). The config module
 * sees every key as (section, key, value) through a callback and never
 * touches C++.
 */
#ifndef CUZK_SERVER_TOML_ADAPTER_H
#define CUZK_SERVER_TOML_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tomla_type {
    TOMLA_STRING,
    TOMLA_INT,
    TOMLA_FLOAT,
    TOMLA_BOOL,
    TOMLA_ARRAY,
    TOMLA_TABLE, /* a table nested below a section: cuzk has none */
    TOMLA_OTHER  /* dates and times */
} tomla_type;

typedef struct tomla_value {
    tomla_type type;
    const char *str; /* TOMLA_STRING (NUL-terminated, valid during the callback) */
    int64_t i;       /* TOMLA_INT */
    double f;        /* TOMLA_FLOAT */
    bool b;          /* TOMLA_BOOL */
    size_t n_items;  /* TOMLA_ARRAY: its elements (nested arrays are TOMLA_OTHER) */
    const struct tomla_value *items;
    unsigned line;   /* 1-based source line, 0 if unknown */
} tomla_value;

/* Called once per key. section is "" for keys outside any [section]; a
 * top-level key whose value is not a table arrives with that section "". A
 * non-zero return stops the walk and is returned by tomla_walk. */
typedef int (*tomla_visit_fn)(void *ud, const char *section, const char *key,
                              const tomla_value *v);

/* Parses text (len bytes, need not be NUL-terminated) and visits every key in
 * document order. Returns 0, the visitor's non-zero value, or -1 on a syntax
 * error with "line L, column C: reason" in err. */
int tomla_walk(const char *text, size_t len, tomla_visit_fn fn, void *ud, char *err,
               size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
