/* tests/await.h - wait for a condition the test cannot be told about (a
 * NApp's timer did its work): poll it every 20 ms, up to a deadline. */
#ifndef KYTOS_TESTS_AWAIT_H
#define KYTOS_TESTS_AWAIT_H

#include <stdbool.h>
#include <time.h>

/* true once done(ud), false when timeout_ms passed first. */
static inline bool await_until(bool (*done)(const void *ud), const void *ud, unsigned timeout_ms)
{
    struct timespec step = {0, 20 * 1000000L};

    for (unsigned waited = 0; waited <= timeout_ms; waited += 20) {
        if (done(ud))
            return true;
        nanosleep(&step, NULL);
    }
    return false;
}

#endif
