/* host/southbound/handlers.c - protocol handlers: which NApp takes the
 * connections of a protocol, binding a new connection to it, and letting
 * go of a NApp's connections when it unloads. */
#include "southbound/sb_impl.h"
#include "napps/guard.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int protocol_valid(const char *p)
{
    size_t n = 0;

    if (!p)
        return 0;
    for (; p[n]; n++)
        if (!((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
              (p[n] >= '0' && p[n] <= '9') || p[n] == '_' || p[n] == '-' || p[n] == '.'))
            return 0;
    return n > 0 && n < KH_SB_PROTO_MAX;
}

static size_t find_handler(const kh_sb *sb, const char *protocol)
{
    size_t i;
    for (i = 0; i < sb->nhandlers; i++)
        if (strcmp(sb->handlers[i].protocol, protocol) == 0)
            return i;
    return sb->nhandlers;
}

static void unbind_wait(kh_sb *sb, kytos_napp *n, int crashed);

int kh_sb_handle(kh_sb *sb, kytos_napp *n, const struct kytos_conn_handler *h)
{
    struct kytos_conn_handler cb = {0};
    size_t i, need = offsetof(struct kytos_conn_handler, on_message) + sizeof cb.on_message;
    int remove, rc = KYTOS_OK;

    if (!sb || !n || !h || h->struct_size < need)
        return KYTOS_EINVAL;
    memcpy(&cb, h, h->struct_size < sizeof cb ? h->struct_size : sizeof cb);
    cb.struct_size = sizeof cb;
    if (!protocol_valid(cb.protocol)) {
        kh_log(KH_SB_LOGGER, KH_ERROR, "%s: bad protocol name for a connection handler",
               kh_napp_id(n));
        return KYTOS_EINVAL;
    }
    remove = !cb.on_open && !cb.on_message && !cb.on_close;
    if (!remove && !cb.on_message)
        return KYTOS_EINVAL;

    pthread_mutex_lock(&sb->hnd_mu);
    i = find_handler(sb, cb.protocol);
    if (remove) {
        if (i < sb->nhandlers && sb->handlers[i].h.napp == n) {
            sb->handlers[i] = sb->handlers[--sb->nhandlers];
        } else {
            rc = KYTOS_ENOTFOUND;
        }
    } else if (i < sb->nhandlers && sb->handlers[i].h.napp != n &&
               strcmp(kh_napp_id(sb->handlers[i].h.napp), kh_napp_id(n)) != 0) {
        kh_log(KH_SB_LOGGER, KH_ERROR, "%s cannot handle %s connections: %s does",
               kh_napp_id(n), cb.protocol, kh_napp_id(sb->handlers[i].h.napp));
        rc = KYTOS_EEXIST;
    } else if (i == sb->nhandlers && sb->nhandlers == KH_SB_MAX_HANDLERS) {
        rc = KYTOS_EFULL;
    } else {
        /* new, or the same NApp again, or a new version of it taking over */
        if (i == sb->nhandlers)
            sb->nhandlers++;
        else if (sb->handlers[i].h.napp != n && sb->nretired < KH_SB_MAX_HANDLERS)
            sb->retired[sb->nretired++] = sb->handlers[i].h.napp;
        snprintf(sb->handlers[i].protocol, sizeof sb->handlers[i].protocol, "%s", cb.protocol);
        cb.protocol = sb->handlers[i].protocol;
        sb->handlers[i].h.napp = n;
        sb->handlers[i].h.cb = cb;
    }
    pthread_mutex_unlock(&sb->hnd_mu);
    if (rc != KYTOS_OK)
        return rc;
    if (remove) {
        /* one listener, one protocol: its connections are all of it */
        if (strcmp(h->protocol, kh_sb_protocol(sb)) == 0)
            unbind_wait(sb, n, 0);
        return KYTOS_OK;
    }
    kh_log(KH_SB_LOGGER, KH_INFO, "%s handles %s connections", kh_napp_id(n), h->protocol);
    /* connections nobody handled go, so their switches reconnect to it */
    pthread_mutex_lock(&sb->cmd_mu);
    if (atomic_load(&sb->running)) {
        sb->orphans_close = 1;
        kh_sb_wake_locked(sb);
    }
    pthread_mutex_unlock(&sb->cmd_mu);
    return KYTOS_OK;
}

void kh_sb_handler_for(kh_sb *sb, const char *protocol, struct kh_sb_handler *out)
{
    size_t i;

    pthread_mutex_lock(&sb->hnd_mu);
    i = find_handler(sb, protocol);
    if (i < sb->nhandlers)
        *out = sb->handlers[i].h;
    else
        memset(out, 0, sizeof *out);
    pthread_mutex_unlock(&sb->hnd_mu);
}

/* ---- callbacks, on the southbound thread ---- */

struct open_call {
    kytos_conn *c;
};

static int call_open(void *arg)
{
    kytos_conn *c = ((struct open_call *)arg)->c;
    return c->hnd.cb.on_open(c->hnd.napp, c, c->hnd.cb.ud);
}

int kh_sb_conn_bind(kh_sb *sb, kytos_conn *c)
{
    struct open_call oc = {c};
    int rc;

    kh_sb_handler_for(sb, sb->proto, &c->hnd);
    if (!c->hnd.napp)
        return 0;           /* nobody handles the protocol (yet): events only */
    if (!kh_napp_is_enabled(c->hnd.napp)) {
        /* its init has not returned yet: the switch comes back in a moment */
        char why[200];
        snprintf(why, sizeof why, "the %s handler (%s) is not ready", sb->proto,
                 kh_napp_id(c->hnd.napp));
        c->hnd.napp = NULL;
        kh_sb_conn_teardown(sb, c, KH_SB_DC_REFUSED, why);
        return -1;
    }
    if (!c->hnd.cb.on_open) {
        c->opened = 1;
        return 0;
    }
    rc = kh_sb_guarded(c->hnd.napp, "on_open", call_open, &oc);
    if (c->dead)
        return -1;          /* it crashed, and its connections went */
    if (rc != KYTOS_OK) {
        char why[200];
        snprintf(why, sizeof why, "refused by %s (%s)", kh_napp_id(c->hnd.napp), kh_strerror(rc));
        kh_sb_conn_teardown(sb, c, KH_SB_DC_REFUSED, why);
        return -1;
    }
    c->opened = 1;
    return 0;
}

struct close_call {
    kytos_conn *c;
    const char *reason;
};

static int call_close(void *arg)
{
    struct close_call *cc = arg;
    kytos_conn *c = cc->c;
    c->hnd.cb.on_close(c->hnd.napp, c, cc->reason, c->hnd.cb.ud);
    return 0;
}

void kh_sb_conn_closed_cb(kh_sb *sb, kytos_conn *c, const char *reason)
{
    struct close_call cc = {c, reason};

    (void)sb;
    if (!c->opened)
        return;
    c->opened = 0;
    if (c->hnd.napp && c->hnd.cb.on_close)
        kh_sb_guarded(c->hnd.napp, "on_close", call_close, &cc);
}

void kh_sb_unbind_now(kh_sb *sb, kytos_napp *n, int crashed)
{
    size_t i, nconns;
    kytos_conn **all = kh_sb_table_snapshot(sb, &nconns);
    char why[200];

    if (n)
        snprintf(why, sizeof why, "its handler %s was unloaded", kh_napp_id(n));
    else
        snprintf(why, sizeof why, "a %s handler registered: reconnect to it", sb->proto);
    for (i = 0; i < nconns; i++) {
        kytos_conn *c = all[i];
        /* a TLS connection still handshaking has no handler yet: it binds
         * to the new one when its handshake is done, so it stays */
        if (!c->dead && c->hnd.napp == n && !(!n && atomic_load(&c->handshaking))) {
            if (crashed)
                c->opened = 0;      /* its code is not run again */
            kh_sb_conn_teardown(sb, c, n ? KH_SB_DC_UNLOAD : KH_SB_DC_REFUSED, why);
        }
        kh_sb_conn_unref(c);
    }
    free(all);
}

/* ---- a NApp going away ---- */

static void unbind_wait(kh_sb *sb, kytos_napp *n, int crashed)
{
    struct kh_sb_unbind *u;
    struct timespec dl;
    int timed_out = 0;

    if (kh_sb_on_thread(sb)) {
        kh_sb_unbind_now(sb, n, crashed);
        return;
    }
    u = calloc(1, sizeof *u);
    if (!u)
        return;
    u->napp = n;
    u->crashed = crashed;
    pthread_mutex_lock(&sb->cmd_mu);
    if (!atomic_load(&sb->running)) {   /* no thread, no connections */
        pthread_mutex_unlock(&sb->cmd_mu);
        free(u);
        return;
    }
    u->next = sb->unbind_head;
    sb->unbind_head = u;
    kh_sb_wake_locked(sb);
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += sb->stop_timeout_ms / 1000 + 1;
    while (!u->done && !timed_out)
        timed_out = pthread_cond_timedwait(&sb->cmd_cv, &sb->cmd_mu, &dl) == ETIMEDOUT;
    if (u->done) {
        free(u);
    } else {
        u->abandoned = 1;   /* the thread frees it */
        kh_log(KH_SB_LOGGER, KH_WARNING,
               "%s: its switch connections are still closing after %d ms (a callback blocks?)",
               kh_napp_id(n), sb->stop_timeout_ms);
    }
    pthread_mutex_unlock(&sb->cmd_mu);
}

void kh_sb_napp_unload(kh_sb *sb, kytos_napp *n, int crashed)
{
    size_t i;
    int had = 0;

    if (!sb || !n)
        return;
    pthread_mutex_lock(&sb->hnd_mu);
    for (i = 0; i < sb->nhandlers;)
        if (sb->handlers[i].h.napp == n) {
            sb->handlers[i] = sb->handlers[--sb->nhandlers];
            had = 1;
        } else {
            i++;
        }
    for (i = 0; i < sb->nretired;)
        if (sb->retired[i] == n) {
            sb->retired[i] = sb->retired[--sb->nretired];
            had = 1;
        } else {
            i++;
        }
    /* (a full retired list cannot say: look, to be safe) */
    if (sb->nretired == KH_SB_MAX_HANDLERS)
        had = 1;
    pthread_mutex_unlock(&sb->hnd_mu);
    /* a NApp that never handled a protocol has no connections */
    if (had)
        unbind_wait(sb, n, crashed);
}
