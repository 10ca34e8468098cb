/* host/http/router.c - the segment trie behind host/router.h. */
#include "http/router.h"
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGS 64

struct endpoint {
    struct kh_route *route;
    struct endpoint *next;
};

struct node {
    char *lit;                   /* literal text, or NULL for a parameter node */
    char *pname;
    enum kh_param_type ptype;
    struct node **lits;
    size_t nlits;
    struct node **params;
    size_t nparams;
    struct endpoint *eps;
};

struct kh_router {
    pthread_rwlock_t mu;
    struct node *root;
    kh_pool_resolver pool_of;
    void *pool_ud;
    const struct kh_napp_ops *napps;
};

/* A NApp's id, for messages. */
static const char *owner_id(const kh_router *r, const kytos_napp *n)
{
    return !n ? "the core" : r->napps && r->napps->id ? r->napps->id(n) : "a NApp";
}

kh_router *kh_router_new(kh_pool_resolver pool_of, void *pool_ud, const struct kh_napp_ops *napps)
{
    kh_router *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->pool_of = pool_of;
    r->pool_ud = pool_ud;
    r->napps = napps;
    r->root = calloc(1, sizeof *r->root);
    if (!r->root) {
        free(r);
        return NULL;
    }
    pthread_rwlock_init(&r->mu, NULL);
    return r;
}

static void node_free(struct node *n)
{
    size_t i;
    if (!n)
        return;
    for (i = 0; i < n->nlits; i++)
        node_free(n->lits[i]);
    for (i = 0; i < n->nparams; i++)
        node_free(n->params[i]);
    while (n->eps) {
        struct endpoint *e = n->eps;
        n->eps = e->next;
        free(e);
    }
    free(n->lits);
    free(n->params);
    free(n->lit);
    free(n->pname);
    free(n);
}

void kh_router_free(kh_router *r)
{
    if (!r)
        return;
    node_free(r->root);
    pthread_rwlock_destroy(&r->mu);
    free(r);
}

/* ---- templates ---- */

struct tseg {
    const char *text;            /* literal, or parameter name */
    size_t len;
    int is_param;
    enum kh_param_type type;
};

static int valid_param_name(const char *s, size_t len)
{
    size_t i;
    if (len == 0 || len > 64 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

/* Split a template into segments; the trailing empty segment is dropped. */
static int parse_template(const char *path, struct tseg *segs, size_t *nsegs, char *err,
                          size_t errlen)
{
    const char *p = path;
    size_t n = 0;

    if (!path || path[0] != '/') {
        snprintf(err, errlen, "route path must start with '/': '%s'", path ? path : "(null)");
        return -1;
    }
    if (strlen(path) > 1024) {
        snprintf(err, errlen, "route path longer than 1024 bytes");
        return -1;
    }
    p++;
    while (*p) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        struct tseg s = {p, len, 0, KH_P_STR};

        if (n == MAX_SEGS) {
            snprintf(err, errlen, "route path has more than %d segments", MAX_SEGS);
            return -1;
        }
        if (len > 0 && p[0] == '{') {
            const char *colon;
            if (p[len - 1] != '}') {
                snprintf(err, errlen, "bad parameter segment '%.*s' in '%s'", (int)len, p, path);
                return -1;
            }
            s.is_param = 1;
            s.text = p + 1;
            s.len = len - 2;
            colon = memchr(s.text, ':', s.len);
            if (colon) {
                const char *t = colon + 1;
                size_t tl = s.len - (size_t)(t - s.text);
                s.len = (size_t)(colon - s.text);
                if (tl == 3 && !memcmp(t, "str", 3)) s.type = KH_P_STR;
                else if (tl == 3 && !memcmp(t, "int", 3)) s.type = KH_P_INT;
                else if (tl == 5 && !memcmp(t, "float", 5)) s.type = KH_P_FLOAT;
                else if (tl == 4 && !memcmp(t, "uuid", 4)) s.type = KH_P_UUID;
                else if (tl == 4 && !memcmp(t, "path", 4)) s.type = KH_P_PATH;
                else {
                    snprintf(err, errlen, "unknown parameter type '%.*s' in '%s'", (int)tl, t, path);
                    return -1;
                }
            }
            if (!valid_param_name(s.text, s.len)) {
                snprintf(err, errlen, "bad parameter name '%.*s' in '%s'", (int)s.len, s.text, path);
                return -1;
            }
            if (s.type == KH_P_PATH && end && end[1] != '\0') {
                snprintf(err, errlen, "{%.*s:path} must be the last segment of '%s'", (int)s.len,
                         s.text, path);
                return -1;
            }
        } else if (memchr(p, '{', len) || memchr(p, '}', len)) {
            snprintf(err, errlen, "braces inside segment '%.*s' of '%s'", (int)len, p, path);
            return -1;
        }
        if (!end) {
            segs[n++] = s;
            break;
        }
        if (end[1] == '\0') {       /* trailing slash */
            segs[n++] = s;
            break;
        }
        segs[n++] = s;
        p = end + 1;
    }
    *nsegs = n;
    return 0;
}

int kh_route_template_check(const char *path, char *err, size_t errlen)
{
    struct tseg segs[MAX_SEGS];
    size_t n;
    return parse_template(path, segs, &n, err, errlen);
}

static struct node *child_for(struct node *n, const struct tseg *s, int create)
{
    size_t i;
    struct node *c, **arr;

    if (!s->is_param) {
        for (i = 0; i < n->nlits; i++)
            if (strlen(n->lits[i]->lit) == s->len && !memcmp(n->lits[i]->lit, s->text, s->len))
                return n->lits[i];
    } else {
        for (i = 0; i < n->nparams; i++)
            if (n->params[i]->ptype == s->type && strlen(n->params[i]->pname) == s->len &&
                !memcmp(n->params[i]->pname, s->text, s->len))
                return n->params[i];
    }
    if (!create)
        return NULL;
    c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (s->is_param) {
        c->pname = strndup(s->text, s->len);
        c->ptype = s->type;
        arr = realloc(n->params, (n->nparams + 1) * sizeof *arr);
        if (!c->pname || !arr) {
            free(c->pname);
            free(c);
            if (arr)
                n->params = arr;
            return NULL;
        }
        n->params = arr;
        n->params[n->nparams++] = c;
    } else {
        c->lit = strndup(s->text, s->len);
        arr = realloc(n->lits, (n->nlits + 1) * sizeof *arr);
        if (!c->lit || !arr) {
            free(c->lit);
            free(c);
            if (arr)
                n->lits = arr;
            return NULL;
        }
        n->lits = arr;
        n->lits[n->nlits++] = c;
    }
    return c;
}

/* Find the node of a template without creating it. */
static struct node *find_node(kh_router *r, const char *path)
{
    struct tseg segs[MAX_SEGS];
    size_t n, i;
    char err[8];
    struct node *cur = r->root;

    if (parse_template(path, segs, &n, err, sizeof err) != 0)
        return NULL;
    for (i = 0; i < n && cur; i++)
        cur = child_for(cur, &segs[i], 0);
    return cur;
}

static struct kh_route *endpoint_get(struct node *n, const char *method)
{
    struct endpoint *e;
    for (e = n ? n->eps : NULL; e; e = e->next)
        if (strcmp(e->route->method, method) == 0)
            return e->route;
    return NULL;
}

static void remove_owner(struct node *n, kytos_napp *owner)
{
    struct endpoint **pp = &n->eps;
    size_t i;

    while (*pp) {
        if ((*pp)->route->napp == owner) {
            struct endpoint *dead = *pp;
            *pp = dead->next;
            free(dead);
        } else {
            pp = &(*pp)->next;
        }
    }
    for (i = 0; i < n->nlits; i++)
        remove_owner(n->lits[i], owner);
    for (i = 0; i < n->nparams; i++)
        remove_owner(n->params[i], owner);
}

int kh_router_swap(kh_router *r, struct kh_route *routes, kytos_napp *replace, char *err,
                   size_t errlen)
{
    struct kh_route *rt;
    int rc = 0;

    /* outside the lock: the resolver may create the pool */
    for (rt = routes; rt; rt = rt->next)
        rt->wpool = r->pool_of && rt->pool && !(rt->flags & KYTOS_ROUTE_INLINE)
                        ? r->pool_of(r->pool_ud, rt->pool) : NULL;
    pthread_rwlock_wrlock(&r->mu);
    /* First check every route against what stays, so a conflict changes nothing. */
    for (rt = routes; rt && rc == 0; rt = rt->next) {
        struct kh_route *other = endpoint_get(find_node(r, rt->path), rt->method);
        if (other && other->napp != replace) {
            snprintf(err, errlen, "route %s %s is already registered by %s", rt->method, rt->path,
                     owner_id(r, other->napp));
            rc = KYTOS_EEXIST;
        }
    }
    if (rc == 0 && replace)
        remove_owner(r->root, replace);
    for (rt = routes; rt && rc == 0; rt = rt->next) {
        struct tseg segs[MAX_SEGS];
        size_t n, i;
        struct node *cur = r->root;
        struct endpoint *e;

        if (parse_template(rt->path, segs, &n, err, errlen) != 0) {
            rc = KYTOS_EINVAL;
            break;
        }
        for (i = 0; i < n && cur; i++)
            cur = child_for(cur, &segs[i], 1);
        if (!cur || endpoint_get(cur, rt->method)) {
            /* a duplicate inside the list itself */
            if (cur)
                snprintf(err, errlen, "route %s %s registered twice", rt->method, rt->path);
            else
                snprintf(err, errlen, "out of memory");
            rc = cur ? KYTOS_EEXIST : KYTOS_ENOMEM;
            break;
        }
        e = calloc(1, sizeof *e);
        if (!e) {
            rc = KYTOS_ENOMEM;
            break;
        }
        e->route = rt;
        /* keep registration order: append */
        struct endpoint **pp = &cur->eps;
        while (*pp)
            pp = &(*pp)->next;
        *pp = e;
    }
    if (rc != 0) {
        /* undo what was inserted from this list */
        for (rt = routes; rt; rt = rt->next) {
            struct node *nd = find_node(r, rt->path);
            struct endpoint **pp = nd ? &nd->eps : NULL;
            while (pp && *pp) {
                if ((*pp)->route == rt) {
                    struct endpoint *dead = *pp;
                    *pp = dead->next;
                    free(dead);
                } else {
                    pp = &(*pp)->next;
                }
            }
        }
    }
    pthread_rwlock_unlock(&r->mu);
    return rc;
}

void kh_router_remove_owner(kh_router *r, kytos_napp *napp)
{
    pthread_rwlock_wrlock(&r->mu);
    remove_owner(r->root, napp);
    pthread_rwlock_unlock(&r->mu);
}

/* ---- matching ---- */

static int seg_is_int(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static int seg_is_float(const char *s)
{
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return *p == '\0';
}

static int seg_is_uuid(const char *s)
{
    static const int dash[] = {8, 13, 18, 23};
    size_t i, d = 0;
    if (strlen(s) != 36)
        return 0;
    for (i = 0; i < 36; i++) {
        if (d < 4 && (int)i == dash[d]) {
            if (s[i] != '-')
                return 0;
            d++;
        } else if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) {
            return 0;
        }
    }
    return 1;
}

struct walk {
    const char *method;
    char **segs;
    size_t nsegs;
    struct kh_match *m;
    struct node *path_node;    /* first node the path reached (for 405) */
};

static int walk(struct walk *w, struct node *n, size_t i, size_t np)
{
    size_t k;

    if (i == w->nsegs) {
        struct kh_route *rt;
        if (!n->eps)
            return 0;
        rt = endpoint_get(n, w->method);
        if (!rt && strcmp(w->method, "HEAD") == 0)
            rt = endpoint_get(n, "GET");
        if (rt) {
            w->m->route = rt;
            w->m->nparams = np;
            return 1;
        }
        if (!w->path_node)
            w->path_node = n;
        return 0;
    }
    for (k = 0; k < n->nlits; k++)
        if (strcmp(n->lits[k]->lit, w->segs[i]) == 0 && walk(w, n->lits[k], i + 1, np))
            return 1;
    if (np >= KH_MAX_PARAMS)
        return 0;
    for (k = 0; k < n->nparams; k++) {
        struct node *c = n->params[k];
        const char *v = w->segs[i];
        int ok;

        switch (c->ptype) {
        case KH_P_INT: ok = seg_is_int(v); break;
        case KH_P_FLOAT: ok = seg_is_float(v); break;
        case KH_P_UUID: ok = seg_is_uuid(v); break;
        case KH_P_PATH: ok = 1; break;
        default: ok = *v != '\0'; break;
        }
        if (!ok)
            continue;
        w->m->params[np].name = c->pname;
        w->m->params[np].type = c->ptype;
        if (c->ptype == KH_P_PATH) {
            /* the rest of the path, joined again */
            size_t j, off = 0;
            for (j = i; j < w->nsegs; j++) {
                size_t l = strlen(w->segs[j]);
                if (off + l + 2 > sizeof w->m->pathbuf)
                    return 0;
                if (j > i)
                    w->m->pathbuf[off++] = '/';
                memcpy(w->m->pathbuf + off, w->segs[j], l);
                off += l;
            }
            w->m->pathbuf[off] = '\0';
            w->m->params[np].value = w->m->pathbuf;
            if (walk(w, c, w->nsegs, np + 1))
                return 1;
            continue;
        }
        w->m->params[np].value = v;
        if (walk(w, c, i + 1, np + 1))
            return 1;
    }
    return 0;
}

void kh_router_match(kh_router *r, const char *method, char **segs, size_t nsegs,
                     struct kh_match *m)
{
    struct walk wk, *w = &wk;

    m->route = NULL;
    m->status = 0;
    m->allow[0] = '\0';
    m->nparams = 0;
    m->napps = r->napps;
    w->method = method;
    w->segs = segs;
    w->nsegs = nsegs;
    w->m = m;
    w->path_node = NULL;
    pthread_rwlock_rdlock(&r->mu);
    if (walk(w, r->root, 0, 0)) {
        if (m->route->napp)
            r->napps->ref(m->route->napp);
    } else if (w->path_node) {
        struct endpoint *e;
        size_t off = 0;
        int has_get = 0;
        m->status = 405;
        for (e = w->path_node->eps; e; e = e->next) {
            int l = snprintf(m->allow + off, sizeof m->allow - off, "%s%s", off ? ", " : "",
                             e->route->method);
            if (l < 0 || (size_t)l >= sizeof m->allow - off)
                break;
            off += (size_t)l;
            if (!strcmp(e->route->method, "GET"))
                has_get = 1;
        }
        if (has_get && off + 7 < sizeof m->allow)
            snprintf(m->allow + off, sizeof m->allow - off, ", HEAD");
    } else {
        m->status = 404;
    }
    pthread_rwlock_unlock(&r->mu);
}

void kh_match_release(struct kh_match *m)
{
    if (m->route && m->route->napp)
        m->napps->unref(m->route->napp);
    m->route = NULL;
}

static void list_node(const kh_router *r, struct node *n, struct json_object *arr)
{
    struct endpoint *e;
    size_t i;
    for (e = n->eps; e; e = e->next) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "method", json_object_new_string(e->route->method));
        json_object_object_add(o, "path", json_object_new_string(e->route->path));
        json_object_object_add(o, "napp", json_object_new_string(e->route->napp ? owner_id(r, e->route->napp)
                                                                                 : "kytos/core"));
        json_object_array_add(arr, o);
    }
    for (i = 0; i < n->nlits; i++)
        list_node(r, n->lits[i], arr);
    for (i = 0; i < n->nparams; i++)
        list_node(r, n->params[i], arr);
}

struct json_object *kh_router_list(kh_router *r)
{
    struct json_object *arr = json_object_new_array();
    pthread_rwlock_rdlock(&r->mu);
    list_node(r, r->root, arr);
    pthread_rwlock_unlock(&r->mu);
    return arr;
}
