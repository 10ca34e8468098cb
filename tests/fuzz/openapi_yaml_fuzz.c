/* tests/fuzz/openapi_yaml_fuzz.c - libFuzzer target: the spec loader
 * (YAML/JSON parse, document checks, $refs, schema compilation) and the
 * linter, with small limits so hostile documents stay cheap. */
#include <stddef.h>
#include <stdint.h>

#include "kytos/openapi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kytos_openapi_options o = { .struct_size = sizeof o,
                                       .max_spec_bytes = 256 * 1024,
                                       .max_spec_nodes = 20000 };
    kytos_openapi_diags *d = NULL, *w = NULL;
    kytos_openapi_spec *s = kytos_openapi_load((const char *)data, size, "fuzz", &o, &d);
    size_t i;

    if (!s && kytos_openapi_diags_count(d) == 0)
        __builtin_trap(); /* a refusal always says why */
    for (i = 0; i < kytos_openapi_diags_count(d); i++) {
        char buf[512];
        kytos_openapi_diag_format(kytos_openapi_diags_get(d, i), buf, sizeof buf);
    }
    kytos_openapi_diags_free(d);
    if (s) {
        kytos_openapi_lint(s, &w);
        kytos_openapi_diags_free(w);
        for (i = 0; i < kytos_openapi_op_count(s); i++) {
            const kytos_openapi_op *op = kytos_openapi_op_at(s, i);
            if (kytos_openapi_find(s, kytos_openapi_op_method(op), NULL,
                                   kytos_openapi_op_template(op)) == NULL)
                __builtin_trap();
        }
        kytos_openapi_spec_free(s);
    }
    return 0;
}
