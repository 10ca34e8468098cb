/* plugins/topology/rest_tags.c - v3/interfaces/.../tag_ranges and
 * special_tags, as Kytos' topology serves them (texts of kytos.core's
 * KytosTagError family).  Changes persist the interface's interface_details
 * document; they change no GET v3/ body and publish no event.  Where Kytos
 * crashes (a non-numeric port, malformed ranges: a 500), we answer 400. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Caller holds the model lock.  NULL with *status 400 (bad id) or 404. */
static struct topo_intf *lookup(struct topo *t, const char *id, int *status)
{
    char dpid[TOPO_DPID_MAX + 1];
    struct topo_intf *i;
    uint32_t port = 0;
    bool port_ok = false;

    topo_split_intf_id(id, dpid, sizeof(dpid), &port, &port_ok);
    if (!port_ok) {
        *status = 400;
        return NULL;
    }
    i = topo_intf_find(topo_switch_find(t, dpid), port);
    *status = i ? 200 : 404;
    return i;
}

static int answer_lookup(kytos_req *req, int status)
{
    if (status == 400)
        return kytos_resp_error(req, 400, "Invalid interface_id %.200s",
                                kytos_req_param(req, "interface_id"));
    return kytos_resp_error(req, 404, "Interface not found");
}

/* KytosTagtypeNotSupported unless "vlan"; NULL/absent is Python's None. */
static int check_tag_type(struct json_object *v, const char *s, char *err, size_t errlen)
{
    if (v)
        s = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                     : json_object_to_json_string_ext(v, JSON_C_TO_STRING_SPACED);
    if (s && strcmp(s, "vlan") == 0)
        return 0;
    snprintf(err, errlen, "KytosTagtypeNotSupported, Tag type %.100s is not supported.", s ? s : "None");
    return -1;
}

/* The validated body of a POST (the host checked it against openapi.yml;
 * checked again here in case validation is off). */
static struct json_object *body_object(kytos_req *req)
{
    struct json_object *b = kytos_req_json(req);

    if (!json_object_is_type(b, json_type_object)) {
        kytos_resp_error(req, 400, "The request body must be a JSON object");
        return NULL;
    }
    return b;
}

static int get_all(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *out = json_object_new_object();

    if (!out)
        return kytos_resp_error(req, 500, "out of memory");
    pthread_rwlock_rdlock(&t->rw);
    for (size_t n = 0; n < t->n_switches; n++)
        for (size_t k = 0; k < t->switches[n]->n_intfs; k++) {
            struct topo_intf *i = t->switches[n]->intfs[k];
            json_object_object_add(out, i->id, topo_tags_dict(i));
        }
    pthread_rwlock_unlock(&t->rw);
    return kytos_resp_json_take(req, 200, out);
}

static int get_one(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *id = kytos_req_param(req, "interface_id");
    struct json_object *out, *d = NULL;
    struct topo_intf *i;
    int status;

    pthread_rwlock_rdlock(&t->rw);
    i = lookup(t, id, &status);
    if (i)
        d = topo_tags_dict(i);
    pthread_rwlock_unlock(&t->rw);
    if (!i)
        return answer_lookup(req, status);
    out = json_object_new_object();
    json_object_object_add(out, id, d);  /* keyed as asked, as Kytos does */
    return kytos_resp_json_take(req, 200, out);
}

static int set_ranges(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *body = body_object(req), *tag_type = NULL, *ranges = NULL;
    struct topo_range *r = NULL;
    struct topo_intf *i;
    struct topo_op op;
    char err[320];
    size_t n = 0;
    int status, bad_type = 0, rc;

    if (!body)
        return KYTOS_OK;
    json_object_object_get_ex(body, "tag_type", &tag_type);
    json_object_object_get_ex(body, "tag_ranges", &ranges);
    if (topo_tags_parse_ranges(ranges, &r, &n, err, sizeof(err)) != 0)
        return kytos_resp_error(req, 400, "%s", err);
    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    i = lookup(t, kytos_req_param(req, "interface_id"), &status);
    if (i && (bad_type = check_tag_type(tag_type, NULL, err, sizeof(err))) == 0 &&
        topo_op_save_tags(&op, i)) {
        topo_tags_set_ranges(i, r, n);
        r = NULL;
        topo_op_persist_tags(&op, i);
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    free(r);
    if (!i)
        return answer_lookup(req, status);
    if (bad_type)
        return kytos_resp_error(req, 400, "%s", err);
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 200, "Operation Successful");
}

static int reset_ranges(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *tag_type = kytos_req_query(req, "tag_type");
    struct topo_intf *i;
    struct topo_op op;
    char err[200];
    int status, bad_type = 0, rc;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    i = lookup(t, kytos_req_param(req, "interface_id"), &status);
    if (i && (bad_type = check_tag_type(NULL, tag_type ? tag_type : "vlan", err, sizeof(err))) == 0 &&
        topo_op_save_tags(&op, i)) {
        topo_tags_set_ranges(i, NULL, 0);
        topo_op_persist_tags(&op, i);
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!i)
        return answer_lookup(req, status);
    if (bad_type)
        return kytos_resp_error(req, 400, "%s", err);
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 200, "Operation Successful");
}

static int set_special(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *body = body_object(req), *tag_type = NULL, *special = NULL;
    uint8_t codes[TOPO_N_SPECIAL], n = 0;
    struct topo_intf *i;
    struct topo_op op;
    char err[320];
    int status, bad = 0, rc;

    if (!body)
        return KYTOS_OK;
    json_object_object_get_ex(body, "tag_type", &tag_type);
    json_object_object_get_ex(body, "special_tags", &special);
    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    i = lookup(t, kytos_req_param(req, "interface_id"), &status);
    /* set_special_tags: the names first, then the tag type */
    if (i && (bad = topo_tags_parse_special(special, codes, &n, err, sizeof(err))) == 0 &&
        (bad = check_tag_type(tag_type, NULL, err, sizeof(err))) == 0 && topo_op_save_tags(&op, i)) {
        i->special_set = true;
        i->n_special = n;
        memcpy(i->special, codes, sizeof(codes));
        topo_op_persist_tags(&op, i);
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!i)
        return answer_lookup(req, status);
    if (bad)
        return kytos_resp_error(req, 400, "%s", err);
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 200, "Operation Successful");
}

int topo_routes_tags(struct topo *t)
{
    static const struct topo_route routes[] = {
        {"GET", "v3/interfaces/tag_ranges", get_all, 0},
        {"GET", "v3/interfaces/{interface_id}/tag_ranges", get_one, 0},
        {"POST", "v3/interfaces/{interface_id}/tag_ranges", set_ranges, KYTOS_ROUTE_VALIDATE},
        {"DELETE", "v3/interfaces/{interface_id}/tag_ranges", reset_ranges, 0},
        {"POST", "v3/interfaces/{interface_id}/special_tags", set_special, KYTOS_ROUTE_VALIDATE},
    };

    return topo_routes_add(t, routes, sizeof routes / sizeof routes[0]);
}
