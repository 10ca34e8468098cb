/* plugins/mef_eline/rest_meta.c - EVC metadata (one and bulk) and the
 * schedule list. */
#include "me.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int resp_text(kytos_req *req, unsigned status, const char *text)
{
    return kytos_resp_json_take(req, status, json_object_new_string(text));
}

/* A copy of e->doc to put back with restore_doc() (caller holds e->lock). */
static struct json_object *doc_copy(const struct me_evc *e)
{
    struct json_object *d = NULL;
    json_object_deep_copy(e->doc, &d, NULL);
    return d;
}

/* The store refused e's change: e->doc as it was (old taken over). */
static void restore_doc(struct me_evc *e, struct json_object *old)
{
    json_object_put(e->doc);
    e->doc = old;
}

static struct json_object *metadata_of(struct me_evc *e)
{
    struct json_object *md;
    if (!json_object_object_get_ex(e->doc, "metadata", &md) ||
        !json_object_is_type(md, json_type_object)) {
        md = json_object_new_object();
        json_object_object_add(e->doc, "metadata", md);
    }
    return md;
}

/* GET v2/evc/{circuit_id}/metadata */
static int h_get_metadata(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *id = kytos_req_param(req, "circuit_id");
    struct me_evc *e = me_evc_get(me, id);
    struct json_object *out, *copy = NULL;

    if (!e || e->archived) {
        me_evc_unref(e);
        return kytos_resp_error(req, 404, "circuit_id %s not found.", id);
    }
    pthread_mutex_lock(&e->lock);
    json_object_deep_copy(metadata_of(e), &copy, NULL);
    pthread_mutex_unlock(&e->lock);
    me_evc_unref(e);
    out = json_object_new_object();
    json_object_object_add(out, "metadata", copy ? copy : json_object_new_object());
    return kytos_resp_json_take(req, 200, out);
}

/* Change e's metadata (add body's members, or delete key) and store it;
 * when the store refuses, the EVC keeps its document and the answer is 500. */
static int change_metadata(kytos_req *req, struct me *me, struct me_evc *e,
                           struct json_object *body, const char *key, unsigned ok_status)
{
    struct json_object *md, *old;

    pthread_mutex_lock(&e->lock);
    if (!(old = doc_copy(e))) {
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return KYTOS_ENOMEM;
    }
    md = metadata_of(e);
    if (key) {
        json_object_object_del(md, key);
    } else {
        json_object_object_foreach(body, k, v) json_object_object_add(md, k, me_own(v));
    }
    if (me_evc_sync(me, e) != KYTOS_OK) {
        restore_doc(e, old);
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 500, "Failed to store the EVC");
    }
    json_object_put(old);
    pthread_mutex_unlock(&e->lock);
    me_evc_unref(e);
    return resp_text(req, ok_status, "Operation successful");
}

/* POST v2/evc/{circuit_id}/metadata (object, checked by the spec) */
static int h_add_metadata(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *id = kytos_req_param(req, "circuit_id");
    struct json_object *body = kytos_req_json(req);
    struct me_evc *e;

    if (!json_object_is_type(body, json_type_object))
        return kytos_resp_error(req, 400, "The request body contains invalid API data.");
    e = me_evc_get(me, id);
    if (!e || e->archived) {
        me_evc_unref(e);
        return kytos_resp_error(req, 404, "circuit_id %s not found.", id);
    }
    return change_metadata(req, me, e, body, NULL, 201);
}

/* DELETE v2/evc/{circuit_id}/metadata/{key} */
static int h_delete_metadata(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *id = kytos_req_param(req, "circuit_id"), *key = kytos_req_param(req, "key");
    struct me_evc *e = me_evc_get(me, id);

    if (!e || e->archived) {
        me_evc_unref(e);
        return kytos_resp_error(req, 404, "circuit_id %s not found.", id);
    }
    return change_metadata(req, me, e, NULL, key, 200);
}

/* Metadata member k of md back to its value in prev, or gone when prev had none. */
static void put_back(struct json_object *md, struct json_object *prev, const char *k)
{
    struct json_object *v;
    if (json_object_object_get_ex(prev, k, &v))
        json_object_object_add(md, k, json_object_get(v));
    else
        json_object_object_del(md, k);
}

/* Bulk: apply to every listed EVC; the unknown ids make a 404 listing them.
 * When the store refuses one, the EVCs already changed get back the members
 * this request touched (prev: their metadata before) and the answer is 500. */
static int bulk(kytos_req *req, struct me *me, const char *del_key, unsigned ok_status)
{
    struct json_object *body = kytos_req_json(req), *ids, *failed, **prev;
    struct me_evc **done;
    size_t i, n, ndone = 0;
    int rc = KYTOS_OK;
    bool nomem = false;

    if (!json_object_object_get_ex(body, "circuit_ids", &ids) ||
        !json_object_is_type(ids, json_type_array))
        return kytos_resp_error(req, 400, "The request body contains invalid API data.");
    n = json_object_array_length(ids);
    done = calloc(n + 1, sizeof *done);
    prev = calloc(n + 1, sizeof *prev);
    if (!done || !prev) {
        free(done);
        free(prev);
        return KYTOS_ENOMEM;
    }
    failed = json_object_new_array();
    for (i = 0; i < n && rc == KYTOS_OK; i++) {
        struct json_object *idv = json_object_array_get_idx(ids, i), *old;
        struct me_evc *e = json_object_is_type(idv, json_type_string)
                               ? me_evc_get(me, json_object_get_string(idv))
                               : NULL;
        if (!e || e->archived) {
            me_evc_unref(e);
            json_object_array_add(failed, json_object_get(idv));
            continue;
        }
        pthread_mutex_lock(&e->lock);
        metadata_of(e);
        if (!(old = doc_copy(e))) {
            rc = KYTOS_ENOMEM;
            nomem = true;
        } else {
            if (del_key) {
                json_object_object_del(metadata_of(e), del_key);
            } else {
                struct json_object *md = metadata_of(e);
                json_object_object_foreach(body, k, v) {
                    if (strcmp(k, "circuit_ids") != 0)
                        json_object_object_add(md, k, me_own(v));
                }
            }
            rc = me_evc_sync(me, e);
            if (rc != KYTOS_OK) {
                restore_doc(e, old);
            } else {
                prev[ndone] = json_object_get(json_object_object_get(old, "metadata"));
                json_object_put(old);
            }
        }
        pthread_mutex_unlock(&e->lock);
        if (rc == KYTOS_OK)
            done[ndone++] = e;
        else
            me_evc_unref(e);
    }
    /* refused: undo the changes already stored, last first, one EVC at a time;
     * only what this request left there goes back (the lock was let go in
     * between: a later request's value, already answered, stands) */
    for (i = ndone; rc != KYTOS_OK && i-- > 0;) {
        struct me_evc *e = done[i];
        struct json_object *md, *cur;
        pthread_mutex_lock(&e->lock);
        md = metadata_of(e);
        if (del_key) {
            if (!json_object_object_get_ex(md, del_key, NULL))
                put_back(md, prev[i], del_key);
        } else {
            json_object_object_foreach(body, k, v) {
                if (strcmp(k, "circuit_ids") != 0 && json_object_object_get_ex(md, k, &cur) &&
                    json_object_equal(cur, v))
                    put_back(md, prev[i], k);
            }
        }
        me_evc_save(me, e);   /* refused too: retried until stored (retry.c) */
        pthread_mutex_unlock(&e->lock);
    }
    for (i = 0; i < ndone; i++) {
        json_object_put(prev[i]);
        me_evc_unref(done[i]);
    }
    free(done);
    free(prev);
    if (rc != KYTOS_OK) {
        json_object_put(failed);
        if (nomem)
            return KYTOS_ENOMEM;
        return kytos_resp_error(req, 500, "Failed to store the EVC");
    }
    if (json_object_array_length(failed) > 0) {
        struct json_object *err = json_object_new_object();
        json_object_object_add(err, "description", failed);
        json_object_object_add(err, "code", json_object_new_int(404));
        return kytos_resp_json_take(req, 404, err);
    }
    json_object_put(failed);
    return resp_text(req, ok_status, "Operation successful");
}

static int h_bulk_add_metadata(kytos_req *req, void *ud)
{
    return bulk(req, ud, NULL, 201);
}

static int h_bulk_delete_metadata(kytos_req *req, void *ud)
{
    return bulk(req, ud, kytos_req_param(req, "key"), 200);
}

/* GET v2/evc/schedule: [{schedule_id, circuit_id, schedule}], {} with no live EVC */
static int h_list_schedules(kytos_req *req, void *ud)
{
    struct me *me = ud;
    struct json_object *out, *doc, *proj, *filter;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    size_t seen = 0;
    int rc;

    proj = json_object_new_object();
    json_object_object_add(proj, "id", json_object_new_int(1));
    json_object_object_add(proj, "circuit_scheduler", json_object_new_int(1));
    /* Kytos lists the live EVCs' schedules (get_circuits(archived=False)):
     * a deleted EVC keeps its circuit_scheduler but is no longer run */
    filter = json_object_new_object();
    json_object_object_add(filter, "archived", json_object_new_boolean(0));
    rc = kytos_store_find(me->napp, ME_COLL,
                          &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                               .filter = filter,
                                               .projection = proj},
                          &cur, &err);
    json_object_put(proj);
    json_object_put(filter);
    if (rc != KYTOS_OK)
        return kytos_resp_error(req, 500, "Failed to read EVCs: %s", err.message);
    out = json_object_new_array();
    while ((rc = kytos_cursor_next(cur, &doc, &err)) == 1) {
        struct json_object *sched = json_object_object_get(doc, "circuit_scheduler");
        size_t i;
        seen++;
        for (i = 0; json_object_is_type(sched, json_type_array) &&
                    i < json_object_array_length(sched);
             i++) {
            struct json_object *s = json_object_array_get_idx(sched, i), *v = json_object_new_object();
            json_object_object_add(v, "schedule_id",
                                   json_object_get(json_object_object_get(s, "id")));
            json_object_object_add(v, "circuit_id",
                                   json_object_get(json_object_object_get(doc, "id")));
            json_object_object_add(v, "schedule", json_object_get(s));
            json_object_array_add(out, v);
        }
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    if (seen == 0) {
        json_object_put(out);
        out = json_object_new_object();
    }
    return kytos_resp_json_take(req, 200, out);
}

int me_rest_meta_register(struct me *me)
{
    /* before v2/evc/{circuit_id}: the first matching route wins */
    static const struct me_route routes[] = {
        {"GET", "v2/evc/schedule", h_list_schedules, KYTOS_ROUTE_NO_VALIDATE},
        {"POST", "v2/evc/metadata", h_bulk_add_metadata, KYTOS_ROUTE_VALIDATE},
        {"DELETE", "v2/evc/metadata/{key}", h_bulk_delete_metadata, KYTOS_ROUTE_VALIDATE},
        {"GET", "v2/evc/{circuit_id}/metadata", h_get_metadata, KYTOS_ROUTE_NO_VALIDATE},
        {"POST", "v2/evc/{circuit_id}/metadata", h_add_metadata, KYTOS_ROUTE_VALIDATE},
        {"DELETE", "v2/evc/{circuit_id}/metadata/{key}", h_delete_metadata,
         KYTOS_ROUTE_NO_VALIDATE},
    };

    return me_routes_add(me, routes, sizeof routes / sizeof routes[0]);
}
