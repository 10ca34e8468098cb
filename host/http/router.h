/* host/http/router.h - path templates compiled into a segment trie.
 *
 * Templates: literal segments and {name}, {name:str}, {name:int},
 * {name:float}, {name:uuid}, {name:path} (the rest of the path).  A
 * trailing slash is ignored on both sides, so both forms match.  At each
 * segment a literal child beats a parameter; parameters are tried in
 * registration order, with backtracking.  GET routes answer HEAD.
 *
 * Thread safety: lookups take a read lock; adding and removing routes take
 * the write lock, so a NApp's routes appear and disappear atomically.  A
 * match holds a reference on the route's NApp (released by the caller with
 * kh_match_release), so the route stays valid while the request runs.
 * NApps are reached through the kh_napp_ops given to kh_router_new (NULL
 * for a router that holds only core routes, as in unit tests). */
#ifndef KH_ROUTER_H
#define KH_ROUTER_H

#include "util/base.h"

#define KH_MAX_PARAMS 16

typedef struct kh_router kh_router;
struct kh_workpool;
/* The worker pool of this name (the host creates it on first use). */
typedef struct kh_workpool *(*kh_pool_resolver)(void *ud, const char *name);

enum kh_param_type { KH_P_STR, KH_P_INT, KH_P_FLOAT, KH_P_UUID, KH_P_PATH };

struct kh_route {
    char *method;               /* "GET" ... */
    char *path;                 /* full template, as registered */
    char *rel_path;             /* relative to the NApp prefix (for OpenAPI binding) */
    kytos_handler handler;
    void *ud;
    uint32_t flags;             /* enum kytos_route_flags */
    char *pool;                 /* NULL = "api" */
    struct kh_workpool *wpool;  /* pool resolved when added (kh_router_swap); NULL = "api" */
    size_t max_body;
    uint32_t timeout_ms;
    char *operation;
    kytos_napp *napp;           /* NULL for core routes */
    void *op;                   /* bound OpenAPI operation, or NULL */
    struct kh_route *next;      /* the owner's list */
};

struct kh_param {
    const char *name;
    const char *value;          /* percent-decoded */
    enum kh_param_type type;
};

struct kh_match {
    struct kh_route *route;     /* NULL: see status */
    const struct kh_napp_ops *napps;   /* the router's, to release the NApp */
    unsigned status;            /* 0 matched, 404, 405 */
    char allow[96];             /* 405: the methods the path has */
    size_t nparams;
    struct kh_param params[KH_MAX_PARAMS];
    char pathbuf[2048];         /* the value of a {x:path} parameter */
};

/* pool_of (may be NULL) resolves each added route's pool by name, once,
 * so a request finds its pool without a lookup. */
kh_router *kh_router_new(kh_pool_resolver pool_of, void *pool_ud, const struct kh_napp_ops *napps);
void kh_router_free(kh_router *r);

/* Parse and check a template ("/api/u/n/v2/evc/{id}").  0, or -1 with a
 * message naming what is wrong. */
int kh_route_template_check(const char *path, char *err, size_t errlen);

/* Insert every route of the list atomically, after removing every route
 * owned by `replace` (may be NULL); each route's wpool is resolved first.  Fails with KYTOS_EEXIST (message in
 * err) when a method+template is taken by another owner; nothing changes. */
int kh_router_swap(kh_router *r, struct kh_route *routes, kytos_napp *replace, char *err,
                   size_t errlen);
/* Remove every route owned by napp (NULL = the core's). */
void kh_router_remove_owner(kh_router *r, kytos_napp *napp);

/* Match a decoded-segment path.  `segs` are the percent-decoded segments of
 * the request path; values in the match point into them, so they must
 * outlive it.  On a match, the route's NApp is referenced. */
void kh_router_match(kh_router *r, const char *method, char **segs, size_t nsegs,
                     struct kh_match *m);
void kh_match_release(struct kh_match *m);

/* Every route as [{"method","path","napp"}] (new ref). */
struct json_object *kh_router_list(kh_router *r);

#endif
