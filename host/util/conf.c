/* host/util/conf.c - kytos.conf: Kytos' INI layout ([daemon], JSON values,
 * indented continuation lines as Python's configparser reads them), Kytos'
 * keys and defaults, plus our own limits.  Other sections are NApp
 * settings ("[kytos/simnet]"). */
#include "util/conf.h"
#include "util/log.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LOGGER "kytos.core.config"
#define CONF_MAX_BYTES (4 * 1024 * 1024)

struct kh_config {
    struct json_object *daemon;   /* key -> value */
    struct json_object *napps;    /* "user/name" -> {key: value} */
};

/* Kytos' keys with their defaults (kytos-core.md §11), then ours. */
static const struct {
    const char *key;
    const char *json;
} defaults[] = {
    {"workdir", "\"" KYTOS_LOCALSTATEDIR "/lib/kytos\""},
    {"pidfile", "\"" KYTOS_LOCALSTATEDIR "/run/kytos/kytosd.pid\""},
    {"daemon", "false"},
    {"debug", "false"},
    {"logging", "\"\""},
    {"logger_decorators", "[]"},
    {"listen", "\"0.0.0.0\""},
    {"port", "6653"},
    {"protocol_name", "\"\""},
    {"connection_timeout", "130"},
    {"api_port", "8181"},
    {"api_traceback_on_500", "true"},
    {"api_concurrency_limit", "\"threadpool\""},
    {"enable_entities_by_default", "false"},
    {"napps", "\"" KYTOS_PKGLIBDIR "/napps\""},
    {"napps_repositories", "[\"https://napps.kytos.io/repo/\"]"},
    {"napps_pre_installed", "[]"},
    {"jwt_secret", "\"\""},
    {"token_expiration_minutes", "180"},
    {"authenticate_urls", "[]"},
    {"thread_pool_max_workers", "{\"sb\": 256, \"db\": 256, \"app\": 512, \"api\": 512}"},
    {"event_buffer_conf", "{}"},
    {"thread_pool_queue_monitors", "[{\"min_hits\": 5, \"delta_secs\": 5, \"min_queue_full_percent\": 90, \"log_at_most_n\": 0, \"queues\": [\"sb\", \"app\", \"db\"]}]"},
    {"event_buffer_monitors", "[{\"min_hits\": 5, \"delta_secs\": 5, \"min_queue_full_percent\": 90, \"log_at_most_n\": 0, \"buffers\": [\"msg_in\", \"msg_out\", \"raw\", \"app\"]}]"},
    {"database", "\"\""},
    {"apm", "\"\""},
    /* kytos-c additions: every limit explicit */
    {"data_dir", "\"" KYTOS_LOCALSTATEDIR "/lib/kytos\""},
    {"api_io_threads", "0"},                 /* 0 = number of cores */
    {"api_max_connections", "4096"},
    {"api_per_ip_connection_limit", "1024"},
    {"api_reclaim_idle_ms", "1000"},         /* at the limit, an idle connection this old gives its slot; -1 never */
    {"api_ipv6_client_prefix", "64"},        /* IPv6 clients count by this prefix in per-client limits */
    {"api_connection_timeout", "60"},        /* idle keep-alive seconds */
    {"api_connection_memory", "16384"},      /* request line + headers (MHD zeroes it per request) */
    {"api_listen_backlog", "1024"},
    {"api_max_body", "8388608"},
    {"api_handler_timeout_ms", "30000"},
    {"api_rate_limit", "0"},                 /* requests/second per client IP, 0 = off */
    {"api_queue_target_ms", "100"},          /* shed load (503) when handlers queue longer */
    {"api_shed_latency_ms", "100"},          /* saturated and slower than this: shed (shed.c) */
    {"api_poller", "\"poll\""},             /* MHD 0.9.75 epoll stalls past ~100 busy connections */
    {"api_json_500", "false"},
    {"shutdown_timeout_ms", "10000"},
    {"dead_letter_max_per_name", "50000"},
    {"log_level", "\"INFO\""},
    {"log_file", "\"\""},
    {"log_syslog", "false"},
    {"log_console", "true"},
    {"log_levels", "{}"},
    {"log_queue_max", "65536"},
    {"store_sync", "\"normal\""},
    /* the OpenFlow server (host/southbound/) on listen:port */
    {"sb_enabled", "true"},                  /* listen at all (the test host: off unless asked) */
    {"sb_send_queue_max", "4194304"},        /* bytes a connection may queue; past it, cut off */
    {"sb_read_max", "65536"},                /* bytes read per connection per turn (fairness) */
    {"sb_max_connections", "4096"},
    {"sb_listen_backlog", "128"},
    {"sb_raw_in_events", "true"},            /* publish kytos/core.<proto>.raw.in when subscribed */
};

static const char *const secret_keys[] = {"jwt_secret", NULL};

static struct json_object *parse_value(const char *text)
{
    struct json_tokener *tok;
    struct json_object *o;
    size_t len = strlen(text);

    /* Python spellings Kytos' files use */
    if (strcasecmp(text, "true") == 0)
        return json_object_new_boolean(1);
    if (strcasecmp(text, "false") == 0)
        return json_object_new_boolean(0);
    if (strcmp(text, "None") == 0 || strcmp(text, "null") == 0)
        return NULL;
    tok = json_tokener_new_ex(64);
    if (!tok)
        return json_object_new_string(text);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    o = json_tokener_parse_ex(tok, text, (int)len);
    if (!o && json_tokener_get_error(tok) == json_tokener_continue)
        o = json_tokener_parse_ex(tok, " ", 1);   /* a bare number needs an end */
    else if (o && json_tokener_get_parse_end(tok) != len) {
        json_object_put(o);
        o = NULL;
    }
    if (!o || json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(o);
        o = json_object_new_string(text);
    }
    json_tokener_free(tok);
    return o;
}

kh_config *kh_config_new(void)
{
    kh_config *c = calloc(1, sizeof *c);
    size_t i;

    if (!c)
        return NULL;
    c->daemon = json_object_new_object();
    c->napps = json_object_new_object();
    for (i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        json_object_object_add(c->daemon, defaults[i].key, parse_value(defaults[i].json));
    return c;
}

void kh_config_free(kh_config *c)
{
    if (!c)
        return;
    json_object_put(c->daemon);
    json_object_put(c->napps);
    free(c);
}

static int known_key(const char *key)
{
    size_t i;
    for (i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (strcmp(defaults[i].key, key) == 0)
            return 1;
    return 0;
}

void kh_config_set(kh_config *c, const char *key, const char *value)
{
    json_object_object_add(c->daemon, key, parse_value(value));
}

void kh_config_set_string(kh_config *c, const char *key, const char *value)
{
    json_object_object_add(c->daemon, key, json_object_new_string(value));
}

static char *trim(char *s)
{
    char *e;
    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int valid_key(const char *k)
{
    if (!*k || strlen(k) > 128)
        return 0;
    for (; *k; k++)
        if (!isalnum((unsigned char)*k) && *k != '_' && *k != '-' && *k != '.')
            return 0;
    return 1;
}

/* Store one finished key/value into the current section. */
static void commit_pair(kh_config *c, const char *section, const char *key, const char *value,
                        const char *origin, int line)
{
    if (strcmp(section, "daemon") == 0) {
        if (!known_key(key))
            kh_log(LOGGER, KH_WARNING, "%s:%d: unknown key '%s' (kept)", origin, line, key);
        kh_config_set(c, key, value);
    } else {
        struct json_object *sec = NULL;
        if (!json_object_object_get_ex(c->napps, section, &sec)) {
            sec = json_object_new_object();
            json_object_object_add(c->napps, section, sec);
        }
        json_object_object_add(sec, key, parse_value(value));
    }
}

int kh_config_load_text(kh_config *c, const char *text, const char *origin, char *err, size_t errlen)
{
    char *buf, *line, *next;
    char section[160] = "";
    char key[160] = "";
    char *value = NULL;
    size_t vlen = 0;
    int lineno = 0, keyline = 0, rc = 0;

    if (strlen(text) > CONF_MAX_BYTES) {
        snprintf(err, errlen, "%s: larger than %d bytes", origin, CONF_MAX_BYTES);
        return -1;
    }
    buf = strdup(text);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", origin);
        return -1;
    }
    for (line = buf; line; line = next) {
        char *t;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        t = trim(line);
        if (*t == '#' || *t == ';')
            continue;
        if (*t && isspace((unsigned char)line[0]) && value) {
            /* continuation of a multi-line value */
            size_t add = strlen(t);
            char *nv = realloc(value, vlen + add + 2);
            if (!nv) {
                rc = -1;
                snprintf(err, errlen, "%s:%d: out of memory", origin, lineno);
                break;
            }
            value = nv;
            if (vlen)
                value[vlen++] = ' ';
            memcpy(value + vlen, t, add + 1);
            vlen += add;
            continue;
        }
        if (!*t)
            continue;
        if (value) {
            commit_pair(c, section, key, value, origin, keyline);
            free(value);
            value = NULL;
        }
        if (*t == '[') {
            char *end = strchr(t, ']');
            if (!end || end[1] != '\0' || end - t - 1 <= 0 || (size_t)(end - t - 1) >= sizeof section) {
                snprintf(err, errlen, "%s:%d: bad section header '%.60s'", origin, lineno, t);
                rc = -1;
                break;
            }
            *end = '\0';
            snprintf(section, sizeof section, "%s", trim(t + 1));
            continue;
        }
        char *eq = strpbrk(t, "=:");
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'key = value', got '%.60s'", origin, lineno, t);
            rc = -1;
            break;
        }
        if (!*section) {
            snprintf(err, errlen, "%s:%d: key outside of a [section]", origin, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *k = trim(t);
        if (!valid_key(k)) {
            snprintf(err, errlen, "%s:%d: bad key '%.60s'", origin, lineno, k);
            rc = -1;
            break;
        }
        snprintf(key, sizeof key, "%s", k);
        keyline = lineno;
        value = strdup(trim(eq + 1));
        vlen = value ? strlen(value) : 0;
        if (!value) {
            rc = -1;
            snprintf(err, errlen, "%s:%d: out of memory", origin, lineno);
            break;
        }
    }
    if (value) {
        if (rc == 0)
            commit_pair(c, section, key, value, origin, keyline);
        free(value);
    }
    free(buf);
    return rc;
}

int kh_config_load_file(kh_config *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *text;
    long n;
    int rc;

    if (!f) {
        snprintf(err, errlen, "cannot open %s", path);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > CONF_MAX_BYTES ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        snprintf(err, errlen, "%s: unreadable or larger than %d bytes", path, CONF_MAX_BYTES);
        return -1;
    }
    text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        fclose(f);
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    text[n] = '\0';
    fclose(f);
    if (memchr(text, '\0', (size_t)n)) {
        free(text);
        snprintf(err, errlen, "%s: contains a NUL byte", path);
        return -1;
    }
    rc = kh_config_load_text(c, text, path, err, errlen);
    free(text);
    return rc;
}

struct json_object *kh_config_get(const kh_config *c, const char *key)
{
    struct json_object *v = NULL;
    json_object_object_get_ex(c->daemon, key, &v);
    return v;
}

const char *kh_config_str(const kh_config *c, const char *key, const char *def)
{
    struct json_object *v = kh_config_get(c, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : def;
}

int64_t kh_config_int(const kh_config *c, const char *key, int64_t def)
{
    struct json_object *v = kh_config_get(c, key);
    if (v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        return json_object_get_int64(v);
    if (v && json_object_is_type(v, json_type_string)) {
        char *end;
        long long x = strtoll(json_object_get_string(v), &end, 10);
        if (*json_object_get_string(v) && *end == '\0')
            return x;
    }
    return def;
}

int kh_config_bool(const kh_config *c, const char *key, int def)
{
    struct json_object *v = kh_config_get(c, key);
    if (!v)
        return def;
    if (json_object_is_type(v, json_type_boolean) || json_object_is_type(v, json_type_int))
        return json_object_get_boolean(v);
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        if (!strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "1"))
            return 1;
        if (!strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "0"))
            return 0;
    }
    return def;
}

struct json_object *kh_config_public(const kh_config *c)
{
    struct json_object *o = json_object_new_object();
    json_object_object_foreach(c->daemon, k, v) {
        size_t i;
        int secret = 0;
        for (i = 0; secret_keys[i]; i++)
            if (strcmp(k, secret_keys[i]) == 0)
                secret = 1;
        if (!secret)
            json_object_object_add(o, k, json_object_get(v));
    }
    return o;
}

struct json_object *kh_config_napp_settings(const kh_config *c, const char *napp_id)
{
    struct json_object *sec = NULL;
    if (!json_object_object_get_ex(c->napps, napp_id, &sec)) {
        sec = json_object_new_object();
        json_object_object_add(c->napps, napp_id, sec);
    }
    return sec;
}
