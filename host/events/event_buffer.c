/* host/events/event_buffer.c - ring (FIFO) or binary heap (priority) under one
 * mutex; the array grows on demand up to the buffer's limit. */
#include "events/event_buffer.h"
#include "events/event_obj.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kh_buffer {
    char name[32];
    int type;
    size_t maxsize, limit;
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
    struct kh_ev **items;
    size_t cap, head, count;
    size_t reserved;            /* slots promised by kh_buffer_reserve */
    uint64_t next_seq;
    int closed, aborted;
    unsigned getters, putters;  /* threads waiting: signal only when someone waits */
    size_t high_water;
    uint64_t put, got, full, timeouts, refused, dropped;
};

#define INITIAL_CAP 64

kh_buffer *kh_buffer_new(const char *name, int type, size_t maxsize, size_t hard_cap)
{
    kh_buffer *b = calloc(1, sizeof *b);

    if (!b)
        return NULL;
    snprintf(b->name, sizeof b->name, "%s", name);
    b->type = type;
    b->maxsize = maxsize;
    b->limit = maxsize ? maxsize : hard_cap;
    if (b->limit == 0)
        b->limit = 1;
    b->cap = b->limit < INITIAL_CAP ? b->limit : INITIAL_CAP;
    b->items = calloc(b->cap, sizeof *b->items);
    if (!b->items) {
        free(b);
        return NULL;
    }
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->not_empty, NULL);
    kh_cond_init_mono(&b->not_full);
    return b;
}

static struct kh_ev *pop_locked(kh_buffer *b);

void kh_buffer_free(kh_buffer *b)
{
    struct kh_ev *e;

    if (!b)
        return;
    while (b->count && (e = pop_locked(b)))
        kh_ev_unref(e);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->not_empty);
    pthread_cond_destroy(&b->not_full);
    free(b->items);
    free(b);
}

static int before(const struct kh_ev *a, const struct kh_ev *c)
{
    if (a->priority != c->priority)
        return a->priority < c->priority;
    return a->seq < c->seq;
}

/* Grow the array (keeping ring order) when full but under the limit. */
static int reserve_locked(kh_buffer *b)
{
    size_t ncap, i;
    struct kh_ev **n;

    if (b->count < b->cap)
        return 0;
    ncap = b->cap * 2;
    if (ncap > b->limit)
        ncap = b->limit;
    if (ncap <= b->cap)
        return -1;
    n = malloc(ncap * sizeof *n);
    if (!n)
        return -1;
    for (i = 0; i < b->count; i++)
        n[i] = b->items[(b->head + i) % b->cap];
    free(b->items);
    b->items = n;
    b->cap = ncap;
    b->head = 0;
    return 0;
}

static void push_locked(kh_buffer *b, struct kh_ev *e)
{
    e->seq = b->next_seq++;
    if (b->type == KH_BUF_PRIORITY) {
        size_t i = b->count;
        while (i > 0) {
            size_t parent = (i - 1) / 2;
            if (!before(e, b->items[parent]))
                break;
            b->items[i] = b->items[parent];
            i = parent;
        }
        b->items[i] = e;
    } else {
        b->items[(b->head + b->count) % b->cap] = e;
    }
    b->count++;
    b->put++;
    if (b->count > b->high_water)
        b->high_water = b->count;
    if (b->getters)
        pthread_cond_signal(&b->not_empty);
}

static struct kh_ev *pop_locked(kh_buffer *b)
{
    struct kh_ev *top;

    if (b->type != KH_BUF_PRIORITY) {
        top = b->items[b->head];
        b->head = (b->head + 1) % b->cap;
        b->count--;
        return top;
    }
    top = b->items[0];
    if (--b->count > 0) {
        struct kh_ev *last = b->items[b->count];
        size_t i = 0;
        for (;;) {
            size_t l = 2 * i + 1, r = l + 1, m = i;
            const struct kh_ev *mv = last;
            if (l < b->count && before(b->items[l], mv))
                m = l, mv = b->items[l];
            if (r < b->count && before(b->items[r], mv))
                m = r;
            if (m == i)
                break;
            b->items[i] = b->items[m];
            i = m;
        }
        b->items[i] = last;
    }
    return top;
}

/* Wait for room (count + reserved < limit); called locked.  0 or an error. */
static int wait_room_locked(kh_buffer *b, int timeout_ms)
{
    struct timespec dl;
    int rc = 0;

    if (timeout_ms > 0)
        kh_deadline_ms(&dl, timeout_ms);
    while (!b->closed && b->count + b->reserved >= b->limit) {
        if (timeout_ms == 0) {
            rc = KYTOS_EFULL;
            b->full++;
            break;
        }
        b->putters++;
        if (timeout_ms < 0) {
            pthread_cond_wait(&b->not_full, &b->mu);
        } else if (pthread_cond_timedwait(&b->not_full, &b->mu, &dl) == ETIMEDOUT &&
                   !b->closed && b->count + b->reserved >= b->limit) {
            rc = KYTOS_ETIMEDOUT;
            b->timeouts++;
        }
        b->putters--;
        if (rc)
            break;
    }
    if (rc == 0 && b->closed) {
        rc = KYTOS_EUNAVAIL;
        b->refused++;
    }
    return rc;
}

int kh_buffer_put(kh_buffer *b, struct kh_ev *e, int timeout_ms)
{
    int rc;

    pthread_mutex_lock(&b->mu);
    rc = wait_room_locked(b, timeout_ms);
    if (rc == 0 && reserve_locked(b) != 0)
        rc = KYTOS_ENOMEM;
    if (rc == 0)
        push_locked(b, e);
    pthread_mutex_unlock(&b->mu);
    return rc;
}

int kh_buffer_reserve(kh_buffer *b, int timeout_ms)
{
    int rc;

    pthread_mutex_lock(&b->mu);
    rc = wait_room_locked(b, timeout_ms);
    if (rc == 0)
        b->reserved++;
    pthread_mutex_unlock(&b->mu);
    return rc;
}

int kh_buffer_commit(kh_buffer *b, struct kh_ev *e)
{
    int rc = 0;

    pthread_mutex_lock(&b->mu);
    b->reserved--;
    if (reserve_locked(b) != 0)
        rc = KYTOS_ENOMEM;
    else
        push_locked(b, e);
    if (rc && b->putters)
        pthread_cond_signal(&b->not_full);
    pthread_mutex_unlock(&b->mu);
    return rc;
}

int kh_buffer_put_force(kh_buffer *b, struct kh_ev *e)
{
    int rc = 0;

    pthread_mutex_lock(&b->mu);
    if (b->count >= b->cap) {
        /* past the limit: grow by one slot at least */
        size_t save = b->limit;
        b->limit = b->count + 1 > b->limit ? b->count + 1 : b->limit;
        rc = reserve_locked(b) == 0 ? 0 : KYTOS_ENOMEM;
        b->limit = save;
    }
    if (rc == 0)
        push_locked(b, e);
    pthread_mutex_unlock(&b->mu);
    return rc;
}

struct kh_ev *kh_buffer_get(kh_buffer *b)
{
    struct kh_ev *e = NULL;

    pthread_mutex_lock(&b->mu);
    while (b->count == 0 && !b->closed && !b->aborted) {
        b->getters++;
        pthread_cond_wait(&b->not_empty, &b->mu);
        b->getters--;
    }
    if (b->count > 0 && !b->aborted) {
        e = pop_locked(b);
        b->got++;
        if (b->putters)
            pthread_cond_signal(&b->not_full);
    }
    pthread_mutex_unlock(&b->mu);
    return e;
}

void kh_buffer_close(kh_buffer *b)
{
    pthread_mutex_lock(&b->mu);
    b->closed = 1;
    pthread_cond_broadcast(&b->not_empty);
    pthread_cond_broadcast(&b->not_full);
    pthread_mutex_unlock(&b->mu);
}

size_t kh_buffer_abort(kh_buffer *b)
{
    struct kh_ev *e;
    size_t n = 0;

    pthread_mutex_lock(&b->mu);
    b->closed = b->aborted = 1;
    while (b->count > 0) {
        e = pop_locked(b);
        kh_ev_unref(e);
        n++;
    }
    b->dropped += n;
    pthread_cond_broadcast(&b->not_empty);
    pthread_cond_broadcast(&b->not_full);
    pthread_mutex_unlock(&b->mu);
    return n;
}

void kh_buffer_stats(kh_buffer *b, struct kh_buffer_stats *s)
{
    pthread_mutex_lock(&b->mu);
    s->type = b->type;
    s->depth = b->count;
    s->maxsize = b->maxsize;
    s->limit = b->limit;
    s->high_water = b->high_water;
    s->put = b->put;
    s->got = b->got;
    s->full = b->full;
    s->timeouts = b->timeouts;
    s->refused = b->refused;
    s->aborted = b->dropped;
    pthread_mutex_unlock(&b->mu);
}

size_t kh_buffer_depth(kh_buffer *b)
{
    size_t n;

    pthread_mutex_lock(&b->mu);
    n = b->count;
    pthread_mutex_unlock(&b->mu);
    return n;
}

const char *kh_buffer_name(const kh_buffer *b) { return b->name; }
