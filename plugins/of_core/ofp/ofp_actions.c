/* plugins/of_core/ofp/ofp_actions.c - actions (OUTPUT, PUSH/POP_VLAN,
 * SET_QUEUE, GROUP, SET_FIELD) and instructions (GOTO_TABLE,
 * WRITE_METADATA, WRITE/APPLY/CLEAR_ACTIONS, METER).  Every TLV is
 * type u16, len u16, len a multiple of 8 covering the whole TLV. */
#include "ofp_int.h"

#include <string.h>

static int action_encode(struct ofp_buf *b, const struct ofp_action *a, unsigned i, char *err,
                         size_t errlen)
{
    switch (a->type) {
    case OFPAT_OUTPUT:
        ofp_put16(b, a->type);
        ofp_put16(b, 16);
        ofp_put32(b, a->port);
        ofp_put16(b, a->max_len);
        ofp_put_zeros(b, 6);
        return 0;
    case OFPAT_PUSH_VLAN:
        ofp_put16(b, a->type);
        ofp_put16(b, 8);
        ofp_put16(b, a->ethertype);
        ofp_put_zeros(b, 2);
        return 0;
    case OFPAT_POP_VLAN:
        ofp_put16(b, a->type);
        ofp_put16(b, 8);
        ofp_put_zeros(b, 4);
        return 0;
    case OFPAT_SET_QUEUE:
    case OFPAT_GROUP:
        ofp_put16(b, a->type);
        ofp_put16(b, 8);
        ofp_put32(b, a->type == OFPAT_SET_QUEUE ? a->queue_id : a->group_id);
        return 0;
    case OFPAT_SET_FIELD: {
        const struct ofp_oxm *o = &a->field;
        size_t len = (8u + o->len + 7) / 8 * 8;
        if (o->hasmask || o->len == 0 || o->len > OFP_OXM_MAX_PAYLOAD)
            return ofp_fail(err, errlen, OFP_E_INVAL,
                            "action %u: set_field needs one unmasked field", i);
        ofp_put16(b, a->type);
        ofp_put16(b, (uint16_t)len);
        ofp_put16(b, o->oxm_class);
        ofp_put8(b, (uint8_t)((o->field & 0x7f) << 1));
        ofp_put8(b, o->len);
        ofp_put(b, o->data, o->len);
        ofp_put_zeros(b, len - 8 - o->len);
        return 0;
    }
    default:
        return ofp_fail(err, errlen, OFP_E_INVAL, "action %u: type %u cannot be encoded", i,
                        a->type);
    }
}

int ofp_actions_encode(struct ofp_buf *b, const struct ofp_action *a, unsigned n, char *err,
                       size_t errlen)
{
    size_t start = b->len;
    unsigned i;

    for (i = 0; i < n; i++) {
        int rc = action_encode(b, &a[i], i, err, errlen);
        if (rc) {
            if (!b->oom)
                b->len = start;
            return rc;
        }
    }
    return b->oom ? ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory") : 0;
}

static int action_decode(const uint8_t *p, size_t alen, unsigned i, struct ofp_action *a,
                         char *err, size_t errlen)
{
    size_t need = 8, used;
    int rc;

    memset(a, 0, sizeof *a);
    a->type = ofp_rd16(p);
    a->len = (uint16_t)alen;
    if (a->type == OFPAT_OUTPUT)
        need = 16;
    if (alen < need)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "action %u (type %u): length %zu, needs %zu",
                        i, a->type, alen, need);
    switch (a->type) {
    case OFPAT_OUTPUT:
        a->port = ofp_rd32(p + 4);
        a->max_len = ofp_rd16(p + 8);
        break;
    case OFPAT_PUSH_VLAN:
        a->ethertype = ofp_rd16(p + 4);
        break;
    case OFPAT_SET_QUEUE:
        a->queue_id = ofp_rd32(p + 4);
        break;
    case OFPAT_GROUP:
        a->group_id = ofp_rd32(p + 4);
        break;
    case OFPAT_SET_FIELD:
        rc = ofp_oxm_decode(p + 4, alen - 4, &a->field, &used, err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 0)
            memset(&a->field, 0, sizeof a->field);
        break;
    default:
        break;   /* POP_VLAN and types we do not model: type and len only */
    }
    return 0;
}

int ofp_actions_decode(const uint8_t *p, size_t len, struct ofp_action *out, unsigned max,
                       unsigned *n, char *err, size_t errlen)
{
    size_t off = 0;

    *n = 0;
    while (off < len) {
        size_t alen;
        int rc;
        if (len - off < 4)
            return ofp_fail(err, errlen, OFP_E_SHORT, "action %u: %zu bytes, under a header", *n,
                            len - off);
        alen = ofp_rd16(p + off + 2);
        if (alen < 8 || alen % 8 || alen > len - off)
            return ofp_fail(err, errlen, OFP_E_LENGTH,
                            "action %u: length %zu (needs a multiple of 8 in 8..%zu)", *n, alen,
                            len - off);
        if (*n >= max)
            return ofp_fail(err, errlen, OFP_E_LIMIT, "more than %u actions", max);
        rc = action_decode(p + off, alen, *n, &out[*n], err, errlen);
        if (rc)
            return rc;
        (*n)++;
        off += alen;
    }
    return 0;
}

/* ---- instructions ---- */
static int is_actions(uint16_t type)
{
    return type == OFPIT_WRITE_ACTIONS || type == OFPIT_APPLY_ACTIONS ||
           type == OFPIT_CLEAR_ACTIONS;
}

int ofp_instructions_add(struct ofp_instructions *s, const struct ofp_instruction *in, char *err,
                         size_t errlen)
{
    if (s->n >= OFP_MAX_INSTRUCTIONS)
        return ofp_fail(err, errlen, OFP_E_LIMIT, "more than %d instructions",
                        OFP_MAX_INSTRUCTIONS);
    s->ins[s->n] = *in;
    s->ins[s->n].first = s->n_actions;
    s->ins[s->n].n_actions = 0;
    s->n++;
    return 0;
}

int ofp_instructions_add_action(struct ofp_instructions *s, const struct ofp_action *a,
                                char *err, size_t errlen)
{
    struct ofp_instruction *in;

    if (s->n == 0 || !is_actions(s->ins[s->n - 1].type) ||
        s->ins[s->n - 1].type == OFPIT_CLEAR_ACTIONS)
        return ofp_fail(err, errlen, OFP_E_INVAL,
                        "an action needs a write_actions or apply_actions instruction");
    if (s->n_actions >= OFP_MAX_ACTIONS)
        return ofp_fail(err, errlen, OFP_E_LIMIT, "more than %d actions", OFP_MAX_ACTIONS);
    in = &s->ins[s->n - 1];
    s->actions[s->n_actions++] = *a;
    in->n_actions++;
    return 0;
}

static int instruction_encode(struct ofp_buf *b, const struct ofp_instructions *s, unsigned i,
                              char *err, size_t errlen)
{
    const struct ofp_instruction *in = &s->ins[i];
    size_t start = b->len;
    int rc;

    ofp_put16(b, in->type);
    ofp_put16(b, 0);
    switch (in->type) {
    case OFPIT_GOTO_TABLE:
        ofp_put8(b, in->table_id);
        ofp_put_zeros(b, 3);
        break;
    case OFPIT_WRITE_METADATA:
        ofp_put_zeros(b, 4);
        ofp_put64(b, in->metadata);
        ofp_put64(b, in->metadata_mask);
        break;
    case OFPIT_METER:
        ofp_put32(b, in->meter_id);
        break;
    case OFPIT_WRITE_ACTIONS:
    case OFPIT_APPLY_ACTIONS:
    case OFPIT_CLEAR_ACTIONS:
        ofp_put_zeros(b, 4);
        if (in->first > s->n_actions || in->n_actions > s->n_actions - in->first)
            return ofp_fail(err, errlen, OFP_E_INVAL, "instruction %u: action range outside"
                            " the %u actions", i, s->n_actions);
        rc = ofp_actions_encode(b, s->actions + in->first, in->n_actions, err, errlen);
        if (rc)
            return rc;
        break;
    default:
        return ofp_fail(err, errlen, OFP_E_INVAL, "instruction %u: type %u cannot be encoded",
                        i, in->type);
    }
    if (b->len - start > 0xfff8)
        return ofp_fail(err, errlen, OFP_E_TOOBIG, "instruction %u over 65535 bytes", i);
    ofp_patch16(b, start + 2, (uint16_t)(b->len - start));
    return 0;
}

int ofp_instructions_encode(struct ofp_buf *b, const struct ofp_instructions *s, char *err,
                            size_t errlen)
{
    size_t start = b->len;
    unsigned i;

    if (s->n > OFP_MAX_INSTRUCTIONS || s->n_actions > OFP_MAX_ACTIONS)
        return ofp_fail(err, errlen, OFP_E_LIMIT, "instructions: %u / actions: %u", s->n,
                        s->n_actions);
    for (i = 0; i < s->n; i++) {
        int rc = instruction_encode(b, s, i, err, errlen);
        if (rc) {
            if (!b->oom)
                b->len = start;
            return rc;
        }
    }
    return b->oom ? ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory") : 0;
}

static int instruction_decode(const uint8_t *p, size_t ilen, struct ofp_instructions *s,
                              char *err, size_t errlen)
{
    struct ofp_instruction *in = &s->ins[s->n];
    unsigned i = s->n, n = 0;
    size_t need;
    int rc;

    memset(in, 0, sizeof *in);
    in->type = ofp_rd16(p);
    in->first = s->n_actions;
    need = in->type == OFPIT_WRITE_METADATA ? 24 : 8;
    if (ilen < need)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "instruction %u (type %u): length %zu,"
                        " needs %zu", i, in->type, ilen, need);
    switch (in->type) {
    case OFPIT_GOTO_TABLE:
        in->table_id = p[4];
        break;
    case OFPIT_WRITE_METADATA:
        in->metadata = ofp_rd64(p + 8);
        in->metadata_mask = ofp_rd64(p + 16);
        break;
    case OFPIT_METER:
        in->meter_id = ofp_rd32(p + 4);
        break;
    case OFPIT_WRITE_ACTIONS:
    case OFPIT_APPLY_ACTIONS:
    case OFPIT_CLEAR_ACTIONS:
        rc = ofp_actions_decode(p + 8, ilen - 8, s->actions + s->n_actions,
                                OFP_MAX_ACTIONS - s->n_actions, &n, err, errlen);
        if (rc)
            return rc;
        in->n_actions = n;
        s->n_actions += n;
        break;
    default:
        return ofp_fail(err, errlen, OFP_E_TYPE, "instruction %u: unknown type %u", i,
                        in->type);
    }
    s->n++;
    return 0;
}

int ofp_instructions_decode(const uint8_t *p, size_t len, struct ofp_instructions *s, char *err,
                            size_t errlen)
{
    size_t off = 0;

    s->n = 0;
    s->n_actions = 0;
    while (off < len) {
        size_t ilen;
        int rc;
        if (len - off < 4)
            return ofp_fail(err, errlen, OFP_E_SHORT, "instruction %u: %zu bytes, under a header",
                            s->n, len - off);
        ilen = ofp_rd16(p + off + 2);
        if (ilen < 8 || ilen % 8 || ilen > len - off)
            return ofp_fail(err, errlen, OFP_E_LENGTH,
                            "instruction %u: length %zu (needs a multiple of 8 in 8..%zu)", s->n,
                            ilen, len - off);
        if (s->n >= OFP_MAX_INSTRUCTIONS)
            return ofp_fail(err, errlen, OFP_E_LIMIT, "more than %d instructions",
                            OFP_MAX_INSTRUCTIONS);
        rc = instruction_decode(p + off, ilen, s, err, errlen);
        if (rc)
            return rc;
        off += ilen;
    }
    return 0;
}
