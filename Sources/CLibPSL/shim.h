#ifndef UNITOOL_CLIBPSL_SHIM_H
#define UNITOOL_CLIBPSL_SHIM_H

/* libpsl: the Public Suffix List, as curl and wget use it (Debian: libpsl-dev, with the list
   itself in the publicsuffix package). */
#include <libpsl.h>

#endif
