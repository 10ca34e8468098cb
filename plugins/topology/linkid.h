/* plugins/topology/linkid.h - Kytos' identifiers: interface ids and link ids.
 *
 * An interface id is "<dpid>:<port_number>"; a link id is the sha256 hex of
 * the two interface ids joined by ':' after sorting them by (dpid, port) as
 * kytos.core.id.LinkID does.  Shared with plugins/simnet (compiled into both
 * .so files; every symbol is hidden). */
#ifndef TOPO_LINKID_H
#define TOPO_LINKID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_LINK_ID_LEN 64      /* hex chars, without the NUL */
#define TOPO_DPID_MAX 128        /* longest dpid we accept */
#define TOPO_INTF_ID_MAX (TOPO_DPID_MAX + 12)

/* True when s is an acceptable dpid: 1..TOPO_DPID_MAX printable ASCII
 * characters, no '/' (it could not be routed back), no space. */
bool topo_dpid_valid(const char *s);

/* Split "<dpid>:<port>" at its last ':'.  dpid receives a NUL-terminated
 * copy (size TOPO_DPID_MAX + 1).  false when malformed: no ':', empty or
 * invalid dpid, port not a decimal number in [0, 2^32-1]. */
bool topo_intf_id_parse(const char *id, char *dpid, uint32_t *port);

/* Write the link id of the two interface ids into out (65 bytes).  false
 * if either id is malformed.  *a_first tells whether intf_a sorts first
 * (it becomes endpoint_a), may be NULL. */
bool topo_link_id(const char *intf_a, const char *intf_b, char out[TOPO_LINK_ID_LEN + 1],
                  bool *a_first);

#endif
