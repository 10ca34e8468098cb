/* host/napps/watcher.h - inotify on the napps directory: a .so closed after
 * writing or moved in is loaded (or replaces the running version); one
 * removed or moved out is unloaded.  Events are coalesced for 100 ms so a
 * copy in progress is only loaded once complete. */
#ifndef KH_WATCHER_H
#define KH_WATCHER_H

#include "core/hostimpl.h"

struct kh_watcher *kh_watcher_start(kh_host *h, char *err, size_t errlen);
void kh_watcher_stop(struct kh_watcher *w);

#endif
