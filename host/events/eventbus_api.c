/* host/events/eventbus_api.c - the bus from kytos.conf and the
 * event/pacer/timer slots of the ABI table.  The host hands in how to reach
 * NApps and how to find a NApp's bus; kept apart from eventbus.c so unit
 * tests link the bus alone. */
#include "events/eventbus.h"
#include "events/event_conf.h"
#include "events/event_obj.h"
#include "util/log.h"
#include <stdio.h>

kh_bus *kh_bus_new(const kh_config *cfg, const struct kh_napp_ops *ops, char *err, size_t errlen)
{
    struct kh_bus_conf c;

    kh_bus_conf_defaults(&c);
    if (cfg && kh_bus_conf_apply(&c, kh_config_get(cfg, "thread_pool_max_workers"),
                                 kh_config_get(cfg, "event_buffer_conf"),
                                 kh_config_get(cfg, "thread_pool_queue_monitors"),
                                 kh_config_get(cfg, "event_buffer_monitors"),
                                 kh_config_get(cfg, "dead_letter_max_per_name"), err, errlen) != 0)
        return NULL;
    return kh_bus_new_conf(&c, ops, err, errlen);
}

/* Set once, by the host's kh_bus_api_fill (before any NApp runs). */
static kh_bus *(*napp_bus)(const kytos_napp *n);

static kh_bus *bus_of(const kytos_napp *n)
{
    return n && napp_bus ? napp_bus(n) : NULL;
}

static int api_subscribe(kytos_napp *n, const struct kytos_sub *s)
{
    kh_bus *b = bus_of(n);
    char err[512];
    int rc;

    if (!b)
        return KYTOS_EINVAL;
    rc = kh_bus_subscribe(b, n, s, err, sizeof err);
    if (rc != 0) {
        const struct kh_napp_ops *ops = kh_bus_napp_ops(b);
        kh_log(ops->logger ? ops->logger(n) : "kytos.core.events", KH_ERROR,
               "event subscribe failed: %s", err);
    }
    return rc;
}

static int api_publish(kytos_napp *n, const char *name, struct json_object *content,
                       const struct kytos_pub_opts *opts)
{
    kh_bus *b = bus_of(n);
    return b ? kh_bus_publish_from(b, n, name, content, opts) : KYTOS_EINVAL;
}

static int api_publish_give(kytos_napp *n, const char *name, struct json_object *content,
                            const struct kytos_pub_opts *opts)
{
    kh_bus *b = bus_of(n);
    if (!b) {
        json_object_put(content);
        return KYTOS_EINVAL;
    }
    return kh_bus_publish_give(b, n, name, content, opts);
}

static int api_wanted(kytos_napp *n, const char *name)
{
    return kh_bus_wanted(bus_of(n), name);
}

static int api_pace(kytos_napp *n, const char *action, const char *key, const char *rate,
                    unsigned flags)
{
    kh_bus *b = bus_of(n);
    return b ? kh_bus_pace(b, n, action, key, rate, flags) : KYTOS_EINVAL;
}

static int api_timer_add(kytos_napp *n, unsigned interval_ms, kytos_timer_fn fn, void *ud)
{
    kh_bus *b = bus_of(n);
    return b ? kh_bus_timer_add(b, n, interval_ms, fn, ud) : KYTOS_EINVAL;
}

void kh_bus_api_fill(struct kytos_api *api, kh_bus *(*bus_of_napp)(const kytos_napp *n))
{
    napp_bus = bus_of_napp;
    api->event_subscribe = api_subscribe;
    api->event_publish = api_publish;
    api->event_name = kh_event_name;
    api->event_content = kh_event_content;
    api->event_id = kh_event_id;
    api->event_time_us = kh_event_time_us;
    api->event_priority = kh_event_priority;
    api->event_reinjections = kh_event_reinjections;
    api->pace = api_pace;
    api->timer_add = api_timer_add;
    api->event_publish_give = api_publish_give;
    api->event_wanted = api_wanted;
    api->event_take_content = kh_event_take_content;
}
