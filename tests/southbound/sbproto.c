/* tests/southbound/sbproto.c - a tiny protocol NApp for the OpenFlow server's
 * tests, written against the public headers only (as of_core will be).  It
 * handles "openflow" connections and answers by message type:
 *
 *   2    ECHO_REQUEST  -> ECHO_REPLY (3), same xid and body; odd xids are
 *                         sent with kytos_conn_send_give, even ones copied
 *   0x0a PACKET_IN     -> counted, nothing else (the flood)
 *   0xf0 BLAST         body: u32 count, u16 size, u8 mode -> count messages
 *                         of type 0xf1 and that size (mode 0 copied, 1 given,
 *                         2 kytos_conn_send_notify), stopping at the first
 *                         failure: test/sbproto.send_failed {"id", "rc", "sent"}
 *   0xf2 CLOSE         -> kytos_conn_close(c, "the test asked")
 *   0xf3 NOTIFY        -> echoes it as type 0xf3 with kytos_conn_send_notify
 *                         (event kytos/sbproto.messages.out.test {"xid"}),
 *                         urgent when the body's first byte is 1
 *   0xf4 SWITCH        body: a dpid -> kytos_conn_set_switch, state ESTABLISHED
 *   0xf5 RECORD        -> test/sbproto.msg {"id", "xid", "len", "whole", "sum"}
 *   0xf6 INFO          -> test/sbproto.info {kytos_conn_info fields, "json": SOURCE,
 *                         "same": kytos_conn_get(id) is this connection}
 *
 * on_open publishes test/sbproto.open {"id"} and sets state SETUP; on_close
 * publishes test/sbproto.close {"id", "reason", "packet_ins"}.  Events are
 * published with timeout 0, as a callback on the southbound thread must. */
#include <kytos/kytos.h>
#include <stdlib.h>
#include <string.h>

struct per_conn {
    uint64_t packet_ins;
};

static const struct kytos_pub_opts now = {sizeof now, 0, "app", 0};

static void publish(kytos_napp *n, const char *name, struct json_object *o)
{
    kytos_event_publish_give(n, name, o, &now);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int on_open(kytos_napp *n, kytos_conn *c, void *ud)
{
    struct per_conn *pc = calloc(1, sizeof *pc);
    struct json_object *o = json_object_new_object();

    (void)ud;
    if (!pc)
        return KYTOS_ENOMEM;
    kytos_conn_set_data(c, pc);
    kytos_conn_set_state(c, KYTOS_CONN_SETUP);
    json_object_object_add(o, "id", json_object_new_int64((int64_t)kytos_conn_id(c)));
    publish(n, "test/sbproto.open", o);
    return KYTOS_OK;
}

static void on_close(kytos_napp *n, kytos_conn *c, const char *reason, void *ud)
{
    struct per_conn *pc = kytos_conn_data(c);
    struct json_object *o = json_object_new_object();

    (void)ud;
    json_object_object_add(o, "id", json_object_new_int64((int64_t)kytos_conn_id(c)));
    json_object_object_add(o, "reason", json_object_new_string(reason));
    json_object_object_add(o, "packet_ins", json_object_new_int64(pc ? (int64_t)pc->packet_ins : -1));
    json_object_object_add(o, "send_after_close",
                           json_object_new_int(kytos_conn_send(c, "\4\0\0\10\0\0\0\0", 8, 0)));
    kytos_conn_set_data(c, NULL);
    free(pc);
    publish(n, "test/sbproto.close", o);
}

static void blast(kytos_napp *n, kytos_conn *c, uint32_t count, uint16_t size, int mode)
{
    uint32_t i;
    int rc = KYTOS_OK;
    struct json_object *o;

    if (size < 8)
        size = 8;
    for (i = 0; i < count && rc == KYTOS_OK; i++) {
        uint8_t *m = kytos_malloc(size);
        if (!m)
            break;
        memset(m, (int)(i & 0xff), size);
        m[0] = 4;
        m[1] = 0xf1;
        m[2] = (uint8_t)(size >> 8);
        m[3] = (uint8_t)size;
        m[4] = (uint8_t)(i >> 24);
        m[5] = (uint8_t)(i >> 16);
        m[6] = (uint8_t)(i >> 8);
        m[7] = (uint8_t)i;
        if (mode == 1) {
            rc = kytos_conn_send_give(c, m, size, 0);
            continue;
        }
        if (mode == 2) {
            struct json_object *ev = json_object_new_object();
            json_object_object_add(ev, "xid", json_object_new_int64(i));
            rc = kytos_conn_send_notify(c, n, m, size, 0, "kytos/sbproto.messages.out.blast", ev, NULL);
            json_object_put(ev);
        } else {
            rc = kytos_conn_send(c, m, size, 0);
        }
        kytos_free(m);
    }
    if (rc == KYTOS_OK)
        return;
    o = json_object_new_object();
    json_object_object_add(o, "id", json_object_new_int64((int64_t)kytos_conn_id(c)));
    json_object_object_add(o, "rc", json_object_new_int(rc));
    json_object_object_add(o, "sent", json_object_new_int64(i - 1));
    publish(n, "test/sbproto.send_failed", o);
}

static void info(kytos_napp *n, kytos_conn *c)
{
    struct kytos_conn_info ci = {.struct_size = sizeof ci};
    struct json_object *o = json_object_new_object();
    kytos_conn *again = kytos_conn_get(n, kytos_conn_id(c));

    kytos_conn_info(c, &ci);
    json_object_object_add(o, "id", json_object_new_int64((int64_t)ci.id));
    json_object_object_add(o, "state", json_object_new_int(ci.state));
    json_object_object_add(o, "address", json_object_new_string(ci.address));
    json_object_object_add(o, "port", json_object_new_int(ci.port));
    json_object_object_add(o, "local_port", json_object_new_int(ci.local_port));
    json_object_object_add(o, "protocol", json_object_new_string(ci.protocol));
    json_object_object_add(o, "dpid", json_object_new_string(ci.dpid));
    json_object_object_add(o, "msgs_in", json_object_new_int64((int64_t)ci.msgs_in));
    json_object_object_add(o, "bytes_in", json_object_new_int64((int64_t)ci.bytes_in));
    json_object_object_add(o, "connected_at_ms", json_object_new_int64(ci.connected_at_ms));
    json_object_object_add(o, "json", kytos_conn_json(c));
    json_object_object_add(o, "same", json_object_new_boolean(again == c));
    if (again)
        kytos_conn_unref(again);
    publish(n, "test/sbproto.info", o);
}

static int on_message(kytos_napp *n, kytos_conn *c, const void *msg, size_t len, void *ud)
{
    const uint8_t *m = msg;
    uint32_t xid = be32(m + 4);
    struct per_conn *pc = kytos_conn_data(c);

    (void)ud;
    switch (m[1]) {
    case 2: {
        uint8_t *r = kytos_malloc(len);
        if (!r)
            return KYTOS_ENOMEM;
        memcpy(r, m, len);
        r[1] = 3;
        if (xid & 1) {
            kytos_conn_send_give(c, r, len, 0);
            return 0;
        }
        kytos_conn_send(c, r, len, 0);
        kytos_free(r);
        return 0;
    }
    case 0x0a:
        if (pc)
            pc->packet_ins++;
        return 0;
    case 0xf0:
        if (len >= 15)
            blast(n, c, be32(m + 8), (uint16_t)(m[12] << 8 | m[13]), m[14]);
        return 0;
    case 0xf2:
        return kytos_conn_close(c, "the test asked");
    case 0xf3: {
        struct json_object *ev = json_object_new_object();
        json_object_object_add(ev, "xid", json_object_new_int64(xid));
        kytos_conn_send_notify(c, n, msg, len, len > 8 && m[8] == 1 ? KYTOS_CONN_URGENT : 0,
                               "kytos/sbproto.messages.out.test", ev, NULL);
        json_object_put(ev);
        return 0;
    }
    case 0xf4: {
        char dpid[32] = "";
        size_t l = len - 8 < sizeof dpid - 1 ? len - 8 : sizeof dpid - 1;
        memcpy(dpid, m + 8, l);
        kytos_conn_set_switch(c, dpid);
        kytos_conn_set_state(c, KYTOS_CONN_ESTABLISHED);
        return 0;
    }
    case 0xf5: {
        struct json_object *o = json_object_new_object();
        uint32_t sum = 0;
        size_t i;
        for (i = 0; i < len; i++)
            sum = sum * 31 + m[i];
        json_object_object_add(o, "id", json_object_new_int64((int64_t)kytos_conn_id(c)));
        json_object_object_add(o, "xid", json_object_new_int64(xid));
        json_object_object_add(o, "len", json_object_new_int64((int64_t)len));
        json_object_object_add(o, "whole", json_object_new_boolean(((size_t)m[2] << 8 | m[3]) == len));
        json_object_object_add(o, "sum", json_object_new_int64(sum));
        publish(n, "test/sbproto.msg", o);
        return 0;
    }
    case 0xf6:
        info(n, c);
        return 0;
    default:
        return 0;
    }
}

static int init(kytos_napp *n, char **errmsg)
{
    (void)errmsg;
    if (!KYTOS_API_HAS(conn_handle))
        return KYTOS_ENOTSUP;
    return kytos_conn_handle(n, &(struct kytos_conn_handler){
                                    .struct_size = sizeof(struct kytos_conn_handler),
                                    .protocol = "openflow",
                                    .on_open = on_open,
                                    .on_message = on_message,
                                    .on_close = on_close});
}

KYTOS_NAPP_DEFINE("kytos", "sbproto", "1.0", KYTOS_NO_DEPS, NULL, 0, 0, init, NULL, NULL);
