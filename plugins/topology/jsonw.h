/* plugins/topology/jsonw.h - a small append-only JSON text writer.
 *
 * The GET bodies are written straight from the model: building json-c
 * trees for thousands of interfaces on every change costs far more than
 * the text.  Strings are escaped as Python's json.dumps(ensure_ascii=False)
 * does (and json-c with JSON_C_TO_STRING_NOSLASHESCAPE): \" \\ \b \f \n \r
 * \t, other control characters as \u00xx, everything else verbatim. */
#ifndef TOPO_JSONW_H
#define TOPO_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct jw {
    char *buf;
    size_t len, cap;
    bool oom;              /* an append failed: the text is incomplete */
};

void jw_raw(struct jw *w, const char *s, size_t n);
void jw_lit(struct jw *w, const char *s);           /* verbatim */
void jw_str(struct jw *w, const char *s);           /* quoted; NULL writes null */
void jw_key(struct jw *w, const char *k);           /* "k": */
void jw_bool(struct jw *w, bool v);
void jw_i64(struct jw *w, int64_t v);
void jw_json(struct jw *w, struct json_object *o);  /* json-c, compact */
/* Take the buffer (NUL-terminated) or NULL after an allocation failure. */
char *jw_take(struct jw *w, size_t *len);
void jw_free(struct jw *w);

#endif
