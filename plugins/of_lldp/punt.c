/* plugins/of_lldp/punt.c - the flow that sends our LLDP frames to the
 * controller (southbound.md 3.2), through flow_manager in-process
 * (kytos_call: the same router, validation and handler as Kytos' HTTP
 * request to flow_manager, without a socket):
 *
 *   table 0, priority 50000, cookie 0xab<<56 | dpid48, owner "of_lldp",
 *   table_group "base", match {dl_type 0x88cc, dl_vlan 3799},
 *   actions [output CONTROLLER]
 *
 * On kytos/topology.switch.enabled of a connected switch with no such flow
 * installed: POST v2/flows/<dpid>; on .disabled with one: DELETE (with
 * cookie_mask 2^64-1).  Kytos' retries: 3 attempts, 3 s + 2..7 s apart, on a
 * failed call, a 5xx, 400, 404 or 424; retries send "force": true. */
#include "lldp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FM "/api/kytos/flow_manager/v2/"

uint64_t lldp_cookie(uint64_t dpid)
{
    return LLDP_COOKIE_PREFIX << 56 | (dpid & 0x0000ffffffffffffull);
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static struct json_object *build_flow(const struct lldp *l, uint64_t dpid, bool with_mask)
{
    struct json_object *f = json_object_new_object(), *m = json_object_new_object(),
                       *acts = json_object_new_array(), *out = json_object_new_object();

    json_object_object_add(out, "action_type", json_object_new_string("output"));
    json_object_object_add(out, "port", json_object_new_int64(LLDP_OFPP_CONTROLLER));
    json_object_array_add(acts, out);
    json_object_object_add(m, "dl_type", json_object_new_int(LLDP_ETHERTYPE));
    json_object_object_add(m, "dl_vlan", json_object_new_int((int)l->vlan));
    json_object_object_add(f, "priority", json_object_new_int((int)l->priority));
    json_object_object_add(f, "cookie", json_object_new_uint64(lldp_cookie(dpid)));
    if (with_mask)
        json_object_object_add(f, "cookie_mask", json_object_new_uint64(UINT64_MAX));
    json_object_object_add(f, "match", m);
    json_object_object_add(f, "actions", acts);
    json_object_object_add(f, "table_id", json_object_new_int(0));
    json_object_object_add(f, "owner", json_object_new_string("of_lldp"));
    json_object_object_add(f, "table_group", json_object_new_string("base"));
    return f;
}

static bool worth_retrying(int rc, unsigned status)
{
    return rc != KYTOS_OK || status >= 500 || status == 400 || status == 404 || status == 424;
}

static unsigned retry_wait(const struct lldp *l)
{
    /* wait_fixed(3) + wait_random(2, 7), scaled to flow_retry_ms */
    unsigned base = l->flow_retry_ms;
    return base + (base * 2 + (unsigned)(rand() % (int)(base * 5 + 1))) / 3;
}

/* Kytos' get_flows_by_switch: how many installed of_lldp flows dpid has,
 * or -1 when flow_manager cannot say. */
static int installed_flows(struct lldp *l, const char *dpid)
{
    char path[320];
    int n = -1;

    snprintf(path, sizeof path,
             FM "stored_flows?state=installed&cookie_range=%" PRIu64 "&cookie_range=%" PRIu64
                "&dpid=%s",
             LLDP_COOKIE_PREFIX << 56, LLDP_COOKIE_PREFIX << 56 | (uint64_t)0x00ffffffffffffff, dpid);
    for (unsigned attempt = 1; attempt <= l->flow_retries; attempt++) {
        kytos_response *r = NULL;
        int rc = kytos_call(l->napp, "GET", path, NULL, 0, &r);
        unsigned st = r ? kytos_response_status(r) : 0;
        struct json_object *list;

        if (rc == KYTOS_OK && st == 200) {
            n = json_object_object_get_ex(kytos_response_json(r), dpid, &list) &&
                        json_object_is_type(list, json_type_array)
                    ? (int)json_object_array_length(list)
                    : 0;
            kytos_response_free(r);
            return n;
        }
        kytos_response_free(r);
        if (rc == KYTOS_OK && st == 400) {
            kytos_log(l->napp, KYTOS_LOG_ERROR, "Error when getting flows of %s: status 400",
                      dpid);
            return -1;
        }
        if (attempt < l->flow_retries)
            sleep_ms(retry_wait(l));
    }
    kytos_log(l->napp, KYTOS_LOG_ERROR, "Error when obtaining flows of %s from flow_manager",
              dpid);
    return -1;
}

/* Whether vlan.used was published for dpid (and not released since) in
 * this run; set: 1 mark, 0 unmark, -1 only ask. */
static bool vlan_told(struct lldp *l, const char *dpid, int set)
{
    bool was;

    pthread_mutex_lock(&l->mu);
    if (!l->vlan_told)
        l->vlan_told = json_object_new_object();
    was = l->vlan_told && json_object_object_get_ex(l->vlan_told, dpid, NULL);
    if (l->vlan_told && set == 1 && !was)
        json_object_object_add(l->vlan_told, dpid, NULL);
    else if (l->vlan_told && set == 0 && was)
        json_object_object_del(l->vlan_told, dpid);
    pthread_mutex_unlock(&l->mu);
    return was;
}

static void vlan_event(struct lldp *l, const char *name, const char *dpid)
{
    struct json_object *c = json_object_new_object(), *tags = json_object_new_array();

    vlan_told(l, dpid, strstr(name, ".used") != NULL);

    json_object_array_add(tags, json_object_new_int((int)l->vlan));
    json_object_object_add(c, "dpid", json_object_new_string(dpid));
    json_object_object_add(c, "tag_type", json_object_new_string("vlan"));
    json_object_object_add(c, "tags", tags);
    lldp_publish(l, name, c);
}

static void send_flow(struct lldp *l, const char *dpid, uint64_t dpid_num, bool install)
{
    char path[128];
    struct json_object *body = json_object_new_object(), *flows = json_object_new_array();
    bool done = false;

    json_object_array_add(flows, build_flow(l, dpid_num, !install));
    json_object_object_add(body, "flows", flows);
    snprintf(path, sizeof path, FM "flows/%s", dpid);
    for (unsigned attempt = 1; attempt <= l->flow_retries && !done; attempt++) {
        kytos_response *r = NULL;
        int rc = kytos_call_json(l->napp, install ? "POST" : "DELETE", path, body, &r);
        unsigned st = r ? kytos_response_status(r) : 0;

        kytos_response_free(r);
        if (!worth_retrying(rc, st)) {
            done = true;
            break;
        }
        kytos_log(l->napp, KYTOS_LOG_WARNING, "%s of the LLDP flow on %s: status %u (attempt %u)",
                  install ? "POST" : "DELETE", dpid, st, attempt);
        if (attempt < l->flow_retries) {
            sleep_ms(retry_wait(l));
            json_object_object_add(body, "force", json_object_new_boolean(1));
        }
    }
    json_object_put(body);
    if (!done) {
        kytos_log(l->napp, KYTOS_LOG_ERROR, "Error when sending the LLDP flow to %s", dpid);
        return;
    }
    vlan_event(l, install ? "kytos/of_lldp.vlan.used" : "kytos/of_lldp.vlan.released", dpid);
}

int lldp_punt_on_switch_event(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct lldp *l = ud;
    const char *name = kytos_event_name(ev);
    const char *dpid = lldp_jstr(kytos_event_content(ev), "dpid");
    bool enabled = strstr(name, "switch.enabled") != NULL;
    struct lldp_topo *t;
    uint64_t dpid_num;
    int n;
    bool connected;

    (void)napp;
    if (!dpid || lldp_dpid_parse(dpid, &dpid_num) < 0) {
        kytos_log(l->napp, KYTOS_LOG_ERROR, "%s without a valid dpid", name);
        return KYTOS_OK;
    }
    /* Kytos builds no flow for a switch without an OpenFlow 1.3 connection */
    t = lldp_topo_get(l, 0);
    connected = t && lldp_jbool(lldp_topo_switch(t, dpid), "active");
    lldp_topo_put(t);
    if (!connected) {
        kytos_log(l->napp, KYTOS_LOG_INFO, "%s: switch %s is not connected, no LLDP flow", name,
                  dpid);
        return KYTOS_OK;
    }
    n = installed_flows(l, dpid);
    if (n < 0)
        return KYTOS_OK;
    if (enabled && n == 0)
        send_flow(l, dpid, dpid_num, true);
    else if (enabled && !vlan_told(l, dpid, -1))
        /* the flow outlived a restart: Kytos' topology keeps the VLAN used
         * in its stored interfaces; mef_eline, which holds the tags here,
         * keeps them in memory: tell it once in this run */
        vlan_event(l, "kytos/of_lldp.vlan.used", dpid);
    else if (!enabled && n > 0)
        send_flow(l, dpid, dpid_num, false);
    return KYTOS_OK;
}
