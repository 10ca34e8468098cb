/* plugins/of_core/ofp/ofp_int.h - internals of libofp: big-endian reads of
 * untrusted bytes (the caller has checked the bounds), appends to an
 * ofp_buf, message begin/finish and error reporting. */
#ifndef KYTOS_OFP_INT_H
#define KYTOS_OFP_INT_H

#include "ofp.h"

#include <stdarg.h>

static inline uint16_t ofp_rd16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}
static inline uint32_t ofp_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t ofp_rd64(const uint8_t *p)
{
    return (uint64_t)ofp_rd32(p) << 32 | ofp_rd32(p + 4);
}

void ofp_put(struct ofp_buf *b, const void *p, size_t n);
void ofp_put_zeros(struct ofp_buf *b, size_t n);
void ofp_put8(struct ofp_buf *b, uint8_t v);
void ofp_put16(struct ofp_buf *b, uint16_t v);
void ofp_put32(struct ofp_buf *b, uint32_t v);
void ofp_put64(struct ofp_buf *b, uint64_t v);
/* Overwrite a u16 already written at off. */
void ofp_patch16(struct ofp_buf *b, size_t off, uint16_t v);

/* Write a version-4 header with length 0; returns where the message starts. */
size_t ofp_msg_begin(struct ofp_buf *b, uint8_t type, uint32_t xid);

/* printf into err (if any); returns status. */
int ofp_fail(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The common start of a decoder: msg is one message of the given type,
 * version 4, header length == len, at least min bytes.  Fills h. */
int ofp_msg_check(const uint8_t *msg, size_t len, uint8_t type, size_t min,
                  struct ofp_header *h, char *err, size_t errlen);

#endif
