/* plugins/topology/rest_util.c - request helpers shared by the handlers. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int topo_reply_str(kytos_req *req, unsigned status, const char *text)
{
    struct json_object *s = json_object_new_string(text);
    int rc = kytos_resp_json(req, status, s);

    json_object_put(s);
    return rc;
}

int topo_reply_store_error(kytos_req *req, int rc)
{
    return kytos_resp_error(req, 500, "The change could not be saved: %s", kytos_strerror(rc));
}

/* content_type_json_or_415: one ';'-separated part must be application/json */
static bool is_json_type(const char *ct)
{
    const char *p = ct;

    while (p && *p) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t')) {
            p++;
            n--;
        }
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n == 16 && strncmp(p, "application/json", 16) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/* Kytos' _get_metadata: 415 unless JSON, 400 unless a JSON object.  A
 * non-empty body was read by the host's strict parser (its 415 and 400
 * "Invalid json: ..." are Kytos' too): not json-c's, which takes NaN,
 * Infinity, "1.", raw control characters and invalid UTF-8 and clamps huge
 * integers, values that would then go to GET v3/ (which re-emits number
 * texts verbatim) and to the store.  The host leaves an empty body alone:
 * checked here, as Kytos checks it. */
struct json_object *topo_metadata_body(kytos_req *req)
{
    const char *ct = kytos_req_header(req, "Content-Type");
    struct json_object *v;
    size_t len = 0;

    if (!is_json_type(ct)) {
        kytos_resp_error(req, 415, "Expected Content-Type: application/json, got: %s",
                         ct ? ct : "None");
        return NULL;
    }
    if (!kytos_req_body(req, &len) || len == 0) {
        kytos_resp_error(req, 400, "Invalid json: Expecting value: line 1 column 1 (char 0)");
        return NULL;
    }
    v = kytos_req_json(req);   /* NULL: the body was JSON null */
    if (!json_object_is_type(v, json_type_object)) {
        /* sic: Kytos forgot the f-string prefix, so the braces are literal */
        kytos_resp_error(req, 400, "Invalid metadata value: {metadata}");
        return NULL;
    }
    return json_object_get(v);
}

void topo_split_intf_id(const char *id, char *dpid, size_t cap, uint32_t *port, bool *port_ok)
{
    const char *colon, *p;
    size_t n;
    uint64_t v = 0;

    *port_ok = false;
    *port = 0;
    if (cap == 0)
        return;
    dpid[0] = '\0';
    if (!id)
        return;
    colon = strrchr(id, ':');
    n = colon ? (size_t)(colon - id) : 0;
    if (n >= cap)
        n = 0;  /* longer than any dpid: matches no switch */
    memcpy(dpid, id, n);
    dpid[n] = '\0';
    p = colon ? colon + 1 : id;
    if (!*p)
        return;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > UINT32_MAX)
            return;
    }
    *port = (uint32_t)v;
    *port_ok = true;
}

static void query_escape(const char *s, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;

    for (; *s && o + 4 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == ':') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

struct json_object *topo_switch_flows(struct topo *t, const char *dpid, char **err)
{
    char esc[3 * TOPO_DPID_MAX + 1], path[4 * TOPO_DPID_MAX + 100];
    kytos_response *resp = NULL;
    struct json_object *body, *flows = NULL;
    unsigned status;
    int rc;

    *err = NULL;
    query_escape(dpid, esc, sizeof(esc));
    snprintf(path, sizeof(path), "/api/kytos/flow_manager/v2/stored_flows?state=installed&dpid=%s",
             esc);
    rc = kytos_call(t->napp, "GET", path, NULL, 0, &resp);
    if (rc < 0 || !resp) {
        *err = strdup(kytos_strerror(rc));
        return NULL;
    }
    status = kytos_response_status(resp);
    if (status == 404) {
        /* no flow_manager: no flows can be installed through it */
        kytos_response_free(resp);
        return json_object_new_array();
    }
    body = status == 200 ? kytos_response_json(resp) : NULL;
    if (json_object_is_type(body, json_type_object) && json_object_object_get_ex(body, dpid, &flows) &&
        json_object_is_type(flows, json_type_array)) {
        json_object_get(flows);
    } else if (status == 200 && json_object_is_type(body, json_type_object)) {
        flows = json_object_new_array();
    } else {
        size_t len = 0;
        const char *text = kytos_response_body(resp, &len);
        char *msg = malloc(len + 1);
        if (msg) {
            memcpy(msg, text ? text : "", text ? len : 0);
            msg[text ? len : 0] = '\0';
        }
        *err = msg;
        flows = NULL;
    }
    kytos_response_free(resp);
    return flows;
}

struct json_object *topo_metadata_event(const char *entity, struct json_object *dict,
                                        struct json_object *metadata)
{
    struct json_object *c = json_object_new_object(), *md = NULL;

    if (!c) {
        json_object_put(dict);
        return NULL;
    }
    if (json_object_deep_copy(metadata, &md, NULL) != 0)
        md = json_object_new_object();
    json_object_object_add(c, entity, dict);
    json_object_object_add(c, "metadata", md);
    return c;
}
