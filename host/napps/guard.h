/* host/napps/guard.h - contain faults in NApp code.
 *
 * A NApp callback run through kh_guard_call that faults (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL) *inside the NApp's own code* returns KH_ECRASHED
 * instead of killing kytosd; the host then answers 500 and takes the NApp
 * out of service (its memory and locks can no longer be trusted).  A fault
 * anywhere else (the host, a library) is fatal as usual, after a log line
 * that names the NApp being run.  Disabled in sanitizer builds, where the
 * sanitizer owns these signals. */
#ifndef KH_GUARD_H
#define KH_GUARD_H

#include "util/base.h"

#define KH_ECRASHED (-100)  /* host-internal: the callback faulted */

/* 1 when faults are contained in this build. */
int kh_guard_enabled(void);
int kh_guard_call(kytos_napp *n, int (*fn)(void *), void *arg);
/* Which signal ended the last contained call on this thread. */
int kh_guard_last_signal(void);

#endif
