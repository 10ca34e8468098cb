/* host/http/client_group.c - see client_group.h. */
#include "http/client_group.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

unsigned kh_client_prefix(long long setting)
{
    return setting >= 1 && setting <= 128 ? (unsigned)setting : 64;
}

/* Keep the first bits of a 16-byte address, zero the rest. */
static void mask6(unsigned char a[16], unsigned bits)
{
    for (unsigned i = 0; i < 16; i++) {
        unsigned keep = bits >= 8 * (i + 1) ? 8 : bits > 8 * i ? bits - 8 * i : 0;
        a[i] &= (unsigned char)(0xff00u >> keep);
    }
}

static int v4_mapped(const unsigned char a[16])
{
    static const unsigned char pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(a, pre, sizeof pre) == 0;
}

int kh_client_key(const struct sockaddr *addr, unsigned v6_prefix,
                  unsigned char key[KH_CLIENT_KEY_LEN])
{
    memset(key, 0, KH_CLIENT_KEY_LEN);
    if (addr && addr->sa_family == AF_INET) {
        key[0] = 4;
        memcpy(key + 1, &((const struct sockaddr_in *)(const void *)addr)->sin_addr, 4);
        return 0;
    }
    if (addr && addr->sa_family == AF_INET6) {
        const unsigned char *a = ((const struct sockaddr_in6 *)(const void *)addr)->sin6_addr.s6_addr;
        if (v4_mapped(a)) {
            key[0] = 4;
            memcpy(key + 1, a + 12, 4);
            return 0;
        }
        key[0] = 6;
        memcpy(key + 1, a, 16);
        mask6(key + 1, v6_prefix);
        return 0;
    }
    return -1;
}

void kh_client_group_text(const char *addr, unsigned v6_prefix, char *out, size_t len)
{
    struct in6_addr a6;
    char buf[INET6_ADDRSTRLEN];

    if (!strchr(addr, ':') || inet_pton(AF_INET6, addr, &a6) != 1) {
        snprintf(out, len, "%s", addr);   /* IPv4, or not an address */
        return;
    }
    if (v4_mapped(a6.s6_addr)) {
        inet_ntop(AF_INET, a6.s6_addr + 12, buf, sizeof buf);
        snprintf(out, len, "%s", buf);
        return;
    }
    if (v6_prefix >= 128) {
        snprintf(out, len, "%s", addr);
        return;
    }
    mask6(a6.s6_addr, v6_prefix);
    inet_ntop(AF_INET6, &a6, buf, sizeof buf);
    snprintf(out, len, "%s/%u", buf, v6_prefix);
}
