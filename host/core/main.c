/* host/core/main.c - kytosd: configuration, start-up, signals, shutdown.
 *
 * Signals: SIGINT/SIGTERM are blocked in every thread and taken by sigwait
 * in main.  The first starts the graceful shutdown (stop accepting, answer
 * what is in flight, NApps down in reverse order, flush the log, exit 0);
 * a second one forces the exit. */
#include "core/hostimpl.h"
#include "http/http_server.h"
#include "util/log.h"
#include "util/conf_keys.h"
#include "napps/watcher.h"
#include "southbound/southbound.h"
#include "ui/ui.h"
#include "ui/streams.h"
#include "store/store.h"
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOGGER "kytos.core.kytosd"

/* Read by jemalloc at its start when kytosd links it (configure's
 * --with-jemalloc; otherwise nobody reads it).  A background thread hands
 * freed pages back to the kernel within about a second, so after a burst
 * (a restart's load, a flow check over tens of thousands of flows) RSS
 * falls back to what is live instead of staying at the burst's peak until
 * the next allocation: at 2,000 EVCs, 128 MB after a flow check instead of
 * 255 MB (bench/results, scale).  MALLOC_CONF still overrides it. */
const char *malloc_conf;
const char *malloc_conf = "background_thread:true,max_background_threads:1,dirty_decay_ms:1000,muzzy_decay_ms:0";

static int register_stream_routes(kh_host *h, struct kh_streams *s)
{
    return kh_host_core_route(h, "GET", "/api/kytos/core/events/stream", kh_streams_events_get, s,
                              KYTOS_ROUTE_INLINE) ||
           kh_host_core_route(h, "GET", "/api/kytos/core/logs/stream", kh_streams_logs_get, s,
                              KYTOS_ROUTE_INLINE) ||
           kh_host_core_route(h, "GET", "/api/kytos/core/streams/", kh_streams_status_get, s,
                              KYTOS_ROUTE_INLINE);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kytosd [options]\n"
            "  -c, --conf FILE         kytos.conf to read (INI, [daemon] section)\n"
            "  -f, --foreground        run in the foreground (the only mode)\n"
            "  -D, --debug             log at DEBUG level\n"
            "  -l, --listen ADDR       address to listen on (default 0.0.0.0)\n"
            "  -P, --port PORT         OpenFlow port (default 6653; 0 picks a free one)\n"
            "      --api-port PORT     HTTP port (default 8181; 0 picks a free one)\n"
            "  -n, --napps DIR         NApps directory (*.so files)\n"
            "  -d, --database NAME     '' (embedded SQLite, default) or mongodb\n"
            "      --data-dir DIR      where the embedded store and state live\n"
            "      --set KEY=VALUE     set any [daemon] key (JSON value)\n"
            "      --port-file FILE    write the bound HTTP port there once listening\n"
            "      --print-config-reference  print every [daemon] key (docs/configuration.md)\n"
            "  -C, --create-superuser  create a user (prompts, or four lines on stdin:\n"
            "                          username, email, password, password again), then exit\n"
            "  -v, --version           print the version\n"
            "  -h, --help              this text\n");
}

/* kytosd -C: make a user in the configured store, then exit (Kytos'
 * --create-superuser; kytosd does not go on to serve). */
static int first_user(kh_config *cfg)
{
    struct kytos_error err = {0};
    kh_store *store = NULL;
    char dir[4096];
    int rc;

    snprintf(dir, sizeof dir, "%s", kh_config_str(cfg, "data_dir"));
    for (char *p = dir + 1; *p; p++)   /* mkdir -p, as kytosd does at start */
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    mkdir(dir, 0755);
    if (kh_store_open(&store, &(struct kh_store_opts){.backend = kh_config_str(cfg, "database"),
                                                      .data_dir = dir, .wait_for_server = 1,
                                                      .sync = kh_config_str(cfg, "store_sync"),
                                                      .wal_max_mb = (int)kh_config_int(cfg, "store_wal_max_mb")},
                      &err) != 0) {
        fprintf(stderr, "kytosd: store: %s\n", err.message);
        kh_config_free(cfg);
        return 1;
    }
    rc = kh_auth_create_first_user(store, stdin, stdout);
    kh_store_close(store);
    kh_config_free(cfg);
    return rc == 0 ? 0 : 1;
}

static void *force_exit(void *arg)
{
    sigset_t *set = arg;
    int sig;
    if (sigwait(set, &sig) == 0) {
        static const char msg[] = "kytosd: second signal, exiting now\n";
        if (write(2, msg, sizeof msg - 1) < 0) {
            /* nothing more to do */
        }
        _exit(1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"conf", required_argument, NULL, 'c'}, {"foreground", no_argument, NULL, 'f'},
        {"debug", no_argument, NULL, 'D'},      {"listen", required_argument, NULL, 'l'},
        {"api-port", required_argument, NULL, 'A'}, {"napps", required_argument, NULL, 'n'},
        {"port", required_argument, NULL, 'P'},
        {"database", required_argument, NULL, 'd'}, {"data-dir", required_argument, NULL, 'W'},
        {"set", required_argument, NULL, 'S'},  {"port-file", required_argument, NULL, 'F'},
        {"version", no_argument, NULL, 'v'},    {"help", no_argument, NULL, 'h'},
        {"print-config-reference", no_argument, NULL, 'R'},
        {"create-superuser", no_argument, NULL, 'C'},
        {NULL, 0, NULL, 0}};
    const char *conf = NULL, *port_file = NULL;
    kh_config *cfg = kh_config_new();
    struct { char *k, *v; } sets[64];
    size_t nsets = 0, i;
    int c, debug = 0, sig, create_user = 0;
    char err[512];
    kh_host *h;
    struct kh_ui *ui;
    struct kh_streams *streams;
    sigset_t set;
    pthread_t forcer;
    struct kh_http *plain_http = NULL;   /* api_http_port beside HTTPS */

    if (!cfg)
        return 1;
    while ((c = getopt_long(argc, argv, "c:fDl:P:n:d:vhC", opts, NULL)) != -1) {
        const char *key = NULL;
        switch (c) {
        case 'c': conf = optarg; break;
        case 'f': break;
        case 'C': create_user = 1; break;
        case 'D': debug = 1; break;
        case 'l': key = "listen"; break;
        case 'A': key = "api_port"; break;
        case 'P': key = "port"; break;
        case 'n': key = "napps"; break;
        case 'd': key = "database"; break;
        case 'W': key = "data_dir"; break;
        case 'F': port_file = optarg; break;
        case 'S': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                fprintf(stderr, "kytosd: --set wants KEY=VALUE, got '%s'\n", optarg);
                return 2;
            }
            if (nsets < 64) {
                sets[nsets].k = strndup(optarg, (size_t)(eq - optarg));
                sets[nsets++].v = eq + 1;
            }
            break;
        }
        case 'v': printf("kytosd %s (ABI %d.%d)\n", KYTOS_VERSION_STRING, KYTOS_ABI_MAJOR, KYTOS_ABI_MINOR); return 0;
        case 'h': usage(stdout); return 0;
        case 'R': kh_conf_print_reference(stdout); kh_config_free(cfg); return 0;
        default: usage(stderr); return 2;
        }
        if (key) {
            if (nsets < 64) {
                sets[nsets].k = strdup(key);
                sets[nsets++].v = optarg;
            }
        }
    }
    if (optind < argc) {
        fprintf(stderr, "kytosd: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (conf && kh_config_load_file(cfg, conf, err, sizeof err) != 0) {
        fprintf(stderr, "kytosd: %s\n", err);
        for (i = 0; i < nsets; i++)
            free(sets[i].k);
        kh_config_free(cfg);
        return 1;
    }
    /* flags override the file; values that are not JSON are strings */
    for (i = 0; i < nsets; i++) {
        const char *k = sets[i].k;
        if (!strcmp(k, "listen") || !strcmp(k, "napps") || !strcmp(k, "database") ||
            !strcmp(k, "data_dir"))
            kh_config_set_string(cfg, k, sets[i].v);
        else
            kh_config_set(cfg, k, sets[i].v);
        free(sets[i].k);
    }
    if (debug)
        kh_config_set(cfg, "debug", "true");
    if (kh_config_check(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "kytosd: configuration: %s\n", err);
        kh_config_free(cfg);    /* nothing else is made yet: exit clean under LeakSanitizer */
        return 1;
    }

    if (create_user)
        return first_user(cfg);

    /* every thread created from here on inherits the blocked signals */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    {
        struct kh_log_opts lo = {
            .level = kh_config_bool(cfg, "debug") ? KH_DEBUG
                     : kh_log_level_parse(kh_config_str(cfg, "log_level")) > 0
                         ? kh_log_level_parse(kh_config_str(cfg, "log_level")) : KH_INFO,
            .console = kh_config_bool(cfg, "log_console"),
            .file = kh_config_str(cfg, "log_file"),
            .syslog = kh_config_bool(cfg, "log_syslog"),
            .queue_max = (size_t)kh_config_int(cfg, "log_queue_max"),
            .levels_json = json_object_to_json_string(kh_config_get(cfg, "log_levels")),
        };
        kh_log_start(&lo);
    }
    kh_log(LOGGER, KH_INFO, "kytosd %s starting (ABI %d.%d)", KYTOS_VERSION_STRING, KYTOS_ABI_MAJOR,
           KYTOS_ABI_MINOR);
    h = kh_host_new(cfg, NULL, err, sizeof err);
    if (!h) {
        kh_log(LOGGER, KH_CRITICAL, "cannot start: %s", err);
        kh_log_stop();
        return 1;
    }
    ui = kh_ui_new(&(struct kh_ui_conf){
                       .dir = kh_config_str(cfg, "ui_dir"),
                       .napps_dir = h->napps_dir,
                       .max_file = (size_t)kh_config_int(cfg, "ui_max_file"),
                       .dashboard = kh_config_bool(cfg, "ui_dashboard"),
                       .napp_file = kh_napps_ui_file,
                       .napp_each = kh_napps_ui_each,
                       .napp_ctx = h,
                   },
                   err, sizeof err);
    if (!ui) {
        kh_log(LOGGER, KH_CRITICAL, "cannot start: %s", err);
        kh_host_free(h);
        kh_log_stop();
        return 1;
    }
    h->web.ui = ui;
    h->web.ui_serve = kh_ui_serve;
    streams = kh_streams_new(&(struct kh_streams_conf){
                                 .max_streams = (size_t)kh_config_int(cfg, "api_max_streams"),
                                 .buffer_bytes = (size_t)kh_config_int(cfg, "stream_buffer_bytes"),
                                 .history = (size_t)kh_config_int(cfg, "stream_history"),
                                 .heartbeat_ms = (unsigned)kh_config_int(cfg, "stream_heartbeat_ms"),
                                 .grace_ms = 60000,
                             },
                             kh_host_bus(h));
    if (!streams || register_stream_routes(h, streams) != 0) {
        kh_log(LOGGER, KH_CRITICAL, "cannot start: the live streams (out of memory?)");
        kh_streams_stop(streams);
        kh_host_free(h);
        kh_streams_free(streams);
        kh_ui_free(ui);
        kh_log_stop();
        return 1;
    }
    kh_napps_load_all(h);
    h->http = kh_http_start(&h->web, h->config, err, sizeof err);
    if (!h->http) {
        kh_log(LOGGER, KH_CRITICAL, "cannot start the API server: %s", err);
        kh_streams_stop(streams);
        kh_host_free(h);
        kh_streams_free(streams);
        kh_ui_free(ui);
        kh_log_stop();
        return 1;
    }
    if (kh_host_start(h) != 0) {   /* it logged why */
        kh_streams_stop(streams);
        kh_http_stop(h->http, 0);
        kh_host_free(h);
        kh_streams_free(streams);
        kh_ui_free(ui);
        kh_log_stop();
        return 1;
    }
    if (kh_config_int(cfg, "api_http_port") >= 0) {
        /* HTTP beside HTTPS only when both are configured */
        if (!kh_http_tls(h->http)) {
            kh_log(LOGGER, KH_WARNING, "api_http_port is set but HTTPS is off (api_tls_cert): ignored; "
                   "HTTP is on api_port %u", kh_http_port(h->http));
        } else if (!(plain_http = kh_http_start_on(&h->web, h->config, kh_config_int(cfg, "api_http_port"),
                                                   0, err, sizeof err))) {
            kh_log(LOGGER, KH_CRITICAL, "cannot start the plain HTTP server (api_http_port): %s", err);
            kh_streams_stop(streams);
            kh_http_stop(h->http, 0);
            kh_host_stop(h);
            kh_host_free(h);
            kh_streams_free(streams);
            kh_ui_free(ui);
            kh_log_stop();
            return 1;
        } else {
            kh_log(LOGGER, KH_INFO, "plain HTTP too on %s:%u (api_http_port)", kh_config_str(cfg, "listen"),
                   kh_http_port(plain_http));
        }
    }
    h->watcher = kh_watcher_start(h, err, sizeof err);
    if (!h->watcher)
        kh_log(LOGGER, KH_WARNING, "not watching the napps directory: %s", err);
    if (port_file) {
        FILE *f = fopen(port_file, "w");
        if (f) {
            fprintf(f, "%u\n", kh_http_port(h->http));
            fclose(f);
        }
    }
    {   /* Kytos listens everywhere by default: say so when nothing guards it */
        const char *l = kh_config_str(cfg, "listen");
        if ((!strcmp(l, "0.0.0.0") || !strcmp(l, "::")) && !kh_auth_enabled(h->auth))
            kh_log(LOGGER, KH_WARNING, "listening on all interfaces (%s) with no auth: anyone who reaches "
                   "port %u can change the network; set authenticate_urls or api_auth_all (docs/auth.md)",
                   l, kh_http_port(h->http));
    }
    kh_log(LOGGER, KH_INFO, "kytosd ready: %s://%s:%u/api/kytos/core/status/, OpenFlow on %s:%u",
           kh_http_tls(h->http) ? "https" : "http", kh_config_str(cfg, "listen"), kh_http_port(h->http),
           kh_config_str(cfg, "listen"), kh_sb_port(h->sb));

    sigwait(&set, &sig);
    kh_log(LOGGER, KH_INFO, "signal %d: shutting down", sig);
    pthread_create(&forcer, NULL, force_exit, &set);
    pthread_detach(forcer);
    kh_watcher_stop(h->watcher);
    h->watcher = NULL;
    atomic_store(&h->web.draining, 1);
    kh_streams_stop(streams);   /* a parked stream holds its connection */
    if (plain_http)
        kh_http_stop(plain_http, h->shutdown_timeout_ms);
    kh_http_stop(h->http, h->shutdown_timeout_ms);
    h->http = NULL;
    kh_host_stop(h);
    kh_host_free(h);
    kh_streams_free(streams);   /* after the bus: a publisher may be in its tap */
    kh_ui_free(ui);
    kh_log(LOGGER, KH_INFO, "kytosd stopped");
    kh_log_stop();
    return 0;
}
