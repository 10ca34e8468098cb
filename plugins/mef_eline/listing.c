/* plugins/mef_eline/listing.c - GET v2/evc/ without reading the store.
 *
 * The plain listing (no metadata filter, archived absent or false) is every
 * live EVC's document as last stored.  Reading it back from the store parsed
 * each stored document into json-c objects and serialised the whole tree
 * again, per request (1 to 5 s at 2,000 EVCs, issue 22).  Instead each EVC
 * keeps the text of the document it last stored (me_listing_set, called
 * where the document is written or loaded), and the listing joins those
 * texts: no parse, no tree, one copy.
 *
 * The text is what the store holds: a write the store refused leaves the
 * previous text; an archived EVC has none (the default listing leaves it
 * out, as the store's filter did); an EVC being created has none until its
 * first write.  Guarded by me->lock (taken after e->lock). */
#include "me.h"

#include <stdlib.h>
#include <string.h>

#define LISTING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

void me_listing_set(struct me *me, struct me_evc *e)
{
    const char *t = NULL;
    char *copy = NULL;
    size_t n = 0;

    /* the stored document's key, not a field the listing shows */
    if (e->doc)
        json_object_object_del(e->doc, "_id");
    if (!e->archived && e->doc) {
        if ((t = json_object_to_json_string_length(e->doc, LISTING_FLAGS, &n)) &&
            (copy = malloc(n + 1)))
            memcpy(copy, t, n + 1);
        else   /* out of memory: the listing would miss it, the store has it */
            atomic_store(&me->listing_partial, true);
    }
    pthread_mutex_lock(&me->lock);
    free(e->listing);
    e->listing = copy;
    e->listing_len = copy ? n : 0;
    pthread_mutex_unlock(&me->lock);
}

void me_listing_clear(struct me_evc *e)
{
    free(e->listing);
    e->listing = NULL;
    e->listing_len = 0;
}

/* Room for {"<id>":<doc>,...}: a size check before the copy. */
static size_t listing_size(const struct me *me)
{
    size_t i, total = 2;
    for (i = 0; i < me->nbuckets; i++)
        for (const struct me_evc *e = me->buckets[i]; e; e = e->next)
            if (e->listing)
                total += ME_ID_LEN + 4 + e->listing_len;
    return total;
}

int me_listing_answer(struct me *me, kytos_req *req)
{
    char *buf = NULL, *p = NULL;
    size_t i, cap;
    bool first = true;

    pthread_mutex_lock(&me->lock);
    cap = listing_size(me);
    if ((buf = malloc(cap + 1))) {
        p = buf;
        *p++ = '{';
        for (i = 0; i < me->nbuckets; i++) {
            for (const struct me_evc *e = me->buckets[i]; e; e = e->next) {
                if (!e->listing)
                    continue;
                if (!first)
                    *p++ = ',';
                first = false;
                /* ids are 14 hex digits (me_evc_new's callers check it) */
                *p++ = '"';
                memcpy(p, e->id, ME_ID_LEN);
                p += ME_ID_LEN;
                *p++ = '"';
                *p++ = ':';
                memcpy(p, e->listing, e->listing_len);
                p += e->listing_len;
            }
        }
        *p++ = '}';
        *p = '\0';
    }
    pthread_mutex_unlock(&me->lock);
    if (!buf)
        return kytos_resp_error(req, 500, "Failed to list EVCs: out of memory");
    /* on failure kytos_resp_static has already freed buf */
    return kytos_resp_static(req, 200, "application/json", buf, (size_t)(p - buf), free, buf);
}
