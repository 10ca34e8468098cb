/* plugins/mef_eline/lldp_vlan.c - the VLAN of_lldp's punt flow holds.
 *
 * In Kytos, of_lldp marks its VLAN (flow_vlan_vid, 3799) used on every
 * interface of a switch once the punt flow {dl_type 0x88cc, dl_vlan 3799}
 * is installed there, and makes it available again when the flow is
 * deleted (switch disabled).  Here of_lldp publishes
 *
 *   kytos/of_lldp.vlan.used|released  {"dpid", "tag_type": "vlan", "tags": [3799]}
 *
 * and mef_eline, which keeps the interfaces' tags, holds those VLANs for
 * the switch: a UNI asking for one is refused (KytosTagsAreNotAvailable,
 * 400) and no S-VLAN is ever one of them.  One single-thread pool keeps a
 * switch's used/released in the order they were published. */
#include "me.h"

#include <string.h>

static int on_vlan(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct me *me = ud;
    const char *name = kytos_event_name(ev);
    struct json_object *c = kytos_event_content(ev), *v, *tags;
    const char *dpid, *type = "vlan";
    bool on = name && strstr(name, ".vlan.used") != NULL;
    size_t i, n;

    if (!json_object_object_get_ex(c, "dpid", &v) || !json_object_is_type(v, json_type_string)) {
        kytos_log(napp, KYTOS_LOG_WARNING, "%s without a dpid: ignored", name ? name : "event");
        return KYTOS_OK;
    }
    dpid = json_object_get_string(v);
    if (json_object_object_get_ex(c, "tag_type", &v))
        type = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
    if (strcmp(type, "vlan") != 0 || !json_object_object_get_ex(c, "tags", &tags) ||
        !json_object_is_type(tags, json_type_array)) {
        kytos_log(napp, KYTOS_LOG_WARNING, "%s for %.40s: no VLAN list, ignored", name, dpid);
        return KYTOS_OK;
    }
    n = json_object_array_length(tags);
    pthread_mutex_lock(&me->lock);
    for (i = 0; i < n; i++) {
        struct json_object *t = json_object_array_get_idx(tags, i);
        int64_t vlan = json_object_is_type(t, json_type_int) ? json_object_get_int64(t) : -1;
        if (vlan < 1 || vlan > 4094 ||
            me_tagtab_reserve_switch(me->tags, dpid, (uint16_t)vlan, on) != 0)
            kytos_log(napp, KYTOS_LOG_WARNING, "%s for %.40s: tag %s ignored", name, dpid,
                      json_object_to_json_string(t));
    }
    pthread_mutex_unlock(&me->lock);
    return KYTOS_OK;
}

int me_lldp_vlan_subscribe(struct me *me)
{
    return kytos_event_subscribe(me->napp,
                                 &(struct kytos_sub){
                                     .struct_size = sizeof(struct kytos_sub),
                                     .pattern = "kytos/of_lldp\\.vlan\\.(used|released)",
                                     .handler = on_vlan,
                                     .ud = me,
                                     .pool = "dynamic_single",
                                 });
}
