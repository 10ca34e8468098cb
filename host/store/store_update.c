/* host/store/store_update.c - $set / $unset / $setOnInsert on dotted paths, with
 * MongoDB's rules: missing objects on the way are created, arrays are
 * entered by numeric index (padded with null), a scalar on the way is an
 * error, two paths that overlap are an error, _id cannot change. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "store/store_doc.h"
#include "store/store_impl.h"

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
    return kh_update_check_ex(update, 1, err);
}

int kh_update_check_ex(struct json_object *update, int values, struct kytos_error *err)
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
            if (values && kind != 2 && (rc = kh_value_check(val, paths[n].n, op, err)) < 0)
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

int kh_plan_make(struct kh_plan *p, struct json_object *update, struct ku_buf *b,
                 struct kytos_error *err)
{
    return kh_plan_make_pre(p, update, b, NULL, NULL, 0, err);
}

int kh_plan_make_pre(struct kh_plan *p, struct json_object *update, struct ku_buf *b,
                     const char *vals, const uint32_t *lens, size_t nlens,
                     struct kytos_error *err)
{
    size_t iv = 0, pos = 0;
    int rc;

    p->n = 0;
    p->text_ok = 1;
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
            f->seg[0] = 0;
            for (size_t i = 0; i < klen; i++) {
                if (key[i] != '.')
                    continue;
                if (f->nseg == KH_PATH_MAX_SEGS)
                    return 1; /* kh_update_check refuses it */
                f->seg[f->nseg++] = (unsigned short)(i + 1);
            }
            f->seg[f->nseg] = (unsigned short)(klen + 1);
            if (kind == 2)
                continue;
            if (!kh_utf8_valid(key, klen))
                p->text_ok = 0; /* the general path reports it */
            f->val_off = b->len;
            if (vals) {   /* written already, in this order (kh_plan_make_pre) */
                if (iv == nlens)
                    return 1;
                if (ku_buf_add(b, vals + pos, lens[iv]) < 0)
                    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
                pos += lens[iv++];
            } else if ((rc = kh_json_write(b, val, f->nseg, op, err)) < 0) {
                return rc;
            }
            f->val_len = b->len - f->val_off;
            /* ,"a":{"b":value}: names escaped at most twice as long ('\\') */
            if (kind == 1)
                p->grow += f->val_len + 2 * klen + 6 * (size_t)f->nseg + 2;
        }
    }
    return vals && iv != nlens ? 1 : 0;
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
        unsigned ch;
        /* 8 bytes at a time up to the first '"', '\\', byte below 0x20 or
         * above 0x7f (the lowest flagged byte is a true one: borrows only
         * go up) */
        while (e - s >= 8) {
            uint64_t x, m;
            memcpy(&x, s, 8);
            m = kh_json_special_bytes(x);
            if (m) {
                s += kh_first_flagged(m);
                break;
            }
            s += 8;
        }
        if (s >= e)
            break;
        ch = *s;
        if (ch == '"') {
            c->s = s + 1;
            return 0;
        }
        if (ch < 0x20)
            return 1;
        if (ch == '\\') {
            /* \u0000-\u001f are what we write for control bytes; another
             * \uXXXX may be half a surrogate pair: the general path decides */
            if (e - s >= 6 && s[1] == 'u' && s[2] == '0' && s[3] == '0' && (s[4] == '0' || s[4] == '1') &&
                isxdigit(s[5])) {
                c->esc = 1;
                s += 6;
                continue;
            }
            if (s + 1 >= e || !s[1] || !strchr("\"\\/bfnrt", s[1]))
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

/* Segment lvl of field f's path (len in *len). */
static inline const char *seg_at(const struct kh_plan_field *f, int lvl, size_t *len)
{
    *len = (size_t)(f->seg[lvl + 1] - f->seg[lvl] - 1);
    return f->key + f->seg[lvl];
}

struct splice {
    const struct kh_plan *p;
    struct ku_buf *b;
    unsigned kinds;               /* 1 << kind of the fields that apply */
    unsigned char seen[KH_PLAN_MAX_FIELDS];
};

static int put(struct ku_buf *b, const void *data, size_t len)
{
    return ku_buf_add(b, data, len) < 0 ? -1 : 0;
}

/* Fields idx[0..n) (segment lvl on) not in the document: new members, in
 * the order of the update, those sharing a segment in one new object, as
 * kh_update_apply() creates them.  *nout: members written so far. */
static int add_new(struct splice *sp, const int *idx, int n, int lvl, int *nout)
{
    unsigned char done[KH_PLAN_MAX_FIELDS] = {0};

    for (int i = 0; i < n; i++) {
        const struct kh_plan_field *f = &sp->p->f[idx[i]];
        int sub[KH_PLAN_MAX_FIELDS], nsub = 0, inner = 0;
        size_t sl, sl2;
        const char *sg;
        if (done[i] || sp->seen[idx[i]] || f->kind == 2 || !(sp->kinds & (1u << f->kind)))
            continue;
        sg = seg_at(f, lvl, &sl);
        for (int j = i; j < n; j++) {
            const struct kh_plan_field *g = &sp->p->f[idx[j]];
            const char *sg2;
            if (done[j] || sp->seen[idx[j]] || g->kind == 2 || !(sp->kinds & (1u << g->kind)))
                continue;
            sg2 = seg_at(g, lvl, &sl2);
            if (sl2 == sl && !memcmp(sg, sg2, sl)) {
                done[j] = 1;
                sub[nsub++] = idx[j];
            }
        }
        if ((*nout)++ && put(sp->b, ",", 1) < 0)
            return -1;
        if (kh_json_write_str(sp->b, sg, sl, "updated document", NULL) < 0 || put(sp->b, ":", 1) < 0)
            return -1;
        if (f->nseg == lvl + 1) {
            /* no other field shares a whole path (kh_update_check) */
            if (ku_buf_reserve(sp->b, f->val_len) < 0)
                return -1;
            memcpy(sp->b->p + sp->b->len, sp->b->p + f->val_off, f->val_len); /* b may have moved */
            sp->b->len += f->val_len;
            sp->b->p[sp->b->len] = '\0';
        } else if (put(sp->b, "{", 1) < 0 || add_new(sp, sub, nsub, lvl + 1, &inner) < 0 ||
                   put(sp->b, "}", 1) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The object at c->s with fields idx[0..n) applied (segment lvl on):
 * 0, 1 (not sure: the general path decides), -1 (out of memory). */
static int splice_obj(struct splice *sp, struct scan *c, const int *idx, int n, int lvl, int depth)
{
    int nout = 0, rc;

    if (depth > KH_STORE_MAX_DEPTH || c->s >= c->e || *c->s != '{')
        return 1;
    c->s++;
    if (put(sp->b, "{", 1) < 0)
        return -1;
    skip_ws(c);
    if (c->s < c->e && *c->s == '}') {
        c->s++;
        goto end;
    }
    for (;;) {
        const unsigned char *ks, *vs;
        int sub[KH_PLAN_MAX_FIELDS], nsub = 0, leaf = -1;
        size_t kl;
        skip_ws(c);
        if (c->s >= c->e || *c->s != '"')
            return 1;
        ks = c->s;
        if (scan_str(c) || c->esc)
            return 1; /* an escaped name may equal a path's once unescaped */
        kl = (size_t)(c->s - ks) - 2;
        skip_ws(c);
        if (c->s >= c->e || *c->s != ':')
            return 1;
        c->s++;
        skip_ws(c);
        vs = c->s;
        for (int i = 0; i < n; i++) {
            const struct kh_plan_field *f = &sp->p->f[idx[i]];
            size_t sl;
            const char *sg;
            if (!(sp->kinds & (1u << f->kind)))
                continue;
            sg = seg_at(f, lvl, &sl);
            if (sl != kl || memcmp(sg, ks + 1, kl))
                continue;
            if (f->nseg == lvl + 1)
                leaf = idx[i];
            else
                sub[nsub++] = idx[i];
        }
        if (leaf >= 0) {
            /* replaced or removed: the old value is still checked */
            const struct kh_plan_field *f = &sp->p->f[leaf];
            sp->seen[leaf] = 1;
            if (scan_value(c, depth + 1))
                return 1;
            if (f->kind != 2) {
                if ((nout++ && put(sp->b, ",", 1) < 0) || put(sp->b, ks, (size_t)(vs - ks)) < 0 ||
                    ku_buf_reserve(sp->b, f->val_len) < 0)
                    return -1;
                memcpy(sp->b->p + sp->b->len, sp->b->p + f->val_off, f->val_len);
                sp->b->len += f->val_len;
                sp->b->p[sp->b->len] = '\0';
            }
        } else if (nsub) {
            /* deeper paths: into an object only (arrays, scalars: the general path) */
            if ((nout++ && put(sp->b, ",", 1) < 0) || put(sp->b, ks, (size_t)(vs - ks)) < 0)
                return -1;
            if ((rc = splice_obj(sp, c, sub, nsub, lvl + 1, depth + 1)) != 0)
                return rc;
            for (int i = 0; i < nsub; i++)
                sp->seen[sub[i]] = 1; /* applied in there, or made there */
        } else {
            /* the member as it is */
            if (scan_value(c, depth + 1))
                return 1;
            if ((nout++ && put(sp->b, ",", 1) < 0) || put(sp->b, ks, (size_t)(c->s - ks)) < 0)
                return -1;
        }
        skip_ws(c);
        if (c->s < c->e && *c->s == ',') {
            c->s++;
            continue;
        }
        if (c->s < c->e && *c->s == '}') {
            c->s++;
            break;
        }
        return 1;
    }
end:
    if (add_new(sp, idx, n, lvl, &nout) < 0 || put(sp->b, "}", 1) < 0)
        return -1;
    return 0;
}

int kh_plan_splice(const struct kh_plan *p, const char *text, size_t len, struct ku_buf *b,
                   struct kytos_error *err)
{
    struct scan c = {(const unsigned char *)text, (const unsigned char *)text + len, 0};
    struct splice sp = {p, b, 1u << 1 | 1u << 2, {0}};
    size_t start = b->len;
    int idx[KH_PLAN_MAX_FIELDS], rc;

    for (int k = 0; k < p->n; k++)
        idx[k] = k;
    if (!p->text_ok)
        return 1;
    if (ku_buf_reserve(b, len + p->grow + 2) < 0)
        goto nomem;
    skip_ws(&c);
    if ((rc = splice_obj(&sp, &c, idx, p->n, 0, 1)) < 0)
        goto nomem;
    skip_ws(&c);
    if (rc == 0 && c.s == c.e)
        return 0;
    b->len = start;
    return 1;
nomem:
    b->len = start;
    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
}

int kh_plan_new_doc(const struct kh_plan *p, const char *id, struct ku_buf *b,
                    struct kytos_error *err)
{
    struct splice sp = {p, b, 1u << 1 | 1u << 3, {0}};
    size_t start = b->len;
    int idx[KH_PLAN_MAX_FIELDS], nout = 1, rc;

    for (int k = 0; k < p->n; k++)
        idx[k] = k;
    if (!p->text_ok)
        return 1;
    if (ku_buf_add(b, "{\"_id\":", 7) < 0)
        goto nomem;
    if ((rc = kh_json_write_str(b, id, strlen(id), "_id", err)) < 0) {
        b->len = start;
        return rc;
    }
    if (add_new(&sp, idx, p->n, 0, &nout) < 0 || put(b, "}", 1) < 0)
        goto nomem;
    return 0;
nomem:
    b->len = start;
    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
}
