/* host/http/idle_conns.c - connections between requests, oldest first (see
 * idle_conns.h).  One mutex, taken twice per request (it begins, it is
 * answered): a list unlink or append, nothing more under it. */
#include "http/idle_conns.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct kh_idle_conns {
    pthread_mutex_t mu;
    struct kh_idle_link *head, *tail;   /* head: idle the longest */
    unsigned count;
};

struct kh_idle_conns *kh_idle_conns_new(void)
{
    struct kh_idle_conns *set = calloc(1, sizeof *set);

    if (set)
        pthread_mutex_init(&set->mu, NULL);
    return set;
}

void kh_idle_conns_free(struct kh_idle_conns *set)
{
    if (!set)
        return;
    pthread_mutex_destroy(&set->mu);
    free(set);
}

static void unlink_locked(struct kh_idle_conns *set, struct kh_idle_link *l)
{
    if (!l->idle)
        return;
    if (l->prev)
        l->prev->next = l->next;
    else
        set->head = l->next;
    if (l->next)
        l->next->prev = l->prev;
    else
        set->tail = l->prev;
    l->prev = l->next = NULL;
    l->idle = false;
    set->count--;
}

void kh_idle_enter(struct kh_idle_conns *set, struct kh_idle_link *l, int64_t now_ms)
{
    pthread_mutex_lock(&set->mu);
    /* a reclaimed one is closing: it stays off */
    if (!l->reclaimed) {
        unlink_locked(set, l);
        l->idle_since_ms = now_ms;
        l->prev = set->tail;
        l->next = NULL;
        if (set->tail)
            set->tail->next = l;
        else
            set->head = l;
        set->tail = l;
        l->idle = true;
        set->count++;
    }
    pthread_mutex_unlock(&set->mu);
}

void kh_idle_leave(struct kh_idle_conns *set, struct kh_idle_link *l)
{
    pthread_mutex_lock(&set->mu);
    unlink_locked(set, l);
    pthread_mutex_unlock(&set->mu);
}

bool kh_idle_closed(struct kh_idle_conns *set, struct kh_idle_link *l)
{
    bool reclaimed;

    pthread_mutex_lock(&set->mu);
    unlink_locked(set, l);
    reclaimed = l->reclaimed;
    l->fd = -1;
    pthread_mutex_unlock(&set->mu);
    return reclaimed;
}

/* Bytes wait unread on it: a request is arriving, not idle. */
static bool has_input(int fd)
{
    char c;
    return fd >= 0 && recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

/* How many candidates with input to pass over at most, under the lock. */
#define RECLAIM_LOOK 16

int kh_idle_reclaim(struct kh_idle_conns *set, int64_t now_ms, int64_t min_idle_ms,
                    struct sockaddr_storage *addr)
{
    struct kh_idle_link *l;
    int rc = -1, looked = 0;

    pthread_mutex_lock(&set->mu);
    for (l = set->head; l && looked < RECLAIM_LOOK; l = l->next, looked++) {
        if (now_ms - l->idle_since_ms < min_idle_ms)
            break;   /* the rest are younger */
        if (l->fd < 0 || has_input(l->fd))
            continue;
        unlink_locked(set, l);
        l->reclaimed = true;
        memcpy(addr, &l->addr, sizeof *addr);
        /* both ways: the client reads the end of the stream, and
         * libmicrohttpd's next read on it returns 0, so it closes it */
        shutdown(l->fd, SHUT_RDWR);
        rc = 0;
        break;
    }
    pthread_mutex_unlock(&set->mu);
    return rc;
}

unsigned kh_idle_count(struct kh_idle_conns *set)
{
    unsigned n;

    pthread_mutex_lock(&set->mu);
    n = set->count;
    pthread_mutex_unlock(&set->mu);
    return n;
}
