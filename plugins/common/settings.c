/* plugins/common/settings.c - see settings.h. */
#include "settings.h"

#include <kytos/kytos.h>

#include <stdio.h>
#include <string.h>

char *napp_errdup(const char *msg)
{
    size_t n = strlen(msg) + 1;
    char *s = kytos_malloc(n);

    if (s)
        memcpy(s, msg, n);
    return s;
}

int napp_int_setting(struct json_object *st, const char *napp, const char *key, int64_t lo,
                     int64_t hi, int64_t *out, char **errmsg)
{
    struct json_object *v;
    char msg[160];

    if (!json_object_object_get_ex(st, key, &v))
        return 0;
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < lo ||
        json_object_get_int64(v) > hi) {
        snprintf(msg, sizeof msg, "%s setting %s must be an integer in %lld..%lld", napp, key,
                 (long long)lo, (long long)hi);
        *errmsg = napp_errdup(msg);
        return -1;
    }
    *out = json_object_get_int64(v);
    return 0;
}
