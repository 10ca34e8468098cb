/* kytos/errors.h - status codes shared by every ABI call.
 *
 * Zero is success, KYTOS_DEFERRED is a handler's "I will finish later",
 * negative values are errors (libuv style).  Codes are never renumbered. */
#ifndef KYTOS_ERRORS_H
#define KYTOS_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

enum kytos_status {
    KYTOS_OK = 0,
    KYTOS_DEFERRED = 1,   /* handler: the response comes later (kytos_req_finish) */
    KYTOS_ERROR = -1,     /* generic failure */
    KYTOS_ENOMEM = -2,    /* out of memory */
    KYTOS_EINVAL = -3,    /* bad argument (names what in kytos_error.message) */
    KYTOS_ENOTFOUND = -4, /* no such document / route / napp */
    KYTOS_EEXIST = -5,    /* duplicate key, duplicate route */
    KYTOS_ESTATE = -6,    /* not allowed now (e.g. route_add after init) */
    KYTOS_ETIMEDOUT = -7, /* deadline passed */
    KYTOS_EUNAVAIL = -8,  /* backend unavailable (store down, shutting down) */
    KYTOS_EFULL = -9,     /* queue full / rate limit reached (non-blocking calls) */
    KYTOS_ENOTSUP = -10,  /* not supported by this host or backend */
    KYTOS_EFILTER = -11,  /* bad store filter, update or projection */
    KYTOS_EIO = -12,      /* I/O error */
    KYTOS_ETOOBIG = -13   /* size limit exceeded */
};

/* Caller-allocated error detail (libbson's bson_error_t idiom): no ownership
 * question.  Every call taking one may be given NULL.  Fixed layout for the
 * life of ABI major 1 (no struct_size: the host fills it). */
struct kytos_error {
    int code;             /* an enum kytos_status value */
    char message[256];    /* NUL-terminated, human readable */
};

#ifdef __cplusplus
}
#endif

#endif
