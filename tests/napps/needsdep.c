/* tests/napps/needsdep.c - a NApp depending on one that is not there. */
#include <kytos/kytos.h>

static int needsdep_init(kytos_napp *n, char **errmsg)
{
    (void)n;
    (void)errmsg;
    return KYTOS_OK;
}

KYTOS_NAPP_DEFINE("kytos", "needsdep", "0.0.1", KYTOS_DEPS("kytos/nothere"), NULL, 0, 0,
                  needsdep_init, NULL, NULL);
