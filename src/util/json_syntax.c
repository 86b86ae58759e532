/* JSON syntax without a document (cuzk/util/json_arena.h): one pass over the
 * text, a byte per level of nesting, so that a malformed request is named
 * at its first bad byte before anything is built for it (a jansson load
 * builds nodes up to that byte: ~15 bytes of nodes per byte of a C1). */
#include <string.h>

#include "cuzk/util/json_arena.h"

/* jansson's JSON_PARSER_MAX_DEPTH: deeper documents it refuses */
#define MAX_DEPTH 2048

typedef struct jscan {
    const unsigned char *s;
    size_t n, i;
    const char *what; /* set on the first error */
} jscan;

static int scan_fail(jscan *j, const char *what)
{
    j->what = what;
    return -1;
}

static void scan_ws(jscan *j)
{
    while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r'))
        j->i++;
}

static int scan_hex4(jscan *j)
{
    for (int k = 0; k < 4; k++, j->i++)
        if (j->i >= j->n || !strchr("0123456789abcdefABCDEF", j->s[j->i]) || !j->s[j->i])
            return scan_fail(j, "a \\u escape without four hex digits");
    return 0;
}

/* A string at s[i] == '"'; i past its closing quote. */
static int scan_string(jscan *j)
{
    for (j->i++; j->i < j->n; j->i++) {
        const unsigned char c = j->s[j->i];
        if (c == '"') {
            j->i++;
            return 0;
        }
        if (c < 0x20) return scan_fail(j, "a control character in a string");
        if (c != '\\') continue;
        if (++j->i >= j->n) break;
        const unsigned char e = j->s[j->i];
        if (e == 'u') {
            j->i++;
            if (scan_hex4(j)) return -1;
            j->i--;
        } else if (!e || !strchr("\"\\/bfnrt", e)) {
            return scan_fail(j, "an invalid escape in a string");
        }
    }
    return scan_fail(j, "the text ends inside a string");
}

static size_t scan_digits(jscan *j)
{
    size_t k = j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    return j->i - k;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(jscan *j)
{
    if (j->s[j->i] == '-') j->i++;
    const size_t first = j->i;
    const size_t int_digits = scan_digits(j);
    if (!int_digits || (int_digits > 1 && j->s[first] == '0')) return scan_fail(j, "an invalid number");
    if (j->i < j->n && j->s[j->i] == '.') {
        j->i++;
        if (!scan_digits(j)) return scan_fail(j, "an invalid number");
    }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
        if (!scan_digits(j)) return scan_fail(j, "an invalid number");
    }
    return 0;
}

/* A value that is no container: a string, number, true, false or null. */
static int scan_scalar(jscan *j)
{
    if (j->i >= j->n) return scan_fail(j, "the text ends where a value was expected");
    const unsigned char c = j->s[j->i];
    if (c == '"') return scan_string(j);
    if (c == '-' || (c >= '0' && c <= '9')) return scan_number(j);
    static const char *const lit[3] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        const size_t l = strlen(lit[k]);
        if (j->n - j->i >= l && !memcmp(j->s + j->i, lit[k], l)) {
            j->i += l;
            return 0;
        }
    }
    return scan_fail(j, "an unexpected character where a value was expected");
}

/* An object's key and its colon, the value to follow. */
static int scan_key(jscan *j)
{
    scan_ws(j);
    if (j->i >= j->n || j->s[j->i] != '"') return scan_fail(j, "an object key that is not a string");
    if (scan_string(j)) return -1;
    scan_ws(j);
    if (j->i >= j->n || j->s[j->i] != ':') return scan_fail(j, "no ':' after an object key");
    j->i++;
    return 0;
}

/* After a value at depth *depth: a ',' (then a key is next where *want_key is
 * set, else a value) or closing brackets; 1 when the top-level value is complete. */
static int scan_after(jscan *j, char *stack, size_t *depth, int *want_key)
{
    for (;;) {
        scan_ws(j);
        if (!*depth) return 1;
        const char open = stack[*depth - 1], close = open == '{' ? '}' : ']';
        if (j->i >= j->n) return scan_fail(j, "the text ends inside an object or array");
        if (j->s[j->i] == close) {
            j->i++;
            --*depth;
            continue;
        }
        if (j->s[j->i] != ',') return scan_fail(j, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        j->i++;
        *want_key = open == '{';
        return 0;
    }
}

int cuzk_json_syntax(const char *buf, size_t len, size_t *offset, const char **what)
{
    jscan j = {(const unsigned char *)buf, len, 0, NULL};
    char stack[MAX_DEPTH];
    size_t depth = 0;
    int want_key = 0, rc = 0;
    while (!rc) {
        if (want_key && scan_key(&j)) break;
        want_key = 0;
        scan_ws(&j);
        const unsigned char c = j.i < j.n ? j.s[j.i] : 0;
        if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH) {
                scan_fail(&j, "nesting deeper than 2048 levels");
                break;
            }
            stack[depth++] = (char)c;
            j.i++;
            scan_ws(&j);
            want_key = c == '{';
            if (j.i < j.n && j.s[j.i] == (c == '{' ? '}' : ']')) {
                j.i++, depth--, want_key = 0; /* empty: the value is complete */
                rc = scan_after(&j, stack, &depth, &want_key);
            }
            continue;
        }
        if (scan_scalar(&j)) break;
        rc = scan_after(&j, stack, &depth, &want_key);
    }
    if (rc == 1 && j.i != j.n) scan_fail(&j, "more text after the JSON value");
    if (!j.what) return 0;
    *offset = j.i;
    *what = j.what;
    return -1;
}

void cuzk_json_line_col(const char *buf, size_t offset, int *line, int *column)
{
    int l = 1;
    size_t start = 0;
    for (size_t i = 0; i < offset; i++)
        if (buf[i] == '\n') l++, start = i + 1;
    *line = l;
    *column = (int)(offset - start) + 1;
}
