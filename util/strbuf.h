/* util/strbuf.h - the growable NUL-terminated byte buffer shared by host/
 * and openapi/.  It may start on caller storage (KU_BUF_ON: a small
 * document or message needs no malloc) and moves to the heap past that.
 * On allocation failure it sets oom, keeps what it had and later appends
 * do nothing: callers may check oom once at the end. */
#ifndef KU_STRBUF_H
#define KU_STRBUF_H
#include <stdbool.h>
#include <stddef.h>

struct ku_buf {
    char *p;                  /* NUL terminated once anything was added */
    size_t len, cap;
    bool heap;                /* p is malloc'd */
    bool oom;                 /* a reserve failed (sticky) */
};
#define KU_BUF_INIT {NULL, 0, 0, false, false}
/* Start on caller storage: char storage[N] (N > 0). */
#define KU_BUF_ON(storage) {(storage), 0, sizeof(storage), false, false}

void ku_buf_init(struct ku_buf *b);
void ku_buf_free(struct ku_buf *b);
/* Empty again, keeping the storage. */
void ku_buf_reset(struct ku_buf *b);
/* Room for more bytes and a NUL: 0, or -1 (and oom set). */
int ku_buf_grow(struct ku_buf *b, size_t more);
static inline int ku_buf_reserve(struct ku_buf *b, size_t more)
{
    return !b->oom && b->cap > b->len && more < b->cap - b->len ? 0 : ku_buf_grow(b, more);
}
/* Append; 0, or -1 on oom. */
int ku_buf_add(struct ku_buf *b, const void *s, size_t n);
int ku_buf_adds(struct ku_buf *b, const char *s);
int ku_buf_addc(struct ku_buf *b, char c);
int ku_buf_printf(struct ku_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The contents as a malloc'd string the caller owns (NULL on oom); the
 * buffer is left empty (and off any caller storage). */
char *ku_buf_take(struct ku_buf *b);
static inline const char *ku_buf_str(const struct ku_buf *b)
{
    return b->p && b->len ? b->p : "";
}

#endif
