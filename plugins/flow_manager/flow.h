/* plugins/flow_manager/flow.h - one flow of a request: checks, Kytos ids,
 * the stored sub-document and the of_core-style dict.
 *
 * Checks follow what Kytos' of_core Flow/FlowMod packing and flow_manager's
 * FlowDoc model reject (napps.md 2.2): integer fields are integers of the
 * OpenFlow width (cookie up to 2**64-1), match fields are of_core's names
 * with their types, actions/instructions have known types and their
 * required fields.  Unknown match keys are ignored, as of_core does. */
#ifndef FM_FLOW_H
#define FM_FLOW_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

enum fm_cmd { FM_ADD = 0, FM_DELETE = 1, FM_DELETE_STRICT = 2 };

struct fm_flow {
    struct json_object *src;          /* the request's flow object, borrowed */
    uint64_t cookie, cookie_mask;
    int64_t table_id, priority, idle_timeout, hard_timeout;
    int has_cookie, has_cookie_mask;
    struct json_object *match;        /* known, non-null fields (new ref, never NULL) */
    struct json_object *instructions; /* of_core as_dict instructions (new ref) */
    char *match_py;                   /* json.dumps(match, sort_keys=True) */
    char *instr_py;                   /* json.dumps(instructions, sort_keys=True) */
    /* fm_flow_ids' memo: the ids on switch ids_dpid ("" = none yet) */
    char ids_dpid[48];
    char ids_match[33], ids_flow[33];
};

/* Check src as a flow for cmd and fill f.  0, or -1 with Kytos' 400 text in
 * err.  fm_flow_clear releases what parse built (also after a failure). */
int fm_flow_parse(struct json_object *src, int cmd, struct fm_flow *f, char *err, size_t errlen);
void fm_flow_clear(struct fm_flow *f);

/* What of_core's Flow.from_dict raises as TypeError or KeyError for the
 * request's flow src (an unknown or missing action_type/instruction_type,
 * an action's unexpected or missing argument, actions or instructions that
 * are not iterable): 0, or -1 with Kytos' 400 text in err, "It couldn't
 * serialize flow_dict: <repr(src)>. Exception type: <class '...'> Error:
 * ... ".  Kytos serialises before it validates anything else of a flow. */
int fm_flow_from_dict_check(struct json_object *src, char *err, size_t errlen);

/* match_id and flow_id of this flow on switch dpid (md5 hex).  Remembers
 * the last ones in f (so f must not be used by two threads at once). */
void fm_flow_ids(const struct fm_flow *f, const char *dpid, char match_id[33], char flow_id[33]);

/* The stored "flow" sub-document (FlowSubDoc: table_id, owner, table_group,
 * priority, cookie, idle_timeout, hard_timeout, match, actions|instructions). New ref. */
struct json_object *fm_flow_doc(const struct fm_flow *f);

/* of_core Flow.as_dict(): switch, table_id, match, priority, idle_timeout,
 * hard_timeout, cookie, cookie_mask, instructions, id (flow_id). New ref;
 * it shares match and instructions with f (see fm_flow_as_dict_own). */
struct json_object *fm_flow_as_dict(const struct fm_flow *f, const char *dpid,
                                    const char *flow_id);
/* The same sharing nothing with f or anything else: for another thread
 * (kytos_event_publish_give).  NULL when out of memory. */
struct json_object *fm_flow_as_dict_own(const struct fm_flow *f, const char *dpid,
                                        const char *flow_id);

/* Non-strict match of a request flow against a stored "flow" sub-document
 * (flow_manager match.py): cookie under mask, then every match field of the
 * request equal in the stored match.  1 when it matches. */
int fm_flow_matches(const struct fm_flow *req, struct json_object *stored_flow);

/* The stored "flow" sub-document's cookie is in req's cookie range,
 * cookie & cookie_mask .. cookie | ~cookie_mask (all of them without a
 * mask): the candidates of Kytos' delete_matched_flows. */
int fm_flow_cookie_in_range(const struct fm_flow *req, struct json_object *stored_flow);

/* Integer helpers shared by the REST code: 1 when v is a JSON integer
 * (not a bool, not a float) that fits [0, max]; *out gets it. */
int fm_json_uint(struct json_object *v, uint64_t max, uint64_t *out);

#endif
