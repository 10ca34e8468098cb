/* host/store/store_sqlite_walbuf.c - the embedded store's VFS: SQLite's
 * "unix-excl" (see sq_vfs()) with the WAL's frames gathered into one
 * write per transaction.
 *
 * SQLite writes each WAL frame with two pwrite() calls, its 24-byte header
 * and then the page.  Each is a trap into the kernel, dear on a
 * paravirtualised machine: a link failure at 10,000 EVCs commits about
 * 145,000 frames, and the writer thread spent a quarter of its time in
 * pwrite() (bench/scale-bench.py 10000, link_down, perf).  Here the WAL's
 * writes go to a buffer while they follow one another, and the buffer is
 * written out:
 *   - when a transaction's commit frame is complete (a frame header whose
 *     "database size after commit" is not 0, then its page): the write of
 *     that page returns the buffer's result, so a failure fails the commit
 *     before SQLite publishes it in the WAL index, as a failed pwrite() of
 *     that page would have;
 *   - before anything else touches the file (read, sync, truncate, size,
 *     file control, close), when a write does not follow the buffer, when
 *     it is full, and when SQLite publishes the WAL index (xShmBarrier of
 *     the database file), should a commit ever not have been seen.
 * So a frame is in the kernel before any connection can know of it, and a
 * committed transaction is in the kernel when its commit returns, as
 * before: durability is unchanged (synchronous=NORMAL: the OS cache;
 * FULL: xSync writes the buffer first).  Frames that a large transaction
 * spills before its commit may wait in the buffer; only this connection
 * reads them, and its reads write the buffer out first.  Other files pass
 * through. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "store/store_sqlite.h"

#define WB_VFS_NAME "kh-walbuf"
#define WB_CAP ((size_t)1 << 20)       /* bytes gathered at most: ~250 frames of 4 KiB */
#define WB_FRAME_HDR 24                /* a WAL frame header (SQLite's file format) */
/* The unix VFS writes at most 128 KiB - 1 bytes per call (seekAndWriteFd
 * keeps 17 bits of the length; more is a short write, SQLITE_FULL) */
#define WB_CHUNK ((size_t)31 << 12)

struct wb_file {
    sqlite3_file base;                 /* pMethods: wb_io (or NULL: not open) */
    sqlite3_file *real;                /* the base VFS's file, after this struct */
    int is_wal;
    struct wb_file *wal;               /* a database file: its connection's open WAL */
    struct wb_file *db;                /* a WAL file: its database file */
    unsigned char *buf;                /* WAL: gathered writes, from offset start */
    size_t len;
    sqlite3_int64 start;
    int commit_page_next;              /* the last header was a commit frame's */
    int late_rc;                       /* a write-out from xShmBarrier that failed */
};

static sqlite3_vfs wb_vfs;
static sqlite3_vfs *wb_base;
static const sqlite3_io_methods wb_io;
static sqlite3_io_methods wb_io_v[3];   /* wb_io as versions 1, 2, 3 */
static atomic_uint_fast64_t wb_writes, wb_flushes;
static atomic_int wb_fail_next;        /* tests: write-outs to fail */

static int wb_flush(struct wb_file *w)
{
    int rc = SQLITE_OK;

    if (!w->len)
        return SQLITE_OK;
    if (atomic_load(&wb_fail_next) > 0 && atomic_fetch_sub(&wb_fail_next, 1) > 0)
        rc = SQLITE_IOERR_WRITE;
    for (size_t at = 0; rc == SQLITE_OK && at < w->len; at += WB_CHUNK) {
        size_t n = w->len - at < WB_CHUNK ? w->len - at : WB_CHUNK;
        rc = w->real->pMethods->xWrite(w->real, w->buf + at, (int)n, w->start + (sqlite3_int64)at);
    }
    atomic_fetch_add_explicit(&wb_flushes, 1, memory_order_relaxed);
    w->len = 0;   /* written or failed: SQLite rolls a failed transaction back */
    return rc;
}

/* Before anything but a following write: the buffer out, or an earlier
 * write-out's failure. */
static int wb_settle(struct wb_file *w)
{
    int rc = wb_flush(w);

    if (rc == SQLITE_OK && w->late_rc != SQLITE_OK) {
        rc = w->late_rc;
        w->late_rc = SQLITE_OK;
    }
    return rc;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int wb_write(sqlite3_file *f, const void *p, int amt, sqlite3_int64 off)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc;

    if (!w->is_wal)
        return w->real->pMethods->xWrite(w->real, p, amt, off);
    atomic_fetch_add_explicit(&wb_writes, 1, memory_order_relaxed);
    if (!w->buf && !(w->buf = malloc(WB_CAP)))
        return w->real->pMethods->xWrite(w->real, p, amt, off);
    if ((w->len && off != w->start + (sqlite3_int64)w->len) || w->len + (size_t)amt > WB_CAP ||
        w->late_rc != SQLITE_OK) {
        if ((rc = wb_settle(w)) != SQLITE_OK)
            return rc;
    }
    if ((size_t)amt > WB_CHUNK) {   /* pages are at most 64 KiB: not seen */
        if ((rc = wb_settle(w)) != SQLITE_OK)
            return rc;
        return w->real->pMethods->xWrite(w->real, p, amt, off);
    }
    if (!w->len)
        w->start = off;
    memcpy(w->buf + w->len, p, (size_t)amt);
    w->len += (size_t)amt;
    if (amt == WB_FRAME_HDR) {
        /* bytes 4..7: the database's size in pages after a commit, else 0 */
        w->commit_page_next = be32((const unsigned char *)p + 4) != 0;
        return SQLITE_OK;
    }
    if (w->commit_page_next) {
        w->commit_page_next = 0;
        return wb_flush(w);
    }
    return SQLITE_OK;
}

static int wb_read(sqlite3_file *f, void *p, int amt, sqlite3_int64 off)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc;

    if (w->is_wal && (rc = wb_settle(w)) != SQLITE_OK)
        return rc;
    return w->real->pMethods->xRead(w->real, p, amt, off);
}

static int wb_close(sqlite3_file *f)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc = SQLITE_OK, rc2;

    if (w->is_wal) {
        rc = wb_settle(w);
        if (w->db && w->db->wal == w)
            w->db->wal = NULL;
        free(w->buf);
        w->buf = NULL;
    } else if (w->wal) {
        w->wal->db = NULL;
    }
    rc2 = w->real->pMethods->xClose(w->real);
    return rc != SQLITE_OK ? rc : rc2;
}

static int wb_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc;

    if (w->is_wal && (rc = wb_settle(w)) != SQLITE_OK)
        return rc;
    return w->real->pMethods->xTruncate(w->real, size);
}

static int wb_sync(sqlite3_file *f, int flags)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc;

    if (w->is_wal && (rc = wb_settle(w)) != SQLITE_OK)
        return rc;
    return w->real->pMethods->xSync(w->real, flags);
}

static int wb_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc;

    if (w->is_wal && (rc = wb_settle(w)) != SQLITE_OK)
        return rc;
    return w->real->pMethods->xFileSize(w->real, size);
}

static int wb_file_control(sqlite3_file *f, int op, void *arg)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc;

    if (w->is_wal && (rc = wb_settle(w)) != SQLITE_OK)
        return rc;
    return w->real->pMethods->xFileControl(w->real, op, arg);
}

/* SQLite publishes frames in the WAL index between two barriers: none may
 * still be here by then (a write-out that fails now fails the next call). */
static void wb_shm_barrier(sqlite3_file *f)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc;

    if (w->wal && w->wal->len && (rc = wb_flush(w->wal)) != SQLITE_OK)
        w->wal->late_rc = rc;
    w->real->pMethods->xShmBarrier(w->real);
}

/* ---- the rest passes through ---- */

#define REAL(f) (((struct wb_file *)(f))->real)

static int wb_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int wb_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int wb_check_reserved(sqlite3_file *f, int *out)
{
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int wb_sector_size(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int wb_device_chars(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int wb_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
    return REAL(f)->pMethods->xShmMap(REAL(f), pg, pgsz, extend, pp);
}
static int wb_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}
static int wb_shm_unmap(sqlite3_file *f, int del)
{
    return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
static int wb_fetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **pp)
{
    return REAL(f)->pMethods->xFetch(REAL(f), off, amt, pp);
}
static int wb_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods wb_io = {
    .iVersion = 3,
    .xClose = wb_close,
    .xRead = wb_read,
    .xWrite = wb_write,
    .xTruncate = wb_truncate,
    .xSync = wb_sync,
    .xFileSize = wb_file_size,
    .xLock = wb_lock,
    .xUnlock = wb_unlock,
    .xCheckReservedLock = wb_check_reserved,
    .xFileControl = wb_file_control,
    .xSectorSize = wb_sector_size,
    .xDeviceCharacteristics = wb_device_chars,
    .xShmMap = wb_shm_map,
    .xShmLock = wb_shm_lock,
    .xShmBarrier = wb_shm_barrier,
    .xShmUnmap = wb_shm_unmap,
    .xFetch = wb_fetch,
    .xUnfetch = wb_unfetch,
};

static int wb_ours(const struct wb_file *w)
{
    return w->base.pMethods >= &wb_io_v[0] && w->base.pMethods <= &wb_io_v[2];
}

static int wb_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
    struct wb_file *w = (struct wb_file *)f;
    int rc, v;

    (void)vfs;
    memset(w, 0, sizeof(*w));
    w->real = (sqlite3_file *)(w + 1);
    rc = wb_base->xOpen(wb_base, name, w->real, flags, out_flags);
    if (rc != SQLITE_OK || !w->real->pMethods) {
        /* SQLite calls xClose only when pMethods is set */
        if (w->real->pMethods)
            w->real->pMethods->xClose(w->real);
        w->base.pMethods = NULL;
        return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
    }
    /* the base's version: SQLite never calls what a version 1 or 2 file lacks */
    v = w->real->pMethods->iVersion;
    w->base.pMethods = &wb_io_v[(v < 1 ? 1 : v > 3 ? 3 : v) - 1];
    if ((flags & SQLITE_OPEN_WAL) && name) {
        w->is_wal = 1;
        w->db = (struct wb_file *)sqlite3_database_file_object(name);
        if (w->db && wb_ours(w->db))
            w->db->wal = w;
        else
            w->db = NULL;
    }
    return SQLITE_OK;
}

/* ---- the VFS: everything but xOpen is the base's ---- */

static int wb_delete(sqlite3_vfs *v, const char *name, int sync)
{
    (void)v;
    return wb_base->xDelete(wb_base, name, sync);
}
static int wb_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
    (void)v;
    return wb_base->xAccess(wb_base, name, flags, out);
}
static int wb_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
    (void)v;
    return wb_base->xFullPathname(wb_base, name, n, out);
}
static void *wb_dlopen(sqlite3_vfs *v, const char *name)
{
    (void)v;
    return wb_base->xDlOpen(wb_base, name);
}
static void wb_dlerror(sqlite3_vfs *v, int n, char *out)
{
    (void)v;
    wb_base->xDlError(wb_base, n, out);
}
static void (*wb_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
    (void)v;
    return wb_base->xDlSym(wb_base, h, sym);
}
static void wb_dlclose(sqlite3_vfs *v, void *h)
{
    (void)v;
    wb_base->xDlClose(wb_base, h);
}
static int wb_randomness(sqlite3_vfs *v, int n, char *out)
{
    (void)v;
    return wb_base->xRandomness(wb_base, n, out);
}
static int wb_sleep(sqlite3_vfs *v, int us)
{
    (void)v;
    return wb_base->xSleep(wb_base, us);
}
static int wb_current_time(sqlite3_vfs *v, double *out)
{
    (void)v;
    return wb_base->xCurrentTime(wb_base, out);
}
static int wb_last_error(sqlite3_vfs *v, int n, char *out)
{
    (void)v;
    return wb_base->xGetLastError ? wb_base->xGetLastError(wb_base, n, out) : 0;
}
static int wb_current_time64(sqlite3_vfs *v, sqlite3_int64 *out)
{
    double d;
    int rc;

    (void)v;
    if (wb_base->iVersion >= 2 && wb_base->xCurrentTimeInt64)
        return wb_base->xCurrentTimeInt64(wb_base, out);
    rc = wb_base->xCurrentTime(wb_base, &d);
    *out = (sqlite3_int64)(d * 86400000.0);
    return rc;
}

static void wb_register(void)
{
    wb_base = sqlite3_vfs_find("unix-excl");
    /* the methods above are version 3's; another base is used as it is */
    if (!wb_base || wb_base->iVersion < 2)
        return;
    for (int v = 1; v <= 3; v++) {
        wb_io_v[v - 1] = wb_io;
        wb_io_v[v - 1].iVersion = v;
    }
    wb_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(struct wb_file) + wb_base->szOsFile,
        .mxPathname = wb_base->mxPathname,
        .zName = WB_VFS_NAME,
        .xOpen = wb_open,
        .xDelete = wb_delete,
        .xAccess = wb_access,
        .xFullPathname = wb_full_pathname,
        .xDlOpen = wb_dlopen,
        .xDlError = wb_dlerror,
        .xDlSym = wb_dlsym,
        .xDlClose = wb_dlclose,
        .xRandomness = wb_randomness,
        .xSleep = wb_sleep,
        .xCurrentTime = wb_current_time,
        .xGetLastError = wb_last_error,
        .xCurrentTimeInt64 = wb_current_time64,
    };
    if (sqlite3_vfs_register(&wb_vfs, 0) != SQLITE_OK)
        wb_base = NULL;
}

const char *sq_walbuf_vfs(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, wb_register);
    if (wb_base)
        return WB_VFS_NAME;
    return sqlite3_vfs_find("unix-excl") ? "unix-excl" : NULL;
}

void sq_walbuf_stats(uint64_t *writes, uint64_t *flushes)
{
    *writes = atomic_load(&wb_writes);
    *flushes = atomic_load(&wb_flushes);
}

void sq_walbuf_fail_writes(int n)
{
    atomic_store(&wb_fail_next, n);
}
