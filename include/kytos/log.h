/* kytos/log.h - logging.  Lines are tagged kytos.napps.<user>/<name>; a call
 * costs a queue push (a background thread writes).  Thread safe. */
#ifndef KYTOS_LOG_H
#define KYTOS_LOG_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef KYTOS_HOST
static inline void kytos_log(const kytos_napp *n, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void kytos_log(const kytos_napp *n, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kytos__api->logv(n, level, fmt, ap);
    va_end(ap);
}
static inline int kytos_log_enabled(const kytos_napp *n, int level)
{
    return kytos__api->log_enabled(n, level);
}
#endif /* KYTOS_HOST */

#ifdef __cplusplus
}
#endif

#endif
