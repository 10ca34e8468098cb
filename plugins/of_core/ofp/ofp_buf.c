/* plugins/of_core/ofp/ofp_buf.c - the growable output buffer, message
 * begin/finish, error strings. */
#include "ofp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ofp_buf_init(struct ofp_buf *b)
{
    memset(b, 0, sizeof *b);
}

void ofp_buf_free(struct ofp_buf *b)
{
    free(b->data);
    ofp_buf_init(b);
}

static int grow(struct ofp_buf *b, size_t n)
{
    size_t cap;
    uint8_t *p;

    if (b->oom)
        return -1;
    if (b->len + n <= b->cap)
        return 0;
    if (n > SIZE_MAX / 2 - b->len) {
        b->oom = 1;
        return -1;
    }
    cap = b->cap ? b->cap : 128;
    while (cap < b->len + n)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void ofp_put(struct ofp_buf *b, const void *p, size_t n)
{
    if (n == 0 || grow(b, n) != 0)
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void ofp_put_zeros(struct ofp_buf *b, size_t n)
{
    if (n == 0 || grow(b, n) != 0)
        return;
    memset(b->data + b->len, 0, n);
    b->len += n;
}

void ofp_put8(struct ofp_buf *b, uint8_t v)
{
    ofp_put(b, &v, 1);
}

void ofp_put16(struct ofp_buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    ofp_put(b, x, 2);
}

void ofp_put32(struct ofp_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    ofp_put(b, x, 4);
}

void ofp_put64(struct ofp_buf *b, uint64_t v)
{
    ofp_put32(b, (uint32_t)(v >> 32));
    ofp_put32(b, (uint32_t)v);
}

void ofp_patch16(struct ofp_buf *b, size_t off, uint16_t v)
{
    if (b->oom || off + 2 > b->len)
        return;
    b->data[off] = (uint8_t)(v >> 8);
    b->data[off + 1] = (uint8_t)v;
}

size_t ofp_msg_begin(struct ofp_buf *b, uint8_t type, uint32_t xid)
{
    size_t start = b->len;
    ofp_put8(b, OFP_VERSION);
    ofp_put8(b, type);
    ofp_put16(b, 0);
    ofp_put32(b, xid);
    return start;
}

int ofp_msg_finish(struct ofp_buf *b, size_t start, char *err, size_t errlen)
{
    size_t n;

    if (b->oom)
        return ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory encoding a message");
    n = b->len - start;
    if (start > b->len || n < OFP_HEADER_LEN)
        return ofp_fail(err, errlen, OFP_E_INVAL, "message start is not a header");
    if (n > OFP_MAX_MSG_LEN) {
        b->len = start;
        return ofp_fail(err, errlen, OFP_E_TOOBIG, "encoded %s is %zu bytes, over 65535",
                        ofp_type_name(b->data[start + 1]), n);
    }
    ofp_patch16(b, start + 2, (uint16_t)n);
    return 0;
}

int ofp_fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *ofp_strerror(int status)
{
    switch (status) {
    case OFP_OK: return "ok";
    case OFP_E_SHORT: return "truncated";
    case OFP_E_LENGTH: return "bad length";
    case OFP_E_VERSION: return "bad version";
    case OFP_E_TYPE: return "unexpected type";
    case OFP_E_LIMIT: return "too many entries";
    case OFP_E_INVAL: return "invalid value";
    case OFP_E_NOMEM: return "out of memory";
    case OFP_E_TOOBIG: return "message too big";
    default: return "unknown error";
    }
}
