/* Checks on a request's wire bytes that protobuf-c's unpacking does not make. */
#ifndef CUZK_SERVER_PROTO_CHECK_H
#define CUZK_SERVER_PROTO_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

/*
 * The name of the first string field (of the message d describes, or of a
 * message inside it) whose bytes in buf hold a NUL, or NULL when none does.
 * protobuf-c hands a string over NUL-terminated, so "nul\0one" would arrive
 * as "nul": two request ids that differ after a NUL would name one job.
 */
const char *proto_nul_string(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len);

#endif
