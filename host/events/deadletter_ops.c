/* host/events/deadletter_ops.c - dead letter REST logic: pydantic-style checks of
 * the bodies, then the all-or-nothing removal, reinjection or deletion. */
#include "events/deadletter_ops.h"
#include "events/deadletter.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PYDANTIC_URL "https://errors.pydantic.dev/2.6/v/"

struct dl_body {
    const char *event_name;
    const char **ids;
    size_t nids;
    const char *buffer;
};

void kh_dl_reply_clear(struct kh_dl_reply *r)
{
    json_object_put(r->body);
    free(r->description);
    memset(r, 0, sizeof *r);
}

static void reply_error(struct kh_dl_reply *r, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void reply_error(struct kh_dl_reply *r, unsigned status, const char *fmt, ...)
{
    va_list ap;

    r->status = status;
    va_start(ap, fmt);
    if (vasprintf(&r->description, fmt, ap) < 0)
        r->description = NULL;
    va_end(ap);
}

static void reply_json(struct kh_dl_reply *r, unsigned status, struct json_object *body)
{
    r->status = status;
    r->body = body ? body : json_object_new_object();
}

/* One pydantic v2 error: {"type","loc","msg","input"[,"ctx"],"url"}. */
static void perr(struct json_object *errs, const char *type, const char *field, int index,
                 const char *msg, struct json_object *input, struct json_object *ctx)
{
    struct json_object *e = json_object_new_object(), *loc = json_object_new_array();

    json_object_array_add(loc, json_object_new_string(field));
    if (index >= 0)
        json_object_array_add(loc, json_object_new_int(index));
    json_object_object_add(e, "type", json_object_new_string(type));
    json_object_object_add(e, "loc", loc);
    json_object_object_add(e, "msg", json_object_new_string(msg));
    json_object_object_add(e, "input", json_object_get(input));
    if (ctx)
        json_object_object_add(e, "ctx", ctx);
    {
        char url[96];
        snprintf(url, sizeof url, PYDANTIC_URL "%s", type);
        json_object_object_add(e, "url", json_object_new_string(url));
    }
    json_object_array_add(errs, e);
}

/* Check body as DeadLetterDeletePayload / DeadLetterPatchPayload.  Returns
 * 0 with out filled (out->ids malloc'd), or -1 with the reply set. */
static int parse_body(struct json_object *body, int want_buffer, struct dl_body *out,
                      struct kh_dl_reply *r)
{
    struct json_object *errs, *v;
    size_t i;

    memset(out, 0, sizeof *out);
    if (!body) {
        reply_error(r, 400, "Invalid json: the request body is missing or not JSON");
        return -1;
    }
    if (!json_object_is_type(body, json_type_object)) {
        reply_error(r, 400, "Invalid type value %.200s",
                    json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
        return -1;
    }
    errs = json_object_new_array();
    if (!json_object_object_get_ex(body, "event_name", &v)) {
        perr(errs, "missing", "event_name", -1, "Field required", body, NULL);
    } else if (!json_object_is_type(v, json_type_string)) {
        perr(errs, "string_type", "event_name", -1, "Input should be a valid string", v, NULL);
    } else if (json_object_get_string_len(v) < 1) {
        struct json_object *ctx = json_object_new_object();
        json_object_object_add(ctx, "min_length", json_object_new_int(1));
        perr(errs, "string_too_short", "event_name", -1, "String should have at least 1 character",
             v, ctx);
    } else {
        out->event_name = json_object_get_string(v);
    }
    if (json_object_object_get_ex(body, "ids", &v)) {
        if (!json_object_is_type(v, json_type_array)) {
            perr(errs, "list_type", "ids", -1, "Input should be a valid list", v, NULL);
        } else {
            size_t n = json_object_array_length(v);
            out->ids = n ? malloc(n * sizeof *out->ids) : NULL;
            for (i = 0; i < n; i++) {
                struct json_object *id = json_object_array_get_idx(v, i);
                if (!json_object_is_type(id, json_type_string))
                    perr(errs, "string_type", "ids", (int)i, "Input should be a valid string", id,
                         NULL);
                else if (out->ids)
                    out->ids[out->nids++] = json_object_get_string(id);
            }
            if (n && !out->ids) {
                json_object_put(errs);
                reply_error(r, 500, "out of memory");
                return -1;
            }
        }
    }
    if (want_buffer) {
        if (!json_object_object_get_ex(body, "kytos_queue_buffer", &v)) {
            perr(errs, "missing", "kytos_queue_buffer", -1, "Field required", body, NULL);
        } else if (json_object_is_type(v, json_type_string) &&
                   (strcmp(json_object_get_string(v), "app") == 0 ||
                    strcmp(json_object_get_string(v), "msg_in") == 0)) {
            out->buffer = json_object_get_string(v);
        } else {
            struct json_object *ctx = json_object_new_object();
            json_object_object_add(ctx, "expected", json_object_new_string("'app' or 'msg_in'"));
            perr(errs, "enum", "kytos_queue_buffer", -1, "Input should be 'app' or 'msg_in'", v,
                 ctx);
        }
    }
    if (json_object_array_length(errs) > 0) {
        free(out->ids);
        out->ids = NULL;
        reply_json(r, 400, errs);
        return -1;
    }
    json_object_put(errs);
    return 0;
}

void kh_dl_do_get(kh_bus *b, const char *event_name, struct kh_dl_reply *r)
{
    struct json_object *o = kh_deadletter_list(kh_bus_deadletter(b), event_name);

    memset(r, 0, sizeof *r);
    if (!o)
        reply_error(r, 500, "out of memory");
    else
        reply_json(r, 200, o);
}

/* 404s of an all-or-nothing removal; 0 when it went through. */
static int removal_failed(int rc, const char *name, char *missing, struct kh_dl_reply *r)
{
    if (rc == KH_DL_NO_NAME)
        reply_error(r, 404, "event_name %s not found", name);
    else if (rc == KH_DL_NO_IDS)
        reply_error(r, 404, "KytosEvent ids not found: %s", missing ? missing : "{}");
    else if (rc != KH_DL_OK)
        reply_error(r, 500, "out of memory");
    free(missing);
    return rc != KH_DL_OK;
}

void kh_dl_do_patch(kh_bus *b, struct json_object *body, struct kh_dl_reply *r)
{
    struct kh_dl_item *items = NULL;
    struct dl_body req;
    size_t n = 0, failed;
    char *missing = NULL;
    int rc;

    memset(r, 0, sizeof *r);
    if (parse_body(body, 1, &req, r) != 0)
        return;
    rc = kh_deadletter_remove(kh_bus_deadletter(b), req.event_name, req.ids, req.nids, &items, &n,
                              &missing);
    if (!removal_failed(rc, req.event_name, missing, r)) {
        failed = kh_bus_reinject(b, items, n, req.buffer);
        if (failed)
            reply_error(r, 503, "%zu of %zu events could not be reinjected into buffer %s "
                        "(full or shutting down); they are back in the dead letter",
                        failed, n, req.buffer);
        else
            reply_json(r, 200, NULL);
    }
    free(req.ids);
}

void kh_dl_do_delete(kh_bus *b, struct json_object *body, struct kh_dl_reply *r)
{
    struct dl_body req;
    char *missing = NULL;
    int rc;

    memset(r, 0, sizeof *r);
    if (parse_body(body, 0, &req, r) != 0)
        return;
    if (strcmp(req.event_name, "all") == 0) {
        kh_deadletter_clear(kh_bus_deadletter(b));
        reply_json(r, 200, NULL);
    } else {
        rc = kh_deadletter_remove(kh_bus_deadletter(b), req.event_name, req.ids, req.nids, NULL,
                                  NULL, &missing);
        if (!removal_failed(rc, req.event_name, missing, r))
            reply_json(r, 200, NULL);
    }
    free(req.ids);
}
