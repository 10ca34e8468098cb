/* host/ui/ui.c - serving the web UI's files (ui.h): which file a path
 * names, content type, ETag / If-None-Match, gzip when the client takes
 * it, Kytos' no-cache headers on NApps' files, and /ui/{section}/. */
#include "ui/ui.h"
#include "ui/ui_path.h"
#include "util/log.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define LOGGER "kytos.core.ui"
#define GZIP_MIN 256          /* smaller bodies are sent as they are */

struct embedded_file {
    const struct kh_ui_embedded *f;
    const char *type;
    char etag[40];
    unsigned char *gz;        /* compressed once, at start */
    size_t gz_len;
};

struct kh_ui {
    int dir_fd;               /* ui_dir, or -1 */
    char dir[PATH_MAX];       /* its real path */
    char napps[PATH_MAX];     /* the napps directory's real path, "" if none */
    size_t max_file;
    int dashboard;
    struct embedded_file *emb;
    size_t nemb;
    int (*napp_file)(void *, const char *, const char *, const char *, struct kh_ui_napp_file *);
    void (*napp_each)(void *, void (*)(void *, const char *, const char *, const char *), void *);
    void *napp_ctx;
};

/* ---- content types ---- */

static const char *content_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } t[] = {
        {"html", "text/html; charset=utf-8"}, {"htm", "text/html; charset=utf-8"},
        {"css", "text/css; charset=utf-8"}, {"js", "text/javascript; charset=utf-8"},
        {"mjs", "text/javascript; charset=utf-8"}, {"json", "application/json"},
        {"map", "application/json"}, {"svg", "image/svg+xml"}, {"png", "image/png"},
        {"jpg", "image/jpeg"}, {"jpeg", "image/jpeg"}, {"gif", "image/gif"},
        {"webp", "image/webp"}, {"ico", "image/x-icon"}, {"woff", "font/woff"},
        {"woff2", "font/woff2"}, {"ttf", "font/ttf"}, {"otf", "font/otf"},
        {"txt", "text/plain; charset=utf-8"}, {"kytos", "text/plain; charset=utf-8"},
        {"xml", "application/xml"}, {"wasm", "application/wasm"}, {"pdf", "application/pdf"},
    };
    const char *dot = strrchr(name, '.');
    size_t i;

    if (dot && !strchr(dot, '/'))
        for (i = 0; i < sizeof t / sizeof t[0]; i++)
            if (strcasecmp(dot + 1, t[i].ext) == 0)
                return t[i].type;
    return "application/octet-stream";
}

static int compressible(const char *type)
{
    return strncmp(type, "text/", 5) == 0 || strstr(type, "json") || strstr(type, "xml") ||
           strstr(type, "svg");
}

/* ---- request headers ---- */

/* The client takes gzip: the token, without q=0. */
static int accepts_gzip(kytos_req *r)
{
    const char *ae = kh_req_header(r, "Accept-Encoding"), *p;

    for (p = ae; p && (p = strcasestr(p, "gzip")); p += 4) {
        const char *q = p + 4;
        if (p != ae && p[-1] != ' ' && p[-1] != ',')
            continue;
        while (*q == ' ')
            q++;
        if (*q == ';') {
            q++;
            while (*q == ' ')
                q++;
            if (strncmp(q, "q=0", 3) == 0 && strspn(q + 3, ".0") == strcspn(q + 3, ", "))
                return 0;
        }
        return 1;
    }
    return 0;
}

/* If-None-Match names etag (or is "*"): weak comparison, as RFC 9110. */
static int etag_matches(kytos_req *r, const char *etag)
{
    const char *inm = kh_req_header(r, "If-None-Match"), *p;
    size_t el = strlen(etag);

    if (!inm)
        return 0;
    for (p = inm; *p;) {
        size_t len;
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == '*')
            return 1;
        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        len = strcspn(p, ",");
        while (len && p[len - 1] == ' ')
            len--;
        if (len == el && memcmp(p, etag, el) == 0)
            return 1;
        p += strcspn(p, ",");
    }
    return 0;
}

/* ---- answers ---- */

static void set_cache_headers(kytos_req *r, int no_store)
{
    if (no_store) {   /* Kytos' headers on /ui/{u}/{n}/... */
        kh_resp_header(r, "Cache-Control", "no-cache, no-store, must-revalidate");
        kh_resp_header(r, "Pragma", "no-cache");
        kh_resp_header(r, "Expires", "0");
    } else {
        kh_resp_header(r, "Cache-Control", "no-cache");   /* revalidate: ETag */
    }
    kh_resp_header(r, "X-Content-Type-Options", "nosniff");
}

static int not_found(kytos_req *r)
{
    kh_resp_error(r, 404, "Not Found");
    return 1;
}

static int wrong_method(kytos_req *r)
{
    kh_resp_error(r, 405, "Method Not Allowed");
    kh_resp_header(r, "Allow", "GET, HEAD");
    return 1;
}

/* gzip of data (NULL when it does not pay or fails). */
static unsigned char *gzip_of(const void *data, size_t len, size_t *out_len)
{
    z_stream z;
    unsigned char *out;
    size_t cap;

    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    cap = deflateBound(&z, (uLong)len);
    out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END || z.total_out >= len) {
        deflateEnd(&z);
        free(out);
        return NULL;
    }
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}

static void release_free(void *p) { free(p); }

/* Send body (owned: freed by the transport unless borrowed) as type. */
static int send_body(kytos_req *r, const char *type, const char *etag, void *body, size_t len,
                     int borrowed, int gz, int no_store)
{
    char tag[48];

    snprintf(tag, sizeof tag, "%s", etag);
    if (gz) {   /* another representation: another tag */
        size_t tl = strlen(tag);
        if (tl > 1 && tl + 3 < sizeof tag)
            snprintf(tag + tl - 1, sizeof tag - tl + 1, "-gz\"");
    }
    if (etag_matches(r, tag)) {
        if (!borrowed)
            free(body);
        kh_resp_raw(r, 304, type, "", 0);
    } else {
        kh_resp_static(r, 200, type, body, len, borrowed ? NULL : release_free,
                       borrowed ? NULL : body);
        if (gz)
            kh_resp_header(r, "Content-Encoding", "gzip");
    }
    kh_resp_header(r, "ETag", tag);
    kh_resp_header(r, "Vary", "Accept-Encoding");
    set_cache_headers(r, no_store);
    return 1;
}

static int serve_embedded(struct kh_ui *ui, kytos_req *r, const char *name, int is_get)
{
    size_t i;

    for (i = 0; i < ui->nemb; i++) {
        struct embedded_file *e = &ui->emb[i];
        if (strcmp(e->f->name, name) != 0)
            continue;
        if (!is_get)
            return wrong_method(r);
        if (e->gz && accepts_gzip(r))
            return send_body(r, e->type, e->etag, e->gz, e->gz_len, 1, 1, 0);
        return send_body(r, e->type, e->etag, (void *)(uintptr_t)e->f->data, e->f->len, 1, 0, 0);
    }
    return not_found(r);
}

/* Serve an open file (fd is closed here). */
static int serve_fd(struct kh_ui *ui, kytos_req *r, int fd, const char *name, int is_get,
                    int no_store)
{
    struct stat st;
    const char *type = content_type(name);
    char etag[64];
    char *buf;
    size_t got = 0;

    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return not_found(r);
    }
    if (!is_get) {
        close(fd);
        return wrong_method(r);
    }
    if ((uint64_t)st.st_size > ui->max_file) {
        close(fd);
        kh_log(LOGGER, KH_WARNING, "%s: %lld bytes, over ui_max_file (%zu): not served", r->path,
               (long long)st.st_size, ui->max_file);
        kh_resp_error(r, 404, "Not Found: the file is larger than ui_max_file");
        return 1;
    }
    snprintf(etag, sizeof etag, "\"%llx-%llx-%llx\"", (unsigned long long)st.st_size,
             (unsigned long long)st.st_mtim.tv_sec * 1000000000ull + (unsigned long long)st.st_mtim.tv_nsec,
             (unsigned long long)st.st_ino);
    if (etag_matches(r, etag)) {   /* no read at all */
        close(fd);
        return send_body(r, type, etag, NULL, 0, 1, 0, no_store);
    }
    buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        kh_resp_error(r, 500, "out of memory");
        return 1;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (compressible(type) && got >= GZIP_MIN && accepts_gzip(r)) {
        size_t zl;
        unsigned char *z = gzip_of(buf, got, &zl);
        if (z) {
            free(buf);
            return send_body(r, type, etag, z, zl, 0, 1, no_store);
        }
    }
    return send_body(r, type, etag, buf, got, 0, 0, no_store);
}

/* A NApp's embedded file: as serve_fd does for one on disk, from bytes
 * that stay mapped (borrowed, never copied unless compressed). */
static int serve_napp_embedded(struct kh_ui *ui, kytos_req *r, const struct kh_ui_napp_file *f,
                               int is_get)
{
    const char *type = content_type(f->path);

    if (!is_get)
        return wrong_method(r);
    if (f->len > ui->max_file) {
        kh_log(LOGGER, KH_WARNING, "%s: %zu bytes, over ui_max_file (%zu): not served", r->path,
               f->len, ui->max_file);
        kh_resp_error(r, 404, "Not Found: the file is larger than ui_max_file");
        return 1;
    }
    if (!etag_matches(r, f->etag) && compressible(type) && f->len >= GZIP_MIN && accepts_gzip(r)) {
        size_t zl;
        unsigned char *z = gzip_of(f->data, f->len, &zl);
        if (z)
            return send_body(r, type, f->etag, z, zl, 0, 1, 1);
    }
    return send_body(r, type, f->etag, (void *)(uintptr_t)f->data, f->len, 1, 0, 1);
}

/* ---- /ui/{section}/: Kytos' list of NApps' *.kytos components ---- */

static void list_section(const char *napps, const char *u, const char *n, const char *sec,
                         struct json_object *out)
{
    char path[PATH_MAX];
    DIR *d;
    struct dirent *de;

    if ((size_t)snprintf(path, sizeof path, "%s/%s/%s/ui/%s", napps, u, n, sec) >= sizeof path ||
        !(d = opendir(path)))
        return;
    while ((de = readdir(d)) && json_object_array_length(out) < 4096) {
        size_t l = strlen(de->d_name);
        char name[4 * KH_UI_NAME_MAX], url[4 * KH_UI_NAME_MAX + 16];
        struct json_object *o;
        struct stat st;
        if (l <= 6 || strcmp(de->d_name + l - 6, ".kytos") != 0 || !kh_ui_seg_ok(de->d_name) ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;   /* a link (maybe leading out) is not listed */
        snprintf(name, sizeof name, "%s-%s-%s-%.*s", u, n, sec, (int)(l - 6), de->d_name);
        snprintf(url, sizeof url, "ui/%s/%s/%s/%s", u, n, sec, de->d_name);
        o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "url", json_object_new_string(url));
        json_object_array_add(out, o);
    }
    closedir(d);
}

/* Each readable subdirectory of dir whose name is a good segment. */
#define EACH_DIR(dir, d, de)                                                       \
    for (de = (d = opendir(dir)) ? readdir(d) : NULL; de || (d && (closedir(d), d = NULL, 0)); \
         de = readdir(d))                                                          \
        if (kh_ui_seg_ok(de->d_name))

struct section_walk {
    const char *section;
    struct json_object *out;
};

/* An embedded file section/<name>.kytos (or any section's, for "all"),
 * unless a file on disk was listed under that name already. */
static void list_embedded(void *arg, const char *u, const char *n, const char *path)
{
    struct section_walk *w = arg;
    const char *slash = strchr(path, '/');
    size_t l, sl, i, len;
    char name[4 * KH_UI_NAME_MAX], url[4 * KH_UI_NAME_MAX + 16];
    struct json_object *o;

    if (!slash || strchr(slash + 1, '/') || (len = json_object_array_length(w->out)) >= 4096)
        return;
    sl = (size_t)(slash - path);
    l = strlen(slash + 1);
    if (l <= 6 || strcmp(slash + 1 + l - 6, ".kytos") != 0 ||
        (strcmp(w->section, "all") != 0 &&
         (strlen(w->section) != sl || strncmp(path, w->section, sl) != 0)))
        return;
    snprintf(name, sizeof name, "%s-%s-%.*s-%.*s", u, n, (int)sl, path, (int)(l - 6), slash + 1);
    for (i = 0; i < len; i++) {
        struct json_object *v;
        if (json_object_object_get_ex(json_object_array_get_idx(w->out, i), "name", &v) &&
            strcmp(json_object_get_string(v), name) == 0)
            return;   /* the file on disk wins */
    }
    snprintf(url, sizeof url, "ui/%s/%s/%s", u, n, path);
    o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "url", json_object_new_string(url));
    json_object_array_add(w->out, o);
}

static int serve_section(struct kh_ui *ui, kytos_req *r, const char *section)
{
    struct json_object *out = json_object_new_array();
    char path[PATH_MAX];
    DIR *du, *dn, *ds;
    struct dirent *eu, *en, *es;

    if (ui->napps[0]) {
        EACH_DIR(ui->napps, du, eu) {
            if ((size_t)snprintf(path, sizeof path, "%s/%s", ui->napps, eu->d_name) >= sizeof path)
                continue;
            EACH_DIR(path, dn, en) {
                char sp[PATH_MAX];
                if ((size_t)snprintf(sp, sizeof sp, "%s/%s/ui", path, en->d_name) >= sizeof sp)
                    continue;
                if (strcmp(section, "all") != 0) {
                    list_section(ui->napps, eu->d_name, en->d_name, section, out);
                    continue;
                }
                EACH_DIR(sp, ds, es)
                    list_section(ui->napps, eu->d_name, en->d_name, es->d_name, out);
            }
        }
    }
    if (ui->napp_each) {
        struct section_walk w = {section, out};
        ui->napp_each(ui->napp_ctx, list_embedded, &w);
    }
    kh_resp_json(r, 200, out);
    json_object_put(out);
    set_cache_headers(r, 1);
    return 1;
}

/* <napps>/<u>/<n>/ui/<rel>, confined to that ui/: an fd of a regular
 * file, or -1. */
static int open_napp_disk_file(struct kh_ui *ui, const char *u, const char *n, const char *rel)
{
    char uidir[3 * KH_UI_NAME_MAX + 8], real[PATH_MAX], full[PATH_MAX];
    int root, fd, nfd;
    struct stat st;

    if (!ui->napps[0])
        return -1;
    snprintf(uidir, sizeof uidir, "%s/%s/ui", u, n);
    if ((nfd = open(ui->napps, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    root = kh_ui_open(nfd, ui->napps, uidir);
    close(nfd);
    if (root < 0)
        return -1;
    if ((size_t)snprintf(full, sizeof full, "%s/%s", ui->napps, uidir) >= sizeof full ||
        !realpath(full, real)) {
        close(root);
        return -1;
    }
    fd = kh_ui_open(root, real, rel);
    close(root);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* /ui/{u}/{n}/{path...}: <napps>/<u>/<n>/ui/<path>, else the file the
 * loaded NApp u/n embeds at <path> (a file on disk wins: an operator
 * overrides a NApp's file without rebuilding it). */
static int serve_napp_file(struct kh_ui *ui, kytos_req *r, int is_get)
{
    char rel[KH_UI_PATH_MAX + 1];
    struct kh_ui_napp_file ef;
    int fd;

    if (!kh_ui_seg_ok(r->segs[1]) || !kh_ui_seg_ok(r->segs[2]) ||
        kh_ui_rel_path(r->segs + 3, r->nsegs - 3, rel, sizeof rel) != 0)
        return not_found(r);
    fd = open_napp_disk_file(ui, r->segs[1], r->segs[2], rel);
    if (fd >= 0)
        return serve_fd(ui, r, fd, rel, is_get, 1);
    if (ui->napp_file && ui->napp_file(ui->napp_ctx, r->segs[1], r->segs[2], rel, &ef))
        return serve_napp_embedded(ui, r, &ef, is_get);
    return not_found(r);
}

/* A file of ui_dir (a directory asked with a trailing slash: its
 * index.html). */
static int serve_dir_file(struct kh_ui *ui, kytos_req *r, int is_get)
{
    char rel[KH_UI_PATH_MAX + 16];
    size_t pl = strlen(r->path);
    int fd;
    struct stat st;

    if (r->nsegs == 0)
        snprintf(rel, sizeof rel, "index.html");
    else if (kh_ui_rel_path(r->segs, r->nsegs, rel, KH_UI_PATH_MAX + 1) != 0)
        return not_found(r);
    fd = kh_ui_open(ui->dir_fd, ui->dir, rel);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        fd = -1;
        if (pl > 1 && r->path[pl - 1] == '/') {
            size_t l = strlen(rel);
            snprintf(rel + l, sizeof rel - l, "/index.html");
            fd = kh_ui_open(ui->dir_fd, ui->dir, rel);
        }
    }
    if (fd < 0)
        return not_found(r);
    return serve_fd(ui, r, fd, rel, is_get, 0);
}

int kh_ui_serve(void *p, kytos_req *r)
{
    struct kh_ui *ui = p;
    int is_get = strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0;
    const char *first = r->nsegs ? r->segs[0] : "";

    if (strcmp(first, "api") == 0)
        return 0;   /* the REST API's namespace: never a file */
    if (r->nsegs == 0 || (r->nsegs == 1 && strcmp(first, "index.html") == 0)) {
        if (ui->dir_fd >= 0) {
            int fd = kh_ui_open(ui->dir_fd, ui->dir, "index.html");
            if (fd >= 0)
                return serve_fd(ui, r, fd, "index.html", is_get, 0);
        }
        if (ui->dashboard)
            return serve_embedded(ui, r, "index.html", is_get);
        return not_found(r);
    }
    if (strcmp(first, "dashboard") == 0 && ui->dashboard) {
        if (r->nsegs == 1)
            return serve_embedded(ui, r, "index.html", is_get);
        if (r->nsegs == 2)
            return serve_embedded(ui, r, r->segs[1], is_get);
        return not_found(r);
    }
    if (strcmp(first, "ui") == 0) {
        if (r->nsegs == 2) {
            if (!kh_ui_seg_ok(r->segs[1]))
                return not_found(r);
            return is_get ? serve_section(ui, r, r->segs[1]) : wrong_method(r);
        }
        if (r->nsegs >= 4)
            return serve_napp_file(ui, r, is_get);
        return not_found(r);
    }
    if (ui->dir_fd >= 0)
        return serve_dir_file(ui, r, is_get);
    return not_found(r);
}

/* ---- setup ---- */

static int embed_dashboard(struct kh_ui *ui)
{
    size_t n = 0, i;

    while (kh_ui_dashboard[n].name)
        n++;
    ui->emb = calloc(n ? n : 1, sizeof *ui->emb);
    if (!ui->emb)
        return -1;
    for (i = 0; i < n; i++) {
        struct embedded_file *e = &ui->emb[i];
        uint64_t h = 1469598103934665603ull;   /* FNV-1a of the bytes: the tag */
        size_t k;
        e->f = &kh_ui_dashboard[i];
        e->type = content_type(e->f->name);
        for (k = 0; k < e->f->len; k++)
            h = (h ^ (unsigned char)e->f->data[k]) * 1099511628211ull;
        snprintf(e->etag, sizeof e->etag, "\"%016llx\"", (unsigned long long)h);
        if (compressible(e->type) && e->f->len >= GZIP_MIN)
            e->gz = gzip_of(e->f->data, e->f->len, &e->gz_len);
    }
    ui->nemb = n;
    return 0;
}

struct kh_ui *kh_ui_new(const struct kh_ui_conf *c, char *err, size_t errlen)
{
    struct kh_ui *ui = calloc(1, sizeof *ui);

    if (!ui) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ui->dir_fd = -1;
    ui->max_file = c->max_file;
    ui->dashboard = c->dashboard;
    ui->napp_file = c->napp_file;
    ui->napp_each = c->napp_each;
    ui->napp_ctx = c->napp_ctx;
    if (c->dir && c->dir[0]) {
        if (!realpath(c->dir, ui->dir) ||
            (ui->dir_fd = open(ui->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
            snprintf(err, errlen, "ui_dir '%s': %s", c->dir, strerror(errno));
            kh_ui_free(ui);
            return NULL;
        }
    }
    if (c->napps_dir && c->napps_dir[0] && !realpath(c->napps_dir, ui->napps))
        ui->napps[0] = '\0';   /* no napps directory (yet): no NApp files */
    if (ui->dashboard && embed_dashboard(ui) != 0) {
        snprintf(err, errlen, "out of memory");
        kh_ui_free(ui);
        return NULL;
    }
    return ui;
}

void kh_ui_free(struct kh_ui *ui)
{
    size_t i;

    if (!ui)
        return;
    if (ui->dir_fd >= 0)
        close(ui->dir_fd);
    for (i = 0; i < ui->nemb; i++)
        free(ui->emb[i].gz);
    free(ui->emb);
    free(ui);
}
