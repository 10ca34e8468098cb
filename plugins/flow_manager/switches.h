/* plugins/flow_manager/switches.h - what flow_manager knows of switches.
 *
 * A local map dpid -> {enabled, connected}, so a POST costs no call to
 * topology.  It is filled from topology's data (kytos_call GET
 * /api/kytos/topology/v3/switches at start, and again when a request names
 * a switch we do not know or think disconnected) and
 * kept current from events; see main.c for the names.  Thread safe. */
#ifndef FM_SWITCHES_H
#define FM_SWITCHES_H

#include <kytos/kytos.h>

#include <stdint.h>

struct fm_switches;

enum fm_sw_state {
    FM_SW_UNKNOWN = 0,
    FM_SW_KNOWN = 1 << 0,
    FM_SW_ENABLED = 1 << 1,
    FM_SW_CONNECTED = 1 << 2
};

struct fm_switches *fm_switches_new(void);
void fm_switches_free(struct fm_switches *s);

/* enum fm_sw_state bits of dpid. */
unsigned fm_switches_get(struct fm_switches *s, const char *dpid);
/* Set or clear bits (creating the entry as known). */
void fm_switches_set(struct fm_switches *s, const char *dpid, unsigned set, unsigned clear);
void fm_switches_remove(struct fm_switches *s, const char *dpid);
/* Every known dpid with all of the given bits, NULL-terminated, malloc'd
 * (one block: free() it). */
char **fm_switches_list(struct fm_switches *s, unsigned need);

/* Merge topology's {"<dpid>": {"enabled", "active", ...}} (the object inside
 * "switches").  Switches absent from it are kept. */
void fm_switches_merge(struct fm_switches *s, struct json_object *switches);
/* A time for fm_switches_refresh: now, on a monotonic clock. */
int64_t fm_switches_clock(void);
#define FM_REFRESH_FORCE INT64_MAX

/* Bring the map up to what topology knew at `since` (fm_switches_clock(),
 * taken once per request or event, so one GET serves all its switches):
 * GET v3/switches and merge, unless a GET that began at or after `since`
 * already did (FM_REFRESH_FORCE: always).  Returns dpid's enum fm_sw_state
 * bits as that GET saw them (the map's when the GET did not name it; 0 for
 * a NULL dpid). */
unsigned fm_switches_refresh(struct fm_switches *s, kytos_napp *napp, int64_t since,
                             const char *dpid);

/* Apply one event (see main.c for the patterns); unknown shapes are ignored. */
void fm_switches_on_event(struct fm_switches *s, const char *name, struct json_object *content);

#endif
