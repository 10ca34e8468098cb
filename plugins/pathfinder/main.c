/* plugins/pathfinder/main.c - kytos/pathfinder: best paths between two
 * interfaces or switches, Kytos' POST v3/ (rest.c), over a graph of
 * topology's current snapshot (graph.c).
 *
 * The graph is rebuilt only when topology's snapshot changed: each request
 * asks topology for its generation (GET v3/generation, a few bytes, no
 * copy of the topology) and reads GET v3/ again only when the generation
 * is not the graph's.  Requests share the graph by reference.
 *
 * In-process use (mef_eline): kytos_call_json(napp, "POST",
 * "/api/kytos/pathfinder/v3/", body, &resp) with the same body and answer
 * as over HTTP.  The answer carries the search's work units in the
 * X-Kytos-Pathfinder-Work header (see pf.h, PF_WORK_BUDGET). */
#include "pathfinder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char pathfinder_openapi[];
extern const size_t pathfinder_openapi_len;

#define TOPO_PREFIX "/api/kytos/topology/v3/"

/* topology's generation; 0 when topology answers nothing usable */
static uint64_t topology_generation(struct pf *pf)
{
    kytos_response *r = NULL;
    uint64_t gen = 0;

    if (kytos_call(pf->napp, "GET", TOPO_PREFIX "generation", NULL, 0, &r) == KYTOS_OK && r) {
        struct json_object *body = kytos_response_json(r), *v;
        if (kytos_response_status(r) == 200 && json_object_object_get_ex(body, "generation", &v) &&
            json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
            gen = (uint64_t)json_object_get_int64(v);
        kytos_response_free(r);
    }
    return gen;
}

static struct pf_graph *graph_ref(struct pf *pf)
{
    struct pf_graph *g;
    pthread_mutex_lock(&pf->lock);
    g = pf->graph;
    if (g)
        atomic_fetch_add(&g->refs, 1);
    pthread_mutex_unlock(&pf->lock);
    return g;
}

static void graph_set(struct pf *pf, struct pf_graph *g)
{
    struct pf_graph *old;
    pthread_mutex_lock(&pf->lock);
    old = pf->graph;
    pf->graph = g;
    pthread_mutex_unlock(&pf->lock);
    pf_graph_put(old);
}

struct pf_graph *pf_current_graph(struct pf *pf)
{
    uint64_t gen = topology_generation(pf);
    struct pf_graph *g = graph_ref(pf);
    kytos_response *r = NULL;

    if (g && (g->gen == gen || gen == 0))
        return g;          /* unchanged, or topology silent: Kytos keeps its graph */
    pf_graph_put(g);
    pthread_mutex_lock(&pf->refresh_lock);
    g = graph_ref(pf);
    if (g && g->gen >= gen && gen != 0) {   /* another request rebuilt it */
        pthread_mutex_unlock(&pf->refresh_lock);
        return g;
    }
    pf_graph_put(g);
    g = NULL;
    if (kytos_call(pf->napp, "GET", TOPO_PREFIX, NULL, 0, &r) == KYTOS_OK && r) {
        const char *h = kytos_response_header(r, "X-Kytos-Topology-Generation");
        uint64_t got = h ? strtoull(h, NULL, 10) : gen;
        if (kytos_response_status(r) == 200)
            g = pf_graph_build(kytos_response_json(r), got);
        kytos_response_free(r);
    }
    if (!g)
        g = pf_graph_build(NULL, 0);     /* no topology: an empty graph */
    if (g) {
        atomic_fetch_add(&g->refs, 1);
        graph_set(pf, g);
    }
    pthread_mutex_unlock(&pf->refresh_lock);
    return g;
}

static char *dup_msg(const char *m)
{
    size_t n = strlen(m) + 1;
    char *s = kytos_malloc(n);
    if (s)
        memcpy(s, m, n);
    return s;
}

static void pf_free(struct pf *pf)
{
    if (!pf)
        return;
    pf_graph_put(pf->graph);
    pthread_mutex_destroy(&pf->lock);
    pthread_mutex_destroy(&pf->refresh_lock);
    free(pf);
}

static int pf_init(kytos_napp *napp, char **errmsg)
{
    struct pf *pf = calloc(1, sizeof *pf);
    int rc;

    *errmsg = NULL;
    if (!pf) {
        *errmsg = dup_msg("out of memory");
        return KYTOS_ENOMEM;
    }
    pf->napp = napp;
    pthread_mutex_init(&pf->lock, NULL);
    pthread_mutex_init(&pf->refresh_lock, NULL);
    kytos_napp_set_data(napp, pf);
    rc = kytos_route_add(napp, &(struct kytos_route){
                                   .struct_size = sizeof(struct kytos_route),
                                   .method = "POST",
                                   .path = "v3/",
                                   .handler = pf_rest_paths,
                                   .ud = pf,
                                   .flags = KYTOS_ROUTE_VALIDATE,
                               });
    if (rc != KYTOS_OK) {
        kytos_napp_set_data(napp, NULL);
        pf_free(pf);
        *errmsg = dup_msg("registering POST v3/ failed");
    }
    return rc;
}

static int pf_start(kytos_napp *napp)
{
    (void)napp;
    return KYTOS_OK;
}

static void pf_stop(kytos_napp *napp)
{
    struct pf *pf = kytos_napp_data(napp);
    kytos_napp_set_data(napp, NULL);
    pf_free(pf);
}

KYTOS_NAPP_DEFINE("kytos", "pathfinder", "2025.2.0", KYTOS_DEPS("kytos/topology"),
                  pathfinder_openapi, pathfinder_openapi_len, 0, pf_init, pf_start, pf_stop);
