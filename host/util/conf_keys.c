/* host/util/conf_keys.c - the table of [daemon] keys (conf_keys.h) and the
 * configuration reference generated from it. */
#include "util/conf_keys.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MONITOR_DEFAULT(what, list) \
    "[{\"min_hits\": 5, \"delta_secs\": 5, \"min_queue_full_percent\": 90, \"log_at_most_n\": 0, \"" \
    what "\": " list "}]"

#define K 1   /* Kytos' own key */

/* Kytos' keys first (kytos-core.md §11), then kytos-c's limits. */
const struct kh_conf_key kh_conf_keys[] = {
    {"workdir", KH_CONF_STRING, "\"" KYTOS_LOCALSTATEDIR "/lib/kytos\"", 0, 0, NULL,
     "Kytos' working directory; read and shown, not used (see `data_dir`).", K},
    {"pidfile", KH_CONF_STRING, "\"" KYTOS_LOCALSTATEDIR "/run/kytos/kytosd.pid\"", 0, 0, NULL,
     "Kytos' pid file; kytosd runs in the foreground and writes none.", K},
    {"daemon", KH_CONF_BOOL, "false", 0, 0, NULL,
     "Kytos' daemon mode; kytosd always runs in the foreground.", K},
    {"debug", KH_CONF_BOOL, "false", 0, 0, NULL,
     "Log at DEBUG level (the `-D` flag), whatever `log_level` says.", K},
    {"logging", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "Kytos' logging.ini path; not used (see `log_level`, `log_levels`).", K},
    {"logger_decorators", KH_CONF_ARRAY, "[]", 0, 0, NULL,
     "Kytos' Python logger decorators; not used.", K},
    {"listen", KH_CONF_STRING, "\"0.0.0.0\"", 0, 0, NULL,
     "Address the REST API and the OpenFlow server listen on (IPv4 or IPv6 literal; `-l`).", K},
    {"port", KH_CONF_INT, "6653", 0, 65535, NULL,
     "Port of the OpenFlow server (`-P/--port`); 0 picks a free one.", K},
    {"protocol_name", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "Protocol of the OpenFlow server's events (`kytos/core.<proto>.raw.in`); empty: `openflow` on 6633/6653, else the port number, as Kytos.", K},
    {"connection_timeout", KH_CONF_INT, "130", 0, 86400, NULL,
     "Kytos' switch connection timeout, seconds; not used by the core.", K},
    {"api_port", KH_CONF_INT, "8181", 0, 65535, NULL,
     "Port of the REST API (`--api-port`); 0 picks a free one.", K},
    {"api_traceback_on_500", KH_CONF_BOOL, "true", 0, 0, NULL,
     "A 500 answer names the failing NApp, route and error code in its description.", K},
    {"api_concurrency_limit", KH_CONF_INT, "\"threadpool\"", 0, 1 << 20, "threadpool",
     "Requests in flight before `503` + `Retry-After: 1`; `\"threadpool\"`: the `api` pool's size; 0 or null: no limit.",
     K},
    {"enable_entities_by_default", KH_CONF_BOOL, "false", 0, 0, NULL,
     "Kytos' key, not used by the core: topology reads `enable_entities_by_default` from `[kytos/topology]`.", K},
    {"napps", KH_CONF_STRING, "\"" KYTOS_PKGLIBDIR "/napps\"", 0, 0, NULL,
     "Directory of the NApps (`*.so`) to load and watch (`-n`).", K},
    {"napps_repositories", KH_CONF_ARRAY, "[\"https://napps.kytos.io/repo/\"]", 0, 0, NULL,
     "Kytos' NApp repositories; not used (NApps are files in `napps`).", K},
    {"napps_pre_installed", KH_CONF_ARRAY, "[]", 0, 0, NULL, "Kytos' pre-installed NApps; not used.", K},
    {"jwt_secret", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "Key of the HS256 tokens; empty: a random one made at first start and kept in `<data_dir>/jwt_secret` (mode 0600). Never shown by `GET core/config/` (docs/auth.md).", K},
    {"token_expiration_minutes", KH_CONF_INT, "180", 1, 525600, NULL,
     "Lifetime of the tokens `auth/login/` issues, minutes.", K},
    {"authenticate_urls", KH_CONF_ARRAY, "[]", 0, 0, NULL,
     "Substrings: a NApp route whose path contains one needs a Bearer token (every route kind; never core routes, as Kytos).", K},
    {"thread_pool_max_workers", KH_CONF_OBJECT, "{\"sb\": 256, \"db\": 256, \"app\": 512, \"api\": 512}", 0, 0, NULL,
     "Threads per pool: the event pools (`sb`, `db`, `app`), `api`, and any pool a route names (1..4096 each).", K},
    {"event_buffer_conf", KH_CONF_OBJECT, "{}", 0, 0, NULL,
     "Event buffers: `{name: {\"queue\": {\"type\", \"maxsize\", ...}}}` as Kytos' (host/events/event_conf.c).", K},
    {"thread_pool_queue_monitors", KH_CONF_ARRAY, MONITOR_DEFAULT("queues", "[\"sb\", \"app\", \"db\"]"), 0, 0, NULL,
     "Warn when a pool's queue stays nearly full (Kytos' monitor settings).", K},
    {"event_buffer_monitors", KH_CONF_ARRAY,
     MONITOR_DEFAULT("buffers", "[\"msg_in\", \"msg_out\", \"raw\", \"app\"]"), 0, 0, NULL,
     "Warn when a buffer stays nearly full (Kytos' monitor settings).", K},
    {"database", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "`\"\"`: the embedded store (SQLite); `\"mongodb\"`: MongoDB from Kytos' `MONGO_*` variables (`-d`).", K},
    {"apm", KH_CONF_STRING, "\"\"", 0, 0, NULL, "Kytos' APM backend; not used.", K},

    /* kytos-c additions: every limit explicit */
    {"data_dir", KH_CONF_STRING, "\"" KYTOS_LOCALSTATEDIR "/lib/kytos\"", 0, 0, NULL,
     "Where the embedded store and kytosd's state live (`--data-dir`).", 0},
    {"api_io_threads", KH_CONF_INT, "0", 0, 64, NULL,
     "libmicrohttpd I/O threads; 0: one per core (at most 64).", 0},
    {"api_max_connections", KH_CONF_INT, "4096", 0, 1 << 20, NULL,
     "Open connections; past it `503` + `Connection: close` (after reclaiming an idle one); 0: no limit.", 0},
    {"api_per_ip_connection_limit", KH_CONF_INT, "1024", 0, 1 << 20, NULL,
     "Open connections per client (see `api_ipv6_client_prefix`); past it `429`; 0: no limit.", 0},
    {"api_reclaim_idle_ms", KH_CONF_INT, "1000", -1, 86400000, NULL,
     "At `api_max_connections`, a connection idle this long gives its slot to a new one; -1: never, 0: any idle one.", 0},
    {"api_ipv6_client_prefix", KH_CONF_INT, "64", 1, 128, NULL,
     "Per-client limits count an IPv6 client by this many leading bits (128: each address).", 0},
    {"api_connection_timeout", KH_CONF_INT, "60", 0, 86400, NULL,
     "Seconds an idle keep-alive connection stays open; 0: no timeout.", 0},
    {"api_connection_memory", KH_CONF_INT, "16384", 1024, 16 << 20, NULL,
     "Bytes for one request's line and headers (libmicrohttpd's connection memory).", 0},
    {"api_listen_backlog", KH_CONF_INT, "1024", 1, 65535, NULL,
     "Backlog of the listening socket.", 0},
    {"api_max_body", KH_CONF_INT, "8388608", 1, 1 << 30, NULL,
     "Largest request body in bytes (chunked ones included); past it `413`. A route may set its own.", 0},
    {"api_handler_timeout_ms", KH_CONF_INT, "30000", 0, 86400000, NULL,
     "A handler that has not answered after this long gets its request answered `504`; 0: no deadline. A route may set its own.", 0},
    {"api_tls_cert", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "PEM certificate (chain) file: with `api_tls_key`, the REST API speaks HTTPS only (libmicrohttpd with GnuTLS).", 0},
    {"api_tls_key", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "PEM private key file of `api_tls_cert` (unencrypted; keep it mode 0600).", 0},
    {"api_http_port", KH_CONF_INT, "-1", -1, 65535, NULL,
     "With HTTPS on `api_port`, also serve plain HTTP on this port (both configured); -1: HTTP is off while HTTPS is on.", 0},
    {"api_auth_all", KH_CONF_BOOL, "false", 0, 0, NULL,
     "Every route needs a Bearer token (the core's included) except those under `api_auth_exempt`.", 0},
    {"api_auth_exempt", KH_CONF_ARRAY, "[\"/api/kytos/core/auth/login/\", \"/api/kytos/core/status/\"]", 0, 0, NULL,
     "With `api_auth_all`: route path prefixes that need no token.", 0},
    {"api_audit", KH_CONF_BOOL, "false", 0, 0, NULL,
     "One line per state-changing request (user or token, client address and port, method, path, status, duration) to the logger `kytos.core.audit`.", 0},
    {"api_audit_file", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "Write the audit lines to this file instead of the log (turns `api_audit` on).", 0},
    {"api_login_max_failures", KH_CONF_INT, "5", 0, 1000, NULL,
     "Failed logins from one client (4x for one username) before each next attempt must wait, doubling; 0: no throttling.", 0},
    {"api_login_max_delay_s", KH_CONF_INT, "60", 1, 3600, NULL,
     "The longest wait after failed logins (`429` + `Retry-After`): nobody is locked out longer.", 0},
    {"api_rate_limit", KH_CONF_INT, "0", 0, 1000000, NULL,
     "Requests per second per client; past it `429` + `Retry-After: 1`; 0: off.", 0},
    {"api_queue_target_ms", KH_CONF_INT, "100", 0, 60000, NULL,
     "When requests wait longer than this for a handler thread, new ones get `503` (CoDel-like); 0: off.", 0},
    {"api_shed_latency_ms", KH_CONF_INT, "100", 0, 60000, NULL,
     "CPU saturated and requests slower than this: shed a share of new ones with `503` (host/http/shed.c); 0: off.", 0},
    {"api_poller", KH_CONF_CHOICE, "\"poll\"", 0, 0, "poll|epoll",
     "libmicrohttpd's poller; 0.9.75's epoll stalls past ~100 busy connections.", 0},
    {"api_json_500", KH_CONF_BOOL, "false", 0, 0, NULL,
     "Answer a failing handler's `500` with a JSON body `{\"description\", \"code\"}` instead of Starlette's plain text.", 0},
    /* the web UI and the live streams (host/ui/, docs/ui.md) */
    {"ui_dir", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "Directory of a web UI (Kytos' web-ui files) served at `/` and below; `\"\"`: none, `/` shows the built-in dashboard.", 0},
    {"ui_dashboard", KH_CONF_BOOL, "true", 0, 0, NULL,
     "Serve the dashboard built into kytosd at `/dashboard/` (and at `/` when `ui_dir` has no `index.html`).", 0},
    {"ui_max_file", KH_CONF_INT, "16777216", 1, 1 << 30, NULL,
     "Largest UI file served, in bytes; larger ones answer `404`.", 0},
    {"api_max_streams", KH_CONF_INT, "32", 0, 4096, NULL,
     "Event and log streams (`GET /api/kytos/core/{events,logs}/stream`) open at once; past it `503`; 0: streams off.", 0},
    {"stream_buffer_bytes", KH_CONF_INT, "1048576", 4096, 1 << 28, NULL,
     "Bytes waiting to be sent to one stream client; a client that does not read past it is dropped (counted).", 0},
    {"stream_history", KH_CONF_INT, "1024", 0, 1 << 20, NULL,
     "Events and log lines kept for `Last-Event-ID` resumes and a new client's first lines.", 0},
    {"stream_heartbeat_ms", KH_CONF_INT, "15000", 100, 3600000, NULL,
     "An idle stream gets a comment line this often, so proxies keep it open.", 0},
    {"shutdown_timeout_ms", KH_CONF_INT, "10000", 0, 3600000, NULL,
     "On SIGTERM, how long requests in flight and queued events get; what is left is answered `503` / dropped.", 0},
    {"dead_letter_max_per_name", KH_CONF_INT, "50000", 1, 10000000, NULL,
     "Events the dead letter keeps per event name (the oldest go first).", 0},
    {"log_level", KH_CONF_CHOICE, "\"INFO\"", 0, 0, "DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL",
     "Lowest level logged (any case).", 0},
    {"log_file", KH_CONF_STRING, "\"\"", 0, 0, NULL, "Also log to this file; `\"\"`: no file.", 0},
    {"log_syslog", KH_CONF_BOOL, "false", 0, 0, NULL, "Also log to syslog.", 0},
    {"log_console", KH_CONF_BOOL, "true", 0, 0, NULL, "Log to standard error.", 0},
    {"log_levels", KH_CONF_OBJECT, "{}", 0, 0, NULL,
     "Levels by logger name prefix: `{\"kytos.core.api_server\": \"DEBUG\"}`.", 0},
    {"log_queue_max", KH_CONF_INT, "65536", 1, 1 << 24, NULL,
     "Lines waiting for the log thread; past it lines are dropped and counted.", 0},
    {"store_wal_max_mb", KH_CONF_INT, "0", 0, 65536, NULL,
     "Embedded store: past this WAL size, a burst of writes is held for a moment (one checkpoint) "
     "so the WAL starts over instead of growing; 0: no limit (faster bursts, and the WAL is cut "
     "back to 8 MiB within seconds of the burst's end).", 0},
    {"store_sync", KH_CONF_CHOICE, "\"normal\"", 0, 0, "normal|full",
     "Embedded store: `normal` survives `kill -9`; `full` also fsyncs every commit (power loss).", 0},
    /* the OpenFlow server (host/southbound/) on listen:port */
    {"sb_enabled", KH_CONF_BOOL, "true", 0, 0, NULL,
     "Run the OpenFlow server at all (the test host: off unless asked).", 0},
    {"sb_send_queue_max", KH_CONF_INT, "4194304", 128 * 1024, 1 << 30, NULL,
     "Bytes a switch connection may have queued; past it the connection is cut off.", 0},
    {"sb_read_max", KH_CONF_INT, "65536", 4096, 1 << 20, NULL,
     "Bytes read per connection per turn, so one switch cannot starve the others.", 0},
    {"sb_max_connections", KH_CONF_INT, "4096", 1, 1 << 20, NULL,
     "Switch connections at once; past it new ones are closed.", 0},
    {"sb_listen_backlog", KH_CONF_INT, "128", 1, 65535, NULL,
     "listen(2) backlog of the OpenFlow server.", 0},
    {"sb_raw_in_events", KH_CONF_BOOL, "true", 0, 0, NULL,
     "Publish `kytos/core.<proto>.raw.in` (base64 data) when someone subscribes.", 0},
    {"sb_tls_cert", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "PEM certificate (chain) of the OpenFlow server: with `sb_tls_key` and `sb_tls_ca_cert`, the OpenFlow port speaks TLS only (OVS `ssl:` controllers).", 0},
    {"sb_tls_key", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "PEM private key of `sb_tls_cert` (unencrypted; keep it mode 0600).", 0},
    {"sb_tls_ca_cert", KH_CONF_STRING, "\"\"", 0, 0, NULL,
     "PEM certificate(s) of the CA that signs switches' certificates (OVS PKI: `switchca/cacert.pem`); a switch without a certificate it signed is refused.", 0},
    {"sb_tls_handshake_timeout_ms", KH_CONF_INT, "10000", 100, 600000, NULL,
     "A switch connection that has not finished its TLS handshake by then is closed.", 0},
};

const size_t kh_conf_nkeys = sizeof kh_conf_keys / sizeof kh_conf_keys[0];

const struct kh_conf_key *kh_conf_key(const char *name)
{
    size_t i;
    for (i = 0; i < kh_conf_nkeys; i++)
        if (strcmp(kh_conf_keys[i].name, name) == 0)
            return &kh_conf_keys[i];
    return NULL;
}

int kh_conf_as_int(struct json_object *v, int64_t *out)
{
    if (json_object_is_type(v, json_type_int)) {
        *out = json_object_get_int64(v);
        return 0;
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (d != d || d < -9e18 || d > 9e18 || (double)(int64_t)d != d)
            return -1;
        *out = (int64_t)d;
        return 0;
    }
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        char *end;
        long long x = strtoll(s, &end, 10);
        if (*s && *end == '\0') {
            *out = x;
            return 0;
        }
    }
    return -1;
}

int kh_conf_as_bool(struct json_object *v, int *out)
{
    if (json_object_is_type(v, json_type_boolean)) {
        *out = json_object_get_boolean(v);
        return 0;
    }
    if (json_object_is_type(v, json_type_int) &&
        (json_object_get_int64(v) == 0 || json_object_get_int64(v) == 1)) {
        *out = json_object_get_int64(v) == 1;
        return 0;
    }
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        if (!strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "1") || !strcasecmp(s, "true"))
            *out = 1;
        else if (!strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "0") || !strcasecmp(s, "false"))
            *out = 0;
        else
            return -1;
        return 0;
    }
    return -1;
}

/* Is s one of "a|b|c" (case-insensitive)? */
static int one_of(const char *words, const char *s)
{
    size_t n = strlen(s);
    const char *w = words;

    while (w && *w) {
        const char *bar = strchr(w, '|');
        size_t wl = bar ? (size_t)(bar - w) : strlen(w);
        if (wl == n && strncasecmp(w, s, n) == 0)
            return 1;
        w = bar ? bar + 1 : NULL;
    }
    return 0;
}

static const char *shown(struct json_object *v)
{
    return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

int kh_conf_key_check(const struct kh_conf_key *k, struct json_object *v, char *err, size_t errlen)
{
    int64_t n;
    int b;

    if (!v)
        return 0;
    switch (k->type) {
    case KH_CONF_BOOL:
        if (kh_conf_as_bool(v, &b) == 0)
            return 0;
        snprintf(err, errlen, "%s: expected true or false, got %.80s", k->name, shown(v));
        return -1;
    case KH_CONF_INT:
        if (k->words && json_object_is_type(v, json_type_string) && one_of(k->words, json_object_get_string(v)))
            return 0;
        if (kh_conf_as_int(v, &n) != 0) {
            snprintf(err, errlen, "%s: expected an integer in %" PRId64 "..%" PRId64 "%s%s, got %.80s",
                     k->name, k->min, k->max, k->words ? " or " : "", k->words ? k->words : "", shown(v));
            return -1;
        }
        if (n < k->min || n > k->max) {
            snprintf(err, errlen, "%s: %" PRId64 " is out of range %" PRId64 "..%" PRId64, k->name, n,
                     k->min, k->max);
            return -1;
        }
        return 0;
    case KH_CONF_STRING:
        if (json_object_is_type(v, json_type_string))
            return 0;
        snprintf(err, errlen, "%s: expected a string, got %.80s", k->name, shown(v));
        return -1;
    case KH_CONF_CHOICE:
        if (json_object_is_type(v, json_type_string) && one_of(k->words, json_object_get_string(v)))
            return 0;
        snprintf(err, errlen, "%s: expected one of %s, got %.80s", k->name, k->words, shown(v));
        return -1;
    case KH_CONF_OBJECT:
        if (json_object_is_type(v, json_type_object))
            return 0;
        snprintf(err, errlen, "%s: expected a JSON object, got %.80s", k->name, shown(v));
        return -1;
    case KH_CONF_ARRAY:
        if (json_object_is_type(v, json_type_array))
            return 0;
        snprintf(err, errlen, "%s: expected a JSON array, got %.80s", k->name, shown(v));
        return -1;
    }
    return 0;
}

/* ---- the reference ---- */

static const char intro[] =
    "# kytosd configuration reference\n"
    "\n"
    "<!-- Generated by `kytosd --print-config-reference` from host/util/conf_keys.c;\n"
    "     tests/host/config_reference.sh checks that this file matches. Edit the table, then\n"
    "     regenerate: build/host/kytosd --print-config-reference > docs/configuration.md -->\n"
    "\n"
    "`kytosd -c kytos.conf` reads Kytos' INI file: a `[daemon]` section whose values are JSON (lists\n"
    "and dicts included, indented continuation lines allowed; `true`/`false`/`None` as Python writes\n"
    "them), with Kytos' keys and defaults. No file is needed: the defaults serve. Flags override the\n"
    "file: `-D` (debug), `-l/--listen`, `--api-port`, `-n/--napps`, `-d/--database`, `--data-dir`,\n"
    "and `--set KEY=VALUE` for any key. `GET /api/kytos/core/config/` shows the configuration\n"
    "without secrets.\n"
    "\n"
    "Every key below is checked when kytosd starts: a value of the wrong type or outside its bounds\n"
    "stops it with a message naming the key and what it takes (`api_port: 70000 is out of range\n"
    "0..65535`). `None`/`null` means the default (for `api_concurrency_limit`: no limit). A key not in\n"
    "this table is kept (`GET core/config/` shows it) and logged as unknown.\n"
    "\n"
    "A section named after a NApp (`[kytos/simnet]`) holds that NApp's settings\n"
    "(`kytos_napp_settings()`); each NApp documents its own.\n";

static const char limits[] =
    "\n"
    "## How the limits work together\n"
    "\n"
    "A connection over `api_max_connections` is answered `503`, one over\n"
    "`api_per_ip_connection_limit` `429` (JSON, naming the address), both with `Connection: close`,\n"
    "and closed gently (host/http/connlimit.c, host/http/acceptor.c). Before refusing a connection\n"
    "over `api_max_connections`, kytosd closes the connection that has sat idle between requests the\n"
    "longest, if it has been idle for `api_reclaim_idle_ms`, and serves the new client in its slot,\n"
    "as nginx reuses keep-alive connections (host/http/idle_conns.c); the status's\n"
    "`http.reclaimed_idle` counts them. A connection whose request headers have all arrived keeps\n"
    "its slot until answered; one still sending its headers does not.\n"
    "\n"
    "The per-client limits (`api_per_ip_connection_limit`, `api_rate_limit`) count an IPv6 client by\n"
    "its first `api_ipv6_client_prefix` bits and name it so in their 429s (`2001:db8:1:2::/64`); an\n"
    "IPv4-mapped address counts as its IPv4 address (host/http/client_group.c).\n"
    "\n"
    "`api_concurrency_limit` counts requests in flight (not idle connections); over it kytosd answers\n"
    "uvicorn's `503 Service Unavailable` with `Retry-After: 1`, on a connection that stays open.\n"
    "\n"
    "Overload: when kytosd uses nearly all the CPU it may run on and requests take longer than\n"
    "`api_shed_latency_ms` from arrival to answer, a growing share of new NApp requests gets an\n"
    "immediate `503` with `Retry-After: 1` (host/http/shed.c; `status/` shows it under\n"
    "`http.overload`).\n"
    "\n"
    "On SIGTERM, requests in flight get `shutdown_timeout_ms`; what is still waiting for its handler\n"
    "then is answered `503`.\n"
    "\n"
    "Logging: lines are written by a background thread; when its queue (`log_queue_max` lines) is\n"
    "full, lines are dropped and counted, and the count is logged and shown in `status/`.\n";

static const char *type_name(const struct kh_conf_key *k, char *buf, size_t len)
{
    switch (k->type) {
    case KH_CONF_BOOL: return "boolean";
    case KH_CONF_INT:
        snprintf(buf, len, "integer %" PRId64 "..%" PRId64 "%s%s%s", k->min, k->max,
                 k->words ? " or `\"" : "", k->words ? k->words : "", k->words ? "\"`" : "");
        return buf;
    case KH_CONF_STRING: return "string";
    case KH_CONF_CHOICE: {
        const char *w = k->words;
        size_t used = 0;
        buf[0] = '\0';
        while (*w && used + 8 < len) {
            const char *bar = strchr(w, '|');
            int wl = bar ? (int)(bar - w) : (int)strlen(w);
            used += (size_t)snprintf(buf + used, len - used, "%s`\"%.*s\"`", used ? ", " : "", wl, w);
            w = bar ? bar + 1 : w + wl;
        }
        return buf;
    }
    case KH_CONF_OBJECT: return "JSON object";
    case KH_CONF_ARRAY: return "JSON array";
    }
    return "?";
}

/* A default, with the build's directories named as configure does (the
 * reference must not depend on --prefix). */
static void print_default(FILE *out, const char *def)
{
    static const struct { const char *value, *name; } dirs[] = {
        {KYTOS_PKGLIBDIR, "$pkglibdir"}, {KYTOS_LOCALSTATEDIR, "$localstatedir"}};
    size_t i;

    while (*def) {
        for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
            size_t n = strlen(dirs[i].value);
            if (n && strncmp(def, dirs[i].value, n) == 0) {
                fputs(dirs[i].name, out);
                def += n;
                break;
            }
        }
        if (i == sizeof dirs / sizeof dirs[0])
            fputc(*def++, out);
    }
}

static void print_table(FILE *out, int kytos)
{
    size_t i;
    char tb[160];

    fprintf(out, "| Key | Type | Default | Meaning |\n|---|---|---|---|\n");
    for (i = 0; i < kh_conf_nkeys; i++) {
        const struct kh_conf_key *k = &kh_conf_keys[i];
        if (k->kytos != kytos)
            continue;
        fprintf(out, "| `%s` | %s | `", k->name, type_name(k, tb, sizeof tb));
        print_default(out, k->def);
        fprintf(out, "` | %s |\n", k->doc);
    }
}

void kh_conf_print_reference(FILE *out)
{
    fputs(intro, out);
    fprintf(out, "\n## Kytos' keys\n\n");
    print_table(out, 1);
    fprintf(out, "\n## kytos-c's keys\n\n");
    print_table(out, 0);
    fputs(limits, out);
}
