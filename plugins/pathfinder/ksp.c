/* plugins/pathfinder/ksp.c - k shortest simple paths (Yen, as networkx'
 * shortest_simple_paths that Kytos uses), deterministic and bounded.
 *
 * Order: by cost, then by hop ids (node indexes follow the ids' byte
 * order).  Yen yields that exact order when every spur search returns the
 * least path by (cost, ids): the walk from the spur node takes, at every
 * step, the lowest neighbour that stays on a shortest path (spur_path).
 * The spur searches are A* guided by the distances to the target in the
 * whole graph, computed once, so a search costs what the spur needs, not
 * the whole graph.  Every heap pop and edge examined is a unit of
 * work; past s->budget the search stops and the paths found so far stand
 * (s->truncated tells). */
#include "pf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct hitem {
    double d;
    int node;
};

struct ctx {
    struct pf_search *s;
    const struct pf_graph *g;
    double *dist;
    double *h;                                    /* distance to the target, nothing removed */
    unsigned *seen, *done, *mark, *node_rm, *edge_rm;   /* stamps */
    unsigned stamp, rm_stamp;
    struct hitem *heap;
    size_t nheap, capheap;
    uint8_t *alive;
    int *walk;
    uint8_t *on_walk;
};

static bool close_to(double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-9 * (m > 1 ? m : 1);
}

static void heap_push(struct ctx *c, double d, int node)
{
    size_t i = c->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (c->heap[p].d < d || (c->heap[p].d == d && c->heap[p].node <= node))
            break;
        c->heap[i] = c->heap[p];
        i = p;
    }
    c->heap[i] = (struct hitem){d, node};
}

static struct hitem heap_pop(struct ctx *c)
{
    struct hitem top = c->heap[0], last = c->heap[--c->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct hitem *pm = &last;
        if (l < c->nheap && (c->heap[l].d < pm->d || (c->heap[l].d == pm->d && c->heap[l].node < pm->node))) {
            m = l;
            pm = &c->heap[l];
        }
        if (r < c->nheap && (c->heap[r].d < pm->d || (c->heap[r].d == pm->d && c->heap[r].node < pm->node))) {
            m = r;
            pm = &c->heap[r];
        }
        if (m == i)
            break;
        c->heap[i] = c->heap[m];
        i = m;
    }
    if (c->nheap)
        c->heap[i] = last;
    return top;
}

static bool usable(const struct ctx *c, int edge, int node)
{
    return (!c->s->edge_ok || c->s->edge_ok[edge]) && !isnan(c->s->w[edge]) &&
           c->edge_rm[edge] != c->rm_stamp && c->node_rm[node] != c->rm_stamp && c->alive[node];
}

static bool spend(struct ctx *c)
{
    if (++c->s->work > c->s->budget) {
        c->s->truncated = true;
        return false;
    }
    return true;
}

/* Every node's distance to `to` with nothing removed, into c->h: the A*
 * heuristic of the spur searches (removing nodes and edges only lengthens
 * paths, so it never overestimates, and it is consistent).  INFINITY for
 * nodes that cannot reach `to` at all. */
static bool full_distances(struct ctx *c, int to)
{
    const struct pf_graph *g = c->g;

    for (size_t v = 0; v < g->n_nodes; v++)
        c->h[v] = INFINITY;
    c->nheap = 0;
    c->h[to] = 0;
    heap_push(c, 0, to);
    while (c->nheap) {
        struct hitem it = heap_pop(c);
        if (!spend(c))
            return false;
        if (it.d > c->h[it.node])
            continue;
        for (int j = g->adj_off[it.node]; j < g->adj_off[it.node + 1]; j++) {
            int v = g->adj_node[j], e = g->adj_edge[j];
            double nd;
            if (!spend(c))
                return false;
            if (!usable(c, e, v))
                continue;
            nd = it.d + c->s->w[e];
            if (nd < c->h[v] && c->nheap < c->capheap) {
                c->h[v] = nd;
                heap_push(c, nd, v);
            }
        }
    }
    return true;
}

/* The least path from -> to by (cost, ids) avoiding the removed nodes and
 * edges, into c->walk; its length, 0 when none (or out of budget).
 * A* from `from` settles every node that can lie on a shortest path; the
 * nodes that do are marked back from `to` along tight edges; the walk then
 * takes the lowest marked neighbour on a tight edge at each step.  A spur
 * node hemmed in by the removals costs the few nodes it can reach. */
static size_t spur_path(struct ctx *c, int from, int to)
{
    const struct pf_graph *g = c->g;
    size_t n = 0, top = 0;
    double best = INFINITY;
    int cur;

    if (!isfinite(c->h[from]))
        return 0;
    if (++c->stamp == 0) {    /* wrapped: clear the stamps */
        memset(c->seen, 0, g->n_nodes * sizeof *c->seen);
        memset(c->done, 0, g->n_nodes * sizeof *c->done);
        memset(c->mark, 0, g->n_nodes * sizeof *c->mark);
        c->stamp = 1;
    }
    c->nheap = 0;
    c->dist[from] = 0;
    c->seen[from] = c->stamp;
    heap_push(c, c->h[from], from);
    while (c->nheap) {
        struct hitem it = heap_pop(c);
        double gu;
        if (!spend(c))
            return 0;
        if (it.d > best && !close_to(it.d, best))
            break;
        if (c->done[it.node] == c->stamp)
            continue;
        gu = c->dist[it.node];
        if (it.d > gu + c->h[it.node] && !close_to(it.d, gu + c->h[it.node]))
            continue;          /* a stale entry */
        c->done[it.node] = c->stamp;
        if (it.node == to) {
            best = gu;
            continue;
        }
        for (int j = g->adj_off[it.node]; j < g->adj_off[it.node + 1]; j++) {
            int v = g->adj_node[j], e = g->adj_edge[j];
            double nd;
            if (!spend(c))
                return 0;
            if (!usable(c, e, v) || c->done[v] == c->stamp || !isfinite(c->h[v]))
                continue;
            nd = gu + c->s->w[e];
            if (c->seen[v] != c->stamp || nd < c->dist[v]) {
                c->seen[v] = c->stamp;
                c->dist[v] = nd;
                if (c->nheap < c->capheap)
                    heap_push(c, nd + c->h[v], v);
            }
        }
    }
    if (c->done[to] != c->stamp)
        return 0;
    /* mark the nodes on shortest paths: back from `to` along tight edges */
    c->mark[to] = c->stamp;
    c->walk[top++] = to;
    while (top) {
        int v = c->walk[--top];
        for (int j = g->adj_off[v]; j < g->adj_off[v + 1]; j++) {
            int u = g->adj_node[j], e = g->adj_edge[j];
            if (!spend(c))
                return 0;
            if (c->mark[u] == c->stamp || c->done[u] != c->stamp || !usable(c, e, u))
                continue;
            if (close_to(c->dist[u] + c->s->w[e], c->dist[v])) {
                c->mark[u] = c->stamp;
                c->walk[top++] = u;
            }
        }
    }
    cur = from;
    c->walk[n++] = cur;
    c->on_walk[cur] = 1;
    while (cur != to) {
        int next = -1;
        for (int j = g->adj_off[cur]; j < g->adj_off[cur + 1]; j++) {
            int v = g->adj_node[j], e = g->adj_edge[j];
            if (!usable(c, e, v) || c->mark[v] != c->stamp || c->on_walk[v])
                continue;
            if (close_to(c->dist[cur] + c->s->w[e], c->dist[v])) {
                next = v;
                break;
            }
        }
        if (next < 0)
            break;
        cur = next;
        c->walk[n++] = cur;
        c->on_walk[cur] = 1;
    }
    for (size_t i = 0; i < n; i++)
        c->on_walk[c->walk[i]] = 0;
    return cur == to ? n : 0;
}

static int edge_between(const struct pf_graph *g, int u, int v)
{
    int lo = g->adj_off[u], hi = g->adj_off[u + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (g->adj_node[mid] == v)
            return g->adj_edge[mid];
        if (g->adj_node[mid] < v)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Python's sum from 0, in path order. */
static void path_cost(const struct pf_search *s, struct pf_path *p)
{
    p->cost = 0;
    p->cost_float = false;
    for (size_t i = 0; i + 1 < p->n; i++) {
        int e = edge_between(s->g, p->nodes[i], p->nodes[i + 1]);
        p->cost += s->w[e];
        p->cost_float |= s->w_float[e] != 0;
    }
}

static int path_cmp(const struct pf_path *a, const struct pf_path *b)
{
    if (!close_to(a->cost, b->cost))
        return a->cost < b->cost ? -1 : 1;
    for (size_t i = 0; i < a->n && i < b->n; i++)
        if (a->nodes[i] != b->nodes[i])
            return a->nodes[i] < b->nodes[i] ? -1 : 1;
    return (a->n > b->n) - (a->n < b->n);
}

static uint64_t path_hash(const int *nodes, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)(unsigned)nodes[i]) * 1099511628211ull;
    return h;
}

static bool same_path(const struct pf_path *a, uint64_t hash, const int *nodes, size_t n)
{
    return a->hash == hash && a->n == n && memcmp(a->nodes, nodes, n * sizeof *nodes) == 0;
}

void pf_path_free(struct pf_path *p)
{
    free(p->nodes);
    p->nodes = NULL;
    p->n = 0;
}

static void ctx_free(struct ctx *c)
{
    free(c->dist);
    free(c->h);
    free(c->seen);
    free(c->done);
    free(c->mark);
    free(c->node_rm);
    free(c->edge_rm);
    free(c->heap);
    free(c->alive);
    free(c->walk);
    free(c->on_walk);
}

int pf_ksp(struct pf_search *s, int src, int dst, size_t k, struct pf_path *out)
{
    const struct pf_graph *g = s->g;
    struct ctx c = {.s = s, .g = g};
    struct pf_path *cand = NULL;
    size_t ncand = 0, capcand = 0, nout = 0, n, len;
    int rc = -1;

    if (k == 0 || src < 0 || dst < 0 || (size_t)src >= g->n_nodes || (size_t)dst >= g->n_nodes)
        return 0;
    c.dist = calloc(g->n_nodes, sizeof *c.dist);
    c.h = calloc(g->n_nodes, sizeof *c.h);
    c.seen = calloc(g->n_nodes, sizeof *c.seen);
    c.done = calloc(g->n_nodes, sizeof *c.done);
    c.mark = calloc(g->n_nodes, sizeof *c.mark);
    c.node_rm = calloc(g->n_nodes, sizeof *c.node_rm);
    c.edge_rm = calloc(g->n_edges + 1, sizeof *c.edge_rm);
    c.capheap = 2 * g->n_edges + g->n_nodes + 2;
    c.heap = calloc(c.capheap, sizeof *c.heap);
    c.alive = calloc(g->n_nodes, 1);
    c.walk = calloc(g->n_nodes, sizeof *c.walk);
    c.on_walk = calloc(g->n_nodes, 1);
    if (!c.dist || !c.h || !c.seen || !c.done || !c.mark || !c.node_rm || !c.edge_rm || !c.heap || !c.alive ||
        !c.walk || !c.on_walk)
        goto out;
    /* in an edge subgraph, a node without a kept edge does not exist */
    for (size_t v = 0; v < g->n_nodes; v++)
        c.alive[v] = !s->subgraph;
    for (size_t e = 0; s->subgraph && e < g->n_edges; e++)
        if (!s->edge_ok || s->edge_ok[e])
            c.alive[g->edges[e].u] = c.alive[g->edges[e].v] = 1;
    rc = 0;
    if (!c.alive[src] || !c.alive[dst])
        goto out;
    c.rm_stamp = 1;
    if (!full_distances(&c, dst))
        goto out;
    len = spur_path(&c, src, dst);
    if (len == 0)
        goto out;
    out[0].nodes = malloc(len * sizeof(int));
    if (!out[0].nodes) {
        rc = -1;
        goto out;
    }
    memcpy(out[0].nodes, c.walk, len * sizeof(int));
    out[0].n = len;
    out[0].hash = path_hash(out[0].nodes, len);
    path_cost(s, &out[0]);
    nout = 1;
    while (nout < k && !s->truncated) {
        const struct pf_path *prev = &out[nout - 1];
        for (size_t i = 0; i + 1 < prev->n && !s->truncated; i++) {
            int spur = prev->nodes[i];
            c.rm_stamp++;
            for (size_t a = 0; a < nout; a++)
                if (out[a].n > i + 1 && memcmp(out[a].nodes, prev->nodes, (i + 1) * sizeof(int)) == 0) {
                    int e = edge_between(g, out[a].nodes[i], out[a].nodes[i + 1]);
                    if (e >= 0)
                        c.edge_rm[e] = c.rm_stamp;
                }
            for (size_t r = 0; r < i; r++)
                c.node_rm[prev->nodes[r]] = c.rm_stamp;
            len = spur_path(&c, spur, dst);
            if (len == 0)
                continue;
            n = i + len;
            {
                struct pf_path p = {.nodes = malloc(n * sizeof(int)), .n = n};
                bool dup = false;
                if (!p.nodes) {
                    rc = -1;
                    goto out;
                }
                memcpy(p.nodes, prev->nodes, i * sizeof(int));
                memcpy(p.nodes + i, c.walk, len * sizeof(int));
                p.hash = path_hash(p.nodes, n);
                for (size_t b = 0; b < ncand && !dup; b++)
                    dup = same_path(&cand[b], p.hash, p.nodes, n);
                for (size_t a = 0; a < nout && !dup; a++)
                    dup = same_path(&out[a], p.hash, p.nodes, n);
                if (dup) {
                    free(p.nodes);
                    continue;
                }
                path_cost(s, &p);
                if (ncand == capcand) {
                    size_t nc = capcand ? 2 * capcand : 16;
                    struct pf_path *x = realloc(cand, nc * sizeof *cand);
                    if (!x) {
                        free(p.nodes);
                        rc = -1;
                        goto out;
                    }
                    cand = x;
                    capcand = nc;
                }
                cand[ncand++] = p;
            }
        }
        if (ncand == 0)
            break;
        {
            size_t best = 0;
            for (size_t b = 1; b < ncand; b++)
                if (path_cmp(&cand[b], &cand[best]) < 0)
                    best = b;
            out[nout++] = cand[best];
            cand[best] = cand[--ncand];
        }
    }
    rc = (int)nout;
out:
    for (size_t b = 0; b < ncand; b++)
        pf_path_free(&cand[b]);
    free(cand);
    if (rc < 0)
        for (size_t a = 0; a < nout; a++)
            pf_path_free(&out[a]);
    ctx_free(&c);
    return rc;
}
