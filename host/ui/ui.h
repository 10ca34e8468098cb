/* host/ui/ui.h - the web UI: Kytos' UI routes (/, /index.html,
 * /ui/{section}/, /ui/{u}/{n}/{path}, the static catch-all) and the
 * dashboard built into kytosd (/dashboard/).  The front door asks it only
 * for a GET or HEAD that no route matched and that is not under /api/, so
 * routes always win (Kytos' B1), a POST-only route still answers 405 (B7),
 * and the REST path never pays for it (docs/ui.md). */
#ifndef KH_UI_H
#define KH_UI_H

#include "http/request.h"
#include "ui/napp_files.h"

struct kh_ui;

struct kh_ui_conf {
    const char *dir;        /* ui_dir: the UI's files, "" for none */
    const char *napps_dir;  /* NApps' own files: <napps>/<u>/<n>/ui/ */
    size_t max_file;        /* ui_max_file: larger files are not served */
    int dashboard;          /* ui_dashboard: serve the built-in one */
    /* Loaded NApps' embedded ui files (napps/loader.c), both may be NULL:
     * napp_file copies the file user/napp embeds at path into *out (1), or
     * answers 0; napp_each calls fn for each embedded file of each loaded
     * NApp.  ctx is given back to both. */
    int (*napp_file)(void *ctx, const char *user, const char *napp, const char *path,
                     struct kh_ui_napp_file *out);
    void (*napp_each)(void *ctx,
                      void (*fn)(void *arg, const char *user, const char *napp, const char *path),
                      void *arg);
    void *napp_ctx;
};

/* NULL with err (ui_dir is not a readable directory). */
struct kh_ui *kh_ui_new(const struct kh_ui_conf *conf, char *err, size_t errlen);
void kh_ui_free(struct kh_ui *ui);
/* A request no route took (r->segs decoded): answer it from the UI.  1
 * when answered (a file, 304, 404, 405), 0 when the path is not the UI's
 * (under /api/): the caller answers 404.  Runs on an I/O thread: reads one
 * file of at most max_file bytes. */
int kh_ui_serve(void *ui, kytos_req *r);

/* One file built into kytosd (dashboard_files.c, generated). */
struct kh_ui_embedded {
    const char *name;
    const char *data;
    size_t len;
};
extern const struct kh_ui_embedded kh_ui_dashboard[];

#endif
