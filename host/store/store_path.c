/* host/store/store_path.c - dotted paths ("flow.cookie", "interfaces.0.id"). */
#include <string.h>
#include "store/store_doc.h"
#include "store/store_impl.h"

int kh_path_parse(struct kh_path *p, const char *s, const char *what, struct kytos_error *err)
{
    size_t len, i;
    char *seg;

    if (!s)
        return kh_store_err(err, KYTOS_EFILTER, "%s: missing field name", what);
    len = strlen(s);
    if (len == 0)
        return kh_store_err(err, KYTOS_EFILTER, "%s: empty field name", what);
    if (len > KH_PATH_MAX)
        return kh_store_err(err, KYTOS_EFILTER, "%s: field name longer than %d bytes", what,
                            KH_PATH_MAX);
    memcpy(p->text, s, len + 1);
    memcpy(p->buf, s, len + 1);
    p->n = 0;
    seg = p->buf;
    for (i = 0; i <= len; i++) {
        unsigned char c = (unsigned char)p->buf[i];
        if (c == '.' || c == '\0') {
            p->buf[i] = '\0';
            if (*seg == '\0')
                return kh_store_err(err, KYTOS_EFILTER, "%s: field name '%.80s' has an empty part",
                                    what, s);
            if (*seg == '$')
                return kh_store_err(err, KYTOS_EFILTER,
                                    "%s: field name '%.80s': a part may not start with '$'", what, s);
            if (p->n == KH_PATH_MAX_SEGS)
                return kh_store_err(err, KYTOS_EFILTER, "%s: field name '%.80s' has more than %d parts",
                                    what, s, KH_PATH_MAX_SEGS);
            p->seg[p->n++] = seg;
            seg = p->buf + i + 1;
        } else if (c < 0x20 || c == 0x7f || c == '"') {
            return kh_store_err(err, KYTOS_EFILTER,
                                "%s: field name '%.80s' contains a control character or '\"'", what, s);
        }
    }
    return 0;
}

int kh_path_sql_literal(const struct kh_path *p, char *out, size_t outlen)
{
    size_t o = 0;

#define PUT(ch)                    \
    do {                           \
        if (o + 1 >= outlen)       \
            return -1;             \
        out[o++] = (ch);           \
    } while (0)
    PUT('\'');
    PUT('$');
    for (int k = 0; k < p->n; k++) {
        PUT('.');
        PUT('"');
        for (const char *c = p->seg[k]; *c; c++) {
            if (*c == '\'')
                PUT('\'');
            PUT(*c);
        }
        PUT('"');
    }
    PUT('\'');
#undef PUT
    out[o] = '\0';
    return 0;
}

int kh_seg_index(const char *seg, size_t *idx)
{
    size_t v = 0;

    if (!seg[0] || (seg[0] == '0' && seg[1]))
        return 0;
    for (const char *c = seg; *c; c++) {
        if (*c < '0' || *c > '9')
            return 0;
        if (v > 100000000)
            return 0; /* larger than any array we would walk */
        v = v * 10 + (size_t)(*c - '0');
    }
    *idx = v;
    return 1;
}

int kh_path_conflict(const struct kh_path *a, const struct kh_path *b)
{
    int n = a->n < b->n ? a->n : b->n;

    for (int k = 0; k < n; k++)
        if (strcmp(a->seg[k], b->seg[k]) != 0)
            return 0;
    return 1;
}

struct json_object *kh_path_get(struct json_object *doc, const struct kh_path *p)
{
    struct json_object *v = doc;

    for (int k = 0; k < p->n && v; k++) {
        size_t idx;
        if (json_object_is_type(v, json_type_object)) {
            struct json_object *c = NULL;
            if (!json_object_object_get_ex(v, p->seg[k], &c))
                return NULL;
            v = c;
        } else if (json_object_is_type(v, json_type_array) && kh_seg_index(p->seg[k], &idx)) {
            if (idx >= json_object_array_length(v))
                return NULL;
            v = json_object_array_get_idx(v, idx);
        } else {
            return NULL;
        }
    }
    return v;
}

static int has_array(struct json_object *v, const struct kh_path *p, int k)
{
    for (; k < p->n; k++) {
        struct json_object *c = NULL;
        if (!v || !json_object_is_type(v, json_type_object))
            return v && json_object_is_type(v, json_type_array);
        if (!json_object_object_get_ex(v, p->seg[k], &c))
            return 0;
        v = c;
    }
    return v && json_object_is_type(v, json_type_array);
}

int kh_path_has_array(struct json_object *doc, const struct kh_path *p)
{
    return has_array(doc, p, 0);
}

int kh_path_has_array_from(struct json_object *v, const struct kh_path *p, int k)
{
    return has_array(v, p, k);
}
