/* host/napps/loader.c - finding, vetting, loading, replacing and unloading NApps.
 * See napp.h for the life cycle. */
#include "core/hostimpl.h"
#include "events/eventbus.h"
#include "southbound/southbound.h"
#include "util/base.h"
#include "util/log.h"
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOGGER "kytos.core.napps"
#define MAX_NAPPS 256

/* A vetted, dlopen'd file that has not run init yet. */
struct candidate {
    char *file;
    char *dlpath;             /* the name dlopen was given (the private copy's) */
    void *dl;
    const struct kytos_napp_desc *desc;
    char id[130];
    int done;
    int image_fd;             /* the private copy, kept open (-1 none): the record
                               * keeps it once this candidate's init succeeded */
    int from_image;           /* opened from a record's good image, not the file */
    struct kh_ui_napp_files *ui; /* its vetted kytos_napp_ui table, or NULL */
    char version[64];         /* a refusal after the descriptor was read names
                               * the NApp (id above) and its version */
    int64_t open_ns;          /* vetting and dlopen took this long */
};

static void record_set(kh_host *h, const char *file, const char *id, const char *version,
                       const char *state, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- kytos_napp basics ---- */

kh_host *kh_napp_host(const kytos_napp *n) { return n->host; }
const char *kh_napp_id(const kytos_napp *n) { return n ? n->id : "kytos/core"; }
const char *kh_napp_logger(const kytos_napp *n) { return n ? n->logger : "kytos.core"; }
int kh_napp_is_active(const kytos_napp *n)
{
    int s = atomic_load(&n->state);
    return s == KH_NAPP_ENABLED || s == KH_NAPP_LOADING;
}

int kh_napp_is_enabled(const kytos_napp *n)
{
    return atomic_load(&n->state) == KH_NAPP_ENABLED;
}

void kh_napp_ref(kytos_napp *n) { atomic_fetch_add(&n->refs, 1); }
const void *kh_napp_desc_addr(const kytos_napp *n) { return n->desc; }

void kh_napp_crashed(kytos_napp *n, const char *where)
{
    kh_host *h = n->host;
    int expected = KH_NAPP_ENABLED;

    if (!atomic_compare_exchange_strong(&n->state, &expected, KH_NAPP_UNLOADING))
        return;   /* already going away */
    kh_log(LOGGER, KH_CRITICAL, "%s crashed in %s; taking it out of service (its code stays "
           "mapped, its stop hook is not called)", n->id, where);
    kh_router_remove_owner(h->router, n);
    /* its switch connections close without calling into it again */
    kh_sb_napp_unload(h->sb, n, 1);
    pthread_mutex_lock(&h->reg_mu);
    {
        kytos_napp **pp = &h->napps;
        while (*pp && *pp != n)
            pp = &(*pp)->next;
        if (*pp == n) {
            *pp = n->next;
            n->next = h->crashed;
            h->crashed = n;     /* the registry's reference moves here */
        }
    }
    pthread_mutex_unlock(&h->reg_mu);
    record_set(h, n->file, n->id, n->version, "crashed", "fault in %s", where);
}

void kh_napp_release_data(kytos_napp *n)
{
    void (*release)(kytos_napp *, void *) = n->release;

    n->release = NULL;
    if (release)
        release(n, n->data);
    n->data = NULL;
}

static void route_free(struct kh_route *r)
{
    free(r->method);
    free(r->path);
    free(r->rel_path);
    free(r->pool);
    free(r->operation);
    free(r);
}

static void napp_destroy(kytos_napp *n)
{
    struct kh_route *r = n->routes;
    while (r) {
        struct kh_route *next = r->next;
        route_free(r);
        r = next;
    }
    kh_validate_free(n);
    kh_ui_napp_files_free(n->ui);
    if (n->dl)
        dlclose(n->dl);
    free(n->file);
    free(n);
}

/* The decrement is the last access to n: once it is done, another thread
 * may drop the last reference and free n (an unload that sees only the
 * registry's reference left drops it at once).  Whether someone waits is
 * read from the host, which outlives every NApp and every thread holding a
 * reference (the pools and the bus are joined before the registry goes).
 * The unloader raises h->unloading before it reads n->refs, and this
 * thread lowers n->refs before it reads h->unloading (both seq_cst): at
 * least one of them sees the other, so a waiter is never left until its
 * timeout.  Only a decrement that leaves one reference (the registry's) can
 * end a wait. */
void kh_napp_unref(kytos_napp *n)
{
    kh_host *h = n->host;
    int left = atomic_fetch_sub(&n->refs, 1) - 1;

    if (left == 0) {
        napp_destroy(n);
        return;
    }
    if (left == 1 && atomic_load(&h->unloading) > 0) {
        pthread_mutex_lock(&h->reg_mu);
        pthread_cond_broadcast(&h->refs_cv);
        pthread_mutex_unlock(&h->reg_mu);
    }
}

/* ---- records (what the status endpoint shows) ---- */

static struct kh_record *record_for(kh_host *h, const char *file)
{
    struct kh_record *rec;
    for (rec = h->records; rec; rec = rec->next)
        if (strcmp(rec->file, file) == 0)
            return rec;
    rec = calloc(1, sizeof *rec);
    if (!rec)
        return NULL;
    rec->file = strdup(file);
    if (!rec->file) {
        free(rec);
        return NULL;
    }
    rec->good_fd = -1;
    rec->load_ms = -1;
    rec->next = h->records;
    h->records = rec;
    return rec;
}

static void record_set(kh_host *h, const char *file, const char *id, const char *version,
                       const char *state, const char *fmt, ...)
{
    struct kh_record *rec;
    va_list ap;

    pthread_mutex_lock(&h->reg_mu);
    rec = record_for(h, file);
    if (rec) {
        rec->duplicate = 0;
        if (id)
            snprintf(rec->id, sizeof rec->id, "%s", id);
        if (version)
            snprintf(rec->version, sizeof rec->version, "%s", version);
        snprintf(rec->state, sizeof rec->state, "%s", state);
        va_start(ap, fmt);
        vsnprintf(rec->reason, sizeof rec->reason, fmt ? fmt : "", ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&h->reg_mu);
}

static void file_stamp(const char *path, struct kh_file_stamp *out)
{
    struct stat st;

    memset(out, 0, sizeof *out);
    if (stat(path, &st) != 0)
        return;
    out->dev = (unsigned long long)st.st_dev;
    out->ino = (unsigned long long)st.st_ino;
    out->size = (unsigned long long)st.st_size;
    out->mtime_ns = (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
                    (unsigned long long)st.st_mtim.tv_nsec;
}

static int same_stamp(const struct kh_file_stamp *a, const struct kh_file_stamp *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns && (a->dev || a->ino);
}

/* A copy of file was refused (state "refused" or "waiting").  When an
 * earlier version from the same file serves, or could serve again (the
 * record keeps its image), the record goes on showing that version, and
 * the refusal is kept beside it ("rejected" in the status); otherwise
 * it is the file's state.  id: the NApp the copy holds, NULL if unknown. */
static void record_refusal(kh_host *h, const char *file, const char *id, const char *version,
                           const char *state, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void record_refusal(kh_host *h, const char *file, const char *id, const char *version,
                           const char *state, const char *fmt, ...)
{
    struct kh_record *rec;
    struct kh_file_stamp stamp;
    kytos_napp *n;
    int serving = 0;
    va_list ap;

    file_stamp(file, &stamp);
    pthread_mutex_lock(&h->reg_mu);
    for (n = h->napps; n && !serving; n = n->next)
        serving = strcmp(n->file, file) == 0;
    rec = record_for(h, file);
    if (rec && rec->id[0] && (serving || rec->good_fd >= 0) && (!id || strcmp(rec->id, id) == 0)) {
        rec->has_rejected = 1;
        snprintf(rec->rejected_state, sizeof rec->rejected_state, "%s", state);
        snprintf(rec->rejected_version, sizeof rec->rejected_version, "%s", version ? version : "");
        va_start(ap, fmt);
        vsnprintf(rec->rejected_reason, sizeof rec->rejected_reason, fmt, ap);
        va_end(ap);
        rec->rejected_stamp = stamp;
    } else if (rec) {
        rec->duplicate = 0;
        if (id)
            snprintf(rec->id, sizeof rec->id, "%s", id);
        if (version)
            snprintf(rec->version, sizeof rec->version, "%s", version);
        snprintf(rec->state, sizeof rec->state, "%s", state);
        va_start(ap, fmt);
        vsnprintf(rec->reason, sizeof rec->reason, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&h->reg_mu);
}

/* The file is gone: its image and what was refused of it go too. */
static void record_forget_image(kh_host *h, const char *file)
{
    struct kh_record *rec;

    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec; rec = rec->next)
        if (strcmp(rec->file, file) == 0) {
            if (rec->good_fd >= 0)
                close(rec->good_fd);
            rec->good_fd = -1;
            rec->has_rejected = 0;
        }
    pthread_mutex_unlock(&h->reg_mu);
}

static void record_mark_duplicate(kh_host *h, const char *file)
{
    struct kh_record *rec;

    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec; rec = rec->next)
        if (strcmp(rec->file, file) == 0)
            rec->duplicate = 1;
    pthread_mutex_unlock(&h->reg_mu);
}

void kh_registry_free(kh_host *h)
{
    while (h->crashed) {
        kytos_napp *n = h->crashed;
        h->crashed = n->next;
        atomic_store(&n->state, KH_NAPP_UNLOADED);
        kh_napp_unref(n);
    }
    while (h->records) {
        struct kh_record *r = h->records;
        h->records = r->next;
        if (r->good_fd >= 0)
            close(r->good_fd);
        free(r->file);
        free(r);
    }
}

/* ---- disabled set, persisted in the data directory ---- */

static void disabled_path(kh_host *h, char *out, size_t len)
{
    snprintf(out, len, "%s/disabled_napps.json", h->data_dir);
}

static int is_disabled(kh_host *h, const char *id)
{
    size_t i, n = h->disabled ? json_object_array_length(h->disabled) : 0;
    for (i = 0; i < n; i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(h->disabled, i)), id) == 0)
            return 1;
    return 0;
}

static void disabled_load(kh_host *h)
{
    char path[PATH_MAX + 32];
    struct json_object *o;

    disabled_path(h, path, sizeof path);
    o = json_object_from_file(path);
    if (o && !json_object_is_type(o, json_type_array)) {
        kh_log(LOGGER, KH_WARNING, "%s is not a JSON array; ignored", path);
        json_object_put(o);
        o = NULL;
    }
    json_object_put(h->disabled);
    h->disabled = o ? o : json_object_new_array();
}

static void disabled_save(kh_host *h)
{
    char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
    disabled_path(h, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (json_object_to_file(tmp, h->disabled) != 0 || rename(tmp, path) != 0)
        kh_log(LOGGER, KH_ERROR, "cannot save %s: %s", path, strerror(errno));
}

static void disabled_set(kh_host *h, const char *id, int disabled)
{
    size_t i, n;

    /* the test host never loads the set from a directory */
    if (!h->disabled && !(h->disabled = json_object_new_array()))
        return;
    n = json_object_array_length(h->disabled);
    for (i = 0; i < n; i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(h->disabled, i)), id) == 0) {
            if (!disabled) {
                json_object_array_del_idx(h->disabled, i, 1);
                disabled_save(h);
            }
            return;
        }
    if (disabled) {
        json_object_array_add(h->disabled, json_object_new_string(id));
        disabled_save(h);
    }
}

/* ---- opening a file ---- */

static int valid_ident(const char *s)
{
    size_t i;
    if (!s || !*s || strlen(s) > 64 || !(islower((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (i = 0; s[i]; i++)
        if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

/* Copy src so the mapping never shares an inode with the original; the
 * copy is named after file. */
static int private_copy(kh_host *h, const char *file, const char *src, char *dst, size_t dstlen)
{
    static atomic_uint counter;
    char dir[PATH_MAX + 16], buf[65536];
    int in, out = -1;
    ssize_t n;
    const char *base = strrchr(file, '/');

    base = base ? base + 1 : file;
    snprintf(dir, sizeof dir, "%s/napp-cache", h->data_dir);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    snprintf(dst, dstlen, "%s/%u.%u.%.100s", dir, (unsigned)getpid(),
             atomic_fetch_add(&counter, 1), base);
    in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (out < 0) {
        close(in);
        return -1;
    }
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    close(in);
    if (close(out) != 0 || n < 0) {
        unlink(dst);
        return -1;
    }
    return 0;
}

/* Vet and dlopen one file, read from src (the file itself, or a
 * record's image as /proc/self/fd/N).  0, or -1 with the reason in err. */
static int open_candidate(kh_host *h, const char *file, const char *src, struct candidate *c,
                          char *err, size_t errlen)
{
    char copy[PATH_MAX + 160];
    const struct kytos_napp_desc *d;
    const struct kytos_napp_ui *ui;
    int64_t t0 = kh_mono_ns();
    int copied;

    memset(c, 0, sizeof *c);
    c->image_fd = -1;
    c->from_image = src != file;
    if (c->from_image) {
        /* an image was vetted when it loaded; its copy is checked again
         * (the elf check opens no symbolic link, as /proc/self/fd/N is) */
        if (private_copy(h, file, src, copy, sizeof copy) != 0) {
            snprintf(err, errlen, "cannot copy its last working version: %s", strerror(errno));
            return -1;
        }
        if (kh_elf_check(copy, err, errlen) != 0) {
            unlink(copy);
            return -1;
        }
        copied = 1;
    } else {
        if (kh_elf_check(src, err, errlen) != 0)
            return -1;
        copied = private_copy(h, file, src, copy, sizeof copy) == 0;
        if (!copied)
            kh_log(LOGGER, KH_WARNING, "%s: cannot make a private copy (%s); loading in place",
                   file, strerror(errno));
    }
    dlerror();
    c->dl = dlopen(copied ? copy : src, RTLD_NOW | RTLD_LOCAL);
    c->dlpath = strdup(copied ? copy : src);
    if (copied) {
        /* kept open: the image a later enable can fall back to */
        c->image_fd = c->dl ? open(copy, O_RDONLY | O_CLOEXEC) : -1;
        unlink(copy);   /* the mapping stays valid */
    }
    if (!c->dl) {
        const char *e = dlerror();
        snprintf(err, errlen, "cannot load: %s", e ? e : "dlopen failed");
        free(c->dlpath);
        c->dlpath = NULL;
        return -1;
    }
    d = dlsym(c->dl, "kytos_napp_desc");
    if (!d) {
        snprintf(err, errlen, "not a NApp: no kytos_napp_desc symbol");
        goto fail;
    }
    if (d->magic != KYTOS_NAPP_MAGIC) {
        snprintf(err, errlen, "not a NApp: magic 0x%08x, expected 0x%08x", d->magic, KYTOS_NAPP_MAGIC);
        goto fail;
    }
    /* the NApp's minimum ABI minor against this host's (napps/descriptor.c) */
    if (kh_desc_check_abi(d, err, errlen) != KYTOS_OK)
        goto fail;
    if (d->struct_size < offsetof(struct kytos_napp_desc, openapi_len_fn)) {
        snprintf(err, errlen, "descriptor of %u bytes, expected at least %zu", d->struct_size,
                 offsetof(struct kytos_napp_desc, openapi_len_fn));
        goto fail;
    }
    if (!d->build_sig || strcmp(d->build_sig, KYTOS_BUILD_SIGNATURE) != 0) {
        snprintf(err, errlen, "build signature '%.100s', expected '%s'",
                 d->build_sig ? d->build_sig : "(none)", KYTOS_BUILD_SIGNATURE);
        goto fail;
    }
    if (!valid_ident(d->username) || !valid_ident(d->name)) {
        snprintf(err, errlen, "bad username/name '%.64s/%.64s' (want [a-z_][a-z0-9_]*)",
                 d->username ? d->username : "", d->name ? d->name : "");
        goto fail;
    }
    if (!d->init) {
        snprintf(err, errlen, "descriptor has no init function");
        goto fail;
    }
    /* its ui/ files, if it embeds them: a data symbol, no ABI slot */
    if ((ui = dlsym(c->dl, "kytos_napp_ui")) != NULL) {
        char why[256];
        /* the symbol's own size first: a table it claims but does not
         * hold would be read from whatever follows it */
        Dl_info info;
        const ElfW(Sym) *sym = NULL;
        size_t have = dladdr1(ui, &info, (void **)&sym, RTLD_DL_SYMENT) && sym ? (size_t)sym->st_size : 0;
        if (have < sizeof *ui || have < ui->struct_size) {
            snprintf(err, errlen, "embedded ui files (kytos_napp_ui): the symbol is %zu bytes, "
                     "smaller than the %zu-byte table it must hold", have,
                     have < sizeof *ui ? sizeof *ui : (size_t)ui->struct_size);
            snprintf(c->id, sizeof c->id, "%s/%s", d->username, d->name);
            snprintf(c->version, sizeof c->version, "%.63s", d->version ? d->version : "");
            goto fail;
        }
        if (!(c->ui = kh_ui_napp_files_new(ui, why, sizeof why))) {
            snprintf(err, errlen, "embedded ui files (kytos_napp_ui): %s", why);
            snprintf(c->id, sizeof c->id, "%s/%s", d->username, d->name);
            snprintf(c->version, sizeof c->version, "%.63s", d->version ? d->version : "");
            goto fail;
        }
    }
    c->desc = d;
    c->open_ns = kh_mono_ns() - t0;
    c->file = strdup(file);
    snprintf(c->id, sizeof c->id, "%s/%s", d->username, d->name);
    return 0;
fail:
    dlclose(c->dl);
    c->dl = NULL;
    free(c->dlpath);
    c->dlpath = NULL;
    if (c->image_fd >= 0)
        close(c->image_fd);
    c->image_fd = -1;
    return -1;
}

static void candidate_close(struct candidate *c)
{
    kh_ui_napp_files_free(c->ui);
    if (c->dl)
        dlclose(c->dl);
    if (c->image_fd >= 0)
        close(c->image_fd);
    free(c->file);
    free(c->dlpath);
    memset(c, 0, sizeof *c);
    c->image_fd = -1;
}

/* Once a NApp's code is about to run (its init), its file stays mapped for
 * good, unloaded or replaced (RTLD_NODELETE, set on the loaded object by
 * name: glibc finds it even though the private copy is unlinked).  So what
 * its code left behind -- a json-c object keyed by one of its string
 * literals (kytos_json_add_lit), a content still queued somewhere -- never
 * points into unmapped memory.  The cost: the pages of each replaced
 * version.  Files refused before init are closed as before. */
static void pin_mapping(const struct candidate *c)
{
    void *pin = c->dlpath ? dlopen(c->dlpath, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE)
                          : NULL;
    if (pin)
        dlclose(pin);   /* the flag stays on the object */
    else
        kh_log(LOGGER, KH_WARNING, "%s: cannot keep its code mapped after an unload: %s", c->id,
               dlerror() ? "dlopen(RTLD_NOLOAD) failed" : "?");
}

/* ---- registry helpers (reg_mu held by callers where noted) ---- */

static kytos_napp *find_enabled_locked(kh_host *h, const char *id)
{
    kytos_napp *n;
    for (n = h->napps; n; n = n->next)
        if (strcmp(n->id, id) == 0)
            return n;
    return NULL;
}

kytos_napp *kh_napps_get(kh_host *h, const char *id)
{
    kytos_napp *n;
    pthread_mutex_lock(&h->reg_mu);
    n = find_enabled_locked(h, id);
    if (n)
        kh_napp_ref(n);
    pthread_mutex_unlock(&h->reg_mu);
    return n;
}

static int deps_enabled(kh_host *h, const struct kytos_napp_desc *d, char *missing, size_t len)
{
    const char *const *dep;
    int ok = 1;
    pthread_mutex_lock(&h->reg_mu);
    for (dep = d->deps; dep && *dep && ok; dep++)
        if (!find_enabled_locked(h, *dep)) {
            snprintf(missing, len, "%.128s", *dep);
            ok = 0;
        }
    pthread_mutex_unlock(&h->reg_mu);
    return ok;
}

/* ---- init / unload ---- */

static void unload_napp(kh_host *h, kytos_napp *n, const char *state, const char *why);

/* Run init on a candidate; on success the NApp is live (replacing `old`).
 * The candidate's dl handle moves into the NApp. */
static int init_candidate(kh_host *h, struct candidate *c, kytos_napp *old)
{
    kytos_napp *n = calloc(1, sizeof *n);
    char err[512] = "";
    char *errmsg = NULL;
    int64_t t0 = kh_mono_ns();
    double load_ms;
    int rc;

    if (!n) {
        record_refusal(h, c->file, c->id, NULL, "refused", "out of memory");
        return KYTOS_ENOMEM;
    }
    n->host = h;
    n->desc = c->desc;
    n->ui = c->ui;
    c->ui = NULL;
    n->dl = c->dl;
    c->dl = NULL;
    n->file = c->file;
    c->file = NULL;
    snprintf(n->id, sizeof n->id, "%s", c->id);
    snprintf(n->logger, sizeof n->logger, "kytos.napps.%s", c->id);
    snprintf(n->version, sizeof n->version, "%s", n->desc->version ? n->desc->version : "");
    atomic_init(&n->refs, 1);
    atomic_init(&n->state, KH_NAPP_LOADING);
    n->settings = kh_config_napp_settings(h->config, n->id);
    n->generation = ++h->generation;
    n->loaded_at = time(NULL);

    if (kh_validate_compile(n, h->web.max_body, err, sizeof err) != 0) {
        record_refusal(h, n->file, n->id, n->version, "refused", "OpenAPI spec: %s", err);
        kh_log(LOGGER, KH_ERROR, "refusing %s (%s): OpenAPI spec: %s", n->id, n->file, err);
        napp_destroy(n);
        return KYTOS_EINVAL;
    }
    pin_mapping(c);
    n->in_init = 1;
    rc = n->desc->init(n, kh_host_api(), &errmsg);
    n->in_init = 0;
    if (rc == KYTOS_OK && kh_validate_bind(n, err, sizeof err) != 0)
        rc = KYTOS_EINVAL;
    if (rc == KYTOS_OK && kh_router_swap(h->router, n->routes, old, err, sizeof err) != 0)
        rc = KYTOS_EEXIST;
    if (rc != KYTOS_OK) {
        const char *why = errmsg ? errmsg : err[0] ? err : kh_strerror(rc);
        record_refusal(h, n->file, n->id, n->version, "refused", "init failed: %s", why);
        kh_log(LOGGER, KH_ERROR, "refusing %s (%s): init failed: %s", n->id, n->file, why);
        free(errmsg);
        /* undo what init registered: subscriptions and timers */
        atomic_store(&n->state, KH_NAPP_UNLOADING);
        if (h->bus)
            kh_bus_napp_forget(h->bus, n, h->shutdown_timeout_ms);
        kh_sb_napp_unload(h->sb, n, 0);   /* a connection handler it registered */
        /* stop is not called after a failed init: its release is (api.h) */
        kh_napp_release_data(n);
        kh_napp_unref(n);
        return rc;
    }
    free(errmsg);
    load_ms = (double)(c->open_ns + (kh_mono_ns() - t0)) / 1e6;

    /* live: put it in the registry where the old version was, or at the end */
    pthread_mutex_lock(&h->reg_mu);
    {
        kytos_napp **pp = &h->napps;
        while (*pp && *pp != old)
            pp = &(*pp)->next;
        if (*pp == old && old) {
            n->next = old->next;
            *pp = n;
            old->next = NULL;
        } else {
            n->next = NULL;
            *pp = n;
        }
    }
    atomic_store(&n->state, KH_NAPP_ENABLED);
    pthread_mutex_unlock(&h->reg_mu);
    record_set(h, n->file, n->id, n->version, "enabled", "%s", "");
    pthread_mutex_lock(&h->reg_mu);
    {
        /* this image is what a later enable falls back to if the file
         * turns out broken; the file itself loading clears its refusal */
        struct kh_record *rec = record_for(h, n->file);
        if (rec)
            rec->load_ms = load_ms;
        if (rec && c->image_fd >= 0) {
            if (rec->good_fd >= 0)
                close(rec->good_fd);
            rec->good_fd = c->image_fd;
            c->image_fd = -1;
        }
        if (rec && !c->from_image)
            rec->has_rejected = 0;
    }
    pthread_mutex_unlock(&h->reg_mu);
    kh_log(LOGGER, KH_INFO, "loaded %s %s from %s%s", n->id, n->version, n->file,
           c->from_image ? " (its last working version: the file itself was refused)" : "");
    if (old)
        unload_napp(h, old, NULL, "replaced");
    return KYTOS_OK;
}

/* Take n out of service; the registry's reference is dropped at the end. */
static void unload_napp(kh_host *h, kytos_napp *n, const char *state, const char *why)
{
    struct timespec dl;

    atomic_store(&n->state, KH_NAPP_UNLOADING);
    kh_router_remove_owner(h->router, n);
    pthread_mutex_lock(&h->reg_mu);
    {
        kytos_napp **pp = &h->napps;
        while (*pp && *pp != n)
            pp = &(*pp)->next;
        if (*pp == n)
            *pp = n->next;
        n->next = NULL;
    }
    pthread_mutex_unlock(&h->reg_mu);
    /* events first: queued event jobs hold references until they are
     * skipped; this also delivers kytos/core.shutdown.<u>/<n> to the NApp's
     * own handlers, exactly once */
    if (h->bus)
        kh_bus_napp_unload(h->bus, n, h->shutdown_timeout_ms);
    /* then the switch connections it handles: they close, its on_close
     * runs (the switches reconnect to whoever handles them next) */
    kh_sb_napp_unload(h->sb, n, 0);
    /* then requests in flight (they hold references) */
    atomic_fetch_add(&h->unloading, 1);   /* before reading refs: see kh_napp_unref */
    pthread_mutex_lock(&h->reg_mu);
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += h->shutdown_timeout_ms / 1000;
    while (atomic_load(&n->refs) > 1) {
        if (pthread_cond_timedwait(&h->refs_cv, &h->reg_mu, &dl) == ETIMEDOUT) {
            kh_log(LOGGER, KH_WARNING, "%s: %d requests or events still running after %d ms",
                   n->id, atomic_load(&n->refs) - 1, h->shutdown_timeout_ms);
            break;
        }
    }
    pthread_mutex_unlock(&h->reg_mu);
    atomic_fetch_sub(&h->unloading, 1);
    if (n->desc->stop)
        n->desc->stop(n);
    kh_napp_release_data(n);
    if (state)
        record_set(h, n->file, n->id, n->version, state, "%s", why ? why : "");
    kh_log(LOGGER, KH_INFO, "unloaded %s (%s)", n->id, why ? why : "");
    atomic_store(&n->state, KH_NAPP_UNLOADED);
    kh_napp_unref(n);
}

static void start_napp(kh_host *h, kytos_napp *n)
{
    if (n->started)
        return;
    n->started = 1;
    if (n->desc->start) {
        int rc = n->desc->start(n);
        if (rc != KYTOS_OK)
            kh_log(LOGGER, KH_ERROR, "%s: start failed: %s", n->id, kh_strerror(rc));
    }
    if (h->bus)
        kh_bus_napp_loaded(h->bus, n);
}

void kh_napps_start_all(kh_host *h)
{
    kytos_napp *list[MAX_NAPPS];
    size_t n = 0, i;
    kytos_napp *it;

    pthread_mutex_lock(&h->reg_mu);
    for (it = h->napps; it && n < MAX_NAPPS; it = it->next)
        if (!it->started) {
            kh_napp_ref(it);
            list[n++] = it;
        }
    pthread_mutex_unlock(&h->reg_mu);
    for (i = 0; i < n; i++) {
        start_napp(h, list[i]);
        kh_napp_unref(list[i]);
    }
}

/* ---- directory scan at start-up ---- */

static int has_so_suffix(const char *name)
{
    size_t l = strlen(name);
    return l > 3 && strcmp(name + l - 3, ".so") == 0 && name[0] != '.';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t list_dir(const char *dir, char **files, size_t max)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    if (!d) {
        kh_log(LOGGER, KH_WARNING, "napps directory %s: %s", dir, strerror(errno));
        return 0;
    }
    while ((e = readdir(d)) && n < max) {
        char path[PATH_MAX + 256];
        struct stat st;
        if (!has_so_suffix(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        files[n] = strdup(path);
        if (files[n])
            n++;
    }
    closedir(d);
    qsort(files, n, sizeof *files, cmp_str);
    return n;
}

static struct candidate *cand_by_id(struct candidate *c, size_t n, const char *id)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (c[i].dl && strcmp(c[i].id, id) == 0)
            return &c[i];
    return NULL;
}

int kh_napps_load_all(kh_host *h)
{
    char *files[MAX_NAPPS];
    struct candidate *cands;
    size_t nfiles, i, progress;
    char err[512];

    pthread_mutex_lock(&h->load_mu);
    disabled_load(h);
    nfiles = list_dir(h->napps_dir, files, MAX_NAPPS);
    cands = calloc(nfiles ? nfiles : 1, sizeof *cands);
    if (!cands) {
        for (i = 0; i < nfiles; i++)
            free(files[i]);
        pthread_mutex_unlock(&h->load_mu);
        return KYTOS_ENOMEM;
    }
    for (i = 0; i < nfiles; i++) {
        if (open_candidate(h, files[i], files[i], &cands[i], err, sizeof err) != 0) {
            record_set(h, files[i], cands[i].id[0] ? cands[i].id : NULL,
                       cands[i].id[0] ? cands[i].version : NULL, "refused", "%s", err);
            kh_log(LOGGER, KH_ERROR, "refusing %s: %s", files[i], err);
            continue;
        }
        if (cand_by_id(cands, i, cands[i].id)) {
            record_set(h, files[i], cands[i].id, cands[i].desc->version, "refused",
                       "duplicate NApp %s (already in %s)", cands[i].id,
                       cand_by_id(cands, i, cands[i].id)->file);
            record_mark_duplicate(h, files[i]);
            kh_log(LOGGER, KH_ERROR, "refusing %s: duplicate NApp %s", files[i], cands[i].id);
            candidate_close(&cands[i]);
            continue;
        }
        if (is_disabled(h, cands[i].id)) {
            record_set(h, files[i], cands[i].id, cands[i].desc->version, "disabled", "disabled");
            candidate_close(&cands[i]);
        }
    }
    /* dependency order: repeatedly load every candidate whose deps are live */
    do {
        progress = 0;
        for (i = 0; i < nfiles; i++) {
            struct candidate *c = &cands[i];
            char missing[160];
            if (!c->dl || c->done)
                continue;
            if (!deps_enabled(h, c->desc, missing, sizeof missing)) {
                struct candidate *dep = cand_by_id(cands, nfiles, missing);
                if (dep && !dep->done)
                    continue;   /* may load later in this pass */
                record_set(h, c->file, c->id, c->desc->version, "waiting",
                           "missing dependency %s", missing);
                kh_log(LOGGER, KH_ERROR, "refusing %s: missing dependency %s", c->id, missing);
                c->done = 1;
                candidate_close(c);
                progress++;
                continue;
            }
            c->done = 1;
            init_candidate(h, c, NULL);
            candidate_close(c);
            progress++;
        }
    } while (progress);
    for (i = 0; i < nfiles; i++) {
        if (cands[i].dl && !cands[i].done) {
            record_set(h, cands[i].file, cands[i].id, cands[i].desc->version, "refused",
                       "dependency cycle through %s", cands[i].id);
            kh_log(LOGGER, KH_ERROR, "refusing %s: dependency cycle", cands[i].id);
        }
        candidate_close(&cands[i]);
        free(files[i]);
    }
    free(cands);
    pthread_mutex_unlock(&h->load_mu);
    return 0;
}

/* Files whose NApp waited for a dependency get another chance. */
static void retry_waiting(kh_host *h);

/* Load (or replace) the NApp of path, read from the file itself, or from
 * image_fd (>= 0: a copy of what last loaded from it). */
static int load_locked(kh_host *h, const char *path, int image_fd)
{
    struct candidate c;
    char err[512], missing[160], src[64];
    kytos_napp *old;
    int rc;

    snprintf(src, sizeof src, "/proc/self/fd/%d", image_fd);
    if (open_candidate(h, path, image_fd >= 0 ? src : path, &c, err, sizeof err) != 0) {
        record_refusal(h, path, c.id[0] ? c.id : NULL, c.id[0] ? c.version : NULL, "refused", "%s",
                       err);
        kh_log(LOGGER, KH_ERROR, "refusing %s: %s", path, err);
        return KYTOS_EINVAL;
    }
    if (is_disabled(h, c.id)) {
        record_set(h, path, c.id, c.desc->version, "disabled", "disabled");
        candidate_close(&c);
        return KYTOS_ESTATE;
    }
    if (!deps_enabled(h, c.desc, missing, sizeof missing)) {
        record_refusal(h, path, c.id, c.desc->version, "waiting", "missing dependency %s", missing);
        kh_log(LOGGER, KH_ERROR, "not loading %s: missing dependency %s", c.id, missing);
        candidate_close(&c);
        return KYTOS_ENOTFOUND;
    }
    pthread_mutex_lock(&h->reg_mu);
    old = find_enabled_locked(h, c.id);
    if (old && strcmp(old->file, path) != 0) {
        char other[PATH_MAX];
        snprintf(other, sizeof other, "%s", old->file);
        pthread_mutex_unlock(&h->reg_mu);
        record_set(h, path, c.id, c.desc->version, "refused", "duplicate NApp %s (already loaded from %s)",
                   c.id, other);
        record_mark_duplicate(h, path);
        kh_log(LOGGER, KH_ERROR, "refusing %s: duplicate NApp %s (already loaded from %s)", path,
               c.id, other);
        candidate_close(&c);
        return KYTOS_EEXIST;
    }
    pthread_mutex_unlock(&h->reg_mu);
    rc = init_candidate(h, &c, old);
    candidate_close(&c);
    if (rc == KYTOS_OK) {
        if (atomic_load(&h->running))
            kh_napps_start_all(h);
        retry_waiting(h);
    }
    return rc;
}

static int load_file_locked(kh_host *h, const char *path)
{
    return load_locked(h, path, -1);
}

static void retry_waiting(kh_host *h)
{
    char *files[MAX_NAPPS];
    size_t n = 0, i;
    struct kh_record *rec;

    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec && n < MAX_NAPPS; rec = rec->next)
        if ((strcmp(rec->state, "waiting") == 0 ||
             (rec->has_rejected && strcmp(rec->rejected_state, "waiting") == 0)) &&
            (files[n] = strdup(rec->file)))
            n++;
    pthread_mutex_unlock(&h->reg_mu);
    for (i = 0; i < n; i++) {
        if (access(files[i], R_OK) == 0)
            load_file_locked(h, files[i]);
        free(files[i]);
    }
}

int kh_napps_load_file(kh_host *h, const char *path)
{
    int rc;
    pthread_mutex_lock(&h->load_mu);
    rc = load_file_locked(h, path);
    pthread_mutex_unlock(&h->load_mu);
    return rc;
}

/* Files refused because another file held their NApp: when that one
 * goes, the first of them in name order takes its place (the others are
 * refused again as its duplicates). */
static void retry_duplicates(kh_host *h)
{
    char *files[MAX_NAPPS];
    size_t n = 0, i;
    struct kh_record *rec;

    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec && n < MAX_NAPPS; rec = rec->next)
        if (rec->duplicate && !find_enabled_locked(h, rec->id) && (files[n] = strdup(rec->file)))
            n++;
    pthread_mutex_unlock(&h->reg_mu);
    qsort(files, n, sizeof *files, cmp_str);
    for (i = 0; i < n; i++) {
        if (access(files[i], R_OK) == 0)
            load_file_locked(h, files[i]);
        free(files[i]);
    }
}

void kh_napps_file_removed(kh_host *h, const char *path)
{
    kytos_napp *n;

    pthread_mutex_lock(&h->load_mu);
    pthread_mutex_lock(&h->reg_mu);
    for (n = h->napps; n; n = n->next)
        if (strcmp(n->file, path) == 0)
            break;
    pthread_mutex_unlock(&h->reg_mu);
    if (n)
        unload_napp(h, n, "unloaded", "file removed");
    else
        record_set(h, path, NULL, NULL, "unloaded", "file removed");
    record_forget_image(h, path);
    retry_duplicates(h);
    pthread_mutex_unlock(&h->load_mu);
}

void kh_napps_unload_all(kh_host *h)
{
    pthread_mutex_lock(&h->load_mu);
    for (;;) {
        kytos_napp *last = NULL, *it;
        pthread_mutex_lock(&h->reg_mu);
        for (it = h->napps; it; it = it->next)
            last = it;
        pthread_mutex_unlock(&h->reg_mu);
        if (!last)
            break;
        unload_napp(h, last, "unloaded", "shutdown");
    }
    pthread_mutex_unlock(&h->load_mu);
}

/* ---- management by id ---- */

/* The file of a NApp: one refused as a duplicate only when no other
 * file holds it. */
static char *file_of(kh_host *h, const char *id)
{
    struct kh_record *rec, *dup = NULL;
    char *f = NULL;
    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec; rec = rec->next)
        if (strcmp(rec->id, id) == 0 && access(rec->file, R_OK) == 0) {
            if (rec->duplicate) {
                dup = dup ? dup : rec;
                continue;
            }
            f = strdup(rec->file);
            break;
        }
    if (!rec && dup)
        f = strdup(dup->file);
    pthread_mutex_unlock(&h->reg_mu);
    return f;
}

/* Enable from the file; a file whose copy on disk was refused, while the
 * record keeps the image of the version that worked, enables that version
 * (the file unchanged since its refusal is not read again; a changed one
 * is tried first).  A working NApp is never given up for a broken file. */
static int enable_locked(kh_host *h, const char *id, const char *file)
{
    struct kh_file_stamp now;
    struct kh_record *rec;
    int image = -1, known_bad = 0, rc;
    kytos_napp *n;
    char why[600] = "";

    file_stamp(file, &now);
    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec; rec = rec->next)
        if (strcmp(rec->file, file) == 0)
            break;
    if (rec && rec->good_fd >= 0 && (image = dup(rec->good_fd)) >= 0 && rec->has_rejected) {
        known_bad = same_stamp(&now, &rec->rejected_stamp);
        snprintf(why, sizeof why, "%s", rec->rejected_reason);
    }
    pthread_mutex_unlock(&h->reg_mu);
    if (known_bad) {
        kh_log(LOGGER, KH_WARNING, "enabling %s: %s was refused (%s) and has not changed since; "
               "enabling its last working version", id, file, why);
        rc = load_locked(h, file, image);
    } else {
        rc = load_file_locked(h, file);
        if (rc != KYTOS_OK && image >= 0 && !(n = kh_napps_get(h, id))) {
            kh_log(LOGGER, KH_WARNING, "enabling %s: %s was refused; enabling its last working "
                   "version", id, file);
            rc = load_locked(h, file, image);
        } else if (rc != KYTOS_OK && image >= 0) {
            kh_napp_unref(n);
        }
    }
    if (image >= 0)
        close(image);
    return rc;
}

int kh_napps_enable(kh_host *h, const char *id)
{
    char *file = file_of(h, id);
    int rc = KYTOS_OK;
    kytos_napp *n;

    if (!file)
        return KYTOS_ENOTFOUND;
    pthread_mutex_lock(&h->load_mu);
    disabled_set(h, id, 0);
    n = kh_napps_get(h, id);
    if (n)
        kh_napp_unref(n);   /* already enabled */
    else
        rc = enable_locked(h, id, file);
    pthread_mutex_unlock(&h->load_mu);
    free(file);
    return rc;
}

int kh_napps_disable(kh_host *h, const char *id)
{
    char *file = file_of(h, id);
    kytos_napp *n;

    if (!file)
        return KYTOS_ENOTFOUND;
    pthread_mutex_lock(&h->load_mu);
    disabled_set(h, id, 1);
    pthread_mutex_lock(&h->reg_mu);
    n = find_enabled_locked(h, id);
    pthread_mutex_unlock(&h->reg_mu);
    if (n)
        unload_napp(h, n, "disabled", "disabled");
    else
        record_set(h, file, id, NULL, "disabled", "disabled");
    pthread_mutex_unlock(&h->load_mu);
    free(file);
    return KYTOS_OK;
}

int kh_napps_reload(kh_host *h, const char *id)
{
    kytos_napp *n = kh_napps_get(h, id);
    char *file;
    int rc;

    if (!n)
        return KYTOS_ENOTFOUND;
    file = strdup(n->file);
    kh_napp_unref(n);
    if (!file)
        return KYTOS_ENOMEM;
    rc = kh_napps_load_file(h, file);
    free(file);
    return rc;
}

int kh_napps_reload_all(kh_host *h)
{
    char *ids[MAX_NAPPS];
    size_t n = 0, i;
    kytos_napp *it;
    int rc = KYTOS_OK;

    pthread_mutex_lock(&h->reg_mu);
    for (it = h->napps; it && n < MAX_NAPPS; it = it->next)
        if ((ids[n] = strdup(it->id)))
            n++;
    pthread_mutex_unlock(&h->reg_mu);
    for (i = 0; i < n; i++) {
        int r = kh_napps_reload(h, ids[i]);
        if (r != KYTOS_OK)
            rc = r;
        free(ids[i]);
    }
    return rc;
}

/* ---- JSON views ---- */

static struct json_object *pair(const char *id)
{
    struct json_object *p = json_object_new_array();
    const char *slash = strchr(id, '/');
    if (!slash)
        return p;
    json_object_array_add(p, json_object_new_string_len(id, (int)(slash - id)));
    json_object_array_add(p, json_object_new_string(slash + 1));
    return p;
}

struct json_object *kh_napps_enabled_json(kh_host *h)
{
    struct json_object *arr = json_object_new_array();
    kytos_napp *n;
    pthread_mutex_lock(&h->reg_mu);
    for (n = h->napps; n; n = n->next)
        json_object_array_add(arr, pair(n->id));
    pthread_mutex_unlock(&h->reg_mu);
    return arr;
}

struct json_object *kh_napps_installed_json(kh_host *h)
{
    struct json_object *arr = json_object_new_array(), *seen = json_object_new_object();
    struct kh_record *rec;
    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec; rec = rec->next)
        if (rec->id[0] && access(rec->file, R_OK) == 0 &&
            !json_object_object_get_ex(seen, rec->id, NULL)) {
            json_object_object_add(seen, rec->id, NULL);   /* once per NApp */
            json_object_array_add(arr, pair(rec->id));
        }
    pthread_mutex_unlock(&h->reg_mu);
    json_object_put(seen);
    return arr;
}

/* The rank of a record's state when several files hold one NApp: what
 * serves first, then what could. */
static int state_rank(const char *state)
{
    static const char *const order[] = {"enabled", "crashed", "disabled", "waiting", "refused",
                                        "unloaded", NULL};
    int i;
    for (i = 0; order[i]; i++)
        if (strcmp(order[i], state) == 0)
            return i;
    return i;
}

/* One file's entry (reg_mu held). */
static struct json_object *record_json(const struct kh_record *rec, int with_id)
{
    struct json_object *e = json_object_new_object();

    json_object_object_add(e, "state", json_object_new_string(rec->state));
    json_object_object_add(e, "file", json_object_new_string(rec->file));
    if (with_id && rec->id[0])
        json_object_object_add(e, "id", json_object_new_string(rec->id));
    if (rec->version[0])
        json_object_object_add(e, "version", json_object_new_string(rec->version));
    if (rec->reason[0])
        json_object_object_add(e, "reason", json_object_new_string(rec->reason));
    if (strcmp(rec->state, "enabled") == 0 && rec->load_ms >= 0)
        /* ms to vet, dlopen, compile the spec and init what serves now */
        json_object_object_add(e, "load_ms",
                               json_object_new_double((double)(int64_t)(rec->load_ms * 1000) / 1000));
    if (rec->has_rejected) {
        /* a newer copy of the file, refused: what serves is the above */
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "state", json_object_new_string(rec->rejected_state));
        if (rec->rejected_version[0])
            json_object_object_add(r, "version", json_object_new_string(rec->rejected_version));
        json_object_object_add(r, "reason", json_object_new_string(rec->rejected_reason));
        json_object_object_add(e, "rejected", r);
    }
    return e;
}

/* {"napps": by NApp id, "napp_files": by file path}.  Each NApp is shown
 * by the file that serves it (or, when none does, the one closest to
 * serving), with the other files holding the same id under "other_files";
 * files that hold no NApp at all (not a NApp, unreadable descriptor) are
 * only in "napp_files", which lists every file. */
struct json_object *kh_napps_status(kh_host *h)
{
    struct json_object *o = json_object_new_object(), *files = json_object_new_object();
    struct kh_record *rec, *it;

    pthread_mutex_lock(&h->reg_mu);
    for (rec = h->records; rec; rec = rec->next) {
        struct kh_record *best = rec;
        struct json_object *e, *others = NULL;

        json_object_object_add(files, rec->file, record_json(rec, 1));
        if (!rec->id[0] || json_object_object_get_ex(o, rec->id, NULL))
            continue;
        for (it = h->records; it; it = it->next)
            if (strcmp(it->id, rec->id) == 0 && state_rank(it->state) < state_rank(best->state))
                best = it;
        e = record_json(best, 0);
        for (it = h->records; it; it = it->next) {
            struct json_object *x;
            if (it == best || strcmp(it->id, rec->id) != 0)
                continue;
            if (!others)
                others = json_object_new_array();
            x = json_object_new_object();
            json_object_object_add(x, "file", json_object_new_string(it->file));
            json_object_object_add(x, "state", json_object_new_string(it->state));
            if (it->reason[0])
                json_object_object_add(x, "reason", json_object_new_string(it->reason));
            json_object_array_add(others, x);
        }
        if (others)
            json_object_object_add(e, "other_files", others);
        json_object_object_add(o, rec->id, e);
    }
    pthread_mutex_unlock(&h->reg_mu);
    {
        struct json_object *out = json_object_new_object();
        json_object_object_add(out, "napps", o);
        json_object_object_add(out, "napp_files", files);
        return out;
    }
}

struct json_object *kh_napps_metadata(kh_host *h, const char *id, const char *key)
{
    kytos_napp *n = kh_napps_get(h, id);
    struct json_object *v = NULL;
    if (!n) {
        struct kh_record *rec;
        int found = 0;
        pthread_mutex_lock(&h->reg_mu);
        for (rec = h->records; rec; rec = rec->next)
            if (strcmp(rec->id, id) == 0) {
                found = 1;
                if (!strcmp(key, "version"))
                    v = json_object_new_string(rec->version);
            }
        pthread_mutex_unlock(&h->reg_mu);
        if (!found)
            return NULL;
        return v ? v : json_object_new_string("");
    }
    if (!strcmp(key, "version")) {
        v = json_object_new_string(n->version);
    } else if (!strcmp(key, "description")) {
        v = json_object_new_string("");
    } else if (!strcmp(key, "napp_dependencies")) {
        const char *const *d;
        v = json_object_new_array();
        for (d = n->desc->deps; d && *d; d++)
            json_object_array_add(v, json_object_new_string(*d));
    }
    kh_napp_unref(n);
    return v;
}

/* ---- embedded ui files, for the ui module ---- */

int kh_napps_ui_file(void *hp, const char *user, const char *napp, const char *path,
                     struct kh_ui_napp_file *out)
{
    kh_host *h = hp;
    char id[260];
    kytos_napp *n;
    const struct kh_ui_napp_file *f = NULL;

    if ((size_t)snprintf(id, sizeof id, "%s/%s", user, napp) >= sizeof id ||
        !(n = kh_napps_get(h, id)))
        return 0;
    /* the bytes stay mapped after the NApp goes (pin_mapping): a copy of
     * the entry is enough */
    if (kh_napp_is_enabled(n) && (f = kh_ui_napp_files_find(n->ui, path)) != NULL)
        *out = *f;
    kh_napp_unref(n);
    return f != NULL;
}

void kh_napps_ui_each(void *hp, void (*fn)(void *, const char *, const char *, const char *),
                      void *arg)
{
    kh_host *h = hp;
    kytos_napp *n;
    size_t i;

    pthread_mutex_lock(&h->reg_mu);
    for (n = h->napps; n; n = n->next)
        /* enabled ones only, as kh_napps_ui_file serves: a NApp still in
         * its init or being unloaded would list files that answer 404 */
        for (i = 0; kh_napp_is_enabled(n) && i < kh_ui_napp_files_count(n->ui); i++)
            fn(arg, n->desc->username, n->desc->name, kh_ui_napp_files_at(n->ui, i)->path);
    pthread_mutex_unlock(&h->reg_mu);
}

/* ---- the ABI's route_add ---- */

int kh_napp_route_add(kytos_napp *n, const struct kytos_route *r)
{
    struct kh_route *rt, **pp;
    char full[1200], err[1500];
    const char *rel;
    static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", NULL};
    size_t i;

    if (!n || !r || r->struct_size < offsetof(struct kytos_route, flags) || !r->handler || !r->method ||
        !r->path)
        return KYTOS_EINVAL;
    if (!n->in_init) {
        kh_log(n->logger, KH_ERROR, "route_add outside init: %s %s", r->method, r->path);
        return KYTOS_ESTATE;
    }
    for (i = 0; methods[i] && strcmp(methods[i], r->method) != 0; i++)
        ;
    if (!methods[i]) {
        kh_log(n->logger, KH_ERROR, "route_add: unsupported method '%.16s'", r->method);
        return KYTOS_EINVAL;
    }
    rel = r->path[0] == '/' ? r->path + 1 : r->path;   /* Kytos strips one leading '/' */
    if (strlen(rel) > 1000)
        return KYTOS_EINVAL;
    snprintf(full, sizeof full, "/api/%s/%s/%s", n->desc->username, n->desc->name, rel);
    if (kh_route_template_check(full, err, sizeof err) != 0) {
        kh_log(n->logger, KH_ERROR, "route_add: %s", err);
        return KYTOS_EINVAL;
    }
    rt = calloc(1, sizeof *rt);
    if (!rt)
        return KYTOS_ENOMEM;
    rt->method = strdup(r->method);
    rt->path = strdup(full);
    rt->rel_path = strdup(rel);
    rt->handler = r->handler;
    rt->ud = r->ud;
    rt->napp = n;
#define HAS(f) (r->struct_size >= offsetof(struct kytos_route, f) + sizeof r->f)
    rt->flags = HAS(flags) ? r->flags : 0;
    rt->pool = HAS(pool) && r->pool ? strdup(r->pool) : NULL;
    rt->max_body = HAS(max_body) ? r->max_body : 0;
    rt->timeout_ms = HAS(timeout_ms) ? r->timeout_ms : 0;
    rt->operation = HAS(operation) && r->operation ? strdup(r->operation) : NULL;
#undef HAS
    if (!rt->method || !rt->path || !rt->rel_path) {
        route_free(rt);
        return KYTOS_ENOMEM;
    }
    /* a route that asks for validation the spec cannot give is refused
     * now, where the NApp sees it, not after its init */
    if (kh_validate_route(n, rt, err, sizeof err) != 0) {
        kh_log(n->logger, KH_ERROR, "route_add: %s", err);
        route_free(rt);
        return KYTOS_EINVAL;
    }
    /* keep registration order */
    for (pp = &n->routes; *pp; pp = &(*pp)->next) {
        if (!strcmp((*pp)->method, rt->method) && !strcmp((*pp)->path, rt->path)) {
            kh_log(n->logger, KH_ERROR, "route_add: %s %s registered twice", rt->method, rt->path);
            route_free(rt);
            return KYTOS_EEXIST;
        }
    }
    *pp = rt;
    return KYTOS_OK;
}
