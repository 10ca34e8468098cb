/* plugins/pathfinder/graph.c - Kytos' pathfinder graph (pf.h) from
 * topology's GET v3/ body. */
#include "pf.h"

#include <stdlib.h>
#include <string.h>

static const char *const attr_names[PF_N_ATTR] = {
    "bandwidth", "reliability", "priority", "utilization", "delay", "ownership",
};

static const char *get_str(struct json_object *o, const char *k)
{
    struct json_object *v;
    if (json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static bool is_up(struct json_object *o)
{
    const char *s = get_str(o, "status");
    return s && strcmp(s, "UP") == 0;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int link_cmp(const void *a, const void *b)
{
    return strcmp(((const struct pf_link *)a)->id, ((const struct pf_link *)b)->id);
}

void pf_graph_put(struct pf_graph *g)
{
    if (!g || atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    json_object_put(g->tree);
    free(g->ids);
    free(g->edges);
    free(g->adj_off);
    free(g->adj_node);
    free(g->adj_edge);
    free(g->links);
    free(g);
}

int pf_graph_node(const struct pf_graph *g, const char *id)
{
    const char *const *p;
    if (!g || !id)
        return -1;
    p = bsearch(&id, g->ids, g->n_nodes, sizeof *g->ids, str_cmp);
    return p ? (int)(p - g->ids) : -1;
}

const struct pf_link *pf_graph_link(const struct pf_graph *g, const char *id)
{
    struct pf_link key = {.id = id};
    if (!g || !id)
        return NULL;
    return bsearch(&key, g->links, g->n_links, sizeof key, link_cmp);
}

/* adjacency entries of one node, sorted by neighbour */
struct adj {
    int node, edge;
};

static int adj_cmp(const void *a, const void *b)
{
    const struct adj *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

struct pf_graph *pf_graph_build(struct json_object *body, uint64_t gen)
{
    struct json_object *top = NULL, *sws = NULL, *lks = NULL;
    struct pf_graph *g = calloc(1, sizeof *g);
    size_t cap_nodes = 0, cap_edges = 0, n, e;
    const char **raw = NULL;
    struct { const char *u, *v; int link; } *pend = NULL;
    struct adj *tmp = NULL;
    int *fill = NULL;

    if (!g)
        return NULL;
    atomic_init(&g->refs, 1);
    g->gen = gen;
    g->tree = json_object_get(body);
    json_object_object_get_ex(body, "topology", &top);
    json_object_object_get_ex(top, "switches", &sws);
    json_object_object_get_ex(top, "links", &lks);
    if (!json_object_is_type(sws, json_type_object))
        sws = NULL;
    if (!json_object_is_type(lks, json_type_object))
        lks = NULL;
    if (sws) {
        json_object_object_foreach(sws, dpid, sw) {
            struct json_object *ifs;
            (void)dpid;
            cap_nodes++;
            if (json_object_object_get_ex(sw, "interfaces", &ifs) &&
                json_object_is_type(ifs, json_type_object))
                cap_nodes += (size_t)json_object_object_length(ifs);
        }
    }
    if (lks)
        g->n_links = (size_t)json_object_object_length(lks);
    cap_nodes += 2 * g->n_links;            /* add_edge creates missing endpoints */
    cap_edges = cap_nodes + g->n_links;
    raw = calloc(cap_nodes + 1, sizeof *raw);
    pend = calloc(cap_edges + 1, sizeof *pend);
    g->links = calloc(g->n_links + 1, sizeof *g->links);
    if (!raw || !pend || !g->links)
        goto fail;
    n = e = 0;
    if (sws) {
        json_object_object_foreach(sws, dpid, sw) {
            struct json_object *ifs;
            if (!is_up(sw))
                continue;
            raw[n++] = dpid;
            if (!json_object_object_get_ex(sw, "interfaces", &ifs) ||
                !json_object_is_type(ifs, json_type_object))
                continue;
            json_object_object_foreach(ifs, iid, intf) {
                if (!is_up(intf))
                    continue;
                raw[n++] = iid;
                pend[e].u = dpid;
                pend[e].v = iid;
                pend[e++].link = -1;
            }
        }
    }
    g->n_links = 0;
    if (lks) {
        json_object_object_foreach(lks, lid, lk) {
            struct json_object *ea, *eb, *md = NULL;
            struct pf_link *l;
            const char *a, *b;
            if (!is_up(lk) || !json_object_object_get_ex(lk, "endpoint_a", &ea) ||
                !json_object_object_get_ex(lk, "endpoint_b", &eb))
                continue;
            a = get_str(ea, "id");
            b = get_str(eb, "id");
            if (!a || !b || strcmp(a, b) == 0)
                continue;
            l = &g->links[g->n_links++];
            l->id = lid;
            l->a = a;
            l->b = b;
            json_object_object_get_ex(lk, "metadata", &md);
            for (int k = 0; k < PF_N_ATTR && json_object_is_type(md, json_type_object); k++)
                l->has[k] = json_object_object_get_ex(md, attr_names[k], &l->md[k]);
            raw[n++] = a;
            raw[n++] = b;
            pend[e].u = a;
            pend[e].v = b;
            pend[e++].link = (int)(l - g->links);
        }
    }
    /* unique sorted node ids */
    qsort(raw, n, sizeof *raw, str_cmp);
    g->n_nodes = 0;
    for (size_t i = 0; i < n; i++)
        if (g->n_nodes == 0 || strcmp(raw[g->n_nodes - 1], raw[i]) != 0)
            raw[g->n_nodes++] = raw[i];
    g->ids = raw;
    raw = NULL;
    /* links sorted by id; the pending edges point at them by index */
    {
        int *order = calloc(g->n_links + 1, sizeof *order);
        struct pf_link *sorted = calloc(g->n_links + 1, sizeof *sorted);
        if (!order || !sorted) {
            free(order);
            free(sorted);
            goto fail;
        }
        memcpy(sorted, g->links, g->n_links * sizeof *sorted);
        qsort(sorted, g->n_links, sizeof *sorted, link_cmp);
        /* map old index -> new index by id look-up */
        for (size_t i = 0; i < g->n_links; i++) {
            const struct pf_link *p =
                bsearch(&g->links[i], sorted, g->n_links, sizeof *sorted, link_cmp);
            order[i] = (int)(p - sorted);
        }
        for (size_t i = 0; i < e; i++)
            if (pend[i].link >= 0)
                pend[i].link = order[pend[i].link];
        free(g->links);
        g->links = sorted;
        free(order);
    }
    /* edges (link ids name their endpoints: no pair repeats) and the adjacency */
    g->edges = calloc(e + 1, sizeof *g->edges);
    g->adj_off = calloc(g->n_nodes + 1, sizeof(int));
    tmp = calloc(2 * e + 1, sizeof *tmp);
    fill = calloc(g->n_nodes + 1, sizeof(int));
    if (!g->edges || !g->adj_off || !tmp || !fill)
        goto fail;
    for (size_t i = 0; i < e; i++) {
        int u = pf_graph_node(g, pend[i].u), v = pf_graph_node(g, pend[i].v);
        struct pf_edge *x = &g->edges[g->n_edges];
        x->u = u;
        x->v = v;
        x->link = pend[i].link;
        if (x->link >= 0)
            g->links[x->link].edge = (int)g->n_edges;
        g->adj_off[u + 1]++;
        g->adj_off[v + 1]++;
        g->n_edges++;
    }
    for (size_t i = 0; i < g->n_nodes; i++)
        g->adj_off[i + 1] += g->adj_off[i];
    g->adj_node = calloc(2 * g->n_edges + 1, sizeof(int));
    g->adj_edge = calloc(2 * g->n_edges + 1, sizeof(int));
    if (!g->adj_node || !g->adj_edge)
        goto fail;
    for (size_t i = 0; i < g->n_edges; i++) {
        const struct pf_edge *x = &g->edges[i];
        tmp[g->adj_off[x->u] + fill[x->u]++] = (struct adj){x->v, (int)i};
        tmp[g->adj_off[x->v] + fill[x->v]++] = (struct adj){x->u, (int)i};
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        int lo = g->adj_off[i], hi = g->adj_off[i + 1];
        qsort(tmp + lo, (size_t)(hi - lo), sizeof *tmp, adj_cmp);
        for (int j = lo; j < hi; j++) {
            g->adj_node[j] = tmp[j].node;
            g->adj_edge[j] = tmp[j].edge;
        }
    }
    free(tmp);
    free(fill);
    free(pend);
    return g;
fail:
    free(raw);
    free(pend);
    free(tmp);
    free(fill);
    pf_graph_put(g);
    return NULL;
}
