/* host/util/conf.h - kytos.conf ([daemon] section, JSON values) plus flags.
 *
 * Every key is kept as a json-c value: Kytos' defaults first, then the file,
 * then the command-line flags.  Known keys, their types, defaults and bounds
 * are in conf_keys.c; unknown keys warn and are kept.  Other
 * sections ("[kytos/simnet]") are NApp settings. */
#ifndef KH_CONF_H
#define KH_CONF_H

#include <json-c/json.h>
#include <stdint.h>

typedef struct kh_config kh_config;

kh_config *kh_config_new(void);           /* Kytos' defaults */
/* Parse INI text; errors name the line.  0 or -1 (message in err). */
int kh_config_load_text(kh_config *c, const char *text, const char *origin, char *err, size_t errlen);
int kh_config_load_file(kh_config *c, const char *path, char *err, size_t errlen);
/* Set one [daemon] key from a string: JSON if it parses, else a string. */
void kh_config_set(kh_config *c, const char *key, const char *value);
/* Set one [daemon] key to a string, as is. */
void kh_config_set_string(kh_config *c, const char *key, const char *value);
void kh_config_free(kh_config *c);

/* Every known key's value against its type and bounds (conf_keys.h): 0,
 * or -1 with a message naming the key and what it takes. */
int kh_config_check(const kh_config *c, char *err, size_t errlen);

/* Borrowed value; NULL when absent or null. */
struct json_object *kh_config_get(const kh_config *c, const char *key);
/* A known key's value as its type; null (or, before kh_config_check, a
 * value of another type) reads as the default of host/util/conf_keys.c.
 * A key missing from that table aborts: the table lists every key read. */
const char *kh_config_str(const kh_config *c, const char *key);
int64_t kh_config_int(const kh_config *c, const char *key);
int kh_config_bool(const kh_config *c, const char *key);
/* The whole [daemon] section without secrets (for GET core/config/). New ref. */
struct json_object *kh_config_public(const kh_config *c);
/* The settings object of one NApp section "[user/name]"; never NULL. Borrowed. */
struct json_object *kh_config_napp_settings(const kh_config *c, const char *napp_id);

#endif
