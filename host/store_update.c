/* host/store_update.c - $set / $unset / $setOnInsert on dotted paths, with
 * MongoDB's rules: missing objects on the way are created, arrays are
 * entered by numeric index (padded with null), a scalar on the way is an
 * error, two paths that overlap are an error, _id cannot change. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store_doc.h"
#include "store_impl.h"

#define KH_UPDATE_MAX_PATHS 1000
#define KH_ARRAY_PAD_MAX 100000

static int op_kind(const char *op)
{
    if (!strcmp(op, "$set"))
        return 1;
    if (!strcmp(op, "$unset"))
        return 2;
    if (!strcmp(op, "$setOnInsert"))
        return 3;
    return 0;
}

/* Paths kept on the stack for the conflict checks: most updates have few. */
#define KH_UPDATE_STACK_PATHS 8

int kh_update_check(struct json_object *update, struct kytos_error *err)
{
    struct kh_path stack[KH_UPDATE_STACK_PATHS], *paths = stack;
    size_t n = 0, total = 0;
    int rc = 0;

    if (!json_object_is_type(update, json_type_object))
        return kh_store_err(err, KYTOS_EFILTER, "update must be a JSON object");
    if (json_object_object_length(update) == 0)
        return kh_store_err(err, KYTOS_EFILTER, "update is empty (use $set, $unset or $setOnInsert)");
    json_object_object_foreach(update, op0, fields0) {
        (void)op0;
        if (json_object_is_type(fields0, json_type_object))
            total += (size_t)json_object_object_length(fields0);
    }
    if (total > KH_UPDATE_STACK_PATHS &&
        !(paths = malloc(sizeof(*paths) * (total < KH_UPDATE_MAX_PATHS ? total : KH_UPDATE_MAX_PATHS))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    json_object_object_foreach(update, op, fields) {
        int kind = op_kind(op);
        if (!kind) {
            rc = kh_store_err(err, KYTOS_EFILTER,
                              "unknown update operator '%.60s' (use $set, $unset or $setOnInsert)",
                              op);
            goto out;
        }
        if (!json_object_is_type(fields, json_type_object)) {
            rc = kh_store_err(err, KYTOS_EFILTER, "%s needs an object of field: value", op);
            goto out;
        }
        json_object_object_foreach(fields, key, val) {
            if (n == KH_UPDATE_MAX_PATHS) {
                rc = kh_store_err(err, KYTOS_EFILTER, "update has more than %d fields",
                                  KH_UPDATE_MAX_PATHS);
                goto out;
            }
            if ((rc = kh_path_parse(&paths[n], key, op, err)) < 0)
                goto out;
            if (!strcmp(paths[n].seg[0], "_id")) {
                rc = kh_store_err(err, KYTOS_EINVAL, "%s: the _id field cannot be changed", op);
                goto out;
            }
            if (kind != 2 && (rc = kh_value_check(val, paths[n].n, op, err)) < 0)
                goto out;
            for (size_t k = 0; k < n; k++) {
                if (kh_path_conflict(&paths[k], &paths[n])) {
                    rc = kh_store_err(err, KYTOS_EFILTER,
                                      "updating the path '%.100s' would conflict with '%.100s'",
                                      paths[n].text, paths[k].text);
                    goto out;
                }
            }
            n++;
        }
    }
out:
    if (paths != stack)
        free(paths);
    return rc;
}

/* The container that holds the last segment, creating objects on the way. */
static int walk_create(struct json_object *doc, const struct kh_path *p, struct json_object **parent,
                       struct kytos_error *err)
{
    struct json_object *cur = doc;

    for (int k = 0; k < p->n - 1; k++) {
        struct json_object *child = NULL;
        size_t idx;
        if (json_object_is_type(cur, json_type_object)) {
            if (!json_object_object_get_ex(cur, p->seg[k], &child)) {
                if (!(child = json_object_new_object()) ||
                    json_object_object_add(cur, p->seg[k], child) < 0)
                    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            }
        } else if (json_object_is_type(cur, json_type_array)) {
            if (!kh_seg_index(p->seg[k], &idx) || idx > KH_ARRAY_PAD_MAX)
                return kh_store_err(err, KYTOS_EFILTER,
                                    "cannot use the part '%.60s' of '%.100s' to index an array",
                                    p->seg[k], p->text);
            if (idx < json_object_array_length(cur))
                child = json_object_array_get_idx(cur, idx);
            if (!child && idx >= json_object_array_length(cur)) {
                if (!(child = json_object_new_object()) ||
                    json_object_array_put_idx(cur, idx, child) < 0)
                    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            }
        }
        if (!child || !(json_object_is_type(child, json_type_object) ||
                        json_object_is_type(child, json_type_array)))
            return kh_store_err(err, KYTOS_EFILTER,
                                "cannot create field '%.60s' of '%.100s': '%.60s' is not an object",
                                p->seg[k + 1], p->text, p->seg[k]);
        cur = child;
    }
    *parent = cur;
    return 0;
}

static int set_path(struct json_object *doc, const struct kh_path *p, struct json_object *val,
                    struct kytos_error *err)
{
    struct json_object *parent = NULL, *copy = NULL;
    const char *last = p->seg[p->n - 1];
    size_t idx;
    int rc;

    if ((rc = walk_create(doc, p, &parent, err)) < 0)
        return rc;
    if (val && json_object_deep_copy(val, &copy, NULL) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    if (json_object_is_type(parent, json_type_object)) {
        if (json_object_object_add(parent, last, copy) < 0)
            goto nomem;
        return 0;
    }
    if (!kh_seg_index(last, &idx) || idx > KH_ARRAY_PAD_MAX) {
        json_object_put(copy);
        return kh_store_err(err, KYTOS_EFILTER,
                            "cannot use the part '%.60s' of '%.100s' to index an array", last, p->text);
    }
    if (json_object_array_put_idx(parent, idx, copy) < 0)
        goto nomem;
    return 0;
nomem:
    json_object_put(copy);
    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
}

static void unset_path(struct json_object *doc, const struct kh_path *p)
{
    struct kh_path parent = *p;
    struct json_object *c;
    size_t idx;

    parent.n = p->n - 1;
    c = parent.n ? kh_path_get(doc, &parent) : doc;
    if (json_object_is_type(c, json_type_object))
        json_object_object_del(c, p->seg[p->n - 1]);
    else if (c && json_object_is_type(c, json_type_array) && kh_seg_index(p->seg[p->n - 1], &idx) &&
             idx < json_object_array_length(c))
        json_object_array_put_idx(c, idx, NULL); /* MongoDB leaves a null in arrays */
}

int kh_update_apply(struct json_object *doc, struct json_object *update, int inserting,
                    struct kytos_error *err)
{
    struct kh_path p;
    int rc;

    json_object_object_foreach(update, op, fields) {
        int kind = op_kind(op);
        if (kind == 3 && !inserting)
            continue;
        json_object_object_foreach(fields, key, val) {
            if ((rc = kh_path_parse(&p, key, op, err)) < 0)
                return rc;
            if (kind == 2)
                unset_path(doc, &p);
            else if ((rc = set_path(doc, &p, val, err)) < 0)
                return rc;
        }
    }
    return kh_value_check(doc, 1, "updated document", err);
}

/* ---- plans for the embedded store's fast path ---- */

int kh_plan_make(struct kh_plan *p, struct json_object *update, struct kh_buf *b,
                 struct kytos_error *err)
{
    int rc;

    p->n = p->nset = p->nunset = p->nins = 0;
    p->sql_ok = p->flat = p->flat_all = 1;
    p->grow = 0;
    json_object_object_foreach(update, op, fields) {
        int kind = op_kind(op);
        json_object_object_foreach(fields, key, val) {
            struct kh_plan_field *f;
            size_t klen = strlen(key);
            if (p->n == KH_PLAN_MAX_FIELDS)
                return 1;
            f = &p->f[p->n++];
            f->kind = kind;
            f->key = key;
            f->val = val;
            f->nseg = 1;
            f->val_off = f->val_len = 0;
            /* $."a"."b": the path as a bound parameter (no SQL quoting) */
            if (kh_buf_reserve(b, klen * 3 + 8) < 0)
                return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            f->path_off = b->n;
            memcpy(b->p + b->n, "$.\"", 3);
            b->n += 3;
            for (size_t i = 0; i < klen; i++) {
                if (key[i] == '.') {
                    memcpy(b->p + b->n, "\".\"", 3);
                    b->n += 3;
                    f->nseg++;
                    continue;
                }
                if (key[i] == '\\')
                    p->sql_ok = 0;
                b->p[b->n++] = key[i];
            }
            b->p[b->n++] = '"';
            b->p[b->n] = '\0';
            f->path_len = b->n - f->path_off;
            if (f->nseg > 1)
                p->flat_all = 0;
            if (kind == 2) {
                p->nunset++;
                continue;
            }
            if (kind == 1)
                p->nset++;
            else
                p->nins++;
            if (f->nseg > 1)
                p->flat = 0;
            if (!kh_utf8_valid(key, klen))
                p->sql_ok = p->flat = p->flat_all = 0; /* the general path reports it */
            f->val_off = b->n;
            if ((rc = kh_json_write(b, val, f->nseg, op, err)) < 0)
                return rc;
            f->val_len = b->n - f->val_off;
            if (kind == 1) /* ,"a":{"b":value}: no more than this (see the path's text) */
                p->grow += f->val_len + f->path_len + 2 * (size_t)f->nseg + 2;
        }
    }
    /* an $unset path that is not UTF-8 cannot match a stored field */
    for (int k = 0; k < p->n; k++)
        if (p->f[k].kind == 2 && !kh_utf8_valid(p->f[k].key, strlen(p->f[k].key)))
            p->sql_ok = p->flat_all = 0;
    return 0;
}

int kh_plan_has_array(const struct kh_plan *p, const struct kh_path *key, int inserting)
{
    for (int k = 0; k < p->n; k++) {
        const struct kh_plan_field *f = &p->f[k];
        size_t len;
        if (f->kind == 2 || (f->kind == 3 && !inserting) || f->nseg > key->n)
            continue;
        /* f's path is a prefix of key (both are checked paths) */
        len = strlen(f->key);
        if (strncmp(key->text, f->key, len) || (key->text[len] != '\0' && key->text[len] != '.'))
            continue;
        if (kh_path_has_array_from(f->val, key, f->nseg))
            return 1;
    }
    return 0;
}

int kh_plan_new_doc(const struct kh_plan *p, const char *id, struct kh_buf *b,
                    struct kytos_error *err)
{
    int rc;

    if (kh_buf_add(b, "{\"_id\":", 7) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    if ((rc = kh_json_write_str(b, id, strlen(id), "_id", err)) < 0)
        return rc;
    for (int k = 0; k < p->n; k++) {
        const struct kh_plan_field *f = &p->f[k];
        rc = 0;
        if (f->kind == 2)
            continue; /* nothing to remove from a new document */
        if (kh_buf_add(b, ",", 1) < 0 ||
            (rc = kh_json_write_str(b, f->key, strlen(f->key), "updated document", err)) < 0 ||
            kh_buf_add(b, ":", 1) < 0 || kh_buf_reserve(b, f->val_len) < 0)
            return rc < 0 ? rc : kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        /* b may have moved: copy by offset */
        memcpy(b->p + b->n, b->p + f->val_off, f->val_len);
        b->n += f->val_len;
        b->p[b->n] = '\0';
    }
    if (kh_buf_add(b, "}", 1) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    return 0;
}

/* ---- splicing a stored document's text ---- */

struct scan {
    const unsigned char *s, *e;   /* the text */
    int esc;                      /* the last string had an escape */
};

static void skip_ws(struct scan *c)
{
    while (c->s < c->e && (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r'))
        c->s++;
}

/* A string at c->s ('"'): 0, or 1 if not sure (see kh_plan_splice). */
static int scan_str(struct scan *c)
{
    const unsigned char *s = c->s + 1, *e = c->e;

    c->esc = 0;
    while (s < e) {
        unsigned ch = *s;
        if (ch == '"') {
            c->s = s + 1;
            return 0;
        }
        if (ch < 0x20)
            return 1;
        if (ch == '\\') {
            /* \uXXXX may hide a NUL or half a surrogate pair: the general path */
            if (s + 1 >= e || !strchr("\"\\/bfnrt", s[1]) || !s[1])
                return 1;
            c->esc = 1;
            s += 2;
        } else if (ch < 0x80) {
            s++;
        } else {
            size_t k;
            if (!(k = kh_utf8_seq_len(s, (size_t)(e - s))))
                return 1;
            s += k;
        }
    }
    return 1;
}

static int scan_num(struct scan *c)
{
    const unsigned char *s = c->s, *e = c->e, *start = s;
    int frac = 0, digits = 0;

    if (s < e && *s == '-')
        s++;
    if (s < e && *s == '0') {
        s++;
        digits = 1;
    } else {
        while (s < e && *s >= '0' && *s <= '9') {
            s++;
            digits++;
        }
    }
    if (!digits)
        return 1;
    if (s < e && *s == '.') {
        frac = 1;
        s++;
        if (s >= e || *s < '0' || *s > '9')
            return 1;
        while (s < e && *s >= '0' && *s <= '9')
            s++;
    }
    if (s < e && (*s == 'e' || *s == 'E')) {
        frac = 1;
        s++;
        if (s < e && (*s == '+' || *s == '-'))
            s++;
        if (s >= e || *s < '0' || *s > '9')
            return 1;
        while (s < e && *s >= '0' && *s <= '9')
            s++;
    }
    if (frac) {
        /* a double must be finite (1e999 is not) */
        char tmp[64];
        if ((size_t)(s - start) >= sizeof(tmp))
            return 1;
        memcpy(tmp, start, (size_t)(s - start));
        tmp[s - start] = '\0';
        if (!isfinite(strtod(tmp, NULL)))
            return 1;
    } else if (digits >= 19) {
        /* past int64 (negative) or uint64: json-c's reading of it decides */
        int neg = *start == '-';
        const char *max = neg ? "9223372036854775808" : "18446744073709551615";
        if ((size_t)digits > strlen(max) ||
            ((size_t)digits == strlen(max) && memcmp(start + neg, max, (size_t)digits) > 0))
            return 1;
    }
    c->s = s;
    return 0;
}

static int scan_value(struct scan *c, int depth);

/* An object or array at c->s. */
static int scan_container(struct scan *c, int depth)
{
    int obj = *c->s == '{', first = 1;

    c->s++;
    for (;;) {
        skip_ws(c);
        if (c->s >= c->e)
            return 1;
        if (*c->s == (obj ? '}' : ']') && first) {
            c->s++;
            return 0;
        }
        if (obj) {
            if (*c->s != '"' || scan_str(c))
                return 1;
            skip_ws(c);
            if (c->s >= c->e || *c->s != ':')
                return 1;
            c->s++;
            skip_ws(c);
        }
        if (scan_value(c, depth + 1))
            return 1;
        skip_ws(c);
        if (c->s >= c->e)
            return 1;
        if (*c->s == ',') {
            c->s++;
            first = 0;
            skip_ws(c);
            if (c->s < c->e && (*c->s == '}' || *c->s == ']'))
                return 1; /* no trailing commas */
            continue;
        }
        if (*c->s == (obj ? '}' : ']')) {
            c->s++;
            return 0;
        }
        return 1;
    }
}

static int scan_value(struct scan *c, int depth)
{
    if (depth > KH_STORE_MAX_DEPTH || c->s >= c->e)
        return 1;
    switch (*c->s) {
    case '"': return scan_str(c);
    case '{':
    case '[': return scan_container(c, depth);
    case 't':
        if (c->e - c->s < 4 || memcmp(c->s, "true", 4))
            return 1;
        c->s += 4;
        return 0;
    case 'f':
        if (c->e - c->s < 5 || memcmp(c->s, "false", 5))
            return 1;
        c->s += 5;
        return 0;
    case 'n':
        if (c->e - c->s < 4 || memcmp(c->s, "null", 4))
            return 1;
        c->s += 4;
        return 0;
    default: return scan_num(c);
    }
}

int kh_plan_splice(const struct kh_plan *p, const char *text, size_t len, struct kh_buf *b,
                   struct kytos_error *err)
{
    struct scan c = {(const unsigned char *)text, (const unsigned char *)text + len, 0};
    size_t start = b->n, klen[KH_PLAN_MAX_FIELDS];
    unsigned char seen[KH_PLAN_MAX_FIELDS] = {0};
    int nout = 0, rc;

    for (int k = 0; k < p->n; k++)
        klen[k] = strlen(p->f[k].key);
    if (kh_buf_reserve(b, len + p->grow + 2) < 0)
        goto nomem;
    skip_ws(&c);
    if (c.s >= c.e || *c.s != '{')
        goto unsure;
    c.s++;
    b->p[b->n++] = '{';
    skip_ws(&c);
    if (c.s < c.e && *c.s == '}') {
        c.s++;
        goto end;
    }
    for (;;) {
        const unsigned char *ks, *vs;
        size_t kl;
        int match = -1;
        skip_ws(&c);
        if (c.s >= c.e || *c.s != '"')
            goto unsure;
        ks = c.s;
        if (scan_str(&c) || c.esc)
            goto unsure; /* an escaped key may equal a path once unescaped */
        kl = (size_t)(c.s - ks) - 2;
        skip_ws(&c);
        if (c.s >= c.e || *c.s != ':')
            goto unsure;
        c.s++;
        skip_ws(&c);
        vs = c.s;
        if (scan_value(&c, 2))
            goto unsure;
        for (int k = 0; k < p->n && match < 0; k++)
            if (p->f[k].kind != 3 && klen[k] == kl && !memcmp(p->f[k].key, ks + 1, kl))
                match = k;
        if (match < 0) {
            /* the member as it is */
            if ((nout++ && kh_buf_add(b, ",", 1) < 0) || kh_buf_add(b, ks, (size_t)(c.s - ks)) < 0)
                goto nomem;
        } else if (p->f[match].kind == 1) {
            /* "key": the new value, in place */
            const struct kh_plan_field *f = &p->f[match];
            if ((nout++ && kh_buf_add(b, ",", 1) < 0) || kh_buf_add(b, ks, (size_t)(vs - ks)) < 0 ||
                kh_buf_reserve(b, f->val_len) < 0)
                goto nomem;
            memcpy(b->p + b->n, b->p + f->val_off, f->val_len); /* by offset: b may have moved */
            b->n += f->val_len;
            seen[match] = 1;
        }
        /* $unset: left out */
        skip_ws(&c);
        if (c.s < c.e && *c.s == ',') {
            c.s++;
            continue;
        }
        if (c.s < c.e && *c.s == '}') {
            c.s++;
            break;
        }
        goto unsure;
    }
end:
    skip_ws(&c);
    if (c.s != c.e)
        goto unsure;
    /* $set fields not in the document: appended, in the update's order */
    for (int k = 0; k < p->n; k++) {
        const struct kh_plan_field *f = &p->f[k];
        if (f->kind != 1 || seen[k])
            continue;
        if (nout++ && kh_buf_add(b, ",", 1) < 0)
            goto nomem;
        if ((rc = kh_json_write_str(b, f->key, klen[k], "updated document", err)) < 0) {
            b->n = start;
            return rc;
        }
        if (kh_buf_add(b, ":", 1) < 0 || kh_buf_reserve(b, f->val_len) < 0)
            goto nomem;
        memcpy(b->p + b->n, b->p + f->val_off, f->val_len);
        b->n += f->val_len;
    }
    if (kh_buf_add(b, "}", 1) < 0)
        goto nomem;
    return 0;
unsure:
    b->n = start;
    return 1;
nomem:
    b->n = start;
    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
}
