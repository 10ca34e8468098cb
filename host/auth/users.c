/* host/auth/users.c - Kytos' users: documents in the store's "users"
 * collection, and the core routes auth/login/ and auth/users/ with Kytos'
 * codes, bodies and messages (kytos-core.md §1 and §6; kytos/core/auth.py).
 *
 * kytos-c additions, all optional in a document: "role" ("admin" when
 * absent, as every Kytos user is), "token_gen" (bumped when a user is
 * deactivated or deleted or changes password: tokens issued before carry a
 * lower "gen" claim and are refused). */
#include "auth/auth_impl.h"
#include "auth/b64.h"
#include "auth/password.h"
#include "events/event_util.h"
#include "http/req_api.h"
#include "http/request.h"
#include "store/store.h"
#include "util/log.h"
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOGGER "kytos.core.auth"

static void now_text(char *out, size_t len)
{
    kh_fmt_timestamp(kh_now_ms() * 1000, out, len);
}

struct json_object *kh_auth_find_user(struct kh_store *s, const char *username)
{
    struct json_object *filter = json_object_new_object(), *doc = NULL;
    struct kytos_find q = {.struct_size = sizeof q, .limit = 1};
    struct kytos_error err = {0};
    kytos_cursor *c = NULL;

    json_object_object_add(filter, "username", json_object_new_string(username));
    q.filter = filter;
    if (kh_store_find(s, KH_AUTH_USERS, &q, &c, &err) == 0) {
        if (kh_cursor_next(c, &doc, &err) != 1)
            doc = NULL;
        kh_cursor_free(c);
    } else {
        kh_log(LOGGER, KH_ERROR, "cannot read users: %s", err.message);
    }
    json_object_put(filter);
    return doc;
}

/* The user as Kytos shows it (projection_nopw), plus "role" if set. */
static struct json_object *public_user(struct json_object *doc)
{
    static const char *const keys[] = {"username", "email", "state", "inserted_at", "updated_at",
                                       "deleted_at", "role", NULL};
    struct json_object *o = json_object_new_object(), *v;
    size_t i;

    for (i = 0; keys[i]; i++)
        if (json_object_object_get_ex(doc, keys[i], &v))
            json_object_object_add(o, keys[i], json_object_get(v));
    return o;
}

static int respond(kytos_req *r, unsigned status, struct json_object *o)
{
    int rc = kh_resp_json(r, status, o);
    json_object_put(o);
    return rc;
}

/* ---- a new user (POST and kytosd -C) ---- */

/* Validate body as Kytos' UserDoc and insert it: 0, or the status with
 * the message in msg (400 the field errors, 409 a taken username). */
static unsigned create_user(struct kh_store *s, struct json_object *body, char *msg, size_t cap)
{
    struct json_object *username = NULL, *email = NULL, *password = NULL, *role = NULL;
    struct json_object *doc, *hash;
    char hex[KH_HASH_HEX_LEN + 1], id[64], now[40];
    struct kytos_error err = {0};
    int rc;

    msg[0] = '\0';
    json_object_object_get_ex(body, "username", &username);
    json_object_object_get_ex(body, "email", &email);
    json_object_object_get_ex(body, "password", &password);
    kh_check_username(username, msg, cap);
    kh_check_email(email, msg, cap);
    kh_check_password(password, msg, cap);
    if (json_object_object_get_ex(body, "role", &role))
        kh_check_role(role, msg, cap);
    if (msg[0])
        return 400;
    hash = kh_password_new_hash(json_object_get_string(password),
                                (size_t)json_object_get_string_len(password), hex);
    if (!hash) {
        snprintf(msg, cap, "cannot hash the password");
        return 500;
    }
    kh_uuid4(id);
    now_text(now, sizeof now);
    doc = json_object_new_object();
    json_object_object_add(doc, "_id", json_object_new_string(id));
    json_object_object_add(doc, "inserted_at", json_object_new_string(now));
    json_object_object_add(doc, "updated_at", json_object_new_string(now));
    json_object_object_add(doc, "deleted_at", NULL);
    json_object_object_add(doc, "username", json_object_get(username));
    json_object_object_add(doc, "hash", hash);
    json_object_object_add(doc, "state", json_object_new_string("active"));
    json_object_object_add(doc, "email", json_object_get(email));
    json_object_object_add(doc, "password", json_object_new_string(hex));
    if (role)
        json_object_object_add(doc, "role", json_object_get(role));
    OPENSSL_cleanse(hex, sizeof hex);
    rc = kh_store_insert(s, KH_AUTH_USERS, id, doc, &err);
    json_object_put(doc);
    if (rc == KYTOS_EEXIST) {
        snprintf(msg, cap, "%s already exists.", json_object_get_string(username));
        return 409;
    }
    if (rc != 0) {
        snprintf(msg, cap, "cannot store the user: %s", err.message);
        return 500;
    }
    return 0;
}

/* ---- GET auth/login/ ---- */

static int login(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    const char *hdr = kh_req_header(r, "Authorization"), *sp, *cred;
    unsigned char dec[512];
    size_t declen, i;
    char *colon, user[512];
    const char *pw;
    struct json_object *doc, *claims, *st, *o;
    int ok, wait;
    char *tok;

    if (!hdr)
        return kh_resp_error(r, 400, "Authorization header missing");
    /* Kytos: "<scheme> <credentials>" (auth.split(): exactly two words) */
    while (*hdr == ' ')
        hdr++;
    sp = strchr(hdr, ' ');
    cred = sp;
    while (cred && *cred == ' ')
        cred++;
    if (!sp || sp == hdr || !*cred || strchr(cred, ' ') ||
        kh_b64_decode(cred, strcspn(cred, " \t"), dec, sizeof dec - 1, &declen) != 0)
        return kh_resp_error(r, 400, "Credentials were not correctly set.");
    for (i = 0; i < declen; i++)
        if (dec[i] == 0 || dec[i] > 0x7e)   /* .decode("ascii"); NUL never belongs */
            break;
    if (i < declen)
        return kh_resp_error(r, 400, "Credentials were not correctly set.");
    dec[declen] = '\0';
    colon = strchr((char *)dec, ':');
    if (colon) {
        *colon = '\0';
        pw = colon + 1;
    } else {
        pw = "";
    }
    snprintf(user, sizeof user, "%s", (char *)dec);
    if ((wait = kh_auth_login_blocked(a, user, r->peer)) > 0) {
        char ra[16];
        OPENSSL_cleanse(dec, sizeof dec);
        snprintf(ra, sizeof ra, "%d", wait);
        kh_resp_error(r, 429, "Too many failed logins: try again in %d seconds", wait);
        kh_resp_header(r, "Retry-After", ra);
        return 0;
    }
    doc = strlen(user) <= 64 ? kh_auth_find_user(a->store, user) : NULL;
    if (!doc) {
        OPENSSL_cleanse(dec, sizeof dec);
        kh_auth_login_result(a, user, r->peer, 0);
        return kh_resp_error(r, 404, "User %s not found", user);
    }
    if (!json_object_object_get_ex(doc, "state", &st) || !json_object_is_type(st, json_type_string) ||
        strcmp(json_object_get_string(st), "active") != 0) {
        OPENSSL_cleanse(dec, sizeof dec);
        json_object_put(doc);
        kh_auth_login_result(a, user, r->peer, 0);
        return kh_resp_error(r, 401, "This user is not active");
    }
    ok = kh_password_check(doc, pw, strlen(pw));
    OPENSSL_cleanse(dec, sizeof dec);
    if (ok != 1) {
        json_object_put(doc);
        kh_auth_login_result(a, user, r->peer, 0);
        if (ok < 0)
            kh_log(LOGGER, KH_ERROR, "user %s: the stored password hash is unreadable", user);
        return kh_resp_error(r, 401, "Incorrect password");
    }
    kh_auth_login_result(a, user, r->peer, 1);
    claims = json_object_new_object();
    json_object_object_add(claims, "username", json_object_new_string(user));
    json_object_object_add(claims, "exp", json_object_new_int64(kh_now_ms() / 1000 + a->token_seconds));
    json_object_object_add(claims, "iat", json_object_new_int64(kh_now_ms() / 1000));
    {
        struct json_object *g;
        if (json_object_object_get_ex(doc, "token_gen", &g) && json_object_is_type(g, json_type_int))
            json_object_object_add(claims, "gen", json_object_new_int64(json_object_get_int64(g)));
    }
    json_object_put(doc);
    tok = kh_auth_sign(a, claims);
    json_object_put(claims);
    if (!tok)
        return kh_resp_error(r, 500, "cannot sign the token");
    o = json_object_new_object();
    json_object_object_add(o, "token", json_object_new_string(tok));
    free(tok);
    return respond(r, 200, o);
}

/* ---- users ---- */

static int users_list(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    struct kytos_find q = {.struct_size = sizeof q};
    struct kytos_error err = {0};
    kytos_cursor *c = NULL;
    struct json_object *arr = json_object_new_array(), *doc, *o;

    if (kh_store_find(a->store, KH_AUTH_USERS, &q, &c, &err) != 0) {
        json_object_put(arr);
        return kh_resp_error(r, 500, "cannot read users: %s", err.message);
    }
    while (kh_cursor_next(c, &doc, &err) == 1) {
        json_object_array_add(arr, public_user(doc));
        json_object_put(doc);
    }
    kh_cursor_free(c);
    o = json_object_new_object();
    json_object_object_add(o, "users", arr);
    return respond(r, 200, o);
}

static int user_get(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    const char *name = kh_req_param(r, "username");
    struct json_object *doc = kh_auth_find_user(a->store, name);

    if (!doc)
        return kh_resp_error(r, 404, "User %s not found", name);
    respond(r, 200, public_user(doc));
    json_object_put(doc);
    return 0;
}

/* Kytos' _get_request_body: the 415 and the JSON 400 came from the
 * pipeline (check_body); what is left is "not an object". */
static struct json_object *body_object(kytos_req *r)
{
    struct json_object *b = kh_req_json(r);
    if (!b || !json_object_is_type(b, json_type_object)) {
        if (!kh_req_header(r, "Content-Type") ||
            !strstr(kh_req_header(r, "Content-Type"), "application/json")) {
            const char *ct = kh_req_header(r, "Content-Type");
            kh_resp_error(r, 415, "Expected Content-Type: application/json, got: %s", ct ? ct : "");
        } else {
            /* Kytos' message, its missing f-string included */
            kh_resp_error(r, 400, "Invalid payload type: {body}");
        }
        return NULL;
    }
    return b;
}

static int user_create(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    struct json_object *body = body_object(r);
    char msg[1024];
    unsigned st;

    if (!body)
        return 0;
    st = create_user(a->store, body, msg, sizeof msg);
    if (st)
        return kh_resp_error(r, st, "%s", msg);
    return respond(r, 201, json_object_new_string("User successfully created"));
}

/* $set a user's fields; a revoking change bumps token_gen. */
static int patch_user(kh_auth *a, struct json_object *doc, struct json_object *set, int revoke,
                      struct kytos_error *err)
{
    struct json_object *upd = json_object_new_object(), *id, *g;
    int rc;

    if (revoke) {
        int64_t gen = json_object_object_get_ex(doc, "token_gen", &g) && json_object_is_type(g, json_type_int)
                          ? json_object_get_int64(g) : 0;
        json_object_object_add(set, "token_gen", json_object_new_int64(gen + 1));
    }
    json_object_object_add(upd, "$set", json_object_get(set));
    json_object_object_get_ex(doc, "_id", &id);
    rc = kh_store_patch(a->store, KH_AUTH_USERS, json_object_get_string(id), upd, 0, NULL, err);
    json_object_put(upd);
    kh_auth_forget_user(a, json_object_get_string(json_object_object_get(doc, "username")));
    return rc;
}

static int user_update(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    const char *name = kh_req_param(r, "username");
    struct json_object *body = body_object(r), *v, *set, *doc;
    struct kytos_error err = {0};
    char msg[1024] = "", now[40];
    int revoke = 0, rc;

    if (!body)
        return 0;
    /* Kytos keeps username, email and password; kytos-c also role, state */
    set = json_object_new_object();
    if (json_object_object_get_ex(body, "username", &v) && v) {
        kh_check_username(v, msg, sizeof msg);
        json_object_object_add(set, "username", json_object_get(v));
    }
    if (json_object_object_get_ex(body, "email", &v) && v) {
        kh_check_email(v, msg, sizeof msg);
        json_object_object_add(set, "email", json_object_get(v));
    }
    if (json_object_object_get_ex(body, "password", &v) && v) {
        kh_check_password(v, msg, sizeof msg);
        if (!msg[0]) {
            char hex[KH_HASH_HEX_LEN + 1];
            struct json_object *hash = kh_password_new_hash(json_object_get_string(v),
                                                            (size_t)json_object_get_string_len(v), hex);
            if (!hash) {
                json_object_put(set);
                return kh_resp_error(r, 500, "cannot hash the password");
            }
            json_object_object_add(set, "hash", hash);
            json_object_object_add(set, "password", json_object_new_string(hex));
            OPENSSL_cleanse(hex, sizeof hex);
            revoke = 1;
        }
    }
    if (json_object_object_get_ex(body, "role", &v) && v) {
        kh_check_role(v, msg, sizeof msg);
        json_object_object_add(set, "role", json_object_get(v));
        revoke = 1;   /* a token carries no role, but a demotion should bite at once */
    }
    if (json_object_object_get_ex(body, "state", &v) && v) {
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(s, "active") && strcmp(s, "inactive"))
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%sstate: Input should be 'active' or 'inactive'",
                     msg[0] ? "; " : "");
        else if (!strcmp(s, "inactive"))
            revoke = 1;
        json_object_object_add(set, "state", json_object_get(v));
    }
    if (msg[0]) {
        json_object_put(set);
        return kh_resp_error(r, 400, "%s", msg);
    }
    now_text(now, sizeof now);
    json_object_object_add(set, "updated_at", json_object_new_string(now));
    doc = kh_auth_find_user(a->store, name);
    if (!doc) {
        json_object_put(set);
        return kh_resp_error(r, 404, "User %s not found", name);
    }
    rc = patch_user(a, doc, set, revoke, &err);
    if (json_object_object_get_ex(set, "username", &v))
        kh_auth_forget_user(a, json_object_get_string(v));
    json_object_put(set);
    json_object_put(doc);
    if (rc == KYTOS_EEXIST)
        return kh_resp_error(r, 409, "%s already exists.", name);
    if (rc == KYTOS_ENOTFOUND)
        return kh_resp_error(r, 404, "User %s not found", name);
    if (rc != 0)
        return kh_resp_error(r, 500, "cannot update the user: %s", err.message);
    return respond(r, 200, json_object_new_string("User successfully updated"));
}

static int user_delete(kytos_req *r, void *ud)
{
    kh_auth *a = ud;
    const char *name = kh_req_param(r, "username");
    struct json_object *doc = kh_auth_find_user(a->store, name), *set;
    struct kytos_error err = {0};
    char now[40];
    int rc;

    if (!doc)
        return kh_resp_error(r, 404, "User %s not found", name);
    now_text(now, sizeof now);
    set = json_object_new_object();
    json_object_object_add(set, "state", json_object_new_string("inactive"));
    json_object_object_add(set, "deleted_at", json_object_new_string(now));
    rc = patch_user(a, doc, set, 1, &err);
    json_object_put(set);
    json_object_put(doc);
    if (rc != 0)
        return kh_resp_error(r, rc == KYTOS_ENOTFOUND ? 404 : 500, rc == KYTOS_ENOTFOUND ? "User %s not found"
                             : "cannot delete the user %s", name);
    /* Kytos' message, its spelling included */
    {
        char msg[200];
        snprintf(msg, sizeof msg, "User %s deleted succesfully", name);
        return respond(r, 200, json_object_new_string(msg));
    }
}

int kh_auth_register_user_routes(kh_auth *a, kh_core_route_fn add, void *ud);
int kh_auth_register_user_routes(kh_auth *a, kh_core_route_fn add, void *ud)
{
    static const struct {
        const char *method, *path;
        kytos_handler fn;
        unsigned flags;
    } t[] = {
        /* pooled: a login costs a scrypt (tens of ms), never on an I/O thread */
        {"GET", KH_AUTH_PREFIX "login/", login, 0},
        {"GET", KH_AUTH_PREFIX "users/", users_list, KYTOS_ROUTE_AUTH},
        {"POST", KH_AUTH_PREFIX "users/", user_create, KYTOS_ROUTE_AUTH},
        {"GET", KH_AUTH_PREFIX "users/{username}", user_get, KYTOS_ROUTE_AUTH},
        {"PATCH", KH_AUTH_PREFIX "users/{username}", user_update, KYTOS_ROUTE_AUTH},
        {"DELETE", KH_AUTH_PREFIX "users/{username}", user_delete, KYTOS_ROUTE_AUTH},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (add(ud, t[i].method, t[i].path, t[i].fn, a, t[i].flags) != KYTOS_OK)
            return -1;
    return 0;
}

/* ---- kytosd -C ---- */

static int read_line(FILE *in, char *buf, size_t cap)
{
    size_t n;
    if (!fgets(buf, (int)cap, in))
        return -1;
    n = strlen(buf);
    if (n && buf[n - 1] != '\n' && !feof(in))
        return -1;   /* longer than any valid value */
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    return 0;
}

int kh_auth_prompt_password(FILE *in, FILE *out, const char *prompt, char *buf, size_t cap);

int kh_auth_create_first_user(struct kh_store *store, FILE *in, FILE *out)
{
    char username[256], email[512], pw[256], pw2[256], msg[1024];
    struct json_object *body;
    unsigned st;
    int tty = isatty(fileno(in));

    kh_auth_users_index(store);

    for (;;) {
        if (tty)
            fputs("Username: ", out), fflush(out);
        if (read_line(in, username, sizeof username) != 0)
            goto eof;
        if (tty)
            fputs("Email: ", out), fflush(out);
        if (read_line(in, email, sizeof email) != 0)
            goto eof;
        for (;;) {
            if (kh_auth_prompt_password(in, out, tty ? "Password: " : NULL, pw, sizeof pw) != 0 ||
                kh_auth_prompt_password(in, out, tty ? "Retype password: " : NULL, pw2, sizeof pw2) != 0)
                goto eof;
            if (strcmp(pw, pw2) == 0)
                break;
            if (!tty) {
                fprintf(stderr, "kytosd: the two passwords differ\n");
                OPENSSL_cleanse(pw, sizeof pw);
                OPENSSL_cleanse(pw2, sizeof pw2);
                return -1;
            }
        }
        break;
    }
    body = json_object_new_object();
    json_object_object_add(body, "username", json_object_new_string(username));
    json_object_object_add(body, "email", json_object_new_string(email));
    json_object_object_add(body, "password", json_object_new_string(pw));
    OPENSSL_cleanse(pw, sizeof pw);
    OPENSSL_cleanse(pw2, sizeof pw2);
    st = create_user(store, body, msg, sizeof msg);
    /* the password's copy inside body */
    {
        struct json_object *p = json_object_object_get(body, "password");
        OPENSSL_cleanse((void *)json_object_get_string(p), (size_t)json_object_get_string_len(p));
    }
    json_object_put(body);
    if (st == 409) {
        fprintf(out, "Error: %s already exist.\n", username);   /* Kytos' words */
        return -1;
    }
    if (st) {
        fprintf(out, "Error: %s\n", msg);
        return -1;
    }
    fprintf(out, "User successfully created\n");
    return 0;
eof:
    OPENSSL_cleanse(pw, sizeof pw);
    OPENSSL_cleanse(pw2, sizeof pw2);
    fprintf(stderr, "kytosd: -C wants four lines: username, email, password, password again\n");
    return -1;
}
