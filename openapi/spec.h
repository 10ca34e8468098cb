/* openapi/spec.h - a loaded spec and its compiled operations (internal). */
#ifndef KYTOS_OPENAPI_SPEC_H
#define KYTOS_OPENAPI_SPEC_H

#include "schema.h"

enum koa_in { KOA_IN_PATH, KOA_IN_QUERY, KOA_IN_HEADER, KOA_IN_COOKIE };

enum koa_style {
    KOA_STYLE_SIMPLE, KOA_STYLE_FORM, KOA_STYLE_LABEL, KOA_STYLE_MATRIX,
    KOA_STYLE_SPACE, KOA_STYLE_PIPE, KOA_STYLE_DEEP
};

/* How a parameter's string is turned into a typed value. */
enum koa_cast {
    KOA_CAST_NONE, /* no type: keep the string (openapi-core does) */
    KOA_CAST_STRING, KOA_CAST_INTEGER, KOA_CAST_NUMBER, KOA_CAST_BOOLEAN,
    KOA_CAST_ARRAY, KOA_CAST_OBJECT
};

struct koa_param {
    const char *name;
    enum koa_in in;
    enum koa_style style;
    bool explode;
    bool required;
    bool allow_empty;
    bool content_json;          /* "content: application/json" form */
    enum koa_cast cast;         /* from the schema's type */
    enum koa_cast item_cast;    /* arrays: from items' type */
    struct koa_node *schema;    /* may be NULL (no schema) */
    json_object *default_value; /* schema default, borrowed; may be NULL */
    bool has_default;
};

struct koa_media {
    const char *type;           /* "application/json", a wildcard ... */
    struct koa_node *schema;    /* may be NULL */
    bool json;
};

/* One path template, split in segments for matching. */
struct koa_tmpl {
    const char *text;           /* "/api/kytos/mef_eline/v2/evc/{circuit_id}" */
    const char *canon;          /* no trailing '/', "{x:int}" -> "{x}" */
    unsigned nvars;
};

struct kytos_openapi_op {
    const struct kytos_openapi_spec *spec;
    char method[8];             /* "GET" */
    const char *method_lower;   /* "get" */
    const char *spec_path;      /* "/v2/evc/{circuit_id}" */
    const char *operation_id;
    const char *pointer;        /* "/paths/~1v2~1evc~1{circuit_id}/get" */
    json_object *src;           /* the Operation Object */
    struct koa_tmpl *tmpls;     /* one per server base path */
    size_t ntmpls;
    struct koa_param *params;
    size_t nparams;
    bool has_body, body_required;
    struct koa_media *media;
    size_t nmedia;
};

struct kytos_openapi_spec {
    struct koa_arena arena;
    json_object *doc;
    struct koa_posmap pos;
    char *origin;
    enum koa_dialect dialect;
    struct kytos_openapi_options opts;
    struct koa_vlimits vlim;
    struct kytos_openapi_op *ops;
    size_t nops;
    struct koa_regex **regexes;
    size_t nregexes;
    kytos_openapi_diags *yaml_warnings; /* ambiguous YAML scalars */
};

/* route.c */
/* Canonical form of a template (prefix may be NULL): leading '/', no
 * trailing '/' (except "/"), no "//", "{x:conv}" -> "{x}".  Caller
 * frees.  NULL on a malformed template. */
char *koa_tmpl_canon(const char *prefix, const char *tmpl);
/* Match a concrete path against a template; on success fills up to
 * maxcap captures (name, name_len, value, value_len as raw substrings)
 * and returns the number of variables (>= 0), else -1. */
struct koa_capture {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};
int koa_tmpl_match(const char *tmpl, const char *path, size_t path_len,
                   struct koa_capture *caps, size_t maxcap);

#endif
