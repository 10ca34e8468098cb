/* host/auth/auth.c - the auth object: configuration, the JWT secret, what
 * is cached about users and machine tokens, and the check at step 2 of
 * the request path (auth.h). */
#include "auth/auth.h"
#include "auth/auth_impl.h"
#include "auth/jwt.h"
#include "http/request.h"
#include "http/req_api.h"
#include "store/store.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOGGER "kytos.core.auth"

/* ---- the secret ---- */

/* <data_dir>/jwt_secret: 64 hex digits (Kytos' secret is a uuid4 hex
 * string; either way the key is the text). */
static int load_or_make_secret(const char *data_dir, char *out, size_t cap, char *err, size_t errlen)
{
    char path[4096], buf[256];
    unsigned char rnd[32];
    struct stat st;
    ssize_t n;
    size_t i;
    int fd;

    snprintf(path, sizeof path, "%s/%s", data_dir, KH_AUTH_SECRET_FILE);
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            snprintf(err, errlen, "%s is not a regular file", path);
            return -1;
        }
        if (st.st_mode & 077)
            kh_log(LOGGER, KH_WARNING, "%s is readable by others (mode %03o): anyone who reads it can "
                   "make tokens; chmod 600 it", path, (unsigned)(st.st_mode & 0777));
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) {
            snprintf(err, errlen, "cannot read %s", path);
            return -1;
        }
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            n--;
        if (n < 16 || (size_t)n >= cap) {
            snprintf(err, errlen, "%s: the secret must be 16 to %zu characters", path, cap - 1);
            return -1;
        }
        memcpy(out, buf, (size_t)n);
        out[n] = '\0';
        OPENSSL_cleanse(buf, sizeof buf);
        return 0;
    }
    if (errno != ENOENT) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (RAND_bytes(rnd, sizeof rnd) != 1 || cap < 65) {
        snprintf(err, errlen, "no random bytes for the JWT secret");
        return -1;
    }
    for (i = 0; i < sizeof rnd; i++)
        snprintf(out + 2 * i, 3, "%02x", rnd[i]);
    OPENSSL_cleanse(rnd, sizeof rnd);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST)   /* another kytosd on the same directory made it first */
            return load_or_make_secret(data_dir, out, cap, err, errlen);
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    n = write(fd, out, 64);
    if (n != 64 || write(fd, "\n", 1) != 1 || fsync(fd) != 0) {
        close(fd);
        unlink(path);
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    close(fd);
    kh_log(LOGGER, KH_INFO, "made a new JWT secret in %s", path);
    return 0;
}

int kh_auth_users_index(struct kh_store *store)
{
    struct kytos_error kerr = {0};
    struct json_object *keys = json_object_new_object();
    int rc;

    json_object_object_add(keys, "username", json_object_new_int(1));
    /* Kytos' unique index (its name as pymongo makes it) */
    rc = kh_store_index(store, KH_AUTH_USERS, "username_1", keys, KYTOS_STORE_UNIQUE, &kerr);
    if (rc != 0)
        kh_log(LOGGER, KH_WARNING, "cannot make the unique index on users.username: %s", kerr.message);
    json_object_put(keys);
    return rc;
}

/* ---- configuration ---- */

static char **string_list(struct json_object *arr, size_t *n)
{
    size_t i, len = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
    char **v = calloc(len + 1, sizeof *v);

    *n = 0;
    if (!v)
        return NULL;
    for (i = 0; i < len; i++) {
        struct json_object *s = json_object_array_get_idx(arr, i);
        if (json_object_is_type(s, json_type_string) && json_object_get_string_len(s) > 0)
            v[(*n)++] = strdup(json_object_get_string(s));
    }
    return v;
}

static void free_list(char **v)
{
    char **p;
    for (p = v; p && *p; p++)
        free(*p);
    free(v);
}

kh_auth *kh_auth_new(const kh_config *cfg, struct kh_store *store, const char *data_dir, char *err,
                     size_t errlen)
{
    kh_auth *a = calloc(1, sizeof *a);
    const char *secret = kh_config_str(cfg, "jwt_secret");

    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->store = store;
    pthread_mutex_init(&a->mu, NULL);
    pthread_mutex_init(&a->audit_mu, NULL);
    kh_throttle_init(&a->throttle, (unsigned)kh_config_int(cfg, "api_login_max_failures"),
                     (unsigned)kh_config_int(cfg, "api_login_max_delay_s"));
    if (secret && *secret) {
        if (strlen(secret) >= sizeof a->secret) {
            snprintf(err, errlen, "jwt_secret is longer than %zu characters", sizeof a->secret - 1);
            goto fail;
        }
        snprintf(a->secret, sizeof a->secret, "%s", secret);
    } else if (load_or_make_secret(data_dir, a->secret, sizeof a->secret, err, errlen) != 0) {
        goto fail;
    }
    a->secret_len = strlen(a->secret);
    a->token_seconds = kh_config_int(cfg, "token_expiration_minutes") * 60;
    a->all = kh_config_bool(cfg, "api_auth_all");
    a->urls = string_list(kh_config_get(cfg, "authenticate_urls"), &a->nurls);
    a->exempt = string_list(kh_config_get(cfg, "api_auth_exempt"), &a->nexempt);
    a->audit = kh_config_bool(cfg, "api_audit");
    {
        const char *f = kh_config_str(cfg, "api_audit_file");
        if (f && *f) {
            a->audit_file = fopen(f, "ae");
            if (!a->audit_file) {
                snprintf(err, errlen, "cannot open api_audit_file %s: %s", f, strerror(errno));
                goto fail;
            }
            a->audit = 1;
        }
    }
    if (!a->urls || !a->exempt) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (store)
        kh_auth_users_index(store);
    return a;
fail:
    kh_auth_free(a);
    return NULL;
}

void kh_auth_free(kh_auth *a)
{
    size_t i;

    if (!a)
        return;
    for (i = 0; i < KH_AUTH_BUCKETS; i++) {
        while (a->buckets[i]) {
            struct kh_principal *p = a->buckets[i];
            a->buckets[i] = p->next;
            free(p->prefixes);
            free(p);
        }
    }
    kh_throttle_free(&a->throttle);
    free_list(a->urls);
    free_list(a->exempt);
    if (a->audit_file)
        fclose(a->audit_file);
    OPENSSL_cleanse(a->secret, sizeof a->secret);
    OPENSSL_cleanse(a->tcache, sizeof a->tcache);
    pthread_mutex_destroy(&a->mu);
    pthread_mutex_destroy(&a->audit_mu);
    free(a);
}

int kh_auth_enabled(const kh_auth *a) { return a && (a->all || a->nurls); }
int kh_auth_all(const kh_auth *a) { return a && a->all; }
struct kh_store *kh_auth_store(kh_auth *a) { return a->store; }
int64_t kh_auth_token_seconds(const kh_auth *a) { return a->token_seconds; }

char *kh_auth_sign(kh_auth *a, struct json_object *claims)
{
    char *tok = NULL;
    json_object_object_add(claims, "iss", json_object_new_string(KH_JWT_ISSUER));
    if (kh_jwt_sign(a->secret, a->secret_len, claims, &tok) != 0)
        return NULL;
    return tok;
}

struct json_object *kh_auth_status(kh_auth *a)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "enabled", json_object_new_boolean(kh_auth_enabled(a)));
    json_object_object_add(o, "all", json_object_new_boolean(kh_auth_all(a)));
    json_object_object_add(o, "audit", json_object_new_boolean(a && a->audit));
    json_object_object_add(o, "login_throttled",
                           json_object_new_int64(a ? (int64_t)atomic_load(&a->throttle.refused) : 0));
    return o;
}

/* ---- what is cached about users and machine tokens ---- */

static unsigned hash_str(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct kh_principal **slot_of(kh_auth *a, const char *key)
{
    struct kh_principal **pp = &a->buckets[hash_str(key) % KH_AUTH_BUCKETS];
    while (*pp && strcmp((*pp)->key, key) != 0)
        pp = &(*pp)->next;
    return pp;
}

static void forget(kh_auth *a, const char *key)
{
    struct kh_principal **pp, *p;

    pthread_mutex_lock(&a->mu);
    pp = slot_of(a, key);
    if ((p = *pp)) {
        *pp = p->next;
        free(p->prefixes);
        free(p);
        a->ncached--;
    }
    atomic_fetch_add(&a->generation, 1);   /* the verified-token cache is stale */
    pthread_mutex_unlock(&a->mu);
}

void kh_auth_forget_user(kh_auth *a, const char *username)
{
    char key[80];
    snprintf(key, sizeof key, "u:%s", username);
    forget(a, key);
}

void kh_auth_forget_token(kh_auth *a, const char *tid)
{
    char key[80];
    snprintf(key, sizeof key, "t:%s", tid);
    forget(a, key);
}

static int64_t int_field(struct json_object *o, const char *name, int64_t dflt)
{
    struct json_object *v;
    return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_int)
               ? json_object_get_int64(v) : dflt;
}

static const char *str_field(struct json_object *o, const char *name, const char *dflt)
{
    struct json_object *v;
    return json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v) : dflt;
}

/* Fill p from the store (p->key set): found 0/1. */
static void fetch(kh_auth *a, struct kh_principal *p)
{
    struct json_object *doc = NULL, *pre;
    struct kytos_error kerr = {0};

    if (p->key[0] == 'u')
        doc = kh_auth_find_user(a->store, p->key + 2);
    else if (kh_store_get(a->store, KH_AUTH_TOKENS, p->key + 2, &doc, &kerr) != 0)
        doc = NULL;
    p->found = doc != NULL;
    if (!doc)
        return;
    p->active = strcmp(str_field(doc, "state", "active"), "active") == 0;
    snprintf(p->role, sizeof p->role, "%s", str_field(doc, "role", "admin"));
    p->gen = int_field(doc, "token_gen", 0);
    p->expires = int_field(doc, "expires_at", 0);
    if (json_object_object_get_ex(doc, "prefixes", &pre) && json_object_is_type(pre, json_type_array)) {
        size_t i, n = json_object_array_length(pre), len = 1;
        for (i = 0; i < n; i++)
            len += strlen(json_object_get_string(json_object_array_get_idx(pre, i))) + 1;
        p->prefixes = calloc(1, len);
        if (p->prefixes) {
            char *w = p->prefixes;
            for (i = 0; i < n; i++) {
                const char *s = json_object_get_string(json_object_array_get_idx(pre, i));
                strcpy(w, s);
                w += strlen(s) + 1;
            }
        }
    }
    json_object_put(doc);
}

/* What the store says about key ("u:name", "t:id"), at most
 * KH_AUTH_TTL_MS old; out->prefixes is a copy the caller frees. */
static void principal(kh_auth *a, const char *key, struct kh_principal *out)
{
    struct kh_principal **pp, *p;
    int64_t now = kh_mono_ns() / 1000000;

    pthread_mutex_lock(&a->mu);
    pp = slot_of(a, key);
    if ((p = *pp) && now - p->at_ms < KH_AUTH_TTL_MS) {
        *out = *p;
        out->prefixes = NULL;
        if (p->prefixes) {
            size_t len = 0;
            while (p->prefixes[len] || p->prefixes[len + 1])
                len++;
            out->prefixes = malloc(len + 2);
            if (out->prefixes)
                memcpy(out->prefixes, p->prefixes, len + 2);
        }
        pthread_mutex_unlock(&a->mu);
        return;
    }
    pthread_mutex_unlock(&a->mu);

    memset(out, 0, sizeof *out);
    snprintf(out->key, sizeof out->key, "%s", key);
    fetch(a, out);
    out->at_ms = now;
    p = malloc(sizeof *p);
    if (!p)
        return;
    *p = *out;
    p->prefixes = NULL;
    if (out->prefixes) {
        size_t len = 0;
        while (out->prefixes[len] || out->prefixes[len + 1])
            len++;
        p->prefixes = malloc(len + 2);
        if (p->prefixes)
            memcpy(p->prefixes, out->prefixes, len + 2);
    }
    pthread_mutex_lock(&a->mu);
    pp = slot_of(a, key);
    if (*pp) {                              /* another thread fetched it too */
        struct kh_principal *old = *pp;
        *pp = old->next;
        free(old->prefixes);
        free(old);
        a->ncached--;
    }
    if (a->ncached >= KH_AUTH_CACHE_MAX) {  /* full: start over rather than grow */
        size_t i;
        for (i = 0; i < KH_AUTH_BUCKETS; i++)
            while (a->buckets[i]) {
                struct kh_principal *q = a->buckets[i];
                a->buckets[i] = q->next;
                free(q->prefixes);
                free(q);
            }
        a->ncached = 0;
        pp = slot_of(a, key);
    }
    p->next = NULL;
    *pp = p;
    a->ncached++;
    pthread_mutex_unlock(&a->mu);
}

/* ---- verified tokens (so a token costs a lookup, not an HMAC and two
 * JSON parses, on every request) ---- */

static struct kh_tcache *tcache_slot(kh_auth *a, const char *tok, size_t len)
{
    unsigned h = 2166136261u;
    size_t i;
    for (i = 0; i < len; i++)
        h = (h ^ (unsigned char)tok[i]) * 16777619u;
    return &a->tcache[h % KH_AUTH_TCACHE];
}

/* ---- step 2 of the request path ---- */

/* rt->path starts with the template prefix p (trailing slashes ignored)? */
static int path_has_prefix(const char *path, const char *p)
{
    size_t n = strlen(p);
    while (n && p[n - 1] == '/')
        n--;
    return strncmp(path, p, n) == 0 && (path[n] == '\0' || path[n] == '/' || (n && p[n - 1] == '/'));
}

static int needs_token(const kh_auth *a, const struct kh_route *rt)
{
    size_t i;

    if (rt->flags & KYTOS_ROUTE_AUTH)
        return 1;
    if (a->all) {
        for (i = 0; i < a->nexempt; i++)
            if (path_has_prefix(rt->path, a->exempt[i]))
                return 0;
        return 1;
    }
    if (rt->napp)   /* Kytos: authenticate_urls never applies to core routes */
        for (i = 0; i < a->nurls; i++)
            if (strstr(rt->path, a->urls[i]))
                return 1;
    return 0;
}

/* Kytos' 401: {"error": "Token not sent or expired: <why>"}. */
static int unauthorized(kytos_req *r, const char *why)
{
    struct json_object *o = json_object_new_object();
    char msg[300];

    snprintf(msg, sizeof msg, "Token not sent or expired: %s", why);
    json_object_object_add(o, "error", json_object_new_string(msg));
    kh_resp_json(r, 401, o);
    json_object_put(o);
    kh_resp_header(r, "WWW-Authenticate", "Bearer");
    return -1;
}

/* A token's claims checked against what the store says now. */
static int check_claims(kh_auth *a, kytos_req *r, struct kh_tcache *v)
{
    struct kh_principal p;
    int ok = 1;
    const char *why = NULL;

    if (v->tid[0]) {
        char key[80];
        snprintf(key, sizeof key, "t:%s", v->tid);
        principal(a, key, &p);
        if (!p.found || !p.active)
            why = "Token revoked";
        else if (p.expires && p.expires <= kh_now_ms() / 1000)
            why = "Signature has expired";
        if (!why && p.prefixes) {
            const char *s;
            ok = 0;
            for (s = p.prefixes; *s; s += strlen(s) + 1)
                if (strncmp(r->path, s, strlen(s)) == 0)
                    ok = 1;
        }
        free(p.prefixes);
        if (why)
            return unauthorized(r, why);
        if (!ok) {
            kh_resp_error(r, 403, "Forbidden: this token is limited to other URL prefixes");
            return -1;
        }
        snprintf(r->ident.token_id, sizeof r->ident.token_id, "%s", v->tid);
        r->ident.user[0] = '\0';
    } else {
        char key[80];
        snprintf(key, sizeof key, "u:%s", v->user);
        principal(a, key, &p);
        free(p.prefixes);
        if (!p.found)
            return unauthorized(r, "User not found");
        if (!p.active)
            return unauthorized(r, "This user is not active");
        if (v->gen < p.gen)
            return unauthorized(r, "Token revoked");
        snprintf(r->ident.user, sizeof r->ident.user, "%s", v->user);
        r->ident.token_id[0] = '\0';
    }
    snprintf(r->ident.role, sizeof r->ident.role, "%s", strcmp(p.role, "viewer") == 0 ? "viewer" : "admin");
    r->ident.authed = 1;
    return 0;
}

/* Verify the token text: fill v (user or tid, gen, exp), or answer 401. */
static int verify(kh_auth *a, kytos_req *r, const char *tok, size_t len, struct kh_tcache *v)
{
    struct json_object *claims = NULL, *c;
    char err[160];
    int64_t now = kh_now_ms() / 1000;
    struct kh_tcache *slot = len < sizeof v->tok ? tcache_slot(a, tok, len) : NULL;
    uint64_t gen = atomic_load(&a->generation);

    if (slot) {
        int hit;
        pthread_mutex_lock(&a->mu);
        hit = slot->len == len && slot->generation == gen && CRYPTO_memcmp(slot->tok, tok, len) == 0;
        if (hit)
            *v = *slot;
        pthread_mutex_unlock(&a->mu);
        if (hit && (!v->exp || v->exp > now))
            return 0;
        if (hit)
            return unauthorized(r, "Signature has expired");
    }
    if (kh_jwt_verify(tok, len, a->secret, a->secret_len, now, KH_JWT_ISSUER, &claims, err,
                      sizeof err) != KH_JWT_OK)
        return unauthorized(r, err);
    memset(v, 0, sizeof *v);
    if (json_object_object_get_ex(claims, "tid", &c) && json_object_is_type(c, json_type_string) &&
        (size_t)json_object_get_string_len(c) < sizeof v->tid) {
        snprintf(v->tid, sizeof v->tid, "%s", json_object_get_string(c));
    } else if (json_object_object_get_ex(claims, "username", &c) &&
               json_object_is_type(c, json_type_string) &&
               (size_t)json_object_get_string_len(c) < sizeof v->user &&
               json_object_object_get_ex(claims, "exp", NULL)) {
        snprintf(v->user, sizeof v->user, "%s", json_object_get_string(c));
    } else {
        json_object_put(claims);
        return unauthorized(r, "Invalid payload: no username");
    }
    v->gen = int_field(claims, "gen", 0);
    if (json_object_object_get_ex(claims, "exp", &c))
        v->exp = json_object_is_type(c, json_type_int) ? json_object_get_int64(c)
                                                         : (int64_t)json_object_get_double(c);
    json_object_put(claims);
    if (slot) {
        memcpy(v->tok, tok, len);
        v->len = len;
        v->generation = gen;
        pthread_mutex_lock(&a->mu);
        *slot = *v;
        pthread_mutex_unlock(&a->mu);
    }
    return 0;
}

int kh_auth_request(kh_auth *a, kytos_req *r)
{
    const struct kh_route *rt = r->match.route;
    const char *hdr, *tok;
    struct kh_tcache v;
    int admin_only, read_only;

    if (!a || !rt || !needs_token(a, rt))
        return 0;
    hdr = kh_req_header(r, "Authorization");
    if (!hdr)
        return unauthorized(r, "The attribute 'content' has an invalid value 'None'.");
    tok = strstr(hdr, "Bearer ");   /* Kytos: content.split("Bearer ")[1] */
    if (!tok)
        return unauthorized(r, "list index out of range");
    tok += 7;
    {
        const char *end = strstr(tok, "Bearer ");   /* the [1] of the split */
        size_t len = end ? (size_t)(end - tok) : strlen(tok);
        if (verify(a, r, tok, len, &v) != 0)
            return -1;
    }
    if (check_claims(a, r, &v) != 0)
        return -1;
    /* who may do what: user management is for admins; a viewer reads */
    admin_only = rt->napp == NULL && strncmp(rt->path, KH_AUTH_PREFIX, sizeof KH_AUTH_PREFIX - 1) == 0;
    read_only = strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0;
    if (strcmp(r->ident.role, "admin") != 0 && (admin_only || !read_only)) {
        kh_resp_error(r, 403, "Forbidden: the %s role may not %s %s", r->ident.role, r->method,
                      admin_only ? "manage users or tokens" : "change anything");
        return -1;
    }
    return 0;
}

/* ---- audit ---- */

void kh_auth_audit(kh_auth *a, const kytos_req *r)
{
    char line[1200], when[40], path[601];
    size_t i;
    int64_t now = kh_now_ms();
    time_t t = (time_t)(now / 1000);
    struct tm tm;

    if (!a || !a->audit || !r->path || !strcmp(r->method, "GET") || !strcmp(r->method, "HEAD") ||
        !strcmp(r->method, "OPTIONS"))
        return;
    /* the path as one printable line (a %0a in it must not forge a line) */
    for (i = 0; r->path[i] && i < sizeof path - 1; i++)
        path[i] = (unsigned char)r->path[i] < 0x20 || r->path[i] == 0x7f || r->path[i] == ' ' ? '?'
                                                                                             : r->path[i];
    path[i] = '\0';
    /* never the body, the query or a header: no password, no token */
    snprintf(line, sizeof line, "user=%s token=%s client=%s port=%u method=%s path=%s status=%u "
             "duration_ms=%.3f",
             r->ident.user[0] ? r->ident.user : "-", r->ident.token_id[0] ? r->ident.token_id : "-",
             r->peer[0] ? r->peer : "-", r->peer_port, r->method, path, r->status,
             (double)(kh_mono_ns() - r->start_ns) / 1e6);
    if (!a->audit_file) {
        kh_log(KH_AUDIT_LOGGER, KH_INFO, "%s", line);
        return;
    }
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    pthread_mutex_lock(&a->audit_mu);
    fprintf(a->audit_file, "%s.%03dZ %s\n", when, (int)(now % 1000), line);
    fflush(a->audit_file);
    pthread_mutex_unlock(&a->audit_mu);
}
