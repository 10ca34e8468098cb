/* kytos/kytos.h - all a NApp includes. */
#ifndef KYTOS_KYTOS_H
#define KYTOS_KYTOS_H

#include "version.h"
#include "errors.h"
#include "types.h"
#include "api.h"
#include "log.h"
#include "http.h"
#include "event.h"
#include "store.h"
#include "conn.h"

#endif
