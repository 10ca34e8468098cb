/* host/util/error.c - status codes to text. */
#include "util/base.h"
#include <stdio.h>

const char *kh_strerror(int status)
{
    switch (status) {
    case KYTOS_OK: return "ok";
    case KYTOS_DEFERRED: return "deferred";
    case KYTOS_ERROR: return "error";
    case KYTOS_ENOMEM: return "out of memory";
    case KYTOS_EINVAL: return "invalid argument";
    case KYTOS_ENOTFOUND: return "not found";
    case KYTOS_EEXIST: return "already exists";
    case KYTOS_ESTATE: return "not allowed in this state";
    case KYTOS_ETIMEDOUT: return "timed out";
    case KYTOS_EUNAVAIL: return "unavailable";
    case KYTOS_EFULL: return "full";
    case KYTOS_ENOTSUP: return "not supported";
    case KYTOS_EFILTER: return "bad filter";
    case KYTOS_EIO: return "I/O error";
    case KYTOS_ETOOBIG: return "too big";
    case -100: return "crashed (fault in NApp code)";
    default: return "unknown status";
    }
}
