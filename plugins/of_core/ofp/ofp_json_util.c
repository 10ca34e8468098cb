/* plugins/of_core/ofp/ofp_json_util.c - small JSON and text helpers of the
 * JSON bridge. */
#include "ofp_json_int.h"

#include <inttypes.h>
#include <stdio.h>

int ofp_json_uint(struct json_object *v, uint64_t max, const char *where, uint64_t *out,
                  char *err, size_t errlen)
{
    uint64_t u;

    if (!json_object_is_type(v, json_type_int))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: not an integer", where);
    if (json_object_get_int64(v) < 0)
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: negative", where);
    u = json_object_get_uint64(v);
    if (u > max)
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: %" PRIu64 " is over %" PRIu64, where, u,
                        max);
    *out = u;
    return 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int ofp_parse_mac(const char *s, size_t n, uint8_t out[6])
{
    size_t i;

    if (n != 17)
        return -1;
    for (i = 0; i < 6; i++) {
        int hi = hexval(s[3 * i]), lo = hexval(s[3 * i + 1]);
        if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void ofp_format_mac(const uint8_t mac[6], char out[18])
{
    snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
             mac[5]);
}

void ofp_json_add(struct json_object *obj, const char *key, struct json_object *val, int *oom)
{
    if (!val || json_object_object_add(obj, key, val) != 0) {
        json_object_put(val);
        *oom = 1;
    }
}
