/* plugins/topology/rest_get.c - GET v3/, v3/switches, v3/interfaces and
 * v3/links: the current snapshot's bodies, sent without a copy.  They never touch the
 * model or the store, so they run inline on the I/O thread. */
#include "topo.h"

#include <stdio.h>
#include <string.h>

enum body_kind { BODY_TOPOLOGY, BODY_SWITCHES, BODY_INTERFACES, BODY_LINKS };

static void release_snapshot(void *ud)
{
    topo_snapshot_put(ud);
}

/* Zero copy: the response borrows the snapshot's buffer and holds the
 * snapshot's reference until the host has sent it. */
static int serve(kytos_req *req, struct topo *t, enum body_kind kind)
{
    struct topo_snapshot *s = topo_snapshot_get(t);
    const char *buf;
    size_t len;

    if (!s)
        return kytos_resp_error(req, 503, "Topology not loaded yet");
    switch (kind) {
    case BODY_TOPOLOGY:
        buf = s->topology.buf;
        len = s->topology.len;
        break;
    case BODY_SWITCHES:
        buf = s->switches.buf;
        len = s->switches.len;
        break;
    case BODY_INTERFACES:
        buf = s->interfaces.buf;
        len = s->interfaces.len;
        break;
    default:
        buf = s->links.buf;
        len = s->links.len;
        break;
    }
    if (kind == BODY_TOPOLOGY) {
        char gen[24];
        snprintf(gen, sizeof gen, "%llu", (unsigned long long)s->gen);
        kytos_resp_header(req, TOPO_GEN_HEADER, gen);
    }
    /* on failure kytos_resp_static has already released the reference */
    return kytos_resp_static(req, 200, "application/json", buf, len, release_snapshot, s);
}

static int get_topology(kytos_req *req, void *ud)
{
    return serve(req, ud, BODY_TOPOLOGY);
}

/* kytos-c's own: the current snapshot's generation, so a reader that built
 * something from GET v3/ (pathfinder's graph) knows, for the price of a few
 * bytes, whether it must read the topology again. */
static int get_generation(kytos_req *req, void *ud)
{
    struct topo_snapshot *s = topo_snapshot_get(ud);
    char body[48];

    if (!s)
        return kytos_resp_error(req, 503, "Topology not loaded yet");
    snprintf(body, sizeof body, "{\"generation\": %llu}", (unsigned long long)s->gen);
    topo_snapshot_put(s);
    return kytos_resp_raw(req, 200, "application/json", body, strlen(body));
}

static int get_switches(kytos_req *req, void *ud)
{
    return serve(req, ud, BODY_SWITCHES);
}

static int get_interfaces(kytos_req *req, void *ud)
{
    return serve(req, ud, BODY_INTERFACES);
}

static int get_links(kytos_req *req, void *ud)
{
    return serve(req, ud, BODY_LINKS);
}

int topo_routes_add(struct topo *t, const struct topo_route *routes, size_t n)
{
    int rc = KYTOS_OK;

    for (size_t i = 0; i < n && rc == KYTOS_OK; i++)
        rc = kytos_route_add(t->napp, &(struct kytos_route){
            .struct_size = sizeof(struct kytos_route),
            .method = routes[i].method,
            .path = routes[i].path,
            .handler = routes[i].fn,
            .ud = t,
            .flags = routes[i].flags,
        });
    return rc;
}

int topo_routes_get(struct topo *t)
{
    static const struct {
        const char *path;
        kytos_handler fn;
    } routes[] = {
        {"v3/", get_topology},
        {"v3/generation", get_generation},
        {"v3/switches", get_switches},
        {"v3/interfaces", get_interfaces},
        {"v3/links", get_links},
    };
    int rc = KYTOS_OK;

    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]) && rc == KYTOS_OK; i++)
        rc = kytos_route_add(t->napp, &(struct kytos_route){
            .struct_size = sizeof(struct kytos_route),
            .method = "GET",
            .path = routes[i].path,
            .handler = routes[i].fn,
            .ud = t,
            .flags = KYTOS_ROUTE_INLINE,
        });
    return rc;
}
