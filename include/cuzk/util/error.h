/*
 * cuzk error codes. Every fallible cuzk function returns one of these
 * (0 is success); cuzk_strerror() gives a short human-readable message.
 * Codes are distinct per failure so callers and tests can tell why input
 * was rejected, not merely that it was.
 */
#ifndef CUZK_ERROR_H
#define CUZK_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_err {
    CUZK_OK = 0,
    /* encodings */
    CUZK_ERR_BAD_LENGTH = 1,       /* input has the wrong number of bytes */
    CUZK_ERR_NONCANONICAL = 2,     /* a field element >= modulus */
    CUZK_ERR_NOT_ON_CURVE = 3,     /* coordinates do not satisfy the curve equation */
    CUZK_ERR_NOT_IN_SUBGROUP = 4,  /* point on the curve but outside the r-torsion */
    CUZK_ERR_BAD_FLAGS = 5,        /* compression/infinity/sort bits inconsistent */
    CUZK_ERR_NOT_A_SQUARE = 6,     /* no square root exists (e.g. x of a compressed point) */
    /* generic */
    CUZK_ERR_INVALID_ARG = 16,
    CUZK_ERR_NO_MEMORY = 17,
    CUZK_ERR_IO = 18,
    CUZK_ERR_FORMAT = 19,          /* a file or message does not follow its format */
    CUZK_ERR_UNSUPPORTED = 20,
    CUZK_ERR_VERIFY_FAILED = 21,   /* a proof did not verify */
    CUZK_ERR_UNSATISFIED = 22,     /* a constraint system is not satisfied */
    CUZK_ERR_NO_DEVICE = 23,       /* no GPU available for a GPU-only request */
    CUZK_ERR_INTERNAL = 24,
    CUZK_ERR_TIMEOUT = 25,         /* a job ran past its deadline */
    CUZK_ERR_CANCELLED = 26,       /* a job was cancelled */
    CUZK_ERR_NOT_READY = 27,       /* a wait ran out before the result was ready */
    CUZK_ERR_DEVICE = 28           /* a CUDA call failed (message from the GPU layer) */
} cuzk_err;

/* Static string describing err; never NULL. */
const char *cuzk_strerror(int err);

#include <stdarg.h>
#include <stddef.h>
/* The formatted message into err (errlen bytes; err NULL or errlen 0: none),
 * then code: `return cuzk_errf(err, errlen, CODE, "...", ...);` for every
 * function that answers a code and a message buffer. cuzk_verrf: the same
 * for a helper that does more on failure (frees a half-built job). */
int cuzk_errf(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int cuzk_verrf(char *err, size_t errlen, int code, const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

#ifdef __cplusplus
}
#endif
#endif
