/* openapi/params.h - query strings and parameter casting (internal). */
#ifndef KYTOS_OPENAPI_PARAMS_H
#define KYTOS_OPENAPI_PARAMS_H

#include "spec.h"

struct koa_qpair {
    const char *name;   /* decoded, NUL-terminated */
    size_t nlen;
    const char *value;  /* decoded, NUL-terminated (may contain NUL) */
    size_t vlen;
};

struct koa_query {
    struct koa_qpair *v;
    size_t n;
    struct ku_buf store;
};

/* Split and decode a raw query string (without '?').  -1 with a message
 * when a limit of o is exceeded. */
int koa_query_parse(const char *q, const struct kytos_openapi_options *o,
                    struct koa_query *out, char *err, size_t errlen);
void koa_query_free(struct koa_query *q);

/* Percent-decode (no '+' rule) into b; invalid UTF-8 becomes U+FFFD.
 * Returns the number of bytes appended, or -1 at a bad escape ("%zz", a
 * trailing '%': util/text.h) with *bad its offset in s. */
long koa_pct_decode(struct ku_buf *b, const char *s, size_t n, size_t *bad);
/* "Bad percent-encoding '%zz' in <where>" into err, for s (n bytes) with a
 * bad escape at offset bad. */
void koa_pct_bad(char *err, size_t errlen, const char *s, size_t n, size_t bad, const char *where);

/* Cast the parameter's raw values (one, or several for a repeated query
 * key) to its declared type.  NULL with a message in err on failure (a
 * NULL return with err empty is JSON null, which never happens here). */
json_object *koa_param_cast(const struct koa_param *p, const char *const *vals,
                            const size_t *lens, size_t nvals, struct ku_buf *err);

#endif
