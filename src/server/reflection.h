/*
 * gRPC server reflection (proto/grpc/reflection/): grpcurl and similar
 * tools list the services and fetch the descriptors of the .proto files the
 * daemon serves (proving.proto and the reflection schema itself, built into
 * the binary), so they need no copy of them. Both packages, v1alpha and v1,
 * are served by the same code.
 */
#ifndef CUZK_SERVER_REFLECTION_H
#define CUZK_SERVER_REFLECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/grpc_adapter.h"

/* True for the two ServerReflectionInfo method paths. */
bool reflection_method(const char *method);
/* Serves one ServerReflectionInfo stream whose first request is req: one
 * response per request until the client stops sending. Ends the call with
 * OK itself; any other code (INVALID_ARGUMENT for a request that is not a
 * ServerReflectionRequest, CANCELLED when the client went away) comes back
 * with a reason in why, for the caller to reply. */
int reflection_serve(rpc_call *c, const uint8_t *req, size_t len, char *why, size_t whylen);

#endif
