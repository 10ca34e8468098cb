/* openapi/schema.h - compiled schema nodes, the compiler and the
 * validator (internal to libkytos-openapi). */
#ifndef KYTOS_OPENAPI_SCHEMA_H
#define KYTOS_OPENAPI_SCHEMA_H

#include "internal.h"

enum koa_dialect { KOA_OAS30 = 30, KOA_OAS31 = 31 };

/* type bits */
enum {
    KOA_T_NULL = 1 << 0,
    KOA_T_BOOLEAN = 1 << 1,
    KOA_T_INTEGER = 1 << 2,
    KOA_T_NUMBER = 1 << 3,
    KOA_T_STRING = 1 << 4,
    KOA_T_ARRAY = 1 << 5,
    KOA_T_OBJECT = 1 << 6
};

/* Keywords with a validation effect, in the order the schema lists them
 * (errors come out in that order, as jsonschema reports them). */
enum koa_kw {
    KW_FALSE, /* boolean schema false (or a node that always fails) */
    KW_TYPE, KW_ENUM, KW_CONST,
    KW_MULTIPLE_OF, KW_MAXIMUM, KW_EXCL_MAXIMUM, KW_MINIMUM, KW_EXCL_MINIMUM,
    KW_MAX_LENGTH, KW_MIN_LENGTH, KW_PATTERN, KW_FORMAT,
    KW_ITEMS, KW_PREFIX_ITEMS, KW_CONTAINS, KW_MAX_ITEMS, KW_MIN_ITEMS,
    KW_UNIQUE_ITEMS,
    KW_PROPERTIES, KW_PATTERN_PROPERTIES, KW_ADDITIONAL_PROPERTIES,
    KW_REQUIRED, KW_MAX_PROPERTIES, KW_MIN_PROPERTIES, KW_PROPERTY_NAMES,
    KW_DEPENDENT_REQUIRED, KW_DEPENDENT_SCHEMAS,
    KW_ALL_OF, KW_ANY_OF, KW_ONE_OF, KW_NOT, KW_IF,
    KW_REF, KW_READ_ONLY
};

struct koa_node;

struct koa_prop {
    const char *name;
    size_t len;
    struct koa_node *node;
};

struct koa_pprop {
    struct koa_regex *re;
    struct koa_node *node;
};

struct koa_dep_req {
    const char *name;
    const char **req;
    size_t nreq;
};

struct koa_disc_map {
    const char *value;      /* discriminator value */
    const char *ref;        /* "#/components/schemas/Dog" */
    struct koa_node *node;  /* NULL: the reference does not resolve */
    bool implicit;          /* from #/components/schemas/<value> */
};

struct koa_disc {
    const char *property;
    struct koa_disc_map *map; /* sorted by value */
    size_t nmap;
};

struct koa_node {
    uint8_t *kws;
    unsigned nkws;
    const char *ptr;     /* schema location, "#/components/schemas/X" */
    json_object *src;    /* the schema as written (for messages) */

    unsigned types;      /* KOA_T_* mask (KW_TYPE) */
    const char **type_names; /* as written, for messages */
    unsigned ntype_names;
    bool nullable;       /* OAS 3.0 */
    bool read_only, write_only;

    struct koa_num maximum, minimum, excl_maximum, excl_minimum, multiple_of;
    bool max_exclusive_bool, min_exclusive_bool; /* OAS 3.0 booleans */

    int64_t max_length, min_length;      /* -1: absent */
    int64_t max_items, min_items;
    int64_t max_props, min_props;
    int64_t max_contains, min_contains;  /* -1: absent */

    struct koa_regex *pattern;
    enum koa_format format;
    const char *format_name;

    struct koa_node *items;
    struct koa_node **prefix;
    size_t nprefix;
    struct koa_node *contains;

    struct koa_prop *props;    /* schema order */
    size_t nprops;
    uint32_t *props_sorted;    /* indexes into props, sorted by name */
    struct koa_pprop *pprops;
    size_t npprops;
    struct koa_node *additional; /* NULL: anything */
    const char **required;
    size_t nrequired;
    struct koa_node *property_names;
    struct koa_dep_req *dep_req;
    size_t ndep_req;
    struct koa_prop *dep_schemas;
    size_t ndep_schemas;

    json_object *enum_values; /* borrowed from the document */
    json_object *const_value;
    bool has_const;

    struct koa_node **all_of, **any_of, **one_of;
    size_t nall_of, nany_of, none_of;
    struct koa_node *not_, *if_, *then_, *else_;
    struct koa_node *ref;
    struct koa_disc *disc;

    /* compile bookkeeping */
    unsigned char mark;
};

/* The compiler: one per document. */
struct koa_compiler {
    struct koa_arena *arena;
    json_object *root;
    enum koa_dialect dialect;
    unsigned flags;              /* KYTOS_OPENAPI_F_* */
    kytos_openapi_diags *diags;
    const struct koa_posmap *pos;
    /* memo: schema json_object -> node */
    struct { json_object *key; struct koa_node *node; } *memo;
    size_t nmemo, capmemo;
    /* every compiled regex, freed with the spec */
    struct koa_regex **regexes;
    size_t nregexes, capregexes;
    /* every node, for the cycle check */
    struct koa_node **nodes;
    size_t nnodes, capnodes;
    unsigned depth;
    bool failed;
};

void koa_compiler_init(struct koa_compiler *c, struct koa_arena *a,
                       json_object *root, enum koa_dialect d, unsigned flags,
                       kytos_openapi_diags *diags, const struct koa_posmap *pos);
/* Compile the schema at schema (located at pointer, "#/..."), resolving
 * local $refs against the compiler's root.  NULL on error (diagnostics
 * added).  Nodes live in the arena. */
struct koa_node *koa_compile(struct koa_compiler *c, json_object *schema,
                             const char *pointer);
/* After all compiles: refuse schemas that would recurse forever without
 * consuming the instance ({$ref: A} chains, allOf: [{$ref: self}]). */
bool koa_compiler_check_cycles(struct koa_compiler *c);
/* Free the compiler's tables; regexes move to *regexes (caller frees). */
void koa_compiler_done(struct koa_compiler *c, struct koa_regex ***regexes,
                       size_t *nregexes);
/* Report a problem at a document location (JSON pointer "#/..." or "/");
 * at is the json_object or the object key string it concerns, for the
 * line and column. */
void koa_compiler_error(struct koa_compiler *c, const void *at,
                        const char *pointer, const char *fmt, ...)
    KOA_PRINTF(4, 5);

/* ---- validation -------------------------------------------------- */

struct koa_verr {
    char *pointer;   /* instance location, RFC 6901 ("" = root) */
    char *field;     /* Kytos' form: "a/0/b" */
    char *message;   /* jsonschema wording */
    const char *keyword;
    const char *schema_ptr;
    /* the member names it is about, for "required" (the missing one) and
     * "additionalProperties" (the unexpected ones); the pointer is then
     * the object's */
    char **members;
    size_t nmembers;
};

struct koa_vlimits {
    unsigned max_errors;
    unsigned max_eval_depth;
    uint32_t regex_match_limit, regex_depth_limit;
    bool formats;         /* assert formats */
    bool dialect31;
    bool write;           /* request side: readOnly rejected */
};

struct koa_verrs {
    struct koa_verr *v;
    size_t n, cap;
    bool truncated;
};

/* Validate inst against node, appending errors to errs (may be NULL to
 * only get the verdict).  base_ptr / base_field prefix the instance
 * locations (NULL: root).  Returns true when valid. */
bool koa_validate(const struct koa_node *node, json_object *inst,
                  const struct koa_vlimits *lim, struct koa_verrs *errs);
void koa_verrs_free(struct koa_verrs *e);

#endif
