/* host/ui/ui_path.h - request path segments to a file confined to a
 * directory (ui_path.c). */
#ifndef KH_UI_PATH_H
#define KH_UI_PATH_H

#include <stddef.h>

#define KH_UI_NAME_MAX 255    /* one segment */
#define KH_UI_PATH_MAX 1024   /* the joined relative path */

/* 1 when one decoded segment may name a file: not empty, not ".", "..",
 * or another dot file, no '/', '\\' or control byte, at most
 * KH_UI_NAME_MAX bytes. */
int kh_ui_seg_ok(const char *seg);
/* Join segs with '/' into out (a relative path): 0, or -1 when a segment
 * is refused or the result is too long. */
int kh_ui_rel_path(char *const *segs, size_t nsegs, char *out, size_t outlen);
/* Open rel (from kh_ui_rel_path) read-only under the directory root_fd
 * (whose real path is root): symlinks may not lead out of it.  An fd, or
 * -1 with errno (EXDEV for a path leading out). */
int kh_ui_open(int root_fd, const char *root, const char *rel);

#endif
