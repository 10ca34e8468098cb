/* openapi/options.c - defaults for struct kytos_openapi_options. */
#include <string.h>

#include "internal.h"

#define FILL(f, v) do { if (!out->f) out->f = (v); } while (0)

void koa_options_resolve(const struct kytos_openapi_options *in,
                         struct kytos_openapi_options *out)
{
    struct kytos_openapi_options tmp;

    memset(&tmp, 0, sizeof tmp);
    if (in) {
        /* Copy only what the caller's struct has (an older, smaller
         * struct leaves the newer fields at 0, i.e. default).  in may be
         * out itself. */
        size_t n = in->struct_size;
        if (n > sizeof tmp)
            n = sizeof tmp;
        if (n > sizeof tmp.struct_size)
            memcpy(&tmp, in, n);
    }
    *out = tmp;
    out->struct_size = sizeof *out;
    FILL(max_body_bytes, 1024u * 1024u);
    FILL(max_depth, 64);
    FILL(max_string_bytes, 1024u * 1024u);
    FILL(max_values, 1000000);
    FILL(max_errors, 32);
    FILL(max_params, 100);
    FILL(max_param_bytes, 8192);
    FILL(max_eval_depth, 128);
    FILL(regex_match_limit, 1000000);
    FILL(regex_depth_limit, 10000);
    FILL(max_spec_bytes, 16u * 1024u * 1024u);
    FILL(max_spec_nodes, 1000000);
    /* Hard ceilings: the parser and validator recurse, one frame per
     * level, so the depth must stay far below what a thread stack holds. */
    if (out->max_depth > 1000)
        out->max_depth = 1000;
    if (out->max_eval_depth > 1000)
        out->max_eval_depth = 1000;
}
