/* host/auth/tokens.c - machine tokens: long-lived tokens for automation,
 * made and revoked by an admin through REST (docs/auth.md).
 *
 * A token is an HS256 JWT {"tid", "iss", "iat"[, "exp"]}; what it may do
 * lives in the "auth_tokens" document of that id: name, role, URL
 * prefixes, state, expires_at.  The token text is shown once, when made;
 * lists show the documents only.  Revoking marks the document, and every
 * kytosd sharing the store refuses the token within KH_AUTH_TTL_MS. */
#include "auth/auth_impl.h"
#include "auth/password.h"
#include "events/event_util.h"
#include "http/req_api.h"
#include "http/request.h"
#include "store/store.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PREFIXES 16

static int respond(kytos_req *r, unsigned status, struct json_object *o)
{
    int rc = kh_resp_json(r, status, o);
    json_object_put(o);
    return rc;
}

/* POST auth/tokens/ {"name", "role"?, "prefixes"?, "expires_in_days"?} */
static int token_create(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    struct json_object *b = kh_req_json(r), *name = NULL, *role = NULL, *pre = NULL, *days = NULL;
    struct json_object *doc, *claims, *out;
    struct kytos_error err = {0};
    char msg[600] = "", id[64], now[40], *tok;
    int64_t expires = 0, t = kh_now_ms() / 1000;
    size_t i;

    if (!b || !json_object_is_type(b, json_type_object))
        return kh_resp_error(r, 400, "The body must be a JSON object: {\"name\": ..., \"role\": "
                             "\"admin\"|\"viewer\", \"prefixes\": [...], \"expires_in_days\": n}");
    json_object_object_get_ex(b, "name", &name);
    json_object_object_get_ex(b, "role", &role);
    json_object_object_get_ex(b, "prefixes", &pre);
    json_object_object_get_ex(b, "expires_in_days", &days);
    if (!name || !json_object_is_type(name, json_type_string) || json_object_get_string_len(name) < 1 ||
        json_object_get_string_len(name) > 128)
        snprintf(msg, sizeof msg, "name: a string of 1 to 128 characters");
    if (role)
        kh_check_role(role, msg, sizeof msg);
    if (pre) {
        int ok = json_object_is_type(pre, json_type_array) && json_object_array_length(pre) <= MAX_PREFIXES;
        for (i = 0; ok && i < json_object_array_length(pre); i++) {
            struct json_object *p = json_object_array_get_idx(pre, i);
            ok = json_object_is_type(p, json_type_string) && json_object_get_string(p)[0] == '/' &&
                 json_object_get_string_len(p) < 256 &&
                 strlen(json_object_get_string(p)) == (size_t)json_object_get_string_len(p);
        }
        if (!ok)
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg),
                     "%sprefixes: a list of at most %d paths, each starting with '/'", msg[0] ? "; " : "",
                     MAX_PREFIXES);
    }
    if (days) {
        if (!json_object_is_type(days, json_type_int) || json_object_get_int64(days) < 1 ||
            json_object_get_int64(days) > 3650)
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg),
                     "%sexpires_in_days: an integer from 1 to 3650", msg[0] ? "; " : "");
        else
            expires = t + json_object_get_int64(days) * 86400;
    }
    if (msg[0])
        return kh_resp_error(r, 400, "%s", msg);
    kh_uuid4(id);
    kh_fmt_timestamp(kh_now_ms() * 1000, now, sizeof now);
    doc = json_object_new_object();
    json_object_object_add(doc, "_id", json_object_new_string(id));
    json_object_object_add(doc, "id", json_object_new_string(id));
    json_object_object_add(doc, "name", json_object_get(name));
    json_object_object_add(doc, "role", json_object_new_string(role ? json_object_get_string(role) : "admin"));
    json_object_object_add(doc, "prefixes", pre ? json_object_get(pre) : NULL);
    json_object_object_add(doc, "state", json_object_new_string("active"));
    json_object_object_add(doc, "created_by", json_object_new_string(r->ident.user[0] ? r->ident.user
                                                                     : r->ident.token_id));
    json_object_object_add(doc, "inserted_at", json_object_new_string(now));
    json_object_object_add(doc, "expires_at", expires ? json_object_new_int64(expires) : NULL);
    json_object_object_add(doc, "revoked_at", NULL);
    if (kh_store_insert(a->store, KH_AUTH_TOKENS, id, doc, &err) != 0) {
        json_object_put(doc);
        return kh_resp_error(r, 500, "cannot store the token: %s", err.message);
    }
    claims = json_object_new_object();
    json_object_object_add(claims, "tid", json_object_new_string(id));
    json_object_object_add(claims, "iat", json_object_new_int64(t));
    if (expires)
        json_object_object_add(claims, "exp", json_object_new_int64(expires));
    tok = kh_auth_sign(a, claims);
    json_object_put(claims);
    if (!tok) {
        json_object_put(doc);
        return kh_resp_error(r, 500, "cannot sign the token");
    }
    out = json_object_new_object();
    json_object_object_foreach(doc, k, v)
        if (strcmp(k, "_id") != 0)
            json_object_object_add(out, k, json_object_get(v));
    json_object_object_add(out, "token", json_object_new_string(tok));
    free(tok);
    json_object_put(doc);
    return respond(r, 201, out);
}

static int tokens_list(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    struct kytos_find q = {.struct_size = sizeof q};
    struct kytos_error err = {0};
    kytos_cursor *c = NULL;
    struct json_object *arr = json_object_new_array(), *doc, *o;

    if (kh_store_find(a->store, KH_AUTH_TOKENS, &q, &c, &err) != 0) {
        json_object_put(arr);
        return kh_resp_error(r, 500, "cannot read tokens: %s", err.message);
    }
    while (kh_cursor_next(c, &doc, &err) == 1) {
        json_object_object_del(doc, "_id");
        json_object_array_add(arr, doc);
    }
    kh_cursor_free(c);
    o = json_object_new_object();
    json_object_object_add(o, "tokens", arr);
    return respond(r, 200, o);
}

static int token_revoke(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    const char *id = kh_req_param(r, "token_id");
    struct json_object *upd = json_object_new_object(), *set = json_object_new_object();
    struct kytos_error err = {0};
    char now[40], msg[120];
    int rc;

    kh_fmt_timestamp(kh_now_ms() * 1000, now, sizeof now);
    json_object_object_add(set, "state", json_object_new_string("revoked"));
    json_object_object_add(set, "revoked_at", json_object_new_string(now));
    json_object_object_add(upd, "$set", set);
    rc = kh_store_patch(a->store, KH_AUTH_TOKENS, id, upd, 0, NULL, &err);
    json_object_put(upd);
    kh_auth_forget_token(a, id);
    if (rc == KYTOS_ENOTFOUND)
        return kh_resp_error(r, 404, "Token %s not found", id);
    if (rc != 0)
        return kh_resp_error(r, 500, "cannot revoke the token: %s", err.message);
    snprintf(msg, sizeof msg, "Token %s revoked", id);
    return respond(r, 200, json_object_new_string(msg));
}

int kh_auth_register_user_routes(kh_auth *a, kh_core_route_fn add, void *ud);

int kh_auth_register_routes(kh_auth *a, kh_core_route_fn add, void *ud)
{
    if (kh_auth_register_user_routes(a, add, ud) != 0 ||
        add(ud, "POST", KH_AUTH_PREFIX "tokens/", token_create, a, KYTOS_ROUTE_AUTH) != KYTOS_OK ||
        add(ud, "GET", KH_AUTH_PREFIX "tokens/", tokens_list, a, KYTOS_ROUTE_AUTH) != KYTOS_OK ||
        add(ud, "DELETE", KH_AUTH_PREFIX "tokens/{token_id}", token_revoke, a, KYTOS_ROUTE_AUTH) != KYTOS_OK)
        return -1;
    return 0;
}
