/* host/southbound/api.c - the ABI 1.3 slots of include/kytos/conn.h. */
#include "southbound/sb_impl.h"
#include "events/eventbus.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kh_sb *napp_sb(kytos_napp *n)
{
    return n ? kh_host_sb(kh_napp_host(n)) : NULL;
}

static int api_handle(kytos_napp *n, const struct kytos_conn_handler *h)
{
    kh_sb *sb = napp_sb(n);
    return sb ? kh_sb_handle(sb, n, h) : KYTOS_ENOTSUP;
}

static void api_ref(kytos_conn *c)
{
    if (c)
        kh_sb_conn_ref(c);
}

static void api_unref(kytos_conn *c) { kh_sb_conn_unref(c); }

static kytos_conn *api_get(kytos_napp *n, uint64_t id)
{
    kh_sb *sb = napp_sb(n);
    return sb ? kh_sb_table_get(sb, id) : NULL;
}

static int api_send(kytos_conn *c, const void *data, size_t len, unsigned flags)
{
    return c ? kh_sb_conn_send(c, data, len, 0, flags) : KYTOS_EINVAL;
}

static int api_send_give(kytos_conn *c, void *data, size_t len, unsigned flags)
{
    if (!c) {
        free(data);
        return KYTOS_EINVAL;
    }
    return kh_sb_conn_send(c, data, len, 1, flags);
}

static int api_send_notify(kytos_conn *c, kytos_napp *n, const void *data, size_t len,
                           unsigned flags, const char *name, struct json_object *content,
                           const struct kytos_pub_opts *opts)
{
    struct kytos_pub_opts o = {sizeof o, 0, "msg_out", 0};
    kh_sb *sb;
    int rc;

    if (!c || !name || !*name)
        return KYTOS_EINVAL;
    sb = c->sb;
    rc = kh_sb_conn_send(c, data, len, 0, flags);
    if (rc == KYTOS_OK) {
        if (kh_bus_wanted(sb->bus, name)) {
            if (opts) {
                o.priority = opts->priority;
                o.buffer = opts->buffer ? opts->buffer : "msg_out";
                o.timeout_ms = opts->timeout_ms;
            }
            kh_bus_publish_from(sb->bus, n, name, content, &o);
        }
    } else if (rc == KYTOS_EIO || rc == KYTOS_EFULL) {
        kh_sb_publish_error(sb, n, c, content);
    }
    return rc;
}

static int api_close(kytos_conn *c, const char *reason)
{
    if (!c)
        return KYTOS_EINVAL;
    return kh_sb_conn_request_close(c, KH_SB_DC_NAPP, "%.180s",
                                    reason && *reason ? reason : "closed by its NApp");
}

static void api_set_data(kytos_conn *c, void *data)
{
    if (c)
        atomic_store(&c->data, data);
}

static void *api_data(const kytos_conn *c)
{
    return c ? atomic_load(&((kytos_conn *)c)->data) : NULL;
}

static int api_set_state(kytos_conn *c, int state)
{
    int rc = KYTOS_OK;

    if (!c || state < KYTOS_CONN_NEW || state > KYTOS_CONN_FAILED)
        return KYTOS_EINVAL;
    pthread_mutex_lock(&c->mu);
    if (c->closing)
        rc = KYTOS_ESTATE;
    else
        atomic_store(&c->state, state);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

static int api_set_switch(kytos_conn *c, const char *dpid)
{
    size_t i;

    if (!c)
        return KYTOS_EINVAL;
    if (!dpid)
        dpid = "";
    for (i = 0; dpid[i]; i++)
        if (dpid[i] <= ' ' || dpid[i] > '~')
            return KYTOS_EINVAL;
    if (i >= sizeof c->dpid)
        return KYTOS_EINVAL;
    pthread_mutex_lock(&c->mu);
    memcpy(c->dpid, dpid, i + 1);
    pthread_mutex_unlock(&c->mu);
    return KYTOS_OK;
}

static uint64_t api_id(const kytos_conn *c) { return c ? c->id : 0; }

static int api_info(const kytos_conn *cc, struct kytos_conn_info *out)
{
    kytos_conn *c = (kytos_conn *)cc;
    struct kytos_conn_info i;
    uint32_t size;

    if (!c || !out || out->struct_size < sizeof(uint32_t))
        return KYTOS_EINVAL;
    size = out->struct_size < sizeof i ? out->struct_size : (uint32_t)sizeof i;
    memset(&i, 0, sizeof i);
    i.struct_size = size;
    i.state = atomic_load(&c->state);
    i.id = c->id;
    snprintf(i.address, sizeof i.address, "%s", c->address);
    i.port = c->port;
    i.local_port = (uint16_t)kh_sb_port(c->sb);
    snprintf(i.protocol, sizeof i.protocol, "%s", kh_sb_protocol(c->sb));
    pthread_mutex_lock(&c->mu);
    memcpy(i.dpid, c->dpid, sizeof i.dpid);
    i.send_queued = c->q.mem;
    pthread_mutex_unlock(&c->mu);
    i.connected_at_ms = c->connected_at_ms;
    i.bytes_in = atomic_load(&c->bytes_in);
    i.bytes_out = atomic_load(&c->bytes_out);
    i.msgs_in = atomic_load(&c->msgs_in);
    i.msgs_out = atomic_load(&c->msgs_out);
    memcpy(out, &i, size);
    return KYTOS_OK;
}

static struct json_object *api_json(const kytos_conn *c)
{
    return c ? kh_sb_source_json(c) : NULL;
}

void kh_sb_api_fill(struct kytos_api *api)
{
    api->conn_handle = api_handle;
    api->conn_ref = api_ref;
    api->conn_unref = api_unref;
    api->conn_get = api_get;
    api->conn_send = api_send;
    api->conn_send_give = api_send_give;
    api->conn_send_notify = api_send_notify;
    api->conn_close = api_close;
    api->conn_set_data = api_set_data;
    api->conn_data = api_data;
    api->conn_set_state = api_set_state;
    api->conn_set_switch = api_set_switch;
    api->conn_id = api_id;
    api->conn_info = api_info;
    api->conn_json = api_json;
}
