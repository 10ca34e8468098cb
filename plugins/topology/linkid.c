/* plugins/topology/linkid.c - interface and link identifiers (see linkid.h). */
#include "linkid.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>

bool topo_dpid_valid(const char *s)
{
    size_t n = 0;

    if (!s || !*s)
        return false;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if (n >= TOPO_DPID_MAX || c <= 0x20 || c >= 0x7f || c == '/')
            return false;
    }
    return true;
}

bool topo_intf_id_parse(const char *id, char *dpid, uint32_t *port)
{
    const char *colon, *p;
    uint64_t v = 0;
    size_t dlen;

    if (!id)
        return false;
    colon = strrchr(id, ':');
    if (!colon || colon == id || !colon[1])
        return false;
    dlen = (size_t)(colon - id);
    if (dlen > TOPO_DPID_MAX)
        return false;
    for (p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9' || p - colon > 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > UINT32_MAX)
        return false;
    memcpy(dpid, id, dlen);
    dpid[dlen] = '\0';
    if (!topo_dpid_valid(dpid))
        return false;
    *port = (uint32_t)v;
    return true;
}

bool topo_link_id(const char *intf_a, const char *intf_b, char out[TOPO_LINK_ID_LEN + 1],
                  bool *a_first)
{
    char da[TOPO_DPID_MAX + 1], db[TOPO_DPID_MAX + 1];
    char raw[2 * TOPO_INTF_ID_MAX + 4];
    unsigned char md[SHA256_DIGEST_LENGTH];
    uint32_t pa, pb;
    int cmp, n;
    bool first;

    if (!topo_intf_id_parse(intf_a, da, &pa) || !topo_intf_id_parse(intf_b, db, &pb))
        return false;
    /* Python sorts the (dpid, int(port)) tuples */
    cmp = strcmp(da, db);
    first = cmp < 0 || (cmp == 0 && pa <= pb);
    if (first)
        n = snprintf(raw, sizeof(raw), "%s:%u:%s:%u", da, pa, db, pb);
    else
        n = snprintf(raw, sizeof(raw), "%s:%u:%s:%u", db, pb, da, pa);
    if (n < 0 || (size_t)n >= sizeof(raw))
        return false;
    SHA256((const unsigned char *)raw, (size_t)n, md);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    if (a_first)
        *a_first = first;
    return true;
}
