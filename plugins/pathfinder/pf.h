/* plugins/pathfinder/pf.h - kytos/pathfinder: the graph built from
 * topology's snapshot, the constraint filters and k shortest simple paths.
 *
 * The graph is Kytos' (pathfinder graph/graph.py): a node per UP switch and
 * per UP interface of it, an edge switch-interface (no metadata), an edge
 * per UP link carrying the link's metadata.  It is built once per topology
 * generation (topology's GET v3/generation, see main.c), immutable and
 * refcounted, so a request shares it and never copies it.  Node indexes
 * follow the ids' byte order and every adjacency list is sorted, which
 * makes the search deterministic: among paths of equal cost the one whose
 * hop ids compare lower comes first (ksp.c). */
#ifndef PF_PF_H
#define PF_PF_H

#include <json-c/json.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The link metadata pathfinder reads (Kytos' _accepted_metadata). */
enum pf_attr { PF_BANDWIDTH, PF_RELIABILITY, PF_PRIORITY, PF_UTILIZATION, PF_DELAY,
               PF_OWNERSHIP, PF_N_ATTR };

struct pf_edge {
    int u, v;            /* node indexes */
    int link;            /* index in links[], -1 for switch-interface */
};

struct pf_link {
    const char *id, *a, *b;          /* borrowed from the graph's tree */
    int edge;
    bool has[PF_N_ATTR];             /* key present (its value may be null) */
    struct json_object *md[PF_N_ATTR];
};

struct pf_graph {
    atomic_int refs;
    uint64_t gen;
    struct json_object *tree;        /* owns every string below */
    size_t n_nodes;
    const char **ids;                /* sorted */
    size_t n_edges;
    struct pf_edge *edges;
    int *adj_off;                    /* n_nodes + 1 offsets into adj */
    int *adj_node, *adj_edge;        /* neighbours sorted by index */
    size_t n_links;
    struct pf_link *links;           /* sorted by id */
};

/* ---- graph.c ---- */
/* From GET v3/'s {"topology": {...}} (takes a reference on it).  NULL on
 * allocation failure. */
struct pf_graph *pf_graph_build(struct json_object *body, uint64_t gen);
void pf_graph_put(struct pf_graph *g);
int pf_graph_node(const struct pf_graph *g, const char *id);           /* -1: none */
const struct pf_link *pf_graph_link(const struct pf_graph *g, const char *id);

/* ---- filters.c ---- */
enum pf_verdict { PF_FAIL = 0, PF_PASS = 1, PF_ERROR = -1 };
/* A metric name of the Attributes schema (the 6 above plus not_ownership):
 * its index (PF_N_ATTR for not_ownership), -1 when unknown. */
int pf_metric_index(const char *name);
/* Kytos' EdgeFilter for one metric and the request's value on one edge;
 * PF_ERROR writes Python's TypeError text into err. */
enum pf_verdict pf_filter_edge(const struct pf_graph *g, int edge, int metric,
                               struct json_object *value, char *err, size_t errlen);
/* repr() of a JSON value as Python prints it; type(x).__name__. */
void pf_pyrepr(struct json_object *v, char *buf, size_t cap);
const char *pf_pytype(struct json_object *v);

/* ---- ksp.c ---- */
struct pf_path {
    int *nodes;
    size_t n;
    double cost;
    bool cost_float;       /* Python would sum to a float */
    uint64_t hash;         /* of the nodes (ksp.c's duplicate check) */
};

struct pf_search {
    const struct pf_graph *g;
    const uint8_t *edge_ok;   /* per edge: usable (the subgraph) */
    const double *w;          /* per edge weight, >= 0; NAN = not traversable */
    const uint8_t *w_float;   /* per edge: the weight is a Python float */
    bool subgraph;            /* nodes with no usable edge are not in the graph */
    uint64_t budget;          /* max work units (edge relaxations + heap pops) */
    uint64_t work;            /* spent so far (accumulates over calls) */
    bool truncated;           /* the budget stopped a search */
};

/* Up to k shortest simple paths src -> dst (Yen), in order of cost, then of
 * hop ids.  Returns how many were written to out (caller frees with
 * pf_path_free), -1 on allocation failure. */
int pf_ksp(struct pf_search *s, int src, int dst, size_t k, struct pf_path *out);
void pf_path_free(struct pf_path *p);

#define PF_MAX_PATHS 10
#define PF_WORK_BUDGET 2000000u

#endif
