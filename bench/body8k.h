/* bench/body8k.h - the fixed ~8 KB JSON both benchmark servers answer with
 * (about the size of Kytos' GET topology/v3 for a 3-switch ring). */
#ifndef KYTOS_BENCH_BODY8K_H
#define KYTOS_BENCH_BODY8K_H

#include <stdio.h>
#include <string.h>

/* Fills buf with a JSON object of exactly `size` bytes; returns its length. */
static inline size_t bench_body8k(char *buf, size_t size)
{
    size_t off = 0;
    int i = 0;
    off += (size_t)snprintf(buf + off, size - off, "{\"items\":[");
    while (off + 64 < size) {
        off += (size_t)snprintf(buf + off, size - off, "%s{\"id\":%d,\"name\":\"interface-%06d\"}",
                                i ? "," : "", i, i);
        i++;
    }
    off += (size_t)snprintf(buf + off, size - off, "],\"pad\":\"");
    while (off + 2 < size - 1)
        buf[off++] = 'x';
    buf[off++] = '"';
    buf[off++] = '}';
    buf[off] = '\0';
    return off;
}

#endif
