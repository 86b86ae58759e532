/*
 * gRPC server reflection (see reflection.h).
 *
 * The build embeds a FileDescriptorSet (protoc-c --descriptor_set_out
 * --include_imports) of every file served. On first use it is split into
 * its FileDescriptorProtos, and the names each one declares (messages,
 * their fields, nested types and enums, enum values, services, methods)
 * are indexed, read straight from the protobuf wire format: the few field
 * numbers of google/protobuf/descriptor.proto used are named below. Answers
 * carry the file's bytes as they are in the set, and the files it imports.
 */
#define _GNU_SOURCE
#include "server/reflection.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grpc/reflection/v1alpha/reflection.pb-c.h"

extern const unsigned char cuzk_proto_descriptors[];
extern const size_t cuzk_proto_descriptors_len;

/* descriptor.proto field numbers */
enum {
    SET_FILE = 1,                                                   /* FileDescriptorSet */
    FILE_NAME = 1, FILE_PACKAGE = 2, FILE_DEPENDENCY = 3, FILE_MESSAGE = 4, FILE_ENUM = 5, FILE_SERVICE = 6,
    MSG_NAME = 1, MSG_FIELD = 2, MSG_NESTED = 3, MSG_ENUM = 4,      /* DescriptorProto */
    ENUM_NAME = 1, ENUM_VALUE = 2,                                  /* EnumDescriptorProto */
    SVC_NAME = 1, SVC_METHOD = 2,                                   /* ServiceDescriptorProto */
    ANY_NAME = 1,                            /* Field-, EnumValue-, MethodDescriptorProto */
};

#define MAX_FILES 16
#define MAX_DEPS 16
#define MAX_DEPTH 32

typedef enum { SYM_MESSAGE, SYM_SERVICE, SYM_OTHER } sym_what;

typedef struct symbol {
    char *name; /* full name without a leading dot */
    unsigned file;
    sym_what what;
} symbol;

typedef struct file_desc {
    char *name;
    ProtobufCBinaryData bytes; /* a view into the embedded set */
    unsigned deps[MAX_DEPS];
    size_t n_deps;
} file_desc;

static struct {
    file_desc files[MAX_FILES];
    size_t n_files;
    symbol *syms;
    size_t n_syms, cap;
    bool ok;
} idx;
static pthread_once_t idx_once = PTHREAD_ONCE_INIT;

/* ---- the wire format ------------------------------------------------------ */

typedef struct wire {
    const uint8_t *p, *end;
    bool bad;
} wire;

static bool varint(wire *w, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64 && w->p < w->end; shift += 7) {
        uint8_t b = *w->p++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

/* The next field: its number and, when length-delimited, its bytes (*data
 * NULL otherwise). False at the end, or on malformed input (w->bad). */
static bool next_field(wire *w, uint32_t *num, const uint8_t **data, size_t *len)
{
    uint64_t key, v;
    *data = NULL;
    *len = 0;
    if (w->bad || w->p >= w->end) return false;
    if (!varint(w, &key)) return w->bad = true, false;
    *num = (uint32_t)(key >> 3);
    size_t left = (size_t)(w->end - w->p);
    switch (key & 7) {
    case 0: if (!varint(w, &v)) return w->bad = true, false; break;
    case 1: if (left < 8) return w->bad = true, false; w->p += 8; break;
    case 5: if (left < 4) return w->bad = true, false; w->p += 4; break;
    case 2:
        if (!varint(w, &v) || v > (uint64_t)(w->end - w->p)) return w->bad = true, false;
        *data = w->p;
        *len = (size_t)v;
        w->p += v;
        break;
    default: return w->bad = true, false; /* groups: not in descriptors */
    }
    return true;
}

/* The first length-delimited field `num` of a message, as a C string
 * (malloc'd), or NULL. */
static char *string_field(const uint8_t *msg, size_t len, uint32_t num)
{
    wire w = {msg, msg + len, false};
    uint32_t n;
    const uint8_t *d;
    size_t dl;
    while (next_field(&w, &n, &d, &dl))
        if (n == num && d) return strndup((const char *)d, dl);
    return NULL;
}

/* ---- the index ------------------------------------------------------------ */

/* Adds scope.name (name alone when scope is empty); returns the full name
 * (owned by the index) or NULL on no memory. */
static const char *add_symbol(const char *scope, const char *name, unsigned file, sym_what what)
{
    if (idx.n_syms == idx.cap) {
        size_t cap = idx.cap ? 2 * idx.cap : 256;
        symbol *s = realloc(idx.syms, cap * sizeof *s);
        if (!s) return NULL;
        idx.syms = s, idx.cap = cap;
    }
    char *full;
    if (asprintf(&full, "%s%s%s", scope, *scope ? "." : "", name) < 0) return NULL;
    idx.syms[idx.n_syms++] = (symbol){full, file, what};
    return full;
}

/* Each length-delimited field `num` of msg: its name (field ANY_NAME) added
 * under scope. */
static bool add_named(const char *scope, const uint8_t *msg, size_t len, uint32_t num, unsigned file)
{
    wire w = {msg, msg + len, false};
    uint32_t n;
    const uint8_t *d;
    size_t dl;
    while (next_field(&w, &n, &d, &dl)) {
        if (n != num || !d) continue;
        char *name = string_field(d, dl, ANY_NAME);
        bool ok = name && add_symbol(scope, name, file, SYM_OTHER);
        free(name);
        if (!ok) return false;
    }
    return !w.bad;
}

/* An enum, and its values: they belong to the enum's enclosing scope. */
static bool index_enum(const char *scope, const uint8_t *e, size_t len, unsigned file)
{
    char *name = string_field(e, len, ENUM_NAME);
    bool ok = name && add_symbol(scope, name, file, SYM_OTHER) && add_named(scope, e, len, ENUM_VALUE, file);
    free(name);
    return ok;
}

static bool index_message(const char *scope, const uint8_t *m, size_t len, unsigned file, int depth)
{
    char *name = string_field(m, len, MSG_NAME);
    const char *full = name && depth < MAX_DEPTH ? add_symbol(scope, name, file, SYM_MESSAGE) : NULL;
    free(name);
    if (!full || !add_named(full, m, len, MSG_FIELD, file)) return false;
    wire w = {m, m + len, false};
    uint32_t n;
    const uint8_t *d;
    size_t dl;
    while (next_field(&w, &n, &d, &dl)) {
        if (n == MSG_NESTED && d && !index_message(full, d, dl, file, depth + 1)) return false;
        if (n == MSG_ENUM && d && !index_enum(full, d, dl, file)) return false;
    }
    return !w.bad;
}

static bool index_service(const char *scope, const uint8_t *s, size_t len, unsigned file)
{
    char *name = string_field(s, len, SVC_NAME);
    const char *full = name ? add_symbol(scope, name, file, SYM_SERVICE) : NULL;
    free(name);
    return full && add_named(full, s, len, SVC_METHOD, file);
}

static int file_by_name(const char *name)
{
    for (size_t i = 0; i < idx.n_files; i++)
        if (!strcmp(idx.files[i].name, name)) return (int)i;
    return -1;
}

static bool index_file(unsigned fi)
{
    const file_desc *f = &idx.files[fi];
    const uint8_t *p = f->bytes.data;
    char *pkg = string_field(p, f->bytes.len, FILE_PACKAGE);
    const char *scope = pkg ? pkg : "";
    wire w = {p, p + f->bytes.len, false};
    uint32_t n;
    const uint8_t *d;
    size_t dl;
    bool ok = true;
    while (ok && next_field(&w, &n, &d, &dl)) {
        if (!d) continue;
        if (n == FILE_MESSAGE) ok = index_message(scope, d, dl, fi, 0);
        else if (n == FILE_ENUM) ok = index_enum(scope, d, dl, fi);
        else if (n == FILE_SERVICE) ok = index_service(scope, d, dl, fi);
    }
    free(pkg);
    return ok && !w.bad;
}

/* Imports by index: --include_imports puts every imported file in the set. */
static bool link_deps(unsigned fi)
{
    file_desc *f = &idx.files[fi];
    wire w = {f->bytes.data, f->bytes.data + f->bytes.len, false};
    uint32_t n;
    const uint8_t *d;
    size_t dl;
    while (next_field(&w, &n, &d, &dl)) {
        if (n != FILE_DEPENDENCY || !d) continue;
        char *dep = strndup((const char *)d, dl);
        int di = dep ? file_by_name(dep) : -1;
        free(dep);
        if (di < 0 || f->n_deps == MAX_DEPS) return false;
        f->deps[f->n_deps++] = (unsigned)di;
    }
    return !w.bad;
}

static void build_index(void)
{
    wire w = {cuzk_proto_descriptors, cuzk_proto_descriptors + cuzk_proto_descriptors_len, false};
    uint32_t n;
    const uint8_t *d;
    size_t dl;
    while (next_field(&w, &n, &d, &dl)) {
        if (n != SET_FILE || !d) continue;
        if (idx.n_files == MAX_FILES) return;
        file_desc *f = &idx.files[idx.n_files];
        if (!(f->name = string_field(d, dl, FILE_NAME))) return;
        f->bytes = (ProtobufCBinaryData){dl, (uint8_t *)d};
        idx.n_files++;
    }
    if (w.bad || idx.n_files == 0) return;
    for (unsigned i = 0; i < idx.n_files; i++)
        if (!link_deps(i) || !index_file(i)) return;
    idx.ok = true;
}

static const symbol *find_symbol(const char *name)
{
    if (name[0] == '.') name++; /* a fully-qualified type reference */
    for (size_t i = 0; i < idx.n_syms; i++)
        if (!strcmp(idx.syms[i].name, name)) return &idx.syms[i];
    return NULL;
}

/* ---- answers -------------------------------------------------------------- */

/* File fi, then the files it imports, each once (the order of a depth-first
 * walk; clients take them in any order). */
static void add_file(unsigned fi, ProtobufCBinaryData *out, size_t *n, bool *seen)
{
    if (seen[fi]) return;
    seen[fi] = true;
    out[(*n)++] = idx.files[fi].bytes;
    for (size_t i = 0; i < idx.files[fi].n_deps; i++) add_file(idx.files[fi].deps[i], out, n, seen);
}

typedef Grpc__Reflection__V1alpha__ServerReflectionRequest refl_req;
typedef Grpc__Reflection__V1alpha__ServerReflectionResponse refl_resp;
#define REQ(x) GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_##x
#define RESP(x) GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_##x

/* A response being built: the message and every part it may point to,
 * alive until it is packed. */
typedef struct {
    refl_resp a;
    Grpc__Reflection__V1alpha__FileDescriptorResponse files;
    Grpc__Reflection__V1alpha__ListServiceResponse list;
    Grpc__Reflection__V1alpha__ExtensionNumberResponse ext;
    Grpc__Reflection__V1alpha__ErrorResponse err;
    ProtobufCBinaryData fds[MAX_FILES];
    bool seen[MAX_FILES];
    Grpc__Reflection__V1alpha__ServiceResponse svc[MAX_FILES * 4], *svcp[MAX_FILES * 4];
    char why[320];
} refl_answer;

/* The file a file_by_filename or file_containing_symbol request asks for,
 * or -1 with why it was not found in r->why. */
static int answer_file_index(refl_answer *r, const refl_req *q)
{
    if (q->message_request_case == REQ(FILE_BY_FILENAME)) {
        int fi = file_by_name(q->file_by_filename);
        if (fi < 0) snprintf(r->why, sizeof r->why, "file not found: %.200s", q->file_by_filename);
        return fi;
    }
    const symbol *sym = find_symbol(q->file_containing_symbol);
    if (!sym) snprintf(r->why, sizeof r->why, "symbol not found: %.200s", q->file_containing_symbol);
    return sym ? (int)sym->file : -1;
}

/* The file and, transitively, those it imports. */
static void answer_files(refl_answer *r, unsigned fi)
{
    add_file(fi, r->fds, &r->files.n_file_descriptor_proto, r->seen);
    r->files.file_descriptor_proto = r->fds;
    r->a.message_response_case = RESP(FILE_DESCRIPTOR_RESPONSE);
    r->a.file_descriptor_response = &r->files;
}

/* A message type's extension numbers: the served files declare none, so an
 * empty list, or not found when it names no message type. */
static void answer_extension_numbers(refl_answer *r, const refl_req *q)
{
    const symbol *sym = find_symbol(q->all_extension_numbers_of_type);
    if (!sym || sym->what != SYM_MESSAGE) {
        snprintf(r->why, sizeof r->why, "message type not found: %.200s", q->all_extension_numbers_of_type);
        return;
    }
    r->ext.base_type_name = sym->name;
    r->a.message_response_case = RESP(ALL_EXTENSION_NUMBERS_RESPONSE);
    r->a.all_extension_numbers_response = &r->ext;
}

static void answer_services(refl_answer *r)
{
    for (size_t i = 0; i < idx.n_syms && r->list.n_service < sizeof r->svc / sizeof r->svc[0]; i++) {
        if (idx.syms[i].what != SYM_SERVICE) continue;
        grpc__reflection__v1alpha__service_response__init(&r->svc[r->list.n_service]);
        r->svc[r->list.n_service].name = idx.syms[i].name;
        r->svcp[r->list.n_service] = &r->svc[r->list.n_service];
        r->list.n_service++;
    }
    r->list.service = r->svcp;
    r->a.message_response_case = RESP(LIST_SERVICES_RESPONSE);
    r->a.list_services_response = &r->list;
}

/* r->why as the error response: not found, or an empty request. */
static void answer_error(refl_answer *r, const refl_req *q)
{
    r->err.error_code = q->message_request_case ? RPC_NOT_FOUND : RPC_INVALID_ARGUMENT;
    r->err.error_message = r->why;
    r->a.message_response_case = RESP(ERROR_RESPONSE);
    r->a.error_response = &r->err;
}

/* The response to q, packed (malloc'd), or NULL on no memory. */
static uint8_t *answer(const refl_req *q, size_t *out_len)
{
    refl_answer r = {.a = GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_RESPONSE__INIT,
                     .files = GRPC__REFLECTION__V1ALPHA__FILE_DESCRIPTOR_RESPONSE__INIT,
                     .list = GRPC__REFLECTION__V1ALPHA__LIST_SERVICE_RESPONSE__INIT,
                     .ext = GRPC__REFLECTION__V1ALPHA__EXTENSION_NUMBER_RESPONSE__INIT,
                     .err = GRPC__REFLECTION__V1ALPHA__ERROR_RESPONSE__INIT};
    r.a.valid_host = q->host;
    r.a.original_request = (refl_req *)q;
    int fi = -1;
    switch (q->message_request_case) {
    case REQ(FILE_BY_FILENAME):
    case REQ(FILE_CONTAINING_SYMBOL): fi = answer_file_index(&r, q); break;
    case REQ(FILE_CONTAINING_EXTENSION):
        snprintf(r.why, sizeof r.why, "extension not found: %.200s %d (the served files declare no extensions)",
                 q->file_containing_extension ? q->file_containing_extension->containing_type : "",
                 q->file_containing_extension ? q->file_containing_extension->extension_number : 0);
        break;
    case REQ(ALL_EXTENSION_NUMBERS_OF_TYPE): answer_extension_numbers(&r, q); break;
    case REQ(LIST_SERVICES): answer_services(&r); break;
    default:
        snprintf(r.why, sizeof r.why, "the request asks nothing (none of file_by_filename, file_containing_symbol, "
                                      "file_containing_extension, all_extension_numbers_of_type, list_services)");
    }
    if (fi >= 0) answer_files(&r, (unsigned)fi);
    else if (r.why[0]) answer_error(&r, q);
    *out_len = protobuf_c_message_get_packed_size(&r.a.base);
    uint8_t *out = malloc(*out_len ? *out_len : 1);
    if (out) protobuf_c_message_pack(&r.a.base, out);
    return out;
}

bool reflection_method(const char *method)
{
    return !strcmp(method, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo") ||
           !strcmp(method, "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo");
}

int reflection_serve(rpc_call *c, const uint8_t *req, size_t len, char *why, size_t whylen)
{
    pthread_once(&idx_once, build_index);
    if (!idx.ok) return snprintf(why, whylen, "the built-in descriptors cannot be read"), RPC_INTERNAL;
    uint8_t *next = NULL;
    for (unsigned n = 1;; n++) {
        refl_req *q = grpc__reflection__v1alpha__server_reflection_request__unpack(NULL, len, req);
        size_t out_len = 0;
        uint8_t *out = q ? answer(q, &out_len) : NULL;
        if (q) grpc__reflection__v1alpha__server_reflection_request__free_unpacked(q, NULL);
        free(next);
        if (!q) return snprintf(why, whylen, "request %u is not a ServerReflectionRequest", n), RPC_INVALID_ARGUMENT;
        if (!out) return snprintf(why, whylen, "out of memory for the reply"), RPC_RESOURCE_EXHAUSTED;
        bool sent = rpc_call_write(c, out, out_len);
        free(out);
        int more = sent ? rpc_call_read(c, &next, &len) : -1;
        if (more < 0) return snprintf(why, whylen, "the client went away"), RPC_CANCELLED;
        if (more == 0) break;
        req = next;
    }
    rpc_call_reply(c, RPC_OK, "", NULL, 0);
    return RPC_OK;
}
