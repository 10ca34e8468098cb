/* plugins/pathfinder/rest.c - POST v3/: Kytos' pathfinder shortest_path
 * (main.py) over the graph of topology's snapshot.
 *
 *   source, destination    interface ids or dpids (required)
 *   spf_attribute          hop | delay | priority: the edge weight, 1 where a
 *                          link lacks it and on switch-interface edges, so by
 *                          hop a path over N switches costs 3N - 1; a link
 *                          whose value is null is not traversable
 *   spf_max_paths          k, 1..10, default 2
 *   spf_max_path_cost      keep paths costing at most this (absent/0: all)
 *   undesired_links        link ids whose edges are left out (unknown ids
 *                          ignored)
 *   mandatory_metrics      every one must hold on every link of a path
 *   flexible_metrics,      at least minimum_flexible_hits of them must hold:
 *   minimum_flexible_hits  combinations from all of them down to the minimum,
 *                          each searched for k paths; the first combination
 *                          that fills k, or the first size that found any,
 *                          ends the search (Kytos' constrained_k_shortest_paths,
 *                          duplicates and more than k paths included)
 *
 * 200 {"paths": [{"hops": [...], "cost": c}]} (constrained: {"hops",
 * "metrics", "cost"}, metrics = mandatory + the combination used); no path
 * or an unknown node: {"paths": []}.  400 for a link value a metric cannot
 * be compared with, in Python's words (filters.c). */
#include "pathfinder.h"
#include "../topology/pyfloat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_MAX 512
#define MAX_METRICS 16

struct metric {
    const char *name;
    int idx;                    /* pf_metric_index, -1: not a filter */
    struct json_object *val;
};

struct job {
    const struct pf_graph *g;
    struct pf_search s;
    uint8_t *base, *mask;
    double *w;
    uint8_t *wf;
    struct json_object *paths;  /* the answer's list */
    size_t k;
    int src, dst;
    char err[ERR_MAX];
};

static bool get_num(struct json_object *v, double *out)
{
    if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
        *out = json_object_get_double(v);
        return true;
    }
    return false;
}

/* The weights of spf_attribute; false (400 text in err) for a value Python
 * could not add. */
static bool weights(struct job *j, const char *attr)
{
    int a = strcmp(attr, "delay") == 0 ? PF_DELAY : strcmp(attr, "priority") == 0 ? PF_PRIORITY : -1;

    for (size_t e = 0; e < j->g->n_edges; e++) {
        const struct pf_edge *x = &j->g->edges[e];
        const struct pf_link *l;
        struct json_object *v;
        j->w[e] = 1;
        j->wf[e] = 0;
        if (a < 0 || x->link < 0)
            continue;
        l = &j->g->links[x->link];
        if (!l->has[a])
            continue;
        v = l->md[a];
        if (v == NULL) {
            j->w[e] = NAN;     /* networkx skips an edge whose weight is None */
        } else if (json_object_is_type(v, json_type_boolean)) {
            j->w[e] = json_object_get_boolean(v) ? 1 : 0;
        } else if (get_num(v, &j->w[e])) {
            j->wf[e] = json_object_is_type(v, json_type_double);
        } else if (j->base[e]) {
            snprintf(j->err, sizeof j->err, "unsupported operand type(s) for +: 'int' and '%s'",
                     pf_pytype(v));
            return false;
        }
        if (j->base[e] && j->w[e] < 0) {
            snprintf(j->err, sizeof j->err, "Contradictory paths found: negative weights?");
            return false;
        }
    }
    return true;
}

static struct json_object *cost_json(const struct pf_path *p)
{
    char f[TOPO_PYFLOAT_MAX];
    if (!p->cost_float)
        return json_object_new_int64((int64_t)llround(p->cost));
    topo_pyfloat(p->cost, f);
    return json_object_new_double_s(p->cost, f);
}

/* Search k paths on mask, appending them (with metrics when given) to the
 * answer.  -1 on allocation failure. */
static int search(struct job *j, bool subgraph, struct json_object *metrics, size_t *found)
{
    struct pf_path out[PF_MAX_PATHS];
    int n;

    memset(out, 0, sizeof out);
    j->s.edge_ok = j->mask;
    j->s.subgraph = subgraph;
    n = pf_ksp(&j->s, j->src, j->dst, j->k, out);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        struct json_object *p = json_object_new_object(), *hops = json_object_new_array();
        for (size_t h = 0; h < out[i].n; h++)
            json_object_array_add(hops, json_object_new_string(j->g->ids[out[i].nodes[h]]));
        json_object_object_add(p, "hops", hops);
        if (metrics)
            json_object_object_add(p, "metrics", json_object_get(metrics));
        json_object_object_add(p, "cost", cost_json(&out[i]));
        /* cost kept aside for spf_max_path_cost */
        json_object_array_add(j->paths, p);
        pf_path_free(&out[i]);
    }
    *found += (size_t)n;
    return 0;
}

/* Kytos' constrained_k_shortest_paths.  1 done, 0 error (err), -1 memory. */
static int constrained(struct job *j, const struct metric *mand, size_t nm, const struct metric *flex,
                       size_t nf, int64_t min_hits)
{
    uint8_t *mok = j->base;   /* first_pass_links, in place */
    size_t found = 0, combo[MAX_METRICS];

    for (size_t e = 0; e < j->g->n_edges; e++) {
        for (size_t m = 0; m < nm && mok[e]; m++) {
            enum pf_verdict v;
            if (mand[m].idx < 0)
                continue;
            v = pf_filter_edge(j->g, (int)e, mand[m].idx, mand[m].val, j->err, sizeof j->err);
            if (v == PF_ERROR)
                return 0;
            if (v == PF_FAIL)
                mok[e] = 0;
        }
    }
    if (min_hits < 0)
        min_hits = 0;
    if (min_hits > (int64_t)nf)
        min_hits = (int64_t)nf;
    for (size_t i = nf + 1; i-- > (size_t)min_hits;) {
        /* itertools.combinations(flexible, i): index tuples in order */
        for (size_t c = 0; c < i; c++)
            combo[c] = c;
        for (;;) {
            struct json_object *metrics;
            /* filtering the edges is work too: many flexible metrics make
             * many combinations, and the budget bounds them all */
            j->s.work += j->g->n_edges + 1;
            if (j->s.work > j->s.budget) {
                j->s.truncated = true;
                return 1;
            }
            metrics = json_object_new_object();
            for (size_t m = 0; m < nm; m++)
                json_object_object_add(metrics, mand[m].name, json_object_get(mand[m].val));
            for (size_t c = 0; c < i; c++)
                json_object_object_add(metrics, flex[combo[c]].name, json_object_get(flex[combo[c]].val));
            for (size_t e = 0; e < j->g->n_edges; e++) {
                j->mask[e] = mok[e];
                for (size_t c = 0; c < i && j->mask[e]; c++) {
                    const struct metric *f = &flex[combo[c]];
                    enum pf_verdict v;
                    if (f->idx < 0)
                        continue;
                    v = pf_filter_edge(j->g, (int)e, f->idx, f->val, j->err, sizeof j->err);
                    if (v == PF_ERROR) {
                        json_object_put(metrics);
                        return 0;
                    }
                    j->mask[e] = v == PF_PASS;
                }
            }
            if (search(j, true, metrics, &found) < 0) {
                json_object_put(metrics);
                return -1;
            }
            json_object_put(metrics);
            if (found == j->k)
                return 1;
            /* next combination */
            {
                size_t c = i;
                while (c > 0 && combo[c - 1] == nf - i + c - 1)
                    c--;
                if (c == 0)
                    break;
                combo[c - 1]++;
                for (size_t d = c; d < i; d++)
                    combo[d] = combo[d - 1] + 1;
            }
        }
        if (found)
            return 1;
    }
    return 1;
}

/* The metrics of an Attributes object, in its key order. */
static bool read_metrics(struct json_object *o, struct metric *out, size_t *n, const char *field,
                         char *err, size_t errlen)
{
    *n = 0;
    if (!o)
        return true;
    if (!json_object_is_type(o, json_type_object)) {
        snprintf(err, errlen, "%s must be an object", field);
        return false;
    }
    json_object_object_foreach(o, key, val) {
        int idx = pf_metric_index(key);
        if (*n >= MAX_METRICS) {
            snprintf(err, errlen, "%s has more than %d metrics", field, MAX_METRICS);
            return false;
        }
        /* the spec's types, checked again: this is reached in-process too */
        if ((idx >= 0 && idx < PF_OWNERSHIP && !json_object_is_type(val, json_type_int) &&
             !json_object_is_type(val, json_type_double)) ||
            (idx == PF_OWNERSHIP && !json_object_is_type(val, json_type_string)) ||
            (idx == PF_N_ATTR && !json_object_is_type(val, json_type_array) &&
             !json_object_is_type(val, json_type_string))) {
            snprintf(err, errlen, "%s.%s has an invalid value", field, key);
            return false;
        }
        out[(*n)++] = (struct metric){key, idx, val};
    }
    return true;
}

static struct json_object *field(struct json_object *body, const char *k)
{
    struct json_object *v = NULL;
    json_object_object_get_ex(body, k, &v);
    return v;
}

int pf_rest_paths(kytos_req *req, void *ud)
{
    struct pf *pf = ud;
    struct json_object *body = kytos_req_json(req), *v, *answer;
    struct metric mand[MAX_METRICS], flex[MAX_METRICS];
    size_t nm = 0, nf = 0;
    const char *attr = "hop", *src, *dst;
    double max_cost = 0;
    int64_t min_hits = 0;
    struct job j = {0};
    char work[32];
    int ok = 1;

    if (!json_object_is_type(body, json_type_object))
        return kytos_resp_error(req, 400, "Invalid body value: %.200s",
                                body ? json_object_to_json_string(body) : "None");
    v = field(body, "source");
    if (!json_object_is_type(v, json_type_string))
        return kytos_resp_error(req, 400, "'source' is a required property");
    src = json_object_get_string(v);
    v = field(body, "destination");
    if (!json_object_is_type(v, json_type_string))
        return kytos_resp_error(req, 400, "'destination' is a required property");
    dst = json_object_get_string(v);
    if ((v = field(body, "spf_attribute"))) {
        attr = json_object_get_string(v);
        if (!json_object_is_type(v, json_type_string) ||
            (strcmp(attr, "hop") && strcmp(attr, "delay") && strcmp(attr, "priority")))
            return kytos_resp_error(req, 400, "spf_attribute must be hop, delay or priority");
    }
    j.k = 2;
    if ((v = field(body, "spf_max_paths"))) {
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1 ||
            json_object_get_int64(v) > PF_MAX_PATHS)
            return kytos_resp_error(req, 400, "spf_max_paths must be an integer from 1 to %d",
                                    PF_MAX_PATHS);
        j.k = (size_t)json_object_get_int64(v);
    }
    if ((v = field(body, "spf_max_path_cost")) && !get_num(v, &max_cost))
        return kytos_resp_error(req, 400, "spf_max_path_cost must be a number");
    if ((v = field(body, "minimum_flexible_hits"))) {
        if (!json_object_is_type(v, json_type_int))
            return kytos_resp_error(req, 400, "minimum_flexible_hits must be an integer");
        min_hits = json_object_get_int64(v);
    }
    if (!read_metrics(field(body, "mandatory_metrics"), mand, &nm, "mandatory_metrics", j.err,
                      sizeof j.err) ||
        !read_metrics(field(body, "flexible_metrics"), flex, &nf, "flexible_metrics", j.err,
                      sizeof j.err))
        return kytos_resp_error(req, 400, "%s", j.err);
    v = field(body, "undesired_links");
    if (v && !json_object_is_type(v, json_type_array))
        return kytos_resp_error(req, 400, "undesired_links must be a list of link ids");

    j.g = pf_current_graph(pf);
    if (!j.g)
        return kytos_resp_error(req, 500, "out of memory");
    j.base = malloc(j.g->n_edges + 1);
    j.mask = malloc(j.g->n_edges + 1);
    j.w = malloc((j.g->n_edges + 1) * sizeof *j.w);
    j.wf = malloc(j.g->n_edges + 1);
    j.paths = json_object_new_array();
    if (!j.base || !j.mask || !j.w || !j.wf || !j.paths) {
        ok = -1;
        goto done;
    }
    memset(j.base, 1, j.g->n_edges + 1);
    for (size_t i = 0; v && i < json_object_array_length(v); i++) {
        const struct pf_link *l =
            pf_graph_link(j.g, json_object_get_string(json_object_array_get_idx(v, i)));
        if (l)
            j.base[l->edge] = 0;
    }
    j.src = pf_graph_node(j.g, src);
    j.dst = pf_graph_node(j.g, dst);
    j.s = (struct pf_search){.g = j.g, .w = j.w, .w_float = j.wf, .budget = PF_WORK_BUDGET};
    if (!weights(&j, attr)) {
        ok = 0;
        goto done;
    }
    if (nm || nf) {
        ok = constrained(&j, mand, nm, flex, nf, min_hits);
    } else {
        size_t found = 0;
        memcpy(j.mask, j.base, j.g->n_edges + 1);
        ok = search(&j, v && json_object_array_length(v) > 0, NULL, &found) < 0 ? -1 : 1;
    }
    if (ok == 1 && max_cost != 0) {
        struct json_object *kept = json_object_new_array();
        for (size_t i = 0; i < json_object_array_length(j.paths); i++) {
            struct json_object *p = json_object_array_get_idx(j.paths, i);
            if (json_object_get_double(field(p, "cost")) <= max_cost)
                json_object_array_add(kept, json_object_get(p));
        }
        json_object_put(j.paths);
        j.paths = kept;
    }
done:
    free(j.base);
    free(j.mask);
    free(j.w);
    free(j.wf);
    pf_graph_put((struct pf_graph *)j.g);
    snprintf(work, sizeof work, "%llu", (unsigned long long)j.s.work);
    kytos_resp_header(req, "X-Kytos-Pathfinder-Work", work);
    if (ok < 0) {
        json_object_put(j.paths);
        return kytos_resp_error(req, 500, "out of memory");
    }
    if (ok == 0) {
        json_object_put(j.paths);
        return kytos_resp_error(req, 400, "%s", j.err);
    }
    answer = json_object_new_object();
    json_object_object_add(answer, "paths", j.paths);
    return kytos_resp_json_take(req, 200, answer);
}
