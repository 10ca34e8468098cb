/* plugins/common/retry_interval.c - see retry_interval.h. */
#include "retry_interval.h"
#include <kytos/kytos.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

int napp_store_retry_ms(struct json_object *settings, unsigned *ms, char **errmsg)
{
    struct json_object *v;
    double secs;

    *ms = 1000;
    if (!json_object_object_get_ex(settings, "store_retry_interval", &v))
        return KYTOS_OK;
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) {
        *errmsg = strdup("store_retry_interval must be a number of seconds");
        return KYTOS_EINVAL;
    }
    secs = json_object_get_double(v);
    if (!isfinite(secs) || secs < 0.01 || secs > 60) {
        *errmsg = strdup("store_retry_interval must be between 0.01 and 60 seconds");
        return KYTOS_EINVAL;
    }
    *ms = (unsigned)lround(secs * 1000.0);
    return KYTOS_OK;
}
