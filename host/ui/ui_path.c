/* host/ui/ui_path.c - a request's path turned into a file under the UI
 * directory, and nothing else (Kytos' B6 read any file through
 * /ui/{u}/{n}/{path}).  Two walls: the decoded segments are vetted one by
 * one (no "..", ".", dot files, separators, control bytes, long names),
 * then the file is opened with openat2(RESOLVE_BENEATH), so a symlink
 * leading out of the directory is refused by the kernel; where openat2 is
 * missing (ENOSYS), the real path is resolved and checked for the prefix. */
#include "ui/ui_path.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int kh_ui_seg_ok(const char *seg)
{
    size_t len = strlen(seg), i;

    if (len == 0 || len > KH_UI_NAME_MAX || seg[0] == '.')
        return 0;   /* empty (a "//"), ".", "..", and dot files (.git, .htpasswd) */
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)seg[i];
        if (c < 0x20 || c == 0x7f || c == '/' || c == '\\')
            return 0;   /* a decoded %2f, %5c, %00..%1f */
    }
    return 1;
}

int kh_ui_rel_path(char *const *segs, size_t nsegs, char *out, size_t outlen)
{
    size_t i, off = 0;

    if (nsegs == 0 || outlen == 0)
        return -1;
    for (i = 0; i < nsegs; i++) {
        size_t len = strlen(segs[i]);
        if (!kh_ui_seg_ok(segs[i]) || off + len + 2 > outlen || off + len + 1 > KH_UI_PATH_MAX)
            return -1;
        if (i)
            out[off++] = '/';
        memcpy(out + off, segs[i], len);
        off += len;
    }
    out[off] = '\0';
    return 0;
}

/* openat2 is not wrapped by glibc 2.36. */
static int open_beneath(int dirfd, const char *rel)
{
    struct open_how how;

    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
}

/* Fallback: resolve every link, then the result must lie inside root. */
static int open_checked(const char *root, const char *rel)
{
    char full[PATH_MAX], real[PATH_MAX];
    size_t rl = strlen(root);
    int fd;

    if ((size_t)snprintf(full, sizeof full, "%s/%s", root, rel) >= sizeof full)
        return errno = ENAMETOOLONG, -1;
    if (!realpath(full, real))
        return -1;
    if (strncmp(real, root, rl) != 0 || (real[rl] != '/' && real[rl] != '\0'))
        return errno = EXDEV, -1;
    fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    return fd;
}

int kh_ui_open(int root_fd, const char *root, const char *rel)
{
    int fd = open_beneath(root_fd, rel);

    if (fd < 0 && errno == ENOSYS)
        fd = open_checked(root, rel);
    return fd;
}
