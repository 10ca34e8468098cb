/* host/ui/napp_files.h - a NApp's ui/ files embedded in its .so (the
 * kytos_napp_ui table it exports, kytos/api.h): vetted once when the NApp
 * loads, then found by path for /ui/{user}/{napp}/{path} (docs/ui.md). */
#ifndef KH_UI_NAPP_FILES_H
#define KH_UI_NAPP_FILES_H

#include "util/base.h"
#include <stddef.h>

struct kh_ui_napp_files;

/* One embedded file.  path and data point into the NApp's code, which
 * stays mapped for good once its init ran (loader.c, pin_mapping). */
struct kh_ui_napp_file {
    const char *path;
    const char *data;
    size_t len;
    char etag[24];     /* "\"e<16 hex digits>\"", a hash of the bytes */
};

/* Vet table t: magic, struct_size, at most KYTOS_NAPP_UI_MAX_FILES files,
 * each path a plain relative path (kh_ui_seg_ok parts) of at most
 * KYTOS_NAPP_UI_MAX_NAME bytes, no two alike, data present, at most
 * KYTOS_NAPP_UI_MAX_TOTAL bytes in all.  The vetted index, or NULL with
 * what was wrong in err (empty err: out of memory is said there too). */
struct kh_ui_napp_files *kh_ui_napp_files_new(const struct kytos_napp_ui *t, char *err,
                                              size_t errlen);
void kh_ui_napp_files_free(struct kh_ui_napp_files *f);
/* The file at path, or NULL. */
const struct kh_ui_napp_file *kh_ui_napp_files_find(const struct kh_ui_napp_files *f,
                                                    const char *path);
size_t kh_ui_napp_files_count(const struct kh_ui_napp_files *f);
const struct kh_ui_napp_file *kh_ui_napp_files_at(const struct kh_ui_napp_files *f, size_t i);

#endif
