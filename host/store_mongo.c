/* placeholder, replaced below */
#include "store_impl.h"
int kh_store_mongo_open(struct kh_store_backend **out, const struct kh_store_opts *opts,
                        struct kytos_error *err)
{
    (void)opts;
    *out = NULL;
    return kh_store_err(err, KYTOS_ENOTSUP, "mongodb backend not built yet");
}
