/* host/ui/napp_files.c - vetting and indexing a NApp's embedded ui/ files
 * (napp_files.h).  The table comes from a NApp's .so: hostile until
 * checked, so every count, length and name is bounded before it is used. */
#include "ui/napp_files.h"
#include "ui/ui_path.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kh_ui_napp_files {
    size_t n;
    struct kh_ui_napp_file *files;   /* sorted by path */
};

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct kh_ui_napp_file *)a)->path,
                  ((const struct kh_ui_napp_file *)b)->path);
}

/* 1 when p (at most KYTOS_NAPP_UI_MAX_NAME bytes, NUL-terminated) is
 * parts that kh_ui_seg_ok takes, joined by single '/'. */
static int path_ok(const char *p, char *why, size_t whylen)
{
    char seg[KH_UI_NAME_MAX + 2];
    size_t len = strnlen(p, KYTOS_NAPP_UI_MAX_NAME + 1), i = 0;

    if (len == 0 || len > KYTOS_NAPP_UI_MAX_NAME) {
        snprintf(why, whylen, "%s", len ? "longer than 1024 bytes" : "empty");
        return 0;
    }
    while (i <= len) {
        size_t l = strcspn(p + i, "/");
        if (l > KH_UI_NAME_MAX) {
            snprintf(why, whylen, "a part longer than %d bytes", KH_UI_NAME_MAX);
            return 0;
        }
        memcpy(seg, p + i, l);
        seg[l] = '\0';
        if (!kh_ui_seg_ok(seg)) {
            snprintf(why, whylen, "part '%.64s' is empty, '.', '..', a dot file or has a '\\' "
                     "or control byte", seg);
            return 0;
        }
        i += l + 1;
    }
    return 1;
}

struct kh_ui_napp_files *kh_ui_napp_files_new(const struct kytos_napp_ui *t, char *err,
                                              size_t errlen)
{
    struct kh_ui_napp_files *f;
    uint64_t total = 0;
    size_t i;

    if (t->magic != KYTOS_NAPP_UI_MAGIC) {
        snprintf(err, errlen, "magic 0x%08x, expected 0x%08x", t->magic, KYTOS_NAPP_UI_MAGIC);
        return NULL;
    }
    if (t->struct_size < sizeof *t) {
        snprintf(err, errlen, "table of %u bytes, expected at least %zu", t->struct_size, sizeof *t);
        return NULL;
    }
    if (t->count > KYTOS_NAPP_UI_MAX_FILES) {
        snprintf(err, errlen, "%u files, at most %u", t->count, KYTOS_NAPP_UI_MAX_FILES);
        return NULL;
    }
    if (t->count && !t->files) {
        snprintf(err, errlen, "%u files but no file list", t->count);
        return NULL;
    }
    for (i = 0; i < t->count; i++) {
        const struct kytos_napp_ui_file *e = &t->files[i];
        char why[160];
        if (!e->path) {
            snprintf(err, errlen, "file %zu has no path", i);
            return NULL;
        }
        if (!path_ok(e->path, why, sizeof why)) {
            snprintf(err, errlen, "file %zu ('%.64s'): bad path: %s", i, e->path, why);
            return NULL;
        }
        if (!e->data && e->len) {
            snprintf(err, errlen, "file %zu ('%.64s'): %zu bytes but no data", i, e->path, e->len);
            return NULL;
        }
        if (e->len > KYTOS_NAPP_UI_MAX_TOTAL || (total += e->len) > KYTOS_NAPP_UI_MAX_TOTAL) {
            snprintf(err, errlen, "file %zu ('%.64s'): over %u bytes of ui files in all", i,
                     e->path, KYTOS_NAPP_UI_MAX_TOTAL);
            return NULL;
        }
    }
    if (!(f = calloc(1, sizeof *f)) ||
        !(f->files = calloc(t->count ? t->count : 1, sizeof *f->files))) {
        free(f);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (i = 0; i < t->count; i++) {
        struct kh_ui_napp_file *d = &f->files[i];
        uint64_t h = 1469598103934665603ull;   /* FNV-1a of the bytes: the tag */
        size_t k;
        d->path = t->files[i].path;
        d->data = t->files[i].data ? t->files[i].data : "";
        d->len = t->files[i].len;
        for (k = 0; k < d->len; k++)
            h = (h ^ (unsigned char)d->data[k]) * 1099511628211ull;
        snprintf(d->etag, sizeof d->etag, "\"e%016llx\"", (unsigned long long)h);
    }
    f->n = t->count;
    qsort(f->files, f->n, sizeof *f->files, by_path);
    for (i = 1; i < f->n; i++)
        if (strcmp(f->files[i - 1].path, f->files[i].path) == 0) {
            snprintf(err, errlen, "'%.64s' is there twice", f->files[i].path);
            kh_ui_napp_files_free(f);
            return NULL;
        }
    return f;
}

void kh_ui_napp_files_free(struct kh_ui_napp_files *f)
{
    if (!f)
        return;
    free(f->files);
    free(f);
}

const struct kh_ui_napp_file *kh_ui_napp_files_find(const struct kh_ui_napp_files *f,
                                                    const char *path)
{
    struct kh_ui_napp_file key;

    if (!f || !f->n)
        return NULL;
    key.path = path;
    return bsearch(&key, f->files, f->n, sizeof *f->files, by_path);
}

size_t kh_ui_napp_files_count(const struct kh_ui_napp_files *f) { return f ? f->n : 0; }

const struct kh_ui_napp_file *kh_ui_napp_files_at(const struct kh_ui_napp_files *f, size_t i)
{
    return f && i < f->n ? &f->files[i] : NULL;
}
