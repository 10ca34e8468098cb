/* host/southbound/status.c - what GET /api/kytos/core/status/ and /metrics
 * show of the switch connections (see kh_sb_status in southbound.h). */
#include "southbound/sb_impl.h"
#include <stdlib.h>

#define STATUS_CONNS_MAX 1000   /* connections listed one by one */

static struct json_object *u64(atomic_uint_fast64_t *v)
{
    return json_object_new_int64((int64_t)atomic_load_explicit(v, memory_order_relaxed));
}

static struct json_object *conn_status(kytos_conn *c, size_t *queued)
{
    struct json_object *o = kh_sb_source_json(c);

    pthread_mutex_lock(&c->mu);
    *queued = c->q.mem;
    pthread_mutex_unlock(&c->mu);
    json_object_object_add(o, "connected_at_ms", json_object_new_int64(c->connected_at_ms));
    json_object_object_add(o, "bytes_in", u64(&c->bytes_in));
    json_object_object_add(o, "bytes_out", u64(&c->bytes_out));
    json_object_object_add(o, "messages_in", u64(&c->msgs_in));
    json_object_object_add(o, "messages_out", u64(&c->msgs_out));
    json_object_object_add(o, "send_queue_bytes", json_object_new_int64((int64_t)*queued));
    return o;
}

struct json_object *kh_sb_status(kh_sb *sb)
{
    struct json_object *o = json_object_new_object(), *dc, *hs, *list;
    unsigned port = kh_sb_port(sb);
    size_t i, n, queued, total = 0;
    kytos_conn **all;

    json_object_object_add(o, "running", json_object_new_boolean(kh_sb_running(sb)));
    json_object_object_add(o, "listen", json_object_new_string(port ? sb->listen_text : ""));
    json_object_object_add(o, "address", json_object_new_string(sb->listen_addr));
    json_object_object_add(o, "port", json_object_new_int((int)port));
    json_object_object_add(o, "protocol", json_object_new_string(kh_sb_protocol(sb)));
    json_object_object_add(o, "tls", json_object_new_boolean(sb->tls_ctx != NULL));
    json_object_object_add(o, "connections_total", u64(&sb->conns_total));
    json_object_object_add(o, "bytes_in", u64(&sb->bytes_in));
    json_object_object_add(o, "bytes_out", u64(&sb->bytes_out));
    json_object_object_add(o, "messages_in", u64(&sb->msgs_in));
    json_object_object_add(o, "messages_out", u64(&sb->msgs_out));
    json_object_object_add(o, "raw_in_dropped", u64(&sb->raw_dropped));
    json_object_object_add(o, "refused", u64(&sb->refused));
    json_object_object_add(o, "send_queue_limit", json_object_new_int64((int64_t)sb->sendq_max));
    json_object_object_add(o, "send_queue_high_water",
                           json_object_new_int64((int64_t)atomic_load(&sb->sendq_high)));
    dc = json_object_new_object();
    for (i = 0; i < KH_SB_DC_N; i++)
        json_object_object_add(dc, kh_sb_dc_names[i], u64(&sb->dc[i]));
    json_object_object_add(o, "disconnects", dc);
    hs = json_object_new_object();
    pthread_mutex_lock(&sb->hnd_mu);
    for (i = 0; i < sb->nhandlers; i++)
        json_object_object_add(hs, sb->handlers[i].protocol,
                               json_object_new_string(kh_napp_id(sb->handlers[i].h.napp)));
    pthread_mutex_unlock(&sb->hnd_mu);
    json_object_object_add(o, "handlers", hs);
    all = kh_sb_table_snapshot(sb, &n);
    list = json_object_new_array();
    for (i = 0; i < n; i++) {
        struct json_object *c = conn_status(all[i], &queued);
        total += queued;
        if (i < STATUS_CONNS_MAX)
            json_object_array_add(list, c);
        else
            json_object_put(c);
        kh_sb_conn_unref(all[i]);
    }
    free(all);
    json_object_object_add(o, "connections", json_object_new_int64((int64_t)n));
    json_object_object_add(o, "send_queue_bytes", json_object_new_int64((int64_t)total));
    json_object_object_add(o, "conns", list);
    return o;
}
