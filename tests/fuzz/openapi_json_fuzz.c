/* tests/fuzz/openapi_json_fuzz.c - libFuzzer target: the strict JSON
 * reader.  Any input must give a value or a message, never a crash, leak
 * or hang; a value must serialise and re-read to an equal value. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kytos_openapi_options o = { .struct_size = sizeof o, .max_depth = 200 };
    json_object *v = NULL, *again = NULL;
    char err[256];

    if (kytos_openapi_json_parse(data, size, &o, &v, err, sizeof err) != 0) {
        if (err[0] == '\0')
            __builtin_trap(); /* every failure has a message */
        return 0;
    }
    {
        const char *text = v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN)
                             : "null";
        if (kytos_openapi_json_parse(text, strlen(text), &o, &again, err,
                                     sizeof err) != 0 ||
            !koa_json_equal(v, again))
            __builtin_trap();
    }
    json_object_put(again);
    json_object_put(v);
    return 0;
}
