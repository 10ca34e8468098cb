/* host/http/connlimit.c - connection counts, in total and per client address
 * (see connlimit.h).  One mutex: taken once per accepted and per closed
 * connection, far from the per-request path.  The per-address table
 * holds only addresses with a connection open, so it is bounded by the
 * total limit (or by the connections kytosd can have open). */
#include "http/connlimit.h"
#include "http/client_group.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024   /* a power of two */

struct peer {
    struct peer *next;
    unsigned char key[KH_CLIENT_KEY_LEN];
    unsigned count;
};

struct kh_connlimit {
    pthread_mutex_t mu;
    unsigned max_total, max_per_ip, total, v6_prefix;
    struct peer *buckets[BUCKETS];
};

struct kh_connlimit *kh_connlimit_new(unsigned max_total, unsigned max_per_ip, unsigned v6_prefix)
{
    struct kh_connlimit *cl = calloc(1, sizeof *cl);

    if (!cl)
        return NULL;
    pthread_mutex_init(&cl->mu, NULL);
    cl->max_total = max_total;
    cl->max_per_ip = max_per_ip;
    cl->v6_prefix = v6_prefix;
    return cl;
}

void kh_connlimit_free(struct kh_connlimit *cl)
{
    size_t i;

    if (!cl)
        return;
    for (i = 0; i < BUCKETS; i++) {
        while (cl->buckets[i]) {
            struct peer *p = cl->buckets[i];
            cl->buckets[i] = p->next;
            free(p);
        }
    }
    pthread_mutex_destroy(&cl->mu);
    free(cl);
}

/* The client group of an address (client_group.h); 0, or -1 for a
 * family without one. */
static int key_of(const struct kh_connlimit *cl, const struct sockaddr *addr,
                  unsigned char key[KH_CLIENT_KEY_LEN])
{
    return kh_client_key(addr, cl->v6_prefix, key);
}

static struct peer **slot(struct kh_connlimit *cl, const unsigned char key[KH_CLIENT_KEY_LEN])
{
    uint32_t h = 2166136261u;
    struct peer **pp;
    size_t i;

    for (i = 0; i < KH_CLIENT_KEY_LEN; i++)
        h = (h ^ key[i]) * 16777619u;
    for (pp = &cl->buckets[h & (BUCKETS - 1)]; *pp; pp = &(*pp)->next)
        if (memcmp((*pp)->key, key, KH_CLIENT_KEY_LEN) == 0)
            break;
    return pp;   /* the entry, or where to link a new one */
}

enum kh_conn_verdict kh_connlimit_take(struct kh_connlimit *cl, const struct sockaddr *addr)
{
    unsigned char key[KH_CLIENT_KEY_LEN];
    enum kh_conn_verdict v = KH_CONN_OK;
    struct peer **pp;

    pthread_mutex_lock(&cl->mu);
    if (cl->max_total && cl->total >= cl->max_total) {
        v = KH_CONN_TOTAL;
    } else if (key_of(cl, addr, key) == 0) {
        pp = slot(cl, key);
        if (*pp && cl->max_per_ip && (*pp)->count >= cl->max_per_ip) {
            v = KH_CONN_PER_IP;
        } else if (*pp) {
            (*pp)->count++;
        } else {
            struct peer *p = calloc(1, sizeof *p);
            if (p) {   /* out of memory: counted in total only */
                memcpy(p->key, key, KH_CLIENT_KEY_LEN);
                p->count = 1;
                *pp = p;
            }
        }
    }
    if (v == KH_CONN_OK)
        cl->total++;
    pthread_mutex_unlock(&cl->mu);
    return v;
}

int kh_connlimit_ip_full(struct kh_connlimit *cl, const struct sockaddr *addr)
{
    unsigned char key[KH_CLIENT_KEY_LEN];
    struct peer **pp;
    int full = 0;

    pthread_mutex_lock(&cl->mu);
    if (cl->max_per_ip && key_of(cl, addr, key) == 0 && *(pp = slot(cl, key)))
        full = (*pp)->count >= cl->max_per_ip;
    pthread_mutex_unlock(&cl->mu);
    return full;
}

void kh_connlimit_put(struct kh_connlimit *cl, const struct sockaddr *addr)
{
    unsigned char key[KH_CLIENT_KEY_LEN];
    struct peer **pp;

    pthread_mutex_lock(&cl->mu);
    if (cl->total)
        cl->total--;
    if (key_of(cl, addr, key) == 0 && *(pp = slot(cl, key)) && --(*pp)->count == 0) {
        struct peer *p = *pp;
        *pp = p->next;
        free(p);
    }
    pthread_mutex_unlock(&cl->mu);
}

unsigned kh_connlimit_max_total(const struct kh_connlimit *cl)
{
    return cl->max_total;
}

unsigned kh_connlimit_max_per_ip(const struct kh_connlimit *cl)
{
    return cl->max_per_ip;
}
