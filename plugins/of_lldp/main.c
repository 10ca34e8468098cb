/* plugins/of_lldp/main.c - kytos/of_lldp: link discovery with LLDP, link
 * liveness and loop detection, as Kytos-ng's of_lldp (southbound.md 3).
 *
 * Settings ([kytos/of_lldp] in kytos.conf, JSON values; Kytos' settings.py
 * names in lower case):
 *   polling_time = 3                   seconds between LLDP rounds (1..3600)
 *   flow_vlan_vid = 3799               VLAN of the frames and the punt flow
 *   flow_priority = 50000              priority of the punt flow
 *   liveness_dead_multiplier = 5       dead interval = polling_time x this
 *   liveness_min_hellos_up = 2         hellos before an interface is up
 *   lldp_loop_actions = ["log"]        "log" and/or "disable"
 *   lldp_ignored_loops = {}            {dpid: [[port_a, port_b], ...]}
 *   lldp_loop_dead_multiplier = 5      a loop unseen polling_time x this
 *                                      seconds has stopped
 *   flow_retries = 3, flow_retry_ms = 3000   punt flow requests to flow_manager
 *
 * Events consumed:
 *   kytos/topology.switch.enabled|disabled   {"dpid"}  -> punt flow (punt.c)
 *   kytos/of_core.v0x04.messages.in.ofpt_packet_in      -> receive.c
 * Events published:
 *   kytos/of_lldp.messages.out.ofpt_packet_out  (send.c documents the content)
 *   kytos/of_lldp.interface.is.nni     {"interface_a": INTF, "interface_b": INTF}
 *                                      interface_a received, interface_b sent;
 *                                      INTF = topology's interface dict
 *   kytos/of_lldp.liveness.up|down     {"interface_a": INTF, "interface_b": INTF}
 *   kytos/of_lldp.liveness.enabled|disabled  {"interfaces": [INTF, ...]}
 *   kytos/of_lldp.network_status.updated {"attribute": "LLDP", "state":
 *                                      "enabled"|"disabled", "interface_ids": [id]}
 *   kytos/of_lldp.loop.detected|stopped {"interface_id", "dpid", "port_numbers"}
 *   kytos/of_lldp.loop.action.log|disable {"interface_a", "interface_b"}
 *   kytos/of_lldp.vlan.used|released   {"dpid", "tag_type": "vlan", "tags": [3799]}
 *                                      (Kytos marks the tag used on the
 *                                      switch's Interface objects instead);
 *                                      used also once per run for a switch
 *                                      whose flow outlived a restart */
#include "lldp.h"
#include "../common/settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const char of_lldp_openapi[];
extern const size_t of_lldp_openapi_len;

#define TICK_MS 200

int64_t lldp_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void lldp_now_iso(char *out, size_t cap)
{
    struct timespec ts;
    struct tm tm;
    char base[32];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, cap, "%s.%06ld", base, ts.tv_nsec / 1000);
}

void lldp_publish(struct lldp *l, const char *name, struct json_object *content)
{
    int rc = kytos_event_publish_give(l->napp, name, content, NULL);

    if (rc != KYTOS_OK)
        kytos_log(l->napp, KYTOS_LOG_WARNING, "publishing %s failed: %s", name,
                  kytos_strerror(rc));
}

static int read_settings(struct lldp *l, char **errmsg)
{
    struct json_object *st = kytos_napp_settings(l->napp), *v;
    int64_t polling = 3, vid = 3799, prio = 50000, dead = 5, hellos = 2, loop_dead = 5,
            retries = 3, retry_ms = 3000;

    if (napp_int_setting(st, "of_lldp", "polling_time", 1, 3600, &polling, errmsg) < 0 ||
        napp_int_setting(st, "of_lldp", "flow_vlan_vid", 1, 4094, &vid, errmsg) < 0 ||
        napp_int_setting(st, "of_lldp", "flow_priority", 0, 65535, &prio, errmsg) < 0 ||
        napp_int_setting(st, "of_lldp", "liveness_dead_multiplier", 1, 1000, &dead, errmsg) < 0 ||
        napp_int_setting(st, "of_lldp", "liveness_min_hellos_up", 1, 1000, &hellos, errmsg) < 0 ||
        napp_int_setting(st, "of_lldp", "lldp_loop_dead_multiplier", 1, 1000, &loop_dead, errmsg) < 0 ||
        napp_int_setting(st, "of_lldp", "flow_retries", 1, 10, &retries, errmsg) < 0 ||
        napp_int_setting(st, "of_lldp", "flow_retry_ms", 0, 60000, &retry_ms, errmsg) < 0)
        return -1;
    atomic_store(&l->polling_time, (int)polling);
    l->vlan = (unsigned)vid;
    l->priority = (unsigned)prio;
    l->min_hellos_up = (int)hellos;
    /* Kytos fixes both intervals at setup from the initial polling time */
    l->dead_interval_s = (int)(polling * dead);
    l->loop_stopped_s = (int)(polling * loop_dead);
    l->flow_retries = (unsigned)retries;
    l->flow_retry_ms = (unsigned)retry_ms;
    l->loop_log = true;
    if (json_object_object_get_ex(st, "lldp_loop_actions", &v)) {
        if (!json_object_is_type(v, json_type_array)) {
            *errmsg = napp_errdup("of_lldp setting lldp_loop_actions must be a list");
            return -1;
        }
        l->loop_log = false;
        for (size_t k = 0; k < json_object_array_length(v); k++) {
            const char *a = json_object_get_string(json_object_array_get_idx(v, k));
            l->loop_log |= a && strcmp(a, "log") == 0;
            l->loop_disable |= a && strcmp(a, "disable") == 0;
        }
    }
    if (json_object_object_get_ex(st, "lldp_ignored_loops", &v)) {
        if (!json_object_is_type(v, json_type_object)) {
            *errmsg = napp_errdup("of_lldp setting lldp_ignored_loops must be an object");
            return -1;
        }
        l->ignored_loops = json_object_get(v);
    }
    return 0;
}

static void poll_tick(kytos_napp *napp, void *ud)
{
    struct lldp *l = ud;
    int64_t now = lldp_now_ms();
    struct lldp_topo *t;

    (void)napp;
    if (now < atomic_load(&l->next_poll_ms))
        return;
    if (pthread_mutex_trylock(&l->poll_mu) != 0)
        return;
    atomic_store(&l->next_poll_ms, now + 1000LL * atomic_load(&l->polling_time));
    t = lldp_topo_get(l, 0);
    if (t) {
        struct lldp_loop *stopped;
        size_t n;
        lldp_send_round(l);
        pthread_mutex_lock(&l->loop_act_mu);
        pthread_mutex_lock(&l->mu);
        lldp_loop_reap(l, t, &stopped, &n);
        lldp_lv_reaper(l, t);
        pthread_mutex_unlock(&l->mu);
        for (size_t k = 0; k < n; k++)
            lldp_loop_stopped_actions(l, &stopped[k]);
        pthread_mutex_unlock(&l->loop_act_mu);
        free(stopped);
        lldp_topo_put(t);
    }
    pthread_mutex_unlock(&l->poll_mu);
}

static void lldp_release(kytos_napp *napp, void *data)
{
    struct lldp *l = data;

    (void)napp;
    if (!l)
        return;
    lldp_topo_put(l->topo);
    json_object_put(l->ignored_loops);
    json_object_put(l->vlan_told);
    free(l->lv_enabled);
    free(l->pairs);
    free(l->loops);
    free(l->ov);
    pthread_mutex_destroy(&l->ov_mu);
    pthread_mutex_destroy(&l->mu);
    pthread_mutex_destroy(&l->poll_mu);
    pthread_mutex_destroy(&l->loop_act_mu);
    free(l);
}

static int subscribe(struct lldp *l, const char *pattern, kytos_event_handler h, const char *pool)
{
    return kytos_event_subscribe(l->napp, &(struct kytos_sub){.struct_size = sizeof(struct kytos_sub),
                                                              .pattern = pattern,
                                                              .handler = h,
                                                              .ud = l,
                                                              .pool = pool});
}

static int lldp_init(kytos_napp *napp, char **errmsg)
{
    struct lldp *l = calloc(1, sizeof *l);
    int rc;

    if (!l) {
        *errmsg = napp_errdup("out of memory");
        return KYTOS_ENOMEM;
    }
    l->napp = napp;
    pthread_mutex_init(&l->mu, NULL);
    pthread_mutex_init(&l->poll_mu, NULL);
    pthread_mutex_init(&l->loop_act_mu, NULL);
    pthread_mutex_init(&l->ov_mu, NULL);
    kytos_napp_set_data_full(napp, l, lldp_release);
    if (read_settings(l, errmsg) < 0)
        return KYTOS_EINVAL;
    rc = lldp_lv_load(l);
    if (rc == KYTOS_OK)
        rc = lldp_rest_init(l);
    /* in order, on one thread: an enable never overtakes the disable before it */
    if (rc == KYTOS_OK)
        rc = subscribe(l, "kytos/topology\\.switch\\.(enabled|disabled)",
                       lldp_punt_on_switch_event, "dynamic_single");
    if (rc == KYTOS_OK)
        rc = subscribe(l, "kytos/of_core\\.v0x04\\.messages\\.in\\.ofpt_packet_in",
                       lldp_on_packet_in, NULL);
    if (rc != KYTOS_OK) {
        *errmsg = napp_errdup("of_lldp: registering routes or subscriptions failed");
        return rc;
    }
    return KYTOS_OK;
}

static int lldp_start(kytos_napp *napp)
{
    struct lldp *l = kytos_napp_data(napp);

    /* the first round one polling interval after start, as Kytos' loop */
    atomic_store(&l->next_poll_ms, lldp_now_ms() + 1000LL * atomic_load(&l->polling_time));
    return kytos_timer_add(napp, TICK_MS, poll_tick, l);
}

KYTOS_NAPP_DEFINE("kytos", "of_lldp", "2025.2.0", KYTOS_DEPS("kytos/topology", "kytos/flow_manager"), of_lldp_openapi, of_lldp_openapi_len, 0,
                  lldp_init, lldp_start, NULL);
