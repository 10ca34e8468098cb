/* plugins/common/retry_interval.h - the store_retry_interval setting that
 * topology and mef_eline share (each NApp's retry.c). */
#ifndef KYTOS_PLUGINS_RETRY_INTERVAL_H
#define KYTOS_PLUGINS_RETRY_INTERVAL_H

#include <json-c/json.h>

/* store_retry_interval of settings (seconds, 0.01..60, default 1) in
 * milliseconds into *ms: KYTOS_OK, or KYTOS_EINVAL with the reason
 * (malloc'd, NULL when out of memory) in *errmsg.  Never off: a refused
 * write would be lost. */
int napp_store_retry_ms(struct json_object *settings, unsigned *ms, char **errmsg);

#endif
