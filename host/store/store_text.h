/* host/store/store_text.h - find with KYTOS_FIND_TEXT: documents handed out
 * as their JSON text, without building json-c trees where the stored text
 * already is what json-c would write.
 *
 * A stored text is "canonical" when parsing it with json-c and writing the
 * result with JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE gives
 * the same bytes: no whitespace, json-c's string escapes only, integers
 * json-c keeps as they are, no repeated keys.  The embedded store writes
 * every document that way (kh_doc_write); anything else (an older store,
 * a hand-edited file) goes through json-c, so the answer never depends on
 * which path made it. */
#ifndef KH_STORE_TEXT_H
#define KH_STORE_TEXT_H

#include <stddef.h>
#include <json-c/json.h>
#include "store/store_doc.h"
#include "store/store_impl.h"

#define KH_TEXT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* 1 if text (len bytes) is a canonical JSON object, 0 if not (or when it
 * is beyond what the check follows: deeper than KH_STORE_MAX_DEPTH, an
 * object with more than 256 keys). */
int kh_text_canonical(const char *text, size_t len);

/* The text-mode value of one canonical stored document: a JSON string
 * (new reference) holding its text with the projection applied.  proj
 * NULL or {"_id": 0} is done on the text; any other projection parses it.
 * NULL on error (err says why). */
struct json_object *kh_text_project(const char *text, size_t len, const struct kh_proj *proj,
                                    const char *coll, struct kytos_error *err);

/* The text-mode value of a document object (consumes doc). */
struct json_object *kh_text_of_doc(struct json_object *doc, struct kytos_error *err);

/* Sort rows as kh_sort_docs() sorts the documents they hold: each row is
 * a document object or a JSON string with a canonical document's text.
 * For strings only "_id" and the sort paths are parsed.  Returns how many
 * strings had to be parsed whole (a sort path through an escaped key). */
size_t kh_text_sort(const struct kh_sort *s, struct json_object **rows, size_t n);

/* A cursor over inner's documents giving text-mode values (for backends
 * that have no stored text, MongoDB).  Takes inner. */
int kh_text_cursor_wrap(kytos_cursor *inner, kytos_cursor **out, struct kytos_error *err);

#endif
