/* host/napps/watcher.c - see watcher.h. */
#include "napps/watcher.h"
#include "util/log.h"
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOGGER "kytos.core.napp_dir_listener"
#define MAX_PENDING 64

struct pending {
    char name[NAME_MAX + 1];
    int removed;
};

struct kh_watcher {
    kh_host *host;
    int ifd, stopfd, wd;
    pthread_t thread;
    struct pending pend[MAX_PENDING];
    size_t npend;
};

static int is_so(const char *name)
{
    size_t l = strlen(name);
    return l > 3 && !strcmp(name + l - 3, ".so") && name[0] != '.';
}

static void note(struct kh_watcher *w, const char *name, int removed)
{
    size_t i;
    for (i = 0; i < w->npend; i++)
        if (!strcmp(w->pend[i].name, name)) {
            w->pend[i].removed = removed;
            return;
        }
    if (w->npend < MAX_PENDING) {
        snprintf(w->pend[w->npend].name, sizeof w->pend[0].name, "%s", name);
        w->pend[w->npend++].removed = removed;
    }
}

static void apply(struct kh_watcher *w)
{
    size_t i;
    for (i = 0; i < w->npend; i++) {
        char path[PATH_MAX + NAME_MAX + 2];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", w->host->napps_dir, w->pend[i].name);
        if (w->pend[i].removed || stat(path, &st) != 0) {
            kh_log(LOGGER, KH_INFO, "%s removed", path);
            kh_napps_file_removed(w->host, path);
        } else if (S_ISREG(st.st_mode)) {
            kh_log(LOGGER, KH_INFO, "%s changed: loading", path);
            kh_napps_load_file(w->host, path);
        }
    }
    w->npend = 0;
}

static void *watch_main(void *arg)
{
    struct kh_watcher *w = arg;
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

    for (;;) {
        struct pollfd p[2] = {{w->ifd, POLLIN, 0}, {w->stopfd, POLLIN, 0}};
        int rc = poll(p, 2, w->npend ? 100 : -1);   /* 100 ms to coalesce */
        if (rc < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            break;
        if (rc == 0) {
            apply(w);
            continue;
        }
        if (p[0].revents & POLLIN) {
            ssize_t n = read(w->ifd, buf, sizeof buf);
            char *q = buf;
            while (n > 0 && q < buf + n) {
                struct inotify_event *ev = (struct inotify_event *)q;
                if (ev->len && is_so(ev->name)) {
                    if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))
                        note(w, ev->name, 0);
                    else if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
                        note(w, ev->name, 1);
                }
                if (ev->mask & IN_Q_OVERFLOW)
                    kh_log(LOGGER, KH_WARNING, "inotify queue overflow: some changes were missed");
                q += sizeof *ev + ev->len;
            }
        }
    }
    return NULL;
}

struct kh_watcher *kh_watcher_start(kh_host *h, char *err, size_t errlen)
{
    struct kh_watcher *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->host = h;
    w->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    w->stopfd = eventfd(0, EFD_CLOEXEC);
    if (w->ifd < 0 || w->stopfd < 0) {
        snprintf(err, errlen, "inotify: %s", strerror(errno));
        goto fail;
    }
    w->wd = inotify_add_watch(w->ifd, h->napps_dir,
                              IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM);
    if (w->wd < 0) {
        snprintf(err, errlen, "cannot watch %s: %s", h->napps_dir, strerror(errno));
        goto fail;
    }
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        snprintf(err, errlen, "cannot start the watcher thread");
        goto fail;
    }
    pthread_setname_np(w->thread, "napp-watcher");
    return w;
fail:
    if (w->ifd >= 0)
        close(w->ifd);
    if (w->stopfd >= 0)
        close(w->stopfd);
    free(w);
    return NULL;
}

void kh_watcher_stop(struct kh_watcher *w)
{
    uint64_t one = 1;
    if (!w)
        return;
    if (write(w->stopfd, &one, sizeof one) != sizeof one)
        kh_log(LOGGER, KH_WARNING, "cannot signal the watcher thread");
    pthread_join(w->thread, NULL);
    close(w->ifd);
    close(w->stopfd);
    free(w);
}
