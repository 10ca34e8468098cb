/* host/auth/auth.h - who may do what: Kytos' users and tokens, plus
 * protect-all, roles, machine tokens, revocation, login throttling and the
 * audit trail (docs/auth.md).
 *
 * The REST front door asks kh_auth_request at step 2 of the request path
 * (after routing, for every route kind); the core's auth routes live in
 * auth_rest.c.  A lower layer: it gets the store and the configuration
 * when created and never reaches up to the host object. */
#ifndef KH_AUTH_H
#define KH_AUTH_H

#include "util/base.h"
#include "util/conf.h"
#include <stdint.h>
#include <stdio.h>

typedef struct kh_auth kh_auth;
struct kh_store;
struct kytos_req;

#define KH_AUTH_USERS "users"          /* Kytos' collection */
#define KH_AUTH_TOKENS "auth_tokens"   /* machine tokens (kytos-c) */
#define KH_AUTH_SECRET_FILE "jwt_secret"

/* The caller a request was authenticated as (kytos_req.ident). */
struct kh_identity {
    int authed;              /* 1 when a valid token was checked */
    char user[65];           /* username, or "" for a machine token */
    char token_id[40];       /* machine token id, or "" */
    char role[8];            /* "admin" or "viewer" */
};

/* Read the auth keys of cfg; jwt_secret empty: the one kept in
 * <data_dir>/jwt_secret, made (mode 0600) at first start.  NULL and err
 * on failure (an unreadable secret file, a bad key). */
kh_auth *kh_auth_new(const kh_config *cfg, struct kh_store *store, const char *data_dir, char *err,
                     size_t errlen);
void kh_auth_free(kh_auth *a);

/* Anything to check at all (authenticate_urls or api_auth_all set)? */
int kh_auth_enabled(const kh_auth *a);
int kh_auth_all(const kh_auth *a);

/* Step 2 of the request path: 0 to go on (r->ident filled when a token
 * was checked), or -1 with the answer set (401 Kytos' body, 403). */
int kh_auth_request(kh_auth *a, struct kytos_req *r);

/* One audit line for a finished state-changing request (no-op for GET,
 * HEAD, OPTIONS or when auditing is off). */
void kh_auth_audit(kh_auth *a, const struct kytos_req *r);

/* Register the core routes auth/login/, auth/users/..., auth/tokens/...
 * through add (the host's core route function). */


int kh_auth_register_routes(kh_auth *a, kh_core_route_fn add, void *ud);

/* For status/: {"enabled", "all", "users": n?...}. */
struct json_object *kh_auth_status(kh_auth *a);

/* kytosd -C: read username, email, password twice (from the terminal, or
 * four lines of in), create the user.  0, or -1 with the reason printed. */
int kh_auth_create_first_user(struct kh_store *store, FILE *in, FILE *out);

/* ---- inside host/auth ---- */

/* Sign a token for claims (adds "iss"). */
char *kh_auth_sign(kh_auth *a, struct json_object *claims);
/* Seconds a user token lives (token_expiration_minutes). */
int64_t kh_auth_token_seconds(const kh_auth *a);
struct kh_store *kh_auth_store(kh_auth *a);
/* Drop what is cached about a user or a machine token (after a write). */
void kh_auth_forget_user(kh_auth *a, const char *username);
void kh_auth_forget_token(kh_auth *a, const char *tid);
/* Login throttling (throttle.c): 0 go on, or the seconds to wait. */
int kh_auth_login_blocked(kh_auth *a, const char *username, const char *client);
void kh_auth_login_result(kh_auth *a, const char *username, const char *client, int ok);

#endif
