/* kytos/test.h - the in-process test host (link with -lkytos-test).
 *
 * Loads NApps through the real loader, runs requests through the real
 * router, OpenAPI checks and handlers, delivers events through the real bus,
 * and gives each host a fresh embedded store in a temporary directory.  No
 * sockets, no server, no database.  Not for use inside kytosd.
 *
 *     kytos_test_host *th = kytos_test_host_new(NULL);
 *     ck_assert_int_eq(kytos_test_load(th, "./.libs/hello.so"), 0);
 *     ck_assert_int_eq(kytos_test_start(th), 0);
 *     kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/hello/v1/", NULL);
 *     ck_assert_int_eq(kytos_test_resp_status(r), 200);
 *     kytos_test_resp_free(r);
 *     kytos_test_host_free(th);
 */
#ifndef KYTOS_TEST_H
#define KYTOS_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kytos_test_host kytos_test_host;
typedef struct kytos_test_resp kytos_test_resp;

struct kytos_test_opts {
    uint32_t struct_size;      /* sizeof(struct kytos_test_opts) */
    const char *conf_text;     /* kytos.conf contents (INI), or NULL for defaults */
    const char *data_dir;      /* NULL = a fresh temporary directory, removed at free */
    int log_level;             /* minimum level printed to stderr; 0 = WARNING */
};

/* NULL opts = defaults.  Returns NULL on failure (printed to stderr). */
kytos_test_host *kytos_test_host_new(const struct kytos_test_opts *opts);
void kytos_test_host_free(kytos_test_host *th);  /* stops the NApps, removes the temp dir */

/* Load one NApp .so through the real loader (checks, init).  0 or negative. */
int kytos_test_load(kytos_test_host *th, const char *so_path);
/* Make NApps loaded from now on see an older host: the function table of
 * ABI KYTOS_ABI_MAJOR.minor (fewer slots, a smaller struct_size), and the
 * loader refuses those that need more.  For a NApp that declares an older
 * KYTOS_NAPP_ABI_MIN_MINOR: its fallbacks (KYTOS_API_HAS false) run.
 * Affects the whole process until called with KYTOS_ABI_MINOR (or -1) or
 * the host is freed.  KYTOS_OK, or KYTOS_EINVAL for a minor above this
 * host's. */
int kytos_test_emulate_abi_minor(kytos_test_host *th, int minor);
/* Start every loaded NApp (their start hooks). */
int kytos_test_start(kytos_test_host *th);
/* The loader's reason for the last refused NApp, or NULL. */
const char *kytos_test_last_error(kytos_test_host *th);

/* A request through router, checks and handler; waits for deferred
 * handlers.  path may carry a query string.  body may be NULL. */
kytos_test_resp *kytos_test_request(kytos_test_host *th, const char *method, const char *path,
                                    const char *body);
/* Same, with extra headers as "Name: value" strings, NULL-terminated. */
kytos_test_resp *kytos_test_request_h(kytos_test_host *th, const char *method, const char *path,
                                      const char *body, const char *const *headers);
unsigned kytos_test_resp_status(const kytos_test_resp *r);
const char *kytos_test_resp_body(const kytos_test_resp *r, size_t *len);
struct json_object *kytos_test_resp_json(kytos_test_resp *r);  /* borrowed, NULL if not JSON */
const char *kytos_test_resp_header(const kytos_test_resp *r, const char *name);
void kytos_test_resp_free(kytos_test_resp *r);

/* Publish an event as the core would (content is JSON text, may be NULL). */
int kytos_test_publish(kytos_test_host *th, const char *name, const char *content_json);
/* Wait until every queue and pool is idle (all triggered handlers ran).
 * 0 when idle, KYTOS_ETIMEDOUT otherwise. */
int kytos_test_drain(kytos_test_host *th, unsigned timeout_ms);
/* How many events with exactly this name were published since the host
 * started (by NApps or the core). */
size_t kytos_test_published_count(kytos_test_host *th, const char *name);
/* Content of the n-th (0-based) event with that name, borrowed; NULL if none. */
struct json_object *kytos_test_published(kytos_test_host *th, const char *name, size_t n);
/* Make the next count writes to collection coll (put, insert, patch,
 * delete, bulk, bulk_async) fail with code (a negative KYTOS_E* value, e.g.
 * KYTOS_EIO) as a failing store would: nothing is written, the caller gets
 * code and a message.  count 0 stops it.  0, or KYTOS_EINVAL. */
int kytos_test_store_fail(kytos_test_host *th, const char *coll, int code, unsigned count);
/* The same after letting the next skip writes to coll through: so a test
 * can fail a later write of one operation (an undo's rewrite) only. */
int kytos_test_store_fail_after(kytos_test_host *th, const char *coll, int code, unsigned skip,
                                unsigned count);
/* Hold the store's queued writes (on 1): kytos_store_bulk_async writes
 * wait, in order and uncommitted, until they are let go (on 0), so a test
 * can act while a write is queued but not yet committed.  Synchronous
 * writes are not held; kytos_test_drain times out while held. */
void kytos_test_store_hold(kytos_test_host *th, int on);
/* Wait until at least n queued writes wait for the store's writer (while
 * held): 0, or KYTOS_ETIMEDOUT. */
int kytos_test_store_await_queued(kytos_test_host *th, size_t n, unsigned timeout_ms);

/* The OpenFlow server's bound port, or 0 when it does not run: the test
 * host starts it only when conf_text sets sb_enabled = true (use
 * listen = 127.0.0.1, port = 0 and protocol_name = openflow). */
unsigned kytos_test_southbound_port(kytos_test_host *th);

#ifdef __cplusplus
}
#endif

#endif
