/* host/json_strict.c - strict JSON for bodies of routes without an OpenAPI
 * binding.  json-c in strict mode, plus a check that nothing but white
 * space follows the value, with messages shaped like Python's json module
 * (what Kytos answers after "Invalid json: "). */
#include "request.h"
#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 64

static void position(const char *text, size_t off, int *line, int *col)
{
    size_t i;
    *line = 1;
    *col = 1;
    for (i = 0; i < off; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

struct json_object *kh_json_parse_strict(const char *text, size_t len, char *err, size_t errlen)
{
    struct json_tokener *tok;
    struct json_object *o;
    size_t end;
    int line, col;

    if (len > INT32_MAX) {
        snprintf(err, errlen, "document too large");
        return NULL;
    }
    tok = json_tokener_new_ex(MAX_DEPTH);
    if (!tok) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    o = json_tokener_parse_ex(tok, text, (int)len);
    end = json_tokener_get_parse_end(tok);
    if (!o && json_tokener_get_error(tok) == json_tokener_continue && len > 0) {
        /* a top-level number is only complete once something follows it */
        o = json_tokener_parse_ex(tok, " ", 1);
        end = len;
    }
    if (!o) {
        enum json_tokener_error e = json_tokener_get_error(tok);
        size_t off = end;
        while (off < len && (text[off] == ' ' || text[off] == '\n' || text[off] == '\r' || text[off] == '\t'))
            off++;
        position(text, off, &line, &col);
        if (e == json_tokener_continue || len == 0 || off >= len)
            snprintf(err, errlen, "Expecting value: line %d column %d (char %zu)", line, col, off);
        else
            snprintf(err, errlen, "%s: line %d column %d (char %zu)", json_tokener_error_desc(e), line,
                     col, off);
        json_tokener_free(tok);
        return NULL;
    }
    json_tokener_free(tok);
    while (end < len && (text[end] == ' ' || text[end] == '\n' || text[end] == '\r' || text[end] == '\t'))
        end++;
    if (end != len) {
        position(text, end, &line, &col);
        snprintf(err, errlen, "Extra data: line %d column %d (char %zu)", line, col, end);
        json_object_put(o);
        return NULL;
    }
    return o;
}
