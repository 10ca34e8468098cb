/* host/store/store_bson.h - json-c <-> BSON for the MongoDB backend.
 *
 * Numbers: int64 values that fit in 32 bits become int32 (as pymongo
 * writes them), others int64; uint64 values above INT64_MAX become
 * Decimal128 (as Kytos stores flow cookies).  Back: int32/int64 -> int,
 * integral Decimal128 -> int64/uint64 exactly, other Decimal128 -> double,
 * datetime -> "YYYY-MM-DDTHH:MM:SS" (UTC, Kytos' format), ObjectId -> its
 * hex string, binary <-> MongoDB extended JSON {"$binary": {"base64", "subType"}}
 * (Kytos' password salts), other BSON types -> null. */
#ifndef KH_STORE_BSON_H
#define KH_STORE_BSON_H

#include <bson/bson.h>
#include <json-c/json.h>

/* Append every member of the JSON object o to b.  0, or -1 (depth). */
int kh_bson_append_object(bson_t *b, struct json_object *o);
/* Append one value under key. */
int kh_bson_append_value(bson_t *b, const char *key, struct json_object *v);
/* A new json-c object for a BSON document, NULL if malformed. */
struct json_object *kh_bson_to_json(const bson_t *b);

#endif
