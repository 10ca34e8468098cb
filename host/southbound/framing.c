/* host/southbound/framing.c - OpenFlow framing (see framing.h). */
#include "southbound/framing.h"
#include <stdlib.h>
#include <string.h>

enum kh_frame_status kh_ofp_header_check(const uint8_t *hdr, size_t *len)
{
    *len = (size_t)hdr[2] << 8 | hdr[3];
    if (hdr[0] < KH_OFP_VERSION_MIN || hdr[0] > KH_OFP_VERSION_MAX)
        return KH_FRAME_BAD_VERSION;
    if (*len < KH_OFP_HEADER_LEN)
        return KH_FRAME_BAD_LENGTH;
    return KH_FRAME_OK;
}

static enum kh_frame_status bad(const uint8_t *hdr, enum kh_frame_status st,
                                struct kh_frame_error *err)
{
    if (err) {
        err->version = hdr[0];
        err->length = (unsigned)hdr[2] << 8 | hdr[3];
    }
    return st;
}

static size_t f_len(const uint8_t *m) { return (size_t)m[2] << 8 | m[3]; }

/* Start holding an incomplete message whose header is complete. */
static enum kh_frame_status hold(struct kh_framer *f, const uint8_t *hdr, size_t len,
                                 const uint8_t *more, size_t nmore)
{
    f->msg = malloc(len);
    if (!f->msg)
        return KH_FRAME_NOMEM;
    memcpy(f->msg, hdr, KH_OFP_HEADER_LEN);
    if (nmore)
        memcpy(f->msg + KH_OFP_HEADER_LEN, more, nmore);
    f->need = len;
    f->have = KH_OFP_HEADER_LEN + nmore;
    f->hlen = 0;
    return KH_FRAME_OK;
}

/* Complete what is held from the front of data; *used gets the bytes taken. */
static enum kh_frame_status finish_held(struct kh_framer *f, const uint8_t *data, size_t n,
                                        size_t *used, kh_frame_fn fn, void *ud,
                                        struct kh_frame_error *err)
{
    size_t len, take;
    enum kh_frame_status st;

    *used = 0;
    if (f->hlen) {                       /* a header in pieces */
        take = KH_OFP_HEADER_LEN - f->hlen;
        if (take > n)
            take = n;
        memcpy(f->hdr + f->hlen, data, take);
        f->hlen += take;
        *used = take;
        if (f->hlen < KH_OFP_HEADER_LEN)
            return KH_FRAME_OK;
        if ((st = kh_ofp_header_check(f->hdr, &len)) != KH_FRAME_OK)
            return bad(f->hdr, st, err);
        if (len == KH_OFP_HEADER_LEN) {  /* a bare header is a whole message */
            f->hlen = 0;
            return fn(ud, f->hdr, len) ? KH_FRAME_STOPPED : KH_FRAME_OK;
        }
        if ((st = hold(f, f->hdr, len, NULL, 0)) != KH_FRAME_OK)
            return st;
    }
    if (f->msg) {
        take = f->need - f->have;
        if (take > n - *used)
            take = n - *used;
        memcpy(f->msg + f->have, data + *used, take);
        f->have += take;
        *used += take;
        if (f->have == f->need) {
            uint8_t *m = f->msg;
            int stop;
            f->msg = NULL;
            f->need = f->have = 0;
            stop = fn(ud, m, f_len(m));
            free(m);
            if (stop)
                return KH_FRAME_STOPPED;
        }
    }
    return KH_FRAME_OK;
}

enum kh_frame_status kh_framer_feed(struct kh_framer *f, const uint8_t *data, size_t n,
                                    kh_frame_fn fn, void *ud, struct kh_frame_error *err)
{
    enum kh_frame_status st;
    size_t off = 0, len;

    if (f->hlen || f->msg) {
        if ((st = finish_held(f, data, n, &off, fn, ud, err)) != KH_FRAME_OK)
            return st;
        if (f->hlen || f->msg)
            return KH_FRAME_OK;          /* everything went into the held piece */
    }
    /* whole messages straight from the caller's buffer */
    while (n - off >= KH_OFP_HEADER_LEN) {
        if ((st = kh_ofp_header_check(data + off, &len)) != KH_FRAME_OK)
            return bad(data + off, st, err);
        if (n - off < len)
            return hold(f, data + off, len, data + off + KH_OFP_HEADER_LEN,
                        n - off - KH_OFP_HEADER_LEN);
        if (fn(ud, data + off, len))
            return KH_FRAME_STOPPED;
        off += len;
    }
    if (off < n) {                       /* the start of a header */
        memcpy(f->hdr, data + off, n - off);
        f->hlen = n - off;
    }
    return KH_FRAME_OK;
}

size_t kh_framer_pending(const struct kh_framer *f)
{
    return f->msg ? f->have : f->hlen;
}

void kh_framer_reset(struct kh_framer *f)
{
    free(f->msg);
    memset(f, 0, sizeof *f);
}
