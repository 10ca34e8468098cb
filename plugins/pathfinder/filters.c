/* plugins/pathfinder/filters.c - Kytos' edge filters (pathfinder
 * graph/graph.py _filter_functions, graph/filters.py), value for value:
 *   bandwidth, reliability:           link >= request
 *   priority, utilization, delay:     link <= request
 *   ownership:      request in the link's set
 *   not_ownership:  request set (list, or string split on ',') and the
 *                   link's set share nothing
 * The link's ownership set: a string split on whitespace, an object's keys,
 * a list's items.  A link without the key (or with null) passes: Kytos
 * compares the request value with itself.  A value Python cannot compare
 * is its TypeError, worded as Python words it (the answer is a 400). */
#include "pf.h"
#include "../topology/pyfloat.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define PF_NOT_OWNERSHIP PF_N_ATTR

int pf_metric_index(const char *name)
{
    static const char *const names[] = {"bandwidth", "reliability", "priority", "utilization",
                                        "delay", "ownership", "not_ownership"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

const char *pf_pytype(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "NoneType";
    case json_type_boolean: return "bool";
    case json_type_int: return "int";
    case json_type_double: return "float";
    case json_type_string: return "str";
    case json_type_array: return "list";
    default: return "dict";
    }
}

void pf_pyrepr(struct json_object *v, char *buf, size_t cap)
{
    char f[TOPO_PYFLOAT_MAX];

    switch (json_object_get_type(v)) {
    case json_type_null:
        snprintf(buf, cap, "None");
        break;
    case json_type_boolean:
        snprintf(buf, cap, "%s", json_object_get_boolean(v) ? "True" : "False");
        break;
    case json_type_int:
        snprintf(buf, cap, "%lld", (long long)json_object_get_int64(v));
        break;
    case json_type_double:
        topo_pyfloat(json_object_get_double(v), f);
        snprintf(buf, cap, "%s", f);
        break;
    case json_type_string:
        snprintf(buf, cap, "'%.200s'", json_object_get_string(v));
        break;
    default:  /* lists and dicts: JSON text, close to Python's repr */
        snprintf(buf, cap, "%.200s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_SPACED));
        break;
    }
}

static bool is_number(struct json_object *v)
{
    return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double) ||
           json_object_is_type(v, json_type_boolean);
}

/* Does the link's ownership set contain s? */
static bool owns(struct json_object *own, const char *s)
{
    if (json_object_is_type(own, json_type_string)) {
        const char *p = json_object_get_string(own);
        size_t n = strlen(s);
        while (*p) {
            const char *q;
            while (*p && isspace((unsigned char)*p))
                p++;
            q = p;
            while (*q && !isspace((unsigned char)*q))
                q++;
            if (q > p && (size_t)(q - p) == n && memcmp(p, s, n) == 0)
                return true;
            p = q;
        }
        return false;
    }
    if (json_object_is_type(own, json_type_object))
        return json_object_object_get_ex(own, s, NULL);
    for (size_t i = 0; i < json_object_array_length(own); i++) {
        struct json_object *it = json_object_array_get_idx(own, i);
        if (json_object_is_type(it, json_type_string) && strcmp(json_object_get_string(it), s) == 0)
            return true;
    }
    return false;
}

/* The ownership processor's TypeError; false when the value is usable. */
static bool bad_ownership(const struct pf_graph *g, const struct pf_link *l, struct json_object *own,
                          char *err, size_t errlen)
{
    char r[256];

    (void)g;
    if (json_object_is_type(own, json_type_string) || json_object_is_type(own, json_type_object))
        return false;
    if (json_object_is_type(own, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(own); i++) {
            struct json_object *it = json_object_array_get_idx(own, i);
            if (json_object_is_type(it, json_type_array) || json_object_is_type(it, json_type_object)) {
                pf_pyrepr(own, r, sizeof r);
                snprintf(err, errlen, "(%s, %s) has invalid metadata \"ownership\" with value %s: "
                         "unhashable type: '%s'", l->a, l->b, r, pf_pytype(it));
                return true;
            }
        }
        return false;
    }
    pf_pyrepr(own, r, sizeof r);
    snprintf(err, errlen, "(%s, %s) has invalid metadata \"ownership\" with value %s: Expected types: "
             "[<class 'str'>, <class 'dict'>, <class 'list'>, <class 'NoneType'>]", l->a, l->b, r);
    return true;
}

enum pf_verdict pf_filter_edge(const struct pf_graph *g, int edge, int metric,
                               struct json_object *value, char *err, size_t errlen)
{
    const struct pf_edge *x = &g->edges[edge];
    const struct pf_link *l;
    struct json_object *lv;
    bool present;

    if (x->link < 0)
        return PF_PASS;          /* switch-interface edges carry no metadata */
    l = &g->links[x->link];
    if (metric == PF_OWNERSHIP || metric == PF_NOT_OWNERSHIP) {
        lv = l->md[PF_OWNERSHIP];
        present = l->has[PF_OWNERSHIP] && lv != NULL;
        if (present && bad_ownership(g, l, lv, err, errlen))
            return PF_ERROR;
        if (metric == PF_OWNERSHIP) {
            /* absent: Python's "v in v", a substring test, true */
            return !present || owns(lv, json_object_get_string(value)) ? PF_PASS : PF_FAIL;
        }
        if (!present)
            return PF_PASS;
        if (json_object_is_type(value, json_type_string)) {
            char part[256];
            const char *p = json_object_get_string(value);
            for (;;) {
                const char *c = strchr(p, ',');
                size_t n = c ? (size_t)(c - p) : strlen(p);
                snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
                if (owns(lv, part))
                    return PF_FAIL;
                if (!c)
                    break;
                p = c + 1;
            }
            return PF_PASS;
        }
        for (size_t i = 0; i < json_object_array_length(value); i++) {
            struct json_object *it = json_object_array_get_idx(value, i);
            if (json_object_is_type(it, json_type_string) && owns(lv, json_object_get_string(it)))
                return PF_FAIL;
        }
        return PF_PASS;
    }
    lv = l->md[metric];
    if (!l->has[metric] || lv == NULL)
        return PF_PASS;
    {
        bool ge = metric == PF_BANDWIDTH || metric == PF_RELIABILITY;
        double a, b = json_object_get_double(value);
        if (!is_number(lv)) {
            snprintf(err, errlen, "'%s' not supported between instances of '%s' and '%s'",
                     ge ? ">=" : "<=", pf_pytype(lv), pf_pytype(value));
            return PF_ERROR;
        }
        if (json_object_is_type(lv, json_type_int) && json_object_is_type(value, json_type_int)) {
            int64_t ai = json_object_get_int64(lv), bi = json_object_get_int64(value);
            return (ge ? ai >= bi : ai <= bi) ? PF_PASS : PF_FAIL;
        }
        a = json_object_is_type(lv, json_type_boolean) ? (double)json_object_get_boolean(lv)
                                                        : json_object_get_double(lv);
        return (ge ? a >= b : a <= b) ? PF_PASS : PF_FAIL;
    }
}
