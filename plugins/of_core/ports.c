/* plugins/of_core/ports.c - PORT_DESC and PORT_STATUS -> interface events
 * with Kytos' rules (southbound.md 2.4): active iff state == LIVE exactly
 * or the LOCAL port; link_up/link_down only from a MODIFY whose LINK_DOWN
 * bit differs from the port's previous state (or that was 0/unknown). */
#include "of_core.h"

#include <stdlib.h>
#include <string.h>

static struct json_object *intf_event(const struct ofc_switch *sw, const struct ofc_port *p)
{
    struct json_object *c = json_object_new_object(), *i = ofc_intf_json(sw, p);

    if (!c || !i) {
        json_object_put(c);
        json_object_put(i);
        return NULL;
    }
    json_object_object_add(c, "interface", i);
    return c;
}

void ofc_port_desc_done(struct ofc_conn *cs)
{
    struct ofcore *oc = cs->oc;
    struct ofc_switch *sw;
    struct json_object *c = json_object_new_object(), *list = json_object_new_array();
    struct json_object *local = NULL;

    ofc_announce(cs);
    if (!c || !list) {
        json_object_put(c);
        json_object_put(list);
        return;
    }
    pthread_mutex_lock(&oc->lock);
    sw = ofc_switch_find(oc, cs->dpid);
    for (size_t k = 0; sw && k < cs->n_pd; k++) {
        struct ofc_port *p = ofc_port_set(sw, &cs->pd[k]);
        if (!p)
            continue;
        if (p->no == OFPP_LOCAL)
            local = ofc_intf_json(sw, p);
        else
            json_object_array_add(list, ofc_intf_json(sw, p));
    }
    pthread_mutex_unlock(&oc->lock);
    if (local)
        json_object_array_add(list, local);   /* LOCAL last, as simnet */
    free(cs->pd);
    cs->pd = NULL;
    cs->n_pd = cs->cap_pd = 0;
    json_object_object_add(c, "switch", json_object_new_string(cs->dpid));
    json_object_object_add(c, "dpid", json_object_new_string(cs->dpid));
    json_object_object_add(c, "interfaces", list);
    ofc_publish(oc, "kytos/of_core.switch.interfaces.created", c);
}

void ofc_port_status(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    struct ofcore *oc = cs->oc;
    struct ofp_port_status ps;
    struct ofc_switch *sw;
    struct ofc_port *p;
    struct json_object *link = NULL, *ev = NULL;
    const char *link_name = NULL, *name = NULL;
    char err[160];

    if (ofp_port_status_decode(msg, len, &ps, err, sizeof(err)) < 0) {
        kytos_log(oc->napp, KYTOS_LOG_WARNING, "switch %s: bad PORT_STATUS ignored: %s", cs->dpid,
                  err);
        return;
    }
    pthread_mutex_lock(&oc->lock);
    sw = ofc_switch_find(oc, cs->dpid);
    p = sw ? ofc_port_find(sw, ps.desc.port_no) : NULL;
    switch (ps.reason) {
    case OFPPR_ADD:
        p = sw ? ofc_port_set(sw, &ps.desc) : NULL;
        name = "kytos/of_core.switch.interface.created";
        break;
    case OFPPR_MODIFY: {
        uint32_t prev = p && p->present ? p->state : 0;
        p = sw ? ofc_port_set(sw, &ps.desc) : NULL;
        if (p && (prev == 0 || ((prev ^ ps.desc.state) & OFPPS_LINK_DOWN))) {
            link_name = (ps.desc.state & OFPPS_LINK_DOWN) ? "kytos/of_core.switch.interface.link_down"
                                                          : "kytos/of_core.switch.interface.link_up";
            link = intf_event(sw, p);
        }
        name = "kytos/of_core.switch.interface.modified";
        break;
    }
    case OFPPR_DELETE:
        if (p) {
            p->present = false;
            name = "kytos/of_core.switch.interface.deleted";
        }
        break;
    default:
        break;
    }
    if (p && name)
        ev = intf_event(sw, p);
    pthread_mutex_unlock(&oc->lock);
    if (link)
        ofc_publish(oc, link_name, link);
    if (ev)
        ofc_publish(oc, name, ev);
}
