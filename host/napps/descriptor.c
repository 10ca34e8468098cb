/* host/napps/descriptor.c - what the host reads from a NApp's descriptor
 * beyond identity: whether its ABI fits this host, and its spec's length. */
#include "core/host.h"
#include <stdio.h>
#include <string.h>

int kh_abi_check(unsigned major, unsigned min_minor, char *err, size_t errlen)
{
    const struct kytos_api *api = kh_host_api();

    /* The major must match; the NApp's minimum minor must be met (any
     * older minimum is fine: it probes newer slots with KYTOS_API_HAS). */
    if (major != api->abi_major) {
        snprintf(err, errlen, "built for ABI major %u (needs ABI %u.%u), the host has ABI %u.%u",
                 major, major, min_minor, api->abi_major, api->abi_minor);
        return KYTOS_ENOTSUP;
    }
    if (min_minor > api->abi_minor) {
        snprintf(err, errlen, "needs ABI %u.%u or later, newer than the host's ABI %u.%u", major,
                 min_minor, api->abi_major, api->abi_minor);
        return KYTOS_ENOTSUP;
    }
    return KYTOS_OK;
}

int kh_desc_check_abi(const struct kytos_napp_desc *d, char *err, size_t errlen)
{
    return kh_abi_check(d->abi_major, d->abi_min_minor, err, errlen);
}

/* The declared length, else strlen.  Never past the text's NUL (which the
 * ABI requires): a length larger than the text cannot make us overrun. */
size_t kh_desc_openapi_len(const struct kytos_napp_desc *d)
{
    size_t n = 0;

    if (!d->openapi)
        return 0;
    if (d->openapi_len)
        n = d->openapi_len;
    /* openapi_len_fn took reserved[0]'s place: NULL in NApps built before */
    else if (d->struct_size >= offsetof(struct kytos_napp_desc, openapi_len_fn) +
                                   sizeof d->openapi_len_fn &&
             d->openapi_len_fn)
        n = d->openapi_len_fn();
    return n ? strnlen(d->openapi, n) : strlen(d->openapi);
}
