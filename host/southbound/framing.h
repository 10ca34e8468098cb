/* host/southbound/framing.h - cutting a byte stream into OpenFlow messages.
 *
 * Every OpenFlow message starts with an 8-byte header: version u8, type u8,
 * length u16 (the whole message, big-endian), xid u32.  The framer takes
 * the bytes of each read as they come (several messages per read, a message
 * split over reads, a header split over reads) and hands out whole
 * messages: borrowed straight from the read buffer when they lie in it,
 * else from the framer's own copy of the pieces.
 *
 * Only the framing is checked, not the protocol (of_core negotiates the
 * version): a version outside 1..6 or a length below 8 is an error, and
 * the connection must be closed (Kytos' of_slicer resynchronises instead,
 * which turns garbage into messages).  Memory: at most one incomplete
 * message per connection, at most 65535 bytes, freed when it completes. */
#ifndef KH_SB_FRAMING_H
#define KH_SB_FRAMING_H

#include <stddef.h>
#include <stdint.h>

#define KH_OFP_HEADER_LEN 8
#define KH_OFP_VERSION_MIN 1
#define KH_OFP_VERSION_MAX 6

struct kh_framer {
    uint8_t hdr[KH_OFP_HEADER_LEN]; /* a header still incomplete */
    size_t hlen;                    /* bytes of it held (0..7), 0 once known */
    uint8_t *msg;                   /* an incomplete message, header included */
    size_t need, have;              /* its length, bytes of it held */
};

enum kh_frame_status {
    KH_FRAME_OK = 0,
    KH_FRAME_STOPPED,       /* the callback asked to stop */
    KH_FRAME_BAD_VERSION,
    KH_FRAME_BAD_LENGTH,
    KH_FRAME_NOMEM
};

/* One whole message (borrowed until return).  Nonzero stops feeding. */
typedef int (*kh_frame_fn)(void *ud, const uint8_t *msg, size_t len);

struct kh_frame_error {
    unsigned version, length;   /* the offending header's fields */
};

/* Feed n bytes; calls fn for each message completed, in order.  On a bad
 * header, err (may be NULL) names its fields and the framer must not be
 * fed again. */
enum kh_frame_status kh_framer_feed(struct kh_framer *f, const uint8_t *data, size_t n,
                                    kh_frame_fn fn, void *ud, struct kh_frame_error *err);
/* Bytes of an incomplete message held (header bytes included). */
size_t kh_framer_pending(const struct kh_framer *f);
/* Release what the framer holds (it can be fed again afterwards). */
void kh_framer_reset(struct kh_framer *f);
/* Check one header: KH_FRAME_OK, KH_FRAME_BAD_VERSION or KH_FRAME_BAD_LENGTH;
 * *len gets the length field. */
enum kh_frame_status kh_ofp_header_check(const uint8_t *hdr, size_t *len);

#endif
