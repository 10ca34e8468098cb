/* host/testhost/testhost.c - libkytos-test: the in-process host of include/kytos/test.h.
 * The real loader, router, checks, handlers, pools, bus and an embedded
 * store in a temporary directory; no sockets. */
#define _XOPEN_SOURCE 700
#include "core/hostimpl.h"
#include "events/eventbus.h"
#include "util/log.h"
#include "store/store.h"
#include "southbound/southbound.h"
#include "util/text.h"
#include <ftw.h>
#include <kytos/test.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct published {
    char *name;
    struct json_object *content;
};

struct kytos_test_host {
    kh_host *h;
    char dir[PATH_MAX];
    int own_dir;
    pthread_mutex_t mu;
    struct published *pub;
    size_t npub, cap;
    char last_error[600];
    int started;
};

static void observe(void *ud, const char *name, struct json_object *content)
{
    kytos_test_host *th = ud;
    pthread_mutex_lock(&th->mu);
    if (KU_RESERVE(th->pub, th->cap, th->npub + 1) < 0) {
        pthread_mutex_unlock(&th->mu);
        return;
    }
    th->pub[th->npub].name = strdup(name);
    th->pub[th->npub].content = content ? json_object_get(content) : NULL;
    if (th->pub[th->npub].name)
        th->npub++;
    else
        json_object_put(content);
    pthread_mutex_unlock(&th->mu);
}

kytos_test_host *kytos_test_host_new(const struct kytos_test_opts *opts)
{
    kytos_test_host *th = calloc(1, sizeof *th);
    kh_config *cfg = kh_config_new();
    char err[512];
    int level = KH_WARNING;

    if (!th || !cfg) {
        free(th);
        kh_config_free(cfg);
        return NULL;
    }
    pthread_mutex_init(&th->mu, NULL);
    if (opts && opts->struct_size >= offsetof(struct kytos_test_opts, log_level) + sizeof(int) &&
        opts->log_level > 0)
        level = opts->log_level;
    kh_log_set_level("", level);
    if (opts && opts->conf_text &&
        kh_config_load_text(cfg, opts->conf_text, "kytos_test_opts.conf_text", err, sizeof err) != 0) {
        fprintf(stderr, "kytos_test_host_new: %s\n", err);
        kh_config_free(cfg);
        free(th);
        return NULL;
    }
    if (opts && opts->data_dir) {
        snprintf(th->dir, sizeof th->dir, "%s", opts->data_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(th->dir, sizeof th->dir, "%s/kytos-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(th->dir)) {
            perror("kytos_test_host_new: mkdtemp");
            kh_config_free(cfg);
            free(th);
            return NULL;
        }
        th->own_dir = 1;
    }
    /* tests answer fast or fail: no 30 s handler deadline by default */
    if (!(opts && opts->conf_text && strstr(opts->conf_text, "api_handler_timeout_ms")))
        kh_config_set(cfg, "api_handler_timeout_ms", "10000");
    /* no OpenFlow server unless the test asks (sb_enabled = true, with
     * listen = 127.0.0.1 and port = 0 for a free port) */
    if (!(opts && opts->conf_text && strstr(opts->conf_text, "sb_enabled")))
        kh_config_set(cfg, "sb_enabled", "false");
    kh_config_set_string(cfg, "napps", th->dir);
    th->h = kh_host_new(cfg, th->dir, err, sizeof err);
    if (!th->h) {
        fprintf(stderr, "kytos_test_host_new: %s\n", err);
        if (th->own_dir)
            rmdir(th->dir);
        free(th);
        return NULL;
    }
    kh_bus_set_observer(th->h->bus, observe, th);
    return th;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void kytos_test_host_free(kytos_test_host *th)
{
    size_t i;
    if (!th)
        return;
    kh_host_free(th->h);
    kh_host_api_emulate(-1);   /* the next host is the current ABI again */
    for (i = 0; i < th->npub; i++) {
        free(th->pub[i].name);
        json_object_put(th->pub[i].content);
    }
    free(th->pub);
    if (th->own_dir)
        nftw(th->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    pthread_mutex_destroy(&th->mu);
    free(th);
}

int kytos_test_load(kytos_test_host *th, const char *so_path)
{
    int rc = kh_napps_load_file(th->h, so_path);
    th->last_error[0] = '\0';
    if (rc != KYTOS_OK) {
        struct kh_record *rec;
        pthread_mutex_lock(&th->h->reg_mu);
        for (rec = th->h->records; rec; rec = rec->next)
            if (!strcmp(rec->file, so_path))
                snprintf(th->last_error, sizeof th->last_error, "%s: %s", rec->state, rec->reason);
        pthread_mutex_unlock(&th->h->reg_mu);
    }
    return rc;
}

int kytos_test_emulate_abi_minor(kytos_test_host *th, int minor)
{
    return th ? kh_host_api_emulate(minor) : KYTOS_EINVAL;
}

const char *kytos_test_last_error(kytos_test_host *th)
{
    return th->last_error[0] ? th->last_error : NULL;
}

int kytos_test_start(kytos_test_host *th)
{
    if (th->started) {
        kh_napps_start_all(th->h);
        return 0;
    }
    th->started = 1;
    return kh_host_start(th->h);
}

kytos_test_resp *kytos_test_request_h(kytos_test_host *th, const char *method, const char *path,
                                      const char *body, const char *const *headers)
{
    kytos_response *r = NULL;
    static const char *const json_ct[] = {"Content-Type: application/json", NULL};

    if (!headers && body)
        headers = json_ct;
    if (kh_call(&th->h->web, NULL, method, path, body, body ? strlen(body) : 0, headers, 1, &r) != KYTOS_OK)
        return NULL;
    return (kytos_test_resp *)r;
}

kytos_test_resp *kytos_test_request(kytos_test_host *th, const char *method, const char *path,
                                    const char *body)
{
    return kytos_test_request_h(th, method, path, body, NULL);
}

unsigned kytos_test_resp_status(const kytos_test_resp *r)
{
    return kh_response_status((const kytos_response *)r);
}

const char *kytos_test_resp_body(const kytos_test_resp *r, size_t *len)
{
    return kh_response_body((const kytos_response *)r, len);
}

struct json_object *kytos_test_resp_json(kytos_test_resp *r)
{
    return kh_response_json((kytos_response *)r);
}

const char *kytos_test_resp_header(const kytos_test_resp *r, const char *name)
{
    return kh_response_header((const kytos_response *)r, name);
}

void kytos_test_resp_free(kytos_test_resp *r) { kh_response_free((kytos_response *)r); }

int kytos_test_publish(kytos_test_host *th, const char *name, const char *content_json)
{
    struct json_object *c = NULL;
    char err[200];
    int rc;

    if (content_json) {
        if (kh_json_parse_strict(content_json, strlen(content_json), &c, err, sizeof err) != 0) {
            fprintf(stderr, "kytos_test_publish: bad content JSON: %s\n", err);
            return KYTOS_EINVAL;
        }
    }
    rc = kh_bus_publish(th->h->bus, name, c, &(struct kytos_pub_opts){
        .struct_size = sizeof(struct kytos_pub_opts), .timeout_ms = 5000});
    json_object_put(c);
    return rc;
}

int kytos_test_store_fail(kytos_test_host *th, const char *coll, int code, unsigned count)
{
    return kytos_test_store_fail_after(th, coll, code, 0, count);
}

int kytos_test_store_fail_after(kytos_test_host *th, const char *coll, int code, unsigned skip,
                                unsigned count)
{
    return th ? kh_store_inject_failure(kh_host_store(th->h), coll, code, skip, count)
              : KYTOS_EINVAL;
}

void kytos_test_store_hold(kytos_test_host *th, int on)
{
    if (th)
        kh_store_hold_async(kh_host_store(th->h), on);
}

int kytos_test_store_await_queued(kytos_test_host *th, size_t n, unsigned timeout_ms)
{
    if (!th || timeout_ms > INT32_MAX)
        return KYTOS_EINVAL;
    return kh_store_await_queued(kh_host_store(th->h), n, (int)timeout_ms);
}

/* Grows whenever an event is published or a store write queued. */
static uint64_t work_count(kytos_test_host *th)
{
    return kh_bus_published(th->h->bus) + kh_store_async_count(kh_host_store(th->h));
}

int kytos_test_drain(kytos_test_host *th, unsigned timeout_ms)
{
    int64_t deadline = kh_mono_ns() + (int64_t)timeout_ms * 1000000;
    /* events can trigger requests, requests events, queued store writes
     * both (their callbacks run on the writer): loop until all are quiet */
    for (;;) {
        uint64_t gen = work_count(th);
        int64_t left = (deadline - kh_mono_ns()) / 1000000;
        if (left <= 0)
            return KYTOS_ETIMEDOUT;
        if (kh_bus_drain(th->h->bus, (int)left) != 0)
            return KYTOS_ETIMEDOUT;
        left = (deadline - kh_mono_ns()) / 1000000;
        if (left <= 0 || kh_workpool_drain(th->h->api_pool, (int)left) != 0)
            return KYTOS_ETIMEDOUT;
        left = (deadline - kh_mono_ns()) / 1000000;
        if (left <= 0 || kh_store_async_wait(kh_host_store(th->h), (int)left) != 0)
            return KYTOS_ETIMEDOUT;
        /* quiet only if nothing was published or queued meanwhile: each
         * of the three can start work in the others after its own check */
        if (kh_bus_drain(th->h->bus, 0) == 0 && kh_workpool_drain(th->h->api_pool, 0) == 0 &&
            kh_store_async_wait(kh_host_store(th->h), 0) == 0 && work_count(th) == gen)
            return 0;
    }
}

size_t kytos_test_published_count(kytos_test_host *th, const char *name)
{
    size_t i, n = 0;
    pthread_mutex_lock(&th->mu);
    for (i = 0; i < th->npub; i++)
        if (!strcmp(th->pub[i].name, name))
            n++;
    pthread_mutex_unlock(&th->mu);
    return n;
}

struct json_object *kytos_test_published(kytos_test_host *th, const char *name, size_t n)
{
    size_t i;
    struct json_object *c = NULL;
    pthread_mutex_lock(&th->mu);
    for (i = 0; i < th->npub; i++)
        if (!strcmp(th->pub[i].name, name) && n-- == 0) {
            c = th->pub[i].content;
            break;
        }
    pthread_mutex_unlock(&th->mu);
    return c;
}

unsigned kytos_test_southbound_port(kytos_test_host *th)
{
    return th ? kh_sb_port(kh_host_sb(th->h)) : 0;
}
