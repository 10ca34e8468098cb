/* plugins/of_l2ls/mac_table.h - the learned MAC -> port table of every
 * switch, bounded: at most max_macs addresses per switch and max_switches
 * switches (a switch that sends packet-ins from ever new source addresses
 * cannot grow kytosd).  Not thread safe: the caller serialises. */
#ifndef OF_L2LS_MAC_TABLE_H
#define OF_L2LS_MAC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct l2_switch_macs;

struct l2_mac_tables {
    struct l2_switch_macs **sw;
    size_t n_sw, max_switches, max_macs;
    uint64_t forgotten;             /* tables flushed because they were full */
};

void l2_tables_init(struct l2_mac_tables *t, size_t max_switches, size_t max_macs);
void l2_tables_free(struct l2_mac_tables *t);
/* Learn mac (48 bits) at port on dpid.  A full table is flushed first, as
 * a switch's own MAC table ages out; 0, or -1 when dpid is one switch too
 * many (or memory ran out). */
int l2_learn(struct l2_mac_tables *t, const char *dpid, uint64_t mac, uint32_t port);
/* The port mac was learned at on dpid: true and *port, or false. */
bool l2_lookup(const struct l2_mac_tables *t, const char *dpid, uint64_t mac, uint32_t *port);
/* Forget what dpid learned (a new connection of that switch). */
void l2_forget_switch(struct l2_mac_tables *t, const char *dpid);

#endif
