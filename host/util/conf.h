/* host/util/conf.h - kytos.conf ([daemon] section, JSON values) plus flags.
 *
 * Every key is kept as a json-c value: Kytos' defaults first, then the file,
 * then the command-line flags.  Unknown keys warn and are kept.  Other
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

/* Borrowed values; NULL when absent. */
struct json_object *kh_config_get(const kh_config *c, const char *key);
const char *kh_config_str(const kh_config *c, const char *key, const char *def);
int64_t kh_config_int(const kh_config *c, const char *key, int64_t def);
int kh_config_bool(const kh_config *c, const char *key, int def);
/* The whole [daemon] section without secrets (for GET core/config/). New ref. */
struct json_object *kh_config_public(const kh_config *c);
/* The settings object of one NApp section "[user/name]"; never NULL. Borrowed. */
struct json_object *kh_config_napp_settings(const kh_config *c, const char *napp_id);

#endif
