#include "cuzk/util/error.h"

#include <stdarg.h>
#include <stdio.h>

int cuzk_verrf(char *err, size_t errlen, int code, const char *fmt, va_list ap)
{
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    return code;
}

int cuzk_errf(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuzk_verrf(err, errlen, code, fmt, ap);
    va_end(ap);
    return code;
}

const char *cuzk_strerror(int err)
{
    switch ((cuzk_err)err) {
    case CUZK_OK: return "success";
    case CUZK_ERR_BAD_LENGTH: return "wrong input length";
    case CUZK_ERR_NONCANONICAL: return "field element not canonical (>= modulus)";
    case CUZK_ERR_NOT_ON_CURVE: return "point not on curve";
    case CUZK_ERR_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
    case CUZK_ERR_BAD_FLAGS: return "inconsistent encoding flag bits";
    case CUZK_ERR_NOT_A_SQUARE: return "no square root exists";
    case CUZK_ERR_INVALID_ARG: return "invalid argument";
    case CUZK_ERR_NO_MEMORY: return "out of memory";
    case CUZK_ERR_IO: return "I/O error";
    case CUZK_ERR_FORMAT: return "malformed input format";
    case CUZK_ERR_UNSUPPORTED: return "unsupported";
    case CUZK_ERR_VERIFY_FAILED: return "proof verification failed";
    case CUZK_ERR_UNSATISFIED: return "constraint system not satisfied";
    case CUZK_ERR_NO_DEVICE: return "no GPU device available";
    case CUZK_ERR_INTERNAL: return "internal error";
    case CUZK_ERR_TIMEOUT: return "timed out";
    case CUZK_ERR_CANCELLED: return "cancelled";
    case CUZK_ERR_NOT_READY: return "not ready yet";
    case CUZK_ERR_DEVICE: return "GPU device error";
    }
    return "unknown error";
}
