/* host/http/ratelimit.c - see ratelimit.h.  Clients hash into 4096 slots guarded
 * by 64 striped locks; a slot taken by another client is reclaimed when its
 * window has passed, so a flood of addresses evicts only idle entries. */
#include "http/ratelimit.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4096
#define STRIPES 64

struct slot {
    char client[48];
    int64_t window;      /* the second this count belongs to */
    unsigned count;
};

struct kh_ratelimit {
    unsigned limit;
    pthread_mutex_t mu[STRIPES];
    struct slot slots[SLOTS];
};

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

struct kh_ratelimit *kh_ratelimit_new(unsigned per_second)
{
    struct kh_ratelimit *rl;
    int i;
    if (per_second == 0)
        return NULL;
    rl = calloc(1, sizeof *rl);
    if (!rl)
        return NULL;
    rl->limit = per_second;
    for (i = 0; i < STRIPES; i++)
        pthread_mutex_init(&rl->mu[i], NULL);
    return rl;
}

void kh_ratelimit_free(struct kh_ratelimit *rl)
{
    int i;
    if (!rl)
        return;
    for (i = 0; i < STRIPES; i++)
        pthread_mutex_destroy(&rl->mu[i]);
    free(rl);
}

int kh_ratelimit_hit(struct kh_ratelimit *rl, const char *client, int64_t now_ms)
{
    uint32_t h = hash(client);
    struct slot *s = &rl->slots[h % SLOTS];
    pthread_mutex_t *mu = &rl->mu[h % STRIPES];
    int64_t sec = now_ms / 1000;
    int rc = 0;

    pthread_mutex_lock(mu);
    if (strncmp(s->client, client, sizeof s->client) != 0 || s->window != sec) {
        if (strncmp(s->client, client, sizeof s->client) != 0 && s->window == sec &&
            s->count >= rl->limit) {
            /* the slot is busy with another client this second: share it
             * (both are limited together) rather than lose the count */
        } else {
            strncpy(s->client, client, sizeof s->client - 1);
            s->client[sizeof s->client - 1] = '\0';
            s->window = sec;
            s->count = 0;
        }
    }
    if (s->count >= rl->limit)
        rc = 1;
    else
        s->count++;
    pthread_mutex_unlock(mu);
    return rc;
}
