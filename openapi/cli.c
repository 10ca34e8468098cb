/* openapi/cli.c - kytos-openapi: check a spec, or see what the host would
 * answer to a request.
 *
 *   kytos-openapi lint SPEC
 *       load and check the spec, print every problem with its location;
 *       exit 0 when clean, 1 with warnings, 2 when the spec does not load.
 *   kytos-openapi validate [-t CONTENT-TYPE] SPEC METHOD PATH [BODY.json|-]
 *       PATH is the full request path, query string included.  Prints the
 *       status the host would answer and the JSON body; exit 0 when the
 *       request reaches the handler, 1 when it is refused, 2 on a usage
 *       error or a spec that does not load. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kytos/openapi.h"

static void usage(FILE *f)
{
    fputs("usage: kytos-openapi lint SPEC\n"
          "       kytos-openapi validate [-t CONTENT-TYPE] SPEC METHOD PATH "
          "[BODY.json|-]\n"
          "\n"
          "lint      load and check SPEC (OpenAPI 3.0/3.1, YAML or JSON); print\n"
          "          problems as file:line:col; exit 0 clean, 1 warnings,\n"
          "          2 the spec does not load\n"
          "validate  print what the host answers to METHOD PATH (query string\n"
          "          included) with the body from the file (- for stdin,\n"
          "          Content-Type application/json unless -t); exit 0 when\n"
          "          the request reaches the handler, 1 when it is refused,\n"
          "          2 on a usage error or a spec that does not load\n", f);
}

static void print_diags(const kytos_openapi_diags *d)
{
    size_t i, n = kytos_openapi_diags_count(d);
    for (i = 0; i < n; i++) {
        char buf[2048];
        kytos_openapi_diag_format(kytos_openapi_diags_get(d, i), buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
    }
}

static kytos_openapi_spec *load(const char *path)
{
    kytos_openapi_diags *d = NULL;
    kytos_openapi_spec *spec = kytos_openapi_load_file(path, NULL, &d);
    print_diags(d);
    kytos_openapi_diags_free(d);
    return spec;
}

static int cmd_lint(const char *path)
{
    kytos_openapi_spec *spec = load(path);
    kytos_openapi_diags *w = NULL;
    size_t n;

    if (!spec)
        return 2;
    n = kytos_openapi_lint(spec, &w);
    print_diags(w);
    kytos_openapi_diags_free(w);
    fprintf(stderr, "%s: OpenAPI %s, %zu operation%s, %zu warning%s\n", path,
            kytos_openapi_spec_version(spec), kytos_openapi_op_count(spec),
            kytos_openapi_op_count(spec) == 1 ? "" : "s", n, n == 1 ? "" : "s");
    kytos_openapi_spec_free(spec);
    return n ? 1 : 0;
}

static char *read_body(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    char *buf = NULL;
    size_t cap = 0;

    *len = 0;
    if (!f) {
        perror(path);
        return NULL;
    }
    for (;;) {
        size_t n;
        if (*len == cap) {
            char *nb;
            if (cap >= (size_t)64 * 1024 * 1024) {
                fprintf(stderr, "%s: body larger than 64 MiB\n", path);
                free(buf);
                buf = NULL;
                break;
            }
            cap = cap ? cap * 2 : 65536;
            nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        n = fread(buf + *len, 1, cap - *len, f);
        *len += n;
        if (n == 0)
            break;
    }
    if (f != stdin)
        fclose(f);
    if (buf && *len == 0) {
        /* an empty file is an empty body, not an error */
        buf[0] = '\0';
    }
    return buf;
}

static void print_json(json_object *o)
{
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int cmd_validate(const char *ctype, const char *specpath, const char *method,
                        const char *path, const char *bodypath)
{
    kytos_openapi_spec *spec = load(specpath);
    const kytos_openapi_op *op;
    struct kytos_openapi_request req;
    struct kytos_openapi_result res;
    char *upath, *q, *body = NULL;
    size_t blen = 0;
    int rc;

    if (!spec)
        return 2;
    if (bodypath) {
        body = read_body(bodypath, &blen);
        if (!body) {
            kytos_openapi_spec_free(spec);
            return 2;
        }
    }
    upath = strdup(path);
    if (!upath) {
        free(body);
        kytos_openapi_spec_free(spec);
        return 2;
    }
    q = strchr(upath, '?');
    if (q)
        *q++ = '\0';
    op = kytos_openapi_match(spec, method, upath);
    if (!op) {
        /* the host's router answers these before any validation */
        size_t i;
        bool path_ok = false;
        for (i = 0; i < kytos_openapi_op_count(spec); i++) {
            const kytos_openapi_op *o = kytos_openapi_op_at(spec, i);
            if (kytos_openapi_match(spec, kytos_openapi_op_method(o), upath))
                path_ok = true;
        }
        if (path_ok)
            printf("405\n{\"description\":\"Operation %s not found for %s\","
                   "\"code\":405}\n", method, upath);
        else
            printf("404\n{\"description\":\"Path not found for %s\",\"code\":404}\n",
                   upath);
        free(upath);
        free(body);
        kytos_openapi_spec_free(spec);
        return 1;
    }
    memset(&req, 0, sizeof req);
    req.struct_size = sizeof req;
    req.method = method;
    req.path = upath;
    req.query = q;
    req.content_type = body ? (ctype ? ctype : "application/json") : ctype;
    req.body = body;
    req.body_len = blen;
    rc = kytos_openapi_validate(op, &req, &res);
    if (rc == 0) {
        json_object *out = json_object_new_object();
        printf("200\n");
        json_object_object_add(out, "operation",
                               json_object_new_string(kytos_openapi_op_template(op)));
        json_object_object_add(out, "params", json_object_get(res.params));
        json_object_object_add(out, "body", json_object_get(res.body));
        print_json(out);
        json_object_put(out);
    } else {
        printf("%d\n", rc);
        print_json(res.error);
    }
    kytos_openapi_result_clear(&res);
    free(upath);
    free(body);
    kytos_openapi_spec_free(spec);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *ctype = NULL;
    int i = 2;

    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "lint"))
        return cmd_lint(argv[2]);
    if (argc >= 2 && !strcmp(argv[1], "validate")) {
        if (i + 1 < argc && !strcmp(argv[i], "-t")) {
            ctype = argv[i + 1];
            i += 2;
        }
        if (argc - i == 3 || argc - i == 4)
            return cmd_validate(ctype, argv[i], argv[i + 1], argv[i + 2],
                                argc - i == 4 ? argv[i + 3] : NULL);
    }
    usage(stderr);
    return 2;
}
