/* tests/openapi/openapi_bench.c - cost of strict parsing and OpenAPI
 * validation per request (built as bench/openapi_bench; make bench).
 *
 * Two requests, each validated as the host does it (the whole
 * kytos_openapi_validate call: content type, parameters, strict parse,
 * schema), against the real specs in $TEST_DATA_DIR/napps-openapi:
 *   - mef_eline POST v2/evc/: the EVC create body scalability-scripts
 *     sends (fixture "valid_dynamic_evpl_minimal");
 *   - flow_manager POST v2/flows/{dpid}: 100 flows, as
 *     fixtures/gen_flows.py -n 100 prints them (read with --flows FILE,
 *     else generated here the same way).
 * For each: median ns per request of the strict parse alone, of parse +
 * validation, and of json-c's own json_tokener_parse for reference.
 *
 * usage: openapi_bench [--flows FILE] [--batches N] [--iters N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "kytos/openapi.h"
#include "spec.h" /* internal: the body schema node, to time validation alone */

static char shared[4096];

/* CPU time of this thread: other processes on a shared machine do not
 * count against us. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum what { PARSE, SCHEMA, VALIDATE, JSONC };

struct req {
    const char *name;
    const kytos_openapi_op *op;
    const char *path;
    const char *const *pp;
    size_t npp;
    char *body;
    size_t len;
    json_object *parsed;      /* for SCHEMA: the body, parsed once */
};

static volatile size_t sink;

static void once(const struct req *r, enum what w)
{
    if (w == PARSE) {
        json_object *o = NULL;
        char err[128];
        if (kytos_openapi_json_parse(r->body, r->len, NULL, &o, err, sizeof err) != 0) {
            fprintf(stderr, "%s: parse failed: %s\n", r->name, err);
            exit(2);
        }
        sink += (size_t)json_object_get_type(o);
        json_object_put(o);
    } else if (w == SCHEMA) {
        /* the schema check alone, on the already parsed body */
        const struct koa_node *n = r->op->media[0].schema;
        if (!koa_validate(n, r->parsed, &r->op->spec->vlim, NULL)) {
            fprintf(stderr, "%s: schema refuses the body\n", r->name);
            exit(2);
        }
        sink++;
    } else if (w == VALIDATE) {
        struct kytos_openapi_request rq;
        struct kytos_openapi_result res;
        memset(&rq, 0, sizeof rq);
        rq.struct_size = sizeof rq;
        rq.method = "POST";
        rq.path = r->path;
        rq.path_params = r->pp;
        rq.n_path_params = r->npp;
        rq.content_type = "application/json";
        rq.body = r->body;
        rq.body_len = r->len;
        if (kytos_openapi_validate(r->op, &rq, &res) != 0) {
            fprintf(stderr, "%s: refused: %s\n", r->name,
                    json_object_to_json_string(res.error));
            exit(2);
        }
        sink += (size_t)json_object_get_type(res.body);
        kytos_openapi_result_clear(&res);
    } else {
        json_object *o = json_tokener_parse(r->body);
        sink += (size_t)json_object_get_type(o);
        json_object_put(o);
    }
}

/* median over batches of the mean time of one call in a batch */
static double measure(const struct req *r, enum what w, int batches, int iters)
{
    double *t = malloc((size_t)batches * sizeof *t), med;
    int b, i;
    for (i = 0; i < iters; i++) /* warm up */
        once(r, w);
    for (b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (i = 0; i < iters; i++)
            once(r, w);
        t[b] = (now_ns() - t0) / iters;
    }
    qsort(t, (size_t)batches, sizeof *t, cmp_d);
    med = t[batches / 2];
    free(t);
    return med;
}

static kytos_openapi_spec *load(const char *name)
{
    char path[4200];
    kytos_openapi_diags *d = NULL;
    kytos_openapi_spec *s;
    snprintf(path, sizeof path, "%s/napps-openapi/%s.openapi.yml", shared, name);
    s = kytos_openapi_load_file(path, NULL, &d);
    if (!s) {
        char buf[1024] = "";
        if (kytos_openapi_diags_count(d))
            kytos_openapi_diag_format(kytos_openapi_diags_get(d, 0), buf, sizeof buf);
        fprintf(stderr, "openapi_bench: cannot load %s: %s\n", path, buf);
        exit(2);
    }
    kytos_openapi_diags_free(d);
    return s;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            n--;
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

/* gen_flows.py --style port -n n: pairs in_port 1 -> 2 and 2 -> 1,
 * priority 1.., cookie 0xBB00000000000000 + priority, compact JSON. */
static char *gen_flows(int n, size_t *len)
{
    char *p = NULL;
    size_t sz = 0;
    FILE *f = open_memstream(&p, &sz);
    int i;
    fputs("{\"flows\":[", f);
    for (i = 0; i < n; i++) {
        int prio = 1 + i / 2, a = i % 2 ? 2 : 1, z = i % 2 ? 1 : 2;
        fprintf(f, "%s{\"priority\":%d,\"cookie\":%llu,\"match\":{\"in_port\":%d},"
                "\"actions\":[{\"action_type\":\"output\",\"port\":%d}]}",
                i ? "," : "", prio, 0xBB00000000000000ull + (unsigned long long)prio, a, z);
    }
    fputs("]}", f);
    fclose(f);
    *len = sz;
    return p;
}

/* The EVC body as Python's json.dumps writes it (", " and ": "). */
static char *evc_body(size_t *len)
{
    char path[4200];
    json_object *cases, *body = NULL;
    size_t i;
    const char *text;
    char *out;

    snprintf(path, sizeof path, "%s/fixtures/mef_eline_evc_cases.json", shared);
    cases = json_object_from_file(path);
    for (i = 0; cases && i < json_object_array_length(cases); i++) {
        json_object *c = json_object_array_get_idx(cases, i);
        if (!strcmp(json_object_get_string(json_object_object_get(c, "name")),
                    "valid_dynamic_evpl_minimal"))
            body = json_object_object_get(c, "body");
    }
    if (!body) {
        fprintf(stderr, "openapi_bench: no valid_dynamic_evpl_minimal in %s\n", path);
        exit(2);
    }
    text = json_object_to_json_string_ext(body, JSON_C_TO_STRING_SPACED |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
    out = strdup(text);
    *len = strlen(out);
    json_object_put(cases);
    return out;
}

int main(int argc, char **argv)
{
    const char *flows_file = NULL, *env = getenv("TEST_DATA_DIR");
    int batches = 31, iters = 2000, i;
    kytos_openapi_spec *mef, *fm;
    static const char *const dpid[2] = { "dpid", "00:00:00:00:00:00:00:01" };
    struct req reqs[2];

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--flows") && i + 1 < argc)
            flows_file = argv[++i];
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: openapi_bench [--flows FILE] [--batches N] [--iters N]\n");
            return 2;
        }
    }
    if (batches < 1)
        batches = 1;
    if (iters < 1)
        iters = 1;
    snprintf(shared, sizeof shared, "%s", env ? env : "tests/data");
    mef = load("mef_eline");
    fm = load("flow_manager");

    memset(reqs, 0, sizeof reqs);
    reqs[0].name = "mef_eline POST v2/evc/ (EVC create)";
    reqs[0].op = kytos_openapi_find(mef, "POST", "/api/kytos/mef_eline/", "v2/evc/");
    reqs[0].path = "/api/kytos/mef_eline/v2/evc/";
    reqs[0].body = evc_body(&reqs[0].len);
    reqs[1].name = "flow_manager POST v2/flows/{dpid} (100 flows)";
    reqs[1].op = kytos_openapi_find(fm, "POST", "/api/kytos/flow_manager/", "v2/flows/{dpid}");
    reqs[1].pp = dpid;
    reqs[1].npp = 1;
    reqs[1].body = flows_file ? slurp(flows_file, &reqs[1].len) : gen_flows(100, &reqs[1].len);
    if (!reqs[0].op || !reqs[1].op || !reqs[1].body) {
        fprintf(stderr, "openapi_bench: operation or flows body not found\n");
        return 2;
    }
    for (i = 0; i < 2; i++) {
        int it = i == 0 ? iters : (iters / 20 > 0 ? iters / 20 : 1);
        char err[128];
        double p, sc, v, j;
        if (kytos_openapi_json_parse(reqs[i].body, reqs[i].len, NULL, &reqs[i].parsed, err,
                                     sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", reqs[i].name, err);
            return 2;
        }
        p = measure(&reqs[i], PARSE, batches, it);
        sc = measure(&reqs[i], SCHEMA, batches, it);
        v = measure(&reqs[i], VALIDATE, batches, it);
        j = measure(&reqs[i], JSONC, batches, it);
        printf("%s, %zu bytes (median CPU ns per request):\n"
               "  strict parse                 %9.0f ns\n"
               "  schema validation alone      %9.0f ns\n"
               "  whole kytos_openapi_validate %9.0f ns (checks + parse + schema)\n"
               "  json-c json_tokener_parse    %9.0f ns (reference)\n",
               reqs[i].name, reqs[i].len, p, sc, v, j);
        json_object_put(reqs[i].parsed);
    }
    for (i = 0; i < 2; i++)
        free(reqs[i].body);
    kytos_openapi_spec_free(mef);
    kytos_openapi_spec_free(fm);
    return 0;
}
