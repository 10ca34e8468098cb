/* kytos/openapi.h - OpenAPI 3.0/3.1 loader and request validator
 * (libkytos-openapi).
 *
 * The library is independent of the host: it loads a spec (YAML or JSON
 * text), checks it, compiles every operation once, and then validates HTTP
 * requests against it, answering exactly what Kytos-ng would answer
 * (400 {"description", "code"} with Kytos' wording) plus an "errors" array
 * that lists every problem with a JSON pointer.
 *
 * Ownership: inputs are borrowed.  Objects returned through an out
 * parameter belong to the caller (free them with the matching *_free or
 * json_object_put).  Pointers returned directly (const) belong to the
 * object they came from and live as long as it does.
 *
 * Threads: a loaded spec is read-only.  Any number of threads may call
 * kytos_openapi_validate() and the lookup functions on the same spec at
 * once.  kytos_openapi_spec_free() must not race with them.
 */
#ifndef KYTOS_OPENAPI_H
#define KYTOS_OPENAPI_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json_object.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Options and limits                                                  */
/* ------------------------------------------------------------------ */

/* Format assertion policy (the "format" keyword). */
enum kytos_openapi_formats {
    /* OAS 3.0: asserted (as Kytos' openapi-core does); OAS 3.1: annotation
     * only, as JSON Schema 2020-12 and OAS 3.1 specify. */
    KYTOS_OPENAPI_FORMATS_DEFAULT = 0,
    KYTOS_OPENAPI_FORMATS_ASSERT = 1, /* always asserted */
    KYTOS_OPENAPI_FORMATS_IGNORE = 2  /* never asserted */
};

/* Every field may be left 0 to take its default (shown in brackets).
 * Set struct_size = sizeof(struct kytos_openapi_options); fields past
 * struct_size are taken as 0, so older callers keep working. */
struct kytos_openapi_options {
    uint32_t struct_size;
    size_t max_body_bytes;       /* request body [1 MiB]; more gives 413 */
    unsigned max_depth;          /* JSON nesting [64], at most 1000 */
    size_t max_string_bytes;     /* one JSON string or key [1 MiB] */
    size_t max_values;           /* values in one JSON document [1000000] */
    unsigned max_errors;         /* errors collected per request [32] */
    unsigned max_params;         /* query parameters per request [100] */
    size_t max_param_bytes;      /* one decoded query value [8 KiB] */
    unsigned max_eval_depth;     /* schema x instance recursion [128], at most 1000 */
    uint32_t regex_match_limit;  /* PCRE2 match limit [1000000] */
    uint32_t regex_depth_limit;  /* PCRE2 depth limit [10000] */
    size_t max_spec_bytes;       /* spec text [16 MiB] */
    size_t max_spec_nodes;       /* YAML nodes after alias expansion [1000000] */
    enum kytos_openapi_formats formats;
    unsigned flags;              /* KYTOS_OPENAPI_F_* */
};

/* Accept integers outside int64..uint64 as doubles instead of refusing
 * them (the JSON-Schema suite's bignum tests need it; requests do not). */
#define KYTOS_OPENAPI_F_BIGNUM_AS_DOUBLE 0x1u
/* Accept the draft-04 container/annotation keywords "definitions",
 * "$schema" and "$comment" in OAS 3.0 schemas (for the JSON-Schema test
 * suite); any other unknown keyword is still refused. */
#define KYTOS_OPENAPI_F_LENIENT 0x2u

/* ------------------------------------------------------------------ */
/* Diagnostics                                                         */
/* ------------------------------------------------------------------ */

enum kytos_openapi_severity {
    KYTOS_OPENAPI_ERROR = 0,
    KYTOS_OPENAPI_WARNING = 1
};

struct kytos_openapi_diag {
    enum kytos_openapi_severity severity;
    const char *origin;   /* the origin name given at load */
    unsigned line;        /* 1-based; 0 when unknown */
    unsigned column;      /* 1-based; 0 when unknown */
    const char *pointer;  /* JSON pointer into the document ("" = root) */
    const char *message;
};

typedef struct kytos_openapi_diags kytos_openapi_diags;

size_t kytos_openapi_diags_count(const kytos_openapi_diags *d);
const struct kytos_openapi_diag *
kytos_openapi_diags_get(const kytos_openapi_diags *d, size_t i);
/* "origin:line:col: error: message [at /json/pointer]" into buf;
 * returns the length it needed (snprintf rules). */
int kytos_openapi_diag_format(const struct kytos_openapi_diag *diag,
                              char *buf, size_t size);
void kytos_openapi_diags_free(kytos_openapi_diags *d);

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

typedef struct kytos_openapi_spec kytos_openapi_spec;
typedef struct kytos_openapi_op kytos_openapi_op;

/* Load a spec from text (YAML 1.1 as PyYAML reads it, or JSON), check it
 * and compile it.  origin names the text in messages (a file name).
 * opts may be NULL.  Returns NULL on failure; when diags is not NULL it
 * receives the list of problems (also on success, possibly empty), which
 * the caller frees. */
kytos_openapi_spec *kytos_openapi_load(const char *text, size_t len,
                                       const char *origin,
                                       const struct kytos_openapi_options *opts,
                                       kytos_openapi_diags **diags);
/* Same, reading the file at path (origin = path). */
kytos_openapi_spec *kytos_openapi_load_file(const char *path,
                                            const struct kytos_openapi_options *opts,
                                            kytos_openapi_diags **diags);
void kytos_openapi_spec_free(kytos_openapi_spec *spec);

/* "3.0" or "3.1" (the dialect in use). */
const char *kytos_openapi_spec_version(const kytos_openapi_spec *spec);

/* Further checks (warnings) for authors: unused components, examples and
 * defaults that do not match their schema, ambiguous YAML scalars, ...
 * Returns the number of findings; *out receives them (caller frees).
 * Safe to run while other threads validate requests on the same spec. */
size_t kytos_openapi_lint(const kytos_openapi_spec *spec,
                          kytos_openapi_diags **out);

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

/* Find the operation for a route as the host registers it: method
 * ("GET", any case) and a path template, optionally split into a mount
 * prefix ("/api/kytos/mef_eline/") and the part the NApp registered
 * ("v2/evc/{circuit_id}").  prefix may be NULL.  The spec side is
 * server-url path + spec path.  Both trailing-slash forms match;
 * variables match by position and name ("{x:int}" counts as "{x}").
 * Returns NULL when the spec has no such operation. */
const kytos_openapi_op *kytos_openapi_find(const kytos_openapi_spec *spec,
                                           const char *method,
                                           const char *prefix,
                                           const char *path_template);
const kytos_openapi_op *kytos_openapi_find_id(const kytos_openapi_spec *spec,
                                              const char *operation_id);
/* Match a concrete request path (no query string) as openapi-core does:
 * literal paths win over templates.  Returns NULL when nothing matches. */
const kytos_openapi_op *kytos_openapi_match(const kytos_openapi_spec *spec,
                                            const char *method,
                                            const char *path);

size_t kytos_openapi_op_count(const kytos_openapi_spec *spec);
const kytos_openapi_op *kytos_openapi_op_at(const kytos_openapi_spec *spec,
                                            size_t i);
const char *kytos_openapi_op_method(const kytos_openapi_op *op); /* "GET" */
/* Full template: first server path + spec path, e.g.
 * "/api/kytos/mef_eline/v2/evc/{circuit_id}". */
const char *kytos_openapi_op_template(const kytos_openapi_op *op);
const char *kytos_openapi_op_id(const kytos_openapi_op *op); /* or NULL */

/* ------------------------------------------------------------------ */
/* Request validation                                                  */
/* ------------------------------------------------------------------ */

/* One request.  Set struct_size = sizeof(struct kytos_openapi_request);
 * fields past it are taken as 0.  All pointers are borrowed. */
struct kytos_openapi_request {
    uint32_t struct_size;
    const char *method;        /* for messages; may be NULL */
    const char *path;          /* request path, no query; may be NULL when
                                  path_params is given */
    /* Path parameters already decoded by the host's router, as
     * n_path_params pairs laid out {name0, value0, name1, value1, ...}.
     * When path_params is NULL they are taken from path. */
    const char *const *path_params;
    size_t n_path_params;
    const char *query;         /* raw query string without '?', or NULL */
    const char *content_type;  /* Content-Type header value, or NULL */
    const void *body;          /* raw body bytes, or NULL */
    size_t body_len;
    /* Optional header lookup for "in: header" parameters (case-insensitive
     * name); NULL means no header parameter is ever present. */
    const char *(*get_header)(void *ctx, const char *name);
    void *header_ctx;
};

struct kytos_openapi_result {
    int status;           /* 0 = the request reaches the handler;
                             400, 413 or 415 otherwise */
    json_object *body;    /* status 0: the body, strictly parsed when it is
                             JSON (a string for a text media type the spec
                             declares); NULL when empty or the JSON "null" */
    json_object *params;  /* status 0: an object {name: typed value} of the
                             path, query and header parameters present or
                             defaulted (a path name wins over a query name) */
    json_object *error;   /* status != 0: {"description", "code", "errors"};
                             errors: [{"in", "name"?, "pointer", "message"}] */
};

/* Validate one request, in Kytos' order: body size (413), Content-Type of
 * a non-empty body (415, "Expected Content-Type: application/json, got:
 * ..."), path/query/header parameters (required, cast to the declared
 * type, schema), then the body (required, media type, strict JSON,
 * schema; readOnly properties refused).  The description is the one Kytos
 * gives for the first problem ("Missing required request body", "The
 * request body contains invalid API data., <message> for field <a/b>.",
 * ...); "errors" lists every problem.  An operation without requestBody
 * still gets a non-empty JSON body strictly parsed.  Cookie parameters are
 * not checked (the request carries no cookies).
 * Fills *res (all owned by the caller; release with
 * kytos_openapi_result_clear) and returns res->status. */
int kytos_openapi_validate(const kytos_openapi_op *op,
                           const struct kytos_openapi_request *req,
                           struct kytos_openapi_result *res);
void kytos_openapi_result_clear(struct kytos_openapi_result *res);

/* ------------------------------------------------------------------ */
/* Strict JSON reader                                                  */
/* ------------------------------------------------------------------ */

/* Parse bytes as one RFC 8259 JSON text, strictly: no NaN/Infinity, no
 * single quotes, comments, trailing commas or garbage, no raw control
 * characters, valid UTF-8 only, integers exact up to 2^64-1 (and down to
 * -2^63), limits from opts (may be NULL).  Returns 0 and *out (NULL for
 * the JSON text "null"), or -1 with a message in errbuf in Python's json
 * style, e.g. "Expecting value: line 1 column 1 (char 0)". */
int kytos_openapi_json_parse(const void *bytes, size_t len,
                             const struct kytos_openapi_options *opts,
                             json_object **out, char *errbuf, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
