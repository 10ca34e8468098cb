/* plugins/topology/rest_get.c - GET v3/, v3/switches, v3/interfaces and
 * v3/links: copies of the current snapshot's bodies.  They never touch the
 * model or the store, so they run inline on the I/O thread. */
#include "topo.h"

enum body_kind { BODY_TOPOLOGY, BODY_SWITCHES, BODY_INTERFACES, BODY_LINKS };

static int serve(kytos_req *req, struct topo *t, enum body_kind kind)
{
    struct topo_snapshot *s = topo_snapshot_get(t);
    int rc;

    if (!s)
        return kytos_resp_error(req, 503, "Topology not loaded yet");
    switch (kind) {
    case BODY_TOPOLOGY:
        rc = kytos_resp_raw(req, 200, "application/json", s->topology.buf, s->topology.len);
        break;
    case BODY_SWITCHES:
        rc = kytos_resp_raw(req, 200, "application/json", s->switches.buf, s->switches.len);
        break;
    case BODY_INTERFACES:
        rc = kytos_resp_raw(req, 200, "application/json", s->interfaces.buf, s->interfaces.len);
        break;
    default:
        rc = kytos_resp_raw(req, 200, "application/json", s->links.buf, s->links.len);
        break;
    }
    topo_snapshot_put(s);
    return rc;
}

static int get_topology(kytos_req *req, void *ud)
{
    return serve(req, ud, BODY_TOPOLOGY);
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

int topo_routes_get(struct topo *t)
{
    static const struct {
        const char *path;
        kytos_handler fn;
    } routes[] = {
        {"v3/", get_topology},
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
