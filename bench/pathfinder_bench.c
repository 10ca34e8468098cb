/* bench/pathfinder_bench.c - kytos/pathfinder's search alone (graph.c,
 * ksp.c): random networks shaped as simnet's (one host port per switch, a
 * ring plus random chords, delays 1..3), k = 10 paths between random host
 * ports, by hop and by delay.  Prints per size: graph build time, query
 * latency p50/p99 and the work units per query (the budget is
 * PF_WORK_BUDGET).  Usage: pathfinder_bench [queries] (default 200). */
#include "../plugins/pathfinder/pf.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 42;

static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng >> 33) % n);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void dpid(unsigned i, char *buf)
{
    snprintf(buf, 24, "00:00:00:00:00:00:%02x:%02x", (i >> 8) & 0xff, i & 0xff);
}

static struct json_object *intf_up(void)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "status", json_object_new_string("UP"));
    return o;
}

/* n switches, port 1 a host port, a ring, then chords up to `links` */
static struct json_object *network(unsigned n, unsigned links)
{
    struct json_object *body = json_object_new_object(), *top = json_object_new_object(),
                       *sws = json_object_new_object(), *lks = json_object_new_object(),
                       **ifs = calloc(n, sizeof *ifs);
    unsigned *next = calloc(n, sizeof *next);
    char a[24], ia[40], ib[40], lid[24];

    json_object_object_add(body, "topology", top);
    json_object_object_add(top, "switches", sws);
    json_object_object_add(top, "links", lks);
    for (unsigned i = 0; i < n; i++) {
        struct json_object *sw = json_object_new_object();
        dpid(i + 1, a);
        json_object_object_add(sw, "status", json_object_new_string("UP"));
        ifs[i] = json_object_new_object();
        json_object_object_add(sw, "interfaces", ifs[i]);
        json_object_object_add(sws, a, sw);
        snprintf(ia, sizeof ia, "%s:1", a);
        json_object_object_add(ifs[i], ia, intf_up());
        next[i] = 2;
    }
    for (unsigned l = 0; l < links; l++) {
        unsigned x = l < n ? l : rnd(n), y = l < n ? (l + 1) % n : rnd(n);
        struct json_object *lk, *ea, *eb, *md;
        if (x == y)
            continue;
        dpid(x + 1, a);
        snprintf(ia, sizeof ia, "%s:%u", a, next[x]++);
        dpid(y + 1, a);
        snprintf(ib, sizeof ib, "%s:%u", a, next[y]++);
        json_object_object_add(ifs[x], ia, intf_up());
        json_object_object_add(ifs[y], ib, intf_up());
        lk = json_object_new_object();
        ea = json_object_new_object();
        eb = json_object_new_object();
        md = json_object_new_object();
        json_object_object_add(ea, "id", json_object_new_string(ia));
        json_object_object_add(eb, "id", json_object_new_string(ib));
        json_object_object_add(lk, "endpoint_a", ea);
        json_object_object_add(lk, "endpoint_b", eb);
        json_object_object_add(md, "delay", json_object_new_int((int)rnd(3) + 1));
        json_object_object_add(lk, "metadata", md);
        json_object_object_add(lk, "status", json_object_new_string("UP"));
        snprintf(lid, sizeof lid, "l%u", l);
        json_object_object_add(lks, lid, lk);
    }
    free(ifs);
    free(next);
    return body;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run(unsigned n, unsigned links, unsigned queries, bool by_delay)
{
    struct json_object *body = network(n, links);
    double t0 = now_ms(), *lat = calloc(queries, sizeof *lat);
    struct pf_graph *g = pf_graph_build(body, 1);
    double build = now_ms() - t0;
    double *w = calloc(g->n_edges, sizeof *w);
    uint8_t *wf = calloc(g->n_edges, 1);
    uint64_t work_sum = 0, work_max = 0;
    unsigned truncated = 0;
    char a[24], ia[40], ib[40];

    for (size_t e = 0; e < g->n_edges; e++) {
        int l = g->edges[e].link;
        w[e] = by_delay && l >= 0 ? json_object_get_double(g->links[l].md[PF_DELAY]) : 1;
    }
    for (unsigned q = 0; q < queries; q++) {
        struct pf_search s = {.g = g, .w = w, .w_float = wf, .budget = PF_WORK_BUDGET};
        struct pf_path out[PF_MAX_PATHS];
        int got;
        dpid(1 + rnd(n), a);
        snprintf(ia, sizeof ia, "%s:1", a);
        dpid(1 + rnd(n), a);
        snprintf(ib, sizeof ib, "%s:1", a);
        memset(out, 0, sizeof out);
        t0 = now_ms();
        got = pf_ksp(&s, pf_graph_node(g, ia), pf_graph_node(g, ib), PF_MAX_PATHS, out);
        lat[q] = now_ms() - t0;
        for (int i = 0; i < got; i++)
            pf_path_free(&out[i]);
        work_sum += s.work;
        if (s.work > work_max)
            work_max = s.work;
        truncated += s.truncated;
    }
    qsort(lat, queries, sizeof *lat, dcmp);
    printf("%5u switches %5u links %-5s  nodes %6zu  build %7.2f ms  query p50 %6.3f ms  p99 %6.3f ms"
           "  work mean %8.0f max %8llu  truncated %u/%u\n",
           n, links, by_delay ? "delay" : "hop", g->n_nodes, build, lat[queries / 2],
           lat[queries * 99 / 100], (double)work_sum / queries, (unsigned long long)work_max,
           truncated, queries);
    free(lat);
    free(w);
    free(wf);
    pf_graph_put(g);
    json_object_put(body);
}

int main(int argc, char **argv)
{
    unsigned queries = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
    static const unsigned sizes[][2] = {{20, 40}, {200, 500}, {1000, 2500}};

    if (queries == 0 || queries > 100000) {
        fprintf(stderr, "usage: pathfinder_bench [queries 1..100000]\n");
        return 2;
    }
    printf("pathfinder: k = %d shortest simple paths between random host ports, work budget %u\n",
           PF_MAX_PATHS, PF_WORK_BUDGET);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        run(sizes[i][0], sizes[i][1], queries, false);
        run(sizes[i][0], sizes[i][1], queries, true);
    }
    return 0;
}
