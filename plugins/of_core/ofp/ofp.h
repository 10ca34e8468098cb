/* plugins/of_core/ofp/ofp.h - OpenFlow 1.3 codec (libofp.la): framing,
 * message encoders and decoders, OXM match, instructions and actions, and
 * the JSON bridge to Kytos' flow dicts.  Self-contained (libc + json-c),
 * no dependency on the host.  Layouts follow OpenFlow 1.3.5 as pyof lays
 * them out (southbound.md section 7).
 *
 * Conventions
 * - Every function that can fail returns 0 (or a positive count where
 *   stated) on success and a negative OFP_E_* code on failure, and then
 *   writes a message naming what was wrong into err (errlen bytes; err may
 *   be NULL).
 * - Encoders APPEND one message to a struct ofp_buf, so several messages
 *   can be batched into one write; the header length is patched in and an
 *   encoding over 65535 bytes fails with OFP_E_TOOBIG (the buffer is then
 *   rolled back to where the message began).
 * - Decoders take exactly one framed message (msg, len) -- as cut by
 *   ofp_frame_next() -- and check the header's type, version 4 and that the
 *   header length equals len.  They treat the bytes as hostile: every
 *   declared length is checked against the bytes present and never read
 *   past.  Pointers returned into the message (data, body) borrow msg.
 * - Decoded variable-size lists have fixed caps (OFP_MAX_*); more entries
 *   than a cap is OFP_E_LIMIT, never a silent truncation.
 */
#ifndef KYTOS_OFP_H
#define KYTOS_OFP_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

#define OFP_VERSION 0x04
#define OFP_HEADER_LEN 8
#define OFP_MAX_MSG_LEN 65535

/* ---- status codes ------------------------------------------------------ */
enum ofp_status {
    OFP_OK = 0,
    OFP_E_SHORT = -1,   /* fewer bytes than the structure needs */
    OFP_E_LENGTH = -2,  /* a declared length is impossible (too small, overruns, not aligned) */
    OFP_E_VERSION = -3, /* not an OpenFlow version we frame / not 1.3 */
    OFP_E_TYPE = -4,    /* not the message / element type this decoder handles */
    OFP_E_LIMIT = -5,   /* more entries than the decoder's fixed cap */
    OFP_E_INVAL = -6,   /* a bad value (unknown action to encode, bad JSON field, ...) */
    OFP_E_NOMEM = -7,
    OFP_E_TOOBIG = -8,  /* the encoded message would exceed 65535 bytes */
};
/* A short constant name for a status ("truncated", "bad length", ...). */
const char *ofp_strerror(int status);

/* ---- constants --------------------------------------------------------- */
enum ofp_type {
    OFPT_HELLO = 0, OFPT_ERROR = 1, OFPT_ECHO_REQUEST = 2, OFPT_ECHO_REPLY = 3,
    OFPT_EXPERIMENTER = 4, OFPT_FEATURES_REQUEST = 5, OFPT_FEATURES_REPLY = 6,
    OFPT_GET_CONFIG_REQUEST = 7, OFPT_GET_CONFIG_REPLY = 8, OFPT_SET_CONFIG = 9,
    OFPT_PACKET_IN = 10, OFPT_FLOW_REMOVED = 11, OFPT_PORT_STATUS = 12,
    OFPT_PACKET_OUT = 13, OFPT_FLOW_MOD = 14, OFPT_GROUP_MOD = 15, OFPT_PORT_MOD = 16,
    OFPT_TABLE_MOD = 17, OFPT_MULTIPART_REQUEST = 18, OFPT_MULTIPART_REPLY = 19,
    OFPT_BARRIER_REQUEST = 20, OFPT_BARRIER_REPLY = 21,
};
/* Lower-case pyof name of a message type ("ofpt_flow_mod"), as in Kytos'
 * event names; "ofpt_unknown" for others. */
const char *ofp_type_name(uint8_t type);

#define OFPP_MAX 0xffffff00u
#define OFPP_IN_PORT 0xfffffff8u
#define OFPP_TABLE 0xfffffff9u
#define OFPP_NORMAL 0xfffffffau
#define OFPP_FLOOD 0xfffffffbu
#define OFPP_ALL 0xfffffffcu
#define OFPP_CONTROLLER 0xfffffffdu
#define OFPP_LOCAL 0xfffffffeu
#define OFPP_ANY 0xffffffffu
#define OFPG_ANY 0xffffffffu
#define OFP_NO_BUFFER 0xffffffffu
#define OFPTT_ALL 0xff
#define OFPCML_NO_BUFFER 0xffff
#define OFPVID_PRESENT 0x1000

enum ofp_flow_mod_command {
    OFPFC_ADD = 0, OFPFC_MODIFY = 1, OFPFC_MODIFY_STRICT = 2, OFPFC_DELETE = 3,
    OFPFC_DELETE_STRICT = 4,
};
enum ofp_flow_mod_flags {
    OFPFF_SEND_FLOW_REM = 1, OFPFF_CHECK_OVERLAP = 2, OFPFF_RESET_COUNTS = 4,
    OFPFF_NO_PKT_COUNTS = 8, OFPFF_NO_BYT_COUNTS = 16,
};
enum ofp_multipart_type {
    OFPMP_DESC = 0, OFPMP_FLOW = 1, OFPMP_AGGREGATE = 2, OFPMP_TABLE = 3,
    OFPMP_PORT_STATS = 4, OFPMP_QUEUE = 5, OFPMP_GROUP = 6, OFPMP_TABLE_FEATURES = 12,
    OFPMP_PORT_DESC = 13,
};
#define OFPMPF_REPLY_MORE 1
enum ofp_port_reason { OFPPR_ADD = 0, OFPPR_DELETE = 1, OFPPR_MODIFY = 2 };
enum ofp_port_config { OFPPC_PORT_DOWN = 1, OFPPC_NO_RECV = 4, OFPPC_NO_FWD = 32,
                       OFPPC_NO_PACKET_IN = 64 };
enum ofp_port_state { OFPPS_LINK_DOWN = 1, OFPPS_BLOCKED = 2, OFPPS_LIVE = 4 };

/* OXM (class OPENFLOW_BASIC) field numbers. */
#define OFPXMC_OPENFLOW_BASIC 0x8000
enum ofp_oxm_field {
    OFPXMT_IN_PORT = 0, OFPXMT_IN_PHY_PORT = 1, OFPXMT_METADATA = 2, OFPXMT_ETH_DST = 3,
    OFPXMT_ETH_SRC = 4, OFPXMT_ETH_TYPE = 5, OFPXMT_VLAN_VID = 6, OFPXMT_VLAN_PCP = 7,
    OFPXMT_IP_DSCP = 8, OFPXMT_IP_ECN = 9, OFPXMT_IP_PROTO = 10, OFPXMT_IPV4_SRC = 11,
    OFPXMT_IPV4_DST = 12, OFPXMT_TCP_SRC = 13, OFPXMT_TCP_DST = 14, OFPXMT_UDP_SRC = 15,
    OFPXMT_UDP_DST = 16, OFPXMT_SCTP_SRC = 17, OFPXMT_SCTP_DST = 18, OFPXMT_ICMPV4_TYPE = 19,
    OFPXMT_ICMPV4_CODE = 20, OFPXMT_ARP_OP = 21, OFPXMT_ARP_SPA = 22, OFPXMT_ARP_TPA = 23,
    OFPXMT_ARP_SHA = 24, OFPXMT_ARP_THA = 25, OFPXMT_IPV6_SRC = 26, OFPXMT_IPV6_DST = 27,
    OFPXMT_IPV6_FLABEL = 28, OFPXMT_ICMPV6_TYPE = 29, OFPXMT_ICMPV6_CODE = 30,
    OFPXMT_IPV6_ND_TARGET = 31, OFPXMT_IPV6_ND_SLL = 32, OFPXMT_IPV6_ND_TLL = 33,
    OFPXMT_MPLS_LABEL = 34, OFPXMT_MPLS_TC = 35, OFPXMT_MPLS_BOS = 36, OFPXMT_PBB_ISID = 37,
    OFPXMT_TUNNEL_ID = 38, OFPXMT_IPV6_EXTHDR = 39,
};

enum ofp_instruction_type {
    OFPIT_GOTO_TABLE = 1, OFPIT_WRITE_METADATA = 2, OFPIT_WRITE_ACTIONS = 3,
    OFPIT_APPLY_ACTIONS = 4, OFPIT_CLEAR_ACTIONS = 5, OFPIT_METER = 6,
};
enum ofp_action_type {
    OFPAT_OUTPUT = 0, OFPAT_PUSH_VLAN = 17, OFPAT_POP_VLAN = 18, OFPAT_SET_QUEUE = 21,
    OFPAT_GROUP = 22, OFPAT_SET_FIELD = 25,
};

/* ---- output buffer ----------------------------------------------------- */
struct ofp_buf {
    uint8_t *data;
    size_t len, cap;
    int oom;   /* set once a growth failed; later appends are dropped */
};
void ofp_buf_init(struct ofp_buf *b);
void ofp_buf_free(struct ofp_buf *b);   /* releases data, leaves b empty and reusable */

/* ---- framing and header ------------------------------------------------- */
/* Length of the next complete message at buf (len bytes): > 0 the whole
 * message is present (its length), 0 more bytes are needed, OFP_E_VERSION
 * when byte 0 is not an OpenFlow version 1..6 (0x01..0x06; the header
 * layout is the same in all of them), OFP_E_LENGTH when the declared length
 * is below 8.  Reads at most the first 4 bytes; never past len. */
int ofp_frame_next(const uint8_t *buf, size_t len);

struct ofp_header {
    uint8_t version, type;
    uint16_t length;
    uint32_t xid;
};
/* The header of a framed message: len >= 8 and header length == len.  Any
 * version is accepted here (the HELLO of another version is legal). */
int ofp_header_decode(const uint8_t *msg, size_t len, struct ofp_header *h, char *err,
                      size_t errlen);

/* A header-only message (FEATURES_REQUEST, BARRIER_REQUEST/REPLY,
 * GET_CONFIG_REQUEST, a bare HELLO). */
int ofp_empty_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, char *err, size_t errlen);
/* Checks msg is a header-only message of type (no body). */
int ofp_empty_decode(const uint8_t *msg, size_t len, uint8_t type, uint32_t *xid, char *err,
                     size_t errlen);

/* ---- HELLO --------------------------------------------------------------- */
struct ofp_hello {
    uint8_t version;      /* the header's */
    uint32_t xid;
    int has_bitmap;       /* a VERSIONBITMAP element was present */
    uint32_t bitmap;      /* its first word: bit v set = version v supported */
    unsigned n_elements;  /* all elements seen (unknown types are skipped) */
};
/* HELLO of version 4; bitmap != 0 adds one VERSIONBITMAP element (16 B total),
 * 0 gives the bare 8-byte HELLO Kytos sends. */
int ofp_hello_encode(struct ofp_buf *b, uint32_t xid, uint32_t bitmap, char *err,
                     size_t errlen);
/* Any header version; elements are TLVs (type u16, len u16 >= 4, padded to 8). */
int ofp_hello_decode(const uint8_t *msg, size_t len, struct ofp_hello *h, char *err,
                     size_t errlen);
/* of_core's negotiation: with a bitmap, 4 if bit 4 is set; without, 4 if
 * the header version is >= 4.  Else 0 (answer HELLO_FAILED and close). */
int ofp_hello_negotiate(const struct ofp_hello *h);

/* ---- ECHO, ERROR, FEATURES, CONFIG ---------------------------------------- */
/* type is OFPT_ECHO_REQUEST or OFPT_ECHO_REPLY; data may be NULL if dlen 0. */
int ofp_echo_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const void *data,
                    size_t dlen, char *err, size_t errlen);
int ofp_echo_decode(const uint8_t *msg, size_t len, uint8_t type, uint32_t *xid,
                    const uint8_t **data, size_t *dlen, char *err, size_t errlen);

struct ofp_error_msg {
    uint32_t xid;
    uint16_t type, code;
    const uint8_t *data;   /* usually the start of the offending request */
    size_t data_len;
};
int ofp_error_encode(struct ofp_buf *b, const struct ofp_error_msg *e, char *err,
                     size_t errlen);
int ofp_error_decode(const uint8_t *msg, size_t len, struct ofp_error_msg *e, char *err,
                     size_t errlen);

struct ofp_features {
    uint32_t xid;
    uint64_t datapath_id;
    uint32_t n_buffers;
    uint8_t n_tables, auxiliary_id;
    uint32_t capabilities, reserved;
};
int ofp_features_reply_encode(struct ofp_buf *b, const struct ofp_features *f, char *err,
                              size_t errlen);
int ofp_features_reply_decode(const uint8_t *msg, size_t len, struct ofp_features *f,
                              char *err, size_t errlen);
/* Kytos' DPID text: "00:00:00:00:00:00:00:01" (23 chars + NUL). */
void ofp_dpid_format(uint64_t dpid, char out[24]);

struct ofp_switch_config {
    uint32_t xid;
    uint16_t flags, miss_send_len;
};
/* type OFPT_SET_CONFIG or OFPT_GET_CONFIG_REPLY (same 12-byte layout). */
int ofp_switch_config_encode(struct ofp_buf *b, uint8_t type, const struct ofp_switch_config *c,
                             char *err, size_t errlen);
int ofp_switch_config_decode(const uint8_t *msg, size_t len, uint8_t type,
                             struct ofp_switch_config *c, char *err, size_t errlen);

/* ---- OXM match ------------------------------------------------------------ */
#define OFP_MAX_OXM 40
#define OFP_OXM_MAX_PAYLOAD 32
struct ofp_oxm {
    uint16_t oxm_class;   /* OFPXMC_OPENFLOW_BASIC for every field we build */
    uint8_t field;        /* 7 bits */
    uint8_t hasmask;
    uint8_t len;          /* payload bytes: value (+ mask of the same size) */
    uint8_t data[OFP_OXM_MAX_PAYLOAD];   /* value, then mask */
};
struct ofp_match {
    unsigned n;
    struct ofp_oxm oxm[OFP_MAX_OXM];
    unsigned n_skipped;   /* decoded TLVs not kept: payload over 32 bytes (non-basic classes) */
};
/* Value size in bytes of a basic field (IN_PORT 4, ETH_DST 6, ...), or 0 for
 * a field number outside 0..39. */
unsigned ofp_oxm_field_size(uint8_t field);
static inline unsigned ofp_oxm_value_len(const struct ofp_oxm *o)
{
    return o->hasmask ? o->len / 2u : o->len;
}
/* The value / mask as an unsigned big-endian integer (first 8 bytes at most). */
uint64_t ofp_oxm_value_uint(const struct ofp_oxm *o);
uint64_t ofp_oxm_mask_uint(const struct ofp_oxm *o);
/* Fill o as a basic field: vlen must be the field's size; mask NULL = unmasked. */
int ofp_oxm_set(struct ofp_oxm *o, uint8_t field, const void *value, const void *mask,
                size_t vlen, char *err, size_t errlen);
/* The same from integers, written big-endian in the field's size. */
int ofp_oxm_set_uint(struct ofp_oxm *o, uint8_t field, uint64_t value, const uint64_t *mask,
                     char *err, size_t errlen);
/* Append a field to m (ofp_oxm_set / _set_uint semantics); OFP_E_LIMIT when full. */
int ofp_match_add(struct ofp_match *m, uint8_t field, const void *value, const void *mask,
                  size_t vlen, char *err, size_t errlen);
int ofp_match_add_uint(struct ofp_match *m, uint8_t field, uint64_t value, const uint64_t *mask,
                       char *err, size_t errlen);
/* The first basic field of that number, or NULL. */
const struct ofp_oxm *ofp_match_find(const struct ofp_match *m, uint8_t field);
/* ofp_match (type 1 = OXM, length = 4 + TLVs) + zero padding to 8. */
int ofp_match_encode(struct ofp_buf *b, const struct ofp_match *m, char *err, size_t errlen);
/* Decode an ofp_match at p (avail bytes); *used = its padded length.
 * Type must be 1; basic-class TLVs must have their field's exact size
 * (doubled when masked); TLVs are bounded by the match length. */
int ofp_match_decode(const uint8_t *p, size_t avail, struct ofp_match *m, size_t *used,
                     char *err, size_t errlen);
/* One OXM TLV (header + payload) at p, bounded by avail; *used = 4 + len.
 * Returns 1 when the TLV was stored in o, 0 when skipped (too long, non-basic). */
int ofp_oxm_decode(const uint8_t *p, size_t avail, struct ofp_oxm *o, size_t *used, char *err,
                   size_t errlen);

/* ---- actions and instructions -------------------------------------------- */
#define OFP_MAX_ACTIONS 64
#define OFP_MAX_INSTRUCTIONS 8
struct ofp_action {
    uint16_t type;         /* OFPAT_* */
    uint16_t len;          /* decoded TLV length (encode computes its own) */
    uint32_t port;         /* OUTPUT */
    uint16_t max_len;      /* OUTPUT */
    uint16_t ethertype;    /* PUSH_VLAN */
    uint32_t queue_id;     /* SET_QUEUE */
    uint32_t group_id;     /* GROUP */
    struct ofp_oxm field;  /* SET_FIELD (unmasked) */
};
/* Encode n actions (OUTPUT, PUSH_VLAN, POP_VLAN, SET_QUEUE, GROUP,
 * SET_FIELD); another type is OFP_E_INVAL. */
int ofp_actions_encode(struct ofp_buf *b, const struct ofp_action *a, unsigned n, char *err,
                       size_t errlen);
/* Decode the action list of exactly len bytes; each action's len is >= 8, a
 * multiple of 8 and within the list.  Unknown types keep type and len only. */
int ofp_actions_decode(const uint8_t *p, size_t len, struct ofp_action *out, unsigned max,
                       unsigned *n, char *err, size_t errlen);

struct ofp_instruction {
    uint16_t type;                    /* OFPIT_* */
    uint8_t table_id;                 /* GOTO_TABLE */
    uint32_t meter_id;                /* METER */
    uint64_t metadata, metadata_mask; /* WRITE_METADATA */
    unsigned first, n_actions;        /* *_ACTIONS: range in ofp_instructions.actions */
};
struct ofp_instructions {
    unsigned n;
    struct ofp_instruction ins[OFP_MAX_INSTRUCTIONS];
    unsigned n_actions;                        /* actions of all instructions */
    struct ofp_action actions[OFP_MAX_ACTIONS];
};
/* Builders: append an instruction (its actions start empty), and append an
 * action to the last instruction, which must be WRITE/APPLY_ACTIONS. */
int ofp_instructions_add(struct ofp_instructions *s, const struct ofp_instruction *in,
                         char *err, size_t errlen);
int ofp_instructions_add_action(struct ofp_instructions *s, const struct ofp_action *a,
                                char *err, size_t errlen);
int ofp_instructions_encode(struct ofp_buf *b, const struct ofp_instructions *s, char *err,
                            size_t errlen);
/* Decode exactly len bytes of instructions (each len >= 8, multiple of 8,
 * within the list; unknown types are an error). */
int ofp_instructions_decode(const uint8_t *p, size_t len, struct ofp_instructions *s,
                            char *err, size_t errlen);

/* ---- FLOW_MOD ------------------------------------------------------------ */
struct ofp_flow_mod {
    uint32_t xid;
    uint64_t cookie, cookie_mask;
    uint8_t table_id, command;
    uint16_t idle_timeout, hard_timeout, priority;
    uint32_t buffer_id, out_port, out_group;
    uint16_t flags;
    struct ofp_match match;
    struct ofp_instructions instructions;
};
/* Zero everything, then Kytos' defaults: priority 0x8000, NO_BUFFER,
 * out_port/out_group ANY, flags SEND_FLOW_REM, command ADD, table 0. */
void ofp_flow_mod_init(struct ofp_flow_mod *fm);
int ofp_flow_mod_encode(struct ofp_buf *b, const struct ofp_flow_mod *fm, char *err,
                        size_t errlen);
int ofp_flow_mod_decode(const uint8_t *msg, size_t len, struct ofp_flow_mod *fm, char *err,
                        size_t errlen);

/* ---- ports --------------------------------------------------------------- */
struct ofp_port {
    uint32_t port_no;
    uint8_t hw_addr[6];
    char name[17];   /* the 16 wire bytes up to the first NUL, NUL-terminated */
    uint32_t config, state, curr, advertised, supported, peer, curr_speed, max_speed;
};
#define OFP_PORT_LEN 64
/* One 64-byte ofp_port (p must have 64 bytes). */
void ofp_port_decode(const uint8_t *p, struct ofp_port *port);
int ofp_port_encode(struct ofp_buf *b, const struct ofp_port *port, char *err, size_t errlen);

struct ofp_port_status {
    uint32_t xid;
    uint8_t reason;   /* OFPPR_* */
    struct ofp_port desc;
};
int ofp_port_status_encode(struct ofp_buf *b, const struct ofp_port_status *ps, char *err,
                           size_t errlen);
int ofp_port_status_decode(const uint8_t *msg, size_t len, struct ofp_port_status *ps,
                           char *err, size_t errlen);

/* ---- MULTIPART ------------------------------------------------------------ */
struct ofp_multipart {
    uint32_t xid;
    uint16_t type, flags;   /* OFPMP_*, OFPMPF_REPLY_MORE */
    const uint8_t *body;    /* borrows msg */
    size_t body_len;
};
/* Request with an opaque body (PORT_DESC, DESC, TABLE: body NULL, 0). */
int ofp_multipart_request_encode(struct ofp_buf *b, uint32_t xid, uint16_t type, uint16_t flags,
                                 const void *body, size_t body_len, char *err, size_t errlen);
struct ofp_flow_stats_request {
    uint32_t xid;
    uint8_t table_id;
    uint32_t out_port, out_group;
    uint64_t cookie, cookie_mask;
    struct ofp_match match;
};
/* Zero, then of_core's request: all tables, ANY/ANY, empty match. */
void ofp_flow_stats_request_init(struct ofp_flow_stats_request *r);
int ofp_flow_stats_request_encode(struct ofp_buf *b, const struct ofp_flow_stats_request *r,
                                  char *err, size_t errlen);
/* type is OFPT_MULTIPART_REQUEST or OFPT_MULTIPART_REPLY. */
int ofp_multipart_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_multipart *mp,
                         char *err, size_t errlen);
/* Reply builder (tests, simulators): begin writes the header and multipart
 * header and returns the message start in *start; append bodies; end
 * patches the length. */
int ofp_multipart_reply_begin(struct ofp_buf *b, uint32_t xid, uint16_t type, uint16_t flags,
                              size_t *start);
int ofp_msg_finish(struct ofp_buf *b, size_t start, char *err, size_t errlen);

struct ofp_flow_stats {
    uint8_t table_id;
    uint32_t duration_sec, duration_nsec;
    uint16_t priority, idle_timeout, hard_timeout, flags;
    uint64_t cookie, packet_count, byte_count;
    struct ofp_match match;
    struct ofp_instructions instructions;
};
/* Iterate a FLOW reply body: 1 = *fs filled and *off advanced, 0 = end of
 * body, < 0 = error (entry length < 56, over the body, not a multiple of 8,
 * or a bad match/instruction inside). Start with *off = 0. */
int ofp_flow_stats_next(const uint8_t *body, size_t len, size_t *off, struct ofp_flow_stats *fs,
                        char *err, size_t errlen);
int ofp_flow_stats_encode(struct ofp_buf *b, const struct ofp_flow_stats *fs, char *err,
                          size_t errlen);
/* Iterate a PORT_DESC reply body (64-byte ports): 1 / 0 / < 0 as above;
 * a body that is not a multiple of 64 is an error at its tail. */
int ofp_port_desc_next(const uint8_t *body, size_t len, size_t *off, struct ofp_port *port,
                       char *err, size_t errlen);

/* DESC reply body (1056 bytes): the strings up to their first NUL. */
struct ofp_desc {
    char mfr_desc[257], hw_desc[257], sw_desc[257], serial_num[33], dp_desc[257];
};
#define OFP_DESC_LEN 1056
/* body must be exactly 1056 bytes. */
int ofp_desc_decode(const uint8_t *body, size_t len, struct ofp_desc *d, char *err,
                    size_t errlen);
int ofp_desc_encode(struct ofp_buf *b, const struct ofp_desc *d, char *err, size_t errlen);

/* ---- FLOW_REMOVED ---------------------------------------------------------- */
struct ofp_flow_removed {
    uint32_t xid;
    uint64_t cookie;
    uint16_t priority;
    uint8_t reason, table_id;   /* reason: IDLE_TIMEOUT 0, HARD_TIMEOUT 1, DELETE 2, GROUP_DELETE 3 */
    uint32_t duration_sec, duration_nsec;
    uint16_t idle_timeout, hard_timeout;
    uint64_t packet_count, byte_count;
    struct ofp_match match;
};
int ofp_flow_removed_encode(struct ofp_buf *b, const struct ofp_flow_removed *fr, char *err,
                            size_t errlen);
/* 48 fixed bytes (with the header) + match; nothing may follow the match. */
int ofp_flow_removed_decode(const uint8_t *msg, size_t len, struct ofp_flow_removed *fr,
                            char *err, size_t errlen);

/* ---- PACKET_IN / PACKET_OUT ----------------------------------------------- */
struct ofp_packet_in {
    uint32_t xid;
    uint32_t buffer_id;
    uint16_t total_len;
    uint8_t reason, table_id;
    uint64_t cookie;
    struct ofp_match match;
    const uint8_t *data;   /* the frame (borrows msg) */
    size_t data_len;
};
int ofp_packet_in_encode(struct ofp_buf *b, const struct ofp_packet_in *pi, char *err,
                         size_t errlen);
int ofp_packet_in_decode(const uint8_t *msg, size_t len, struct ofp_packet_in *pi, char *err,
                         size_t errlen);
/* The IN_PORT of the match, or OFPP_ANY when absent. */
uint32_t ofp_packet_in_port(const struct ofp_packet_in *pi);

struct ofp_packet_out {
    uint32_t xid;
    uint32_t buffer_id, in_port;
    unsigned n_actions;
    struct ofp_action actions[OFP_MAX_ACTIONS];
    const uint8_t *data;   /* decode: borrows msg */
    size_t data_len;
};
int ofp_packet_out_encode(struct ofp_buf *b, const struct ofp_packet_out *po, char *err,
                          size_t errlen);
int ofp_packet_out_decode(const uint8_t *msg, size_t len, struct ofp_packet_out *po, char *err,
                          size_t errlen);

/* ---- JSON bridge (Kytos flow dicts; southbound.md 2.5) --------------------- */
/* "add" -> OFPFC_ADD, "delete" -> DELETE, "delete_strict" -> DELETE_STRICT,
 * "modify", "modify_strict"; -1 for anything else. */
int ofp_flow_mod_command_from_name(const char *name);
/* Kytos' flow dict (as flow_manager stores/publishes it: table_id, priority,
 * cookie, cookie_mask, idle_timeout, hard_timeout, match, instructions and/or
 * actions -- "actions" becomes one apply_actions placed first) -> *fm with
 * Kytos' defaults.  Unknown match keys are ignored as of_core does; a wrong
 * type or range is OFP_E_INVAL with a message naming the field
 * ("match.dl_vlan: ...", "instructions[0].actions[1].port: ..."). */
int ofp_flow_mod_parse_json(struct json_object *flow, uint8_t command, struct ofp_flow_mod *fm,
                            char *err, size_t errlen);
/* The same, then encoded with xid into b. */
int ofp_flow_mod_from_json(struct json_object *flow, uint8_t command, uint32_t xid,
                           struct ofp_buf *b, char *err, size_t errlen);
/* Kytos match dict -> OXM fields, in of_core's fixed prerequisite order. */
int ofp_match_from_json(struct json_object *match, struct ofp_match *m, char *err,
                        size_t errlen);
/* OXM fields -> Kytos match dict (of_core from_of_tlv: dl_vlan 4096 kept,
 * else low 12 bits; masks as "v/m", CIDR for IPs).  Fields Kytos has no name
 * for are left out.  New reference, NULL when out of memory. */
struct json_object *ofp_match_to_json(const struct ofp_match *m);
/* Instructions -> [{"instruction_type": ..., ...}] as of_core's as_dict
 * (every SET_FIELD becomes set_vlan with the low 12 bits). */
struct json_object *ofp_instructions_to_json(const struct ofp_instructions *s);
/* One flow stats entry -> of_core Flow.as_dict() without "id" (the caller
 * adds flow_manager's id): switch (dpid may be NULL: no "switch"), table_id,
 * match, priority, idle_timeout, hard_timeout, cookie, cookie_mask 0,
 * instructions, stats {byte_count, duration_sec, duration_nsec, packet_count}. */
struct json_object *ofp_flow_stats_to_json(const struct ofp_flow_stats *fs, const char *dpid);
/* ofp_port -> {"port_number", "name", "mac", "config", "state", "curr",
 * "advertised", "supported", "peer", "curr_speed", "max_speed"} (Kytos'
 * Interface names for number/name/mac; a name's non-printable bytes become '?'). */
struct json_object *ofp_port_to_json(const struct ofp_port *port);

#endif
