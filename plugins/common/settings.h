/* plugins/common/settings.h - what the shipped NApps' init() share to read
 * their [user/napp] settings and to hand back the reason one is refused. */
#ifndef KYTOS_PLUGINS_SETTINGS_H
#define KYTOS_PLUGINS_SETTINGS_H

#include <json-c/json.h>
#include <stdint.h>

/* A copy of msg from kytos_malloc (what init's *errmsg must be), or NULL. */
char *napp_errdup(const char *msg);

/* The integer setting key of st in [lo, hi] into *out; absent leaves *out.
 * 0, or -1 with "<napp> setting <key> must be an integer in lo..hi" in
 * *errmsg. */
int napp_int_setting(struct json_object *st, const char *napp, const char *key, int64_t lo,
                     int64_t hi, int64_t *out, char **errmsg);

#endif
