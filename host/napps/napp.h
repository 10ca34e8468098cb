/* host/napps/napp.h - loaded NApps and the loader's registry.
 *
 * Life of a NApp: the file is vetted without running it (ELF, exported
 * descriptor, magic and ABI read from the file), copied to a private file
 * and dlopen'd from there (so replacing or rewriting the original never
 * touches mapped code), its descriptor checked, its OpenAPI spec compiled,
 * then init() registers routes and subscriptions into pending lists.  Only
 * after init succeeds do its routes go live, atomically, replacing those of
 * an older version of the same NApp.  Unloading removes the routes, waits
 * for requests and events in flight, calls stop(), and drops the
 * registry's reference; the code is unmapped when the last reference goes. */
#ifndef KH_NAPP_H
#define KH_NAPP_H

#include "core/host.h"
#include "http/router.h"
#include "ui/napp_files.h"
#include <stdatomic.h>

enum kh_napp_state {
    KH_NAPP_LOADING = 0,
    KH_NAPP_ENABLED,
    KH_NAPP_UNLOADING,
    KH_NAPP_UNLOADED
};

struct kytos_napp {
    kh_host *host;
    char id[130];                  /* "user/name" */
    char logger[160];              /* "kytos.napps.user/name" */
    char version[64];
    char *file;                    /* the .so it came from */
    const struct kytos_napp_desc *desc;
    void *dl;
    atomic_int refs;
    atomic_int state;              /* enum kh_napp_state */
    int in_init;                   /* route_add allowed */
    int started;
    void *data;                    /* kytos_napp_set_data */
    void (*release)(kytos_napp *, void *); /* napp_set_data_full: called once, then NULL */
    struct json_object *settings;  /* borrowed from the config */
    struct kh_route *routes;       /* owned */
    void *spec;                    /* compiled OpenAPI spec, or NULL */
    uint64_t generation;
    int64_t loaded_at;             /* unix seconds */
    struct kh_ui_napp_files *ui;   /* its embedded ui/ files (kytos_napp_ui), or NULL */
    kytos_napp *next;              /* registry */
};

/* The NApp leaves (a failed init, or after stop): its release function,
 * if it set one (napp_set_data_full), runs once. */
void kh_napp_release_data(kytos_napp *n);

/* Scan the napps directory and load everything in dependency order. */
int kh_napps_load_all(kh_host *h);
/* Load (or replace) the NApp in this file.  0, or negative with the
 * reason recorded in the registry and logged. */
int kh_napps_load_file(kh_host *h, const char *path);
/* The file was removed: unload the NApp it held. */
void kh_napps_file_removed(kh_host *h, const char *path);
/* Call start() of every enabled NApp not yet started, in load order, and
 * publish kytos/core.<u>/<n>.loaded. */
void kh_napps_start_all(kh_host *h);
/* Unload every NApp in reverse load order. */
void kh_napps_unload_all(kh_host *h);
/* Management by id ("user/name"): KYTOS_OK, KYTOS_ENOTFOUND (not installed). */
int kh_napps_enable(kh_host *h, const char *id);
int kh_napps_disable(kh_host *h, const char *id);
int kh_napps_reload(kh_host *h, const char *id);
int kh_napps_reload_all(kh_host *h);
/* A referenced enabled NApp, or NULL. */
kytos_napp *kh_napps_get(kh_host *h, const char *id);
/* [["user","name"], ...] of enabled / installed NApps (new refs). */
struct json_object *kh_napps_enabled_json(kh_host *h);
struct json_object *kh_napps_installed_json(kh_host *h);
/* {"napps": {"user/name": {"state","version","file","reason","rejected",
 * "other_files"}}, "napp_files": {"<path>": {"state","id",...}}} (new ref):
 * keyed by NApp id in "napps", always; by file path in "napp_files". */
struct json_object *kh_napps_status(kh_host *h);
/* Descriptor field for GET napps/{u}/{n}/metadata/{key}, or NULL if not installed. */
struct json_object *kh_napps_metadata(kh_host *h, const char *id, const char *key);

/* The ui module's view of loaded NApps' embedded ui files (kh_ui_conf's
 * napp_file and napp_each; ctx is the kh_host). */
int kh_napps_ui_file(void *h, const char *user, const char *napp, const char *path,
                     struct kh_ui_napp_file *out);
void kh_napps_ui_each(void *h, void (*fn)(void *arg, const char *user, const char *napp,
                                          const char *path),
                      void *arg);

/* The ABI's route_add, for the table. */
int kh_napp_route_add(kytos_napp *n, const struct kytos_route *route);

/* Vet a file before dlopen: ELF shared object for this machine exporting
 * kytos_napp_desc with our magic and ABI major.  0, or -1 with a message. */
int kh_elf_check(const char *path, char *err, size_t errlen);

void kh_registry_free(kh_host *h);

#endif
