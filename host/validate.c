/* host/validate.c - binding NApp routes to their OpenAPI operations.
 * (Placeholder until libkytos-openapi lands: specs are accepted, routes
 * asking for validation are logged and run unchecked.) */
#include "hostimpl.h"
#include "log.h"

int kh_validate_compile(kytos_napp *n, char *err, size_t errlen)
{
    (void)n;
    (void)err;
    (void)errlen;
    return 0;
}

int kh_validate_bind(kytos_napp *n, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    (void)n;
    return 0;
}

void kh_validate_free(kytos_napp *n) { (void)n; }

int kh_validate_request(kytos_req *r)
{
    (void)r;
    return 0;
}
