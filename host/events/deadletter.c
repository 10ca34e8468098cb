/* host/events/deadletter.c - per name an insertion-ordered list, plus one id index
 * over all entries so PATCH/DELETE by id cost O(ids), not O(events). */
#include "events/deadletter.h"
#include "events/event_obj.h"
#include "events/event_strmap.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    struct entry *prev, *next;
    struct bucket *bucket;
    struct kh_ev *ev;
    struct json_object *content;
};

struct bucket {
    struct entry *head, *tail; /* head = oldest */
    size_t count;
    char name[];
};

struct kh_deadletter {
    pthread_mutex_t mu;
    kh_strmap *names;   /* name -> struct bucket * */
    kh_strmap *ids;     /* "<name>\n<id>" -> struct entry * */
    size_t max_per_name, max_total, count;
    uint64_t added, evicted, refused;
};

kh_deadletter *kh_deadletter_new(size_t max_per_name, size_t max_total)
{
    kh_deadletter *dl = calloc(1, sizeof *dl);

    if (!dl)
        return NULL;
    dl->names = kh_strmap_new();
    dl->ids = kh_strmap_new();
    if (!dl->names || !dl->ids) {
        kh_strmap_free(dl->names, NULL);
        kh_strmap_free(dl->ids, NULL);
        free(dl);
        return NULL;
    }
    dl->max_per_name = max_per_name ? max_per_name : 50000;
    dl->max_total = max_total ? max_total : 1000000;
    pthread_mutex_init(&dl->mu, NULL);
    return dl;
}

/* The id index key: ids are only unique per name in Kytos' model. */
static void id_key(char *buf, const char *name, const char *id)
{
    size_t n = strlen(name);
    memcpy(buf, name, n);
    buf[n] = '\n';
    memcpy(buf + n + 1, id, KH_UUID_LEN + 1);
}

#define ID_KEY_MAX (KH_EVENT_NAME_MAX + 1 + KH_UUID_LEN + 1)

static void entry_free(struct entry *e)
{
    kh_ev_unref(e->ev);
    json_object_put(e->content);
    free(e);
}

static void unlink_locked(kh_deadletter *dl, struct entry *e)
{
    struct bucket *b = e->bucket;
    char key[ID_KEY_MAX];

    if (e->prev)
        e->prev->next = e->next;
    else
        b->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        b->tail = e->prev;
    b->count--;
    dl->count--;
    id_key(key, b->name, e->ev->id);
    kh_strmap_del(dl->ids, key);
    if (b->count == 0) {
        kh_strmap_del(dl->names, b->name);
        free(b);
    }
}

static void bucket_free(void *p)
{
    struct bucket *b = p;
    struct entry *e = b->head, *next;

    for (; e; e = next) {
        next = e->next;
        entry_free(e);
    }
    free(b);
}

void kh_deadletter_clear(kh_deadletter *dl)
{
    pthread_mutex_lock(&dl->mu);
    kh_strmap_clear(dl->ids, NULL);
    kh_strmap_clear(dl->names, bucket_free);
    dl->count = 0;
    pthread_mutex_unlock(&dl->mu);
}

void kh_deadletter_free(kh_deadletter *dl)
{
    if (!dl)
        return;
    kh_deadletter_clear(dl);
    kh_strmap_free(dl->ids, NULL);
    kh_strmap_free(dl->names, NULL);
    pthread_mutex_destroy(&dl->mu);
    free(dl);
}

int kh_deadletter_add(kh_deadletter *dl, struct kh_ev *ev, struct json_object *content)
{
    char key[ID_KEY_MAX];
    struct bucket *b;
    struct entry *e;
    int rc = 0;

    id_key(key, ev->name, ev->id);
    pthread_mutex_lock(&dl->mu);
    if (kh_strmap_get(dl->ids, key)) {
        pthread_mutex_unlock(&dl->mu);
        json_object_put(content);
        return 0;
    }
    b = kh_strmap_get(dl->names, ev->name);
    if (b && b->count >= dl->max_per_name) {
        struct entry *oldest = b->head;
        unlink_locked(dl, oldest); /* evict the oldest */
        entry_free(oldest);
        dl->evicted++;
        b = kh_strmap_get(dl->names, ev->name); /* freed when it became empty */
    }
    if (dl->count >= dl->max_total) {
        dl->refused++;
        rc = KYTOS_EFULL;
        goto out;
    }
    if (!b) {
        size_t n = strlen(ev->name);
        b = calloc(1, sizeof *b + n + 1);
        if (!b || kh_strmap_put(dl->names, ev->name, b, NULL) != 0) {
            free(b);
            rc = KYTOS_ENOMEM;
            goto out;
        }
        memcpy(b->name, ev->name, n + 1);
    }
    e = calloc(1, sizeof *e);
    if (!e || kh_strmap_put(dl->ids, key, e, NULL) != 0) {
        free(e);
        if (b->count == 0) {
            kh_strmap_del(dl->names, b->name);
            free(b);
        }
        rc = KYTOS_ENOMEM;
        goto out;
    }
    e->bucket = b;
    e->ev = kh_ev_ref(ev);
    e->content = content;
    content = NULL;
    e->prev = b->tail;
    if (b->tail)
        b->tail->next = e;
    else
        b->head = e;
    b->tail = e;
    b->count++;
    dl->count++;
    dl->added++;
out:
    pthread_mutex_unlock(&dl->mu);
    json_object_put(content);
    return rc;
}

static void list_bucket(struct json_object *into, const struct bucket *b)
{
    struct json_object *events = json_object_new_object();
    const struct entry *e;

    for (e = b->head; e; e = e->next)
        json_object_object_add(events, e->ev->id, kh_ev_as_json(e->ev, e->content));
    json_object_object_add(into, b->name, events);
}

static int list_visit(void *ctx, const char *key, void *val)
{
    (void)key;
    list_bucket(ctx, val);
    return 0;
}

struct json_object *kh_deadletter_list(kh_deadletter *dl, const char *name)
{
    struct json_object *out = json_object_new_object();
    struct bucket *b;

    if (!out)
        return NULL;
    /* the content is deep-copied under the lock: json-c caches serialised
     * text inside objects, so the stored copy is never serialised here */
    pthread_mutex_lock(&dl->mu);
    if (name && *name) {
        if ((b = kh_strmap_get(dl->names, name)))
            list_bucket(out, b);
    } else {
        kh_strmap_each(dl->names, list_visit, out);
    }
    pthread_mutex_unlock(&dl->mu);
    return out;
}

/* Python's repr of a set of strings: {'a', 'b'}. */
static char *set_repr(const char *const *ids, const size_t *which, size_t n)
{
    size_t i, len = 3, o = 0;
    char *s;

    for (i = 0; i < n; i++)
        len += strlen(ids[which[i]]) * 4 + 4; /* worst case: every byte escaped */
    s = malloc(len);
    if (!s)
        return NULL;
    s[o++] = '{';
    for (i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)ids[which[i]];
        if (i)
            s[o++] = ',', s[o++] = ' ';
        s[o++] = '\'';
        for (; *p; p++) {
            if (*p == '\'' || *p == '\\') {
                s[o++] = '\\';
                s[o++] = (char)*p;
            } else if (*p < 0x20 || *p == 0x7f) {
                static const char hex[] = "0123456789abcdef";
                s[o++] = '\\', s[o++] = 'x', s[o++] = hex[*p >> 4], s[o++] = hex[*p & 15];
            } else {
                s[o++] = (char)*p;
            }
        }
        s[o++] = '\'';
    }
    s[o++] = '}';
    s[o] = '\0';
    return s;
}

static int dup_before(const char *const *ids, size_t i)
{
    size_t j;
    for (j = 0; j < i; j++)
        if (strcmp(ids[j], ids[i]) == 0)
            return 1;
    return 0;
}

int kh_deadletter_remove(kh_deadletter *dl, const char *name, const char *const *ids, size_t nids,
                         struct kh_dl_item **out, size_t *nout, char **missing)
{
    struct kh_dl_item *items = NULL;
    struct bucket *b;
    size_t *miss = NULL, nmiss = 0, i, n = 0;
    char key[ID_KEY_MAX];
    int rc = KH_DL_OK;

    if (out)
        *out = NULL;
    if (nout)
        *nout = 0;
    if (missing)
        *missing = NULL;
    pthread_mutex_lock(&dl->mu);
    b = name ? kh_strmap_get(dl->names, name) : NULL;
    if (!b) {
        rc = KH_DL_NO_NAME;
        goto out;
    }
    if (nids) {
        miss = malloc(nids * sizeof *miss);
        if (!miss) {
            rc = KYTOS_ENOMEM;
            goto out;
        }
        for (i = 0; i < nids; i++) {
            int known = strlen(ids[i]) == KH_UUID_LEN;
            if (known) {
                id_key(key, name, ids[i]);
                known = kh_strmap_get(dl->ids, key) != NULL;
            }
            if (!known && !dup_before(ids, i))
                miss[nmiss++] = i;
        }
        if (nmiss) {
            if (missing)
                *missing = set_repr(ids, miss, nmiss);
            rc = KH_DL_NO_IDS;
            goto out;
        }
    }
    if (out) {
        items = malloc((nids ? nids : b->count) * sizeof *items);
        if (!items) {
            rc = KYTOS_ENOMEM;
            goto out;
        }
    }
    if (nids) {
        for (i = 0; i < nids; i++) {
            struct entry *e;
            id_key(key, name, ids[i]);
            if (!(e = kh_strmap_get(dl->ids, key)))
                continue; /* a repeated id */
            if (items)
                items[n] = (struct kh_dl_item){kh_ev_ref(e->ev), json_object_get(e->content)};
            n++;
            unlink_locked(dl, e); /* may free b */
            entry_free(e);
        }
    } else {
        size_t total = b->count;
        for (i = 0; i < total; i++) {
            struct entry *e = b->head;
            if (items)
                items[n] = (struct kh_dl_item){kh_ev_ref(e->ev), json_object_get(e->content)};
            n++;
            unlink_locked(dl, e);
            entry_free(e);
        }
    }
out:
    pthread_mutex_unlock(&dl->mu);
    free(miss);
    if (out)
        *out = items;
    if (nout)
        *nout = n;
    return rc;
}

void kh_dl_items_free(struct kh_dl_item *items, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        kh_ev_unref(items[i].ev);
        json_object_put(items[i].content);
    }
    free(items);
}

size_t kh_deadletter_count(kh_deadletter *dl)
{
    size_t n;

    pthread_mutex_lock(&dl->mu);
    n = dl->count;
    pthread_mutex_unlock(&dl->mu);
    return n;
}

void kh_deadletter_stats(kh_deadletter *dl, struct kh_deadletter_stats *st)
{
    pthread_mutex_lock(&dl->mu);
    st->count = dl->count;
    st->names = kh_strmap_count(dl->names);
    st->added = dl->added;
    st->evicted = dl->evicted;
    st->refused = dl->refused;
    pthread_mutex_unlock(&dl->mu);
}
