/* plugins/simnet/persist.c - the simulated switches keep their flow tables
 * across a restart of kytosd, as real switches keep theirs when their
 * controller restarts (setting keep_flows; layout in simnet.h).
 *
 * Without it every restart meets empty switches and flow_manager's
 * consistency check sends every flow again: not the restart an operator
 * of real switches sees.  The store is another process's word (a file
 * anyone could edit): every document and flow is checked, and what does
 * not fit is skipped and counted in the log. */
#include "simnet.h"

#include <stdio.h>
#include <string.h>

#define COLL "simnet_flow_tables"

static void part_id(char *out, size_t len, const char *dpid, unsigned k)
{
    snprintf(out, len, "%s#%u", dpid, k);
}

/* One document's flows into sw; how many were skipped (-1: not a part). */
static long load_part(struct sim_switch *sw, struct json_object *doc, unsigned k)
{
    struct json_object *v, *flows;
    long skipped = 0;

    if (!json_object_is_type(doc, json_type_object) || !json_object_object_get_ex(doc, "dpid", &v) ||
        !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), sw->dpid) != 0 ||
        !json_object_object_get_ex(doc, "part", &v) || !json_object_is_type(v, json_type_int) ||
        json_object_get_int64(v) != (int64_t)k || !json_object_object_get_ex(doc, "flows", &flows) ||
        !json_object_is_type(flows, json_type_array) ||
        json_object_array_length(flows) > SIM_PERSIST_PART)
        return -1;
    for (size_t i = 0; i < json_object_array_length(flows); i++)
        if (!sim_flow_restore(sw, json_object_array_get_idx(flows, i)))
            skipped++;
    return skipped;
}

#define MANIFEST "tables"

bool sim_flows_saved(struct simnet *s)
{
    struct json_object *doc = NULL, *parts;
    bool any = false;
    int rc;

    if (!s->keep_flows)
        return false;
    rc = kytos_store_get(s->napp, COLL, MANIFEST, &doc, NULL);
    if (rc != KYTOS_OK) {
        if (rc != KYTOS_ENOTFOUND)
            kytos_log(s->napp, KYTOS_LOG_WARNING,
                      "the saved flow tables could not be read (%s): the switches start empty",
                      kytos_strerror(rc));
        return false;
    }
    if (!json_object_object_get_ex(doc, "parts", &parts) || !json_object_is_type(parts, json_type_object)) {
        kytos_log(s->napp, KYTOS_LOG_WARNING, "the saved flow tables' list is not valid: ignored");
        json_object_put(doc);
        return false;
    }
    for (size_t i = 0; i < s->n_switches; i++) {
        struct sim_switch *sw = s->switches[i];
        struct json_object *v;
        int64_t n;
        if (!json_object_object_get_ex(parts, sw->dpid, &v))
            continue;
        n = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
        if (n < 0 || n > SIM_PERSIST_MAX_PARTS) {
            kytos_log(s->napp, KYTOS_LOG_WARNING, "switch %s: %s saved parts: ignored", sw->dpid,
                      json_object_to_json_string(v));
            continue;
        }
        sw->saved_parts = (unsigned)n;
        any = any || n > 0;
    }
    json_object_put(doc);
    return any;
}

void sim_flows_load(struct simnet *s)
{
    size_t flows = 0, skipped = 0, bad_docs = 0;

    for (size_t i = 0; i < s->n_switches; i++) {
        struct sim_switch *sw = s->switches[i];
        for (unsigned k = 0; k < sw->saved_parts; k++) {
            struct json_object *doc = NULL;
            char id[TOPO_DPID_MAX + 16];
            long r;
            int rc;
            part_id(id, sizeof(id), sw->dpid, k);
            rc = kytos_store_get(s->napp, COLL, id, &doc, NULL);
            if (rc != KYTOS_OK) {
                kytos_log(s->napp, KYTOS_LOG_WARNING,
                          "switch %s: part %u of its saved flow table could not be read (%s)",
                          sw->dpid, k, kytos_strerror(rc));
                bad_docs++;
                continue;
            }
            r = load_part(sw, doc, k);
            json_object_put(doc);
            if (r < 0)
                bad_docs++;
            else
                skipped += (size_t)r;
        }
        flows += sw->flows.n;
    }
    if (skipped || bad_docs)
        kytos_log(s->napp, KYTOS_LOG_WARNING,
                  "saved flow tables: %zu flows and %zu documents were not valid and were skipped",
                  skipped, bad_docs);
    kytos_log(s->napp, KYTOS_LOG_INFO, "the switches kept %zu flows across the restart", flows);
}

/* Parts [from, to) of sw's table: gone. */
static int drop_parts(struct simnet *s, struct sim_switch *sw, unsigned from, unsigned to)
{
    for (unsigned k = from; k < to; k++) {
        char id[TOPO_DPID_MAX + 16];
        int rc;
        part_id(id, sizeof(id), sw->dpid, k);
        rc = kytos_store_delete(s->napp, COLL, id, NULL);
        if (rc != KYTOS_OK && rc != KYTOS_ENOTFOUND)
            return rc;
    }
    return KYTOS_OK;
}

static int save_switch(struct simnet *s, struct sim_switch *sw)
{
    struct sim_flow *f = sw->flows.head;
    unsigned k = 0;
    int rc = KYTOS_OK;

    while (f && rc == KYTOS_OK) {
        struct json_object *doc = json_object_new_object(), *list = json_object_new_array();
        char id[TOPO_DPID_MAX + 16];
        if (!doc || !list) {
            json_object_put(doc);
            json_object_put(list);
            return KYTOS_ENOMEM;
        }
        json_object_object_add(doc, "dpid", json_object_new_string(sw->dpid));
        json_object_object_add(doc, "part", json_object_new_int64(k));
        json_object_object_add(doc, "flows", list);
        for (size_t n = 0; f && n < SIM_PERSIST_PART; f = f->next, n++) {
            struct json_object *flow = sim_flow_json(f);
            if (flow)
                json_object_array_add(list, flow);
        }
        part_id(id, sizeof(id), sw->dpid, k);
        rc = kytos_store_put(s->napp, COLL, id, doc, NULL);
        json_object_put(doc);
        k++;
    }
    if (rc == KYTOS_OK)
        rc = drop_parts(s, sw, k, sw->saved_parts);
    if (rc == KYTOS_OK)
        sw->saved_parts = k;
    return rc;
}

void sim_flows_save(struct simnet *s)
{
    struct json_object *manifest, *parts;
    size_t flows = 0;
    int rc;

    if (!s->keep_flows)
        return;
    manifest = json_object_new_object();
    parts = json_object_new_object();
    if (!manifest || !parts) {
        json_object_put(manifest);
        json_object_put(parts);
        return;
    }
    json_object_object_add(manifest, "parts", parts);
    for (size_t i = 0; i < s->n_switches; i++) {
        struct sim_switch *sw = s->switches[i];
        if (sw->flows.n > (size_t)SIM_PERSIST_PART * SIM_PERSIST_MAX_PARTS) {
            kytos_log(s->napp, KYTOS_LOG_WARNING, "switch %s: %zu flows are too many to keep", sw->dpid,
                      sw->flows.n);
            if (drop_parts(s, sw, 0, sw->saved_parts) == KYTOS_OK)
                sw->saved_parts = 0;
        } else if ((rc = save_switch(s, sw)) != KYTOS_OK) {
            kytos_log(s->napp, KYTOS_LOG_WARNING, "switch %s: its flow table was not saved (%s)", sw->dpid,
                      kytos_strerror(rc));
        } else {
            flows += sw->flows.n;
        }
        /* what the store holds now (a failed save may have left parts) */
        if (sw->saved_parts)
            json_object_object_add(parts, sw->dpid, json_object_new_int64(sw->saved_parts));
    }
    rc = kytos_store_put(s->napp, COLL, MANIFEST, manifest, NULL);
    json_object_put(manifest);
    if (rc != KYTOS_OK)
        kytos_log(s->napp, KYTOS_LOG_WARNING, "the flow tables' list was not saved (%s)", kytos_strerror(rc));
    else
        kytos_log(s->napp, KYTOS_LOG_INFO, "saved %zu flows of %zu switches", flows, s->n_switches);
}
