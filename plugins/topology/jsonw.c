/* plugins/topology/jsonw.c - JSON text writer (see jsonw.h). */
#include "jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(struct jw *w, size_t n)
{
    size_t ncap;
    char *nb;

    if (w->oom)
        return false;
    if (w->len + n + 1 <= w->cap)
        return true;
    ncap = w->cap ? w->cap : 4096;
    while (ncap < w->len + n + 1)
        ncap *= 2;
    nb = realloc(w->buf, ncap);
    if (!nb) {
        w->oom = true;
        return false;
    }
    w->buf = nb;
    w->cap = ncap;
    return true;
}

void jw_raw(struct jw *w, const char *s, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

void jw_lit(struct jw *w, const char *s)
{
    jw_raw(w, s, strlen(s));
}

void jw_str(struct jw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t start;

    if (!s) {
        jw_lit(w, "null");
        return;
    }
    jw_raw(w, "\"", 1);
    for (start = 0;; p++) {
        unsigned char c = *p;
        const char *esc = NULL;
        char u[7];
        if (c == 0)
            break;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (c < 0x20) {
                u[0] = '\\'; u[1] = 'u'; u[2] = '0'; u[3] = '0';
                u[4] = hex[c >> 4]; u[5] = hex[c & 15]; u[6] = '\0';
                esc = u;
            }
        }
        if (esc) {
            size_t off = (size_t)((const char *)p - s);
            jw_raw(w, s + start, off - start);
            jw_lit(w, esc);
            start = off + 1;
        }
    }
    jw_raw(w, s + start, (size_t)((const char *)p - s) - start);
    jw_raw(w, "\"", 1);
}

void jw_key(struct jw *w, const char *k)
{
    jw_str(w, k);
    jw_raw(w, ":", 1);
}

void jw_bool(struct jw *w, bool v)
{
    jw_lit(w, v ? "true" : "false");
}

void jw_i64(struct jw *w, int64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof(b), "%" PRId64, v);

    jw_raw(w, b, (size_t)n);
}

void jw_json(struct jw *w, struct json_object *o)
{
    size_t n = 0;
    const char *s = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);

    if (s)
        jw_raw(w, s, n);
    else
        w->oom = true;
}

char *jw_take(struct jw *w, size_t *len)
{
    char *b;

    if (w->oom || !reserve(w, 0)) {
        jw_free(w);
        return NULL;
    }
    b = w->buf;
    *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return b;
}

void jw_free(struct jw *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
    w->oom = false;
}
