/* plugins/of_core/ofp/ofp_json_int.h - helpers shared by the JSON bridge. */
#ifndef KYTOS_OFP_JSON_INT_H
#define KYTOS_OFP_JSON_INT_H

#include "ofp_int.h"

#include <json-c/json.h>

/* A JSON integer in 0..max (booleans, doubles, strings refused). */
int ofp_json_uint(struct json_object *v, uint64_t max, const char *where, uint64_t *out,
                  char *err, size_t errlen);
/* "aa:bb:cc:dd:ee:ff" (any case) -> 6 bytes; 0 on success, -1 if malformed. */
int ofp_parse_mac(const char *s, size_t n, uint8_t out[6]);
void ofp_format_mac(const uint8_t mac[6], char out[18]);
/* Add key -> val to obj; val NULL (out of memory) marks *oom. */
void ofp_json_add(struct json_object *obj, const char *key, struct json_object *val, int *oom);

#endif
