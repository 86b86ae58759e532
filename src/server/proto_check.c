/* Checks on a request's wire bytes (see proto_check.h). */
#include "server/proto_check.h"

#include <string.h>

/* messages inside messages: proving.proto nests three deep (ProveRequest, SubmitProofRequest,
 * AggregateSector); a bound for the recursion */
#define MAX_NESTING 16

static int wire_varint(const uint8_t *b, size_t n, size_t *i, uint64_t *v)
{
    *v = 0;
    for (unsigned sh = 0; sh < 64 && *i < n; sh += 7) {
        const uint8_t c = b[(*i)++];
        *v |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) return 0;
    }
    return -1;
}

/* Past one field of wire type wt at b[*i]; a length-delimited one's bytes in *body, *body_len. */
static int wire_skip(const uint8_t *b, size_t n, size_t *i, unsigned wt, const uint8_t **body, size_t *body_len)
{
    uint64_t v;
    *body = NULL;
    switch (wt) {
    case 0: return wire_varint(b, n, i, &v);
    case 1: v = 8; break;
    case 5: v = 4; break;
    case 2:
        if (wire_varint(b, n, i, &v) || v > n - *i) return -1;
        *body = b + *i, *body_len = (size_t)v;
        break;
    default: return -1; /* groups: proto3 has none, and protobuf-c accepted the message */
    }
    if (v > n - *i) return -1;
    *i += (size_t)v;
    return 0;
}

static const char *nul_string(const ProtobufCMessageDescriptor *d, const uint8_t *b, size_t n, unsigned depth)
{
    for (size_t i = 0; i < n;) {
        uint64_t key;
        const uint8_t *body;
        size_t body_len = 0;
        if (wire_varint(b, n, &i, &key) || wire_skip(b, n, &i, (unsigned)(key & 7), &body, &body_len)) return NULL;
        const ProtobufCFieldDescriptor *f = body ? protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3)) : NULL;
        if (!f) continue;
        if (f->type == PROTOBUF_C_TYPE_STRING && memchr(body, 0, body_len)) return f->name;
        if (f->type == PROTOBUF_C_TYPE_MESSAGE && depth < MAX_NESTING) {
            const char *r = nul_string(f->descriptor, body, body_len, depth + 1);
            if (r) return r;
        }
    }
    return NULL;
}

const char *proto_nul_string(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len)
{
    return d && buf ? nul_string(d, buf, len, 0) : NULL;
}
