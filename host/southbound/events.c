/* host/southbound/events.c - Kytos' core events of the switch connections
 * (the table in include/kytos/conn.h).  Contents are built only when
 * someone subscribes to the name, and published without blocking the
 * southbound thread: an event that finds its buffer full is dropped (raw
 * events are counted; Kytos would stall the reader instead). */
#include "southbound/sb_impl.h"
#include "events/eventbus.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json_object *kh_sb_source_json(const kytos_conn *c)
{
    struct json_object *o = json_object_new_object();
    char dpid[sizeof c->dpid];

    pthread_mutex_lock((pthread_mutex_t *)&c->mu);
    memcpy(dpid, c->dpid, sizeof dpid);
    pthread_mutex_unlock((pthread_mutex_t *)&c->mu);
    kytos_json_add_lit(o, "id", json_object_new_int64((int64_t)c->id));
    kytos_json_add_lit(o, "address", json_object_new_string(c->address));
    kytos_json_add_lit(o, "port", json_object_new_int(c->port));
    kytos_json_add_lit(o, "connection", json_object_new_string(c->peer));
    kytos_json_add_lit(o, "protocol", json_object_new_string(c->sb->proto));
    kytos_json_add_lit(o, "state", json_object_new_string(kh_sb_state_name(atomic_load(&c->state))));
    if (dpid[0])
        kytos_json_add_lit(o, "dpid", json_object_new_string(dpid));
    return o;
}

static const struct kytos_pub_opts *opts_for(const char *buffer)
{
    static const struct kytos_pub_opts conn = {sizeof conn, 0, "conn", 0};
    static const struct kytos_pub_opts raw = {sizeof raw, 0, "raw", 0};
    return strcmp(buffer, "raw") == 0 ? &raw : &conn;
}

void kh_sb_publish_new(kh_sb *sb, kytos_conn *c)
{
    struct json_object *o;

    if (!kh_bus_wanted(sb->bus, sb->ev_new))
        return;
    o = json_object_new_object();
    kytos_json_add_lit(o, "source", kh_sb_source_json(c));
    kh_bus_publish_give(sb->bus, NULL, sb->ev_new, o, opts_for("conn"));
}

/* Base64 (RFC 4648, padded): how raw bytes travel in JSON contents. */
static struct json_object *base64_string(const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t outlen = (n + 2) / 3 * 4, i, o = 0;
    char *out = malloc(outlen + 1);
    struct json_object *s;

    if (!out)
        return NULL;
    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = tab[v >> 6 & 63];
        out[o++] = tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        out[o++] = tab[v >> 18];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    s = json_object_new_string_len(out, (int)o);
    free(out);
    return s;
}

void kh_sb_publish_raw(kh_sb *sb, kytos_conn *c, const uint8_t *data, size_t n)
{
    struct json_object *o;

    if (!sb->raw_events || !kh_bus_wanted(sb->bus, sb->ev_raw))
        return;
    o = json_object_new_object();
    kytos_json_add_lit(o, "source", kh_sb_source_json(c));
    kytos_json_add_lit(o, "new_data", base64_string(data, n));
    if (kh_bus_publish_give(sb->bus, NULL, sb->ev_raw, o, opts_for("raw")) == KYTOS_EFULL)
        atomic_fetch_add_explicit(&sb->raw_dropped, 1, memory_order_relaxed);
}

void kh_sb_publish_lost(kh_sb *sb, kytos_conn *c, int kind, const char *reason)
{
    struct json_object *o, *src, *dpid;

    if (!kh_bus_wanted(sb->bus, sb->ev_lost))
        return;
    o = json_object_new_object();
    src = kh_sb_source_json(c);
    kytos_json_add_lit(o, "source", src);
    kytos_json_add_lit(o, "reason", json_object_new_string(reason));
    /* Kytos adds the exception that ended an abnormal connection */
    if (kind == KH_SB_DC_IO || kind == KH_SB_DC_FRAMING || kind == KH_SB_DC_OVERFLOW)
        kytos_json_add_lit(o, "exception", json_object_new_string(reason));
    /* Kytos' listeners read source.switch; topology's C port reads "dpid" */
    if (json_object_object_get_ex(src, "dpid", &dpid))
        kytos_json_add_lit(o, "dpid", json_object_get(dpid));
    kh_bus_publish_give(sb->bus, NULL, sb->ev_lost, o, opts_for("conn"));
}

void kh_sb_publish_error(kh_sb *sb, kytos_napp *n, kytos_conn *c, struct json_object *content)
{
    struct json_object *o = NULL;
    char text[96];

    if (!kh_bus_wanted(sb->bus, sb->ev_error))
        return;
    if (content && json_object_is_type(content, json_type_object))
        json_object_deep_copy(content, &o, NULL);
    if (!o)
        o = json_object_new_object();
    /* the failed send closed the connection (as Kytos' conn.close() did
     * before it built this text), even if the southbound thread has not
     * torn it down yet */
    snprintf(text, sizeof text, "Connection state: ConnectionState.%s",
             kh_sb_state_name(KYTOS_CONN_FINISHED));
    json_object_object_add(o, "exception", json_object_new_string(text));
    if (!json_object_object_get_ex(o, "destination", NULL))
        json_object_object_add(o, "destination", kh_sb_source_json(c));
    kh_bus_publish_give(sb->bus, n, sb->ev_error, o, opts_for("conn"));
}
