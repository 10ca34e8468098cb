/* host/core/metrics.c - GET /metrics in Prometheus' text format, built from the
 * same figures as GET /api/kytos/core/status/. */
#include "core/hostimpl.h"
#include "util/strbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t geti(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : 0;
}

static void pools(struct ku_buf *o, struct json_object *pools, const char *kind)
{
    if (!pools)
        return;
    json_object_object_foreach(pools, name, p) {
        ku_buf_printf(o, "kytos_pool_threads{kind=\"%s\",pool=\"%s\"} %lld\n", kind, name, (long long)geti(p, "threads"));
        ku_buf_printf(o, "kytos_pool_active{kind=\"%s\",pool=\"%s\"} %lld\n", kind, name, (long long)geti(p, "active"));
        ku_buf_printf(o, "kytos_pool_queued{kind=\"%s\",pool=\"%s\"} %lld\n", kind, name, (long long)geti(p, "queued"));
        ku_buf_printf(o, "kytos_pool_rejected_total{kind=\"%s\",pool=\"%s\"} %lld\n", kind, name, (long long)geti(p, "rejected"));
    }
}

/* The OpenFlow server: connections, traffic, send queues, disconnects. */
static void southbound(struct ku_buf *o, struct json_object *sb)
{
    struct json_object *v;

    if (!sb)
        return;
    ku_buf_printf(o, "# TYPE kytos_sb_connections gauge\nkytos_sb_connections %lld\n",
        (long long)geti(sb, "connections"));
    ku_buf_printf(o, "# TYPE kytos_sb_connections_total counter\nkytos_sb_connections_total %lld\n",
        (long long)geti(sb, "connections_total"));
    ku_buf_printf(o, "# TYPE kytos_sb_bytes_total counter\n");
    ku_buf_printf(o, "kytos_sb_bytes_total{direction=\"in\"} %lld\n", (long long)geti(sb, "bytes_in"));
    ku_buf_printf(o, "kytos_sb_bytes_total{direction=\"out\"} %lld\n", (long long)geti(sb, "bytes_out"));
    ku_buf_printf(o, "# TYPE kytos_sb_messages_total counter\n");
    ku_buf_printf(o, "kytos_sb_messages_total{direction=\"in\"} %lld\n", (long long)geti(sb, "messages_in"));
    ku_buf_printf(o, "kytos_sb_messages_total{direction=\"out\"} %lld\n", (long long)geti(sb, "messages_out"));
    ku_buf_printf(o, "# TYPE kytos_sb_send_queue_bytes gauge\nkytos_sb_send_queue_bytes %lld\n",
        (long long)geti(sb, "send_queue_bytes"));
    ku_buf_printf(o, "# TYPE kytos_sb_send_queue_high_water_bytes gauge\nkytos_sb_send_queue_high_water_bytes %lld\n",
        (long long)geti(sb, "send_queue_high_water"));
    ku_buf_printf(o, "kytos_sb_send_queue_limit_bytes %lld\n", (long long)geti(sb, "send_queue_limit"));
    ku_buf_printf(o, "# TYPE kytos_sb_raw_in_dropped_total counter\nkytos_sb_raw_in_dropped_total %lld\n",
        (long long)geti(sb, "raw_in_dropped"));
    ku_buf_printf(o, "# TYPE kytos_sb_refused_total counter\nkytos_sb_refused_total %lld\n",
        (long long)geti(sb, "refused"));
    if (json_object_object_get_ex(sb, "disconnects", &v)) {
        ku_buf_printf(o, "# TYPE kytos_sb_disconnects_total counter\n");
        json_object_object_foreach(v, reason, n)
            ku_buf_printf(o, "kytos_sb_disconnects_total{reason=\"%s\"} %lld\n", reason,
                (long long)json_object_get_int64(n));
    }
    if (json_object_object_get_ex(sb, "conns", &v) && json_object_array_length(v) > 0) {
        size_t i;
        ku_buf_printf(o, "# TYPE kytos_sb_conn_send_queue_bytes gauge\n");
        for (i = 0; i < json_object_array_length(v); i++) {
            struct json_object *c = json_object_array_get_idx(v, i), *peer = NULL;
            json_object_object_get_ex(c, "connection", &peer);
            ku_buf_printf(o, "kytos_sb_conn_send_queue_bytes{id=\"%lld\",peer=\"%s\"} %lld\n",
                (long long)geti(c, "id"), peer ? json_object_get_string(peer) : "",
                (long long)geti(c, "send_queue_bytes"));
        }
    }
}

static int metrics_get(kytos_req *r, void *ud)
{
    kh_host *h = ud;
    struct json_object *st = kh_host_status(h), *http = NULL, *ev = NULL, *napps = NULL, *v = NULL;
    struct ku_buf o = KU_BUF_INIT;
    int rc;

    json_object_object_get_ex(st, "http", &http);
    json_object_object_get_ex(st, "events", &ev);
    json_object_object_get_ex(st, "napps", &napps);
    ku_buf_printf(&o, "# TYPE kytos_http_requests_total counter\nkytos_http_requests_total %lld\n",
        (long long)geti(http, "requests_served"));
    ku_buf_printf(&o, "# TYPE kytos_http_in_flight gauge\nkytos_http_in_flight %lld\n", (long long)geti(http, "in_flight"));
    ku_buf_printf(&o, "# TYPE kytos_http_rejected_total counter\n");
    ku_buf_printf(&o, "kytos_http_rejected_total{code=\"503\"} %lld\n", (long long)geti(http, "rejected_503"));
    ku_buf_printf(&o, "kytos_http_rejected_total{code=\"429\"} %lld\n", (long long)geti(http, "rejected_429"));
    ku_buf_printf(&o, "kytos_http_timeouts_total %lld\n", (long long)geti(http, "timeouts_504"));
    ku_buf_printf(&o, "# TYPE kytos_http_reclaimed_idle_total counter\nkytos_http_reclaimed_idle_total %lld\n",
        (long long)geti(http, "reclaimed_idle"));
    ku_buf_printf(&o, "kytos_http_errors_500_total %lld\n", (long long)geti(http, "errors_500"));
    ku_buf_printf(&o, "kytos_uptime_seconds %lld\n", (long long)geti(st, "uptime_seconds"));
    ku_buf_printf(&o, "kytos_log_dropped_total %lld\n", (long long)geti(st, "log_dropped"));
    if (napps) {
        json_object_object_foreach(napps, id, n) {
            struct json_object *s = NULL;
            json_object_object_get_ex(n, "state", &s);
            ku_buf_printf(&o, "kytos_napp_info{napp=\"%s\",state=\"%s\"} 1\n", id, s ? json_object_get_string(s) : "?");
        }
    }
    if (json_object_object_get_ex(st, "http_pools", &v))
        pools(&o, v, "http");
    if (ev && json_object_object_get_ex(ev, "pools", &v))
        pools(&o, v, "events");
    if (ev && json_object_object_get_ex(ev, "buffers", &v)) {
        json_object_object_foreach(v, name, b) {
            ku_buf_printf(&o, "kytos_event_buffer_depth{buffer=\"%s\"} %lld\n", name, (long long)geti(b, "depth"));
            ku_buf_printf(&o, "kytos_event_buffer_high_water{buffer=\"%s\"} %lld\n", name, (long long)geti(b, "high_water"));
            ku_buf_printf(&o, "kytos_event_buffer_drops_total{buffer=\"%s\"} %lld\n", name, (long long)geti(b, "drops"));
        }
    }
    if (ev && json_object_object_get_ex(ev, "dead_letter", &v))
        ku_buf_printf(&o, "kytos_dead_letter_events %lld\n", (long long)geti(v, "count"));
    southbound(&o, json_object_object_get_ex(st, "southbound", &v) ? v : NULL);
    json_object_put(st);
    rc = kh_resp_raw(r, 200, "text/plain; version=0.0.4", ku_buf_str(&o), o.len);
    ku_buf_free(&o);
    return rc;
}

int kh_metrics_register(kh_host *h)
{
    return kh_host_core_route(h, "GET", "/metrics", metrics_get, h, 0);
}
